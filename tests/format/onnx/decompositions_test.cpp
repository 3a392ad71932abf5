// Operators imported as exact decompositions over comparisons, where and data movement
// (operators/threshold.cpp, classify.cpp, hardmax.cpp, tile.cpp): the graph each form imports
// as, and each refusal with its message. Their values are checked end to end in
// tests/runtime/onnx_operators_run_test.cpp and by ONNX's own tests (the conformance tables).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace decompositions_test {
namespace {

using ::testing::HasSubstr;

Model unary(const std::string& op, int opset = 17) {
  Model m(opset);
  m.input("x", {2, 3}).output("y");
  m.node(op, {"x"}, {"y"}, "n");
  return m;
}

TEST(OnnxDecompositions, ThresholdedReluAndShrinkAreWheres) {
  EXPECT_EQ(lines(ok(unary("ThresholdedRelu")).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 const -> [] 'n'", "2 greater [0,1] -> [2,3] 'n'",
                   "3 const -> [] 'n'", "4 where [2,0,3] -> [2,3] 'n'"}));
  const ImportedModel s = ok(unary("Shrink"));
  EXPECT_EQ(s.graph().nodes.back().kind, ir::OpKind::where);
  Model bad = unary("ThresholdedRelu");
  attr_f(bad.g().mutable_node(0)[0], "alpha", std::numeric_limits<float>::infinity());
  EXPECT_EQ(unsupported_of(bad),
            "node 0 'n' (ThresholdedRelu): alpha is inf; supported: a finite number");
}

TEST(OnnxDecompositions, IsNanAndIsInfAreComparisons) {
  EXPECT_EQ(
      lines(ok(unary("IsNaN")).graph()),
      (Lines{"0 input -> [2,3] 'x'", "1 equal [0,0] -> [2,3] 'n'", "2 not [1] -> [2,3] 'n'"}));
  EXPECT_EQ(ok(unary("IsInf")).graph().nodes.back().kind, ir::OpKind::or_);
  Model positive = unary("IsInf");
  attr_i(positive.g().mutable_node(0)[0], "detect_negative", 0);
  EXPECT_EQ(lines(ok(positive).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 const -> [] 'n'", "2 equal [0,1] -> [2,3] 'n'"}));
  Model neither = unary("IsInf");
  attr_i(neither.g().mutable_node(0)[0], "detect_negative", 0);
  attr_i(neither.g().mutable_node(0)[0], "detect_positive", 0);
  EXPECT_EQ(lines(ok(neither).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 less [0,0] -> [2,3] 'n'"}));
}

TEST(OnnxDecompositions, HardmaxIsAnArgmaxComparedWithPositions) {
  EXPECT_EQ(lines(ok(unary("Hardmax")).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 argmax(axis=1) [0] -> [2] 'n'",
                   "2 const -> [1,3] 'n'", "3 reshape([2]->[2,1]) [1] -> [2,1] 'n'",
                   "4 equal [3,2] -> [2,3] 'n'", "5 cast [4] -> [2,3] 'n'"}));
  // Before opset 13: the 2-D coercion at axis (default 1), reshaped back.
  Model old(11);
  old.input("x", {2, 3, 4}).output("y");
  old.node("Hardmax", {"x"}, {"y"}, "n");
  const ImportedModel r = ok(old);
  EXPECT_EQ(lines(r.graph()).front(), "0 input -> [2,3,4] 'x'");
  EXPECT_EQ(lines(r.graph())[1], "1 reshape([2,3,4]->[2,12]) [0] -> [2,12] 'n'");
  EXPECT_EQ(lines(r.graph()).back(), "7 reshape([2,12]->[2,3,4]) [6] -> [2,3,4] 'n'");
}

TEST(OnnxDecompositions, TileIsAReshapeBroadcastReshape) {
  Model m(13);
  m.input("x", {2, 3}).output("y").init_i64("r", {2, 1});
  m.node("Tile", {"x", "r"}, {"y"}, "t");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 reshape([2,3]->[1,2,1,3]) [0] -> [1,2,1,3] 't'",
                   "2 broadcast_to([1,2,1,3]->[2,2,1,3]) [1] -> [2,2,1,3] 't'",
                   "3 reshape([2,2,1,3]->[4,3]) [2] -> [4,3] 't'"}));
  Model count(13);
  count.input("x", {2, 3}).output("y").init_i64("r", {2});
  count.node("Tile", {"x", "r"}, {"y"}, "t");
  EXPECT_THAT(error_of(count),
              HasSubstr("repeats 'r' has 1 entries; input [2,3] needs one per axis"));
  Model negative(13);
  negative.input("x", {2, 3}).output("y").init_i64("r", {1, -1});
  negative.node("Tile", {"x", "r"}, {"y"}, "t");
  EXPECT_THAT(error_of(negative), HasSubstr("repeats[1] is -1; repeats are >= 0"));
  Model huge(13);
  huge.input("x", {2, 3}).output("y").init_i64("r", {1, std::int64_t{1} << 47});
  huge.node("Tile", {"x", "r"}, {"y"}, "t");
  EXPECT_THAT(error_of(huge), HasSubstr("exceeds the dimension limit"));
  Model old(5);
  old.input("x", {2, 3}).output("y").init_i64("r", {1, 1});
  old.node("Tile", {"x", "r"}, {"y"}, "t");
  EXPECT_THAT(unsupported_of(old), HasSubstr("Tile before opset 6"));
}

