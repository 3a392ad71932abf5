// ReduceSum and ReduceMean (onnx/operators/reduce.cpp).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

TEST(OnnxImport, ReduceSumAxesInputKeepdims) {
  Model m(13);
  m.input("x", {2, 3, 4}).output("y").init_i64("ax", {-2});
  m.node("ReduceSum", {"x", "ax"}, {"y"}, "rs");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3,4] 'x'", "1 reduce_sum(axis=1) [0] -> [2,4] 'rs'",
                   "2 reshape([2,4]->[2,1,4]) [1] -> [2,1,4] 'rs'"}));
  Model k(13);
  k.input("x", {2, 3, 4}).output("y").init_i64("ax", {1});
  attr_i(k.node("ReduceSum", {"x", "ax"}, {"y"}, "rs"), "keepdims", 0);
  EXPECT_EQ(lines(ok(k).graph()),
            (Lines{"0 input -> [2,3,4] 'x'", "1 reduce_sum(axis=1) [0] -> [2,4] 'rs'"}));
}

TEST(OnnxImport, ReduceMeanAxesAttribute) {
  Model m(13);
  m.input("x", {2, 3, 4, 5}).output("y");
  auto& n = m.node("ReduceMean", {"x"}, {"y"}, "rm");
  attr_ints(n, "axes", {2, 3});
  attr_i(n, "keepdims", 0);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3,4,5] 'x'", "1 reduce_mean(axis=3) [0] -> [2,3,4] 'rm'",
                   "2 reduce_mean(axis=2) [1] -> [2,3] 'rm'"}));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
