// Well-formedness and shape inference (SPEC §6): a valid graph for every op kind (each also run
// through infer_shape), a table of malformed graphs with the message fragment and node position
// each must report, overflow at the 64-bit edge, and infer_shape on nodes outside a checked graph.
#include "nnplan/ir/check.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "graph_fixtures.hpp"

namespace nnplan::ir {
namespace {

using fixtures::GraphBuilder;
using fixtures::one_op;
using fixtures::shape;

constexpr Dim kMax = std::numeric_limits<Dim>::max();
constexpr Dim k2to32 = Dim{1} << 32;
constexpr Dim k2to40 = Dim{1} << 40;
constexpr Dim k2to63 = Dim{1} << 63;

std::vector<std::uint32_t> each(std::size_t rank, std::uint32_t value) {
  return std::vector<std::uint32_t>(rank, value);
}

// A square window of `k` over the last `rank` axes, moved by `stride`, padded by `padding` on both
// sides.
PoolParams pool(std::uint32_t k, std::uint32_t stride, std::uint32_t padding = 0,
                std::uint32_t rank = 2) {
  return {.spatial_rank = rank,
          .kernel = each(rank, k),
          .stride = each(rank, stride),
          .padding = each(rank, padding)};
}

// A conv from `in` to `out` channels on channel axis 1 with one `kernel` entry per spatial axis,
// the same stride and symmetric padding on each, no dilation and one group.
ConvParams conv(std::uint32_t in, std::uint32_t out, std::vector<std::uint32_t> kernel,
                std::uint32_t stride = 1, std::uint32_t padding = 0) {
  const std::size_t r = kernel.size();
  return {.spatial_rank = static_cast<std::uint32_t>(r),
          .kernel = std::move(kernel),
          .stride = each(r, stride),
          .padding = each(r, padding),
          .dilation = each(r, 1),
          .padding_after = each(r, padding),
          .groups = 1,
          .channel_axis = 1,
          .in_channels = in,
          .out_channels = out};
}

// The same for conv_transpose, with no output padding.
ConvParams tconv(std::uint32_t in, std::uint32_t out, std::vector<std::uint32_t> kernel,
                 std::uint32_t stride = 1, std::uint32_t padding = 0) {
  ConvParams p = conv(in, out, std::move(kernel), stride, padding);
  p.output_padding = each(p.spatial_rank, 0);
  return p;
}

// `params` after `edit`: a variation spelled next to the case that needs it.
template <class P, class Edit>
P with(P params, Edit edit) {
  edit(params);
  return params;
}

MaskParams mask(Shape shape, std::vector<bool> allowed) {
  return {.shape = std::move(shape), .allowed = std::move(allowed)};
}
SliceParams slice(std::uint32_t axis, std::uint64_t start, std::uint64_t end, std::uint64_t step) {
  return {.axis = axis, .start = start, .end = end, .step = step};
}
TransposeParams transpose(std::uint32_t a, std::uint32_t b) {
  return {.axis1 = a, .axis2 = b};
}

AxisParams axis(std::uint32_t a) {
  return {.axis = a};
}

Graph edited(Graph graph, const std::function<void(Graph&)>& edit) {
  edit(graph);
  return graph;
}

// A chain input [2,3] -> ... with `kinds` as unary nodes; the last node is the output.
Graph unary_chain(std::initializer_list<OpKind> kinds) {
  GraphBuilder b;
  NodeId last = b.input(shape({2, 3}));
  for (const OpKind kind : kinds)
    last = b.add(kind, {last}, shape({2, 3}));
  return std::move(b).build();
}

// ---------------------------------------------------------------------------------------------
// Valid graphs

struct ValidCase {
  std::string name;
  Graph graph;
  Shape output;  // the inferred (and declared) shape of the output node
};

// An MLP: flatten, linear, relu, linear, softmax.
Graph mlp() {
  GraphBuilder b;
  const NodeId x = b.input(shape({8, 1, 28, 28}));
  const NodeId r = b.add(OpKind::reshape, {x}, shape({8, 784}),
                         ReshapeParams{.in = shape({8, 1, 28, 28}), .out = shape({8, 784})});
  const NodeId h = b.add(OpKind::linear, {r}, shape({8, 128}));
  const NodeId a = b.add(OpKind::relu, {h}, shape({8, 128}));
  const NodeId o = b.add(OpKind::linear, {a}, shape({8, 10}));
  b.add(OpKind::softmax, {o}, shape({8, 10}), axis(1));
  return std::move(b).build();
}

// A CNN on a batch of one NCHW image: conv, batch norm, relu, pool, flatten, linear.
Graph cnn() {
  GraphBuilder b;
  const NodeId x = b.input(shape({1, 3, 32, 32}));
  const NodeId c = b.add(OpKind::conv, {x}, shape({1, 16, 32, 32}), conv(3, 16, {3, 3}, 1, 1));
  const NodeId n = b.add(OpKind::batch_norm_eval, {c}, shape({1, 16, 32, 32}),
                         ChannelAxisParams{.channel_axis = 1, .channels = 16});
  const NodeId a = b.add(OpKind::relu, {n}, shape({1, 16, 32, 32}));
  const NodeId p = b.add(OpKind::max_pool, {a}, shape({1, 16, 16, 16}), pool(2, 2));
  const NodeId f =
      b.add(OpKind::flatten, {p}, shape({4096}), FlattenParams{.in = shape({1, 16, 16, 16})});
  b.add(OpKind::linear, {f}, shape({10}));
  return std::move(b).build();
}

// Attention-like block: layernorm, matmul against a transposed copy, softmax, residual add.
Graph block() {
  GraphBuilder b;
  const NodeId x = b.input(shape({4, 6, 8}));
  const NodeId n = b.add(OpKind::layernorm, {x}, shape({4, 6, 8}), axis(2));
  const NodeId t = b.add(OpKind::transpose, {n}, shape({4, 8, 6}), transpose(1, 2));
  const NodeId s = b.add(OpKind::matmul, {n, t}, shape({4, 6, 6}));
  const NodeId p = b.add(OpKind::softmax, {s}, shape({4, 6, 6}), axis(2));
  const NodeId v = b.add(OpKind::matmul, {p, n}, shape({4, 6, 8}));
  b.add(OpKind::add, {v, x}, shape({4, 6, 8}));
  return std::move(b).build();
}

// A transformer step with every extension kind: attention over q, k, v cut from one input, a
// masked softmax, gelu, clamp, scale, a gathered embedding, log_softmax; two outputs.
Graph extended_block() {
  GraphBuilder b;
  const NodeId x = b.input(shape({2, 12, 8}));
  const NodeId q = b.add(OpKind::slice, {x}, shape({2, 4, 8}), slice(1, 0, 4, 1));
  const NodeId k = b.add(OpKind::slice, {x}, shape({2, 4, 8}), slice(1, 4, 8, 1));
  const NodeId v = b.add(OpKind::slice, {x}, shape({2, 4, 8}), slice(1, 8, 12, 1));
  const NodeId a = b.add(OpKind::scaled_dot_product_attention, {q, k, v}, shape({2, 4, 8}),
                         AttentionParams{.causal = true, .scale = std::nullopt});
  const NodeId g = b.add(OpKind::gelu, {a}, shape({2, 4, 8}),
                         GeluParams{.approximate = GeluApproximation::tanh});
  const NodeId c = b.add(OpKind::clamp, {g}, shape({2, 4, 8}), ClampParams{.min = -1.0F});
  const NodeId s = b.add(OpKind::scale, {c}, shape({2, 4, 8}), ScaleParams{.factor = 0.5F});
  const NodeId m = b.add(OpKind::hard_masked_softmax, {s}, shape({2, 4, 8}),
                         mask(shape({8}), {true, true, false, true, true, true, true, false}));
  const NodeId e = b.add(OpKind::gather, {m}, shape({2, 4, 3}), axis(2));
  const NodeId l = b.add(OpKind::log_softmax, {e}, shape({2, 4, 3}), axis(2));
  b.graph().output_ids = {l, m};
  return std::move(b).build();
}

// Dropout-style mask: a scalar keep probability feeding bernoulli_mask, then mul_elem.
Graph dropout() {
  GraphBuilder b;
  const NodeId x = b.input(shape({2, 5}));
  const NodeId keep = b.add(OpKind::const_, {}, shape({}), ConstParams{shape({})});
  const NodeId m = b.add(OpKind::bernoulli_mask, {keep}, shape({2, 5}), SeedParams{42});
  b.add(OpKind::mul_elem, {x, m}, shape({2, 5}));
  return std::move(b).build();
}

std::vector<ValidCase> valid_cases() {
  std::vector<ValidCase> cases = {
      {"input", one_op({}, OpKind::input, shape({2, 3})), shape({2, 3})},
      {"input_scalar", one_op({}, OpKind::input, shape({})), shape({})},
      {"const", one_op({}, OpKind::const_, shape({2, 2}), ConstParams{shape({2, 2})}),
       shape({2, 2})},
      {"rand_uniform", one_op({}, OpKind::rand_uniform, shape({3, 4}), SeedParams{7}),
       shape({3, 4})},
      {"bernoulli_mask", one_op({shape({})}, OpKind::bernoulli_mask, shape({4, 5}), SeedParams{1}),
       shape({4, 5})},
      // max_pool, avg_pool: any spatial rank over the last axes, leading axes kept.
      // Padding may reach or pass the kernel (windows wholly in the padding): legacy max_pool2d_pad
      // graphs did, and ONNX sets no bound.
      {"max_pool_padding_equals_kernel",
       one_op({shape({1, 4, 4})}, OpKind::max_pool, shape({1, 6, 6}), pool(1, 1, 1)),
       shape({1, 6, 6})},
      {"avg_pool_padding_above_kernel",
       one_op({shape({1, 4, 4})}, OpKind::avg_pool, shape({1, 9, 9}), pool(2, 1, 3)),
       shape({1, 9, 9})},
      {"max_pool_chw", one_op({shape({3, 8, 8})}, OpKind::max_pool, shape({3, 4, 4}), pool(2, 2)),
       shape({3, 4, 4})},
      {"max_pool_nchw",
       one_op({shape({2, 3, 8, 8})}, OpKind::max_pool, shape({2, 3, 7, 7}), pool(2, 1)),
       shape({2, 3, 7, 7})},
      {"max_pool_padded",
       one_op({shape({3, 7, 7})}, OpKind::max_pool, shape({3, 4, 4}), pool(3, 2, 1)),
       shape({3, 4, 4})},
      {"avg_pool_nchw",
       one_op({shape({2, 3, 6, 6})}, OpKind::avg_pool, shape({2, 3, 2, 2}), pool(3, 3)),
       shape({2, 3, 2, 2})},
      {"avg_pool_remainder_dropped",
       one_op({shape({1, 7, 5})}, OpKind::avg_pool, shape({1, 3, 2}), pool(2, 2)),
       shape({1, 3, 2})},
      {"avg_pool_padded",
       one_op({shape({3, 5, 5})}, OpKind::avg_pool, shape({3, 5, 5}), pool(3, 1, 1)),
       shape({3, 5, 5})},
      {"pool_rectangular_kernel",
       one_op({shape({1, 6, 9})}, OpKind::max_pool, shape({1, 5, 7}),
              PoolParams{.spatial_rank = 2, .kernel = {2, 3}, .stride = {1, 1}, .padding = {0, 0}}),
       shape({1, 5, 7})},
      {"pool_per_axis_stride_and_padding",
       one_op({shape({1, 5, 6})}, OpKind::avg_pool, shape({1, 5, 3}),
              PoolParams{.spatial_rank = 2, .kernel = {3, 1}, .stride = {1, 2}, .padding = {1, 0}}),
       shape({1, 5, 3})},
      {"max_pool_1d",
       one_op({shape({2, 3, 10})}, OpKind::max_pool, shape({2, 3, 5}), pool(3, 2, 1, 1)),
       shape({2, 3, 5})},
      {"avg_pool_3d",
       one_op({shape({1, 2, 4, 4, 4})}, OpKind::avg_pool, shape({1, 2, 2, 2, 2}), pool(2, 2, 0, 3)),
       shape({1, 2, 2, 2, 2})},
      {"pool_without_leading_axes",
       one_op({shape({8})}, OpKind::max_pool, shape({4}), pool(2, 2, 0, 1)), shape({4})},
      {"broadcast_to_prefix",
       one_op({shape({3})}, OpKind::broadcast_to, shape({2, 3}),
              BroadcastParams{shape({3}), shape({2, 3})}),
       shape({2, 3})},
      {"broadcast_to_scalar",
       one_op({shape({})}, OpKind::broadcast_to, shape({4, 5}),
              BroadcastParams{shape({}), shape({4, 5})}),
       shape({4, 5})},
      {"broadcast_to_stretch",
       one_op({shape({2, 1})}, OpKind::broadcast_to, shape({5, 2, 7}),
              BroadcastParams{shape({2, 1}), shape({5, 2, 7})}),
       shape({5, 2, 7})},
      {"broadcast_to_same",
       one_op({shape({2, 3})}, OpKind::broadcast_to, shape({2, 3}),
              BroadcastParams{shape({2, 3}), shape({2, 3})}),
       shape({2, 3})},
      {"broadcast_one_to_zero",
       one_op({shape({1})}, OpKind::broadcast_to, shape({0}),
              BroadcastParams{shape({1}), shape({0})}),
       shape({0})},
      {"reduce_sum", one_op({shape({2, 3, 4})}, OpKind::reduce_sum, shape({2, 4}), axis(1)),
       shape({2, 4})},
      {"reduce_mean_to_scalar", one_op({shape({5})}, OpKind::reduce_mean, shape({}), axis(0)),
       shape({})},
      {"reduce_mean_last", one_op({shape({2, 3, 4})}, OpKind::reduce_mean, shape({2, 3}), axis(2)),
       shape({2, 3})},
      {"reduce_max", one_op({shape({2, 3, 4})}, OpKind::reduce_max, shape({2, 4}), axis(1)),
       shape({2, 4})},
      {"reduce_min_to_scalar", one_op({shape({5})}, OpKind::reduce_min, shape({}), axis(0)),
       shape({})},
      {"reduce_prod_last", one_op({shape({2, 3, 4})}, OpKind::reduce_prod, shape({2, 3}), axis(2)),
       shape({2, 3})},
      {"argmax", one_op({shape({2, 3, 4})}, OpKind::argmax, shape({2, 4}), axis(1)), shape({2, 4})},
      {"argmin_to_scalar", one_op({shape({5})}, OpKind::argmin, shape({}), axis(0)), shape({})},
      // The comparisons, logic ops and where broadcast their operands as numpy does.
      {"equal_broadcast", one_op({shape({2, 1}), shape({3})}, OpKind::equal, shape({2, 3})),
       shape({2, 3})},
      {"less_same", one_op({shape({4}), shape({4})}, OpKind::less, shape({4})), shape({4})},
      {"less_or_equal_scalar",
       one_op({shape({}), shape({2, 2})}, OpKind::less_or_equal, shape({2, 2})), shape({2, 2})},
      {"greater_zero", one_op({shape({0, 3}), shape({1, 3})}, OpKind::greater, shape({0, 3})),
       shape({0, 3})},
      {"greater_or_equal",
       one_op({shape({3, 1, 2}), shape({4, 1})}, OpKind::greater_or_equal, shape({3, 4, 2})),
       shape({3, 4, 2})},
      {"and", one_op({shape({2, 3}), shape({2, 3})}, OpKind::and_, shape({2, 3})), shape({2, 3})},
      {"or", one_op({shape({1}), shape({5})}, OpKind::or_, shape({5})), shape({5})},
      {"xor", one_op({shape({2, 1}), shape({1, 2})}, OpKind::xor_, shape({2, 2})), shape({2, 2})},
      {"not", one_op({shape({2, 3})}, OpKind::not_, shape({2, 3})), shape({2, 3})},
      {"where", one_op({shape({2, 1}), shape({3}), shape({})}, OpKind::where, shape({2, 3})),
       shape({2, 3})},
      {"cast", one_op({shape({2, 3})}, OpKind::cast, shape({2, 3})), shape({2, 3})},
      {"erf", one_op({shape({2, 3})}, OpKind::erf, shape({2, 3})), shape({2, 3})},
      {"pow", one_op({shape({2, 3}), shape({2, 3})}, OpKind::pow, shape({2, 3})), shape({2, 3})},
      // top_k: the parent's shape with the axis cut to k (k = 0 and k = extent included).
      {"top_k", one_op({shape({2, 5})}, OpKind::top_k, shape({2, 3}), TopKParams{.axis = 1}),
       shape({2, 3})},
      {"top_k_all_smallest",
       one_op(
           {
               shape({4, 3}),
           },
           OpKind::top_k, shape({4, 3}), TopKParams{.axis = 0, .largest = false}),
       shape({4, 3})},
      {"top_k_none", one_op({shape({4})}, OpKind::top_k, shape({0}), TopKParams{.axis = 0}),
       shape({0})},
      // cum_sum: the parent's shape and dtype, the axis in range.
      {"cum_sum",
       one_op({shape({2, 5})}, OpKind::cum_sum, shape({2, 5}),
              CumSumParams{.axis = 1, .exclusive = true}),
       shape({2, 5})},
      // scatter_elements: the data's shape; indices of its rank, updates of theirs.
      {"scatter_elements",
       one_op({shape({3, 4}), shape({2, 6}), shape({2, 6})}, OpKind::scatter_elements,
              shape({3, 4}), ScatterParams{.axis = 1, .reduction = ScatterReduction::add}),
       shape({3, 4})},
      // scatter_nd: the data's shape; updates of the indices' leading shape then the data's rest.
      {"scatter_nd_slices",
       one_op({shape({4, 5, 6}), shape({2, 3, 1}), shape({2, 3, 5, 6})}, OpKind::scatter_nd,
              shape({4, 5, 6}), ScatterParams{}),
       shape({4, 5, 6})},
      {"scatter_nd_elements",
       one_op({shape({4, 5}), shape({7, 2}), shape({7})}, OpKind::scatter_nd, shape({4, 5}),
              ScatterParams{}),
       shape({4, 5})},
      // gather_nd: the indices' leading shape, then the data's after batch_dims + k.
      {"gather_nd",
       one_op({shape({4, 5, 6}), shape({2, 3, 2})}, OpKind::gather_nd, shape({2, 3, 6}),
              GatherNdParams{}),
       shape({2, 3, 6})},
      {"gather_nd_batched",
       one_op({shape({2, 5, 6}), shape({2, 3, 1})}, OpKind::gather_nd, shape({2, 3, 6}),
              GatherNdParams{.batch_dims = 1}),
       shape({2, 3, 6})},
      // mod (int64) and fmod: the operands broadcast as numpy does.
      {"mod", one_op({shape({2, 1}), shape({3})}, OpKind::mod, shape({2, 3})), shape({2, 3})},
      {"fmod", one_op({shape({4}), shape({})}, OpKind::fmod, shape({4})), shape({4})},
      // max_unpool: the declared shape, X's rank, N and C; indices of X's shape.
      {"max_unpool",
       one_op({shape({1, 2, 2, 3}), shape({1, 2, 2, 3})}, OpKind::max_unpool, shape({1, 2, 4, 5})),
       shape({1, 2, 4, 5})},
      // resize: the declared shape, floor(input * scale) per axis when scales are given.
      {"resize_by_scales",
       one_op({shape({1, 2, 5, 4})}, OpKind::resize, shape({1, 2, 3, 10}),
              ResizeParams{.mode = SampleMode::linear, .scales = {1, 1, 0.6F, 2.5F}}),
       shape({1, 2, 3, 10})},
      {"resize_by_sizes", one_op({shape({2, 3})}, OpKind::resize, shape({7, 1}), ResizeParams{}),
       shape({7, 1})},
      // max_pool_indices: a dilated window with padding before and after.
      {"max_pool_indices",
       one_op({shape({2, 3, 11})}, OpKind::max_pool_indices, shape({2, 3, 5}),
              MaxPoolIndicesParams{.spatial_rank = 1,
                                   .kernel = {3},
                                   .stride = {2},
                                   .padding = {1},
                                   .padding_after = {2},
                                   .dilation = {2}}),
       shape({2, 3, 5})},
      // roi_align: X [N, C, H, W], rois [R, 4], batch indices [R] to [R, C, oh, ow].
      {"roi_align",
       one_op({shape({2, 3, 8, 8}), shape({5, 4}), shape({5})}, OpKind::roi_align,
              shape({5, 3, 2, 3}), RoiAlignParams{}),
       shape({5, 3, 2, 3})},
      // grid_sample: X [N, C, H, W] read at grid [N, H_out, W_out, 2].
      {"grid_sample",
       one_op({shape({2, 3, 5, 6}), shape({2, 4, 7, 2})}, OpKind::grid_sample, shape({2, 3, 4, 7}),
              GridSampleParams{}),
       shape({2, 3, 4, 7})},
      // rnn, gru, lstm: X [seq, batch, input] to Y [seq, directions, batch, hidden].
      {"rnn",
       one_op({shape({5, 2, 3})}, OpKind::rnn, shape({5, 1, 2, 4}),
              RecurrentParams{.hidden_size = 4}),
       shape({5, 1, 2, 4})},
      {"gru_bidirectional_with_state",
       one_op({shape({5, 2, 3}), shape({2, 2, 4})}, OpKind::gru, shape({5, 2, 2, 4}),
              RecurrentParams{.hidden_size = 4,
                              .direction = RecurrentDirection::bidirectional,
                              .linear_before_reset = true}),
       shape({5, 2, 2, 4})},
      {"lstm_both_states",
       one_op({shape({1, 3, 2}), shape({1, 3, 6}), shape({1, 3, 6})}, OpKind::lstm,
              shape({1, 1, 3, 6}),
              RecurrentParams{.hidden_size = 6, .direction = RecurrentDirection::reverse}),
       shape({1, 1, 3, 6})},
      // gather_elements: the indices' shape, longer than the data only along the axis.
      {"gather_elements",
       one_op({shape({2, 3}), shape({2, 5})}, OpKind::gather_elements, shape({2, 5}), axis(1)),
       shape({2, 5})},
      {"sum", one_op({shape({2, 3})}, OpKind::sum, shape({})), shape({})},
      {"matmul", one_op({shape({2, 3}), shape({3, 4})}, OpKind::matmul, shape({2, 4})),
       shape({2, 4})},
      {"matmul_batched",
       one_op({shape({5, 2, 3}), shape({5, 3, 4})}, OpKind::matmul, shape({5, 2, 4})),
       shape({5, 2, 4})},
      // torch.matmul: a rank-1 operand is promoted and its axis dropped; batch axes broadcast.
      {"matmul_vector_dot", one_op({shape({3}), shape({3})}, OpKind::matmul, shape({})), shape({})},
      {"matmul_vector_matrix", one_op({shape({3}), shape({3, 4})}, OpKind::matmul, shape({4})),
       shape({4})},
      {"matmul_matrix_vector", one_op({shape({2, 3}), shape({3})}, OpKind::matmul, shape({2})),
       shape({2})},
      {"matmul_vector_batched",
       one_op({shape({3}), shape({5, 3, 4})}, OpKind::matmul, shape({5, 4})), shape({5, 4})},
      {"matmul_batched_vector",
       one_op({shape({5, 2, 3}), shape({3})}, OpKind::matmul, shape({5, 2})), shape({5, 2})},
      {"matmul_batch_against_matrix",
       one_op({shape({5, 2, 3}), shape({3, 4})}, OpKind::matmul, shape({5, 2, 4})),
       shape({5, 2, 4})},
      {"matmul_matrix_against_batch",
       one_op({shape({2, 3}), shape({5, 3, 4})}, OpKind::matmul, shape({5, 2, 4})),
       shape({5, 2, 4})},
      {"matmul_batch_broadcasts",
       one_op({shape({2, 1, 2, 3}), shape({5, 3, 4})}, OpKind::matmul, shape({2, 5, 2, 4})),
       shape({2, 5, 2, 4})},
      {"matmul_batch_one_stretches_to_zero",
       one_op({shape({0, 2, 3}), shape({1, 3, 4})}, OpKind::matmul, shape({0, 2, 4})),
       shape({0, 2, 4})},
      {"linear", one_op({shape({8, 16})}, OpKind::linear, shape({8, 10})), shape({8, 10})},
      {"linear_vector", one_op({shape({4})}, OpKind::linear, shape({7})), shape({7})},
      {"linear_rank3", one_op({shape({2, 3, 16})}, OpKind::linear, shape({2, 3, 32})),
       shape({2, 3, 32})},
      // conv: any spatial rank after channel_axis.
      {"conv_1d", one_op({shape({2, 3, 10})}, OpKind::conv, shape({2, 4, 8}), conv(3, 4, {3})),
       shape({2, 4, 8})},
      // weights as values: the weight and the bias as parents 1 and 2.
      {"conv_weight_and_bias_as_values",
       one_op({shape({2, 3, 10}), shape({4, 3, 3}), shape({4})}, OpKind::conv, shape({2, 4, 8}),
              conv(3, 4, {3})),
       shape({2, 4, 8})},
      {"conv_2d_nchw",
       one_op({shape({2, 3, 28, 28})}, OpKind::conv, shape({2, 6, 24, 24}), conv(3, 6, {5, 5})),
       shape({2, 6, 24, 24})},
      {"conv_2d_same_padding",
       one_op({shape({1, 3, 32, 32})}, OpKind::conv, shape({1, 16, 32, 32}),
              conv(3, 16, {3, 3}, 1, 1)),
       shape({1, 16, 32, 32})},
      {"conv_3d",  // (8 + 2 - 3) / 2 + 1 = 4
       one_op({shape({1, 2, 8, 8, 8})}, OpKind::conv, shape({1, 4, 4, 4, 4}),
              conv(2, 4, {3, 3, 3}, 2, 1)),
       shape({1, 4, 4, 4, 4})},
      {"conv_strided",
       one_op({shape({1, 1, 9, 10})}, OpKind::conv, shape({1, 4, 4, 4}), conv(1, 4, {3, 3}, 2)),
       shape({1, 4, 4, 4})},
      {"conv_per_axis_stride",
       one_op({shape({1, 1, 6, 6})}, OpKind::conv, shape({1, 1, 5, 3}),
              with(conv(1, 1, {2, 2}),
                   [](ConvParams& p) {
                     p.stride = {1, 2};
                   })),
       shape({1, 1, 5, 3})},
      {"conv_rectangular",
       one_op({shape({1, 2, 5, 7})}, OpKind::conv, shape({1, 3, 5, 5}), conv(2, 3, {1, 3})),
       shape({1, 3, 5, 5})},
      {"conv_kernel_equals_input",
       one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 2, 1, 1}), conv(1, 2, {4, 4}, 3)),
       shape({1, 2, 1, 1})},
      {"conv_grouped",
       one_op({shape({1, 4, 6, 6})}, OpKind::conv, shape({1, 6, 4, 4}),
              with(conv(4, 6, {3, 3}), [](ConvParams& p) { p.groups = 2; })),
       shape({1, 6, 4, 4})},
      {"conv_depthwise",
       one_op({shape({1, 8, 5, 5})}, OpKind::conv, shape({1, 8, 5, 5}),
              with(conv(8, 8, {3, 3}, 1, 1), [](ConvParams& p) { p.groups = 8; })),
       shape({1, 8, 5, 5})},
      {"conv_depthwise_multiplier",
       one_op({shape({1, 8, 5, 5})}, OpKind::conv, shape({1, 16, 5, 5}),
              with(conv(8, 16, {3, 3}, 1, 1), [](ConvParams& p) { p.groups = 8; })),
       shape({1, 16, 5, 5})},
      {"conv_dilated",  // windows of 2*2+1 = 5 and 3*2+1 = 7
       one_op({shape({1, 1, 10, 10})}, OpKind::conv, shape({1, 1, 6, 4}),
              with(conv(1, 1, {3, 3}),
                   [](ConvParams& p) {
                     p.dilation = {2, 3};
                   })),
       shape({1, 1, 6, 4})},
      {"conv_asymmetric_padding",  // 5+1+0-3+1 = 4 and 5+0+2-3+1 = 5
       one_op({shape({1, 1, 5, 5})}, OpKind::conv, shape({1, 1, 4, 5}),
              with(conv(1, 1, {3, 3}),
                   [](ConvParams& p) {
                     p.padding = {1, 0};
                     p.padding_after = {0, 2};
                   })),
       shape({1, 1, 4, 5})},
      {"conv_channel_axis_0",
       one_op({shape({3, 32, 32})}, OpKind::conv, shape({16, 32, 32}),
              with(conv(3, 16, {3, 3}, 1, 1), [](ConvParams& p) { p.channel_axis = 0; })),
       shape({16, 32, 32})},
      {"conv_channel_axis_2",
       one_op({shape({2, 5, 3, 9})}, OpKind::conv, shape({2, 5, 4, 7}),
              with(conv(3, 4, {3}), [](ConvParams& p) { p.channel_axis = 2; })),
       shape({2, 5, 4, 7})},
      // conv_transpose: (in-1)*stride - padding - padding_after + dilation*(kernel-1) +
      // output_padding + 1 on each spatial axis.
      {"conv_transpose_stride_2",  // (2-1)*2 + 1 + 1 = 4
       one_op({shape({1, 4, 2, 2})}, OpKind::conv_transpose, shape({1, 8, 4, 4}),
              tconv(4, 8, {2, 2}, 2)),
       shape({1, 8, 4, 4})},
      {"conv_transpose_same_padding",  // 4 + 2 + 1 - 2 = 5
       one_op({shape({1, 3, 5, 5})}, OpKind::conv_transpose, shape({1, 2, 5, 5}),
              tconv(3, 2, {3, 3}, 1, 1)),
       shape({1, 2, 5, 5})},
      {"conv_transpose_output_padding",  // 4 + 2 + 1 + 1 - 2 = 6 and 4 + 2 + 0 + 1 - 2 = 5
       one_op({shape({1, 1, 3, 3})}, OpKind::conv_transpose, shape({1, 1, 6, 5}),
              with(tconv(1, 1, {3, 3}, 2, 1),
                   [](ConvParams& p) {
                     p.output_padding = {1, 0};
                   })),
       shape({1, 1, 6, 5})},
      {"conv_transpose_dilated_1d",  // 3 + 2*2 + 1 + 1 = 9; output padding below the dilation
       one_op({shape({1, 1, 4})}, OpKind::conv_transpose, shape({1, 1, 9}),
              with(tconv(1, 1, {3}),
                   [](ConvParams& p) {
                     p.dilation = {2};
                     p.output_padding = {1};
                   })),
       shape({1, 1, 9})},
      {"conv_transpose_grouped",
       one_op({shape({2, 4, 3, 3})}, OpKind::conv_transpose, shape({2, 6, 4, 4}),
              with(tconv(4, 6, {2, 2}), [](ConvParams& p) { p.groups = 2; })),
       shape({2, 6, 4, 4})},
      {"conv_transpose_asymmetric_padding",  // 3*2 + 2 + 1 = 9, less 1 and less 2
       one_op({shape({1, 1, 4, 4})}, OpKind::conv_transpose, shape({1, 1, 8, 7}),
              with(tconv(1, 1, {3, 3}, 2),
                   [](ConvParams& p) {
                     p.padding = {1, 0};
                     p.padding_after = {0, 2};
                   })),
       shape({1, 1, 8, 7})},
      {"conv_transpose_3d_channel_axis_0",  // (3-1)*2 + 1 + 1 = 6
       one_op({shape({2, 3, 3, 3})}, OpKind::conv_transpose, shape({5, 6, 6, 6}),
              with(tconv(2, 5, {2, 2, 2}, 2), [](ConvParams& p) { p.channel_axis = 0; })),
       shape({5, 6, 6, 6})},
      // batch_norm_eval: the channel axis anywhere.
      {"batch_norm_eval_nchw",
       one_op({shape({2, 16, 8, 8})}, OpKind::batch_norm_eval, shape({2, 16, 8, 8}),
              ChannelAxisParams{.channel_axis = 1, .channels = 16}),
       shape({2, 16, 8, 8})},
      {"batch_norm_eval_channel_axis_0",
       one_op({shape({16, 8, 8})}, OpKind::batch_norm_eval, shape({16, 8, 8}),
              ChannelAxisParams{.channel_axis = 0, .channels = 16}),
       shape({16, 8, 8})},
      {"batch_norm_eval_channels_last",
       one_op({shape({2, 5, 7})}, OpKind::batch_norm_eval, shape({2, 5, 7}),
              ChannelAxisParams{.channel_axis = 2, .channels = 7}),
       shape({2, 5, 7})},
      {"batch_norm_eval_rank_2",
       one_op({shape({4, 6})}, OpKind::batch_norm_eval, shape({4, 6}),
              ChannelAxisParams{.channel_axis = 1, .channels = 6}),
       shape({4, 6})},
      {"softmax", one_op({shape({2, 10})}, OpKind::softmax, shape({2, 10}), axis(1)),
       shape({2, 10})},
      {"softmax_first_axis", one_op({shape({2, 10})}, OpKind::softmax, shape({2, 10}), axis(0)),
       shape({2, 10})},
      {"layernorm", one_op({shape({2, 5, 8})}, OpKind::layernorm, shape({2, 5, 8}), axis(2)),
       shape({2, 5, 8})},
      {"layernorm_all_axes",
       one_op({shape({2, 5, 8})}, OpKind::layernorm, shape({2, 5, 8}), axis(0)), shape({2, 5, 8})},
      {"reshape",
       one_op({shape({2, 3, 4})}, OpKind::reshape, shape({6, 4}),
              ReshapeParams{shape({2, 3, 4}), shape({6, 4})}),
       shape({6, 4})},
      {"reshape_to_scalar",
       one_op({shape({1, 1})}, OpKind::reshape, shape({}), ReshapeParams{shape({1, 1}), shape({})}),
       shape({})},
      {"flatten",
       one_op({shape({2, 3, 4})}, OpKind::flatten, shape({24}), FlattenParams{shape({2, 3, 4})}),
       shape({24})},
      {"flatten_scalar", one_op({shape({})}, OpKind::flatten, shape({1}), FlattenParams{shape({})}),
       shape({1})},
      {"concat", one_op({shape({2, 3}), shape({2, 5})}, OpKind::concat, shape({2, 8}), axis(1)),
       shape({2, 8})},
      {"concat_three",
       one_op({shape({1, 4}), shape({2, 4}), shape({3, 4})}, OpKind::concat, shape({6, 4}),
              axis(0)),
       shape({6, 4})},
      {"transpose_first_two",
       one_op({shape({2, 3, 4})}, OpKind::transpose, shape({3, 2, 4}), transpose(0, 1)),
       shape({3, 2, 4})},
      {"transpose_last_two",
       one_op({shape({2, 3, 4})}, OpKind::transpose, shape({2, 4, 3}), transpose(1, 2)),
       shape({2, 4, 3})},
      {"transpose_reversed_axes",
       one_op({shape({2, 3, 4})}, OpKind::transpose, shape({4, 3, 2}), transpose(2, 0)),
       shape({4, 3, 2})},
      {"transpose_same_axis",
       one_op({shape({2, 3})}, OpKind::transpose, shape({2, 3}), transpose(1, 1)), shape({2, 3})},
      {"transpose_matrix",
       one_op({shape({2, 3})}, OpKind::transpose, shape({3, 2}), transpose(0, 1)), shape({3, 2})},
      {"permute",
       one_op({shape({2, 3, 4})}, OpKind::permute, shape({4, 2, 3}), PermuteParams{{2, 0, 1}}),
       shape({4, 2, 3})},
      {"permute_identity",
       one_op({shape({2, 3})}, OpKind::permute, shape({2, 3}), PermuteParams{{0, 1}}),
       shape({2, 3})},
      {"permute_scalar", one_op({shape({})}, OpKind::permute, shape({}), PermuteParams{{}}),
       shape({})},
      {"mse_loss", one_op({shape({2, 3}), shape({2, 3})}, OpKind::mse_loss, shape({})), shape({})},
      // safe_log: x and a scalar epsilon.
      {"safe_log", one_op({shape({2, 3}), shape({})}, OpKind::safe_log, shape({2, 3})),
       shape({2, 3})},
      {"safe_log_scalar", one_op({shape({}), shape({})}, OpKind::safe_log, shape({})), shape({})},
      // hard_masked_softmax: the mask is the parent's trailing axes.
      {"hard_masked_softmax_last_axis",
       one_op({shape({2, 3})}, OpKind::hard_masked_softmax, shape({2, 3}),
              mask(shape({3}), {true, false, true})),
       shape({2, 3})},
      {"hard_masked_softmax_full_rank_mask",
       one_op({shape({2, 3})}, OpKind::hard_masked_softmax, shape({2, 3}),
              mask(shape({2, 3}), {true, false, true, false, false, false})),
       shape({2, 3})},
      {"hard_masked_softmax_broadcast_over_heads",
       one_op({shape({4, 2, 3})}, OpKind::hard_masked_softmax, shape({4, 2, 3}),
              mask(shape({2, 3}), {true, false, false, true, true, false})),
       shape({4, 2, 3})},
      {"hard_masked_softmax_empty_mask",
       one_op({shape({2, 0})}, OpKind::hard_masked_softmax, shape({2, 0}), mask(shape({0}), {})),
       shape({2, 0})},
      // slice: Python's start:end:step with the bounds clamped.
      {"slice_step", one_op({shape({10})}, OpKind::slice, shape({2}), slice(0, 2, 8, 3)),
       shape({2})},
      {"slice_end_clamped",
       one_op({shape({4, 6})}, OpKind::slice, shape({4, 3}), slice(1, 1, 100, 2)), shape({4, 3})},
      {"slice_whole_axis", one_op({shape({5})}, OpKind::slice, shape({5}), slice(0, 0, 5, 1)),
       shape({5})},
      {"slice_step_past_the_end",
       one_op({shape({5})}, OpKind::slice, shape({1}), slice(0, 0, 5, 10)), shape({1})},
      {"slice_start_past_the_extent",
       one_op({shape({4, 6})}, OpKind::slice, shape({0, 6}), slice(0, 7, 9, 1)), shape({0, 6})},
      {"slice_start_after_end", one_op({shape({5})}, OpKind::slice, shape({0}), slice(0, 3, 1, 1)),
       shape({0})},
      {"slice_huge_bounds",
       one_op({shape({5})}, OpKind::slice, shape({1}), slice(0, 2, kMax, kMax)), shape({1})},
      // gather: the declared shape is the parent's with the axis replaced by the indices'.
      {"gather_rows", one_op({shape({4, 5})}, OpKind::gather, shape({3, 5}), axis(0)),
       shape({3, 5})},
      {"gather_matrix_of_indices",
       one_op({shape({4, 5})}, OpKind::gather, shape({4, 2, 3}), axis(1)), shape({4, 2, 3})},
      {"gather_scalar_index", one_op({shape({4, 5})}, OpKind::gather, shape({5}), axis(0)),
       shape({5})},
      {"gather_scalar_index_last_axis",
       one_op({shape({4, 5})}, OpKind::gather, shape({4}), axis(1)), shape({4})},
      // scaled_dot_product_attention: (..., L, E), (..., S, E), (..., S, Ev) -> (..., L, Ev).
      {"attention",
       one_op({shape({2, 5, 8}), shape({2, 6, 8}), shape({2, 6, 3})},
              OpKind::scaled_dot_product_attention, shape({2, 5, 3}), AttentionParams{}),
       shape({2, 5, 3})},
      {"attention_rank_2",
       one_op({shape({5, 8}), shape({6, 8}), shape({6, 8})}, OpKind::scaled_dot_product_attention,
              shape({5, 8}), AttentionParams{.causal = true, .scale = 0.125F}),
       shape({5, 8})},
      {"attention_heads",
       one_op({shape({1, 2, 5, 4}), shape({1, 2, 7, 4}), shape({1, 2, 7, 6})},
              OpKind::scaled_dot_product_attention, shape({1, 2, 5, 6}),
              AttentionParams{.causal = true}),
       shape({1, 2, 5, 6})},
      // The extension kinds that keep the parent's shape.
      {"gelu", one_op({shape({2, 3})}, OpKind::gelu, shape({2, 3}), GeluParams{}), shape({2, 3})},
      {"gelu_tanh",
       one_op({shape({4})}, OpKind::gelu, shape({4}),
              GeluParams{.approximate = GeluApproximation::tanh}),
       shape({4})},
      {"clamp",
       one_op({shape({2, 3})}, OpKind::clamp, shape({2, 3}), ClampParams{.min = 0.0F, .max = 6.0F}),
       shape({2, 3})},
      {"clamp_unbounded", one_op({shape({})}, OpKind::clamp, shape({}), ClampParams{}), shape({})},
      {"leaky_relu",
       one_op({shape({2, 3})}, OpKind::leaky_relu, shape({2, 3}), AlphaParams{.alpha = 0.01F}),
       shape({2, 3})},
      {"hard_sigmoid",
       one_op({shape({2, 3})}, OpKind::hard_sigmoid, shape({2, 3}),
              HardSigmoidParams{.alpha = 0.2F, .beta = 0.5F}),
       shape({2, 3})},
      {"elu", one_op({shape({2, 3})}, OpKind::elu, shape({2, 3}), AlphaParams{.alpha = 1.0F}),
       shape({2, 3})},
      {"scale", one_op({shape({2, 3})}, OpKind::scale, shape({2, 3}), ScaleParams{.factor = -2.5F}),
       shape({2, 3})},
      {"log_softmax", one_op({shape({2, 10})}, OpKind::log_softmax, shape({2, 10}), axis(1)),
       shape({2, 10})},
      {"log_softmax_first_axis",
       one_op({shape({2, 10})}, OpKind::log_softmax, shape({2, 10}), axis(0)), shape({2, 10})},
      // Several outputs, in order, a node possibly more than once.
      {"two_outputs",
       edited(unary_chain({OpKind::relu, OpKind::tanh}),
              [](Graph& g) {
                g.output_ids = {1, 2};
              }),
       shape({2, 3})},
      {"repeated_output",
       edited(unary_chain({OpKind::relu}),
              [](Graph& g) {
                g.output_ids = {1, 1, 0};
              }),
       shape({2, 3})},
      {"extended_block", extended_block(), shape({2, 4, 3})},
      {"empty_tensor", one_op({shape({0, 3})}, OpKind::relu, shape({0, 3})), shape({0, 3})},
      {"zero_dim_beside_huge", one_op({shape({k2to63, 4, 0})}, OpKind::exp, shape({k2to63, 4, 0})),
       shape({k2to63, 4, 0})},
      {"largest_count",
       one_op({shape({k2to32 - 1, k2to32 + 1})}, OpKind::sin, shape({k2to32 - 1, k2to32 + 1})),
       shape({k2to32 - 1, k2to32 + 1})},
      {"source_names_are_free",
       edited(one_op({shape({2})}, OpKind::relu, shape({2})),
              [](Graph& g) { g.nodes[1].source_name = "model/act"; }),
       shape({2})},
      {"extra_inputs_and_unused_nodes",
       edited(one_op({shape({2}), shape({2})}, OpKind::add, shape({2})),
              [](Graph& g) { g.output_ids = {1}; }),
       shape({2})},
      {"mlp", mlp(), shape({8, 10})},
      {"cnn", cnn(), shape({10})},
      {"block", block(), shape({4, 6, 8})},
      {"dropout", dropout(), shape({2, 5})},
  };
  // The elementwise kinds share one rule each; give every one of them its own case.
  for (const OpKind kind :
       {OpKind::detach, OpKind::abs,        OpKind::sqrt,     OpKind::inv,   OpKind::relu,
        OpKind::tanh,   OpKind::sigmoid,    OpKind::exp,      OpKind::log,   OpKind::sin,
        OpKind::cos,    OpKind::softplus,   OpKind::softsign, OpKind::floor, OpKind::ceil,
        OpKind::round,  OpKind::sign,       OpKind::tan,      OpKind::asin,  OpKind::acos,
        OpKind::atan,   OpKind::sinh,       OpKind::cosh,     OpKind::asinh, OpKind::acosh,
        OpKind::atanh,  OpKind::hard_swish, OpKind::silu}) {
    cases.push_back({std::string(to_string(kind)), one_op({shape({2, 3})}, kind, shape({2, 3})),
                     shape({2, 3})});
  }
  for (const OpKind kind :
       {OpKind::add, OpKind::sub, OpKind::mul_elem, OpKind::max_elem, OpKind::min_elem}) {
    cases.push_back({std::string(to_string(kind)),
                     one_op({shape({2, 3}), shape({2, 3})}, kind, shape({2, 3})), shape({2, 3})});
  }
  return cases;
}

