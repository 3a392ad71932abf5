// The element-wise operators (onnx/operators/elementwise.cpp): unary ops map to their kind, binary
// ops broadcast, Div is a product with the inverse, Max, Min and Sum fold pairwise, Mean scales
// the sum, Selu scales an Elu.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <limits>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

struct OpCase {
  std::string op;
  std::string kind;
};

class UnaryOp : public ::testing::TestWithParam<OpCase> {};

TEST_P(UnaryOp, MapsToItsKind) {
  Model m;
  m.input("x", {2, 3}).output("y");
  m.node(GetParam().op, {"x"}, {"y"}, "n1");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 " + GetParam().kind + " [0] -> [2,3] 'n1'"}));
}
INSTANTIATE_TEST_SUITE_P(
    Ops, UnaryOp,
    ::testing::Values(OpCase{"Relu", "relu"}, OpCase{"Sigmoid", "sigmoid"}, OpCase{"Tanh", "tanh"},
                      OpCase{"Exp", "exp"}, OpCase{"Log", "log"}, OpCase{"Sqrt", "sqrt"},
                      OpCase{"Abs", "abs"}, OpCase{"Reciprocal", "inv"}, OpCase{"Sin", "sin"},
                      OpCase{"Cos", "cos"}, OpCase{"Softsign", "softsign"},
                      OpCase{"Floor", "floor"}, OpCase{"Ceil", "ceil"}, OpCase{"Round", "round"},
                      OpCase{"Sign", "sign"}, OpCase{"Tan", "tan"}, OpCase{"Asin", "asin"},
                      OpCase{"Acos", "acos"}, OpCase{"Atan", "atan"}, OpCase{"Sinh", "sinh"},
                      OpCase{"Cosh", "cosh"}, OpCase{"Asinh", "asinh"}, OpCase{"Acosh", "acosh"},
                      OpCase{"Atanh", "atanh"}),
    [](const auto& info) { return info.param.op; });

// LeakyRelu and Elu keep ONNX's alpha (0.01 and 1 when absent) at every opset; opset 1's
// consumed_inputs changes nothing.
TEST(OnnxImport, LeakyReluAndEluKeepTheirAlpha) {
  for (const int opset : {1, 6, 16, 17}) {
    SCOPED_TRACE(opset);
    Model m(opset);
    m.input("x", {2, 3}).output("a").output("b").output("c").output("d");
    m.node("LeakyRelu", {"x"}, {"a"}, "lr");
    attr_f(m.node("LeakyRelu", {"x"}, {"b"}, "lr2"), "alpha", -0.5F);
    m.node("Elu", {"x"}, {"c"}, "elu");
    attr_f(m.node("Elu", {"x"}, {"d"}, "elu2"), "alpha", 0.25F);
    EXPECT_EQ(
        lines(ok(m).graph()),
        (Lines{"0 input -> [2,3] 'x'", "1 leaky_relu(alpha=0.01) [0] -> [2,3] 'lr'",
               "2 leaky_relu(alpha=-0.5) [0] -> [2,3] 'lr2'", "3 elu(alpha=1) [0] -> [2,3] 'elu'",
               "4 elu(alpha=0.25) [0] -> [2,3] 'elu2'"}));
  }
}

TEST(OnnxImport, LeakyReluRefusesANonFiniteAlpha) {
  Model m;
  m.input("x", {2}).output("y");
  attr_f(m.node("LeakyRelu", {"x"}, {"y"}, "lr"), "alpha", std::numeric_limits<float>::infinity());
  EXPECT_EQ(unsupported_of(m), "node 0 'lr' (LeakyRelu): alpha is inf; supported: a finite number");
}

TEST(OnnxImport, EluRefusesAnUnknownAttribute) {
  Model m;
  m.input("x", {2}).output("y");
  attr_f(m.node("Elu", {"x"}, {"y"}, "e"), "beta", 1.0F);
  EXPECT_THAT(unsupported_of(m), ::testing::HasSubstr("node 0 'e' (Elu): attribute 'beta'"));
}

class BinaryOp : public ::testing::TestWithParam<OpCase> {};

