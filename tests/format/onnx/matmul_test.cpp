// MatMul (onnx/operators/matmul.cpp): 2-D, batched, promoted vectors, and linear by a constant.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

TEST(OnnxImport, MatMul2d) {
  Model m;
  m.input("a", {2, 3}).input("b", {3, 4}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"}, "mm");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'a'", "1 input -> [3,4] 'b'",
                                         "2 matmul [0,1] -> [2,4] 'mm'"}));
}

TEST(OnnxImport, MatMulBatched3d) {
  Model m;
  m.input("a", {5, 2, 3}).input("b", {5, 3, 4}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"}, "mm");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [5,2,3] 'a'", "1 input -> [5,3,4] 'b'",
                                         "2 matmul [0,1] -> [5,2,4] 'mm'"}));
}

TEST(OnnxImport, MatMulRank3ByConstantRank2IsLinear) {
  Model m;
  m.input("x", {2, 5, 3}).output("y").init("w", {3, 2}, {1, 2, 3, 4, 5, 6});
  m.node("MatMul", {"x", "w"}, {"y"}, "proj");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [2,5,3] 'x'", "1 linear [0] -> [2,5,2] 'proj'"}));
  const ir::WeightTensor& w = tensor_of(r, 1, "weight");
  EXPECT_EQ(dims(w.shape()), "[2,3]");
  EXPECT_EQ(w.to_vector<float>(),
            (std::vector<float>{1, 3, 5, 2, 4, 6}));  // B transposed to [out,in]
  EXPECT_EQ(r.payloads.find_tensor(1, "bias"), nullptr);
  // Imported from bytes in memory, not a mapped file: the importer copies B anyway, so it keeps
  // the transposed copy, row-major, rather than a strided view of its own copy.
  EXPECT_TRUE(w.readable_in_place());
}

TEST(OnnxImport, MatMulByAFloatDataConstantKeepsOneRowMajorCopy) {
  Model m;
  m.input("x", {4, 3}).output("y").init("w", {3, 2}, {1, 2, 3, 4, 5, 6}, /*raw=*/false);
  m.node("MatMul", {"x", "w"}, {"y"}, "proj");
  const ImportedModel r = ok(m);
  const ir::WeightTensor& w = tensor_of(r, 1, "weight");
  EXPECT_EQ(dims(w.shape()), "[2,3]");
  EXPECT_TRUE(w.readable_in_place());
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

TEST(OnnxImport, MatMulRank3ByVariableRank2Broadcasts) {
  Model m;
  m.input("x", {2, 5, 3}).input("b", {3, 4}).output("y");
  m.node("MatMul", {"x", "b"}, {"y"}, "mm");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,5,3] 'x'", "1 input -> [3,4] 'b'",
                                         "2 broadcast_to([3,4]->[2,3,4]) [1] -> [2,3,4] 'mm'",
                                         "3 matmul [0,2] -> [2,5,4] 'mm'"}));
}

TEST(OnnxImport, MatMulRank4FlattensBatch) {
  Model m;
  m.input("q", {2, 3, 4, 5}).input("k", {2, 3, 5, 4}).output("y");
  m.node("MatMul", {"q", "k"}, {"y"}, "attn");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3,4,5] 'q'", "1 input -> [2,3,5,4] 'k'",
                                         "2 reshape([2,3,4,5]->[6,4,5]) [0] -> [6,4,5] 'attn'",
                                         "3 reshape([2,3,5,4]->[6,5,4]) [1] -> [6,5,4] 'attn'",
                                         "4 matmul [2,3] -> [6,4,4] 'attn'",
                                         "5 reshape([6,4,4]->[2,3,4,4]) [4] -> [2,3,4,4] 'attn'"}));
}

TEST(OnnxImport, MatMulInnerMismatchIsRejected) {
  Model m;
  m.input("a", {2, 3}).input("b", {4, 5}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"}, "mm");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'mm' (MatMul, opset 17): inner dimensions differ: [2,3] x [4,5]");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
