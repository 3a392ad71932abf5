#include "nnplan/backend/lowering.hpp"

#include <algorithm>

#include "nnplan/backend/audit.hpp"

namespace nnplan::backend {

LoweredKernelGroup LoweredKernelGroup::append_node(const PlannedNodeKernel&) const {
  LoweredKernelGroup g = *this;
  ++g.count;
  g.grouping = GroupingKind::same_capsule_run;
  return g;
}

std::vector<ir::NodeId> GraphLoweringPlan::group_node_ids(const LoweredKernelGroup& g) const {
  std::vector<ir::NodeId> ids;
  ids.reserve(g.count);
  for (const PlannedNodeKernel& k : group_nodes(g))
    ids.push_back(k.node_id);
  return ids;
}

std::vector<ir::OpKind> GraphLoweringPlan::group_kinds(const LoweredKernelGroup& g) const {
  std::vector<ir::OpKind> kinds;
  kinds.reserve(g.count);
  for (const PlannedNodeKernel& k : group_nodes(g))
    kinds.push_back(k.kind);
  return kinds;
}

std::vector<ir::NodeId> GraphLoweringPlan::node_ids() const {
  std::vector<ir::NodeId> ids;
  ids.reserve(nodes.size());
  for (const PlannedNodeKernel& k : nodes)
    ids.push_back(k.node_id);
  return ids;
}

std::vector<std::string> GraphLoweringPlan::capsule_names() const {
  std::vector<std::string> names;
  names.reserve(groups.size());
  for (const LoweredKernelGroup& g : groups)
    names.push_back(capsule(g).name);
  return names;
}

ExecutionPlan GraphLoweringPlan::to_execution_plan() const {
  ExecutionPlan plan{.registry = registry, .kernels = {}};
  plan.kernels.reserve(groups.size());
  for (const LoweredKernelGroup& g : groups)
    plan.kernels.push_back(g.to_planned_kernel());
  return plan;
}

ExecutionAudit GraphLoweringPlan::audit() const {
  return ExecutionAudit(*this);
}

bool GraphLoweringPlan::has_trusted_external() const {
  return std::ranges::any_of(
      groups, [&](const LoweredKernelGroup& g) { return g.has_trusted_external(*registry); });
}

LoweredKernelGroup to_singleton_lowered_group(const PlannedNodeKernel& k, std::uint32_t position) {
  return {.first = position,
          .count = 1,
          .op = k.op,
          .grouping = GroupingKind::singleton,
          .capsule = k.capsule};
}

void LoweringState::push_kernel(const PlannedNodeKernel& k) {
  const auto position = static_cast<std::uint32_t>(plan.nodes.size());
  plan.nodes.push_back(k);
  if (!plan.groups.empty() && plan.groups.back().can_append(k)) {
    plan.groups.back() = plan.groups.back().append_node(k);
  } else {
    plan.groups.push_back(to_singleton_lowered_group(k, position));
  }
}

namespace {

// Groups `nodes` (already the lowering's node array) one per node.
GraphLoweringPlan singleton_groups(std::shared_ptr<const Registry> registry,
                                   PlannedNodeKernels nodes) {
  GraphLoweringPlan out{.registry = std::move(registry), .nodes = std::move(nodes), .groups = {}};
  out.groups.reserve(out.nodes.size());
  for (std::size_t i = 0; i < out.nodes.size(); ++i) {
    out.groups.push_back(to_singleton_lowered_group(out.nodes[i], static_cast<std::uint32_t>(i)));
  }
  return out;
}

// The fold of LoweringState::push_kernel over `nodes`, with the open group kept in a local: the
// same groups, without re-reading groups.back() and growing two vectors per node.
GraphLoweringPlan coalesced_groups(std::shared_ptr<const Registry> registry,
                                   PlannedNodeKernels nodes) {
  GraphLoweringPlan out{.registry = std::move(registry), .nodes = std::move(nodes), .groups = {}};
  const std::span<const PlannedNodeKernel> kernels(out.nodes);
  if (kernels.empty()) return out;
  LoweredKernelGroups& groups = out.groups;
  groups.reserve(kernels.size());
  LoweredKernelGroup open = to_singleton_lowered_group(kernels[0], 0);
  for (std::size_t i = 1; i < kernels.size(); ++i) {
    const PlannedNodeKernel& k = kernels[i];
    if (open.can_append(k)) {
      open = open.append_node(k);
    } else {
      groups.push_back(open);
      open = to_singleton_lowered_group(k, static_cast<std::uint32_t>(i));
    }
  }
  groups.push_back(open);
  return out;
}

}  // namespace

GraphLoweringPlan to_singleton_lowering_plan(const GraphExecutionPlan& p) {
  return singleton_groups(p.registry, p.kernels);
}

GraphLoweringPlan to_singleton_lowering_plan(GraphExecutionPlan&& p) {
  return singleton_groups(std::move(p.registry), std::move(p.kernels));
}

GraphLoweringPlan to_coalesced_lowering_plan(const GraphExecutionPlan& p) {
  return coalesced_groups(p.registry, p.kernels);
}

GraphLoweringPlan to_coalesced_lowering_plan(GraphExecutionPlan&& p) {
  return coalesced_groups(std::move(p.registry), std::move(p.kernels));
}

}  // namespace nnplan::backend