TEST_P(BinaryOp, EqualShapes) {
  Model m;
  m.input("a", {2, 3}).input("b", {2, 3}).output("y");
  m.node(GetParam().op, {"a", "b"}, {"y"}, "n1");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'a'", "1 input -> [2,3] 'b'",
                                         "2 " + GetParam().kind + " [0,1] -> [2,3] 'n1'"}));
}

TEST_P(BinaryOp, BroadcastsTheSmallerOperand) {
  Model m;
  m.input("a", {2, 3}).input("b", {3}).output("y");
  m.node(GetParam().op, {"a", "b"}, {"y"}, "n1");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'a'", "1 input -> [3] 'b'",
                                         "2 broadcast_to([3]->[2,3]) [1] -> [2,3] 'n1'",
                                         "3 " + GetParam().kind + " [0,2] -> [2,3] 'n1'"}));
}
INSTANTIATE_TEST_SUITE_P(Ops, BinaryOp,
                         ::testing::Values(OpCase{"Add", "add"}, OpCase{"Sub", "sub"},
                                           OpCase{"Mul", "mul_elem"}, OpCase{"Max", "max_elem"},
                                           OpCase{"Min", "min_elem"}),
                         [](const auto& info) { return info.param.op; });

TEST(OnnxImport, BroadcastsBothOperands) {
  Model m;
  m.input("a", {2, 1}).input("b", {1, 3}).output("y");
  m.node("Add", {"a", "b"}, {"y"}, "add");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,1] 'a'", "1 input -> [1,3] 'b'",
                                         "2 broadcast_to([2,1]->[2,3]) [0] -> [2,3] 'add'",
                                         "3 broadcast_to([1,3]->[2,3]) [1] -> [2,3] 'add'",
                                         "4 add [2,3] -> [2,3] 'add'"}));
}

TEST(OnnxImport, VariadicMaxFoldsPairwise) {
  Model m;
  m.input("a", {2}).input("b", {2}).input("c", {}).output("y");
  m.node("Max", {"a", "b", "c"}, {"y"}, "max");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2] 'a'", "1 input -> [2] 'b'", "2 input -> [] 'c'",
                   "3 max_elem [0,1] -> [2] 'max'", "4 broadcast_to([]->[2]) [2] -> [2] 'max'",
                   "5 max_elem [3,4] -> [2] 'max'"}));
  Model one;
  one.input("a", {2}).output("y");
  one.node("Min", {"a"}, {"y"}, "min");
  EXPECT_EQ(lines(ok(one).graph()), (Lines{"0 input -> [2] 'a'"}));
}

TEST(OnnxImport, ScalarInitializerBecomesConstAndBroadcast) {
  Model m;
  m.input("x", {1, 4}).output("y").init("s", {}, {0.125f});
  m.node("Mul", {"x", "s"}, {"y"}, "scale");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [1,4] 'x'", "1 const -> [] 's'",
                                     "2 broadcast_to([]->[1,4]) [1] -> [1,4] 'scale'",
                                     "3 mul_elem [0,2] -> [1,4] 'scale'"}));
  EXPECT_EQ(tensor_of(r, 1, "value").to_vector<float>(), std::vector<float>{0.125f});
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{3u}));
}

TEST(OnnxImport, DivLowersToInvAndMul) {
  Model m;
  m.input("x", {2, 2}).output("y").init("d", {}, {8.0f}, false);
  m.node("Div", {"x", "d"}, {"y"}, "div");
  const ImportedModel r = ok(m);
  EXPECT_EQ(
      lines(r.graph()),
      (Lines{"0 input -> [2,2] 'x'", "1 const -> [] 'd'", "2 inv [1] -> [] 'div'",
             "3 broadcast_to([]->[2,2]) [2] -> [2,2] 'div'", "4 mul_elem [0,3] -> [2,2] 'div'"}));
  EXPECT_EQ(tensor_of(r, 1, "value").to_vector<float>(), std::vector<float>{8.0f});
}

TEST(OnnxImport, IncompatibleBroadcastIsRejected) {
  Model m;
  m.input("a", {2, 3}).input("b", {4}).output("y");
  m.node("Add", {"a", "b"}, {"y"}, "add");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'add' (Add, opset 17): shapes [2,3] and [4] do not broadcast");
}