void PrintTo(const ValidCase& c, std::ostream* os) {
  *os << c.name;
}

class CheckValidTest : public ::testing::TestWithParam<ValidCase> {};

TEST_P(CheckValidTest, PassesAndInfersTheDeclaredShape) {
  const ValidCase& c = GetParam();
  const Expected<CheckedGraph> checked = check(c.graph);
  ASSERT_TRUE(checked.has_value()) << checked.error().message;
  EXPECT_EQ(checked->graph(), c.graph);
  const Node& last = c.graph.nodes.back();
  const Expected<Shape> inferred = infer_shape(c.graph, last);
  ASSERT_TRUE(inferred.has_value()) << inferred.error().message;
  EXPECT_EQ(*inferred, c.output) << to_string(*inferred);
  for (const Node& node : c.graph.nodes) {
    const Expected<Shape> each = infer_shape(c.graph, node);
    ASSERT_TRUE(each.has_value()) << each.error().message;
    EXPECT_EQ(*each, node.shape) << describe(node);
  }
}

// The rule over shapes the caller gives infers what the graph-based one does, for every node.
TEST_P(CheckValidTest, InfersTheSameFromGivenParentShapes) {
  const ValidCase& c = GetParam();
  for (const Node& node : c.graph.nodes) {
    std::vector<const Shape*> parents;
    for (const NodeId p : node.parents)
      parents.push_back(&c.graph.nodes[p].shape);
    const Expected<Shape> given = infer_shape(node, parents);
    ASSERT_TRUE(given.has_value()) << given.error().message;
    EXPECT_EQ(*given, node.shape) << describe(node);
  }
}

