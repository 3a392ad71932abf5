// Acceptance (SPEC §8–§9): plan a checked graph under a profile, lower it by the profile's mode,
// audit it and gate it by the profile's assurance policy. An AcceptedGraphPlan can only be
// obtained through the gate; `evaluate_graph` returns every intermediate result, accepted or not,
// for reports and artifacts. Every result shares the profile's registry and refers to nothing
// else the caller holds, so it may outlive the profile and the graph it was made from (the
// bundle of all of them is PlannedModel, planned_model.hpp).
#pragma once

#include <vector>

#include "nnplan/backend/audit.hpp"
#include "nnplan/backend/gate.hpp"
#include "nnplan/backend/graph_plan.hpp"
#include "nnplan/backend/lowering.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/ir/check.hpp"

namespace nnplan::backend {

// A lowering plan that passed its gate.
class AcceptedGraphPlan {
 public:
  [[nodiscard]] const GraphLoweringPlan& lowering() const { return lowering_; }
  [[nodiscard]] const ExecutionAudit& audit() const { return audit_; }

  // The only way to obtain an accepted plan: gate `lowering` under `policy`.
  [[nodiscard]] static Expected<AcceptedGraphPlan> through_gate(GraphLoweringPlan lowering,
                                                                const AssurancePolicy& policy);

 private:
  AcceptedGraphPlan(GraphLoweringPlan lowering, ExecutionAudit audit)
      : lowering_(std::move(lowering)), audit_(std::move(audit)) {}
  GraphLoweringPlan lowering_;
  ExecutionAudit audit_;
};

// Everything planning a graph under a profile produced, whether or not the gate passed.
struct GraphEvaluation {
  // Its node array is the graph execution plan, in graph order (fused lowering: in execution
  // order, each fused chain at its last node's place).
  GraphLoweringPlan lowering;
  ExecutionAudit audit;
  std::vector<GateFailure> gate_failures;

  [[nodiscard]] bool accepted() const { return gate_failures.empty(); }
};

// Lowers by the profile's lowering mode (`graph` is the graph `plan` was planned from: the fused
// mode reads its consumers); the rvalue overload reuses the plan's kernel array.
[[nodiscard]] GraphLoweringPlan lower(const BackendProfile& profile, const ir::Graph& graph,
                                      const GraphExecutionPlan& plan);
[[nodiscard]] GraphLoweringPlan lower(const BackendProfile& profile, const ir::Graph& graph,
                                      GraphExecutionPlan&& plan);

// Plans, lowers, audits and gates. Fails only when some node has no admissible capsule.
[[nodiscard]] Expected<GraphEvaluation> evaluate_graph(const BackendProfile& profile,
                                                       const ir::CheckedGraph& graph);

// Plans, lowers and gates; a gate rejection is a rejected_by_policy error listing the failures.
[[nodiscard]] Expected<AcceptedGraphPlan> accept_graph(const BackendProfile& profile,
                                                       const ir::CheckedGraph& graph);

}  // namespace nnplan::backend
