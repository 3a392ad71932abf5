// Lowering (SPEC §7, seed "Backend Lowering Plans"): groups a graph execution plan's kernels into
// backend calls. Singleton lowering makes one group per planned node; coalesced lowering appends a
// node to the previous group exactly when op and capsule identity are equal, marking it
// `same-capsule-run`; neither claims kernel fusion. Fused lowering first replaces each chain of
// planned nodes that matches an admissible fused capsule's pattern with one `fused` group naming
// that capsule, then coalesces the rest; the chain's nodes move, in chain order, to where its
// last node was, so every group stays a range of the node array.
//
// Storage: the plan keeps the planned node kernels in one flat array in execution order; a group
// is a range [first, first + count) of it plus its op, capsule and grouping kind (16 bytes). The
// plan shares the registry its capsule ids index.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nnplan/backend/graph_plan.hpp"
#include "nnplan/backend/planner.hpp"

namespace nnplan::backend {

class ExecutionAudit;

// `fused`: a chain of nodes run by one fused capsule (SPEC §7), the only kind that claims fusion.
enum class GroupingKind : std::uint8_t { singleton, same_capsule_run, fused };
inline constexpr auto kGroupingKindNames =
    enum_names<GroupingKind::fused>({"singleton", "same-capsule-run", "fused"});
[[nodiscard]] constexpr std::string_view to_string(GroupingKind v) {
  return enum_name(kGroupingKindNames, v);
}
[[nodiscard]] inline Expected<GroupingKind> parse_grouping_kind(std::string_view s) {
  return parse_enum<GroupingKind>(kGroupingKindNames, s, "grouping kind");
}

// How the runtime lays out one lowered group's values when this build compiles the plan on a
// machine (runtime::group_layouts): its kernel commands, how many of them run channels-last (every
// input and the output with the channel axis last) rather than flat (dense row-major), and the
// reorder commands that change a value's layout for it: values it reads reordered from flat to
// channels-last before it, and values it wrote channels-last reordered back to flat for a flat
// reader or a graph output.
struct GroupLayout {
  std::size_t commands = 0;
  std::size_t channels_last = 0;
  std::size_t to_channels_last = 0;
  std::size_t to_flat = 0;

  bool operator==(const GroupLayout&) const = default;
};

// One lowered backend call: a run of planned nodes sharing op and capsule.
struct LoweredKernelGroup {
  std::uint32_t first = 0;  // index of the group's first node in GraphLoweringPlan::nodes
  std::uint32_t count = 0;
  BackendOp op = BackendOp::add;
  GroupingKind grouping = GroupingKind::singleton;
  CapsuleId capsule = 0;

  bool operator==(const LoweredKernelGroup&) const = default;

  // Erases lowering metadata to the single-kernel execution-plan row.
  [[nodiscard]] PlannedKernel to_planned_kernel() const { return {op, capsule}; }
  // Whether this group crosses a trusted-external boundary.
  [[nodiscard]] bool has_trusted_external(const Registry& registry) const {
    return registry.capsule(capsule).trust_level == TrustLevel::trusted_external;
  }
  // Whether a planned node may join this group: same op and same capsule identity.
  [[nodiscard]] bool can_append(const PlannedNodeKernel& k) const {
    return grouping != GroupingKind::fused && k.op == op && k.capsule == capsule;
  }
  // This group extended by the node stored right after its last one.
  [[nodiscard]] LoweredKernelGroup append_node(const PlannedNodeKernel& k) const;
};

// The groups of a lowering, on huge pages past 2 MiB (as PlannedNodeKernels).
using LoweredKernelGroups = std::vector<LoweredKernelGroup, LargeAllocator<LoweredKernelGroup>>;

// Backend groups in execution order, with source-node provenance kept.
struct GraphLoweringPlan {
  std::shared_ptr<const Registry> registry;  // the registry the capsule ids index, shared
  PlannedNodeKernels nodes;                  // every planned node, in execution order
  LoweredKernelGroups groups;

  // The planned nodes of one group.
  [[nodiscard]] std::span<const PlannedNodeKernel> group_nodes(const LoweredKernelGroup& g) const {
    return std::span<const PlannedNodeKernel>(nodes).subspan(g.first, g.count);
  }
  [[nodiscard]] std::vector<ir::NodeId> group_node_ids(const LoweredKernelGroup& g) const;
  [[nodiscard]] std::vector<ir::OpKind> group_kinds(const LoweredKernelGroup& g) const;
  [[nodiscard]] const KernelCapsule& capsule(const LoweredKernelGroup& g) const {
    return registry->capsule(g.capsule);
  }

  // Source IR node ids covered by the plan, in execution order (a copy).
  [[nodiscard]] std::vector<ir::NodeId> node_ids() const;
  // Selected capsule names, one per group, in lowering order (a copy).
  [[nodiscard]] std::vector<std::string> capsule_names() const;
  // One planned kernel per group.
  [[nodiscard]] ExecutionPlan to_execution_plan() const;
  // The audit of the selected backend boundaries, one row per group.
  [[nodiscard]] ExecutionAudit audit() const;
  [[nodiscard]] bool has_trusted_external() const;
};

// One group holding one node (the group's range is set by the caller's storage position).
[[nodiscard]] LoweredKernelGroup to_singleton_lowered_group(const PlannedNodeKernel& k,
                                                            std::uint32_t position);

// Fold state for conservative same-boundary lowering.
struct LoweringState {
  GraphLoweringPlan plan;

  // Adds one planned node, coalescing with the previous group when op and capsule are equal.
  void push_kernel(const PlannedNodeKernel& k);
};

// What the fused lowering decided about one (root node, fused capsule) candidate: taken, or the
// first reason it was not. `chain` lists the nodes matched so far, root first.
struct FusionDecision {
  ir::NodeId root = 0;
  CapsuleId capsule = 0;
  bool taken = false;
  std::vector<ir::NodeId> chain;
  std::string reason;  // empty when taken

  bool operator==(const FusionDecision&) const = default;
};

// The fused lowering of `plan` (planned from `graph`): a fused capsule is tried only when it is
// admissible under `config` and `availability` admits it; among the candidates for one root,
// longer patterns first, then registry order. A node joins at most one chain. When `decisions`
// is given it receives every candidate tried, in root order.
[[nodiscard]] GraphLoweringPlan to_fused_lowering_plan(
    GraphExecutionPlan&& plan, const ir::Graph& graph, const ExecutionConfig& config,
    const Availability& availability, std::vector<FusionDecision>* decisions = nullptr);

// One group per planned node. The rvalue overloads (here and below) take the plan's kernel array
// over as the lowering's node array instead of copying it; `plan.kernels` is left empty.
[[nodiscard]] GraphLoweringPlan to_singleton_lowering_plan(const GraphExecutionPlan& plan);
[[nodiscard]] GraphLoweringPlan to_singleton_lowering_plan(GraphExecutionPlan&& plan);
// Adjacent nodes with the same op and capsule share a group: the fold of LoweringState::push_kernel
// over the plan's kernels.
[[nodiscard]] GraphLoweringPlan to_coalesced_lowering_plan(const GraphExecutionPlan& plan);
[[nodiscard]] GraphLoweringPlan to_coalesced_lowering_plan(GraphExecutionPlan&& plan);

}  // namespace nnplan::backend