INSTANTIATE_TEST_SUITE_P(AllKinds, CheckValidTest, ::testing::ValuesIn(valid_cases()),
                         [](const auto& info) { return fixtures::test_name(info.param.name); });

TEST(CheckValidTest, EveryKindHasAValidCase) {
  std::array<bool, kOpKindCount> seen{};
  for (const ValidCase& c : valid_cases()) {
    for (const Node& node : c.graph.nodes)
      seen[static_cast<std::size_t>(node.kind)] = true;
  }
  for (std::size_t i = 0; i < kOpKindCount; ++i) {
    EXPECT_TRUE(seen[i]) << "no valid graph uses " << to_string(static_cast<OpKind>(i));
  }
}

TEST(InferShapeFromParentShapes, NamesTheNodeForAMissingOrMiscountedShape) {
  const Graph g = one_op({shape({2, 3}), shape({2, 3})}, OpKind::add, shape({2, 3}));
  const Node& add = g.nodes.back();
  const Shape s = shape({2, 3});
  const std::vector<const Shape*> one = {&s};
  const auto few = infer_shape(add, one);
  ASSERT_FALSE(few.has_value());
  EXPECT_EQ(few.error().message, "node 2 (add): 1 parent shapes given for 2 parents");
  const std::vector<const Shape*> unknown = {&s, nullptr};
  const auto missing = infer_shape(add, unknown);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "node 2 (add): a parent's shape is not given");
  // Parent ids are not read: a node whose parents are above it infers from the given shapes.
  Node above = add;
  above.parents = {7, 9};
  const std::vector<const Shape*> both = {&s, &s};
  const auto fine = infer_shape(above, both);
  ASSERT_TRUE(fine.has_value()) << fine.error().message;
  EXPECT_EQ(*fine, s);
}

TEST(CheckValidTest, ReleaseGivesBackTheGraph) {
  Expected<CheckedGraph> checked = check(mlp());
  ASSERT_TRUE(checked.has_value());
  EXPECT_EQ(std::move(*checked).release(), mlp());
}

// ---------------------------------------------------------------------------------------------
// Malformed graphs

// How a case's text is held against the message: the whole message, or a part of it.
enum class Match : std::uint8_t { exact, fragment };

struct InvalidCase {
  std::string name;
  Graph graph;
  std::string fragment;  // the message (or, with Match::fragment, a part of it)
  std::optional<std::size_t> position;
  Match match = Match::exact;
};

// Eight nodes where node 3 (add) names node 7 as a parent: 3 -> 4 -> ... -> 7 -> 3 is a cycle.
Graph cycle() {
  GraphBuilder b;
  b.input(shape({2}));
  b.add(OpKind::relu, {0}, shape({2}));
  b.add(OpKind::relu, {1}, shape({2}));
  b.add(OpKind::add, {2, 7}, shape({2}));
  for (NodeId id = 4; id < 8; ++id)
    b.add(OpKind::relu, {id - 1}, shape({2}));
  return std::move(b).build();
}

