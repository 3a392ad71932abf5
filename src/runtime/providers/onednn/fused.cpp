// onednn handlers: the fused capsules (SPEC §7, §12). Each runs one chain, root first. A chain
// rooted at conv, linear or matmul is one oneDNN primitive with post-ops: conv with relu, with a
// residual add then relu, with clamp (clip), with hard_swish, with silu (swish), or with
// hard_sigmoid (two post-ops: linear alpha * x + beta, then clip to [0, 1]); linear with relu or
// gelu; matmul with a residual add. A batch_norm root with relu is oneDNN's batch normalization
// with its fused ReLU (normalization.cpp). A command's inputs are the root's parents, then each
// later node's operand that is not the previous node's value (an add's residual, which has the
// root's output shape: the IR's elementwise_binary rule); its output is the last node's value. A
// conv root's residual is a sum post-op: the launch first copies (or reorders) it into the
// destination the primitive accumulates into; where some output window covers only padding
// (oneDNN 2.6's brgconv crashes with sum there) and for a linear or matmul root, it is a binary_add
// post-op reading its own buffer. The chains rooted at an element-wise op (sigmoid, mul; broadcast,
// mul) run on element-wise primitives instead (fused_elementwise.cpp).
#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nnplan/backend/builtin_modules.hpp"
#include "nnplan/backend/op_mapping.hpp"
#include "runtime/providers/onednn/onednn_roots.hpp"

