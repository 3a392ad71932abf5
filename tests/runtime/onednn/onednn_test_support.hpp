// Test support for the onednn provider's handlers: a command (one node or a fused chain, root
// first) run through the onednn handler the way the command buffer runs it (prepare, guards,
// forward), the same command run through the reference handlers node by node, and a comparison
// within a stated tolerance that reports the worst element.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/op_mapping.hpp"
#include "nnplan/format/payload_file.hpp"
#include "nnplan/ir/graph.hpp"
#include "nnplan/runtime/handler_registry.hpp"
#include "nnplan/runtime/kernel.hpp"
#include "nnplan/runtime/tensor.hpp"
#include "oracle.hpp"
#include "runtime/providers/onednn/onednn_support.hpp"

namespace nnplan::runtime::onednn::testing {

inline ir::Shape shape_of(std::initializer_list<ir::Dim> dims) {
  ir::Shape s;
  for (ir::Dim d : dims)
    s.dims.push_back(d);
  return s;
}

// Values uniform in [lo, hi), from a fixed seed.
inline Tensor random_tensor(const ir::Shape& shape, std::uint32_t seed, float lo = -1.0F,
                            float hi = 1.0F) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Tensor t = zeros(shape);
  for (float& v : t.floats())
    v = dist(gen);
  return t;
}

inline ir::WeightTensor payload(const ir::Shape& shape, std::uint32_t seed, float lo = -1.0F,
                                float hi = 1.0F) {
  Tensor t = random_tensor(shape, seed, lo, hi);
  return ir::WeightTensor::adopt<float>(shape, std::move(t.floats()));
}

// The registered handler of capsule `name` (provider onednn or reference); fails when absent.
inline const HandlerDefinition& handler_named(std::string_view name) {
  for (const auto& [identity, handler] : builtin_handlers().handlers()) {
    if (identity.name == name) return handler;
  }
  ADD_FAILURE() << "no handler for capsule " << name;
  static const HandlerDefinition none{};
  return none;
}

// A command to run: its nodes (root first; node ids are the indices the parents use), the
// command's inputs in the command buffer's order, and the root's payloads.
struct Command {
  std::vector<ir::Node> chain;
  std::vector<Tensor> inputs;
  ir::WeightStore store;
};

inline std::vector<WeightRef> bind_weights(const ir::Node& node, const ir::WeightStore& s) {
  std::vector<WeightRef> refs;
  for (const format::PayloadSlot& slot : format::payload_slots(node.kind)) {
    if (slot.attribute) continue;
    refs.push_back({.name = slot.name, .tensor = s.find_tensor(node.id, slot.name)});
  }
  return refs;
}

// Prepares the onednn handler `capsule` for `cmd` with `threads`, runs its guards and forward
// kernel (on the state `shared` when given, else on one prepared here). A prepare or guard error
// comes back unchanged.
inline Expected<Tensor> run_onednn(std::string_view capsule, const Command& cmd, int threads = 0,
                                   const KernelState* shared = nullptr) {
  const HandlerDefinition& h = handler_named(capsule);
  if (h.forward == nullptr || h.prepare == nullptr) {
    return std::unexpected(make_error(ErrorKind::internal, "handler lacks prepare or forward"));
  }
  std::vector<const ir::Node*> chain;
  for (const ir::Node& n : cmd.chain)
    chain.push_back(&n);
  std::vector<const ir::Shape*> shapes;
  std::vector<TensorRef> refs;
  for (const Tensor& t : cmd.inputs) {
    shapes.push_back(&t.shape);
    refs.push_back(view(t));
  }
  const ir::Node& root = cmd.chain.front();
  const std::vector<WeightRef> weights = bind_weights(root, cmd.store);
  const NodeWeights nw{.tensors = weights, .store = &cmd.store, .node_id = root.id};
  const PrepareCall prep{.node = root,
                         .chain = chain,
                         .input_shapes = shapes,
                         .weights = nw,
                         .output_shape = cmd.chain.back().shape,
                         .settings = {.threads = threads}};
  Expected<std::unique_ptr<KernelState>> state = std::unique_ptr<KernelState>();
  if (shared == nullptr) {
    state = h.prepare(prep);
    if (!state) return std::unexpected(state.error());
    shared = state->get();
  }
  Tensor out = zeros(cmd.chain.back().shape);
  const KernelCall call{.node = root,
                        .inputs = refs,
                        .weights = nw,
                        .output = mutable_view(out),
                        .chain = chain,
                        .state = shared};
  if (auto ok = h.shape_guard(call); !ok) return std::unexpected(ok.error());
  if (auto ok = h.layout_guard(call); !ok) return std::unexpected(ok.error());
  h.forward(call);
  return out;
}

// The state the onednn handler `capsule` prepares for `cmd` with `threads`, its inputs arriving
// in `input_layout` and its output written in `output_layout`.
inline Expected<std::unique_ptr<KernelState>> prepare_onednn(
    std::string_view capsule, const Command& cmd, int threads = 0,
    TensorLayout input_layout = TensorLayout::flat,
    TensorLayout output_layout = TensorLayout::flat) {
  std::vector<const ir::Node*> chain;
  for (const ir::Node& n : cmd.chain)
    chain.push_back(&n);
  std::vector<const ir::Shape*> shapes;
  for (const Tensor& t : cmd.inputs)
    shapes.push_back(&t.shape);
  const ir::Node& root = cmd.chain.front();
  const std::vector<WeightRef> weights = bind_weights(root, cmd.store);
  return handler_named(capsule).prepare(
      {.node = root,
       .chain = chain,
       .input_shapes = shapes,
       .weights = {.tensors = weights, .store = &cmd.store, .node_id = root.id},
       .output_shape = cmd.chain.back().shape,
       .settings = {.threads = threads},
       .input_layout = input_layout,
       .output_layout = output_layout});
}

