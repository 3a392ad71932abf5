// Shared builders for the graph-planning tests (graph planning, lowering, audit, gate,
// acceptance): a valid one-op graph for every IR kind, the SPEC §6 kind → backend-op table written
// out by hand (so the tests do not check the mapping against itself), and a checked-graph helper.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "../ir/graph_fixtures.hpp"
#include "nnplan/backend/vocabulary.hpp"
#include "nnplan/error.hpp"
#include "nnplan/ir/check.hpp"
#include "nnplan/ir/graph.hpp"

namespace nnplan::backend::fixtures {

using ir::fixtures::GraphBuilder;
using ir::fixtures::shape;

// SPEC §6 verbatim: the backend op each IR kind runs, nullopt for no runtime work.
inline std::optional<BackendOp> spec_backend_op(ir::OpKind kind) {
  using K = ir::OpKind;
  using B = BackendOp;
  switch (kind) {
    case K::input:
    case K::const_:
    case K::detach:
      return std::nullopt;
    case K::rand_uniform:
      return B::rand_uniform;
    case K::bernoulli_mask:
      return B::bernoulli_mask;
    case K::add:
      return B::add;
    case K::sub:
      return B::sub;
    case K::mul_elem:
      return B::mul;
    case K::abs:
      return B::abs;
    case K::sqrt:
      return B::sqrt;
    case K::inv:
      return B::inv;
    case K::max_elem:
      return B::max;
    case K::min_elem:
      return B::min;
    case K::pow:
      return B::pow;
    case K::relu:
      return B::relu;
    case K::tanh:
      return B::tanh;
    case K::sigmoid:
      return B::sigmoid;
    case K::exp:
      return B::exp;
    case K::leaky_relu:
      return B::leaky_relu;
    case K::elu:
      return B::elu;
    case K::softsign:
      return B::softsign;
    case K::floor:
      return B::floor;
    case K::ceil:
      return B::ceil;
    case K::round:
      return B::round;
    case K::sign:
      return B::sign;
    case K::tan:
      return B::tan;
    case K::asin:
      return B::asin;
    case K::acos:
      return B::acos;
    case K::atan:
      return B::atan;
    case K::sinh:
      return B::sinh;
    case K::cosh:
      return B::cosh;
    case K::asinh:
      return B::asinh;
    case K::acosh:
      return B::acosh;
    case K::atanh:
      return B::atanh;
    case K::erf:
      return B::erf;
    case K::log:
      return B::log;
    case K::sin:
      return B::sin;
    case K::cos:
      return B::cos;
    case K::mse_loss:
      return B::mse_loss;
    case K::matmul:
      return B::matmul;
    case K::linear:
      return B::linear;
    case K::conv:
      return B::conv;
    case K::conv_transpose:
      return B::conv_transpose;
    case K::max_pool:
      return B::max_pool;
    case K::avg_pool:
      return B::avg_pool;
    case K::softplus:
      return B::softplus;
    case K::safe_log:
      return B::safe_log;
    case K::gelu:
      return B::gelu;
    case K::clamp:
      return B::clamp;
    case K::scale:
      return B::scale;
    case K::slice:
      return B::slice;
    case K::gather:
      return B::gather;
    case K::log_softmax:
      return B::log_softmax;
    case K::hard_masked_softmax:
      return B::hard_masked_softmax;
    case K::scaled_dot_product_attention:
      return B::scaled_dot_product_attention;
    case K::broadcast_to:
      return B::broadcast;
    case K::reduce_sum:
    case K::sum:
      return B::reduce_sum;
    case K::reduce_mean:
      return B::reduce_mean;
    case K::reduce_max:
      return B::reduce_max;
    case K::reduce_min:
      return B::reduce_min;
    case K::reduce_prod:
      return B::reduce_prod;
    case K::argmax:
      return B::argmax;
    case K::argmin:
      return B::argmin;
    case K::top_k:
      return B::top_k;
    case K::cum_sum:
      return B::cum_sum;
    case K::scatter_elements:
      return B::scatter_elements;
    case K::scatter_nd:
      return B::scatter_nd;
    case K::gather_nd:
      return B::gather_nd;
    case K::mod:
      return B::mod;
    case K::fmod:
      return B::fmod;
    case K::rnn:
      return B::rnn;
    case K::gru:
      return B::gru;
    case K::lstm:
      return B::lstm;
    case K::grid_sample:
      return B::grid_sample;
    case K::max_unpool:
      return B::max_unpool;
    case K::resize:
      return B::resize;
    case K::roi_align:
      return B::roi_align;
    case K::max_pool_indices:
      return B::max_pool_indices;
    case K::hard_sigmoid:
      return B::hard_sigmoid;
    case K::hard_swish:
      return B::hard_swish;
    case K::silu:
      return B::silu;
    case K::equal:
      return B::equal;
    case K::less:
      return B::less;
    case K::less_or_equal:
      return B::less_or_equal;
    case K::greater:
      return B::greater;
    case K::greater_or_equal:
      return B::greater_or_equal;
    case K::and_:
      return B::and_;
    case K::or_:
      return B::or_;
    case K::xor_:
      return B::xor_;
    case K::not_:
      return B::not_;
    case K::where:
      return B::where;
    case K::cast:
      return B::cast;
    case K::gather_elements:
      return B::gather_elements;
    case K::softmax:
      return B::softmax;
    case K::layernorm:
      return B::layer_norm;
    case K::reshape:
    case K::flatten:
      return B::reshape;
    case K::concat:
      return B::concat;
    case K::transpose:
    case K::permute:
      return B::permute;
    case K::batch_norm_eval:
      return B::batch_norm;
  }
  return std::nullopt;
}

// A valid graph whose last node has `kind`; every other node is an `input` (no runtime work), so
// the graph plans to at most one kernel. For `input` the graph is that single node.
inline ir::Graph one_op_graph(ir::OpKind kind) {
  using K = ir::OpKind;
  using ir::fixtures::one_op;
  const ir::Shape m = shape({4, 4});
  switch (kind) {
    case K::input: {
      GraphBuilder b;
      b.input(m);
      return std::move(b).build();
    }
    case K::const_:
      return one_op({}, kind, m, ir::ConstParams{m});
    case K::rand_uniform:
      return one_op({}, kind, m, ir::SeedParams{7});
    case K::bernoulli_mask:
      return one_op({shape({})}, kind, m, ir::SeedParams{7});
    case K::permute:
      return one_op({shape({2, 3})}, kind, shape({3, 2}), ir::PermuteParams{{1, 0}});
    case K::detach:
    case K::abs:
    case K::sqrt:
    case K::inv:
    case K::relu:
    case K::tanh:
    case K::sigmoid:
    case K::exp:
    case K::log:
    case K::sin:
    case K::cos:
    case K::softplus:
    case K::softsign:
    case K::floor:
    case K::ceil:
    case K::round:
    case K::sign:
    case K::tan:
    case K::asin:
    case K::acos:
    case K::atan:
    case K::sinh:
    case K::cosh:
    case K::asinh:
    case K::acosh:
    case K::atanh:
    case K::erf:
    case K::hard_swish:
    case K::silu:
      return one_op({m}, kind, m);
    case K::hard_sigmoid:
      return one_op({m}, kind, m, ir::HardSigmoidParams{.alpha = 0.2F, .beta = 0.5F});
    case K::leaky_relu:
    case K::elu:
      return one_op({m}, kind, m, ir::AlphaParams{.alpha = 0.25F});
    case K::safe_log:
      return one_op({m, shape({})}, kind, m);
    case K::gelu:
      return one_op({m}, kind, m, ir::GeluParams{.approximate = ir::GeluApproximation::tanh});
    case K::clamp:
      return one_op({m}, kind, m, ir::ClampParams{.min = 0.0F, .max = 6.0F});
    case K::scale:
      return one_op({m}, kind, m, ir::ScaleParams{.factor = 0.5F});
    case K::slice:
      return one_op({m}, kind, shape({4, 2}),
                    ir::SliceParams{.axis = 1, .start = 1, .end = 4, .step = 2});
    case K::gather:
      return one_op({m}, kind, shape({3, 4}), ir::AxisParams{0});
    case K::add:
    case K::sub:
    case K::mul_elem:
    case K::max_elem:
    case K::min_elem:
    case K::pow:
      return one_op({m, m}, kind, m);
    case K::mse_loss:
      return one_op({m, m}, kind, shape({}));
    case K::max_pool:
    case K::avg_pool:
      return one_op(
          {shape({4, 8, 8})}, kind, shape({4, 4, 4}),
          ir::PoolParams{.spatial_rank = 2, .kernel = {2, 2}, .stride = {2, 2}, .padding = {0, 0}});
    case K::broadcast_to:
      return one_op({shape({4})}, kind, shape({2, 4}),
                    ir::BroadcastParams{shape({4}), shape({2, 4})});
    case K::reduce_sum:
    case K::reduce_mean:
    case K::reduce_max:
    case K::reduce_min:
    case K::reduce_prod:
    case K::argmax:
    case K::argmin:
      return one_op({shape({2, 4})}, kind, shape({4}), ir::AxisParams{0});
    case K::equal:
    case K::less:
    case K::less_or_equal:
    case K::greater:
    case K::greater_or_equal:
    case K::and_:
    case K::or_:
    case K::xor_:
      return one_op({shape({2, 1}), shape({3})}, kind, shape({2, 3}));
    case K::not_:
    case K::cast:
      return one_op({m}, kind, m);
    case K::where:
      return one_op({shape({2, 1}), shape({3}), shape({})}, kind, shape({2, 3}));
    case K::gather_elements:
      return one_op({shape({2, 3}), shape({2, 2})}, kind, shape({2, 2}), ir::AxisParams{1});
    case K::top_k:
      return one_op({shape({2, 4})}, kind, shape({2, 3}), ir::TopKParams{.axis = 1});
    case K::cum_sum:
      return one_op({shape({2, 4})}, kind, shape({2, 4}), ir::CumSumParams{.axis = 1});
    case K::scatter_elements:
      return one_op({shape({2, 4}), shape({2, 3}), shape({2, 3})}, kind, shape({2, 4}),
                    ir::ScatterParams{.axis = 1});
    case K::mod:
    case K::fmod:
      return one_op({shape({2, 1}), shape({3})}, kind, shape({2, 3}));
    case K::gather_nd:
      return one_op({shape({2, 4}), shape({3, 1})}, kind, shape({3, 4}), ir::GatherNdParams{});
    case K::scatter_nd:
      return one_op({shape({2, 4}), shape({3, 1}), shape({3, 4})}, kind, shape({2, 4}),
                    ir::ScatterParams{});
    case K::rnn:
    case K::gru:
    case K::lstm:
      return one_op({shape({3, 2, 4})}, kind, shape({3, 1, 2, 5}),
                    ir::RecurrentParams{.hidden_size = 5});
    case K::grid_sample:
      return one_op({shape({1, 2, 4, 4}), shape({1, 3, 5, 2})}, kind, shape({1, 2, 3, 5}),
                    ir::GridSampleParams{});
    case K::max_unpool:
      return one_op({shape({1, 2, 2, 2}), shape({1, 2, 2, 2})}, kind, shape({1, 2, 4, 4}));
    case K::max_pool_indices:
      return one_op({shape({1, 2, 6, 6})}, kind, shape({1, 2, 3, 3}),
                    ir::MaxPoolIndicesParams{.spatial_rank = 2,
                                             .kernel = {2, 2},
                                             .stride = {2, 2},
                                             .padding = {0, 0},
                                             .padding_after = {0, 0},
                                             .dilation = {1, 1}});
    case K::roi_align:
      return one_op({shape({1, 2, 6, 6}), shape({3, 4}), shape({3})}, kind, shape({3, 2, 2, 2}),
                    ir::RoiAlignParams{});
    case K::resize:
      return one_op(
          {shape({1, 2, 3, 4})}, kind, shape({1, 2, 6, 8}),
          ir::ResizeParams{.mode = ir::SampleMode::linear, .scales = {1.0F, 1.0F, 2.0F, 2.0F}});
    case K::sum:
      return one_op({m}, kind, shape({}));
    case K::matmul:
      return one_op({shape({2, 3}), shape({3, 4})}, kind, shape({2, 4}));
    case K::linear:
      return one_op({shape({2, 3})}, kind, shape({2, 5}));
    case K::conv:
    case K::conv_transpose:
      return one_op({shape({1, 3, 8, 8})}, kind, shape({1, 4, 8, 8}),
                    ir::ConvParams{.spatial_rank = 2,
                                   .kernel = {3, 3},
                                   .stride = {1, 1},
                                   .padding = {1, 1},
                                   .dilation = {1, 1},
                                   .padding_after = {1, 1},
                                   .in_channels = 3,
                                   .out_channels = 4,
                                   .output_padding = kind == K::conv_transpose
                                                         ? std::vector<std::uint32_t>{0, 0}
                                                         : std::vector<std::uint32_t>{}});
    case K::batch_norm_eval:
      return one_op({shape({1, 4, 8, 8})}, kind, shape({1, 4, 8, 8}),
                    ir::ChannelAxisParams{.channel_axis = 1, .channels = 4});
    case K::softmax:
    case K::log_softmax:
    case K::layernorm:
      return one_op({m}, kind, m, ir::AxisParams{1});
    case K::hard_masked_softmax:
      return one_op({m}, kind, m,
                    ir::MaskParams{.shape = shape({4}), .allowed = {true, false, true, true}});
    case K::scaled_dot_product_attention:
      return one_op({shape({2, 5, 8}), shape({2, 6, 8}), shape({2, 6, 3})}, kind, shape({2, 5, 3}),
                    ir::AttentionParams{.causal = false, .scale = std::nullopt});
    case K::reshape:
      return one_op({m}, kind, shape({16}), ir::ReshapeParams{m, shape({16})});
    case K::flatten:
      return one_op({m}, kind, shape({16}), ir::FlattenParams{m});
    case K::concat:
      return one_op({shape({2, 4}), shape({2, 4})}, kind, m, ir::AxisParams{0});
    case K::transpose:
      return one_op({shape({2, 3, 4})}, kind, shape({2, 4, 3}),
                    ir::TransposeParams{.axis1 = 1, .axis2 = 2});
  }
  return {};
}

// ir::check(graph), failing the calling test when the graph is malformed.
inline ir::CheckedGraph checked(ir::Graph graph) {
  auto result = ir::check(std::move(graph));
  if (!result) {
    ADD_FAILURE() << "fixture graph is malformed: " << render(result.error());
    std::abort();
  }
  return std::move(*result);
}

// Every IR kind, in enum order.
inline std::vector<ir::OpKind> all_kinds() {
  std::vector<ir::OpKind> out;
  for (std::size_t i = 0; i < ir::kOpKindCount; ++i)
    out.push_back(static_cast<ir::OpKind>(i));
  return out;
}

// A unary chain over [4,4]: input, then one node per entry of `kinds` (unary kinds that keep the
// shape, e.g. relu, detach, tanh), each on the previous node.
inline ir::Graph unary_chain(std::initializer_list<ir::OpKind> kinds) {
  GraphBuilder b;
  ir::NodeId last = b.input(shape({4, 4}));
  for (const ir::OpKind kind : kinds)
    last = b.add(kind, {last}, shape({4, 4}));
  return std::move(b).build();
}

}  // namespace nnplan::backend::fixtures
