// The operator table (src/format/onnx/operator_table.hpp): rows sorted, each op type's rows
// covering opsets 1..kMaxOpset without a gap or an overlap, the lookup choosing by opset, and the
// supported list the importer's messages print.
#include "format/onnx/operator_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "format/onnx/import_context.hpp"
#include "nnplan/format/onnx_import.hpp"

namespace nnplan::format::onnx_import {
namespace {

TEST(OnnxOperatorTable, RowsAreSortedByOpTypeThenOpset) {
  EXPECT_TRUE(std::ranges::is_sorted(operator_table(), {}, [](const OperatorImporter& row) {
    return std::pair(row.op_type, row.first_opset);
  }));
}

// The operators ONNX introduced after opset 1, and the opset that did (ONNX's Operators.md).
const std::map<std::string_view, std::int64_t> kIntroducedAfterOpset1 = {
    {"Acos", 7},
    {"Acosh", 9},
    {"CastLike", 15},
    {"Upsample", 7},
    {"Asin", 7},
    {"Asinh", 9},
    {"Atan", 7},
    {"Atanh", 9},
    {"Cosh", 9},
    {"Einsum", 12},
    {"Gelu", 20},
    {"GridSample", 16},
    {"MaxUnpool", 9},
    {"RoiAlign", 10},
    {"Round", 11},
    {"Sign", 9},
    {"Sinh", 9},
    {"Tan", 7},
    {"GreaterOrEqual", 12},
    {"LessOrEqual", 12},
    {"Trilu", 14},
    {"Where", 9},
    {"GatherElements", 11},
    {"NegativeLogLikelihoodLoss", 12},
    {"SoftmaxCrossEntropyLoss", 12},
    {"IsInf", 10},
    {"IsNaN", 9},
    {"Shrink", 9},
    {"ThresholdedRelu", 10},
    {"OneHot", 9},
    {"CumSum", 11},
    {"ScatterElements", 11},
    {"ScatterND", 11},
    {"Scatter", 9},
    {"MeanVarianceNormalization", 9},
    {"GatherND", 11},
    {"Mod", 10},
};

// The operators ONNX deprecated, and the last opset that defines them (Upsample: Resize replaced it
// at 10).
const std::map<std::string_view, std::int64_t> kDeprecatedAfter = {{"Upsample", 9},
                                                                   {"Scatter", 10}};

TEST(OnnxOperatorTable, EveryOpTypeCoversEveryOpsetOnce) {
  // Each op type's rows cover one range of opsets without overlap: from 1 (or from the opset that
  // introduced the operator) up to at least kMaxOpset (or the last opset of a deprecated one), and
  // at most kMaxModelOpset.
  for (const std::string_view op : supported_op_types()) {
    std::int64_t first = 0;
    for (const OperatorImporter& row : operator_table())
      if (row.op_type == op && (first == 0 || row.first_opset < first)) first = row.first_opset;
    const auto introduced = kIntroducedAfterOpset1.find(op);
    EXPECT_EQ(first, introduced == kIntroducedAfterOpset1.end() ? 1 : introduced->second) << op;
    EXPECT_EQ(first_opset_of(op), first) << op;
    const std::int64_t last = last_opset_of(op);
    const auto deprecated = kDeprecatedAfter.find(op);
    EXPECT_GE(last, deprecated != kDeprecatedAfter.end()
                        ? deprecated->second
                        : std::min(std::max(first, kMaxOpset), kMaxModelOpset))
        << op;
    EXPECT_LE(last, kMaxModelOpset) << op;
    for (std::int64_t opset = first; opset <= last; ++opset) {
      int rows = 0;
      for (const OperatorImporter& row : operator_table())
        rows += row.op_type == op && row.first_opset <= opset && opset <= row.last_opset ? 1 : 0;
      EXPECT_EQ(rows, 1) << op << " at opset " << opset;
      const OperatorImporter* found = find_operator(op, opset);
      ASSERT_NE(found, nullptr) << op << " at opset " << opset;
      EXPECT_EQ(found->op_type, op);
      EXPECT_NE(found->import, nullptr);
    }
    EXPECT_EQ(find_operator(op, first - 1), nullptr) << op;
    EXPECT_EQ(find_operator(op, last + 1), nullptr) << op;
  }
}

TEST(OnnxOperatorTable, OpsetsPast17OnlyWhereTheOperatorReadsTheSame) {
  // Changed in 18 (axes input) and refused from there; ReduceMean's axes input is read.
  EXPECT_EQ(last_opset_of("Pad"), 17);
  EXPECT_EQ(find_operator("Pad", 18), nullptr);
  EXPECT_NE(find_operator("ReduceMean", 18), nullptr);
  EXPECT_NE(find_operator("ReduceSum", 20), nullptr);
  // Unchanged after 17, or changed only in types other than float32 (Constant, Identity and
  // Reshape in 19), or only by an attribute the importer refuses (AveragePool's dilations in 19).
  for (const std::string_view op : {"Relu", "Constant", "Identity", "Reshape", "AveragePool",
                                    "MatMul", "Softmax", "LayerNormalization"}) {
    EXPECT_EQ(last_opset_of(op), kMaxModelOpset) << op;
  }
  EXPECT_EQ(find_operator("Gelu", 19), nullptr);
  EXPECT_NE(find_operator("Gelu", 20), nullptr);
  EXPECT_EQ(last_opset_of("Det"), 0);
  EXPECT_EQ(first_opset_of("Det"), 0);
}

TEST(OnnxOperatorTable, LookupChoosesTheRowOfTheOpset) {
  EXPECT_EQ(find_operator("Softmax", 12)->last_opset, 12);
  EXPECT_EQ(find_operator("Softmax", 13)->first_opset, 13);
  EXPECT_NE(find_operator("Softmax", 12)->import, find_operator("Softmax", 13)->import);
  EXPECT_NE(find_operator("Pad", 10)->import, find_operator("Pad", 11)->import);
  EXPECT_EQ(find_operator("Det", 13), nullptr);
  EXPECT_EQ(find_operator("relu", 13), nullptr);  // op types are case-sensitive
  EXPECT_EQ(find_operator("", 13), nullptr);
}

TEST(OnnxOperatorTable, SupportedOpsAreTheTablesOpTypesSortedOnce) {
  const auto ops = supported_onnx_ops();
  EXPECT_TRUE(std::ranges::is_sorted(ops));
  EXPECT_TRUE(std::ranges::adjacent_find(ops) == ops.end());
  for (const OperatorImporter& row : operator_table())
    EXPECT_TRUE(std::ranges::binary_search(ops, row.op_type)) << row.op_type;
}

}  // namespace
}  // namespace nnplan::format::onnx_import
