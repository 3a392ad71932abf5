// Graph planning (SPEC §6, seeds "Backend Planner" and "Backend Lowering Plans"): one capsule per
// runtime-relevant IR node, in graph order, with node identity kept. Nodes without runtime work
// (input, const, detach) get no kernel. Each distinct (op, config) is decided once per graph
// (OpDecisions) and reused for every node with that op; the plan stores 12 bytes per node and
// shares its registry. Only a graph that passed ir::check is planned.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "nnplan/backend/planner.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/error.hpp"
#include "nnplan/ir/check.hpp"
#include "nnplan/ir/graph.hpp"
#include "nnplan/large_memory.hpp"

namespace nnplan::backend {

// The capsule chosen for one IR node.
struct PlannedNodeKernel {
  ir::NodeId node_id = 0;
  ir::OpKind kind = ir::OpKind::input;
  BackendOp op = BackendOp::add;
  CapsuleId capsule = 0;

  bool operator==(const PlannedNodeKernel&) const = default;
};

// One entry per planned node: past 2 MiB (some 170,000 nodes) on huge pages (large_memory.hpp),
// like the graph's node array, instead of one page fault per 4 KiB.
using PlannedNodeKernels = std::vector<PlannedNodeKernel, LargeAllocator<PlannedNodeKernel>>;

// One planned node kernel per runtime-relevant node, in graph order.
struct GraphExecutionPlan {
  std::shared_ptr<const Registry> registry;  // the registry the capsule ids index, shared
  PlannedNodeKernels kernels;

  // Planned node ids, in graph order (a copy).
  [[nodiscard]] std::vector<ir::NodeId> node_ids() const;
  // Selected capsule names, in graph order (a copy).
  [[nodiscard]] std::vector<std::string> capsule_names() const;
  [[nodiscard]] const KernelCapsule& capsule(std::size_t i) const {
    return registry->capsule(kernels[i].capsule);
  }
};

// The kernel for one node, nullopt for a node without runtime work. The error keeps the planner's
// first line and explanation and adds the frame `at node <id> (<kind>)`; position = node id.
[[nodiscard]] Expected<std::optional<PlannedNodeKernel>> plan_node(
    const ExecutionConfig& config, const Registry& registry, const ir::Node& node,
    const Availability* availability = nullptr);

// Plans every node of a checked graph against `registry` (shared by the plan). A null registry
// is an invalid_input error.
[[nodiscard]] Expected<GraphExecutionPlan> plan_graph(const ExecutionConfig& config,
                                                      std::shared_ptr<const Registry> registry,
                                                      const ir::CheckedGraph& graph,
                                                      const Availability* availability = nullptr);

// plan_graph under a profile's config, registry and declared availability. The plan shares the
// profile's registry, so it outlives the profile.
[[nodiscard]] Expected<GraphExecutionPlan> plan_graph(const BackendProfile& profile,
                                                      const ir::CheckedGraph& graph);

}  // namespace nnplan::backend
