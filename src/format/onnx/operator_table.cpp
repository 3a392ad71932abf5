#include "operator_table.hpp"

#include <algorithm>
#include <array>

#include "import_context.hpp"
#include "operators.hpp"

namespace nnplan::format::onnx_import {
namespace {

using ir::OpKind;

constexpr std::array kOperators = {
    OperatorImporter{"Abs", 1, kMaxModelOpset, import_unary_as<OpKind::abs>},
    OperatorImporter{"Acos", 7, kMaxModelOpset, import_unary_as<OpKind::acos>},
    OperatorImporter{"Acosh", 9, kMaxModelOpset, import_unary_as<OpKind::acosh>},
    OperatorImporter{"Add", 1, kMaxModelOpset, import_binary_as<OpKind::add>},
    OperatorImporter{"And", 1, kMaxModelOpset, import_broadcasting_as<OpKind::and_>},
    OperatorImporter{"ArgMax", 1, kMaxModelOpset, import_arg_max},
    OperatorImporter{"ArgMin", 1, kMaxModelOpset, import_arg_min},
    OperatorImporter{"Asin", 7, kMaxModelOpset, import_unary_as<OpKind::asin>},
    OperatorImporter{"Asinh", 9, kMaxModelOpset, import_unary_as<OpKind::asinh>},
    OperatorImporter{"Atan", 7, kMaxModelOpset, import_unary_as<OpKind::atan>},
    OperatorImporter{"Atanh", 9, kMaxModelOpset, import_unary_as<OpKind::atanh>},
    OperatorImporter{"AveragePool", 1, kMaxModelOpset, import_average_pool},
    OperatorImporter{"BatchNormalization", 1, kMaxModelOpset, import_batch_normalization},
    OperatorImporter{"Cast", 1, kMaxModelOpset, import_cast},
    OperatorImporter{"CastLike", 15, kMaxModelOpset, import_cast_like},
    OperatorImporter{"Ceil", 1, kMaxModelOpset, import_unary_as<OpKind::ceil>},
    OperatorImporter{"Clip", 1, 10, import_clip_1},
    OperatorImporter{"Clip", 11, kMaxModelOpset, import_clip_11},
    OperatorImporter{"Concat", 1, kMaxModelOpset, import_concat},
    OperatorImporter{"Constant", 1, kMaxModelOpset, import_constant},
    OperatorImporter{"Conv", 1, kMaxModelOpset, import_conv},
    OperatorImporter{"ConvTranspose", 1, kMaxModelOpset, import_conv_transpose},
    OperatorImporter{"Cos", 1, kMaxModelOpset, import_unary_as<OpKind::cos>},
    OperatorImporter{"Cosh", 9, kMaxModelOpset, import_unary_as<OpKind::cosh>},
    OperatorImporter{"CumSum", 11, kMaxModelOpset, import_cum_sum},
    OperatorImporter{"DepthToSpace", 1, kMaxModelOpset, import_depth_to_space},
    OperatorImporter{"Div", 1, kMaxModelOpset, import_div_or_gelu},
    OperatorImporter{"Dropout", 1, kMaxModelOpset, import_dropout},
    OperatorImporter{"Einsum", 12, kMaxModelOpset, import_einsum},
    OperatorImporter{"Elu", 1, kMaxModelOpset, import_unary_with_alpha_as<OpKind::elu, 1, 1>},
    OperatorImporter{"Equal", 1, kMaxModelOpset, import_broadcasting_as<OpKind::equal>},
    OperatorImporter{"Erf", 1, kMaxModelOpset, import_erf},
    OperatorImporter{"Exp", 1, kMaxModelOpset, import_unary_as<OpKind::exp>},
    OperatorImporter{"Expand", 1, kMaxModelOpset, import_expand},
    OperatorImporter{"Flatten", 1, kMaxModelOpset, import_flatten},
    OperatorImporter{"Floor", 1, kMaxModelOpset, import_unary_as<OpKind::floor>},
    OperatorImporter{"GRU", 1, kMaxModelOpset, import_gru},
    OperatorImporter{"Gather", 1, kMaxModelOpset, import_gather},
    OperatorImporter{"GatherElements", 11, kMaxModelOpset, import_gather_elements},
    OperatorImporter{"GatherND", 11, kMaxModelOpset, import_gather_nd},
    OperatorImporter{"Gelu", 20, kMaxModelOpset, import_gelu},
    OperatorImporter{"Gemm", 1, kMaxModelOpset, import_gemm},
    OperatorImporter{"GlobalAveragePool", 1, kMaxModelOpset, import_global_average_pool},
    OperatorImporter{"GlobalMaxPool", 1, kMaxModelOpset, import_global_max_pool},
    OperatorImporter{"Greater", 1, kMaxModelOpset, import_broadcasting_as<OpKind::greater>},
    OperatorImporter{"GreaterOrEqual", 12, kMaxModelOpset,
                     import_broadcasting_as<OpKind::greater_or_equal>},
    OperatorImporter{"GridSample", 16, kMaxModelOpset, import_grid_sample},
    OperatorImporter{"HardSigmoid", 1, kMaxModelOpset, import_hard_sigmoid},
    OperatorImporter{"HardSwish", 1, kMaxModelOpset, import_hard_swish},
    OperatorImporter{"Hardmax", 1, kMaxModelOpset, import_hardmax},
    OperatorImporter{"Identity", 1, kMaxModelOpset, import_identity},
    OperatorImporter{"InstanceNormalization", 1, kMaxModelOpset, import_instance_normalization},
    OperatorImporter{"IsInf", 10, kMaxModelOpset, import_is_inf},
    OperatorImporter{"IsNaN", 9, kMaxModelOpset, import_is_nan},
    OperatorImporter{"LRN", 1, kMaxModelOpset, import_lrn},
    OperatorImporter{"LSTM", 1, kMaxModelOpset, import_lstm},
    OperatorImporter{"LayerNormalization", 1, kMaxModelOpset, import_layer_normalization},
    OperatorImporter{"LeakyRelu", 1, kMaxModelOpset,
                     import_unary_with_alpha_as<OpKind::leaky_relu, 1, 100>},
    OperatorImporter{"Less", 1, kMaxModelOpset, import_broadcasting_as<OpKind::less>},
    OperatorImporter{"LessOrEqual", 12, kMaxModelOpset,
                     import_broadcasting_as<OpKind::less_or_equal>},
    OperatorImporter{"Log", 1, kMaxModelOpset, import_unary_as<OpKind::log>},
    OperatorImporter{"LogSoftmax", 1, 12, import_log_softmax_1},
    OperatorImporter{"LogSoftmax", 13, kMaxModelOpset, import_log_softmax_13},
    OperatorImporter{"MatMul", 1, kMaxModelOpset, import_mat_mul},
    OperatorImporter{"Max", 1, kMaxModelOpset, import_variadic_as<OpKind::max_elem>},
    OperatorImporter{"MaxPool", 1, kMaxModelOpset, import_max_pool},
    OperatorImporter{"MaxUnpool", 9, kMaxModelOpset, import_max_unpool},
    OperatorImporter{"Mean", 1, kMaxModelOpset, import_mean},
    OperatorImporter{"MeanVarianceNormalization", 9, kMaxModelOpset,
                     import_mean_variance_normalization},
    OperatorImporter{"Min", 1, kMaxModelOpset, import_variadic_as<OpKind::min_elem>},
    OperatorImporter{"Mod", 10, kMaxModelOpset, import_mod},
    OperatorImporter{"Mul", 1, kMaxModelOpset, import_mul_or_gelu},
    OperatorImporter{"Neg", 1, kMaxModelOpset, import_neg},
    OperatorImporter{"NegativeLogLikelihoodLoss", 12, kMaxModelOpset,
                     import_negative_log_likelihood_loss},
    OperatorImporter{"Not", 1, kMaxModelOpset, import_unary_as<OpKind::not_>},
    OperatorImporter{"OneHot", 9, kMaxModelOpset, import_one_hot},
    OperatorImporter{"Or", 1, kMaxModelOpset, import_broadcasting_as<OpKind::or_>},
    OperatorImporter{"PRelu", 1, kMaxModelOpset, import_prelu},
    OperatorImporter{"Pad", 1, 10, import_pad_1},
    OperatorImporter{"Pad", 11, kMaxOpset, import_pad_11},
    OperatorImporter{"Pow", 1, kMaxModelOpset, import_pow},
    OperatorImporter{"RNN", 1, kMaxModelOpset, import_rnn},
    OperatorImporter{"Reciprocal", 1, kMaxModelOpset, import_unary_as<OpKind::inv>},
    OperatorImporter{"ReduceL1", 1, kMaxModelOpset, import_reduce_l1},
    OperatorImporter{"ReduceL2", 1, kMaxModelOpset, import_reduce_l2},
    OperatorImporter{"ReduceLogSum", 1, kMaxModelOpset, import_reduce_log_sum},
    OperatorImporter{"ReduceLogSumExp", 1, kMaxModelOpset, import_reduce_log_sum_exp},
    OperatorImporter{"ReduceMax", 1, kMaxModelOpset, import_reduce_max},
    OperatorImporter{"ReduceMean", 1, kMaxModelOpset, import_reduce_mean},
    OperatorImporter{"ReduceMin", 1, kMaxModelOpset, import_reduce_min},
    OperatorImporter{"ReduceProd", 1, kMaxModelOpset, import_reduce_prod},
    OperatorImporter{"ReduceSum", 1, kMaxModelOpset, import_reduce_sum},
    OperatorImporter{"ReduceSumSquare", 1, kMaxModelOpset, import_reduce_sum_square},
    OperatorImporter{"Relu", 1, kMaxModelOpset, import_unary_as<OpKind::relu>},
    OperatorImporter{"Reshape", 1, kMaxModelOpset, import_reshape},
    OperatorImporter{"Resize", 1, 10, import_resize_10},
    OperatorImporter{"Resize", 11, kMaxOpset, import_resize_11},
    OperatorImporter{"RoiAlign", 10, kMaxModelOpset, import_roi_align},
    OperatorImporter{"Round", 11, kMaxModelOpset, import_unary_as<OpKind::round>},
    OperatorImporter{"Scatter", 9, 10, import_scatter_elements},
    OperatorImporter{"ScatterElements", 11, kMaxModelOpset, import_scatter_elements},
    OperatorImporter{"ScatterND", 11, kMaxModelOpset, import_scatter_nd},
    OperatorImporter{"Selu", 1, kMaxModelOpset, import_selu},
    OperatorImporter{"Shrink", 9, kMaxModelOpset, import_shrink},
    OperatorImporter{"Sigmoid", 1, kMaxModelOpset, import_sigmoid_or_silu},
    OperatorImporter{"Sign", 9, kMaxModelOpset, import_unary_as<OpKind::sign>},
    OperatorImporter{"Sin", 1, kMaxModelOpset, import_unary_as<OpKind::sin>},
    OperatorImporter{"Sinh", 9, kMaxModelOpset, import_unary_as<OpKind::sinh>},
    OperatorImporter{"Slice", 1, kMaxModelOpset, import_slice},
    OperatorImporter{"Softmax", 1, 12, import_softmax_1},
    OperatorImporter{"Softmax", 13, kMaxModelOpset, import_softmax_13},
    OperatorImporter{"SoftmaxCrossEntropyLoss", 12, kMaxModelOpset,
                     import_softmax_cross_entropy_loss},
    OperatorImporter{"Softplus", 1, kMaxModelOpset, import_unary_as<OpKind::softplus>},
    OperatorImporter{"Softsign", 1, kMaxModelOpset, import_unary_as<OpKind::softsign>},
    OperatorImporter{"SpaceToDepth", 1, kMaxModelOpset, import_space_to_depth},
    OperatorImporter{"Split", 1, kMaxOpset, import_split},
    OperatorImporter{"Sqrt", 1, kMaxModelOpset, import_unary_as<OpKind::sqrt>},
    OperatorImporter{"Squeeze", 1, kMaxModelOpset, import_squeeze},
    OperatorImporter{"Sub", 1, kMaxModelOpset, import_binary_as<OpKind::sub>},
    OperatorImporter{"Sum", 1, kMaxModelOpset, import_variadic_as<OpKind::add>},
    OperatorImporter{"Tan", 7, kMaxModelOpset, import_unary_as<OpKind::tan>},
    OperatorImporter{"Tanh", 1, kMaxModelOpset, import_unary_as<OpKind::tanh>},
    OperatorImporter{"ThresholdedRelu", 10, kMaxModelOpset, import_thresholded_relu},
    OperatorImporter{"Tile", 1, 5, import_tile_1},
    OperatorImporter{"Tile", 6, kMaxModelOpset, import_tile},
    OperatorImporter{"TopK", 1, kMaxModelOpset, import_top_k},
    OperatorImporter{"Transpose", 1, kMaxModelOpset, import_transpose},
    OperatorImporter{"Trilu", 14, kMaxModelOpset, import_trilu},
    OperatorImporter{"Unsqueeze", 1, kMaxModelOpset, import_unsqueeze},
    OperatorImporter{"Upsample", 7, 9, import_upsample},
    OperatorImporter{"Where", 9, kMaxModelOpset, import_where},
    OperatorImporter{"Xor", 1, kMaxModelOpset, import_broadcasting_as<OpKind::xor_>},
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

std::int64_t last_opset_of(std::string_view op_type) {
  const auto [first, last] =
      std::ranges::equal_range(kOperators, op_type, {}, &OperatorImporter::op_type);
  std::int64_t opset = 0;
  for (auto it = first; it != last; ++it)
    opset = std::max(opset, it->last_opset);
  return opset;
}

std::int64_t first_opset_of(std::string_view op_type) {
  const auto [first, last] =
      std::ranges::equal_range(kOperators, op_type, {}, &OperatorImporter::op_type);
  std::int64_t opset = 0;
  for (auto it = first; it != last; ++it)
    opset = opset == 0 ? it->first_opset : std::min(opset, it->first_opset);
  return opset;
}

std::span<const std::string_view> supported_op_types() {
  return kOpTypes;
}

}  // namespace nnplan::format::onnx_import
