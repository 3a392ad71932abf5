// LayerNormalization (onnx/operators/layer_norm.cpp): identity affine parts emit nothing; Scale
// and B of exactly the normalized dims are the node's gamma and beta, epsilon its attribute.
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
  // Scale of exactly the normalized dims [3,4] is the node's gamma; B [4] only broadcasts to
  // them, so it is added after the node (beta would be added before the scale).
  Model m(17);
  m.input("x", {2, 3, 4})
      .output("y")
      .init("g", {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
      .init("b", {4}, {0.5f, -1, 0, 2});
  attr_i(m.node("LayerNormalization", {"x", "g", "b"}, {"y"}, "ln"), "axis", 1);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [2,3,4] 'x'", "1 layernorm(axis=1) [0] -> [2,3,4] 'ln'",
                   "2 const -> [4] 'b'", "3 broadcast_to([4]->[2,3,4]) [2] -> [2,3,4] 'ln'",
                   "4 add [1,3] -> [2,3,4] 'ln'"}));
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{4u}));
  EXPECT_EQ(tensor_of(r, 1, "gamma").shape(), (ir::Shape{{3, 4}}));
  EXPECT_EQ(tensor_of(r, 1, "gamma").to_vector<float>(),
            (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(r.payloads.find_tensor(1, "beta"), nullptr);
  EXPECT_EQ(tensor_of(r, 2, "value").shape(), (ir::Shape{{4}}));
  EXPECT_EQ(tensor_of(r, 2, "value").to_vector<float>(), (std::vector<float>{0.5f, -1, 0, 2}));
  EXPECT_FALSE(r.payloads.find_attribute(1, "epsilon").has_value());

  // Both of exactly the normalized dims: gamma and beta, one node.
  Model both(17);
  both.input("x", {2, 4}).output("y").init("g", {4}, {1, 2, 3, 4}).init("b", {4}, {0, 1, 0, 1});
  both.node("LayerNormalization", {"x", "g", "b"}, {"y"}, "ln");
  const ImportedModel rb = ok(both);
  EXPECT_EQ(lines(rb.graph()),
            (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'"}));
  EXPECT_EQ(tensor_of(rb, 1, "gamma").to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(tensor_of(rb, 1, "beta").to_vector<float>(), (std::vector<float>{0, 1, 0, 1}));

  // A Scale that only broadcasts is multiplied in after the node, and B with it.
  Model bcast(17);
  bcast.input("x", {2, 3, 4})
      .output("y")
      .init("g", {4}, {1, 2, 3, 4})
      .init("b", {3, 4}, std::vector<float>(12, 0.5f));
  attr_i(bcast.node("LayerNormalization", {"x", "g", "b"}, {"y"}, "ln"), "axis", 1);
  const ImportedModel rc = ok(bcast);
  EXPECT_EQ(
      lines(rc.graph()),
      (Lines{"0 input -> [2,3,4] 'x'", "1 layernorm(axis=1) [0] -> [2,3,4] 'ln'",
             "2 const -> [4] 'g'", "3 broadcast_to([4]->[2,3,4]) [2] -> [2,3,4] 'ln'",
             "4 mul_elem [1,3] -> [2,3,4] 'ln'", "5 const -> [3,4] 'b'",
             "6 broadcast_to([3,4]->[2,3,4]) [5] -> [2,3,4] 'ln'", "7 add [4,6] -> [2,3,4] 'ln'"}));
  EXPECT_EQ(rc.payloads.find_tensor(1, "gamma"), nullptr);
  EXPECT_EQ(rc.payloads.find_tensor(1, "beta"), nullptr);
}

TEST(OnnxImport, LayerNormalizationScaleOnly) {
  for (const bool with_zero_bias : {false, true}) {
    const ImportedModel r = ok(ln_model(
        {1, 2, 1, 1}, with_zero_bias ? std::vector<float>{0, 0, 0, 0} : std::vector<float>{}));
    EXPECT_EQ(lines(r.graph()),
              (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'"}));
    EXPECT_EQ(tensor_of(r, 1, "gamma").shape(), (ir::Shape{{4}}));
    EXPECT_EQ(tensor_of(r, 1, "gamma").to_vector<float>(), (std::vector<float>{1, 2, 1, 1}));
    EXPECT_EQ(r.payloads.find_tensor(1, "beta"), nullptr);
    EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{1u}));
  }
}

TEST(OnnxImport, LayerNormalizationBiasOnly) {
  const ImportedModel r = ok(ln_model({1}, {0, 0, 1, 0}, {1}, {4}));
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'"}));
  EXPECT_EQ(r.payloads.find_tensor(1, "gamma"), nullptr);
  EXPECT_EQ(tensor_of(r, 1, "beta").shape(), (ir::Shape{{4}}));
  EXPECT_EQ(tensor_of(r, 1, "beta").to_vector<float>(), (std::vector<float>{0, 0, 1, 0}));
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{1u}));
}

TEST(OnnxImport, LayerNormalizationEpsilonIsAnAttribute) {
  Model eps = ln_model({1, 2, 1, 1}, {});
  attr_f(*eps.g().mutable_node(0), "epsilon", 1e-3f);
  const ImportedModel r = ok(eps);
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'"}));
  EXPECT_EQ(r.payloads.find_attribute(1, "epsilon"), std::optional<double>{double{1e-3f}});
  // The default is the IR's own: not recorded.
  Model def = ln_model({1, 2, 1, 1}, {});
  attr_f(*def.g().mutable_node(0), "epsilon", 1e-5f);
  EXPECT_FALSE(ok(def).payloads.find_attribute(1, "epsilon").has_value());
  // Shapes only: the epsilon is a payload too, and is not kept.
  EXPECT_FALSE(
      ok(eps, OnnxImportOptions{.keep_payloads = false}).payloads.find_attribute(1, "epsilon"));
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
  // A Scale that is a graph input (export_params=False) multiplies the normalized value after
  // it, as a Scale of other dims does.
  EXPECT_EQ(lines(ok(input).graph()).back(), "4 mul_elem [2,3] -> [2,4] 'ln'");
  Model ints(17);
  ints.input("x", {2, 4}).input("g", {4}, onnx::TensorProto_DataType_INT64).output("y");
  ints.node("LayerNormalization", {"x", "g"}, {"y"}, "ln");
  EXPECT_EQ(unsupported_of(ints),
            "node 0 'ln' (LayerNormalization): Scale 'g' has dtype int64; supported: float32");
  Model eps = ln_model({1, 2, 1, 1}, {});
  attr_f(*eps.g().mutable_node(0), "epsilon", -1.0f);
  EXPECT_EQ(unsupported_of(eps),
            "node 0 'ln' (LayerNormalization): attribute epsilon = -1 is not supported; "
            "supported: a finite positive epsilon");
}

// Mean and InvStdDev where used: the mean over the normalized axes and 1 / sqrt(var + epsilon),
// with those axes kept as 1s; an unused one adds nothing.
TEST(OnnxImport, LayerNormalizationMeanAndInvStdDevOutputs) {
  Model m = ln_model({1, 1, 1, 1}, {});
  m.g().mutable_node(0)->add_output("mean");
  m.g().mutable_node(0)->add_output("inv");
  m.g().mutable_output(0)->set_name("mean");
  m.g().add_output()->set_name("inv");
  m.g().add_output()->set_name("y");
  EXPECT_EQ(
      lines(ok(m).graph()),
      (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'",
             "2 reduce_mean(axis=1) [0] -> [2] 'ln'", "3 reshape([2]->[2,1]) [2] -> [2,1] 'ln'",
             "4 broadcast_to([2,1]->[2,4]) [3] -> [2,4] 'ln'", "5 sub [0,4] -> [2,4] 'ln'",
             "6 mul_elem [5,5] -> [2,4] 'ln'", "7 reduce_mean(axis=1) [6] -> [2] 'ln'",
             "8 reshape([2]->[2,1]) [7] -> [2,1] 'ln'", "9 const -> [] 'ln'",
             "10 broadcast_to([]->[2,1]) [9] -> [2,1] 'ln'", "11 add [8,10] -> [2,1] 'ln'",
             "12 sqrt [11] -> [2,1] 'ln'", "13 inv [12] -> [2,1] 'ln'"}));
  Model mean_only = ln_model({1, 1, 1, 1}, {});
  mean_only.g().mutable_node(0)->add_output("mean");
  mean_only.g().mutable_node(0)->add_output("");
  mean_only.g().mutable_output(0)->set_name("mean");
  EXPECT_EQ(
      lines(ok(mean_only).graph()),
      (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'",
             "2 reduce_mean(axis=1) [0] -> [2] 'ln'", "3 reshape([2]->[2,1]) [2] -> [2,1] 'ln'"}));
}

