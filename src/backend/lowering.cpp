#include "nnplan/backend/lowering.hpp"

#include <algorithm>
#include <limits>
#include <string>

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

namespace {

constexpr std::uint32_t kNotPlanned = std::numeric_limits<std::uint32_t>::max();

std::string node_label(const ir::Graph& graph, ir::NodeId id) {
  return ir::describe(graph.nodes[id]);
}

// The graph's uses of each node's value: its consumers (one entry per parent slot) and how many
// times the graph lists it as an output.
struct ValueUses {
  std::vector<std::vector<ir::NodeId>> consumers;
  std::vector<std::uint32_t> output_uses;

  explicit ValueUses(const ir::Graph& graph)
      : consumers(graph.nodes.size()), output_uses(graph.nodes.size(), 0) {
    for (const ir::Node& n : graph.nodes) {
      for (ir::NodeId p : n.parents) consumers[p].push_back(n.id);
    }
    for (ir::NodeId id : graph.output_ids) ++output_uses[id];
  }
};

// Matches `capsule`'s pattern from the planned node at `root` (an index into `kernels`); fills
// `d.chain` with the matched plan indices' node ids and `d.reason` on failure.
bool match_chain(const ir::Graph& graph, const Registry& registry,
                 std::span<const PlannedNodeKernel> kernels,
                 const std::vector<std::uint32_t>& index_of, const std::vector<bool>& claimed,
                 const ValueUses& uses, std::uint32_t root, const KernelCapsule& fused,
                 FusionDecision& d, std::vector<std::uint32_t>& chain) {
  const std::string provider(to_string(fused.provider));
  const auto planned_elsewhere = [&](std::uint32_t k) {
    const KernelCapsule& own = registry.capsule(kernels[k].capsule);
    if (own.provider == fused.provider) return false;
    d.reason = node_label(graph, kernels[k].node_id) + " is planned on capsule '" + own.name +
               "' (provider " + std::string(to_string(own.provider)) + "), not on " + provider;
    return true;
  };
  chain.assign(1, root);
  d.chain.assign(1, kernels[root].node_id);
  if (planned_elsewhere(root)) return false;
  for (std::size_t step = 1; step < fused.pattern.size(); ++step) {
    const ir::NodeId value = kernels[chain.back()].node_id;
    const auto& consumers = uses.consumers[value];
    const std::size_t use_count = consumers.size() + uses.output_uses[value];
    if (uses.output_uses[value] > 0) {
      d.reason = node_label(graph, value) + " is a graph output, so its value must be kept";
      return false;
    }
    if (use_count != 1) {
      std::string list;
      for (ir::NodeId c : consumers) list += (list.empty() ? "" : ", ") + node_label(graph, c);
      d.reason = node_label(graph, value) + "'s value has " + std::to_string(use_count) +
                 " uses (" + (list.empty() ? std::string("none") : list) +
                 "); a fused chain needs its only consumer to be the next node";
      return false;
    }
    const ir::NodeId next = consumers[0];
    const std::uint32_t k = index_of[next];
    if (k == kNotPlanned) {
      d.reason = "the only consumer of " + node_label(graph, value) + " is " +
                 node_label(graph, next) + ", which runs no kernel";
      return false;
    }
    if (kernels[k].op != fused.pattern[step]) {
      d.reason = "the only consumer of " + node_label(graph, value) + " is " +
                 node_label(graph, next) + ", whose op is " +
                 std::string(to_string(kernels[k].op)) + "; the pattern needs " +
                 std::string(to_string(fused.pattern[step])) + " there";
      return false;
    }
    if (claimed[k]) {
      d.reason = node_label(graph, next) + " already belongs to another fused chain";
      return false;
    }
    if (graph.nodes[next].parents.size() > 2) {
      d.reason = node_label(graph, next) + " has " +
                 std::to_string(graph.nodes[next].parents.size()) +
                 " operands; a fused step takes at most one besides the previous value";
      return false;
    }
    chain.push_back(k);
    d.chain.push_back(next);
    if (planned_elsewhere(k)) return false;
  }
  return true;
}

}  // namespace

GraphLoweringPlan to_fused_lowering_plan(GraphExecutionPlan&& plan, const ir::Graph& graph,
                                         const ExecutionConfig& config,
                                         const Availability& availability,
                                         std::vector<FusionDecision>* decisions) {
  const Registry& registry = *plan.registry;
  const std::span<const PlannedNodeKernel> kernels(plan.kernels);

  // The admissible fused capsules per root op, longer patterns first, then registry order.
  std::vector<CapsuleId> candidates;
  for (CapsuleId id : registry.fused()) {
    const KernelCapsule& c = registry.capsule(id);
    if (admissible(config, c) && availability.admits(c)) candidates.push_back(id);
  }
  std::ranges::stable_sort(candidates, [&](CapsuleId a, CapsuleId b) {
    return registry.capsule(a).pattern.size() > registry.capsule(b).pattern.size();
  });

  std::vector<std::uint32_t> index_of(graph.nodes.size(), kNotPlanned);
  for (std::uint32_t k = 0; k < kernels.size(); ++k) index_of[kernels[k].node_id] = k;
  const ValueUses uses(graph);

  // chain_of_last[k]: the fused capsule and plan indices of the chain ending at plan index k.
  std::vector<bool> claimed(kernels.size(), false);
  std::vector<std::uint32_t> last_of(kernels.size(), kNotPlanned);  // chain member -> its last
  std::vector<std::pair<CapsuleId, std::vector<std::uint32_t>>> chains;
  std::vector<std::uint32_t> chain;
  for (std::uint32_t k = 0; k < kernels.size() && !candidates.empty(); ++k) {
    if (claimed[k]) continue;
    for (CapsuleId id : candidates) {
      const KernelCapsule& fused = registry.capsule(id);
      if (fused.op != kernels[k].op) continue;
      FusionDecision d{.root = kernels[k].node_id, .capsule = id, .taken = false, .chain = {},
                       .reason = {}};
      const bool taken =
          match_chain(graph, registry, kernels, index_of, claimed, uses, k, fused, d, chain);
      d.taken = taken;
      if (decisions != nullptr) decisions->push_back(d);
      if (!taken) continue;
      for (std::uint32_t m : chain) {
        claimed[m] = true;
        last_of[m] = chain.back();
      }
      chains.emplace_back(id, chain);
      break;
    }
  }

  std::vector<std::uint32_t> chain_at_last(kernels.size(), kNotPlanned);
  for (std::uint32_t c = 0; c < chains.size(); ++c) chain_at_last[chains[c].second.back()] = c;

  GraphLoweringPlan out{.registry = std::move(plan.registry), .nodes = {}, .groups = {}};
  out.nodes.reserve(kernels.size());
  LoweringState state{.plan = std::move(out)};
  for (std::uint32_t k = 0; k < kernels.size(); ++k) {
    if (last_of[k] == kNotPlanned) {
      state.push_kernel(kernels[k]);
      continue;
    }
    if (chain_at_last[k] == kNotPlanned) continue;  // emitted with its chain's last node
    const auto& [capsule, members] = chains[chain_at_last[k]];
    const auto first = static_cast<std::uint32_t>(state.plan.nodes.size());
    for (std::uint32_t m : members) state.plan.nodes.push_back(kernels[m]);
    state.plan.groups.push_back({.first = first,
                                 .count = static_cast<std::uint32_t>(members.size()),
                                 .op = registry.capsule(capsule).op,
                                 .grouping = GroupingKind::fused,
                                 .capsule = capsule});
  }
  plan.kernels.clear();
  return std::move(state.plan);
}

}  // namespace nnplan::backend
