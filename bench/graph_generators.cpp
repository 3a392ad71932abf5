#include "graph_generators.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>
#include <vector>

namespace nnplan::bench {
namespace {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

Shape dims(std::initializer_list<ir::Dim> d) {
  return Shape{std::vector<ir::Dim>(d)};
}

void push(ir::Graph& g, OpKind kind, std::vector<NodeId> parents, Shape shape,
          ir::OpParams params = {}) {
  const auto id = static_cast<NodeId>(g.nodes.size());
  g.nodes.push_back(ir::Node{.id = id,
                             .kind = kind,
                             .parents = std::move(parents),
                             .shape = std::move(shape),
                             .params = std::move(params),
                             .source_name = {}});
}

// splitmix64: fast, seedable, and good enough to pick kinds and parents.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); the modulo bias is irrelevant at these n.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

// The shape classes of the random DAG. Every op below maps classes to classes, so parents of the
// right shape always exist once each class has its seed input.
enum Cls : std::uint8_t {
  kS,  // []
  kV,  // [16]
  kR,  // [4]
  kM,  // [4,4]
  kK,  // [8,4]
  kW,  // [32]
  kT,  // [2,4,4]
  kI,  // [2,4,4,4]  (N,C,H,W)
  kQ,  // [2,4,2,2]  (N,C,H,W)
  kClassCount,
};

Shape class_shape(Cls c) {
  switch (c) {
    case kS:
      return dims({});
    case kV:
      return dims({16});
    case kR:
      return dims({4});
    case kM:
      return dims({4, 4});
    case kK:
      return dims({8, 4});
    case kW:
      return dims({32});
    case kT:
      return dims({2, 4, 4});
    case kI:
      return dims({2, 4, 4, 4});
    case kQ:
      return dims({2, 4, 2, 2});
    case kClassCount:
      break;
  }
  return dims({});
}

class DagBuilder {
 public:
  DagBuilder(std::size_t n, std::uint64_t seed) : rng_(seed) {
    graph_.nodes.reserve(n);
    for (auto& pool : pools_)
      pool.reserve(n / kClassCount + 16);
  }

  void seed_inputs() {
    // Node 0 is the graph's input; one input per class makes every pool non-empty.
    emit(OpKind::input, {}, kI);
    for (std::uint8_t c = 0; c < kClassCount; ++c) {
      if (c != kI) emit(OpKind::input, {}, static_cast<Cls>(c));
    }
    // With fewer than nine nodes the pools still need their seeds; the graph is cut back after.
  }