// Sum folds its inputs pairwise like Max; Mean scales that sum by 1/n; one input is the identity.
TEST(OnnxImport, SumAndMeanOverSeveralInputs) {
  Model m;
  m.input("a", {2, 3}).input("b", {3}).input("c", {2, 3}).output("s").output("m");
  m.node("Sum", {"a", "b", "c"}, {"s"}, "sum");
  m.node("Mean", {"a", "c"}, {"m"}, "mean");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3] 'a'", "1 input -> [3] 'b'", "2 input -> [2,3] 'c'",
                   "3 broadcast_to([3]->[2,3]) [1] -> [2,3] 'sum'", "4 add [0,3] -> [2,3] 'sum'",
                   "5 add [4,2] -> [2,3] 'sum'", "6 add [0,2] -> [2,3] 'mean'",
                   "7 scale(factor=0.5) [6] -> [2,3] 'mean'"}));
  Model one;
  one.input("a", {2}).output("s");
  one.node("Sum", {"a"}, {"s"}, "sum");
  EXPECT_EQ(lines(ok(one).graph()), (Lines{"0 input -> [2] 'a'"}));
  Model none;
  none.input("a", {2}).output("s");
  none.node("Mean", {}, {"s"}, "mean");
  EXPECT_THAT(error_of(none), ::testing::HasSubstr("'mean' (Mean, opset 17): has no inputs"));
}

// gamma * elu(x, alpha), ONNX's defaults when absent.
TEST(OnnxImport, SeluIsAScaledElu) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Selu", {"x"}, {"y"}, "selu");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2] 'x'", "1 elu(alpha=1.6732632) [0] -> [2] 'selu'",
                   "2 scale(factor=1.050701) [1] -> [2] 'selu'"}));
  Model given;
  given.input("x", {2}).output("y");
  auto& n = given.node("Selu", {"x"}, {"y"}, "selu");
  attr_f(n, "alpha", 2.0F);
  attr_f(n, "gamma", 3.0F);
  EXPECT_EQ(lines(ok(given).graph()),
            (Lines{"0 input -> [2] 'x'", "1 elu(alpha=2) [0] -> [2] 'selu'",
                   "2 scale(factor=3) [1] -> [2] 'selu'"}));
  Model inf;
  inf.input("x", {2}).output("y");
  attr_f(inf.node("Selu", {"x"}, {"y"}, "selu"), "gamma", std::numeric_limits<float>::infinity());
  EXPECT_EQ(unsupported_of(inf), "node 0 'selu' (Selu): gamma is inf; supported: a finite number");
}

// relu(x) + slope * -relu(-x), the slope broadcast to x's shape; a slope that does not broadcast
// is named.
TEST(OnnxImport, PReluIsExactOverRelu) {
  Model m;
  m.input("x", {2, 3}).output("y").init("s", {3}, {0.1F, 0.2F, 0.3F});
  m.node("PRelu", {"x", "s"}, {"y"}, "prelu");
  EXPECT_EQ(
      lines(ok(m).graph()),
      (Lines{"0 input -> [2,3] 'x'", "1 const -> [3] 's'",
             "2 scale(factor=-1) [0] -> [2,3] 'prelu'", "3 relu [2] -> [2,3] 'prelu'",
             "4 scale(factor=-1) [3] -> [2,3] 'prelu'",
             "5 broadcast_to([3]->[2,3]) [1] -> [2,3] 'prelu'", "6 mul_elem [4,5] -> [2,3] 'prelu'",
             "7 relu [0] -> [2,3] 'prelu'", "8 add [7,6] -> [2,3] 'prelu'"}));
  Model wide;
  wide.input("x", {2, 3}).output("y").init("s", {2, 2, 3}, iota(12));
  wide.node("PRelu", {"x", "s"}, {"y"}, "prelu");
  EXPECT_EQ(error_of(wide),
            "m.onnx: node 'prelu' (PRelu, opset 17): slope 's' has shape [2,2,3], which does not "
            "broadcast to X's shape [2,3]");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