// The reference provider's result for `cmd`: each node of the chain run by reference.<op>, the
// previous node's value standing in for its parent of that id.
inline Tensor run_reference(const Command& cmd) {
  std::size_t next = cmd.chain.front().parents.size();
  Tensor value;
  for (std::size_t k = 0; k < cmd.chain.size(); ++k) {
    const ir::Node& node = cmd.chain[k];
    std::vector<TensorRef> refs;
    if (k == 0) {
      for (std::size_t i = 0; i < node.parents.size(); ++i)
        refs.push_back(view(cmd.inputs[i]));
    } else {
      for (ir::NodeId p : node.parents) {
        refs.push_back(p == cmd.chain[k - 1].id ? view(value) : view(cmd.inputs[next++]));
      }
    }
    // The reference capsule of the node's backend op (the attention capsule has a short name).
    const std::optional<backend::BackendOp> op = backend::backend_op_of(node.kind);
    std::string name = "reference." + (op ? std::string(backend::to_string(*op)) : std::string());
    if (op == backend::BackendOp::scaled_dot_product_attention) name = "reference.attention";
    const HandlerDefinition& h = handler_named(name);
    Tensor out = zeros(node.shape);
    const std::vector<WeightRef> weights = bind_weights(node, cmd.store);
    const KernelCall call{.node = node,
                          .inputs = refs,
                          .weights = {.tensors = weights, .store = &cmd.store, .node_id = node.id},
                          .output = mutable_view(out)};
    if (auto ok = h.shape_guard(call); !ok) {
      ADD_FAILURE() << name << " refused the test case: " << ok.error().message;
      return out;
    }
    h.forward(call);
    value = std::move(out);
  }
  return value;
}

// Every element of `got` within abs + rel * |want| of `want` (NaN matching NaN); reports the
// worst element and returns the largest relative error seen (for the tolerances the tests state).
inline double expect_close(const Tensor& got, const Tensor& want, double rel, double abs) {
  EXPECT_EQ(got.shape, want.shape);
  if (got.floats().size() != want.floats().size()) return 0.0;
  double worst = 0.0;
  std::size_t worst_i = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.floats().size(); ++i) {
    const double g = got.floats()[i];
    const double w = want.floats()[i];
    if (std::isnan(w) && std::isnan(g)) continue;
    const double err = std::fabs(g - w);
    if (!(err <= abs + rel * std::fabs(w))) ++bad;
    const double r = err / std::max(std::fabs(w), 1e-30);
    if (err > abs && r > worst) {
      worst = r;
      worst_i = i;
    }
  }
  EXPECT_EQ(bad, 0U) << bad << " elements outside " << rel << " relative + " << abs
                     << " absolute; worst at " << worst_i << ": got " << got.floats()[worst_i]
                     << ", want " << want.floats()[worst_i];
  return worst;
}

// The tolerance of `capsule`'s row of the conformance table (tests/oracles/conformance_table.cpp):
// the one place a capsule's agreement with the reference is stated.
inline oracles::Tolerance conformance_tolerance(std::string_view capsule) {
  const oracles::Oracle* row = oracles::find_oracle(std::string(capsule) + ".oracle");
  EXPECT_NE(row, nullptr) << capsule << " has no row in the conformance table";
  return row == nullptr ? oracles::Tolerance{} : row->tolerance;
}

// Runs `capsule` on `cmd` and compares it with the reference within the capsule's conformance
// tolerance; returns the worst element's share of what the tolerance allows.
inline double expect_matches_reference(std::string_view capsule, const Command& cmd) {
  auto got = run_onednn(capsule, cmd);
  EXPECT_TRUE(got.has_value()) << got.error().message;
  if (!got) return 0.0;
  const std::vector<Tensor> g{std::move(*got)};
  const std::vector<Tensor> want{run_reference(cmd)};
  const oracles::Comparison cmp = oracles::compare(g, want, conformance_tolerance(capsule));
  EXPECT_TRUE(cmp.passed) << capsule << ": " << cmp.problem << " element " << cmp.element
                          << ": got " << cmp.got << ", want " << cmp.want << ", error " << cmp.error
                          << " > allowed " << cmp.allowed;
  return cmp.share;
}

// The message of the error `capsule` gives on `cmd` (prepare or guard), or "" when it ran.
inline std::string refusal(std::string_view capsule, const Command& cmd) {
  auto got = run_onednn(capsule, cmd);
  return got ? std::string() : got.error().message;
}

// A node of `kind` with `parents`, shape and params.
inline ir::Node node(ir::NodeId id, ir::OpKind kind, std::vector<ir::NodeId> parents,
                     ir::Shape shape, ir::OpParams params = {}) {
  ir::Node n;
  n.id = id;
  n.kind = kind;
  for (ir::NodeId p : parents)
    n.parents.push_back(p);
  n.shape = std::move(shape);
  n.params = std::move(params);
  return n;
}

// Two oneDNN runs of one sum with different thread counts (which may split it differently):
// relative agreement (the reference comparisons use the conformance table's tolerances).
inline constexpr double kLinearRel = 1e-5;

// oneDNN's name for the implementation a prepared onednn command runs ("jit:avx2", "ref:any",
// ...); "" when it has none.
inline std::string implementation_of(const KernelState& state) {
  const dnnl::primitive& p = static_cast<const PrimitiveState&>(state).primitive;
  const char* name = nullptr;
  if (!p ||
      dnnl_primitive_desc_query(p.get_primitive_desc(), dnnl_query_impl_info_str, 0, &name) !=
          dnnl_success ||
      name == nullptr) {
    return "";
  }
  return name;
}

}  // namespace nnplan::runtime::onednn::testing
