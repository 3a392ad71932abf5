// Softmax (onnx/operators/softmax.cpp): one axis from opset 13, 2-D coercion before.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

TEST(OnnxImport, SoftmaxAxes) {
  Model m(13);
  m.input("x", {2, 3, 4}).output("y");
  attr_i(m.node("Softmax", {"x"}, {"y"}, "sm"), "axis", -2);
  EXPECT_EQ(lines(ok(m).graph())[1], "1 softmax(axis=1) [0] -> [2,3,4] 'sm'");
  Model d(13);
  d.input("x", {2, 3, 4}).output("y");
  d.node("Softmax", {"x"}, {"y"}, "sm");
  EXPECT_EQ(lines(ok(d).graph())[1], "1 softmax(axis=2) [0] -> [2,3,4] 'sm'");
}

TEST(OnnxImport, SoftmaxBeforeOpset13CoercesTo2d) {
  Model m(11);
  m.input("x", {2, 3, 4}).output("y");
  m.node("Softmax", {"x"}, {"y"}, "sm");  // default axis 1: rows of 3*4
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3,4] 'x'", "1 reshape([2,3,4]->[2,12]) [0] -> [2,12] 'sm'",
                   "2 softmax(axis=1) [1] -> [2,12] 'sm'",
                   "3 reshape([2,12]->[2,3,4]) [2] -> [2,3,4] 'sm'"}));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