std::vector<InvalidCase> invalid_cases() {
  return {
      // Structure: ids, parents, arity, parameters, endpoints.
      {"empty_graph", Graph{}, "graph has no nodes", std::nullopt},
      {"id_differs_from_index",
       edited(unary_chain({OpKind::relu}), [](Graph& g) { g.nodes[1].id = 5; }),
       "node 5 (relu): id differs from its index 1 (ids must equal indices)", 1},
      {"parent_past_the_end",
       edited(unary_chain({OpKind::relu}), [](Graph& g) { g.nodes[1].parents = {9}; }),
       "node 1 (relu): parent 9 does not exist (the graph has 2 nodes)", 1},
      {"self_parent",
       edited(unary_chain({OpKind::relu}), [](Graph& g) { g.nodes[1].parents = {1}; }),
       "node 1 (relu): parent 1 is not below the node (parents must have smaller ids)", 1},
      {"cycle", cycle(),
       "node 3 (add): parent 7 is not below the node (parents must have smaller ids)", 3},
      {"too_few_parents", one_op({shape({2})}, OpKind::add, shape({2})),
       "node 1 (add): has 1 parent, expected 2", 1},
      {"too_many_parents", one_op({shape({2}), shape({2})}, OpKind::relu, shape({2})),
       "node 2 (relu): has 2 parents, expected 1", 2},
      {"input_with_parent", one_op({shape({2})}, OpKind::input, shape({2})),
       "node 1 (input): has 1 parent, expected 0", 1},
      {"const_with_parent",
       one_op({shape({2})}, OpKind::const_, shape({2}), ConstParams{shape({2})}),
       "node 1 (const): has 1 parent, expected 0", 1},
      {"concat_one_parent", one_op({shape({2})}, OpKind::concat, shape({2}), axis(0)),
       "node 1 (concat): has 1 parent, expected at least 2", 1},
      {"bernoulli_without_parent", one_op({}, OpKind::bernoulli_mask, shape({2}), SeedParams{}),
       "node 1 (bernoulli_mask): has 0 parents, expected 1", 1},
      {"conv_without_params", one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 1, 4, 4})),
       "node 1 (conv): has no parameters, expected conv parameters", 1},
      {"conv_with_pool_params",
       one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 1, 4, 4}), pool(1, 1)),
       "node 1 (conv): has pool parameters, expected conv parameters", 1},
      {"batch_norm_eval_with_axis_params",
       one_op({shape({1, 4})}, OpKind::batch_norm_eval, shape({1, 4}), axis(1)),
       "node 1 (batch_norm_eval): has axis parameters, expected channel parameters", 1},
      {"transpose_without_params", one_op({shape({2, 3})}, OpKind::transpose, shape({3, 2})),
       "node 1 (transpose): has no parameters, expected transpose parameters", 1},
      {"hard_masked_softmax_without_mask",
       one_op({shape({2, 3})}, OpKind::hard_masked_softmax, shape({2, 3}), axis(1)),
       "node 1 (hard_masked_softmax): has axis parameters, expected mask parameters", 1},
      {"gelu_without_params", one_op({shape({2})}, OpKind::gelu, shape({2})),
       "node 1 (gelu): has no parameters, expected gelu parameters", 1},
      {"clamp_with_scale_params", one_op({shape({2})}, OpKind::clamp, shape({2}), ScaleParams{}),
       "node 1 (clamp): has scale parameters, expected clamp parameters", 1},
      {"scale_with_clamp_params", one_op({shape({2})}, OpKind::scale, shape({2}), ClampParams{}),
       "node 1 (scale): has clamp parameters, expected scale parameters", 1},
      {"leaky_relu_without_params", one_op({shape({2})}, OpKind::leaky_relu, shape({2})),
       "node 1 (leaky_relu): has no parameters, expected alpha parameters", 1},
      {"elu_with_scale_params", one_op({shape({2})}, OpKind::elu, shape({2}), ScaleParams{}),
       "node 1 (elu): has scale parameters, expected alpha parameters", 1},
      {"slice_with_axis_params", one_op({shape({2})}, OpKind::slice, shape({2}), axis(0)),
       "node 1 (slice): has axis parameters, expected slice parameters", 1},
      {"attention_without_params",
       one_op({shape({2, 3}), shape({2, 3}), shape({2, 3})}, OpKind::scaled_dot_product_attention,
              shape({2, 3})),
       "node 3 (scaled_dot_product_attention): has no parameters, expected attention parameters",
       3},
      {"attention_two_parents",
       one_op({shape({2, 3}), shape({2, 3})}, OpKind::scaled_dot_product_attention, shape({2, 3}),
              AttentionParams{}),
       "node 2 (scaled_dot_product_attention): has 2 parents, expected 3", 2},
      {"safe_log_without_epsilon", one_op({shape({2})}, OpKind::safe_log, shape({2})),
       "node 1 (safe_log): has 1 parent, expected 2", 1},
      {"relu_with_params", one_op({shape({2})}, OpKind::relu, shape({2}), axis(0)),
       "node 1 (relu): has axis parameters, expected none", 1},
      {"softmax_with_pool_params", one_op({shape({2})}, OpKind::softmax, shape({2}), pool(1, 1)),
       "node 1 (softmax): has pool parameters, expected axis parameters", 1},
      {"rand_uniform_without_seed", one_op({}, OpKind::rand_uniform, shape({2})),
       "node 1 (rand_uniform): has no parameters, expected seed parameters", 1},
      {"input_id_past_the_end",
       edited(unary_chain({OpKind::relu}), [](Graph& g) { g.input_id = 5; }),
       "input_id 5 does not name a node (the graph has 2 nodes)", std::nullopt},
      {"input_id_not_an_input",
       edited(unary_chain({OpKind::relu}), [](Graph& g) { g.input_id = 1; }),
       "input_id 1 names node 1 (relu), expected an input node", 1},
      {"output_id_past_the_end",
       edited(unary_chain({OpKind::relu}), [](Graph& g) { g.output_ids = {2}; }),
       "output_ids[0] 2 does not name a node (the graph has 2 nodes)", std::nullopt},
      {"second_output_past_the_end",
       edited(unary_chain({OpKind::relu}),
              [](Graph& g) {
                g.output_ids = {1, 7};
              }),
       "output_ids[1] 7 does not name a node (the graph has 2 nodes)", std::nullopt},
      {"output_ids_empty",
       edited(unary_chain({OpKind::relu}), [](Graph& g) { g.output_ids.clear(); }),
       "output_ids is empty (a graph has at least one output)", std::nullopt},
      {"lowest_node_first",
       edited(unary_chain({OpKind::relu, OpKind::relu}),
              [](Graph& g) {
                g.nodes[1].shape = shape({9});
                g.nodes[2].parents = {};
              }),
       "node 1 (relu): declared shape [9] differs from inferred [2,3]", 1},
      {"endpoints_before_nodes",
       edited(unary_chain({OpKind::relu}),
              [](Graph& g) {
                g.nodes[1].parents = {};
                g.output_ids = {7};
              }),
       "output_ids[0] 7 does not name a node (the graph has 2 nodes)", std::nullopt},

      // Declared against inferred shapes.
      {"declared_differs",
       edited(unary_chain({OpKind::abs, OpKind::relu}),
              [](Graph& g) {
                g.nodes[2].shape = shape({2, 2});
              }),
       "node 2 (relu): declared shape [2,2] differs from inferred [2,3]", 2},
      {"declared_differs_named",
       edited(one_op({shape({2, 3})}, OpKind::tanh, shape({3, 2})),
              [](Graph& g) { g.nodes[1].source_name = "model/act"; }),
       "node 1 (tanh 'model/act'): declared shape [3,2] differs from inferred [2,3]", 1},
      {"error_at_the_first_bad_node",
       edited(unary_chain({OpKind::relu, OpKind::sigmoid, OpKind::exp}),
              [](Graph& g) {
                g.nodes[2].shape = shape({6});
                g.nodes[3].shape = shape({7});
              }),
       "node 2 (sigmoid): declared shape [6] differs from inferred [2,3]", 2},
      {"const_shape_differs_from_value",
       one_op({}, OpKind::const_, shape({2}), ConstParams{shape({3})}),
       "node 1 (const): declared shape [2] differs from inferred [3]", 1},
      {"bernoulli_parent_not_scalar",
       one_op({shape({2})}, OpKind::bernoulli_mask, shape({2}), SeedParams{}),
       "node 1 (bernoulli_mask): keep-probability parent must be a scalar, found [2]", 1},
      {"add_shapes_differ", one_op({shape({2, 3}), shape({3, 2})}, OpKind::add, shape({2, 3})),
       "node 2 (add): parent shapes differ: [2,3] and [3,2] (broadcasting must be explicit)", 2},
      {"min_elem_needs_explicit_broadcast",
       one_op({shape({2, 3}), shape({3})}, OpKind::min_elem, shape({2, 3})),
       "node 2 (min_elem): parent shapes differ: [2,3] and [3] (broadcasting must be explicit)", 2},
      {"mse_loss_shapes_differ",
       one_op({shape({2, 3}), shape({2, 4})}, OpKind::mse_loss, shape({})),
       "node 2 (mse_loss): parent shapes differ: [2,3] and [2,4] (broadcasting must be explicit)",
       2},
      {"mse_loss_not_scalar",
       one_op({shape({2, 3}), shape({2, 3})}, OpKind::mse_loss, shape({2, 3})),
       "node 2 (mse_loss): declared shape [2,3] differs from inferred []", 2},
      {"broadcast_parent_differs_from_source",
       one_op({shape({3})}, OpKind::broadcast_to, shape({2, 4}),
              BroadcastParams{shape({4}), shape({2, 4})}),
       "node 1 (broadcast_to): parent shape [3] differs from broadcast source [4]", 1},
      {"broadcast_dimension_mismatch",
       one_op({shape({2, 3})}, OpKind::broadcast_to, shape({2, 4}),
              BroadcastParams{shape({2, 3}), shape({2, 4})}),
       "node 1 (broadcast_to): cannot broadcast [2,3] to [2,4]: source dimension 1 is 3, target "
       "has 4 (must be equal or 1)",
       1},
      {"broadcast_to_lower_rank",
       one_op({shape({2, 3})}, OpKind::broadcast_to, shape({3}),
              BroadcastParams{shape({2, 3}), shape({3})}),
       "node 1 (broadcast_to): cannot broadcast [2,3] to [3]: source rank 2 exceeds target rank 1",
       1},
      {"broadcast_zero_to_nonzero",
       one_op({shape({0})}, OpKind::broadcast_to, shape({5}),
              BroadcastParams{shape({0}), shape({5})}),
       "node 1 (broadcast_to): cannot broadcast [0] to [5]: source dimension 0 is 0, target has 5 "
       "(must be equal or 1)",
       1},
      {"reduce_sum_axis_out_of_range",
       one_op({shape({2, 3})}, OpKind::reduce_sum, shape({2}), axis(2)),
       "node 1 (reduce_sum): axis 2 is out of range for [2,3] (rank 2)", 1},
      {"reduce_mean_on_scalar", one_op({shape({})}, OpKind::reduce_mean, shape({}), axis(0)),
       "node 1 (reduce_mean): axis 0 is out of range for [] (rank 0)", 1},
      {"reduce_sum_keeps_axis", one_op({shape({2, 3})}, OpKind::reduce_sum, shape({1, 3}), axis(0)),
       "node 1 (reduce_sum): declared shape [1,3] differs from inferred [3]", 1},
      {"sum_not_scalar", one_op({shape({2, 3})}, OpKind::sum, shape({1})),
       "node 1 (sum): declared shape [1] differs from inferred []", 1},
      {"matmul_inner_differ", one_op({shape({2, 3}), shape({4, 5})}, OpKind::matmul, shape({2, 5})),
       "node 2 (matmul): inner dimensions differ: [2,3] x [4,5]", 2},
      {"matmul_batch_differ",
       one_op({shape({2, 3, 4}), shape({3, 4, 5})}, OpKind::matmul, shape({2, 3, 5})),
       "node 2 (matmul): batch dimensions do not broadcast: [2,3,4] x [3,4,5]", 2},
      {"matmul_broadcast_batch_differ",
       one_op({shape({2, 2, 3, 4}), shape({3, 4, 5})}, OpKind::matmul, shape({2, 3, 3, 5})),
       "node 2 (matmul): batch dimensions do not broadcast: [2,2,3,4] x [3,4,5]", 2},
      {"matmul_zero_batch_against_two",
       one_op({shape({0, 3, 4}), shape({2, 4, 5})}, OpKind::matmul, shape({0, 3, 5})),
       "node 2 (matmul): batch dimensions do not broadcast: [0,3,4] x [2,4,5]", 2},
      {"matmul_scalar_left", one_op({shape({}), shape({3})}, OpKind::matmul, shape({3})),
       "node 2 (matmul): expects parents of rank at least 1, found [] x [3]", 2},
      {"matmul_scalar_right", one_op({shape({3}), shape({})}, OpKind::matmul, shape({3})),
       "node 2 (matmul): expects parents of rank at least 1, found [3] x []", 2},
      {"matmul_vectors_differ", one_op({shape({3}), shape({4})}, OpKind::matmul, shape({})),
       "node 2 (matmul): inner dimensions differ: [3] x [4]", 2},
      {"matmul_matrix_vector_differ",
       one_op({shape({2, 3}), shape({4})}, OpKind::matmul, shape({2})),
       "node 2 (matmul): inner dimensions differ: [2,3] x [4]", 2},
      {"matmul_vector_matrix_differ",
       one_op({shape({3}), shape({4, 5})}, OpKind::matmul, shape({5})),
       "node 2 (matmul): inner dimensions differ: [3] x [4,5]", 2},
      {"matmul_vector_axis_kept",
       one_op({shape({2, 3}), shape({3})}, OpKind::matmul, shape({2, 1})),
       "node 2 (matmul): declared shape [2,1] differs from inferred [2]", 2},
      {"matmul_batched_inner_differ",
       one_op({shape({2, 3, 4}), shape({2, 5, 6})}, OpKind::matmul, shape({2, 3, 6})),
       "node 2 (matmul): inner dimensions differ: [2,3,4] x [2,5,6]", 2},
      {"linear_scalar_parent", one_op({shape({})}, OpKind::linear, shape({})),
       "node 1 (linear): expects a parent of rank at least 1, found []", 1},
      {"linear_rank_differs", one_op({shape({2, 3})}, OpKind::linear, shape({4})),
       "node 1 (linear): declared shape [4] has rank 1, expected the rank of parent [2,3] (2)", 1},
      {"linear_leading_dims_differ", one_op({shape({2, 16})}, OpKind::linear, shape({3, 10})),
       "node 1 (linear): declared shape [3,10] differs from inferred [2,10]", 1},
      // conv: the per-axis lists, the channels, the groups and the window.
      {"conv_spatial_rank_0", one_op({shape({1, 1})}, OpKind::conv, shape({1, 1}), conv(1, 1, {})),
       "node 1 (conv): spatial_rank 0 is not allowed (must be at least 1)", 1},
      {"conv_kernel_longer_than_spatial_rank",
       one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 1, 2, 2}),
              with(conv(1, 1, {3, 3}),
                   [](ConvParams& p) {
                     p.kernel = {3, 3, 3};
                   })),
       "node 1 (conv): kernel [3,3,3] has 3 entries, expected spatial_rank 2", 1},
      {"conv_stride_shorter_than_spatial_rank",
       one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 1, 2, 2}),
              with(conv(1, 1, {3, 3}), [](ConvParams& p) { p.stride = {1}; })),
       "node 1 (conv): stride [1] has 1 entry, expected spatial_rank 2", 1},
      {"conv_padding_list_length",
       one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 1, 2, 2}),
              with(conv(1, 1, {3, 3}), [](ConvParams& p) { p.padding = {}; })),
       "node 1 (conv): padding [] has 0 entries, expected spatial_rank 2", 1},
      {"conv_dilation_list_length",
       one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 1, 2, 2}),
              with(conv(1, 1, {3, 3}),
                   [](ConvParams& p) {
                     p.dilation = {1, 1, 1};
                   })),
       "node 1 (conv): dilation [1,1,1] has 3 entries, expected spatial_rank 2", 1},
      {"conv_padding_after_list_length",
       one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 1, 2, 2}),
              with(conv(1, 1, {3, 3}), [](ConvParams& p) { p.padding_after = {0}; })),
       "node 1 (conv): padding_after [0] has 1 entry, expected spatial_rank 2", 1},
      {"conv_kernel_0",
       one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 1, 2, 2}), conv(1, 1, {0, 3})),
       "node 1 (conv): kernel [0,3] holds 0 (each entry must be at least 1)", 1},
      {"conv_stride_0",
       one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 1, 2, 2}), conv(1, 1, {3, 3}, 0)),
       "node 1 (conv): stride [0,0] holds 0 (each entry must be at least 1)", 1},
      {"conv_dilation_0",
       one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 1, 2, 2}),
              with(conv(1, 1, {3, 3}),
                   [](ConvParams& p) {
                     p.dilation = {1, 0};
                   })),
       "node 1 (conv): dilation [1,0] holds 0 (each entry must be at least 1)", 1},
      {"conv_output_padding_on_conv",
       one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 1, 2, 2}),
              with(conv(1, 1, {3, 3}),
                   [](ConvParams& p) {
                     p.output_padding = {0, 0};
                   })),
       "node 1 (conv): output_padding [0,0] is taken only by conv_transpose (expected [])", 1},
      {"conv_rank_2", one_op({shape({8, 8})}, OpKind::conv, shape({1, 6, 6}), conv(1, 1, {3, 3})),
       "node 1 (conv): expects a parent of rank 4 (channel_axis 1, then 2 spatial axes), found "
       "[8,8]",
       1},
      {"conv_rank_too_high_for_channel_axis_0",
       one_op({shape({1, 3, 8, 8})}, OpKind::conv, shape({1, 3, 6, 6}),
              with(conv(3, 3, {3, 3}), [](ConvParams& p) { p.channel_axis = 0; })),
       "node 1 (conv): expects a parent of rank 3 (channel_axis 0, then 2 spatial axes), found "
       "[1,3,8,8]",
       1},
      {"conv_1d_on_rank_4",
       one_op({shape({1, 3, 8, 8})}, OpKind::conv, shape({1, 3, 6}), conv(3, 3, {3})),
       "node 1 (conv): expects a parent of rank 3 (channel_axis 1, then 1 spatial axes), found "
       "[1,3,8,8]",
       1},
      {"conv_channels_differ",
       one_op({shape({2, 3, 8, 8})}, OpKind::conv, shape({2, 4, 6, 6}), conv(2, 4, {3, 3})),
       "node 1 (conv): parent [2,3,8,8] has 3 channels on axis 1, expected in_channels 2", 1},
      {"conv_channels_differ_on_axis_0",
       one_op({shape({3, 8, 8})}, OpKind::conv, shape({4, 6, 6}),
              with(conv(1, 4, {3, 3}), [](ConvParams& p) { p.channel_axis = 0; })),
       "node 1 (conv): parent [3,8,8] has 3 channels on axis 0, expected in_channels 1", 1},
      {"conv_groups_0",
       one_op({shape({1, 2, 4, 4})}, OpKind::conv, shape({1, 2, 2, 2}),
              with(conv(2, 2, {3, 3}), [](ConvParams& p) { p.groups = 0; })),
       "node 1 (conv): groups 0 is not allowed (must be at least 1)", 1},
      {"conv_groups_do_not_divide_in",
       one_op({shape({1, 3, 8, 8})}, OpKind::conv, shape({1, 4, 6, 6}),
              with(conv(3, 4, {3, 3}), [](ConvParams& p) { p.groups = 2; })),
       "node 1 (conv): groups 2 does not divide in_channels 3 and out_channels 4", 1},
      {"conv_groups_do_not_divide_out",
       one_op({shape({1, 4, 8, 8})}, OpKind::conv, shape({1, 6, 6, 6}),
              with(conv(4, 6, {3, 3}), [](ConvParams& p) { p.groups = 4; })),
       "node 1 (conv): groups 4 does not divide in_channels 4 and out_channels 6", 1},
      {"conv_out_channels_0",
       one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 0, 4, 4}), conv(1, 0, {1, 1})),
       "node 1 (conv): in_channels and out_channels must be at least 1", 1},
      {"conv_in_channels_0",
       one_op({shape({1, 0, 4, 4})}, OpKind::conv, shape({1, 1, 4, 4}), conv(0, 1, {1, 1})),
       "node 1 (conv): in_channels and out_channels must be at least 1", 1},
      {"conv_window_too_big",
       one_op({shape({1, 1, 4, 4})}, OpKind::conv, shape({1, 1, 1, 1}), conv(1, 1, {5, 5})),
       "node 1 (conv): window of 5 on axis 2 does not fit its padded extent 4 (input 4, padding "
       "0+0)",
       1},
      {"conv_window_too_wide",
       one_op({shape({1, 1, 8, 2})}, OpKind::conv, shape({1, 1, 6, 1}), conv(1, 1, {3, 3})),
       "node 1 (conv): window of 3 on axis 3 does not fit its padded extent 2 (input 2, padding "
       "0+0)",
       1},
      {"conv_dilated_window_too_big",  // 3*(3-1)+1 = 7 taps apart
       one_op({shape({1, 1, 5, 5})}, OpKind::conv, shape({1, 1, 1, 3}),
              with(conv(1, 1, {3, 3}),
                   [](ConvParams& p) {
                     p.dilation = {3, 1};
                   })),
       "node 1 (conv): window of 7 on axis 2 does not fit its padded extent 5 (input 5, padding "
       "0+0)",
       1},
      {"conv_asymmetric_padding_too_small",
       one_op({shape({1, 1, 2, 2})}, OpKind::conv, shape({1, 1, 1, 1}),
              with(conv(1, 1, {3, 3}),
                   [](ConvParams& p) {
                     p.padding = {1, 0};
                     p.padding_after = {0, 0};
                   })),
       "node 1 (conv): window of 3 on axis 3 does not fit its padded extent 2 (input 2, padding "
       "0+0)",
       1},
      {"conv_out_channels_differ",
       one_op({shape({1, 3, 8, 8})}, OpKind::conv, shape({1, 8, 8, 8}), conv(3, 16, {3, 3}, 1, 1)),
       "node 1 (conv): declared shape [1,8,8,8] differs from inferred [1,16,8,8]", 1},
      // conv_transpose: the output padding and what the padding leaves.
      {"conv_transpose_output_padding_missing",
       one_op({shape({1, 1, 2, 2})}, OpKind::conv_transpose, shape({1, 1, 4, 4}),
              conv(1, 1, {2, 2}, 2)),
       "node 1 (conv_transpose): output_padding [] has 0 entries, expected spatial_rank 2", 1},
      {"conv_transpose_output_padding_not_below_stride",
       one_op({shape({1, 1, 2, 2})}, OpKind::conv_transpose, shape({1, 1, 6, 4}),
              with(tconv(1, 1, {2, 2}, 2),
                   [](ConvParams& p) {
                     p.output_padding = {2, 0};
                   })),
       "node 1 (conv_transpose): output_padding [2,0] must be below the stride or the dilation on "
       "each axis",
       1},
      {"conv_transpose_output_padding_without_stride",
       one_op({shape({1, 1, 2, 2})}, OpKind::conv_transpose, shape({1, 1, 3, 4}),
              with(tconv(1, 1, {2, 2}),
                   [](ConvParams& p) {
                     p.output_padding = {0, 1};
                   })),
       "node 1 (conv_transpose): output_padding [0,1] must be below the stride or the dilation on "
       "each axis",
       1},
      {"conv_transpose_padding_leaves_nothing",  // (1-1)*1 + 0 + 0 + 1 = 1, less 1
       one_op({shape({1, 1, 1, 1})}, OpKind::conv_transpose, shape({1, 1, 1, 1}),
              with(tconv(1, 1, {1, 1}),
                   [](ConvParams& p) {
                     p.padding = {1, 0};
                   })),
       "node 1 (conv_transpose): padding 1+0 leaves nothing of axis 2 (transposed extent 1)", 1},
      {"conv_transpose_symmetric_padding_leaves_nothing",  // (2-1)*1 + 2 + 1 = 4, less 2+2
       one_op({shape({1, 1, 2, 2})}, OpKind::conv_transpose, shape({1, 1, 1, 1}),
              tconv(1, 1, {3, 3}, 1, 2)),
       "node 1 (conv_transpose): padding 2+2 leaves nothing of axis 2 (transposed extent 4)", 1},
      {"conv_transpose_empty_axis",
       one_op({shape({1, 1, 0, 3})}, OpKind::conv_transpose, shape({1, 1, 0, 3}),
              tconv(1, 1, {1, 1})),
       "node 1 (conv_transpose): axis 2 of [1,1,0,3] is empty", 1},
      {"conv_transpose_channels_differ",
       one_op({shape({1, 2, 2, 2})}, OpKind::conv_transpose, shape({1, 1, 3, 3}),
              tconv(3, 1, {2, 2})),
       "node 1 (conv_transpose): parent [1,2,2,2] has 2 channels on axis 1, expected in_channels 3",
       1},
      {"conv_transpose_groups_do_not_divide",
       one_op({shape({1, 4, 2, 2})}, OpKind::conv_transpose, shape({1, 3, 3, 3}),
              with(tconv(4, 3, {2, 2}), [](ConvParams& p) { p.groups = 2; })),
       "node 1 (conv_transpose): groups 2 does not divide in_channels 4 and out_channels 3", 1},
      {"conv_transpose_declared_differs",
       one_op({shape({1, 1, 2, 2})}, OpKind::conv_transpose, shape({1, 1, 3, 3}),
              tconv(1, 1, {2, 2}, 2)),
       "node 1 (conv_transpose): declared shape [1,1,3,3] differs from inferred [1,1,4,4]", 1},
      // max_pool, avg_pool.
      {"pool_spatial_rank_0", one_op({shape({4})}, OpKind::max_pool, shape({4}), pool(1, 1, 0, 0)),
       "node 1 (max_pool): spatial_rank 0 is not allowed (must be at least 1)", 1},
      {"pool_kernel_list_length",
       one_op({shape({1, 4, 4, 4})}, OpKind::avg_pool, shape({1, 2, 2, 2}),
              with(pool(2, 2, 0, 3),
                   [](PoolParams& p) {
                     p.kernel = {2, 2};
                   })),
       "node 1 (avg_pool): kernel [2,2] has 2 entries, expected spatial_rank 3", 1},
      {"pool_stride_list_length",
       one_op({shape({1, 4, 4})}, OpKind::max_pool, shape({1, 2, 2}),
              with(pool(2, 2),
                   [](PoolParams& p) {
                     p.stride = {2, 2, 2};
                   })),
       "node 1 (max_pool): stride [2,2,2] has 3 entries, expected spatial_rank 2", 1},
      {"pool_padding_list_length",
       one_op({shape({1, 4, 4})}, OpKind::max_pool, shape({1, 2, 2}),
              with(pool(3, 2, 1), [](PoolParams& p) { p.padding = {1}; })),
       "node 1 (max_pool): padding [1] has 1 entry, expected spatial_rank 2", 1},
      {"pool_kernel_0", one_op({shape({1, 4, 4})}, OpKind::max_pool, shape({1, 4, 4}), pool(0, 1)),
       "node 1 (max_pool): kernel [0,0] holds 0 (each entry must be at least 1)", 1},
      {"avg_pool_stride_0",
       one_op({shape({1, 4, 4})}, OpKind::avg_pool, shape({1, 2, 2}), pool(2, 0)),
       "node 1 (avg_pool): stride [0,0] holds 0 (each entry must be at least 1)", 1},
      {"pool_rank_below_spatial_rank",
       one_op({shape({4})}, OpKind::max_pool, shape({2}), pool(2, 2)),
       "node 1 (max_pool): expects a parent with at least spatial_rank 2 axes, found [4]", 1},
      {"pool_3d_on_rank_2",
       one_op({shape({4, 4})}, OpKind::avg_pool, shape({2, 2}), pool(2, 2, 0, 3)),
       "node 1 (avg_pool): expects a parent with at least spatial_rank 3 axes, found [4,4]", 1},
      {"max_pool_window_too_big",
       one_op({shape({1, 2, 2})}, OpKind::max_pool, shape({1, 1, 1}), pool(5, 1, 1)),
       "node 1 (max_pool): window of 5 on axis 1 does not fit its padded extent 4 (input 2, "
       "padding 1+1)",
       1},
      {"pool_1d_window_too_big",
       one_op({shape({2, 3, 2})}, OpKind::avg_pool, shape({2, 3, 1}), pool(3, 1, 0, 1)),
       "node 1 (avg_pool): window of 3 on axis 2 does not fit its padded extent 2 (input 2, "
       "padding 0+0)",
       1},
      {"max_pool_changes_channels",
       one_op({shape({3, 4, 4})}, OpKind::max_pool, shape({1, 2, 2}), pool(2, 2)),
       "node 1 (max_pool): declared shape [1,2,2] differs from inferred [3,2,2]", 1},
      // batch_norm_eval.
      {"batch_norm_eval_axis_out_of_range",
       one_op({shape({2, 16})}, OpKind::batch_norm_eval, shape({2, 16}),
              ChannelAxisParams{.channel_axis = 2, .channels = 16}),
       "node 1 (batch_norm_eval): axis 2 is out of range for [2,16] (rank 2)", 1},
      {"batch_norm_eval_on_scalar",
       one_op({shape({})}, OpKind::batch_norm_eval, shape({}),
              ChannelAxisParams{.channel_axis = 0, .channels = 1}),
       "node 1 (batch_norm_eval): axis 0 is out of range for [] (rank 0)", 1},
      {"batch_norm_eval_channels_differ",
       one_op({shape({2, 16, 8, 8})}, OpKind::batch_norm_eval, shape({2, 16, 8, 8}),
              ChannelAxisParams{.channel_axis = 1, .channels = 8}),
       "node 1 (batch_norm_eval): parent [2,16,8,8] has 16 channels on axis 1, expected channels 8",
       1},
      {"batch_norm_eval_channels_on_another_axis",
       one_op({shape({2, 16, 8})}, OpKind::batch_norm_eval, shape({2, 16, 8}),
              ChannelAxisParams{.channel_axis = 2, .channels = 16}),
       "node 1 (batch_norm_eval): parent [2,16,8] has 8 channels on axis 2, expected channels 16",
       1},
      {"softmax_axis_out_of_range",
       one_op({shape({2, 10})}, OpKind::softmax, shape({2, 10}), axis(2)),
       "node 1 (softmax): axis 2 is out of range for [2,10] (rank 2)", 1},
      {"layernorm_axis_equals_rank",
       one_op({shape({2, 5})}, OpKind::layernorm, shape({2, 5}), axis(2)),
       "node 1 (layernorm): axis 2 is out of range for [2,5] (rank 2)", 1},
      {"reshape_parent_differs",
       one_op({shape({2, 3})}, OpKind::reshape, shape({6}),
              ReshapeParams{shape({3, 2}), shape({6})}),
       "node 1 (reshape): parent shape [2,3] differs from reshape input [3,2]", 1},
      {"reshape_count_differs",
       one_op({shape({2, 3})}, OpKind::reshape, shape({4, 2}),
              ReshapeParams{shape({2, 3}), shape({4, 2})}),
       "node 1 (reshape): reshape from [2,3] to [4,2] changes the element count: 6 vs 8", 1},
      {"reshape_declared_differs_from_out",
       one_op({shape({2, 3})}, OpKind::reshape, shape({3, 2}),
              ReshapeParams{shape({2, 3}), shape({6})}),
       "node 1 (reshape): declared shape [3,2] differs from inferred [6]", 1},
      {"flatten_parent_differs",
       one_op({shape({2, 3})}, OpKind::flatten, shape({6}), FlattenParams{shape({6})}),
       "node 1 (flatten): parent shape [2,3] differs from value_shape [6]", 1},
      {"flatten_declared_not_rank_1",
       one_op({shape({2, 3, 4})}, OpKind::flatten, shape({2, 12}), FlattenParams{shape({2, 3, 4})}),
       "node 1 (flatten): declared shape [2,12] differs from inferred [24]", 1},
      {"concat_ranks_differ",
       one_op({shape({2, 3}), shape({2, 3, 1})}, OpKind::concat, shape({4, 3}), axis(0)),
       "node 2 (concat): parents differ in rank: [2,3] and [2,3,1]", 2},
      {"concat_off_axis_differs",
       one_op({shape({2, 3}), shape({4, 3})}, OpKind::concat, shape({2, 6}), axis(1)),
       "node 2 (concat): parents differ outside axis 1: [2,3] and [4,3]", 2},
      {"concat_axis_out_of_range",
       one_op({shape({2, 3}), shape({2, 3})}, OpKind::concat, shape({2, 6}), axis(2)),
       "node 2 (concat): axis 2 is out of range for [2,3] (rank 2)", 2},
      {"concat_scalars", one_op({shape({}), shape({})}, OpKind::concat, shape({2}), axis(0)),
       "node 2 (concat): axis 0 is out of range for [] (rank 0)", 2},
      // transpose.
      {"transpose_axis1_out_of_range",
       one_op({shape({2, 3, 4})}, OpKind::transpose, shape({2, 3, 4}), transpose(3, 0)),
       "node 1 (transpose): axis 3 is out of range for [2,3,4] (rank 3)", 1},
      {"transpose_axis2_out_of_range",
       one_op({shape({5})}, OpKind::transpose, shape({5}), transpose(0, 1)),
       "node 1 (transpose): axis 1 is out of range for [5] (rank 1)", 1},
      {"transpose_scalar", one_op({shape({})}, OpKind::transpose, shape({}), transpose(0, 0)),
       "node 1 (transpose): axis 0 is out of range for [] (rank 0)", 1},
      {"transpose_declared_differs",
       one_op({shape({2, 3, 4})}, OpKind::transpose, shape({2, 3, 4}), transpose(1, 2)),
       "node 1 (transpose): declared shape [2,3,4] differs from inferred [2,4,3]", 1},
      // safe_log.
      {"safe_log_epsilon_not_scalar",
       one_op({shape({2, 3}), shape({1})}, OpKind::safe_log, shape({2, 3})),
       "node 2 (safe_log): epsilon parent must be a scalar, found [1]", 2},
      {"safe_log_epsilon_shaped_like_x",
       one_op({shape({2, 3}), shape({2, 3})}, OpKind::safe_log, shape({2, 3})),
       "node 2 (safe_log): epsilon parent must be a scalar, found [2,3]", 2},
      {"safe_log_declared_differs", one_op({shape({2, 3}), shape({})}, OpKind::safe_log, shape({})),
       "node 2 (safe_log): declared shape [] differs from inferred [2,3]", 2},
      // hard_masked_softmax.
      {"hard_masked_softmax_scalar",
       one_op({shape({})}, OpKind::hard_masked_softmax, shape({}), mask(shape({1}), {true})),
       "node 1 (hard_masked_softmax): expects a parent of rank at least 1, found []", 1},
      {"hard_masked_softmax_scalar_mask",
       one_op({shape({2, 3})}, OpKind::hard_masked_softmax, shape({2, 3}), mask(shape({}), {true})),
       "node 1 (hard_masked_softmax): mask shape [] must have rank 1..2 to broadcast to [2,3]", 1},
      {"hard_masked_softmax_mask_rank_too_high",
       one_op({shape({2, 3})}, OpKind::hard_masked_softmax, shape({2, 3}),
              mask(shape({1, 2, 3}), std::vector<bool>(6, true))),
       "node 1 (hard_masked_softmax): mask shape [1,2,3] must have rank 1..2 to broadcast to "
       "[2,3]",
       1},
      {"hard_masked_softmax_mask_not_trailing",
       one_op({shape({2, 3})}, OpKind::hard_masked_softmax, shape({2, 3}),
              mask(shape({2}), {true, true})),
       "node 1 (hard_masked_softmax): mask shape [2] does not match the trailing axes of [2,3]", 1},
      {"hard_masked_softmax_mask_axis_of_one",
       one_op({shape({2, 3})}, OpKind::hard_masked_softmax, shape({2, 3}),
              mask(shape({1, 3}), {true, true, true})),
       "node 1 (hard_masked_softmax): mask shape [1,3] does not match the trailing axes of [2,3]",
       1},
      {"hard_masked_softmax_too_few_entries",
       one_op({shape({2, 3})}, OpKind::hard_masked_softmax, shape({2, 3}),
              mask(shape({3}), {true, false})),
       "node 1 (hard_masked_softmax): mask has 2 entries, its shape [3] needs 3", 1},
      {"hard_masked_softmax_too_many_entries",
       one_op({shape({2, 3})}, OpKind::hard_masked_softmax, shape({2, 3}),
              mask(shape({2, 3}), std::vector<bool>(7, false))),
       "node 1 (hard_masked_softmax): mask has 7 entries, its shape [2,3] needs 6", 1},
      {"hard_masked_softmax_declared_differs",
       one_op({shape({2, 3})}, OpKind::hard_masked_softmax, shape({3}),
              mask(shape({3}), {true, true, true})),
       "node 1 (hard_masked_softmax): declared shape [3] differs from inferred [2,3]", 1},
      // slice.
      {"slice_axis_out_of_range",
       one_op({shape({2, 3})}, OpKind::slice, shape({2, 3}), slice(2, 0, 1, 1)),
       "node 1 (slice): axis 2 is out of range for [2,3] (rank 2)", 1},
      {"slice_step_0", one_op({shape({4})}, OpKind::slice, shape({4}), slice(0, 0, 4, 0)),
       "node 1 (slice): step 0 is not allowed (must be at least 1)", 1},
      {"slice_declared_differs",  // 0, 3, 6, 9
       one_op({shape({10})}, OpKind::slice, shape({3}), slice(0, 0, 10, 3)),
       "node 1 (slice): declared shape [3] differs from inferred [4]", 1},
      {"slice_declared_not_clamped",
       one_op({shape({4})}, OpKind::slice, shape({6}), slice(0, 2, 8, 1)),
       "node 1 (slice): declared shape [6] differs from inferred [2]", 1},
      // top_k: the declared shape is the parent's with the axis cut to at most its extent.
      {"top_k_past_the_extent",
       one_op({shape({2, 5})}, OpKind::top_k, shape({2, 6}), TopKParams{.axis = 1}),
       "node 1 (top_k): declared shape [2,6] is not parent [2,5] with axis 1 cut to k (at most 5)",
       1},
      {"top_k_other_axis_differs",
       one_op({shape({2, 5})}, OpKind::top_k, shape({3, 2}), TopKParams{.axis = 1}),
       "node 1 (top_k): declared shape [3,2] is not parent [2,5] with axis 1 cut to k (at most 5)",
       1},
      {"cum_sum_axis_out_of_range",
       one_op({shape({2, 5})}, OpKind::cum_sum, shape({2, 5}), CumSumParams{.axis = 2}),
       "node 1 (cum_sum): axis 2 is out of range for [2,5] (rank 2)", 1},
      {"conv_weight_value_of_wrong_shape",
       one_op({shape({2, 3, 10}), shape({4, 3, 5})}, OpKind::conv, shape({2, 4, 8}),
              conv(3, 4, {3})),
       "node 2 (conv): parent 1 (the weight) has shape [4,3,5]; expected [4,3,3]", 2},
      {"conv_bias_value_of_wrong_shape",
       one_op({shape({2, 3, 10}), shape({4, 3, 3}), shape({3})}, OpKind::conv, shape({2, 4, 8}),
              conv(3, 4, {3})),
       "node 3 (conv): parent 2 (the bias) has shape [3]; expected [4]", 3},
      {"max_unpool_other_channels",
       one_op({shape({1, 2, 2, 3}), shape({1, 2, 2, 3})}, OpKind::max_unpool, shape({1, 3, 4, 5})),
       "node 2 (max_unpool): declared shape [1,3,4,5] is not X [1,2,2,3] with its N and C and "
       "other spatial extents (X of rank 3 or more)",
       2},
      {"max_unpool_indices_of_other_shape",
       one_op({shape({1, 2, 2, 3}), shape({1, 2, 3, 2})}, OpKind::max_unpool, shape({1, 2, 4, 5})),
       "node 2 (max_unpool): parent 1 (the indices) has shape [1,2,3,2]; it is X's, [1,2,2,3]", 2},
      {"max_pool_indices_storage_order_2",
       one_op({shape({2, 3, 11})}, OpKind::max_pool_indices, {},
              MaxPoolIndicesParams{.spatial_rank = 1,
                                   .kernel = {3},
                                   .stride = {2},
                                   .padding = {0},
                                   .padding_after = {0},
                                   .dilation = {1},
                                   .storage_order = 2}),
       "node 1 (max_pool_indices): storage_order 2 is neither 0 (row-major) nor 1 (column-major)",
       1},
      {"max_pool_indices_window_past_the_input",
       one_op({shape({2, 3, 4})}, OpKind::max_pool_indices, {},
              MaxPoolIndicesParams{.spatial_rank = 1,
                                   .kernel = {3},
                                   .stride = {1},
                                   .padding = {0},
                                   .padding_after = {0},
                                   .dilation = {2}}),
       "node 1 (max_pool_indices): window of 5 on axis 2 does not fit its padded extent 4 (input "
       "4, "
       "padding 0+0)",
       1},
      {"roi_align_empty_image",
       one_op({shape({2, 3, 0, 8}), shape({5, 4}), shape({5})}, OpKind::roi_align,
              shape({5, 3, 2, 3}), RoiAlignParams{}),
       "node 3 (roi_align): parent 0 (X) has shape [2,3,0,8]; it is [N, C, H, W] with H and W at "
       "least 1",
       3},
      {"roi_align_scale_zero",
       one_op({shape({2, 3, 8, 8}), shape({5, 4}), shape({5})}, OpKind::roi_align,
              shape({5, 3, 2, 3}), RoiAlignParams{.spatial_scale = 0.0F}),
       "node 3 (roi_align): spatial_scale 0 is not a positive number", 3},
      {"roi_align_rois_not_boxes",
       one_op({shape({2, 3, 8, 8}), shape({5, 5}), shape({5})}, OpKind::roi_align,
              shape({5, 3, 2, 3}), RoiAlignParams{}),
       "node 3 (roi_align): parent 1 (rois) has shape [5,5]; it is [R, 4]", 3},
      {"roi_align_batch_indices_of_other_count",
       one_op({shape({2, 3, 8, 8}), shape({5, 4}), shape({4})}, OpKind::roi_align,
              shape({5, 3, 2, 3}), RoiAlignParams{}),
       "node 3 (roi_align): parent 2 (batch indices) has shape [4]; it is [5], one per roi", 3},
      {"roi_align_declared_other_channels",
       one_op({shape({2, 3, 8, 8}), shape({5, 4}), shape({5})}, OpKind::roi_align,
              shape({5, 4, 2, 3}), RoiAlignParams{}),
       "node 3 (roi_align): declared shape [5,4,2,3] is not [5, 3, output_height, output_width] "
       "with both at least 1",
       3},
      {"roi_align_interpolating_mode",
       one_op({shape({2, 3, 8, 8}), shape({5, 4}), shape({5})}, OpKind::roi_align,
              shape({5, 3, 2, 3}), RoiAlignParams{.mode = SampleMode::linear}),
       "node 3 (roi_align): mode is an interpolation; roi_align takes avg or max", 3},
      {"resize_pooling_mode",
       one_op({shape({2, 3})}, OpKind::resize, shape({2, 3}),
              ResizeParams{.mode = SampleMode::max}),
       "node 1 (resize): mode is avg or max; resize takes nearest, linear or cubic", 1},
      {"resize_roi_align_mapping",
       one_op({shape({2, 3})}, OpKind::resize, shape({2, 3}),
              ResizeParams{.coordinate_transformation_mode =
                               CoordinateTransformation::output_half_pixel}),
       "node 1 (resize): coordinate_transformation_mode is output_half_pixel, RoiAlign's; resize "
       "takes half_pixel, pytorch_half_pixel, align_corners, asymmetric or tf_half_pixel_for_nn",
       1},
      {"grid_sample_pooling_mode",
       one_op({shape({2, 3, 5, 6}), shape({2, 4, 7, 2})}, OpKind::grid_sample, shape({2, 3, 4, 7}),
              GridSampleParams{.mode = SampleMode::avg}),
       "node 2 (grid_sample): mode is avg or max; grid_sample takes nearest, linear or cubic", 2},
      {"resize_other_rank",
       one_op({shape({2, 3})}, OpKind::resize, shape({2, 3, 1}), ResizeParams{}),
       "node 1 (resize): declared shape [2,3,1] is not of X's rank, [2,3]", 1},
      {"resize_scales_of_other_rank",
       one_op({shape({2, 3})}, OpKind::resize, shape({4, 3}), ResizeParams{.scales = {2}}),
       "node 1 (resize): has 1 scales for X [2,3]; it needs one per axis, or none when the sizes "
       "were given",
       1},
      {"resize_scale_not_positive",
       one_op({shape({2, 3})}, OpKind::resize, shape({0, 3}), ResizeParams{.scales = {-1, 1}}),
       "node 1 (resize): scale -1 on axis 0 is not a positive number", 1},
      {"resize_extent_not_the_scaled",
       one_op({shape({5, 3})}, OpKind::resize, shape({4, 3}), ResizeParams{.scales = {0.6F, 1}}),
       "node 1 (resize): declared shape [4,3] has 4 on axis 0 where X [5,3] scaled by 0.6 has 3",
       1},
      {"resize_empty_axis_grown",
       one_op({shape({0, 3})}, OpKind::resize, shape({2, 3}), ResizeParams{}),
       "node 1 (resize): axis 0 of X [0,3] is empty; it cannot be resized to 2", 1},
      {"grid_sample_x_not_4d",
       one_op({shape({2, 3, 5}), shape({2, 4, 7, 2})}, OpKind::grid_sample, shape({2, 3, 4, 7}),
              GridSampleParams{}),
       "node 2 (grid_sample): parent 0 (X) has shape [2,3,5]; it is [N, C, H, W] with H and W at "
       "least 1",
       2},
      {"grid_sample_empty_image",
       one_op({shape({2, 3, 0, 6}), shape({2, 4, 7, 2})}, OpKind::grid_sample, shape({2, 3, 4, 7}),
              GridSampleParams{}),
       "node 2 (grid_sample): parent 0 (X) has shape [2,3,0,6]; it is [N, C, H, W] with H and W "
       "at least 1",
       2},
      {"grid_sample_grid_of_other_batch",
       one_op({shape({2, 3, 5, 6}), shape({1, 4, 7, 2})}, OpKind::grid_sample, shape({2, 3, 4, 7}),
              GridSampleParams{}),
       "node 2 (grid_sample): parent 1 (grid) has shape [1,4,7,2]; it is [2, H_out, W_out, 2] for "
       "X [2,3,5,6]",
       2},
      {"rnn_x_not_rank_3",
       one_op({shape({5, 3})}, OpKind::rnn, shape({5, 1, 1, 4}), RecurrentParams{.hidden_size = 4}),
       "node 1 (rnn): parent 0 (X) has shape [5,3]; it is [seq_length, batch, input_size], each "
       "at least one",
       1},
      {"lstm_empty_sequence",
       one_op({shape({0, 2, 3})}, OpKind::lstm, shape({0, 1, 2, 4}),
              RecurrentParams{.hidden_size = 4}),
       "node 1 (lstm): parent 0 (X) has shape [0,2,3]; it is [seq_length, batch, input_size], "
       "each at least one",
       1},
      {"gru_no_input_features",
       one_op({shape({4, 2, 0})}, OpKind::gru, shape({4, 1, 2, 3}),
              RecurrentParams{.hidden_size = 3}),
       "node 1 (gru): parent 0 (X) has shape [4,2,0]; it is [seq_length, batch, input_size], each "
       "at least one",
       1},
      {"gru_state_of_wrong_directions",
       one_op({shape({5, 2, 3}), shape({1, 2, 4})}, OpKind::gru, shape({5, 2, 2, 4}),
              RecurrentParams{.hidden_size = 4, .direction = RecurrentDirection::bidirectional}),
       "node 2 (gru): parent 1 (initial h) has shape [1,2,4]; expected [2,2,4]", 2},
      {"rnn_hidden_size_0",
       one_op({shape({5, 2, 3})}, OpKind::rnn, shape({5, 1, 2, 0}),
              RecurrentParams{.hidden_size = 0}),
       "node 1 (rnn): hidden_size is 0; it is at least 1", 1},
      {"lstm_linear_before_reset",
       one_op({shape({5, 2, 3})}, OpKind::lstm, shape({5, 1, 2, 4}),
              RecurrentParams{.hidden_size = 4, .linear_before_reset = true}),
       "node 1 (lstm): linear_before_reset is gru's; lstm takes false", 1},
      {"gather_nd_batch_differs",
       one_op({shape({2, 5}), shape({3, 1})}, OpKind::gather_nd, shape({3}),
              GatherNdParams{.batch_dims = 1}),
       "node 2 (gather_nd): indices [3,1] and data [2,5] differ on batch axis 0", 2},
      {"gather_nd_index_too_long",
       one_op({shape({2, 5}), shape({3, 3})}, OpKind::gather_nd, shape({3}), GatherNdParams{}),
       "node 2 (gather_nd): indices [3,3] must end in an axis of 1 to 2 after 0 batch axes (the "
       "data is [2,5])",
       2},
      {"top_k_axis_out_of_range",
       one_op({shape({2, 5})}, OpKind::top_k, shape({2, 5}), TopKParams{.axis = 2}),
       "node 1 (top_k): axis 2 is out of range for [2,5] (rank 2)", 1},
      // gather: the declared shape is checked against the parent.
      {"gather_axis_out_of_range", one_op({shape({4, 5})}, OpKind::gather, shape({4, 5}), axis(2)),
       "node 1 (gather): axis 2 is out of range for [4,5] (rank 2)", 1},
      {"gather_other_axis_differs", one_op({shape({4, 5})}, OpKind::gather, shape({3, 6}), axis(0)),
       "node 1 (gather): declared shape [3,6] is not parent [4,5] with axis 0 replaced by the "
       "indices' shape",
       1},
      {"gather_leading_axis_differs",
       one_op({shape({4, 5})}, OpKind::gather, shape({2, 7}), axis(1)),
       "node 1 (gather): declared shape [2,7] is not parent [4,5] with axis 1 replaced by the "
       "indices' shape",
       1},
      {"gather_declared_too_short", one_op({shape({2, 3, 4})}, OpKind::gather, shape({2}), axis(1)),
       "node 1 (gather): declared shape [2] is not parent [2,3,4] with axis 1 replaced by the "
       "indices' shape",
       1},
      {"gather_count_overflows",
       one_op({shape({4, 2})}, OpKind::gather, shape({k2to63, 2}), axis(0)),
       "node 1 (gather): shape [9223372036854775808,2] has more elements than fit in 64 bits", 1},
      // scaled_dot_product_attention.
      {"attention_rank_1",
       one_op({shape({4}), shape({4}), shape({4})}, OpKind::scaled_dot_product_attention,
              shape({4}), AttentionParams{}),
       "node 3 (scaled_dot_product_attention): expects q, k, v of one rank, at least 2, found "
       "[4], [4], [4]",
       3},
      {"attention_ranks_differ",
       one_op({shape({2, 5, 8}), shape({6, 8}), shape({6, 3})},
              OpKind::scaled_dot_product_attention, shape({2, 5, 3}), AttentionParams{}),
       "node 3 (scaled_dot_product_attention): expects q, k, v of one rank, at least 2, found "
       "[2,5,8], [6,8], [6,3]",
       3},
      {"attention_leading_axes_differ",
       one_op({shape({2, 5, 8}), shape({3, 6, 8}), shape({2, 6, 3})},
              OpKind::scaled_dot_product_attention, shape({2, 5, 3}), AttentionParams{}),
       "node 3 (scaled_dot_product_attention): leading axes of q, k, v differ: [2,5,8], [3,6,8], "
       "[2,6,3]",
       3},
      {"attention_value_batch_differs",
       one_op({shape({2, 5, 8}), shape({2, 6, 8}), shape({1, 6, 3})},
              OpKind::scaled_dot_product_attention, shape({2, 5, 3}), AttentionParams{}),
       "node 3 (scaled_dot_product_attention): leading axes of q, k, v differ: [2,5,8], [2,6,8], "
       "[1,6,3]",
       3},
      {"attention_embedding_differs",
       one_op({shape({2, 5, 8}), shape({2, 6, 4}), shape({2, 6, 3})},
              OpKind::scaled_dot_product_attention, shape({2, 5, 3}), AttentionParams{}),
       "node 3 (scaled_dot_product_attention): q and k differ in their last axis (E): [2,5,8], "
       "[2,6,4], [2,6,3]",
       3},
      {"attention_sequence_differs",
       one_op({shape({2, 5, 8}), shape({2, 6, 8}), shape({2, 7, 3})},
              OpKind::scaled_dot_product_attention, shape({2, 5, 3}), AttentionParams{}),
       "node 3 (scaled_dot_product_attention): k and v differ in their sequence axis (S): "
       "[2,5,8], [2,6,8], [2,7,3]",
       3},
      {"attention_declared_differs",
       one_op({shape({2, 5, 8}), shape({2, 6, 8}), shape({2, 6, 3})},
              OpKind::scaled_dot_product_attention, shape({2, 5, 8}), AttentionParams{}),
       "node 3 (scaled_dot_product_attention): declared shape [2,5,8] differs from inferred "
       "[2,5,3]",
       3},
      // The extension kinds that keep the parent's shape.
      {"gelu_declared_differs", one_op({shape({2, 3})}, OpKind::gelu, shape({3, 2}), GeluParams{}),
       "node 1 (gelu): declared shape [3,2] differs from inferred [2,3]", 1},
      {"clamp_declared_differs",
       one_op({shape({2, 3})}, OpKind::clamp, shape({3, 2}), ClampParams{.max = 1.0F}),
       "node 1 (clamp): declared shape [3,2] differs from inferred [2,3]", 1},
      {"scale_declared_differs",
       one_op({shape({2, 3})}, OpKind::scale, shape({6}), ScaleParams{.factor = 2.0F}),
       "node 1 (scale): declared shape [6] differs from inferred [2,3]", 1},
      {"softplus_declared_differs", one_op({shape({2, 3})}, OpKind::softplus, shape({})),
       "node 1 (softplus): declared shape [] differs from inferred [2,3]", 1},
      {"elu_declared_differs",
       one_op({shape({2, 3})}, OpKind::elu, shape({3, 2}), AlphaParams{.alpha = 1.0F}),
       "node 1 (elu): declared shape [3,2] differs from inferred [2,3]", 1},
      {"log_softmax_axis_out_of_range",
       one_op({shape({2, 10})}, OpKind::log_softmax, shape({2, 10}), axis(2)),
       "node 1 (log_softmax): axis 2 is out of range for [2,10] (rank 2)", 1},
      {"log_softmax_declared_differs",
       one_op({shape({2, 10})}, OpKind::log_softmax, shape({2}), axis(1)),
       "node 1 (log_softmax): declared shape [2] differs from inferred [2,10]", 1},
      {"permute_too_short",
       one_op({shape({2, 3, 4})}, OpKind::permute, shape({3, 2}), PermuteParams{{1, 0}}),
       "node 1 (permute): perm [1,0] has 2 entries, expected one per axis of [2,3,4]", 1},
      {"permute_axis_out_of_range",
       one_op({shape({2, 3, 4})}, OpKind::permute, shape({2, 4, 3}), PermuteParams{{0, 3, 1}}),
       "node 1 (permute): perm [0,3,1] names axis 3, out of range for [2,3,4] (rank 3)", 1},
      {"permute_repeats_axis",
       one_op({shape({2, 3, 4})}, OpKind::permute, shape({2, 2, 3}), PermuteParams{{0, 0, 1}}),
       "node 1 (permute): perm [0,0,1] repeats axis 0 (expected a permutation of the axes)", 1},
      {"permute_declared_differs",
       one_op({shape({2, 3, 4})}, OpKind::permute, shape({2, 3, 4}), PermuteParams{{2, 0, 1}}),
       "node 1 (permute): declared shape [2,3,4] differs from inferred [4,2,3]", 1},

      // Overflow at the 64-bit edge.
      {"input_count_overflows", one_op({}, OpKind::input, shape({k2to63, 2})),
       "node 1 (input): shape [9223372036854775808,2] has more elements than fit in 64 bits", 1},
      {"input_count_overflows_first_node",
       edited(unary_chain({OpKind::relu}),
              [](Graph& g) {
                g.nodes[0].shape = shape({k2to32, k2to32});
                g.nodes[1].shape = shape({k2to32, k2to32});
              }),
       "node 0 (input): shape [4294967296,4294967296] has more elements than fit in 64 bits", 0},
      {"rand_uniform_count_overflows",
       one_op({}, OpKind::rand_uniform, shape({kMax, kMax}), SeedParams{}),
       "node 1 (rand_uniform): shape [18446744073709551615,18446744073709551615] has more elements "
       "than fit in 64 bits",
       1},
      {"bernoulli_count_overflows",
       one_op({shape({})}, OpKind::bernoulli_mask, shape({k2to40, k2to40}), SeedParams{}),
       "node 1 (bernoulli_mask): shape [1099511627776,1099511627776] has more elements than fit in "
       "64 bits",
       1},
      {"concat_axis_sum_overflows",
       one_op({shape({k2to63}), shape({k2to63})}, OpKind::concat, shape({0}), axis(0)),
       "node 2 (concat): concatenated axis 0 overflows 64 bits (at parent 1)", 2},
      {"concat_count_overflows",
       one_op({shape({2, k2to63 - 1}), shape({2, k2to63 - 1})}, OpKind::concat,
              shape({4, k2to63 - 1}), axis(0)),
       "node 2 (concat): shape [4,9223372036854775807] has more elements than fit in 64 bits", 2},
      {"conv_padding_overflows",
       one_op({shape({1, 1, kMax, 1})}, OpKind::conv, shape({1, 1, kMax, 3}),
              conv(1, 1, {1, 1}, 1, 1)),
       "node 1 (conv): padded extent of axis 2 (18446744073709551615) overflows 64 bits", 1},
      {"conv_out_channels_overflow",
       one_op({shape({1, 1, k2to32, k2to32 - 1})}, OpKind::conv, shape({1, 2, k2to32, k2to32 - 1}),
              conv(1, 2, {1, 1})),
       "node 1 (conv): shape [1,2,4294967296,4294967295] has more elements than fit in 64 bits", 1},
      {"conv_transpose_extent_overflows",
       one_op({shape({1, 1, k2to63 + 1})}, OpKind::conv_transpose, shape({1, 1, 1}),
              tconv(1, 1, {1}, 2)),
       "node 1 (conv_transpose): transposed extent of axis 2 overflows 64 bits", 1},
      {"conv_transpose_window_overflows",  // (2^64-1 - 1)*1 + 2*1 + 1 wraps
       one_op({shape({1, 1, kMax})}, OpKind::conv_transpose, shape({1, 1, 1}), tconv(1, 1, {3})),
       "node 1 (conv_transpose): transposed extent of axis 2 overflows 64 bits", 1},
      {"conv_transpose_count_overflows",
       one_op({shape({1, 1, k2to32, k2to32 - 1})}, OpKind::conv_transpose,
              shape({1, 2, k2to32, k2to32 - 1}), tconv(1, 2, {1, 1})),
       "node 1 (conv_transpose): shape [1,2,4294967296,4294967295] has more elements than fit in "
       "64 bits",
       1},
      {"max_pool_padding_overflows",
       one_op({shape({1, 1, kMax - 1})}, OpKind::max_pool, shape({1, 1, 1}), pool(2, 1, 1)),
       "node 1 (max_pool): padded extent of axis 2 (18446744073709551614) overflows 64 bits", 1},
      {"broadcast_target_overflows",
       one_op({shape({1})}, OpKind::broadcast_to, shape({k2to32, k2to32}),
              BroadcastParams{shape({1}), shape({k2to32, k2to32})}),
       "node 1 (broadcast_to): shape [4294967296,4294967296] has more elements than fit in 64 bits",
       1},
      {"matmul_result_overflows",
       one_op({shape({k2to40, 1}), shape({1, k2to40})}, OpKind::matmul, shape({k2to40, k2to40})),
       "node 2 (matmul): shape [1099511627776,1099511627776] has more elements than fit in 64 bits",
       2},
      {"linear_result_overflows",
       one_op({shape({k2to40, 4})}, OpKind::linear, shape({k2to40, k2to40})),
       "node 1 (linear): shape [1099511627776,1099511627776] has more elements than fit in 64 bits",
       1},
      {"reshape_out_overflows",
       one_op({shape({4})}, OpKind::reshape, shape({k2to63, 4}),
              ReshapeParams{shape({4}), shape({k2to63, 4})}),
       "node 1 (reshape): element count of [9223372036854775808,4] overflows 64 bits", 1},
      {"matmul_broadcast_result_overflows",
       one_op({shape({k2to32, 1, 1, 1}), shape({k2to32, 1, 1})}, OpKind::matmul,
              shape({k2to32, k2to32, 1, 1})),
       "node 2 (matmul): shape [4294967296,4294967296,1,1] has more elements than fit in 64 bits",
       2},
      {"overflow_reported_at_the_input",
       one_op({shape({k2to63, 1, 2})}, OpKind::transpose, shape({1, k2to63, 2}), transpose(0, 1)),
       "node 0 (input): shape [9223372036854775808,1,2] has more elements than fit in 64 bits", 0},
  };
}