  // One node of `kind` in one of the kind's shape variants, chosen at random.
  void add(OpKind kind) {
    using K = OpKind;
    switch (kind) {
      case K::input:
        emit(kind, {}, any_class());
        return;
      case K::const_: {
        const Cls c = any_class();
        emit(kind, {}, c, ir::ConstParams{class_shape(c)});
        return;
      }
      case K::argmax:
      case K::argmin:
      case K::equal:
      case K::less:
      case K::less_or_equal:
      case K::greater:
      case K::greater_or_equal:
      case K::and_:
      case K::or_:
      case K::xor_:
      case K::not_:
      case K::where:
      case K::cast:
      case K::gather_elements:
      case K::top_k:
      case K::scatter_elements:
      case K::scatter_nd:
      case K::gather_nd:
      case K::mod:
      case K::fmod:
      case K::max_unpool:
        // Kinds that make or take int64 or bool values; the generated graphs stay float32.
        return;
      case K::resize:
        // Changes its parent's extents; the generated graphs keep theirs.
        return;
      case K::max_pool_indices:
        // Makes int64 indices; the generated graphs stay float32.
        return;
      case K::roi_align:
        // Takes boxes and int64 batch indices beside its image; the generated graphs draw none.
        return;
      case K::grid_sample:
        // Takes a grid of sampling points beside its image; the generated graphs draw none.
        return;
      case K::rnn:
      case K::gru:
      case K::lstm:
        // Sequence models over [seq, batch, input] with recurrent payloads: benchmarked on the
        // exported LSTM and GRU models (bench/models), not in generated graphs.
        return;
      case K::rand_uniform:
        emit(kind, {}, any_class(), ir::SeedParams{rng_.next()});
        return;
      case K::bernoulli_mask:
        emit(kind, {pick(kS)}, any_class(), ir::SeedParams{rng_.next()});
        return;
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
      case K::silu: {
        const Cls c = any_class();
        emit(kind, {pick(c)}, c);
        return;
      }
      case K::hard_sigmoid: {
        const Cls c = any_class();
        emit(kind, {pick(c)}, c, ir::HardSigmoidParams{.alpha = 0.2F, .beta = 0.5F});
        return;
      }
      case K::leaky_relu:
      case K::elu: {
        const Cls c = any_class();
        emit(kind, {pick(c)}, c, ir::AlphaParams{.alpha = 0.1F});
        return;
      }
      case K::gelu: {
        const Cls c = any_class();
        emit(kind, {pick(c)}, c,
             ir::GeluParams{rng_.below(2) == 0 ? ir::GeluApproximation::none
                                               : ir::GeluApproximation::tanh});
        return;
      }
      case K::clamp: {
        const Cls c = any_class();
        emit(kind, {pick(c)}, c, ir::ClampParams{.min = 0.0F, .max = 6.0F});
        return;
      }
      case K::scale: {
        const Cls c = any_class();
        emit(kind, {pick(c)}, c, ir::ScaleParams{.factor = 0.125F});
        return;
      }
      case K::safe_log: {
        const Cls c = any_class();
        emit(kind, {pick(c), pick(kS)}, c);
        return;
      }
      case K::add:
      case K::sub:
      case K::mul_elem:
      case K::max_elem:
      case K::min_elem:
      case K::pow: {
        const Cls c = any_class();
        emit(kind, {pick(c), pick(c)}, c);
        return;
      }
      case K::mse_loss: {
        const Cls c = any_class();
        emit(kind, {pick(c), pick(c)}, kS);
        return;
      }
      case K::permute:
        switch (rng_.below(4)) {
          case 0:
            emit(kind, {pick(kM)}, kM, ir::PermuteParams{{1, 0}});
            return;
          case 1:
            emit(kind, {pick(kT)}, kT, ir::PermuteParams{{0, 2, 1}});
            return;
          case 2:
            emit(kind, {pick(kI)}, kI, ir::PermuteParams{{0, 1, 3, 2}});
            return;
          default:
            emit(kind, {pick(kQ)}, kQ, ir::PermuteParams{{0, 1, 3, 2}});
            return;
        }
      case K::max_pool:
      case K::avg_pool:
        switch (rng_.below(3)) {
          case 0:
            emit(kind, {pick(kI)}, kQ, pool(2, 2, 0));
            return;
          case 1:
            emit(kind, {pick(kQ)}, kQ, pool(1, 1, 0));
            return;
          default: {
            const Cls c = rng_.below(2) == 0 ? kI : kQ;
            emit(kind, {pick(c)}, c, pool(3, 1, 1));
            return;
          }
        }
      case K::broadcast_to:
        switch (rng_.below(3)) {
          case 0: {
            const Cls to = any_class();
            emit(kind, {pick(kS)}, to, ir::BroadcastParams{dims({}), class_shape(to)});
            return;
          }
          case 1:
            emit(kind, {pick(kR)}, kM, ir::BroadcastParams{dims({4}), dims({4, 4})});
            return;
          default:
            emit(kind, {pick(kR)}, kT, ir::BroadcastParams{dims({4}), dims({2, 4, 4})});
            return;
        }
      case K::reduce_sum:
      case K::reduce_mean:
      case K::reduce_max:
      case K::reduce_min:
      case K::reduce_prod:
        switch (rng_.below(4)) {
          case 0:
            emit(kind, {pick(kM)}, kR, ir::AxisParams{static_cast<std::uint32_t>(rng_.below(2))});
            return;
          case 1:
            emit(kind, {pick(kT)}, kM, ir::AxisParams{0});
            return;
          case 2:
            emit(kind, {pick(kV)}, kS, ir::AxisParams{0});
            return;
          default:
            emit(kind, {pick(kK)}, kR, ir::AxisParams{0});
            return;
        }
      case K::sum:
        emit(kind, {pick(any_class())}, kS);
        return;
      case K::matmul:
        switch (rng_.below(4)) {
          case 0:
            emit(kind, {pick(kM), pick(kM)}, kM);
            return;
          case 1:
            emit(kind, {pick(kT), pick(kT)}, kT);
            return;
          case 2:  // torch.matmul broadcasts the batch axes
            emit(kind, {pick(kT), pick(kM)}, kT);
            return;
          default:  // and promotes a vector
            emit(kind, {pick(kM), pick(kR)}, kR);
            return;
        }
      case K::linear: {
        const Cls c = any_ranked_class();
        emit(kind, {pick(c)}, c);
        return;
      }
      case K::conv:
        switch (rng_.below(4)) {
          case 0:
            emit(kind, {pick(kI)}, kI, conv(3, 1, 1, 1, false));
            return;
          case 1:
            emit(kind, {pick(kQ)}, kQ, conv(3, 1, 1, 1, false));
            return;
          case 2:  // depthwise
            emit(kind, {pick(kI)}, kI, conv(3, 1, 1, 4, false));
            return;
          default:
            emit(kind, {pick(kI)}, kQ, conv(2, 2, 0, 1, false));
            return;
        }
      case K::conv_transpose:
        if (rng_.below(2) == 0) {
          emit(kind, {pick(kQ)}, kI, conv(2, 2, 0, 1, true));  // (2-1)*2 + 1 + 1 = 4
        } else {
          const Cls c = rng_.below(2) == 0 ? kI : kQ;
          emit(kind, {pick(c)}, c, conv(3, 1, 1, 2, true));
        }
        return;
      case K::batch_norm_eval: {
        const Cls c = rng_.below(2) == 0 ? kI : kQ;
        emit(kind, {pick(c)}, c, ir::ChannelAxisParams{.channel_axis = 1, .channels = 4});
        return;
      }
      case K::hard_masked_softmax: {
        const Cls c = any_ranked_class();
        const ir::Dim last = class_shape(c).dims.back();
        std::vector<bool> allowed(last, true);
        allowed[rng_.below(last)] = false;
        emit(kind, {pick(c)}, c, ir::MaskParams{.shape = dims({last}), .allowed = allowed});
        return;
      }
      case K::slice:
        switch (rng_.below(3)) {
          case 0:
            emit(kind, {pick(kV)}, kR, ir::SliceParams{.axis = 0, .start = 0, .end = 8, .step = 2});
            return;
          case 1:  // the end clamps to the extent
            emit(kind, {pick(kK)}, kM,
                 ir::SliceParams{.axis = 0, .start = 4, .end = 100, .step = 1});
            return;
          default:
            emit(kind, {pick(kW)}, kV,
                 ir::SliceParams{.axis = 0, .start = 0, .end = 32, .step = 2});
            return;
        }
      case K::gather:
        // The declared shape: the axis replaced by the indices' shape ([8], [16] or [4,4]).
        switch (rng_.below(3)) {
          case 0:
            emit(kind, {pick(kM)}, kK, ir::AxisParams{0});
            return;
          case 1:
            emit(kind, {pick(kR)}, kV, ir::AxisParams{0});
            return;
          default:
            emit(kind, {pick(kV)}, kM, ir::AxisParams{0});
            return;
        }
      case K::scaled_dot_product_attention:
        emit(kind, {pick(kT), pick(kT), pick(kT)}, kT,
             ir::AttentionParams{.causal = rng_.below(2) == 0, .scale = std::nullopt});
        return;
      case K::softmax:
      case K::log_softmax:
      case K::layernorm: {
        const Cls c = any_ranked_class();
        const auto rank = class_shape(c).rank();
        emit(kind, {pick(c)}, c, ir::AxisParams{static_cast<std::uint32_t>(rng_.below(rank))});
        return;
      }
      case K::cum_sum: {
        const Cls c = any_ranked_class();
        const auto rank = class_shape(c).rank();
        emit(kind, {pick(c)}, c,
             ir::CumSumParams{.axis = static_cast<std::uint32_t>(rng_.below(rank)),
                              .exclusive = rng_.below(2) == 0,
                              .reverse = rng_.below(2) == 0});
        return;
      }
      case K::reshape: {
        static constexpr std::array<std::pair<Cls, Cls>, 7> kPairs = {
            {{kV, kM}, {kM, kV}, {kT, kK}, {kK, kT}, {kW, kK}, {kK, kW}, {kQ, kT}}};
        const auto [from, to] = kPairs[rng_.below(kPairs.size())];
        emit(kind, {pick(from)}, to, ir::ReshapeParams{class_shape(from), class_shape(to)});
        return;
      }
      case K::flatten: {
        static constexpr std::array<std::pair<Cls, Cls>, 4> kPairs = {
            {{kM, kV}, {kK, kW}, {kT, kW}, {kQ, kW}}};
        const auto [from, to] = kPairs[rng_.below(kPairs.size())];
        emit(kind, {pick(from)}, to, ir::FlattenParams{class_shape(from)});
        return;
      }
      case K::concat:
        switch (rng_.below(3)) {
          case 0:
            emit(kind, {pick(kM), pick(kM)}, kK, ir::AxisParams{0});
            return;
          case 1:
            emit(kind, {pick(kV), pick(kV)}, kW, ir::AxisParams{0});
            return;
          default:
            emit(kind, {pick(kR), pick(kR), pick(kR), pick(kR)}, kV, ir::AxisParams{0});
            return;
        }
      case K::transpose:
        switch (rng_.below(3)) {
          case 0:
            emit(kind, {pick(kM)}, kM, ir::TransposeParams{.axis1 = 0, .axis2 = 1});
            return;
          case 1:
            emit(kind, {pick(kT)}, kT, ir::TransposeParams{.axis1 = 1, .axis2 = 2});
            return;
          default:
            emit(kind, {pick(kI)}, kI, ir::TransposeParams{.axis1 = 2, .axis2 = 3});
            return;
        }
    }
  }

