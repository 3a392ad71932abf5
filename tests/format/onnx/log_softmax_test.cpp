// LogSoftmax (onnx/operators/log_softmax.cpp), Neg (onnx/operators/neg.cpp) and Softplus: one
// axis from opset 13, Softmax's 2-D coercion before; Neg as scale(-1); Softplus as itself.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

TEST(OnnxImport, LogSoftmaxAxes) {
  Model m(13);
  m.input("x", {2, 3, 4}).output("y").output("z");
  attr_i(m.node("LogSoftmax", {"x"}, {"y"}, "ls"), "axis", 1);
  m.node("LogSoftmax", {"x"}, {"z"}, "last");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3,4] 'x'", "1 log_softmax(axis=1) [0] -> [2,3,4] 'ls'",
                   "2 log_softmax(axis=2) [0] -> [2,3,4] 'last'"}));
}

TEST(OnnxImport, LogSoftmaxBeforeOpset13CoercesTo2d) {
  Model m(11);
  m.input("x", {2, 3, 4}).output("y").output("z");
  m.node("LogSoftmax", {"x"}, {"y"}, "ls");  // default axis 1: rows of 3*4
  attr_i(m.node("LogSoftmax", {"x"}, {"z"}, "last"), "axis", 2);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3,4] 'x'", "1 reshape([2,3,4]->[2,12]) [0] -> [2,12] 'ls'",
                   "2 log_softmax(axis=1) [1] -> [2,12] 'ls'",
                   "3 reshape([2,12]->[2,3,4]) [2] -> [2,3,4] 'ls'",
                   "4 log_softmax(axis=2) [0] -> [2,3,4] 'last'"}));
}

TEST(OnnxImport, NegIsScaleByMinusOneAndSoftplusIsItself) {
  Model m(13);
  m.input("x", {2, 2}).output("y");
  m.node("Neg", {"x"}, {"n"}, "neg");
  m.node("Softplus", {"n"}, {"y"}, "sp");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,2] 'x'", "1 scale(factor=-1) [0] -> [2,2] 'neg'",
                   "2 softplus [1] -> [2,2] 'sp'"}));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