void PrintTo(const InvalidCase& c, std::ostream* os) {
  *os << c.name;
}

class CheckInvalidTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(CheckInvalidTest, ReportsTheNodeAndTheRule) {
  const InvalidCase& c = GetParam();
  const Expected<CheckedGraph> checked = check(c.graph);
  ASSERT_FALSE(checked.has_value()) << "graph was accepted";
  const Error& error = checked.error();
  EXPECT_EQ(error.kind, ErrorKind::invalid_input);
  if (c.match == Match::exact) {
    EXPECT_EQ(error.message, c.fragment);
  } else {
    EXPECT_NE(error.message.find(c.fragment), std::string::npos)
        << "message: " << error.message << "\nexpected fragment: " << c.fragment;
  }
  EXPECT_EQ(error.position, c.position) << error.message;
  EXPECT_EQ(error.message.find('\n'), std::string::npos);
  ASSERT_FALSE(error.message.empty());
  EXPECT_FALSE(std::isupper(static_cast<unsigned char>(error.message.front())));
  EXPECT_NE(error.message.back(), '.');
}

INSTANTIATE_TEST_SUITE_P(Malformed, CheckInvalidTest, ::testing::ValuesIn(invalid_cases()),
                         [](const auto& info) { return fixtures::test_name(info.param.name); });