  OpKind random_kind() { return static_cast<OpKind>(rng_.below(ir::kOpKindCount)); }

  ir::Graph finish(std::size_t n) && {
    if (graph_.nodes.size() > n) graph_.nodes.resize(std::max<std::size_t>(n, 1));
    graph_.input_id = 0;
    graph_.output_ids = {static_cast<NodeId>(graph_.nodes.size() - 1)};
    return std::move(graph_);
  }

  [[nodiscard]] std::size_t size() const { return graph_.nodes.size(); }

 private:
  // A square window over the two spatial axes of (N,C,H,W), four channels in and out.
  static ir::ConvParams conv(std::uint32_t k, std::uint32_t stride, std::uint32_t padding,
                             std::uint32_t groups, bool transposed) {
    return {.spatial_rank = 2,
            .kernel = {k, k},
            .stride = {stride, stride},
            .padding = {padding, padding},
            .dilation = {1, 1},
            .padding_after = {padding, padding},
            .groups = groups,
            .channel_axis = 1,
            .in_channels = 4,
            .out_channels = 4,
            .output_padding =
                transposed ? std::vector<std::uint32_t>{0, 0} : std::vector<std::uint32_t>{}};
  }
  static ir::PoolParams pool(std::uint32_t k, std::uint32_t stride, std::uint32_t padding) {
    return {.spatial_rank = 2,
            .kernel = {k, k},
            .stride = {stride, stride},
            .padding = {padding, padding}};
  }

