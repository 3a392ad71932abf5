// ScatterElements, Scatter and ScatterND (onnx/operators/scatter.cpp): one node over the data,
// int64 indices (run time or constant) and updates, with `reduction` from opset 16; and what each
// refuses.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace scatter_import_test {
namespace {

constexpr int kInt64 = onnx::TensorProto_DataType_INT64;

Model elements(std::int64_t opset, const std::string& op = "ScatterElements") {
  Model m(opset);
  m.input("x", {3, 4}).input("i", {2, 4}, kInt64).input("u", {2, 4}).output("y");
  m.node(op, {"x", "i", "u"}, {"y"}, "s");
  return m;
}

Model nd(std::int64_t opset, std::vector<std::int64_t> updates = {2, 4}) {
  Model m(opset);
  m.input("x", {3, 4}).input("i", {2, 1}, kInt64).input("u", std::move(updates)).output("y");
  m.node("ScatterND", {"x", "i", "u"}, {"y"}, "s");
  return m;
}

TEST(OnnxScatter, ElementsAndNdAtEveryOpset) {
  for (const std::int64_t opset : {11, 13, 16, 18}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(lines(ok(elements(opset)).graph()).back(),
              "3 scatter_elements(axis=0,none) [0,1,2] -> [3,4] 's'");
    EXPECT_EQ(lines(ok(nd(opset)).graph()).back(),
              "3 scatter_nd(axis=0,none) [0,1,2] -> [3,4] 's'");
  }
  EXPECT_EQ(lines(ok(elements(9, "Scatter")).graph()).back(),
            "3 scatter_elements(axis=0,none) [0,1,2] -> [3,4] 's'");
}

TEST(OnnxScatter, AxisAndReduction) {
  Model m = elements(16);
  onnx::NodeProto& n = *m.g().mutable_node(0);
  attr_i(n, "axis", -1);
  attr_s(n, "reduction", "mul");
  EXPECT_EQ(lines(ok(m).graph()).back(), "3 scatter_elements(axis=1,mul) [0,1,2] -> [3,4] 's'");
  Model a = nd(16);
  attr_s(*a.g().mutable_node(0), "reduction", "add");
  EXPECT_EQ(lines(ok(a).graph()).back(), "3 scatter_nd(axis=0,add) [0,1,2] -> [3,4] 's'");
}

TEST(OnnxScatter, Refusals) {
  Model most = elements(18);
  attr_s(*most.g().mutable_node(0), "reduction", "max");
  EXPECT_EQ(unsupported_error(most).notes.at(0),
            "node 0 's' (ScatterElements): attribute reduction = 'max' is not supported; "
            "supported: none, add or mul");
  Model early = elements(13);
  attr_s(*early.g().mutable_node(0), "reduction", "add");
  const std::string early_note = unsupported_error(early).notes.at(0);
  EXPECT_NE(early_note.find("reduction"), std::string::npos) << early_note;
  EXPECT_EQ(error_of(nd(13, {2, 3})),
            "m.onnx: node 's' (ScatterND, opset 13): updates 'u' have shape [2,3]; ScatterND "
            "takes [2,4]");
  Model flags(16);
  flags.input("x", {3}, onnx::TensorProto_DataType_BOOL)
      .input("i", {1, 1}, kInt64)
      .input("u", {1}, onnx::TensorProto_DataType_BOOL)
      .output("y");
  attr_s(flags.node("ScatterND", {"x", "i", "u"}, {"y"}, "s"), "reduction", "add");
  EXPECT_EQ(unsupported_error(flags).notes.at(0),
            "node 0 's' (ScatterND): reduction 'add' of bool data is not supported; supported: "
            "float32 and int64 data");
  Model mixed(16);
  mixed.input("x", {3, 4}).input("i", {2, 4}, kInt64).input("u", {2, 4}, kInt64).output("y");
  mixed.node("ScatterElements", {"x", "i", "u"}, {"y"}, "s");
  EXPECT_EQ(error_of(mixed),
            "m.onnx: node 's' (ScatterElements, opset 16): updates 'u' have dtype int64 and data "
            "float32; they must match");
}

}  // namespace
}  // namespace scatter_import_test
}  // namespace nnplan::format::onnx_test
