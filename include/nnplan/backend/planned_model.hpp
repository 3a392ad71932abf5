// The planned model: everything planning a checked graph under a profile produced, bundled with
// what it was made from, as one value that owns all of it. It holds the checked graph and its
// weights as shared immutable values, the profile (whose registry the plan, lowering and audit
// share), the graph execution plan and its lowering, the audit and the gate's verdict. Copying,
// moving or destroying the profile or graph it was made from never affects it. It is what the
// runtime compiles; `plan_model` is the only way to make one.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "nnplan/backend/acceptance.hpp"
#include "nnplan/backend/audit.hpp"
#include "nnplan/backend/gate.hpp"
#include "nnplan/backend/graph_plan.hpp"
#include "nnplan/backend/lowering.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/error.hpp"
#include "nnplan/ir/check.hpp"
#include "nnplan/ir/weights.hpp"

namespace nnplan::backend {

class PlannedModel {
 public:
  [[nodiscard]] const ir::Graph& graph() const { return graph_->graph(); }
  [[nodiscard]] const std::shared_ptr<const ir::CheckedGraph>& checked_graph() const {
    return graph_;
  }
  // The graph's weights; null when none were given.
  [[nodiscard]] const std::shared_ptr<const ir::WeightStore>& weights() const { return weights_; }
  [[nodiscard]] const BackendProfile& profile() const { return profile_; }
  // The graph execution plan: one kernel per runtime-relevant node, in graph order. The lowering
  // took the plan's kernel array over as its node array, so this is a view of that array.
  [[nodiscard]] std::span<const PlannedNodeKernel> plan() const {
    return evaluation_.lowering.nodes;
  }
  [[nodiscard]] const GraphLoweringPlan& lowering() const { return evaluation_.lowering; }
  [[nodiscard]] const ExecutionAudit& audit() const { return evaluation_.audit; }
  // The gate's verdict under the profile's assurance policy: its failures, empty when accepted.
  [[nodiscard]] const std::vector<GateFailure>& gate_failures() const {
    return evaluation_.gate_failures;
  }
  [[nodiscard]] bool accepted() const { return evaluation_.accepted(); }
  // Lowering, audit and verdict together, as reports and artifacts take them.
  [[nodiscard]] const GraphEvaluation& evaluation() const { return evaluation_; }

 private:
  friend Expected<PlannedModel> plan_model(BackendProfile profile,
                                           std::shared_ptr<const ir::CheckedGraph> graph,
                                           std::shared_ptr<const ir::WeightStore> weights);
  PlannedModel(std::shared_ptr<const ir::CheckedGraph> graph,
               std::shared_ptr<const ir::WeightStore> weights, BackendProfile profile,
               GraphEvaluation evaluation)
      : graph_(std::move(graph)),
        weights_(std::move(weights)),
        profile_(std::move(profile)),
        evaluation_(std::move(evaluation)) {}

  std::shared_ptr<const ir::CheckedGraph> graph_;
  std::shared_ptr<const ir::WeightStore> weights_;
  BackendProfile profile_;
  GraphEvaluation evaluation_;
};

// Plans `graph` under `profile`, lowers it by the profile's mode, audits it and gates it by the
// profile's assurance policy (evaluate_graph), and bundles the results with the graph, `weights`
// (may be null) and the profile. A gate rejection is a model that is not accepted, not an error.
// Errors: a null graph or a profile without a registry (invalid_input); a node with no
// admissible capsule (rejected_by_policy, as plan_graph).
[[nodiscard]] Expected<PlannedModel> plan_model(
    BackendProfile profile, std::shared_ptr<const ir::CheckedGraph> graph,
    std::shared_ptr<const ir::WeightStore> weights = nullptr);

}  // namespace nnplan::backend
