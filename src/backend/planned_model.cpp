#include "nnplan/backend/planned_model.hpp"

#include "nnplan/exception_boundary.hpp"

namespace nnplan::backend {

Expected<PlannedModel> plan_model(BackendProfile profile,
                                  std::shared_ptr<const ir::CheckedGraph> graph,
                                  std::shared_ptr<const ir::WeightStore> weights) {
  return catch_as_error(
      [] { return std::string("planning the graph"); },
      [&]() -> Expected<PlannedModel> {
        if (!graph) {
          return std::unexpected(make_error(
              ErrorKind::invalid_input, "no checked graph to plan under profile " + profile.name));
        }
        if (!profile.registry) {
          return std::unexpected(
              make_error(ErrorKind::invalid_input, "profile " + profile.name + " has no registry"));
        }
        auto evaluation = evaluate_graph(profile, *graph);
        if (!evaluation) return std::unexpected(std::move(evaluation.error()));
        return PlannedModel(std::move(graph), std::move(weights), std::move(profile),
                            std::move(*evaluation));
      });
}

}  // namespace nnplan::backend
