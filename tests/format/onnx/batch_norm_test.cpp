// BatchNormalization (onnx/operators/batch_norm.cpp): inference form with payloads.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

Model bn_model(std::int64_t opset = 15) {
  Model m(opset);
  m.input("x", {1, 2, 3, 3}).output("y");
  m.init("s", {2}, {1, 2}).init("bias", {2}, {3, 4}).init("mean", {2}, {5, 6});
  m.init("var", {2}, {7, 8});
  m.node("BatchNormalization", {"x", "s", "bias", "mean", "var"}, {"y"}, "bn");
  return m;
}

TEST(OnnxImport, BatchNormalizationInference) {
  Model m = bn_model();
  attr_f(*m.g().mutable_node(0), "epsilon", 1e-3f);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [1,2,3,3] 'x'",
                                     "1 batch_norm_eval(axis=1,c=2) [0] -> [1,2,3,3] 'bn'"}));
  EXPECT_EQ(tensor_of(r, 1, "scale").to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(tensor_of(r, 1, "bias").to_vector<float>(), (std::vector<float>{3, 4}));
  EXPECT_EQ(tensor_of(r, 1, "mean").to_vector<float>(), (std::vector<float>{5, 6}));
  EXPECT_EQ(tensor_of(r, 1, "var").to_vector<float>(), (std::vector<float>{7, 8}));
  EXPECT_FLOAT_EQ(static_cast<float>(*r.payloads.find_attribute(1, "epsilon")), 1e-3f);
}

TEST(OnnxImport, BatchNormalizationTrainingIsRejected) {
  Model m = bn_model();
  attr_i(*m.g().mutable_node(0), "training_mode", 1);
  EXPECT_EQ(unsupported_of(m),
            "node 0 'bn' (BatchNormalization): attribute training_mode = 1 is "
            "not supported; supported: 0 (inference)");
  Model outs = bn_model();
  outs.g().mutable_node(0)->add_output("running_mean");
  EXPECT_NE(unsupported_of(outs).find("has 2 outputs (training form)"), std::string::npos);
}

TEST(OnnxImport, BatchNormalizationChannelsPastTheLimitAreRejected) {
  Model m(15);
  m.input("x", {1, std::int64_t{1} << 32, 1, 1}).output("y");
  m.init("s", {2}, {1, 2}).init("bias", {2}, {3, 4}).init("mean", {2}, {5, 6});
  m.init("var", {2}, {7, 8});
  m.node("BatchNormalization", {"x", "s", "bias", "mean", "var"}, {"y"}, "bn");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'bn' (BatchNormalization, opset 15): input "
            "[1,4294967296,1,1] has too many channels: 4294967296, the limit is "
            "4294967295");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
