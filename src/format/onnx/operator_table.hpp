// The ONNX operators the importer maps: one row per operator and opset range, sorted by op type,
// each naming the function that imports a node of that operator (operators.hpp). The rows of one
// op type cover opsets from the one that introduced the operator (1 for most) to kMaxOpset without
// overlap (tests/format/onnx/operator_table_test.cpp);
// a row reaches past kMaxOpset, up to kMaxModelOpset, only where the operator's definition did not
// change after opset 17 or the row's importer reads the newer definition.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace nnplan::format::onnx_import {

class ImportContext;

struct OperatorImporter {
  std::string_view op_type;
  std::int64_t first_opset = 1;  // the opsets this row imports, inclusive
  std::int64_t last_opset = 1;
  void (*import)(ImportContext&) = nullptr;
};

// Every row, sorted by op type, then opset.
[[nodiscard]] std::span<const OperatorImporter> operator_table();

// The row that imports `op_type` at `opset`; null when none does.
[[nodiscard]] const OperatorImporter* find_operator(std::string_view op_type, std::int64_t opset);

// The last opset any row of `op_type` imports; 0 when no row does.
[[nodiscard]] std::int64_t last_opset_of(std::string_view op_type);

// The first opset any row of `op_type` imports (the opset that introduced the operator); 0 when no
// row does.
[[nodiscard]] std::int64_t first_opset_of(std::string_view op_type);

// The supported op types, sorted, each once.
[[nodiscard]] std::span<const std::string_view> supported_op_types();

}  // namespace nnplan::format::onnx_import
