// The Reduce operators (onnx/operators/reduce.cpp): chains of single-axis reductions of their
// own kind (Sum, Mean, Max, Min, Prod), and the others as ONNX defines them over reduce_sum.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <string>
#include <utility>

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

TEST(OnnxImport, ReduceMaxMinProdAreChainsOfTheirKind) {
  for (const auto& [op, kind] :
       {std::pair{"ReduceMax", "reduce_max"}, std::pair{"ReduceMin", "reduce_min"},
        std::pair{"ReduceProd", "reduce_prod"}}) {
    SCOPED_TRACE(op);
    Model m(13);
    m.input("x", {2, 3, 4}).output("y");
    attr_ints(m.node(op, {"x"}, {"y"}, "r"), "axes", {0, -1});
    const std::string k(kind);
    EXPECT_EQ(lines(ok(m).graph()),
              (Lines{"0 input -> [2,3,4] 'x'", "1 " + k + "(axis=2) [0] -> [2,3] 'r'",
                     "2 " + k + "(axis=0) [1] -> [3] 'r'",
                     "3 reshape([3]->[1,3,1]) [2] -> [1,3,1] 'r'"}));
  }
}

// No axes: every axis, highest first; keepdims 0 leaves a scalar.
TEST(OnnxImport, ReduceMaxOverEveryAxis) {
  Model m(13);
  m.input("x", {2, 3}).output("y");
  attr_i(m.node("ReduceMax", {"x"}, {"y"}, "r"), "keepdims", 0);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 reduce_max(axis=1) [0] -> [2] 'r'",
                   "2 reduce_max(axis=0) [1] -> [] 'r'"}));
}

TEST(OnnxImport, ReduceSumSquareL1L2AndLogSumAreSums) {
  const auto graph_of = [](const char* op) {
    Model m(13);
    m.input("x", {2, 3}).output("y");
    auto& n = m.node(op, {"x"}, {"y"}, "r");
    attr_ints(n, "axes", {1});
    attr_i(n, "keepdims", 0);
    return lines(ok(m).graph());
  };
  EXPECT_EQ(graph_of("ReduceSumSquare"),
            (Lines{"0 input -> [2,3] 'x'", "1 mul_elem [0,0] -> [2,3] 'r'",
                   "2 reduce_sum(axis=1) [1] -> [2] 'r'"}));
  EXPECT_EQ(graph_of("ReduceL1"), (Lines{"0 input -> [2,3] 'x'", "1 abs [0] -> [2,3] 'r'",
                                         "2 reduce_sum(axis=1) [1] -> [2] 'r'"}));
  EXPECT_EQ(graph_of("ReduceL2"),
            (Lines{"0 input -> [2,3] 'x'", "1 mul_elem [0,0] -> [2,3] 'r'",
                   "2 reduce_sum(axis=1) [1] -> [2] 'r'", "3 sqrt [2] -> [2] 'r'"}));
  EXPECT_EQ(graph_of("ReduceLogSum"),
            (Lines{"0 input -> [2,3] 'x'", "1 reduce_sum(axis=1) [0] -> [2] 'r'",
                   "2 log [1] -> [2] 'r'"}));
}

// log(sum(exp(x - m))) + m, m the clamped maximum broadcast back over the reduced axis.
TEST(OnnxImport, ReduceLogSumExpShiftsByTheMaximum) {
  Model m(13);
  m.input("x", {2, 3}).output("y");
  attr_ints(m.node("ReduceLogSumExp", {"x"}, {"y"}, "r"), "axes", {1});
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 reduce_max(axis=1) [0] -> [2] 'r'",
                   "2 clamp(min=-3.4028235e+38,max=3.4028235e+38) [1] -> [2] 'r'",
                   "3 reshape([2]->[2,1]) [2] -> [2,1] 'r'",
                   "4 broadcast_to([2,1]->[2,3]) [3] -> [2,3] 'r'", "5 sub [0,4] -> [2,3] 'r'",
                   "6 exp [5] -> [2,3] 'r'", "7 reduce_sum(axis=1) [6] -> [2] 'r'",
                   "8 log [7] -> [2] 'r'", "9 add [8,2] -> [2] 'r'",
                   "10 reshape([2]->[2,1]) [9] -> [2,1] 'r'"}));
}

// Opset 18 moved axes to an input, with noop_with_empty_axes: no axes and the flag give the input
// itself (the sum of squares of each element for ReduceSumSquare, as ONNX's reference does).
TEST(OnnxImport, ReduceOperatorsOfOpset18ReadTheirAxesInput) {
  Model m(18);
  m.input("x", {2, 3}).output("y").output("z").init_i64("ax", {0});
  attr_i(m.node("ReduceProd", {"x", "ax"}, {"y"}, "p"), "keepdims", 0);
  attr_i(m.node("ReduceSumSquare", {"x"}, {"z"}, "s"), "noop_with_empty_axes", 1);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 reduce_prod(axis=0) [0] -> [3] 'p'",
                   "2 mul_elem [0,0] -> [2,3] 's'"}));
}