namespace nnplan::runtime::onednn {

dnnl::post_ops materialize(const PostOps& post_ops, const dnnl::memory::desc& dst,
                           std::vector<Binding>& bindings, int* seed) {
  dnnl::post_ops ops;
  const dnnl::memory::desc& residual = dst;
  for (const PostOpStep& step : post_ops.steps) {
    if (step.binary_add && seed != nullptr && *seed == Binding::kNoSeed) {
      ops.append_sum(1.0F);
      *seed = step.input;
    } else if (step.binary_add) {
      const int index = ops.len();
      ops.append_binary(dnnl::algorithm::binary_add, residual);
      bindings.push_back({.arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1,
                          .input = step.input,
                          .desc = residual});
    } else {
      ops.append_eltwise(1.0F, step.eltwise.algorithm, step.eltwise.alpha, step.eltwise.beta);
    }
  }
  return ops;
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/fused_test.cpp"};

// A fused capsule this file runs: its name and its root op (the handler's op). The chain it
// runs is the capsule's `pattern`, declared once in onednn_module() and read from there.
struct Pattern {
  std::string_view capsule;
  backend::BackendOp root = backend::BackendOp::conv;
};

using backend::BackendOp;
using ir::OpKind;
constexpr std::array kPatterns = {
    Pattern{"onednn.conv_relu", BackendOp::conv},
    Pattern{"onednn.conv_add_relu", BackendOp::conv},
    Pattern{"onednn.conv_clamp", BackendOp::conv},
    Pattern{"onednn.conv_hard_swish", BackendOp::conv},
    Pattern{"onednn.conv_hard_sigmoid", BackendOp::conv},
    Pattern{"onednn.conv_silu", BackendOp::conv},
    Pattern{"onednn.linear_relu", BackendOp::linear},
    Pattern{"onednn.linear_gelu", BackendOp::linear},
    Pattern{"onednn.matmul_add", BackendOp::matmul},
    Pattern{"onednn.batch_norm_relu", BackendOp::batch_norm},
    Pattern{"onednn.sigmoid_mul", BackendOp::sigmoid},
    Pattern{"onednn.broadcast_mul", BackendOp::broadcast},
};

// The pattern the capsule named `capsule` declares in onednn_module(); empty for a name the
// module does not have (no chain matches it then).
const std::vector<BackendOp>& declared_pattern(std::string_view capsule) {
  static const std::map<std::string, std::vector<BackendOp>, std::less<>> patterns = [] {
    std::map<std::string, std::vector<BackendOp>, std::less<>> out;
    for (const backend::KernelCapsule& c : backend::onednn_module().capsules) {
      if (c.is_fused()) out.emplace(c.name, c.pattern);
    }
    return out;
  }();
  static const std::vector<BackendOp> kNone;
  const auto it = patterns.find(capsule);
  return it == patterns.end() ? kNone : it->second;
}

std::string chain_text(std::span<const ir::Node* const> chain) {
  std::string s;
  for (const ir::Node* n : chain)
    s += (s.empty() ? "" : ", ") + std::string(ir::to_string(n->kind));
  return "[" + s + "]";
}

std::string pattern_text(std::span<const BackendOp> pattern) {
  std::string s;
  for (const BackendOp op : pattern)
    s += (s.empty() ? "" : ", ") + std::string(backend::to_string(op));
  return "[" + s + "]";
}

// The chain runs the capsule's pattern: one node per op, each of the kind that runs that op
// (backend/op_mapping), and each later node reads the previous node's value exactly once.
Expected<void> check_chain(const Pattern& p, std::span<const ir::Node* const> chain) {
  const std::vector<BackendOp>& pattern = declared_pattern(p.capsule);
  bool same = !pattern.empty() && chain.size() == pattern.size();
  for (std::size_t i = 0; same && i < pattern.size(); ++i)
    same = backend::backend_op_of(chain[i]->kind) == pattern[i];
  if (!same) {
    return std::unexpected(unsupported("the command's chain is " + chain_text(chain) + "; " +
                                       std::string(p.capsule) + " runs " +
                                       pattern_text(pattern)));
  }
  for (std::size_t k = 1; k < chain.size(); ++k) {
    std::size_t extra = 0;
    for (ir::NodeId parent : chain[k]->parents)
      extra += parent == chain[k - 1]->id ? 0 : 1;
    if (extra + 1 != chain[k]->parents.size()) {
      return std::unexpected(unsupported(ir::describe(*chain[k]) +
                                         " reads the previous node's value " +
                                         std::to_string(chain[k]->parents.size() - extra) +
                                         " times; " + std::string(p.capsule) + " needs it once"));
    }
  }
  return {};
}

// The chain's post-ops, with each residual's call input.
Expected<PostOps> post_ops_of(std::span<const ir::Node* const> chain) {
  PostOps ops;
  int next_input = static_cast<int>(chain.front()->parents.size());
  for (std::size_t k = 1; k < chain.size(); ++k) {
    if (chain[k]->kind == OpKind::add) {
      ops.steps.push_back({.binary_add = true, .eltwise = {}, .input = next_input++});
      continue;
    }
    if (chain[k]->kind == OpKind::hard_sigmoid) {
      const auto& h = std::get<ir::HardSigmoidParams>(chain[k]->params);
      ops.steps.push_back({.binary_add = false,
                           .eltwise = {.algorithm = dnnl::algorithm::eltwise_linear,
                                       .alpha = h.alpha,
                                       .beta = h.beta},
                           .input = 0});
      ops.steps.push_back(
          {.binary_add = false,
           .eltwise = {.algorithm = dnnl::algorithm::eltwise_clip, .alpha = 0.0F, .beta = 1.0F},
           .input = 0});
      continue;
    }
    auto e = eltwise_of(*chain[k]);
    if (!e) return std::unexpected(e.error());
    ops.steps.push_back({.binary_add = false, .eltwise = *e, .input = 0});
  }
  return ops;
}

// The guard of a fused capsule: the chain is the pattern; the root's and each later node's
// operands, seen as each node's own call, pass the IR's shape rule for that op (and the root's
// onednn limits); every input is consumed.
template <std::size_t Row>
Expected<void> fused_shapes(const KernelCall& call) {
  const Pattern& p = kPatterns[Row];
  if (auto ok = check_chain(p, call.chain); !ok) return ok;
  const ir::Node& root = *call.chain.front();
  const std::size_t root_inputs = root.parents.size();
  if (call.inputs.size() < root_inputs) {
    return std::unexpected(unsupported(std::to_string(call.inputs.size()) + " inputs given; " +
                                       std::string(p.capsule) + " needs at least " +
                                       std::to_string(root_inputs)));
  }
  const bool root_last = call.chain.size() == 1;
  MutableTensorRef root_out{.bytes = nullptr, .shape = &root.shape};
  const KernelCall root_call{.node = root,
                             .inputs = call.inputs.first(root_inputs),
                             .weights = call.weights,
                             .output = root_last ? call.output : root_out};
  if (auto ok = ir_shape_guard(root_call, p.root); !ok) return ok;
  if (p.root == backend::BackendOp::conv) {
    if (auto ok = conv_limits(root); !ok) return ok;
  } else if (p.root == backend::BackendOp::matmul) {
    if (auto ok = matmul_limits(*call.inputs[0].shape, *call.inputs[1].shape); !ok) return ok;
  } else if (p.root == backend::BackendOp::broadcast) {
    if (auto ok = rank_limit(root_call); !ok) return ok;
  }
  std::size_t next = root_inputs;
  for (std::size_t k = 1; k < call.chain.size(); ++k) {
    const ir::Node& node = *call.chain[k];
    const ir::Node& prev = *call.chain[k - 1];
    std::vector<TensorRef> operands;
    for (ir::NodeId parent : node.parents) {
      if (parent == prev.id) {
        operands.push_back({.bytes = nullptr, .shape = &prev.shape});
        continue;
      }
      if (next >= call.inputs.size()) {
        return std::unexpected(unsupported(std::to_string(call.inputs.size()) + " inputs given; " +
                                           std::string(p.capsule) +
                                           " needs one for the operand of " + ir::describe(node)));
      }
      operands.push_back(call.inputs[next++]);
    }
    MutableTensorRef out{.bytes = nullptr, .shape = &node.shape};
    const KernelCall node_call{.node = node,
                               .inputs = operands,
                               .weights = {},
                               .output = k + 1 == call.chain.size() ? call.output : out};
    // check_chain holds each kind to the pattern's op, so each has a backend op.
    if (auto ok = ir_shape_guard(node_call, *backend::backend_op_of(node.kind)); !ok) return ok;
    if (node.shape != root.shape) {
      return std::unexpected(operand_error(
          "the value of " + ir::describe(node), node.shape,
          std::string(p.capsule) + " needs the root's output shape " + ir::to_string(root.shape)));
    }
  }
  if (next != call.inputs.size()) {
    return std::unexpected(unsupported(std::to_string(call.inputs.size()) + " inputs given; " +
                                       std::string(p.capsule) + " takes " + std::to_string(next)));
  }
  return {};
}

template <std::size_t Row>
Expected<std::unique_ptr<KernelState>> prepare_fused(const PrepareCall& call) {
  const Pattern& p = kPatterns[Row];
  if (auto ok = check_chain(p, call.chain); !ok) return std::unexpected(ok.error());
  if (p.root == backend::BackendOp::sigmoid) return prepare_sigmoid_mul(call);
  if (p.root == backend::BackendOp::broadcast) return prepare_broadcast_mul(call);
  if (p.root == backend::BackendOp::batch_norm) return prepare_batch_norm_with(call, true);
  auto ops = post_ops_of(call.chain);
  if (!ops) return std::unexpected(ops.error());
  if (p.root == backend::BackendOp::conv) return prepare_conv_with(call, *ops);
  if (p.root == backend::BackendOp::linear) return prepare_linear_with(call, *ops);
  return prepare_matmul_with(call, *ops);
}

// How a row's command may lie in memory: a conv root as the conv decides; a sigmoid root on any
// layout its operands share (the chain is element-wise over one shape); a broadcast root
// channels-last when the broadcast keeps the rank, a batch_norm root as the batch norm allows;
// else flat.
constexpr LayoutSupport layouts_of(backend::BackendOp root) {
  if (root == backend::BackendOp::conv) return LayoutSupport::channels_last;
  if (root == backend::BackendOp::sigmoid || root == backend::BackendOp::broadcast ||
      root == backend::BackendOp::batch_norm) {
    return LayoutSupport::any_shared;
  }
  return LayoutSupport::flat_only;
}

constexpr LayoutPreferenceFn channels_last_test_of(backend::BackendOp root) {
  if (root == backend::BackendOp::conv) return conv_prefers_channels_last;
  if (root == backend::BackendOp::broadcast) return broadcast_takes_channels_last;
  if (root == backend::BackendOp::batch_norm) return batch_norm_takes_channels_last;
  return nullptr;
}

void fused_forward(const KernelCall& call) {
  execute(call);
}

template <std::size_t Row>
constexpr OnednnHandler row() {
  return {.capsule = kPatterns[Row].capsule,
          .op = kPatterns[Row].root,
          .handler = {.symbol = kPatterns[Row].root == backend::BackendOp::sigmoid
                                    ? "nnplan::runtime::onednn::sigmoid_mul_forward"
                                    : "nnplan::runtime::onednn::fused_forward",
                      .forward = kPatterns[Row].root == backend::BackendOp::sigmoid
                                     ? sigmoid_mul_forward
                                     : fused_forward,
                      .vjp = nullptr,
                      .shape_guard = prepared_guard<fused_shapes<Row>>,
                      .layout_guard = kPatterns[Row].root == backend::BackendOp::sigmoid
                                          ? flat_row_major_guard_in_place
                                          : flat_row_major_guard,
                      .prepare = checked_prepare<fused_shapes<Row>, prepare_fused<Row>>,
                      .in_place_safe = kPatterns[Row].root == backend::BackendOp::sigmoid,
                      .reads_weight_views = true,
                      .layouts = layouts_of(kPatterns[Row].root),
                      .takes_channels_last = channels_last_test_of(kPatterns[Row].root),
                      .forward_tests = kTests,
                      .vjp_tests = kForwardOnlyTests}};
}

// One handler per row of kPatterns.
template <std::size_t... Rows>
constexpr std::array<OnednnHandler, sizeof...(Rows)> rows_of(std::index_sequence<Rows...>) {
  return {row<Rows>()...};
}
constexpr auto kHandlers = rows_of(std::make_index_sequence<kPatterns.size()>());

}  // namespace

Expected<void> check_chain(std::string_view capsule, std::span<const ir::Node* const> chain) {
  return check_chain(Pattern{.capsule = capsule}, chain);
}

std::span<const OnednnHandler> fused_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
