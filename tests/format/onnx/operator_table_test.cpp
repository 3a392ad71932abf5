// The operator table (src/format/onnx/operator_table.hpp): rows sorted, each op type's rows
// covering opsets 1..kMaxOpset without a gap or an overlap, the lookup choosing by opset, and the
// supported list the importer's messages print.
#include "format/onnx/operator_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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

TEST(OnnxOperatorTable, EveryOpTypeCoversEveryOpsetOnce) {
  for (const std::string_view op : supported_op_types()) {
    for (std::int64_t opset = 1; opset <= kMaxOpset; ++opset) {
      int rows = 0;
      for (const OperatorImporter& row : operator_table())
        rows += row.op_type == op && row.first_opset <= opset && opset <= row.last_opset ? 1 : 0;
      EXPECT_EQ(rows, 1) << op << " at opset " << opset;
      const OperatorImporter* found = find_operator(op, opset);
      ASSERT_NE(found, nullptr) << op << " at opset " << opset;
      EXPECT_EQ(found->op_type, op);
      EXPECT_NE(found->import, nullptr);
    }
    EXPECT_EQ(find_operator(op, 0), nullptr) << op;
    EXPECT_EQ(find_operator(op, kMaxOpset + 1), nullptr) << op;
  }
}

TEST(OnnxOperatorTable, LookupChoosesTheRowOfTheOpset) {
  EXPECT_EQ(find_operator("Softmax", 12)->last_opset, 12);
  EXPECT_EQ(find_operator("Softmax", 13)->first_opset, 13);
  EXPECT_NE(find_operator("Softmax", 12)->import, find_operator("Softmax", 13)->import);
  EXPECT_NE(find_operator("Pad", 10)->import, find_operator("Pad", 11)->import);
  EXPECT_EQ(find_operator("Erf", 13), nullptr);
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