TEST(OnnxImport, ReduceAxesRefusedWithTheirReason) {
  Model repeated(13);
  repeated.input("x", {2, 3}).output("y");
  attr_ints(repeated.node("ReduceMax", {"x"}, {"y"}, "r"), "axes", {1, -1});
  EXPECT_THAT(error_of(repeated), ::testing::HasSubstr("axes [1,-1] repeat axis 1"));
  Model beyond(13);
  beyond.input("x", {2, 3}).output("y");
  attr_ints(beyond.node("ReduceL2", {"x"}, {"y"}, "r"), "axes", {2});
  EXPECT_THAT(error_of(beyond), ::testing::HasSubstr("axis 2 is out of range for rank 2"));
}

// ArgMax and ArgMin: one node of int64 indices over the (normalized) axis, reshaped back with
// keepdims; select_last_index 1 is refused.
TEST(OnnxImport, ArgMaxAndArgMinMakeInt64Indices) {
  Model m(13);
  m.input("x", {2, 3}).output("a").output("b");
  attr_i(m.node("ArgMax", {"x"}, {"a"}, "am"), "axis", -1);
  auto& n = m.node("ArgMin", {"x"}, {"b"}, "an");
  attr_i(n, "keepdims", 0);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 argmax(axis=1) [0] -> [2] 'am'",
                   "2 reshape([2]->[2,1]) [1] -> [2,1] 'am'", "3 argmin(axis=0) [0] -> [3] 'an'"}));
  EXPECT_EQ(r.graph().nodes[1].dtype, ir::DType::int64);
  EXPECT_EQ(r.graph().nodes[2].dtype, ir::DType::int64);
  // Indices feeding an op that takes float32: a limit of nnplan's, exit 4, naming the producer.
  Model added(13);
  added.input("x", {2, 3}).output("y");
  added.node("ArgMax", {"x"}, {"a"}, "am");
  added.node("Relu", {"a"}, {"y"}, "relu");
  EXPECT_EQ(unsupported_of(added),
            "node 1 'relu' (Relu): its input (reshape node 'am') has dtype int64; nnplan runs Relu "
            "on float32 values only");
  // select_last_index: the first extreme of x reversed along the axis, mapped back by a table.
  Model last(13);
  last.input("x", {2, 3}).output("a");
  attr_i(last.node("ArgMax", {"x"}, {"a"}, "am"), "select_last_index", 1);
  const ImportedModel l = ok(last);
  EXPECT_EQ(lines(l.graph()), (Lines{"0 input -> [2,3] 'x'", "1 gather(axis=0) [0] -> [2,3] 'am'",
                                     "2 const -> [2] 'am'", "3 argmax(axis=0) [1] -> [3] 'am'",
                                     "4 gather_elements(axis=0) [2,3] -> [3] 'am'",
                                     "5 reshape([3]->[1,3]) [4] -> [1,3] 'am'"}));
  const auto ints = [](std::span<const std::int64_t> v) {
    return std::vector<std::int64_t>(v.begin(), v.end());
  };
  EXPECT_EQ(ints(tensor_of(l, 1, "indices").ints()), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(ints(tensor_of(l, 2, "value").ints()), (std::vector<std::int64_t>{1, 0}));
  Model bad(13);
  bad.input("x", {2, 3}).output("a");
  attr_i(bad.node("ArgMax", {"x"}, {"a"}, "am"), "select_last_index", 2);
  EXPECT_EQ(unsupported_of(bad),
            "node 0 'am' (ArgMax): attribute select_last_index = 2 is not supported; supported: 0 "
            "or 1");
}

// MeanVarianceNormalization: ONNX's function body, reduce_mean chains over the axes (default 0, 2
// and 3, highest first), (x - mean) / (sqrt(E[x^2] - mean^2) + 1e-9).
TEST(OnnxImport, MeanVarianceNormalizationIsItsFunctionBody) {
  Model m(13);
  m.input("x", {2, 3, 4, 5}).output("y");
  m.node("MeanVarianceNormalization", {"x"}, {"y"}, "mvn");
  const ImportedModel r = ok(m);
  std::vector<std::string> kinds;
  for (const ir::Node& n : r.graph().nodes)
    kinds.emplace_back(ir::to_string(n.kind));
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "reduce_mean"), 6);
  EXPECT_EQ(lines(r.graph())[1], "1 reduce_mean(axis=3) [0] -> [2,3,4] 'mvn'");
  EXPECT_EQ(r.graph().nodes.back().kind, OpKind::mul_elem);
  EXPECT_EQ(dims(r.graph().nodes.back().shape), "[2,3,4,5]");
  Model one(13);
  one.input("x", {2, 3}).output("y");
  attr_ints(one.node("MeanVarianceNormalization", {"x"}, {"y"}, "mvn"), "axes", {-1});
  EXPECT_EQ(lines(ok(one).graph())[1], "1 reduce_mean(axis=1) [0] -> [2] 'mvn'");
  Model repeated(13);
  repeated.input("x", {2, 3}).output("y");
  attr_ints(repeated.node("MeanVarianceNormalization", {"x"}, {"y"}, "mvn"), "axes", {1, -1});
  EXPECT_EQ(error_of(repeated),
            "m.onnx: node 'mvn' (MeanVarianceNormalization, opset 13): axes [1,-1] repeat axis 1");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
