// Reshape, Flatten, Squeeze and Unsqueeze (onnx/operators/reshape.cpp).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

TEST(OnnxImport, ReshapeResolvesZeroAndMinusOne) {
  Model m(14);
  m.input("x", {2, 3, 4}).output("y").init_i64("s", {0, -1});
  m.node("Reshape", {"x", "s"}, {"y"}, "r");
  EXPECT_EQ(lines(ok(m).graph())[1], "1 reshape([2,3,4]->[2,12]) [0] -> [2,12] 'r'");
  Model z(14);
  z.input("x", {2, 3, 4}).output("y").init_i64("s", {0, 0, -1});
  z.node("Reshape", {"x", "s"}, {"y"}, "r");
  EXPECT_EQ(ok(z).graph().nodes.size(), 1u);  // same shape: no node; output is the input
}

TEST(OnnxImport, ReshapeRejections) {
  Model m(14);
  m.input("x", {2, 3}).output("y").init_i64("s", {6});
  attr_i(m.node("Reshape", {"x", "s"}, {"y"}, "r"), "allowzero", 1);
  EXPECT_EQ(unsupported_of(m),
            "node 0 'r' (Reshape): attribute allowzero = 1 is not supported; "
            "supported: 0");
  Model v(14);
  v.input("x", {2, 3}).input("s", {1}, onnx::TensorProto_DataType_INT64).output("y");
  v.node("Reshape", {"x", "s"}, {"y"}, "r");
  // The op's need for a constant is the reason, not the input's data type.
  EXPECT_EQ(unsupported_of(v),
            "node 0 'r' (Reshape): shape 's' is a graph input, not a constant (an "
            "initializer or a Constant output); it must be one");
  Model bad(14);
  bad.input("x", {2, 3}).output("y").init_i64("s", {4, -1});
  bad.node("Reshape", {"x", "s"}, {"y"}, "r");
  EXPECT_EQ(error_of(bad), "m.onnx: node 'r' (Reshape, opset 14): cannot reshape [2,3] to [4,-1]");
}

class FlattenAxis : public ::testing::TestWithParam<std::pair<std::int64_t, std::string>> {};

TEST_P(FlattenAxis, ReshapesTo2d) {
  Model m(13);
  m.input("x", {2, 3, 4}).output("y");
  attr_i(m.node("Flatten", {"x"}, {"y"}, "f"), "axis", GetParam().first);
  EXPECT_EQ(lines(ok(m).graph())[1], GetParam().second);
}
INSTANTIATE_TEST_SUITE_P(
    Flatten, FlattenAxis,
    ::testing::Values(std::pair{std::int64_t{0}, "1 reshape([2,3,4]->[1,24]) [0] -> [1,24] 'f'"},
                      std::pair{std::int64_t{1}, "1 reshape([2,3,4]->[2,12]) [0] -> [2,12] 'f'"},
                      std::pair{std::int64_t{-1}, "1 reshape([2,3,4]->[6,4]) [0] -> [6,4] 'f'"},
                      std::pair{std::int64_t{3}, "1 reshape([2,3,4]->[24,1]) [0] -> [24,1] 'f'"}));

TEST(OnnxImport, SqueezeUnsqueeze) {
  Model m(13);
  m.input("x", {2, 1, 3}).output("y").init_i64("a", {1}).init_i64("b", {0});
  m.node("Squeeze", {"x", "a"}, {"s"}, "sq");
  m.node("Unsqueeze", {"s", "b"}, {"y"}, "us");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,1,3] 'x'", "1 reshape([2,1,3]->[2,3]) [0] -> [2,3] 'sq'",
                   "2 reshape([2,3]->[1,2,3]) [1] -> [1,2,3] 'us'"}));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
