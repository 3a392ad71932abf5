// Concat (onnx/operators/concat.cpp): along an axis, one input as the identity.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

TEST(OnnxImport, ConcatAlongANegativeAxis) {
  Model m;
  m.input("a", {2, 3}).input("b", {2, 5}).output("t");
  attr_i(m.node("Concat", {"a", "b"}, {"c"}, "cat"), "axis", -1);
  m.node("Transpose", {"c"}, {"t"}, "tr");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'a'", "1 input -> [2,5] 'b'",
                                         "2 concat(axis=1) [0,1] -> [2,8] 'cat'",
                                         "3 permute(perm=1,0) [2] -> [8,2] 'tr'"}));
}

TEST(OnnxImport, ConcatOfOneInputIsItsInput) {
  Model m;
  m.input("a", {2, 3}).output("y");
  attr_i(m.node("Concat", {"a"}, {"c"}, "cat"), "axis", 0);
  m.node("Relu", {"c"}, {"y"}, "r");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'a'", "1 relu [0] -> [2,3] 'r'"}));
}

TEST(OnnxImport, ConcatRejections) {
  Model no_axis;
  no_axis.input("a", {2, 3}).input("b", {2, 5}).output("c");
  no_axis.node("Concat", {"a", "b"}, {"c"}, "cat");
  EXPECT_EQ(error_of(no_axis), "m.onnx: node 'cat' (Concat, opset 17): attribute axis is missing");
  Model none;
  none.input("a", {2, 3}).output("c");
  none.node("Concat", {}, {"c"}, "cat");
  EXPECT_EQ(error_of(none), "m.onnx: node 'cat' (Concat, opset 17): has no inputs");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