TEST(CheckInvalidTest, TableIsLargeAndNamesAreUnique) {
  const std::vector<InvalidCase> cases = invalid_cases();
  EXPECT_GE(cases.size(), 40u);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    for (std::size_t j = i + 1; j < cases.size(); ++j)
      EXPECT_NE(cases[i].name, cases[j].name);
  }
}

// ---------------------------------------------------------------------------------------------
// CheckedGraphBuilder: the incremental form of check.

// Whether `kind`'s shape is (partly) declared rather than inferred from its parents.
bool declares_shape(OpKind kind) {
  return reads_declared_shape(op_traits(kind).shape_rule);
}

// Every valid graph, rebuilt node by node with the inferred shapes left out (kept only where the
// kind declares them), comes out equal to the graph check() accepts.
TEST(CheckedGraphBuilderTest, RebuildsEveryValidCaseInferringShapes) {
  for (const ValidCase& c : valid_cases()) {
    CheckedGraphBuilder builder;
    for (Node node : c.graph.nodes) {
      if (!declares_shape(node.kind)) node.shape = Shape{};
      node.id = 12345;  // the builder numbers nodes itself
      const Expected<NodeId> id = builder.add(std::move(node));
      ASSERT_TRUE(id.has_value()) << c.name << ": " << id.error().message;
    }
    Expected<CheckedGraph> built = std::move(builder).finish(c.graph.input_id, c.graph.output_ids);
    ASSERT_TRUE(built.has_value()) << c.name << ": " << built.error().message;
    EXPECT_EQ(built->graph(), c.graph) << c.name;
  }
}

