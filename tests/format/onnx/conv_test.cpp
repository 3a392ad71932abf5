// Conv (onnx/operators/conv.cpp): padding, strides, dilations, groups, 1-D to 3-D, auto_pad,
// bias, and what it rejects.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;
using ::testing::HasSubstr;

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
  EXPECT_EQ(dims(tensor_of(r, 1, "weight").shape()), "[3,2,3,3]");
  EXPECT_EQ(tensor_of(r, 1, "weight").to_vector<float>(), iota(54));
  EXPECT_EQ(tensor_of(r, 1, "bias").to_vector<float>(), (std::vector<float>{0.5f, 1.5f, 2.5f}));
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
INSTANTIATE_TEST_SUITE_P(Conv, ConvRejected,
                         ::testing::Values(ConvReject{
                             "UnknownAttribute", [](auto& n) { attr_i(n, "frobnicate", 1); },
                             "attribute 'frobnicate' is not supported for Conv"}),
                         [](const auto& info) { return info.param.name; });

// Weights as values (SPEC §6): a weight or bias that is a graph input is the conv's parent 1 or 2;
// a constant beside it becomes a const node; a weight of another dtype is refused.
TEST(OnnxImport, ConvWeightThatIsAGraphInputIsAParent) {
  Model m(11);
  m.input("x", {1, 2, 5, 5}).input("w", {3, 2, 3, 3}).output("y");
  m.node("Conv", {"x", "w"}, {"y"}, "c");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()).back(),
            "2 conv(2->3,k=3x3,s=1x1,p=0x0,pa=0x0,d=1x1,g=1,axis=1) [0,1] -> [1,3,3,3] 'c'");
  EXPECT_TRUE(r.payloads.tensors.empty());

  Model bias(11);
  bias.input("x", {1, 2, 5, 5}).input("b", {3}).output("y").init("w", {3, 2, 3, 3}, iota(54));
  bias.node("Conv", {"x", "w", "b"}, {"y"}, "c");
  const ImportedModel rb = ok(bias);
  const Lines got = lines(rb.graph());
  EXPECT_EQ(rb.graph().nodes.back().parents.size(), 3U) << got.back();
  EXPECT_EQ(rb.graph().nodes[rb.graph().nodes.back().parents[1]].kind, ir::OpKind::const_);

  Model t(11);
  t.input("x", {1, 3, 4, 4}).input("w", {3, 2, 2, 2}).output("y");
  t.node("ConvTranspose", {"x", "w"}, {"y"}, "t");
  EXPECT_EQ(ok(t).graph().nodes.back().kind, ir::OpKind::conv_transpose);

  Model ints(11);
  ints.input("x", {1, 2, 5, 5})
      .input("w", {3, 2, 3, 3}, onnx::TensorProto_DataType_INT64)
      .output("y");
  ints.node("Conv", {"x", "w"}, {"y"}, "c");
  EXPECT_EQ(unsupported_of(ints),
            "node 0 'c' (Conv): weight 'w' has dtype int64; supported: float32");
  Model shape(11);
  shape.input("x", {1, 2, 5, 5}).input("w", {3, 4, 3, 3}).output("y");
  shape.node("Conv", {"x", "w"}, {"y"}, "c");
  EXPECT_THAT(error_of(shape), HasSubstr("weight 'w' [3,4,3,3] with group 1 expects 4 input "
                                         "channels, input [1,2,5,5] has 2"));
}

TEST(OnnxImport, ConvGroupedDilatedAsymmetricAndUnequalStrides) {
  // group 2: weight [M, C/group, kH, kW] = [4,1,3,3] over 2 input channels.
  Model grouped(11);
  grouped.input("x", {1, 2, 5, 5}).output("y").init("w", {4, 1, 3, 3}, iota(36));
  attr_i(grouped.node("Conv", {"x", "w"}, {"y"}, "conv1"), "group", 2);
  const ImportedModel r = ok(grouped);
  EXPECT_EQ(lines(r.graph())[1],
            "1 conv(2->4,k=3x3,s=1x1,p=0x0,pa=0x0,d=1x1,g=2,axis=1) [0] -> [1,4,3,3] 'conv1'");
  EXPECT_EQ(dims(tensor_of(r, 1, "weight").shape()), "[4,1,3,3]");

  Model dilated = conv_model();
  attr_ints(*dilated.g().mutable_node(0), "dilations", {2, 2});
  EXPECT_EQ(lines(ok(dilated).graph())[1],
            "1 conv(2->3,k=3x3,s=1x1,p=0x0,pa=0x0,d=2x2,g=1,axis=1) [0] -> [1,3,1,1] 'conv1'");

  Model strided = conv_model();
  attr_ints(*strided.g().mutable_node(0), "strides", {1, 2});
  EXPECT_EQ(lines(ok(strided).graph())[1],
            "1 conv(2->3,k=3x3,s=1x2,p=0x0,pa=0x0,d=1x1,g=1,axis=1) [0] -> [1,3,3,2] 'conv1'");

  // pads are [H begin, W begin, H end, W end].
  Model asymmetric = conv_model();
  attr_ints(*asymmetric.g().mutable_node(0), "pads", {0, 1, 2, 1});
  EXPECT_EQ(lines(ok(asymmetric).graph())[1],
            "1 conv(2->3,k=3x3,s=1x1,p=0x1,pa=2x1,d=1x1,g=1,axis=1) [0] -> [1,3,5,5] 'conv1'");
}

TEST(OnnxImport, GroupThatDoesNotMatchTheWeightIsInvalid) {
  // Weight [3,2,3,3] with group 2 expects 4 input channels.
  Model m = conv_model();
  attr_i(*m.g().mutable_node(0), "group", 2);
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'conv1' (Conv, opset 11): weight 'w' [3,2,3,3] with group 2 expects 4 "
            "input channels, input [1,2,5,5] has 2");
}

TEST(OnnxImport, Conv1dAnd3d) {
  Model m(11);
  m.input("x", {1, 2, 5}).output("y").init("w", {3, 2, 3}, iota(18));
  m.node("Conv", {"x", "w"}, {"y"}, "c");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [1,2,5] 'x'",
                   "1 conv(2->3,k=3,s=1,p=0,pa=0,d=1,g=1,axis=1) [0] -> [1,3,3] 'c'"}));
  Model v(11);
  v.input("x", {1, 2, 4, 5, 6}).output("y").init("w", {3, 2, 2, 2, 2}, iota(48));
  attr_ints(v.node("Conv", {"x", "w"}, {"y"}, "c"), "strides", {1, 2, 3});
  EXPECT_EQ(lines(ok(v).graph())[1],
            "1 conv(2->3,k=2x2x2,s=1x2x3,p=0x0x0,pa=0x0x0,d=1x1x1,g=1,axis=1) [0] -> "
            "[1,3,3,2,2] 'c'");
}

TEST(OnnxImport, ConvWithoutASpatialAxisIsRejected) {
  Model m(11);
  m.input("x", {1, 2}).output("y").init("w", {3, 2}, iota(6));
  m.node("Conv", {"x", "w"}, {"y"}, "c");
  EXPECT_EQ(unsupported_of(m),
            "node 0 'c' (Conv): input [1,2] has no spatial axis; supported: (N,C,D1,...) with at "
            "least one spatial axis");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
