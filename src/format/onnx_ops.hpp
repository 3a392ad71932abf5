// The ONNX operators the importer maps (onnx_import.cpp), by name: the enumerator the importer
// dispatches on, the sorted names users see, and the lookup from a node's op_type.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "name_table.hpp"

namespace nnplan::format::detail {

// The supported ONNX operators: the importer dispatches on the enumerator, users see the names.
enum class OnnxOp : std::uint8_t {
  abs,
  add,
  average_pool,
  batch_normalization,
  concat,
  constant,
  conv,
  cos,
  div,
  dropout,
  exp,
  flatten,
  gemm,
  global_average_pool,
  global_max_pool,
  identity,
  layer_normalization,
  log,
  mat_mul,
  max,
  max_pool,
  min,
  mul,
  pad,
  reciprocal,
  reduce_mean,
  reduce_sum,
  relu,
  reshape,
  sigmoid,
  sin,
  softmax,
  sqrt,
  squeeze,
  sub,
  tanh,
  transpose,
  unsqueeze,
};

// Sorted by name (so that supported_onnx_ops() lists them sorted).
inline constexpr std::array<std::pair<std::string_view, OnnxOp>, 38> kOnnxOps = {{
    {"Abs", OnnxOp::abs},
    {"Add", OnnxOp::add},
    {"AveragePool", OnnxOp::average_pool},
    {"BatchNormalization", OnnxOp::batch_normalization},
    {"Concat", OnnxOp::concat},
    {"Constant", OnnxOp::constant},
    {"Conv", OnnxOp::conv},
    {"Cos", OnnxOp::cos},
    {"Div", OnnxOp::div},
    {"Dropout", OnnxOp::dropout},
    {"Exp", OnnxOp::exp},
    {"Flatten", OnnxOp::flatten},
    {"Gemm", OnnxOp::gemm},
    {"GlobalAveragePool", OnnxOp::global_average_pool},
    {"GlobalMaxPool", OnnxOp::global_max_pool},
    {"Identity", OnnxOp::identity},
    {"LayerNormalization", OnnxOp::layer_normalization},
    {"Log", OnnxOp::log},
    {"MatMul", OnnxOp::mat_mul},
    {"Max", OnnxOp::max},
    {"MaxPool", OnnxOp::max_pool},
    {"Min", OnnxOp::min},
    {"Mul", OnnxOp::mul},
    {"Pad", OnnxOp::pad},
    {"Reciprocal", OnnxOp::reciprocal},
    {"ReduceMean", OnnxOp::reduce_mean},
    {"ReduceSum", OnnxOp::reduce_sum},
    {"Relu", OnnxOp::relu},
    {"Reshape", OnnxOp::reshape},
    {"Sigmoid", OnnxOp::sigmoid},
    {"Sin", OnnxOp::sin},
    {"Softmax", OnnxOp::softmax},
    {"Sqrt", OnnxOp::sqrt},
    {"Squeeze", OnnxOp::squeeze},
    {"Sub", OnnxOp::sub},
    {"Tanh", OnnxOp::tanh},
    {"Transpose", OnnxOp::transpose},
    {"Unsqueeze", OnnxOp::unsqueeze},
}};
static_assert(std::ranges::is_sorted(kOnnxOps, {}, [](const auto& e) { return e.first; }));

inline constexpr std::array<std::string_view, kOnnxOps.size()> kSupportedOps = [] {
  std::array<std::string_view, kOnnxOps.size()> names{};
  for (std::size_t i = 0; i < names.size(); ++i)
    names[i] = kOnnxOps[i].first;
  return names;
}();

// One hash and, as a rule, one comparison per node: an open-addressed table of kOnnxOps indices.
inline std::optional<OnnxOp> find_onnx_op(std::string_view name) {
  constexpr std::size_t kSlots = 128;  // over three times the operators: short probes
  static_assert(kOnnxOps.size() < kSlots / 2);
  static const std::array<std::uint8_t, kSlots> slots = [] {
    std::array<std::uint8_t, kSlots> t{};  // 0: empty, else 1 + an index into kOnnxOps
    for (std::size_t i = 0; i < kOnnxOps.size(); ++i) {
      std::size_t h = hash_name(kOnnxOps[i].first) % kSlots;
      while (t[h] != 0)
        h = (h + 1) % kSlots;
      t[h] = static_cast<std::uint8_t>(i + 1);
    }
    return t;
  }();
  for (std::size_t h = hash_name(name) % kSlots; slots[h] != 0; h = (h + 1) % kSlots) {
    const auto& [op_name, op] = kOnnxOps[slots[h] - 1];
    if (op_name == name) return op;
  }
  return std::nullopt;
}

}  // namespace nnplan::format::detail