// Whatever the malformed graphs make of the builder, what it finishes passes check().
// (Cases the builder repairs, such as a wrong declared shape or an id that is not its index, do
// finish; the others stop at the node or endpoint that breaks a rule.)
TEST(CheckedGraphBuilderTest, NeverFinishesAGraphCheckRejects) {
  std::size_t finished = 0;
  std::size_t refused = 0;
  for (const InvalidCase& c : invalid_cases()) {
    CheckedGraphBuilder builder;
    bool added = true;
    for (const Node& node : c.graph.nodes)
      added = added && builder.add(node).has_value();
    Expected<CheckedGraph> built =
        added ? std::move(builder).finish(c.graph.input_id, c.graph.output_ids)
              : Expected<CheckedGraph>(std::unexpected(Error{}));
    if (!built) {
      ++refused;
      continue;
    }
    ++finished;
    EXPECT_TRUE(check(built->graph()).has_value()) << c.name;
  }
  EXPECT_GT(finished, 0u) << "no case exercised the property";
  EXPECT_GT(refused, 0u);
}

TEST(CheckedGraphBuilderTest, ARejectedNodeIsNotAddedAndNamesTheRule) {
  CheckedGraphBuilder builder;
  ASSERT_TRUE(builder.add(Node{.kind = OpKind::input, .shape = shape({2, 3})}).has_value());
  const Expected<NodeId> bad = builder.add(Node{.kind = OpKind::relu, .parents = {5}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message, "node 1 (relu): parent 5 does not exist (the graph has 1 node)");
  const Expected<NodeId> mismatched =
      builder.add(Node{.kind = OpKind::matmul, .parents = {0, 0}});  // [2,3] x [2,3]
  ASSERT_FALSE(mismatched.has_value());
  EXPECT_NE(mismatched.error().message.find("node 1 (matmul): inner dimensions differ"),
            std::string::npos)
      << mismatched.error().message;
  EXPECT_EQ(builder.graph().nodes.size(), 1u);
  const Expected<NodeId> good = builder.add(Node{.kind = OpKind::relu, .parents = {0}});
  ASSERT_TRUE(good.has_value());
  EXPECT_EQ(*good, 1u);
  EXPECT_EQ(builder.graph().nodes[1].shape, shape({2, 3}));
}

TEST(CheckedGraphBuilderTest, NodeBuiltInPlaceIsCheckedAgainstTheNodesBeforeIt) {
  CheckedGraphBuilder builder;
  ASSERT_TRUE(builder.add(OpKind::input, {}, {}, shape({2, 3}), "x").has_value());
  // The node under test already sits at index 1; its own slot is not a parent it may name.
  const Expected<NodeId> self = builder.add(OpKind::relu, {1}, {}, {}, "r");
  ASSERT_FALSE(self.has_value());
  EXPECT_EQ(self.error().message, "node 1 (relu): parent 1 does not exist (the graph has 1 node)");
  const Expected<NodeId> wrong_params = builder.add(OpKind::relu, {0}, AxisParams{1}, {}, "r");
  ASSERT_FALSE(wrong_params.has_value());
  EXPECT_EQ(wrong_params.error().message, "node 1 (relu): has axis parameters, expected none");
  EXPECT_EQ(builder.graph().nodes.size(), 1u);
  const Expected<NodeId> permuted =
      builder.add(OpKind::permute, {0}, PermuteParams{{1, 0}}, shape({7}), "model/transpose");
  ASSERT_TRUE(permuted.has_value());
  const Node& node = builder.graph().nodes[*permuted];
  EXPECT_EQ(node.id, 1u);
  EXPECT_EQ(node.shape, shape({3, 2}));  // inferred; the declared [7] is not a declared kind's
  EXPECT_EQ(node.params, OpParams(PermuteParams{{1, 0}}));
  EXPECT_EQ(node.source_name, "model/transpose");
  EXPECT_EQ(builder.graph().nodes[0].source_name, "x");
}

TEST(CheckedGraphBuilderTest, FinishChecksTheEndpoints) {
  const auto two_nodes = [] {
    CheckedGraphBuilder builder;
    EXPECT_TRUE(builder.add(Node{.kind = OpKind::input, .shape = shape({2})}).has_value());
    EXPECT_TRUE(builder.add(Node{.kind = OpKind::relu, .parents = {0}}).has_value());
    return builder;
  };
  Expected<CheckedGraph> not_input = two_nodes().finish(1, {1});
  ASSERT_FALSE(not_input.has_value());
  EXPECT_EQ(not_input.error().message, "input_id 1 names node 1 (relu), expected an input node");
  Expected<CheckedGraph> no_output = two_nodes().finish(0, {1, 2});
  ASSERT_FALSE(no_output.has_value());
  EXPECT_EQ(no_output.error().message,
            "output_ids[1] 2 does not name a node (the graph has 2 nodes)");
  Expected<CheckedGraph> no_outputs = two_nodes().finish(0, {});
  ASSERT_FALSE(no_outputs.has_value());
  EXPECT_EQ(no_outputs.error().message, "output_ids is empty (a graph has at least one output)");
  Expected<CheckedGraph> empty = CheckedGraphBuilder().finish(0, {0});
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().message, "graph has no nodes");
  Expected<CheckedGraph> ok = two_nodes().finish(0, {1});
  ASSERT_TRUE(ok.has_value()) << ok.error().message;
  EXPECT_EQ(ok->graph().output_ids, (std::vector<NodeId>{1}));
  Expected<CheckedGraph> several = two_nodes().finish(0, {1, 0, 1});
  ASSERT_TRUE(several.has_value()) << several.error().message;
  EXPECT_EQ(several->graph().output_ids, (std::vector<NodeId>{1, 0, 1}));
}

// ---------------------------------------------------------------------------------------------
// infer_shape on its own: nodes not (yet) in a checked graph.

TEST(CheckInferShapeTest, ProposedNodeAgainstAnExistingGraph) {
  const Graph g = unary_chain({OpKind::relu});
  const Node proposed{.id = 2,
                      .kind = OpKind::permute,
                      .parents = {1},
                      .shape = shape({}),
                      .params = PermuteParams{{1, 0}}};
  const Expected<Shape> inferred = infer_shape(g, proposed);
  ASSERT_TRUE(inferred.has_value()) << inferred.error().message;
  EXPECT_EQ(*inferred, shape({3, 2}));
}

TEST(CheckInferShapeTest, RejectsWhatCheckWouldReject) {
  const Graph g = unary_chain({OpKind::relu});
  struct Case {
    Node node;
    std::string message;
  };
  const std::vector<Case> cases = {
      {Node{.id = 2, .kind = OpKind::relu, .parents = {5}},
       "node 2 (relu): parent 5 does not exist (the graph has 2 nodes)"},
      {Node{.id = 1, .kind = OpKind::relu, .parents = {1}},
       "node 1 (relu): parent 1 is not below the node (parents must have smaller ids)"},
      {Node{.id = 2, .kind = OpKind::matmul, .parents = {1}},
       "node 2 (matmul): has 1 parent, expected 2"},
      {Node{.id = 2, .kind = OpKind::flatten, .parents = {1}},
       "node 2 (flatten): has no parameters, expected flatten parameters"},
      {Node{.id = 2, .kind = OpKind::sum, .parents = {1}, .params = SeedParams{3}},
       "node 2 (sum): has seed parameters, expected none"},
      {Node{.id = 2, .kind = static_cast<OpKind>(200), .parents = {1}},
       "node 2: unknown op kind 200"},
  };
  for (const Case& c : cases) {
    const Expected<Shape> inferred = infer_shape(g, c.node);
    ASSERT_FALSE(inferred.has_value()) << c.message;
    EXPECT_EQ(inferred.error().message, c.message);
    EXPECT_EQ(inferred.error().position, c.node.id);
  }
}

TEST(CheckInferShapeTest, FlattenOfAnOverflowingParent) {
  // check() stops at the parent; infer_shape alone must still refuse to wrap the count.
  Graph g = one_op({}, OpKind::input, shape({k2to63, 2}));
  const Node flatten{.id = 2,
                     .kind = OpKind::flatten,
                     .parents = {1},
                     .params = FlattenParams{shape({k2to63, 2})}};
  const Expected<Shape> inferred = infer_shape(g, flatten);
  ASSERT_FALSE(inferred.has_value());
  EXPECT_EQ(inferred.error().message,
            "node 2 (flatten): element count of [9223372036854775808,2] overflows 64 bits");
}

