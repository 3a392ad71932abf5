// Expand of a float tensor (onnx/operators/expand.cpp): broadcast_to the two-way broadcast of the
// input's shape and the requested one.
#include <gtest/gtest.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

Model expand(std::vector<std::int64_t> in, std::vector<std::int64_t> shape) {
  Model m;
  m.input("x", in).output("y");
  m.init_i64("shape", shape);
  m.node("Expand", {"x", "shape"}, {"y"}, "e");
  return m;
}

TEST(OnnxExpand, BroadcastsBothWays) {
  EXPECT_EQ(
      lines(ok(expand({1, 1, 4}, {2, 3, 1})).graph()),
      (Lines{"0 input -> [1,1,4] 'x'", "1 broadcast_to([1,1,4]->[2,3,4]) [0] -> [2,3,4] 'e'"}));
  EXPECT_EQ(lines(ok(expand({3, 1}, {2, 1, 5})).graph())[1],
            "1 broadcast_to([3,1]->[2,3,5]) [0] -> [2,3,5] 'e'");
  // nothing to stretch: no node
  EXPECT_EQ(lines(ok(expand({2, 3}, {1})).graph()), (Lines{"0 input -> [2,3] 'x'"}));
}

TEST(OnnxExpand, Rejects) {
  EXPECT_EQ(error_of(expand({2, 3}, {4, 1})),
            "m.onnx: node 'e' (Expand, opset 17): shapes [2,3] and [4,1] do not broadcast");
  EXPECT_EQ(error_of(expand({2, 3}, {-1, 3})),
            "m.onnx: node 'e' (Expand, opset 17): shape [-1,3] has a negative entry");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
