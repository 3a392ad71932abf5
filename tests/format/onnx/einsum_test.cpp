// Einsum (onnx/operators/einsum.cpp): the nodes a contraction imports as (permutes only where an
// operand's axes are out of order, one batched matmul, reshapes around it), and the refusals, each
// naming the equation: a diagonal, differing extents, a term of the wrong rank, a character that
// is no label, an ellipsis the output drops, a non-float32 operand. Values: OnnxEinsumRun.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

Model einsum(const std::string& equation, const std::vector<std::vector<std::int64_t>>& shapes) {
  Model m(12);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    m.input(names.back(), shapes[i]);
  }
  m.output("y");
  attr_s(m.node("Einsum", names, {"y"}, "e"), "equation", equation);
  return m;
}

// MaxViT's attention scores: batch axes B G H, rows I, columns J, D contracted; only the second
// operand needs a permute (D before J).
TEST(OnnxEinsum, AttentionScoresAreOneBatchedMatmul) {
  const Model m = einsum("B G H I D, B G H J D -> B G H I J", {{1, 2, 3, 4, 5}, {1, 2, 3, 6, 5}});
  EXPECT_EQ(
      lines(ok(m).graph()),
      (Lines{"0 input -> [1,2,3,4,5] 'x0'", "1 input -> [1,2,3,6,5] 'x1'",
             "2 permute(perm=0,1,2,4,3) [1] -> [1,2,3,5,6] 'e'",
             "3 reshape([1,2,3,4,5]->[6,4,5]) [0] -> [6,4,5] 'e'",
             "4 reshape([1,2,3,5,6]->[6,5,6]) [2] -> [6,5,6] 'e'", "5 matmul [3,4] -> [6,4,6] 'e'",
             "6 reshape([6,4,6]->[1,2,3,4,6]) [5] -> [1,2,3,4,6] 'e'"}));
}

// A label in one operand only that the output does not name is summed first; the output order
// is a permute at the end.
TEST(OnnxEinsum, SumsAndTransposes) {
  EXPECT_EQ(lines(ok(einsum("ijk->ki", {{2, 3, 4}})).graph()),
            (Lines{"0 input -> [2,3,4] 'x0'", "1 reduce_sum(axis=1) [0] -> [2,4] 'e'",
                   "2 permute(perm=1,0) [1] -> [4,2] 'e'"}));
}

TEST(OnnxEinsum, RefusalsNameTheEquation) {
  EXPECT_EQ(unsupported_of(einsum("ii->i", {{3, 3}})),
            "node 0 'e' (Einsum): equation 'ii->i' names label 'i' twice in input 0 (a "
            "diagonal); nnplan's Einsum takes each label once per operand");
  EXPECT_EQ(error_of(einsum("ij,jk->ik", {{2, 3}, {4, 5}})),
            "m.onnx: node 'e' (Einsum, opset 12): equation 'ij,jk->ik': label 'j' has extent 3 in "
            "one input and 4 in input 1 (only equal extents contract)");
  EXPECT_EQ(error_of(einsum("ijk->i", {{2, 3}})),
            "m.onnx: node 'e' (Einsum, opset 12): equation 'ijk->i' names 3 axes of input 'x0', "
            "which has rank 2");
  EXPECT_EQ(error_of(einsum("i1->i", {{2, 3}})),
            "m.onnx: node 'e' (Einsum, opset 12): equation 'i1->i': '1' is not a letter, ',', "
            "'->' or '...'");
  EXPECT_EQ(error_of(einsum("...ij->ij", {{4, 2, 3}})),
            "m.onnx: node 'e' (Einsum, opset 12): equation '...ij->ij': the inputs have '...' and "
            "the output does not");
  EXPECT_EQ(error_of(einsum("ij,jk->ik", {{2, 3}})),
            "m.onnx: node 'e' (Einsum, opset 12): equation 'ij,jk->ik' names 2 operands; the node "
            "has 1 inputs");
  EXPECT_EQ(error_of(einsum("ij->iq", {{2, 3}})),
            "m.onnx: node 'e' (Einsum, opset 12): equation 'ij->iq': output label 'q' is repeated "
            "or names no input axis");
  Model ints(12);
  ints.input("x0", {2, 3}, onnx::TensorProto_DataType_INT64).output("y");
  attr_s(ints.node("Einsum", {"x0"}, {"y"}, "e"), "equation", "ij->ji");
  EXPECT_EQ(unsupported_of(ints),
            "node 0 'e' (Einsum): input 'x0' has dtype int64; nnplan runs Einsum on float32 "
            "values only");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
