// LayerNormalization (onnx/operators/layer_norm.cpp): identity affine parts emit nothing.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

Model ln_model(std::vector<float> scale, std::vector<float> bias,
               std::vector<std::int64_t> scale_dims = {4},
               std::vector<std::int64_t> bias_dims = {4}) {
  Model m(17);
  m.input("x", {2, 4}).output("y").init("g", std::move(scale_dims), std::move(scale));
  std::vector<std::string> ins = {"x", "g"};
  if (!bias.empty()) {
    m.init("b", std::move(bias_dims), std::move(bias));
    ins.push_back("b");
  }
  m.node("LayerNormalization", ins, {"y"}, "ln");
  return m;
}

TEST(OnnxImport, LayerNormalizationIdentityAffineIsOneNode) {
  const ImportedModel ones_zeros = ok(ln_model({1, 1, 1, 1}, {0, 0, 0, 0}));
  EXPECT_EQ(lines(ones_zeros.graph()),
            (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'"}));
  EXPECT_EQ(ones_zeros.graph().output_ids, (std::vector<ir::NodeId>{1u}));
  EXPECT_EQ(lines(ok(ln_model({1, 1, 1, 1}, {})).graph()),
            (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'"}));
}

TEST(OnnxImport, LayerNormalizationScaleAndBias) {
  Model m(17);
  m.input("x", {2, 3, 4})
      .output("y")
      .init("g", {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
      .init("b", {4}, {0.5f, -1, 0, 2});
  attr_i(m.node("LayerNormalization", {"x", "g", "b"}, {"y"}, "ln"), "axis", 1);
  const ImportedModel r = ok(m);
  EXPECT_EQ(
      lines(r.graph()),
      (Lines{"0 input -> [2,3,4] 'x'", "1 layernorm(axis=1) [0] -> [2,3,4] 'ln'",
             "2 const -> [3,4] 'g'", "3 broadcast_to([3,4]->[2,3,4]) [2] -> [2,3,4] 'ln'",
             "4 mul_elem [1,3] -> [2,3,4] 'ln'", "5 const -> [4] 'b'",
             "6 broadcast_to([4]->[2,3,4]) [5] -> [2,3,4] 'ln'", "7 add [4,6] -> [2,3,4] 'ln'"}));
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{7u}));
  EXPECT_EQ(tensor_of(r, 2, "value").shape, (ir::Shape{{3, 4}}));
  EXPECT_EQ(tensor_of(r, 2, "value").data,
            (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(tensor_of(r, 5, "value").shape, (ir::Shape{{4}}));
  EXPECT_EQ(tensor_of(r, 5, "value").data, (std::vector<float>{0.5f, -1, 0, 2}));
}

TEST(OnnxImport, LayerNormalizationScaleOnly) {
  for (const bool with_zero_bias : {false, true}) {
    const ImportedModel r = ok(ln_model(
        {1, 2, 1, 1}, with_zero_bias ? std::vector<float>{0, 0, 0, 0} : std::vector<float>{}));
    EXPECT_EQ(lines(r.graph()),
              (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'",
                     "2 const -> [4] 'g'", "3 broadcast_to([4]->[2,4]) [2] -> [2,4] 'ln'",
                     "4 mul_elem [1,3] -> [2,4] 'ln'"}));
    EXPECT_EQ(tensor_of(r, 2, "value").data, (std::vector<float>{1, 2, 1, 1}));
    EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{4u}));
  }
}

TEST(OnnxImport, LayerNormalizationBiasOnly) {
  const ImportedModel r = ok(ln_model({1}, {0, 0, 1, 0}, {1}, {4}));
  EXPECT_EQ(
      lines(r.graph()),
      (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'", "2 const -> [4] 'b'",
             "3 broadcast_to([4]->[2,4]) [2] -> [2,4] 'ln'", "4 add [1,3] -> [2,4] 'ln'"}));
  EXPECT_EQ(tensor_of(r, 2, "value").data, (std::vector<float>{0, 0, 1, 0}));
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{4u}));
}

TEST(OnnxImport, LayerNormalizationRejections) {
  EXPECT_EQ(error_of(ln_model({1, 2, 3}, {}, {3})),
            "m.onnx: node 'ln' (LayerNormalization, opset 17): Scale 'g' has shape [3], which does "
            "not broadcast to the normalized dims [4] (X.shape[1:])");
  EXPECT_EQ(error_of(ln_model({1, 1, 1, 1}, {0, 0, 0, 0, 0, 0, 0, 0}, {4}, {2, 4})),
            "m.onnx: node 'ln' (LayerNormalization, opset 17): B 'b' has shape [2,4], which does "
            "not broadcast to the normalized dims [4] (X.shape[1:])");
  Model input(17);
  input.input("x", {2, 4}).input("g", {4}).output("y");
  input.node("LayerNormalization", {"x", "g"}, {"y"}, "ln");
  EXPECT_EQ(unsupported_of(input),
            "node 0 'ln' (LayerNormalization): Scale 'g' is a graph input, not an initializer: "
            "the model was exported without its parameters (torch.onnx.export(..., "
            "export_params=False)); export it with export_params=True");
  Model eps = ln_model({1, 2, 1, 1}, {});
  attr_f(*eps.g().mutable_node(0), "epsilon", 1e-3f);
  EXPECT_NE(unsupported_of(eps).find("attribute epsilon = "), std::string::npos);
  Model extra = ln_model({1, 1, 1, 1}, {});
  extra.g().mutable_node(0)->add_output("mean");
  extra.g().mutable_output(0)->set_name("mean");
  EXPECT_EQ(unsupported_of(extra),
            "node 0 'ln' (LayerNormalization): output 1 Mean ('mean') is used; "
            "only the first output is supported");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
