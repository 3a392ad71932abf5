// The per-operator importers: each reads the current node of an ImportContext (its attributes,
// inputs and outputs) and emits the IR nodes it maps to, or fails naming the reason. One file per
// operator family under operators/; operator_table.cpp maps op types and opsets to them.
#pragma once

#include "nnplan/ir/graph.hpp"

namespace nnplan::format::onnx_import {

class ImportContext;
struct ConstTensor;

// operators/elementwise.cpp: Abs, Cos, Exp, Log, Reciprocal, Relu, Sigmoid, Sin, Softsign, Sqrt,
// Tanh (one IR node of `kind`); Elu and LeakyRelu (one node of `kind` with its alpha); Add, Mul,
// Sub (`kind` of both operands broadcast), Div (a product with the inverse); Max, Min (`kind`
// folded pairwise over one or more inputs).
void import_unary(ImportContext& cx, ir::OpKind kind);
// LeakyRelu, Elu: one IR node of `kind` with AlphaParams, ONNX's `alpha` attribute (`fallback`
// when absent); a NaN or infinite alpha is refused.
void import_unary_with_alpha(ImportContext& cx, ir::OpKind kind, float fallback);
void import_binary(ImportContext& cx, ir::OpKind kind);
void import_div(ImportContext& cx);
void import_variadic(ImportContext& cx, ir::OpKind kind);
// Mean: the inputs' broadcast sum scaled by 1/n. Selu: gamma * elu(x, alpha).
void import_mean(ImportContext& cx);
void import_selu(ImportContext& cx);
void import_prelu(ImportContext& cx);
template <ir::OpKind kind>
void import_unary_as(ImportContext& cx) {
  import_unary(cx, kind);
}
// The default alpha is numerator / denominator, rounded once to float (0.01F is 1 / 100): integer
// template arguments, since clang 16 (the fuzz build's) takes no float ones.
template <ir::OpKind kind, int numerator, int denominator>
void import_unary_with_alpha_as(ImportContext& cx) {
  import_unary_with_alpha(cx, kind, static_cast<float>(numerator) / denominator);
}
template <ir::OpKind kind>
void import_binary_as(ImportContext& cx) {
  import_binary(cx, kind);
}
template <ir::OpKind kind>
void import_variadic_as(ImportContext& cx) {
  import_variadic(cx, kind);
}

// operators/comparison.cpp: one node of `kind` (broadcast_operands) over all its inputs, of any
// dtype its kind takes: the comparisons, And, Or, Xor, and Where past its softmax pattern.
void import_broadcasting(ImportContext& cx, ir::OpKind kind);
template <ir::OpKind kind>
void import_broadcasting_as(ImportContext& cx) {
  import_broadcasting(cx, kind);
}

void import_trilu(ImportContext& cx);  // operators/trilu.cpp: a where under a constant mask
void import_gather_elements(ImportContext& cx);  // operators/gather_elements.cpp
void import_cum_sum(ImportContext& cx);          // operators/cum_sum.cpp: cum_sum
void import_scatter_elements(ImportContext& cx);  // operators/scatter.cpp (and Scatter)
void import_scatter_nd(ImportContext& cx);        // operators/scatter.cpp
void import_mean_variance_normalization(ImportContext& cx);  // operators/reduce.cpp
void import_gather_nd(ImportContext& cx);                    // operators/gather_nd.cpp
void import_grid_sample(ImportContext& cx);                  // operators/grid_sample.cpp
void import_max_unpool(ImportContext& cx);                   // operators/max_unpool.cpp
void import_roi_align(ImportContext& cx);                    // operators/roi_align.cpp
void import_mod(ImportContext& cx);                          // operators/mod.cpp: mod, fmod
void import_einsum(ImportContext& cx);  // operators/einsum.cpp: permute, reduce_sum, matmul
void import_top_k(ImportContext& cx);            // operators/top_k.cpp: top_k, gather_elements
// Exact decompositions over comparisons and where: operators/threshold.cpp, classify.cpp,
// hardmax.cpp; data movement: operators/tile.cpp.
void import_thresholded_relu(ImportContext& cx);
void import_shrink(ImportContext& cx);
void import_is_nan(ImportContext& cx);
void import_is_inf(ImportContext& cx);
void import_hardmax(ImportContext& cx);
void import_tile_1(ImportContext& cx);
void import_tile(ImportContext& cx);
void import_lrn(ImportContext& cx);      // operators/lrn.cpp
void import_one_hot(ImportContext& cx);  // operators/one_hot.cpp
// operators/losses.cpp: ONNX's function bodies over gather_elements, where and sum.
void import_negative_log_likelihood_loss(ImportContext& cx);
void import_softmax_cross_entropy_loss(ImportContext& cx);

void import_mat_mul(ImportContext& cx);              // operators/matmul.cpp
void import_gemm(ImportContext& cx);                 // operators/gemm.cpp
void import_conv(ImportContext& cx);                 // operators/conv.cpp
void import_conv_transpose(ImportContext& cx);       // operators/conv.cpp
void import_max_pool(ImportContext& cx);             // operators/pooling.cpp
void import_average_pool(ImportContext& cx);         // operators/pooling.cpp
void import_global_max_pool(ImportContext& cx);      // operators/pooling.cpp
void import_global_average_pool(ImportContext& cx);  // operators/pooling.cpp
void import_batch_normalization(ImportContext& cx);  // operators/batch_norm.cpp
void import_softmax_1(ImportContext& cx);            // operators/softmax.cpp, opsets 1..12
void import_softmax_13(ImportContext& cx);           // operators/softmax.cpp, opset 13 on
void import_layer_normalization(ImportContext& cx);  // operators/layer_norm.cpp
void import_reshape(ImportContext& cx);              // operators/reshape.cpp
void import_flatten(ImportContext& cx);              // operators/reshape.cpp
void import_squeeze(ImportContext& cx);              // operators/reshape.cpp
void import_unsqueeze(ImportContext& cx);            // operators/reshape.cpp
void import_concat(ImportContext& cx);               // operators/concat.cpp
void import_transpose(ImportContext& cx);
void import_upsample(ImportContext& cx);
void import_instance_normalization(
    ImportContext& cx);  // operators/layer_norm.cpp        // operators/resize.cpp
void import_depth_to_space(ImportContext& cx);  // operators/depth_to_space.cpp
void import_space_to_depth(
    ImportContext& cx);  // operators/depth_to_space.cpp            // operators/transpose.cpp
void import_reduce_mean(ImportContext& cx);         // operators/reduce.cpp
void import_reduce_sum(ImportContext& cx);          // operators/reduce.cpp
void import_reduce_max(ImportContext& cx);          // operators/reduce.cpp
void import_reduce_min(ImportContext& cx);          // operators/reduce.cpp
void import_reduce_prod(ImportContext& cx);         // operators/reduce.cpp
void import_reduce_sum_square(ImportContext& cx);   // operators/reduce.cpp
void import_reduce_l1(ImportContext& cx);           // operators/reduce.cpp
void import_reduce_l2(ImportContext& cx);           // operators/reduce.cpp
void import_reduce_log_sum(ImportContext& cx);      // operators/reduce.cpp
void import_reduce_log_sum_exp(ImportContext& cx);  // operators/reduce.cpp
void import_arg_max(ImportContext& cx);             // operators/reduce.cpp
void import_arg_min(ImportContext& cx);             // operators/reduce.cpp
void import_pad_1(ImportContext& cx);               // operators/pad.cpp, opsets 1..10
void import_pad_11(ImportContext& cx);              // operators/pad.cpp, opset 11 on
void import_constant(ImportContext& cx);            // operators/constant.cpp
// operators/gelu.cpp: Gelu (opset 20); Erf, the erf kind outside a GELU pattern; Mul and Div, each
// a GELU pattern's first node or imported as import_binary(mul_elem) and import_div do.
void import_gelu(ImportContext& cx);
void import_erf(ImportContext& cx);
void import_mul_or_gelu(ImportContext& cx);
void import_div_or_gelu(ImportContext& cx);
// Whether the current node starts a GELU pattern, which it then imports whole.
bool import_gelu_pattern(ImportContext& cx);
void import_pow(ImportContext& cx);             // operators/pow.cpp
// operators/silu.cpp: Sigmoid, with the Mul(x, Sigmoid(x)) that reads it as one silu node.
void import_sigmoid_or_silu(ImportContext& cx);
void import_clip_1(ImportContext& cx);          // operators/clip.cpp, opsets 1..10
void import_clip_11(ImportContext& cx);         // operators/clip.cpp, opset 11 on
void import_hard_sigmoid(ImportContext& cx);    // operators/clip.cpp
void import_hard_swish(ImportContext& cx);      // operators/clip.cpp
// operators/clip.cpp: the hard_sigmoid node of max(0, min(1, alpha*x + beta)), HardSigmoid's.
ir::NodeId hard_sigmoid(ImportContext& cx, ir::NodeId x, float alpha, float beta);
// operators/recurrent.cpp: RNN, GRU and LSTM, unrolled over the sequence.
void import_rnn(ImportContext& cx);
void import_gru(ImportContext& cx);
void import_lstm(ImportContext& cx);
void import_neg(ImportContext& cx);             // operators/neg.cpp
void import_log_softmax_1(ImportContext& cx);   // operators/softmax.cpp, opsets 1..12
void import_log_softmax_13(ImportContext& cx);  // operators/softmax.cpp, opset 13 on
void import_identity(ImportContext& cx);        // operators/identity.cpp
void import_cast(ImportContext& cx);            // operators/cast.cpp
void import_cast_like(ImportContext& cx);       // operators/cast.cpp
void import_dropout(ImportContext& cx);         // operators/identity.cpp
void import_slice(ImportContext& cx);           // operators/slice.cpp
void import_split(ImportContext& cx);           // operators/slice.cpp
void import_gather(ImportContext& cx);          // operators/slice.cpp
void import_expand(ImportContext& cx);          // operators/expand.cpp
void import_where(ImportContext& cx);           // operators/where.cpp, absorbs a Softmax
// operators/where.cpp: whether `c` is a non-empty float constant of -inf (or the lowest float)
// only, which softmax weighs zero.
bool blocks(ConstTensor& c);
// operators/attention.cpp: imports the current MatMul and the nodes after it as one
// scaled_dot_product_attention node when they are that pattern, and says whether it did.
bool import_attention(ImportContext& cx);
void import_resize_10(ImportContext& cx);  // operators/resize.cpp, opset 10 and before
void import_resize_11(ImportContext& cx);  // operators/resize.cpp, opset 11 on

}  // namespace nnplan::format::onnx_import