// A layernorm from axis 2, then the per-channel scale and B as [C,1,1] broadcast.
TEST(OnnxImport, InstanceNormalizationIsALayernormOverTheSpatialAxes) {
  Model m;
  m.input("x", {1, 2, 3, 4}).output("y").init("s", {2}, {1, 2}).init("b", {2}, {0, 1});
  attr_f(m.node("InstanceNormalization", {"x", "s", "b"}, {"y"}, "in"), "epsilon", 1e-3F);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [1,2,3,4] 'x'", "1 layernorm(axis=2) [0] -> [1,2,3,4] 'in'",
                   "2 const -> [2] 's'", "3 reshape([2]->[2,1,1]) [2] -> [2,1,1] 'in'",
                   "4 broadcast_to([2,1,1]->[1,2,3,4]) [3] -> [1,2,3,4] 'in'",
                   "5 mul_elem [1,4] -> [1,2,3,4] 'in'", "6 const -> [2] 'b'",
                   "7 reshape([2]->[2,1,1]) [6] -> [2,1,1] 'in'",
                   "8 broadcast_to([2,1,1]->[1,2,3,4]) [7] -> [1,2,3,4] 'in'",
                   "9 add [5,8] -> [1,2,3,4] 'in'"}));
  EXPECT_FLOAT_EQ(static_cast<float>(r.payloads.attributes.at({1, "epsilon"})), 1e-3F);
  Model flat;
  flat.input("x", {2, 3}).output("y").init("s", {3}, {1, 1, 1}).init("b", {3}, {0, 0, 0});
  flat.node("InstanceNormalization", {"x", "s", "b"}, {"y"}, "in");
  EXPECT_EQ(error_of(flat),
            "m.onnx: node 'in' (InstanceNormalization, opset 17): input has shape [2,3]; "
            "InstanceNormalization needs (N, C, D1, ...)");
  Model wrong;
  wrong.input("x", {1, 2, 3}).output("y").init("s", {3}, {1, 1, 1}).init("b", {2}, {0, 0});
  wrong.node("InstanceNormalization", {"x", "s", "b"}, {"y"}, "in");
  EXPECT_EQ(error_of(wrong),
            "m.onnx: node 'in' (InstanceNormalization, opset 17): scale 's' has shape [3]; "
            "expected [2] (one value per channel)");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
