// Pow (onnx/operators/pow.cpp): a constant scalar exponent as the product or root it stands for;
// any other exponent refused naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ::testing::HasSubstr;

struct PowCase {
  std::string label;
  float exponent;
  Lines expected;  // after the input line
};

class PowByConstant : public ::testing::TestWithParam<PowCase> {};

TEST_P(PowByConstant, IsItsProductOrRoot) {
  Model m;
  m.input("x", {2, 3}).output("y").init("e", {}, {GetParam().exponent});
  m.node("Pow", {"x", "e"}, {"p"}, "pow");
  m.node("Relu", {"p"}, {"y"}, "relu");
  Lines want{"0 input -> [2,3] 'x'"};
  want.insert(want.end(), GetParam().expected.begin(), GetParam().expected.end());
  EXPECT_EQ(lines(ok(m).graph()), want);
}

INSTANTIATE_TEST_SUITE_P(
    OnnxImport, PowByConstant,
    ::testing::Values(
        PowCase{"square", 2.0F, {"1 mul_elem [0,0] -> [2,3] 'pow'", "2 relu [1] -> [2,3] 'relu'"}},
        PowCase{"root", 0.5F, {"1 sqrt [0] -> [2,3] 'pow'", "2 relu [1] -> [2,3] 'relu'"}},
        PowCase{"inverse", -1.0F, {"1 inv [0] -> [2,3] 'pow'", "2 relu [1] -> [2,3] 'relu'"}},
        PowCase{"identity", 1.0F, {"1 relu [0] -> [2,3] 'relu'"}}),
    [](const auto& info) { return info.param.label; });

TEST(OnnxImport, PowIntegerExponentFromAConstantNode) {
  Model m;
  m.input("x", {4}).output("y");
  onnx::NodeProto& c = m.node("Constant", {}, {"two"}, "c");
  attr_i(c, "value_int", 2);
  m.node("Pow", {"x", "two"}, {"y"}, "pow");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [4] 'x'", "1 mul_elem [0,0] -> [4] 'pow'"}));
}

TEST(OnnxImport, PowExponentOfHigherRankBroadcasts) {
  Model m;
  m.input("x", {4}).output("y").init("e", {1, 1}, {2.0F});
  m.node("Pow", {"x", "e"}, {"y"}, "pow");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [4] 'x'", "1 mul_elem [0,0] -> [4] 'pow'",
                                         "2 broadcast_to([4]->[1,4]) [1] -> [1,4] 'pow'"}));
}

// Any other exponent, a cube outside the tanh GELU, one computed at run time, a tensor of them
// and an int64 one (cast to float32 first) are each a `pow` node over the broadcast operands.
TEST(OnnxImport, EveryOtherExponentIsAPowNode) {
  Model other;
  other.input("x", {4}).output("y").init("e", {}, {1.5F});
  other.node("Pow", {"x", "e"}, {"y"}, "pow");
  EXPECT_EQ(lines(ok(other).graph()),
            (Lines{"0 input -> [4] 'x'", "1 const -> [] 'e'",
                   "2 broadcast_to([]->[4]) [1] -> [4] 'pow'", "3 pow [0,2] -> [4] 'pow'"}));
  Model cube;
  cube.input("x", {4}).output("y").init("e", {}, {3.0F});
  cube.node("Pow", {"x", "e"}, {"y"}, "pow");
  EXPECT_EQ(ok(cube).graph().nodes.back().kind, ir::OpKind::pow);
  Model input;
  input.input("x", {2, 3}).input("e", {3}).output("y");
  input.node("Pow", {"x", "e"}, {"y"}, "pow");
  EXPECT_EQ(lines(ok(input).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 input -> [3] 'e'",
                   "2 broadcast_to([3]->[2,3]) [1] -> [2,3] 'pow'", "3 pow [0,2] -> [2,3] 'pow'"}));
  Model integer;
  integer.input("x", {2}).input("e", {2}, onnx::TensorProto_DataType_INT64).output("y");
  integer.node("Pow", {"x", "e"}, {"y"}, "pow");
  EXPECT_EQ(lines(ok(integer).graph()),
            (Lines{"0 input -> [2] 'x'", "1 input -> [2] 'e'", "2 cast [1] -> [2] 'pow'",
                   "3 pow [0,2] -> [2] 'pow'"}));
  // An int64 base is a limit of nnplan's: pow runs on float32.
  Model base;
  base.input("x", {2}, onnx::TensorProto_DataType_INT64).input("e", {2}).output("y");
  base.node("Pow", {"x", "e"}, {"y"}, "pow");
  EXPECT_EQ(unsupported_of(base),
            "node 0 'pow' (Pow): its input (input node 'x') has dtype int64; nnplan runs Pow on "
            "float32 values only");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
