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
        PowCase{"square", 2.0F,
                {"1 mul_elem [0,0] -> [2,3] 'pow'", "2 relu [1] -> [2,3] 'relu'"}},
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
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [4] 'x'", "1 mul_elem [0,0] -> [4] 'pow'",
                   "2 broadcast_to([4]->[1,4]) [1] -> [1,4] 'pow'"}));
}

TEST(OnnxImport, PowRefusals) {
  Model other;
  other.input("x", {4}).output("y").init("e", {}, {1.5F});
  other.node("Pow", {"x", "e"}, {"y"}, "pow");
  EXPECT_THAT(unsupported_of(other),
              HasSubstr("'pow' (Pow): exponent 1.5 ('e') is not supported; supported: "
                        "1, 2, 0.5, -1 (3 only inside the tanh GELU pattern: x*x*x is not a "
                        "correctly rounded cube)"));
  Model cube;
  cube.input("x", {4}).output("y").init("e", {}, {3.0F});
  cube.node("Pow", {"x", "e"}, {"y"}, "pow");
  EXPECT_THAT(unsupported_of(cube), HasSubstr("'pow' (Pow): exponent 3 ('e') is not supported"));
  Model input;
  input.input("x", {4}).input("e", {}).output("y");
  input.node("Pow", {"x", "e"}, {"y"}, "pow");
  EXPECT_THAT(unsupported_of(input),
              HasSubstr("exponent Y 'e' is a graph input, not a constant"));
  Model vector;
  vector.input("x", {2}).output("y").init("e", {2}, {2.0F, 2.0F});
  vector.node("Pow", {"x", "e"}, {"y"}, "pow");
  EXPECT_THAT(unsupported_of(vector),
              HasSubstr("exponent Y 'e' has 2 elements; supported: a scalar"));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
