// Conv (onnx/operators/conv.cpp): padding, strides, auto_pad, bias, and what it rejects.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

Model conv_model(const std::string& name = "conv1") {
  Model m(11);
  m.input("x", {1, 2, 5, 5}).output("y");
  m.init("w", {3, 2, 3, 3}, iota(54)).init("b", {3}, {0.5f, 1.5f, 2.5f});
  m.node("Conv", {"x", "w", "b"}, {"y"}, name);
  return m;
}

TEST(OnnxImport, ConvWithBiasPadsAndStrides) {
  Model m = conv_model();
  auto& n = *m.g().mutable_node(0);
  attr_ints(n, "pads", {1, 1, 1, 1});
  attr_ints(n, "strides", {2, 2});
  attr_ints(n, "kernel_shape", {3, 3});
  attr_ints(n, "dilations", {1, 1});
  attr_i(n, "group", 1);
  const ImportedModel r = ok(m);
  EXPECT_EQ(
      lines(r.graph()),
      (Lines{"0 input -> [1,2,5,5] 'x'",
             "1 conv(2->3,k=3x3,s=2x2,p=1x1,pa=1x1,d=1x1,g=1,axis=1) [0] -> [1,3,3,3] 'conv1'"}));
  EXPECT_EQ(dims(tensor_of(r, 1, "weight").shape), "[3,2,3,3]");
  EXPECT_EQ(tensor_of(r, 1, "weight").data, iota(54));
  EXPECT_EQ(tensor_of(r, 1, "bias").data, (std::vector<float>{0.5f, 1.5f, 2.5f}));
  EXPECT_EQ(r.opset, 11);
}

TEST(OnnxImport, ConvAutoPadSame) {
  Model m = conv_model();
  attr_s(*m.g().mutable_node(0), "auto_pad", "SAME_UPPER");
  EXPECT_EQ(lines(ok(m).graph())[1],
            "1 conv(2->3,k=3x3,s=1x1,p=1x1,pa=1x1,d=1x1,g=1,axis=1) [0] -> [1,3,5,5] 'conv1'");
}

struct ConvReject {
  std::string name;
  std::function<void(onnx::NodeProto&)> edit;
  std::string message;
};

class ConvRejected : public ::testing::TestWithParam<ConvReject> {};

TEST_P(ConvRejected, NamesAttributeAndValue) {
  Model m = conv_model();
  GetParam().edit(*m.g().mutable_node(0));
  EXPECT_EQ(unsupported_of(m), "node 0 'conv1' (Conv): " + GetParam().message);
}
INSTANTIATE_TEST_SUITE_P(
    Conv, ConvRejected,
    ::testing::Values(
        ConvReject{"Group", [](auto& n) { attr_i(n, "group", 2); },
                   "attribute group = 2 is not supported; supported: 1"},
        ConvReject{"Dilations",
                   [](auto& n) {
                     attr_ints(n, "dilations", {2, 2});
                   },
                   "attribute dilations = [2,2] is not supported; supported: [1,1]"},
        ConvReject{"AsymmetricPads",
                   [](auto& n) {
                     attr_ints(n, "pads", {0, 1, 0, 1});
                   },
                   "attribute pads = [0,1,0,1] is not supported; supported: equal non-negative "
                   "pads on every side of H and W"},
        ConvReject{"UnequalStrides",
                   [](auto& n) {
                     attr_ints(n, "strides", {1, 2});
                   },
                   "attribute strides = [1,2] is not supported; supported: equal positive "
                   "strides on H and W"},
        ConvReject{"UnknownAttribute", [](auto& n) { attr_i(n, "frobnicate", 1); },
                   "attribute 'frobnicate' is not supported for Conv"}),
    [](const auto& info) { return info.param.name; });

TEST(OnnxImport, ConvWeightThatIsAGraphInputIsAModelWithoutItsParameters) {
  Model m(11);
  m.input("x", {1, 2, 5, 5}).input("w", {3, 2, 3, 3}).output("y");
  m.node("Conv", {"x", "w"}, {"y"}, "c");
  EXPECT_EQ(unsupported_of(m),
            "node 0 'c' (Conv): weight 'w' is a graph input, not an initializer: the model was "
            "exported without its parameters (torch.onnx.export(..., export_params=False)); "
            "export it with export_params=True");
}

TEST(OnnxImport, Conv1dIsRejected) {
  Model m(11);
  m.input("x", {1, 2, 5}).output("y").init("w", {3, 2, 3}, iota(18));
  m.node("Conv", {"x", "w"}, {"y"}, "c");
  EXPECT_EQ(unsupported_of(m),
            "node 0 'c' (Conv): input [1,2,5] is not (N,C,H,W); only 2-D "
            "convolution is supported");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
