#include "operator_table.hpp"

#include <algorithm>
#include <array>

#include "import_context.hpp"
#include "operators.hpp"

namespace nnplan::format::onnx_import {
namespace {

using ir::OpKind;

constexpr std::array kOperators = {
    OperatorImporter{"Abs", 1, kMaxOpset, import_unary_as<OpKind::abs>},
    OperatorImporter{"Add", 1, kMaxOpset, import_binary_as<OpKind::add>},
    OperatorImporter{"AveragePool", 1, kMaxOpset, import_average_pool},
    OperatorImporter{"BatchNormalization", 1, kMaxOpset, import_batch_normalization},
    OperatorImporter{"Concat", 1, kMaxOpset, import_concat},
    OperatorImporter{"Constant", 1, kMaxOpset, import_constant},
    OperatorImporter{"Conv", 1, kMaxOpset, import_conv},
    OperatorImporter{"ConvTranspose", 1, kMaxOpset, import_conv_transpose},
    OperatorImporter{"Cos", 1, kMaxOpset, import_unary_as<OpKind::cos>},
    OperatorImporter{"Div", 1, kMaxOpset, import_div},
    OperatorImporter{"Dropout", 1, kMaxOpset, import_dropout},
    OperatorImporter{"Exp", 1, kMaxOpset, import_unary_as<OpKind::exp>},
    OperatorImporter{"Expand", 1, kMaxOpset, import_expand},
    OperatorImporter{"Flatten", 1, kMaxOpset, import_flatten},
    OperatorImporter{"Gather", 1, kMaxOpset, import_gather},
    OperatorImporter{"Gemm", 1, kMaxOpset, import_gemm},
    OperatorImporter{"GlobalAveragePool", 1, kMaxOpset, import_global_average_pool},
    OperatorImporter{"GlobalMaxPool", 1, kMaxOpset, import_global_max_pool},
    OperatorImporter{"Identity", 1, kMaxOpset, import_identity},
    OperatorImporter{"LayerNormalization", 1, kMaxOpset, import_layer_normalization},
    OperatorImporter{"Log", 1, kMaxOpset, import_unary_as<OpKind::log>},
    OperatorImporter{"MatMul", 1, kMaxOpset, import_mat_mul},
    OperatorImporter{"Max", 1, kMaxOpset, import_variadic_as<OpKind::max_elem>},
    OperatorImporter{"MaxPool", 1, kMaxOpset, import_max_pool},
    OperatorImporter{"Min", 1, kMaxOpset, import_variadic_as<OpKind::min_elem>},
    OperatorImporter{"Mul", 1, kMaxOpset, import_binary_as<OpKind::mul_elem>},
    OperatorImporter{"Pad", 1, 10, import_pad_1},
    OperatorImporter{"Pad", 11, kMaxOpset, import_pad_11},
    OperatorImporter{"Reciprocal", 1, kMaxOpset, import_unary_as<OpKind::inv>},
    OperatorImporter{"ReduceMean", 1, kMaxOpset, import_reduce_mean},
    OperatorImporter{"ReduceSum", 1, kMaxOpset, import_reduce_sum},
    OperatorImporter{"Relu", 1, kMaxOpset, import_unary_as<OpKind::relu>},
    OperatorImporter{"Reshape", 1, kMaxOpset, import_reshape},
    OperatorImporter{"Resize", 1, 10, import_resize_10},
    OperatorImporter{"Resize", 11, kMaxOpset, import_resize_11},
    OperatorImporter{"Sigmoid", 1, kMaxOpset, import_unary_as<OpKind::sigmoid>},
    OperatorImporter{"Sin", 1, kMaxOpset, import_unary_as<OpKind::sin>},
    OperatorImporter{"Slice", 1, kMaxOpset, import_slice},
    OperatorImporter{"Softmax", 1, 12, import_softmax_1},
    OperatorImporter{"Softmax", 13, kMaxOpset, import_softmax_13},
    OperatorImporter{"Split", 1, kMaxOpset, import_split},
    OperatorImporter{"Sqrt", 1, kMaxOpset, import_unary_as<OpKind::sqrt>},
    OperatorImporter{"Squeeze", 1, kMaxOpset, import_squeeze},
    OperatorImporter{"Sub", 1, kMaxOpset, import_binary_as<OpKind::sub>},
    OperatorImporter{"Tanh", 1, kMaxOpset, import_unary_as<OpKind::tanh>},
    OperatorImporter{"Transpose", 1, kMaxOpset, import_transpose},
    OperatorImporter{"Unsqueeze", 1, kMaxOpset, import_unsqueeze},
    OperatorImporter{"Where", 1, kMaxOpset, import_where},
};
static_assert(std::ranges::is_sorted(kOperators, {}, [](const OperatorImporter& row) {
  return std::pair(row.op_type, row.first_opset);
}));

constexpr std::size_t kOpTypeCount = [] {
  std::size_t n = 0;
  for (std::size_t i = 0; i < kOperators.size(); ++i)
    n += i == 0 || kOperators[i].op_type != kOperators[i - 1].op_type ? 1 : 0;
  return n;
}();

constexpr std::array<std::string_view, kOpTypeCount> kOpTypes = [] {
  std::array<std::string_view, kOpTypeCount> names{};
  std::size_t n = 0;
  for (std::size_t i = 0; i < kOperators.size(); ++i) {
    if (i == 0 || kOperators[i].op_type != kOperators[i - 1].op_type) {
      names[n++] = kOperators[i].op_type;
    }
  }
  return names;
}();

}  // namespace

std::span<const OperatorImporter> operator_table() {
  return kOperators;
}

const OperatorImporter* find_operator(std::string_view op_type, std::int64_t opset) {
  const auto [first, last] =
      std::ranges::equal_range(kOperators, op_type, {}, &OperatorImporter::op_type);
  for (auto it = first; it != last; ++it) {
    if (it->first_opset <= opset && opset <= it->last_opset) return &*it;
  }
  return nullptr;
}

std::span<const std::string_view> supported_op_types() {
  return kOpTypes;
}

}  // namespace nnplan::format::onnx_import