TEST(CheckInferShapeTest, PermuteOfHighRank) {
  // More than 64 axes takes the allocating path of the repeat check.
  std::vector<Dim> dims(70, 1);
  dims[0] = 2;
  std::vector<std::uint32_t> perm(70);
  for (std::uint32_t i = 0; i < 70; ++i)
    perm[i] = 69 - i;
  GraphBuilder b;
  b.input(Shape{dims});
  const Graph g = std::move(b).build();
  Node node{.id = 1, .kind = OpKind::permute, .parents = {0}, .params = PermuteParams{perm}};
  const Expected<Shape> inferred = infer_shape(g, node);
  ASSERT_TRUE(inferred.has_value()) << inferred.error().message;
  EXPECT_EQ(inferred->dims.back(), 2u);
  perm[5] = 7;
  node.params = PermuteParams{perm};
  const Expected<Shape> repeated = infer_shape(g, node);
  ASSERT_FALSE(repeated.has_value());
  EXPECT_NE(repeated.error().message.find("repeats axis 7"), std::string::npos);
}

}  // namespace
}  // namespace nnplan::ir

namespace nnplan::ir {
namespace {

// A graph of an input of `dtype` and a relu of it declared `relu_dtype`.
Graph relu_of_input(DType dtype, DType relu_dtype) {
  Graph g;
  g.input_id = 0;
  g.output_ids = {1};
  g.nodes.push_back(Node{.id = 0, .kind = OpKind::input, .shape = shape({2}), .dtype = dtype});
  g.nodes.push_back(Node{
      .id = 1, .kind = OpKind::relu, .parents = {0}, .shape = shape({2}), .dtype = relu_dtype});
  return g;
}

TEST(CheckDtype, InputsAndConstsDeclareTheirsEveryOtherKindTakesAndMakesFloat32) {
  EXPECT_TRUE(check(relu_of_input(DType::float32, DType::float32)).has_value());
  Graph passthrough = relu_of_input(DType::int64, DType::float32);
  passthrough.nodes.pop_back();
  passthrough.output_ids = {0};
  EXPECT_TRUE(check(passthrough).has_value()) << "an int64 input is a value of its own";
  Graph bool_const;
  bool_const.output_ids = {1};
  bool_const.nodes.push_back(Node{.id = 0, .kind = OpKind::input, .shape = shape({1})});
  bool_const.nodes.push_back(Node{.id = 1,
                                  .kind = OpKind::const_,
                                  .shape = shape({3}),
                                  .params = ConstParams{shape({3})},
                                  .dtype = DType::boolean});
  EXPECT_TRUE(check(bool_const).has_value());

  const auto int_parent = check(relu_of_input(DType::int64, DType::float32));
  ASSERT_FALSE(int_parent.has_value());
  EXPECT_EQ(int_parent.error().message,
            "node 1 (relu): parent 0 (node 0 (input)) has dtype int64; relu takes float32 values");
  EXPECT_EQ(int_parent.error().position, 1U);
  const auto declared = check(relu_of_input(DType::float32, DType::boolean));
  ASSERT_FALSE(declared.has_value());
  EXPECT_EQ(declared.error().message,
            "node 1 (relu): declared dtype bool differs from inferred float32");
}

TEST(CheckDtype, TheBuilderAppliesTheSameRule) {
  CheckedGraphBuilder builder;
  ASSERT_TRUE(builder.add(Node{.kind = OpKind::input, .shape = shape({2}), .dtype = DType::int64})
                  .has_value());
  EXPECT_EQ(builder.graph().nodes[0].dtype, DType::int64);
  const auto refused = builder.add(Node{.kind = OpKind::relu, .parents = {0}});
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().message,
            "node 1 (relu): parent 0 (node 0 (input)) has dtype int64; relu takes float32 values");
  EXPECT_EQ(builder.graph().nodes.size(), 1U);
}

// Comparisons take parents of one dtype and make bool; logic ops take and make bool; where takes a
// bool condition and two values of one dtype; a cast makes the dtype it declares, of any parent.
TEST(CheckDtype, ComparisonsLogicWhereAndCast) {
  CheckedGraphBuilder builder;
  ASSERT_TRUE(builder.add(Node{.kind = OpKind::input, .shape = shape({2})}).has_value());
  ASSERT_TRUE(
      builder.add(Node{.id = 1, .kind = OpKind::input, .shape = shape({2}), .dtype = DType::int64})
          .has_value());
  const auto less = builder.add(OpKind::less, {1, 1}, {}, {}, "");
  ASSERT_TRUE(less.has_value()) << less.error().message;
  EXPECT_EQ(builder.graph().nodes[2].dtype, DType::boolean);
  const auto mixed = builder.add(OpKind::equal, {0, 1}, {}, {}, "");
  ASSERT_FALSE(mixed.has_value());
  EXPECT_EQ(mixed.error().message,
            "node 3 (equal): parent 1 (node 1 (input)) has dtype int64; equal takes values of "
            "one dtype (parent 0 is float32)");
  const auto both = builder.add(OpKind::and_, {2, 2}, {}, {}, "");
  ASSERT_TRUE(both.has_value()) << both.error().message;
  const auto not_bool = builder.add(OpKind::not_, {1}, {}, {}, "");
  ASSERT_FALSE(not_bool.has_value());
  EXPECT_EQ(not_bool.error().message,
            "node 4 (not): parent 0 (node 1 (input)) has dtype int64; not takes bool values");
  const auto picked = builder.add(OpKind::where, {2, 1, 1}, {}, {}, "");
  ASSERT_TRUE(picked.has_value()) << picked.error().message;
  EXPECT_EQ(builder.graph().nodes[4].dtype, DType::int64);
  const auto float_condition = builder.add(OpKind::where, {0, 1, 1}, {}, {}, "");
  ASSERT_FALSE(float_condition.has_value());
  EXPECT_EQ(float_condition.error().message,
            "node 5 (where): parent 0 (node 0 (input)) has dtype float32; where takes a bool "
            "condition as parent 0");
  const auto two_dtypes = builder.add(OpKind::where, {2, 0, 1}, {}, {}, "");
  ASSERT_FALSE(two_dtypes.has_value());
  EXPECT_EQ(two_dtypes.error().message,
            "node 5 (where): parent 2 (node 1 (input)) has dtype int64; where takes values of "
            "one dtype (parent 1 is float32)");
  const auto cast = builder.add(OpKind::cast, {2}, {}, {}, "", DType::float32);
  ASSERT_TRUE(cast.has_value()) << cast.error().message;
  const auto cast_to_bool = builder.add(OpKind::cast, {1}, {}, {}, "", DType::boolean);
  ASSERT_TRUE(cast_to_bool.has_value()) << cast_to_bool.error().message;
  EXPECT_EQ(builder.graph().nodes[6].dtype, DType::boolean);
}

// gather_elements takes int64 indices of the data's rank, longer only along its axis.
TEST(CheckShape, GatherElementsIndicesFitTheData) {
  const auto message = [](Graph g) {
    const Expected<CheckedGraph> s = check(std::move(g));
    return s.has_value() ? std::string("valid") : s.error().message;
  };
  EXPECT_EQ(message(one_op({shape({2, 3}), shape({3, 1})}, OpKind::gather_elements, shape({3, 1}),
                           AxisParams{1})),
            "node 2 (gather_elements): indices [3,1] are longer than data [2,3] on axis 0 (only "
            "`axis` may index past the data's extent)");
  EXPECT_EQ(message(one_op({shape({2, 3}), shape({2})}, OpKind::gather_elements, shape({2}),
                           AxisParams{0})),
            "node 2 (gather_elements): indices [2] and data [2,3] differ in rank; gather_elements "
            "takes indices of the data's rank");
  Graph floats =
      one_op({shape({2, 3}), shape({2, 3})}, OpKind::gather_elements, shape({2, 3}), AxisParams{0});
  floats.nodes[1].dtype = DType::float32;
  EXPECT_EQ(message(std::move(floats)),
            "node 2 (gather_elements): parent 1 (node 1 (input)) has dtype float32; "
            "gather_elements takes int64 indices");
}

// gather with int64 indices as parent 1: the data's axis is replaced by the indices' shape, the
// data may be of any dtype, and the indices must be int64.
TEST(CheckShape, GatherByValueTakesTheIndicesShapeFromItsSecondParent) {
  const auto message = [](Graph g) {
    const Expected<CheckedGraph> s = check(std::move(g));
    return s.has_value() ? std::string("valid") : s.error().message;
  };
  EXPECT_EQ(message(one_op({shape({10, 4}), shape({2, 3})}, OpKind::gather, shape({2, 3, 4}),
                           AxisParams{0})),
            "valid");
  EXPECT_EQ(
      message(one_op({shape({10, 4}), shape({})}, OpKind::gather, shape({10}), AxisParams{1})),
      "valid");
  EXPECT_EQ(message(one_op({shape({10, 4}), shape({2, 3})}, OpKind::gather, shape({3, 2, 4}),
                           AxisParams{0})),
            "node 2 (gather): declared shape [3,2,4] is not parent [10,4] with axis 0 replaced by "
            "the indices' shape [2,3]");
  Graph ints = one_op({shape({10, 4}), shape({5})}, OpKind::gather, shape({5, 4}), AxisParams{0});
  ints.nodes[0].dtype = DType::int64;
  ints.nodes[2].dtype = DType::int64;
  EXPECT_EQ(message(std::move(ints)), "valid");
  Graph floats = one_op({shape({10, 4}), shape({5})}, OpKind::gather, shape({5, 4}), AxisParams{0});
  floats.nodes[1].dtype = DType::float32;
  EXPECT_EQ(message(std::move(floats)),
            "node 2 (gather): parent 1 (node 1 (input)) has dtype float32; gather takes int64 "
            "indices");
  // One parent (indices from the payload) takes float32 data only.
  Graph by_payload = one_op({shape({10, 4})}, OpKind::gather, shape({5, 4}), AxisParams{0});
  by_payload.nodes[0].dtype = DType::int64;
  EXPECT_EQ(message(std::move(by_payload)),
            "node 1 (gather): parent 0 (node 0 (input)) has dtype int64; gather takes float32 "
            "values");
}

// The scatters: indices and updates must fit the data; indices int64, updates the data's dtype.
TEST(CheckShape, ScattersTakeIndicesAndUpdatesThatFitTheData) {
  const auto message = [](Graph g) {
    const Expected<CheckedGraph> s = check(std::move(g));
    return s.has_value() ? std::string("valid") : s.error().message;
  };
  EXPECT_EQ(message(one_op({shape({3, 4}), shape({4, 2}), shape({4, 2})}, OpKind::scatter_elements,
                           shape({3, 4}), ScatterParams{.axis = 1})),
            "node 3 (scatter_elements): indices [4,2] are longer than data [3,4] on axis 0 (only "
            "`axis` may index past the data's extent)");
  EXPECT_EQ(message(one_op({shape({3, 4}), shape({2, 2}), shape({2, 3})}, OpKind::scatter_elements,
                           shape({3, 4}), ScatterParams{.axis = 1})),
            "node 3 (scatter_elements): updates [2,3] differ from the indices' shape [2,2]");
  EXPECT_EQ(message(one_op({shape({3, 4}), shape({2}), shape({2})}, OpKind::scatter_elements,
                           shape({3, 4}), ScatterParams{.axis = 0})),
            "node 3 (scatter_elements): indices [2] and data [3,4] differ in rank; "
            "scatter_elements takes indices of the data's rank");
  EXPECT_EQ(message(one_op({shape({3, 4}), shape({2, 3}), shape({2})}, OpKind::scatter_nd,
                           shape({3, 4}), ScatterParams{})),
            "node 3 (scatter_nd): indices [2,3] must end in an axis of 1 to 2 (the data [3,4]'s "
            "rank): each row names one element or slice");
  EXPECT_EQ(
      message(one_op({shape({3, 4}), shape({2, 1}), shape({2, 3})}, OpKind::scatter_nd,
                     shape({3, 4}), ScatterParams{})),
      "node 3 (scatter_nd): updates [2,3] are not [2,4] (the indices' leading shape, then the "
      "data's from axis 1)");
  Graph floats = one_op({shape({3, 4}), shape({2, 1}), shape({2, 4})}, OpKind::scatter_nd,
                        shape({3, 4}), ScatterParams{});
  floats.nodes[1].dtype = DType::float32;
  EXPECT_EQ(message(std::move(floats)),
            "node 3 (scatter_nd): parent 1 (node 1 (input)) has dtype float32; scatter_nd takes "
            "int64 indices");
  Graph mixed = one_op({shape({3, 4}), shape({2, 1}), shape({2, 4})}, OpKind::scatter_nd,
                       shape({3, 4}), ScatterParams{});
  mixed.nodes[0].dtype = DType::int64;
  mixed.nodes[3].dtype = DType::int64;
  EXPECT_EQ(message(std::move(mixed)),
            "node 3 (scatter_nd): parent 2 (node 2 (input)) has dtype float32; scatter_nd takes "
            "updates of the data's dtype, int64");
}

// The arithmetic dtype rule: mod takes int64, fmod and cum_sum float32 or int64 of one dtype; a
// scatter adds or multiplies only float32 or int64 data. Each is refused when the graph is
// checked, before anything runs.
TEST(CheckDtype, ArithmeticAndScatterReductionsRefuseWhatNoKernelRuns) {
  const auto message = [](Graph g) {
    const Expected<CheckedGraph> s = check(std::move(g));
    return s.has_value() ? std::string("valid") : s.error().message;
  };
  Graph floats_mod = one_op({shape({2}), shape({2})}, OpKind::mod, shape({2}));
  for (Node& n : floats_mod.nodes)
    n.dtype = DType::float32;
  EXPECT_EQ(message(std::move(floats_mod)),
            "node 2 (mod): parent 0 (node 0 (input)) has dtype float32; mod takes int64 values");
  Graph mixed = one_op({shape({2}), shape({2})}, OpKind::fmod, shape({2}));
  mixed.nodes[1].dtype = DType::int64;
  EXPECT_EQ(message(std::move(mixed)),
            "node 2 (fmod): parent 1 (node 1 (input)) has dtype int64; fmod takes float32 or "
            "int64 values of one dtype");
  Graph flags = one_op({shape({3})}, OpKind::cum_sum, shape({3}), CumSumParams{});
  flags.nodes[0].dtype = DType::boolean;
  flags.nodes[1].dtype = DType::boolean;
  EXPECT_EQ(message(std::move(flags)),
            "node 1 (cum_sum): parent 0 (node 0 (input)) has dtype bool; cum_sum takes float32 or "
            "int64 values of one dtype");
  Graph longs = one_op({shape({3})}, OpKind::cum_sum, shape({3}), CumSumParams{});
  longs.nodes[0].dtype = DType::int64;
  longs.nodes[1].dtype = DType::int64;
  EXPECT_EQ(message(std::move(longs)), "valid");
  const auto bool_scatter = [](ScatterReduction r) {
    Graph g = one_op({shape({3}), shape({1, 1}), shape({1})}, OpKind::scatter_nd, shape({3}),
                     ScatterParams{.reduction = r});
    g.nodes[0].dtype = DType::boolean;
    g.nodes[2].dtype = DType::boolean;
    g.nodes[3].dtype = DType::boolean;
    return g;
  };
  EXPECT_EQ(message(bool_scatter(ScatterReduction::none)), "valid");
  EXPECT_EQ(message(bool_scatter(ScatterReduction::add)),
            "node 3 (scatter_nd): scatter_nd adds or multiplies float32 or int64 data, not bool; "
            "bool data takes reduction none");
}

// Operands that do not broadcast are refused naming the parent and the axis.
TEST(CheckShape, BroadcastOperandsMustBroadcast) {
  const Expected<CheckedGraph> s =
      check(one_op({shape({2, 3}), shape({4, 3})}, OpKind::equal, shape({2, 3})));
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().message,
            "node 2 (equal): parent 1 [4,3] does not broadcast with the other parents: its "
            "dimension 0 is 4 where another has 2 (each must be equal or 1)");
}

// argmax and argmin make int64 indices of a float32 parent; reshape and flatten keep their
// parent's dtype; the builder infers each where no dtype is declared.
TEST(CheckDtype, ArgmaxMakesInt64AndReshapeKeepsItsParentsDtype) {
  CheckedGraphBuilder builder;
  ASSERT_TRUE(builder.add(Node{.kind = OpKind::input, .shape = shape({2, 3})}).has_value());
  const auto arg = builder.add(OpKind::argmax, {0}, AxisParams{.axis = 1}, {}, "");
  ASSERT_TRUE(arg.has_value()) << arg.error().message;
  EXPECT_EQ(builder.graph().nodes[1].dtype, DType::int64);
  const auto kept =
      builder.add(OpKind::reshape, {1}, ReshapeParams{shape({2}), shape({2, 1})}, {}, "");
  ASSERT_TRUE(kept.has_value()) << kept.error().message;
  EXPECT_EQ(builder.graph().nodes[2].dtype, DType::int64);
  const auto refused = builder.add(OpKind::relu, {2}, {}, {}, "");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(
      refused.error().message,
      "node 3 (relu): parent 0 (node 2 (reshape)) has dtype int64; relu takes float32 values");
  const auto of_int = builder.add(OpKind::argmin, {1}, AxisParams{.axis = 0}, {}, "");
  ASSERT_FALSE(of_int.has_value());
  EXPECT_EQ(of_int.error().message,
            "node 3 (argmin): parent 0 (node 1 (argmax)) has dtype int64; argmin takes float32 "
            "values");
  // Declared: an argmax that says float32 is refused naming what it makes.
  const auto declared =
      builder.add(OpKind::argmax, {0}, AxisParams{.axis = 0}, {}, "", DType::float32);
  ASSERT_FALSE(declared.has_value());
  EXPECT_EQ(declared.error().message,
            "node 3 (argmax): declared dtype float32 differs from inferred int64");
}

}  // namespace
}  // namespace nnplan::ir