// LRN: squares with the channels last, zero-padded (1 before, 2 after for size 4), averaged over
// `size`, moved back, scaled by alpha, plus bias, to the power beta, and divided into x.
TEST(OnnxDecompositions, LrnIsAnAveragePoolOverTheChannels) {
  Model m(13);
  m.input("x", {1, 5, 2, 2}).output("y");
  attr_i(m.node("LRN", {"x"}, {"y"}, "lrn"), "size", 4);
  const Lines got = lines(ok(m).graph());
  EXPECT_EQ(got[2], "2 permute(perm=0,2,3,1) [1] -> [1,2,2,5] 'lrn'");
  EXPECT_EQ(got[5], "5 concat(axis=3) [3,2,4] -> [1,2,2,8] 'lrn'");
  EXPECT_EQ(got[6], "6 avg_pool(k=4,s=1,p=0) [5] -> [1,2,2,5] 'lrn'");
  EXPECT_EQ(got[7], "7 permute(perm=0,3,1,2) [6] -> [1,5,2,2] 'lrn'");
  EXPECT_EQ(got.back(), "16 mul_elem [0,15] -> [1,5,2,2] 'lrn'");
  Model bad(13);
  bad.input("x", {1, 5, 2, 2}).output("y");
  bad.node("LRN", {"x"}, {"y"}, "lrn");
  EXPECT_THAT(error_of(bad), HasSubstr("size is 0; it is 1 to 65535"));
}

// OneHot: the indices with the new axis, equal to the positions or to the positions less depth
// (negative indices), or-ed, then a where between the values.
TEST(OnnxDecompositions, OneHotIsAComparisonWithThePositions) {
  Model m(11);
  m.input("i", {2, 3}, onnx::TensorProto_DataType_INT64).output("y").init_i64("depth", {4});
  m.init("values", {2}, {0.0F, 5.0F});
  attr_i(m.node("OneHot", {"i", "depth", "values"}, {"y"}, "oh"), "axis", 1);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()).back(), "9 where [8,2,1] -> [2,4,3] 'oh'");
  EXPECT_EQ(r.graph().nodes.back().dtype, ir::DType::float32);
  Model runtime_depth(11);
  runtime_depth.input("i", {2}, onnx::TensorProto_DataType_INT64)
      .input("depth", {}, onnx::TensorProto_DataType_INT64)
      .output("y");
  runtime_depth.init("values", {2}, {0.0F, 1.0F});
  runtime_depth.node("OneHot", {"i", "depth", "values"}, {"y"}, "oh");
  EXPECT_THAT(unsupported_of(runtime_depth), HasSubstr("depth 'depth' is a graph input"));
}

// Max and Min of int64 values: a comparison and a where per pair (max_elem takes float32).
TEST(OnnxDecompositions, MaxAndMinOfInt64AreWheres) {
  Model m(13);
  m.input("a", {2, 3}, onnx::TensorProto_DataType_INT64)
      .input("b", {3}, onnx::TensorProto_DataType_INT64)
      .output("y");
  m.node("Max", {"a", "b"}, {"y"}, "max");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3] 'a'", "1 input -> [3] 'b'", "2 greater [1,0] -> [2,3] 'max'",
                   "3 where [2,1,0] -> [2,3] 'max'"}));
  Model n(13);
  n.input("a", {2}, onnx::TensorProto_DataType_INT64).output("y");
  n.node("Min", {"a", "a", "a"}, {"y"}, "min");
  EXPECT_EQ(ok(n).graph().nodes.back().kind, ir::OpKind::where);
}

}  // namespace
}  // namespace decompositions_test
}  // namespace nnplan::format::onnx_test