  Cls any_class() { return static_cast<Cls>(rng_.below(kClassCount)); }
  // Every class but the scalar one (ops that need an axis or a last dimension).
  Cls any_ranked_class() { return static_cast<Cls>(1 + rng_.below(kClassCount - 1)); }
  NodeId pick(Cls c) {
    const std::vector<NodeId>& pool = pools_[c];
    return pool[rng_.below(pool.size())];
  }

  void emit(OpKind kind, std::vector<NodeId> parents, Cls out, ir::OpParams params = {}) {
    pools_[out].push_back(static_cast<NodeId>(graph_.nodes.size()));
    push(graph_, kind, std::move(parents), class_shape(out), std::move(params));
  }

  Rng rng_;
  ir::Graph graph_;
  std::array<std::vector<NodeId>, kClassCount> pools_;
};

}  // namespace

ir::Graph chain_graph(std::size_t n) {
  using K = OpKind;
  ir::Graph g;
  g.nodes.reserve(n);
  const Shape m = dims({4, 4});
  push(g, K::input, {}, m);
  NodeId block_input = 0;
  while (g.nodes.size() < n) {
    const auto step = (g.nodes.size() - 1) % 12;
    const auto prev = static_cast<NodeId>(g.nodes.size() - 1);
    if (step == 0) block_input = prev;
    switch (step) {
      case 0:
        push(g, K::linear, {prev}, m);
        break;
      case 1:
      case 2:
        push(g, K::relu, {prev}, m);
        break;
      case 3:
        push(g, K::add, {prev, block_input}, m);
        break;
      case 4:
        push(g, K::layernorm, {prev}, m, ir::AxisParams{1});
        break;
      case 5:
        push(g, K::flatten, {prev}, dims({16}), ir::FlattenParams{m});
        break;
      case 6:
        push(g, K::reshape, {prev}, m, ir::ReshapeParams{dims({16}), m});
        break;
      case 7:
        push(g, K::matmul, {prev, prev}, m);
        break;
      case 8:
        push(g, K::tanh, {prev}, m);
        break;
      case 9:
        push(g, K::sigmoid, {prev}, m);
        break;
      case 10:
        push(g, K::mul_elem, {prev, block_input}, m);
        break;
      default:
        push(g, K::softmax, {prev}, m, ir::AxisParams{1});
        break;
    }
  }
  g.input_id = 0;
  g.output_ids = {static_cast<NodeId>(g.nodes.size() - 1)};
  return g;
}

ir::Graph random_dag(std::size_t n, std::uint64_t seed) {
  DagBuilder b(n, seed);
  b.seed_inputs();
  for (std::size_t k = 0; k < ir::kOpKindCount && b.size() < n; ++k) {
    b.add(static_cast<OpKind>(k));
  }
  while (b.size() < n)
    b.add(b.random_kind());
  return std::move(b).finish(n);
}

ir::Graph make_graph(GraphShape shape, std::size_t n, std::uint64_t seed) {
  return shape == GraphShape::chain ? chain_graph(n) : random_dag(n, seed);
}

}  // namespace nnplan::bench
