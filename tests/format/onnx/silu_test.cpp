// SiLU (onnx/operators/silu.cpp): Sigmoid(x) read only by Mul(x, .), either order, imports as one
// `silu` node named after the Sigmoid; a Sigmoid whose value anything else reads, or is a graph
// output, or a Mul by another value (a gate), stays a sigmoid node and a mul node.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

// x [2,3] -> Relu 'r' -> Sigmoid 's' -> Mul 'm' (operands in the order given) -> y.
Model relu_silu(bool sigmoid_first) {
  Model m(17);
  m.input("x", {2, 3}).output("y");
  m.node("Relu", {"x"}, {"r"}, "r");
  m.node("Sigmoid", {"r"}, {"s"}, "s");
  m.node("Mul",
         sigmoid_first ? std::vector<std::string>{"s", "r"} : std::vector<std::string>{"r", "s"},
         {"y"}, "m");
  return m;
}

TEST(OnnxSilu, SigmoidThenMulByItsInputIsOneSiluNode) {
  for (const bool sigmoid_first : {false, true}) {
    SCOPED_TRACE(sigmoid_first ? "Mul(s, r)" : "Mul(r, s)");
    EXPECT_EQ(
        lines(ok(relu_silu(sigmoid_first)).graph()),
        (Lines{"0 input -> [2,3] 'x'", "1 relu [0] -> [2,3] 'r'", "2 silu [1] -> [2,3] 's'"}));
  }
}

TEST(OnnxSilu, OfAGraphInput) {
  Model m(17);
  m.input("x", {4}).output("y");
  m.node("Sigmoid", {"x"}, {"s"}, "s");
  m.node("Mul", {"x", "s"}, {"y"}, "m");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [4] 'x'", "1 silu [0] -> [4] 's'"}));
}

TEST(OnnxSilu, ASigmoidReadElsewhereStaysTwoNodes) {
  // The sigmoid's value is a graph output too.
  Model out(17);
  out.input("x", {4}).output("y").output("s");
  out.node("Sigmoid", {"x"}, {"s"}, "s");
  out.node("Mul", {"x", "s"}, {"y"}, "m");
  EXPECT_EQ(lines(ok(out).graph()), (Lines{"0 input -> [4] 'x'", "1 sigmoid [0] -> [4] 's'",
                                           "2 mul_elem [0,1] -> [4] 'm'"}));
  // A second node reads it.
  Model twice(17);
  twice.input("x", {4}).output("y").output("z");
  twice.node("Sigmoid", {"x"}, {"s"}, "s");
  twice.node("Mul", {"x", "s"}, {"y"}, "m");
  twice.node("Relu", {"s"}, {"z"}, "r");
  EXPECT_EQ(lines(ok(twice).graph()),
            (Lines{"0 input -> [4] 'x'", "1 sigmoid [0] -> [4] 's'", "2 mul_elem [0,1] -> [4] 'm'",
                   "3 relu [1] -> [4] 'r'"}));
  // A gate: the Mul's other operand is another value.
  Model gate(17);
  gate.input("x", {4}).input("g", {4}).output("y");
  gate.node("Sigmoid", {"g"}, {"s"}, "s");
  gate.node("Mul", {"x", "s"}, {"y"}, "m");
  EXPECT_EQ(lines(ok(gate).graph()),
            (Lines{"0 input -> [4] 'x'", "1 input -> [4] 'g'", "2 sigmoid [1] -> [4] 's'",
                   "3 mul_elem [0,2] -> [4] 'm'"}));
  // Mul(s, s): the sigmoid squared.
  Model square(17);
  square.input("x", {4}).output("y");
  square.node("Sigmoid", {"x"}, {"s"}, "s");
  square.node("Mul", {"s", "s"}, {"y"}, "m");
  EXPECT_EQ(lines(ok(square).graph()), (Lines{"0 input -> [4] 'x'", "1 sigmoid [0] -> [4] 's'",
                                              "2 mul_elem [1,1] -> [4] 'm'"}));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
