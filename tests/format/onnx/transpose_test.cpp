// Transpose (onnx/operators/transpose.cpp): the given permutation, or the axes reversed.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

TEST(OnnxImport, TransposeByPermOrReversed) {
  Model p;
  p.input("x", {2, 3, 4}).output("y");
  attr_ints(p.node("Transpose", {"x"}, {"y"}, "tr"), "perm", {0, 2, 1});
  EXPECT_EQ(lines(ok(p).graph())[1], "1 permute(perm=0,2,1) [0] -> [2,4,3] 'tr'");
  Model r;
  r.input("x", {2, 3, 4}).output("y");
  r.node("Transpose", {"x"}, {"y"}, "tr");
  EXPECT_EQ(lines(ok(r).graph())[1], "1 permute(perm=2,1,0) [0] -> [4,3,2] 'tr'");
}

TEST(OnnxImport, TransposeOutOfRangePermIsRejected) {
  Model p;
  p.input("x", {2, 3}).output("y");
  attr_ints(p.node("Transpose", {"x"}, {"y"}, "tr"), "perm", {0, 2});
  EXPECT_EQ(unsupported_of(p),
            "node 0 'tr' (Transpose): attribute perm = [0,2] is not supported; "
            "supported: a permutation of the 2 axes");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
