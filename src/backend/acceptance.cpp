#include "nnplan/backend/acceptance.hpp"

namespace nnplan::backend {

Expected<AcceptedGraphPlan> AcceptedGraphPlan::through_gate(GraphLoweringPlan lowering,
                                                            const AssurancePolicy& policy) {
  ExecutionAudit audit = lowering.audit();
  std::vector<GateFailure> failures = gate(policy, lowering, audit);
  if (!failures.empty()) return std::unexpected(gate_error(policy, failures));
  return AcceptedGraphPlan(std::move(lowering), std::move(audit));
}

GraphLoweringPlan lower(const BackendProfile& profile, const ir::Graph& graph,
                        const GraphExecutionPlan& plan) {
  return lower(profile, graph, GraphExecutionPlan(plan));
}

GraphLoweringPlan lower(const BackendProfile& profile, const ir::Graph& graph,
                        GraphExecutionPlan&& plan) {
  switch (profile.lowering) {
    case LoweringMode::singleton:
      return to_singleton_lowering_plan(std::move(plan));
    case LoweringMode::coalesced:
      return to_coalesced_lowering_plan(std::move(plan));
    case LoweringMode::fused:
      return to_fused_lowering_plan(std::move(plan), graph, profile.config,
                                    profile.availability());
  }
  return to_coalesced_lowering_plan(std::move(plan));
}

Expected<GraphEvaluation> evaluate_graph(const BackendProfile& profile,
                                         const ir::CheckedGraph& graph) {
  auto plan = plan_graph(profile, graph);
  if (!plan) return std::unexpected(std::move(plan.error()));
  GraphLoweringPlan lowering = lower(profile, graph.graph(), std::move(*plan));
  ExecutionAudit audit = lowering.audit();
  std::vector<GateFailure> failures = gate(profile.config.assurance, lowering, audit);
  return GraphEvaluation{.lowering = std::move(lowering),
                         .audit = std::move(audit),
                         .gate_failures = std::move(failures)};
}

Expected<AcceptedGraphPlan> accept_graph(const BackendProfile& profile,
                                         const ir::CheckedGraph& graph) {
  auto plan = plan_graph(profile, graph);
  if (!plan) return std::unexpected(std::move(plan.error()));
  return AcceptedGraphPlan::through_gate(lower(profile, graph.graph(), std::move(*plan)),
                                         profile.config.assurance);
}

}  // namespace nnplan::backend
