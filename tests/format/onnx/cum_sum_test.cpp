// CumSum (onnx/operators/cum_sum.cpp): one cum_sum node with the axis from its constant input
// (a scalar or one value, negative from the end), exclusive and reverse; float32 and int64 data;
// and what it refuses.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace cum_sum_test {
namespace {

Model cum_sum_model(std::vector<std::int64_t> axis, int dtype = kFloat) {
  Model m(14);
  m.input("x", {2, 3}, dtype).output("y");
  m.init_i64("axis", std::move(axis));
  m.node("CumSum", {"x", "axis"}, {"y"}, "c");
  return m;
}

TEST(OnnxCumSum, OneNodeWithItsAxisAndFlags) {
  EXPECT_EQ(lines(ok(cum_sum_model({1})).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 cum_sum(axis=1) [0] -> [2,3] 'c'"}));
  Model m = cum_sum_model({-2});
  onnx::NodeProto& n = *m.g().mutable_node(0);
  attr_i(n, "exclusive", 1);
  attr_i(n, "reverse", 1);
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'x'",
                                         "1 cum_sum(axis=0,exclusive,reverse) [0] -> [2,3] 'c'"}));
  const ImportedModel ints = ok(cum_sum_model({0}, onnx::TensorProto_DataType_INT64));
  EXPECT_EQ(ints.graph().nodes[1].dtype, ir::DType::int64);
}

TEST(OnnxCumSum, Refusals) {
  EXPECT_EQ(error_of(cum_sum_model({2})),
            "m.onnx: node 'c' (CumSum, opset 14): axis 2 is out of range for rank 2");
  EXPECT_EQ(error_of(cum_sum_model({0, 1})),
            "m.onnx: node 'c' (CumSum, opset 14): axis has 2 values; it must hold one");
  Model flag = cum_sum_model({0});
  attr_i(*flag.g().mutable_node(0), "reverse", 2);
  EXPECT_EQ(unsupported_error(flag).notes.at(0),
            "node 0 'c' (CumSum): attribute reverse = 2 is not supported; supported: 0 or 1");
  EXPECT_EQ(unsupported_error(cum_sum_model({0}, onnx::TensorProto_DataType_BOOL)).notes.at(0),
            "node 0 'c' (CumSum): input 'x' has dtype bool; supported: float32 and int64");
  Model runtime_axis(14);
  runtime_axis.input("x", {2, 3}).input("axis", {}, onnx::TensorProto_DataType_INT64).output("y");
  runtime_axis.node("CumSum", {"x", "axis"}, {"y"}, "c");
  const std::string note = unsupported_error(runtime_axis).notes.at(0);
  EXPECT_NE(note.find("axis 'axis' is a graph input, not a constant"), std::string::npos) << note;
}

}  // namespace
}  // namespace cum_sum_test
}  // namespace nnplan::format::onnx_test
