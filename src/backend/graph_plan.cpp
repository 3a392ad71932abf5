#include "nnplan/backend/graph_plan.hpp"
#include "nnplan/backend/op_mapping.hpp"

#include <array>

namespace nnplan::backend {

std::vector<ir::NodeId> GraphExecutionPlan::node_ids() const {
  std::vector<ir::NodeId> ids;
  ids.reserve(kernels.size());
  for (const PlannedNodeKernel& k : kernels)
    ids.push_back(k.node_id);
  return ids;
}

std::vector<std::string> GraphExecutionPlan::capsule_names() const {
  std::vector<std::string> names;
  names.reserve(kernels.size());
  for (const PlannedNodeKernel& k : kernels)
    names.push_back(registry->capsule(k.capsule).name);
  return names;
}

namespace {

Error at_node(Error e, const ir::Node& node) {
  e.position = node.id;
  return std::move(e).with_context("at " + ir::describe(node));
}

}  // namespace

Expected<std::optional<PlannedNodeKernel>> plan_node(const ExecutionConfig& config,
                                                     const Registry& registry, const ir::Node& node,
                                                     const Availability* availability) {
  const auto op = backend_op_of(node.kind);
  if (!op) return std::optional<PlannedNodeKernel>();
  auto kernel = plan_op(config, registry, *op, availability);
  if (!kernel) return std::unexpected(at_node(std::move(kernel.error()), node));
  return PlannedNodeKernel{node.id, node.kind, *op, kernel->capsule};
}

Expected<GraphExecutionPlan> plan_graph(const ExecutionConfig& config,
                                        std::shared_ptr<const Registry> registry,
                                        const ir::CheckedGraph& checked,
                                        const Availability* availability) {
  if (!registry) {
    return std::unexpected(make_error(ErrorKind::invalid_input, "no registry to plan against"));
  }
  const ir::Graph& graph = checked.graph();
  GraphExecutionPlan plan{.registry = std::move(registry), .kernels = {}};
  plan.kernels.reserve(graph.nodes.size());
  OpDecisions decisions(config, *plan.registry, availability);
  // The capsule for each IR kind, filled on the kind's first node: the hot loop is one table read
  // per node, with no call (backend_op_of lives in another file) and no Expected to unwrap.
  constexpr std::uint32_t kNoWork = 0xFFFFFFFFu;
  constexpr std::uint32_t kUndecided = 0xFFFFFFFEu;
  std::array<std::uint32_t, ir::kOpKindCount> capsule_of{};
  std::array<BackendOp, ir::kOpKindCount> op_of{};
  for (std::size_t i = 0; i < ir::kOpKindCount; ++i) {
    const auto op = backend_op_of(static_cast<ir::OpKind>(i));
    capsule_of[i] = op ? kUndecided : kNoWork;
    op_of[i] = op.value_or(BackendOp::add);
  }
  const std::size_t count = graph.nodes.size();
  for (std::size_t i = 0; i < count; ++i) {
    // Nodes are large (a few cache lines each) and only their id and kind are read here: fetched
    // a few ahead, the misses overlap.
    if (i + 8 < count) __builtin_prefetch(&graph.nodes[i + 8]);
    const ir::Node& node = graph.nodes[i];
    const auto kind = static_cast<std::size_t>(node.kind);
    std::uint32_t capsule = capsule_of[kind];
    if (capsule >= kUndecided) [[unlikely]] {
      if (capsule == kNoWork) continue;
      auto id = decisions.decide(op_of[kind]);
      if (!id) return std::unexpected(at_node(std::move(id.error()), node));
      capsule = capsule_of[kind] = *id;
    }
    plan.kernels.push_back({node.id, node.kind, op_of[kind], capsule});
  }
  return plan;
}

Expected<GraphExecutionPlan> plan_graph(const BackendProfile& profile,
                                        const ir::CheckedGraph& graph) {
  const Availability availability = profile.availability();
  return plan_graph(profile.config, profile.registry, graph, &availability);
}

}  // namespace nnplan::backend
