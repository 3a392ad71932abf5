// The planner (SPEC §5, seed "Backend Planner"): for each requested op, choose the first
// admissible capsule in preference order, or explain, capsule by capsule, why none is admissible.
// Plans refer to capsules by CapsuleId into the registry they were planned against and share
// ownership of that registry, so a plan stays valid however long it lives. Each distinct op is
// decided once per call and reused.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nnplan/backend/admissibility.hpp"
#include "nnplan/backend/availability.hpp"
#include "nnplan/backend/execution_config.hpp"
#include "nnplan/backend/registry.hpp"
#include "nnplan/error.hpp"

namespace nnplan::backend {

// A backend choice for one requested op.
struct PlannedKernel {
  BackendOp op = BackendOp::add;
  CapsuleId capsule = 0;

  bool operator==(const PlannedKernel&) const = default;
};

// One selected capsule per requested op, in request order.
struct ExecutionPlan {
  std::shared_ptr<const Registry> registry;  // the registry the ids index, shared
  std::vector<PlannedKernel> kernels;

  [[nodiscard]] const KernelCapsule& capsule(std::size_t i) const {
    return registry->capsule(kernels[i].capsule);
  }
  // Names of the selected capsules, in plan order (a copy, for audits and logs).
  [[nodiscard]] std::vector<std::string> capsule_names() const;
  // Whether every selected capsule is admissible under `config` (trust, device, provider, VJP).
  [[nodiscard]] bool admissible(const ExecutionConfig& config) const;
};

// The seed's stable partition: under `prefer p`, capsules of provider p first; otherwise
// unchanged. Relative orders are kept.
[[nodiscard]] std::vector<KernelCapsule> order_by_preference(
    const ExecutionConfig& config, std::span<const KernelCapsule> capsules);

// The chosen capsule for `op`: under `prefer p`, the first eligible capsule of provider p, else
// the first eligible one; under `auto` and `only`, the first eligible one. When `availability`
// is given, capsules it does not admit are not eligible (plan_ops_available). On failure the
// error's message is `no admissible backend capsule for op <op> on device <device>` and its
// candidates list every capsule implementing the op with all of its rejection reasons.
[[nodiscard]] Expected<PlannedKernel> plan_op(const ExecutionConfig& config,
                                              const Registry& registry, BackendOp op,
                                              const Availability* availability = nullptr);

// Plans a sequence, failing on the first op that cannot be planned (the error names its
// position). The result shares `registry`.
[[nodiscard]] Expected<ExecutionPlan> plan_ops(const ExecutionConfig& config,
                                               std::shared_ptr<const Registry> registry,
                                               std::span<const BackendOp> ops);

// plan_ops over the capsules `availability` admits; hidden capsules still appear in a failure's
// explanation, with `unavailable-device` / `unavailable-provider`.
[[nodiscard]] Expected<ExecutionPlan> plan_ops_available(const ExecutionConfig& config,
                                                         const Availability& availability,
                                                         std::shared_ptr<const Registry> registry,
                                                         std::span<const BackendOp> ops);

// The full explanation of why `op` has no admissible capsule (used by plan_op on failure).
[[nodiscard]] Error explain_no_admissible(const ExecutionConfig& config, const Registry& registry,
                                          BackendOp op, const Availability* availability);

// Memoized per-op decisions under one (config, registry, availability): graph planning and
// plan_ops decide each distinct op once and reuse the answer for every later occurrence. A local
// helper of one planning call: it refers to its arguments without owning them, so it can be
// neither copied nor moved out of the scope that made it; what it decides is plain ids.
class OpDecisions {
 public:
  OpDecisions(const ExecutionConfig& config, const Registry& registry,
              const Availability* availability)
      : config_(config), registry_(registry), availability_(availability) {
    state_.fill(kUndecided);
  }
  OpDecisions(const OpDecisions&) = delete;
  OpDecisions& operator=(const OpDecisions&) = delete;

  // The chosen capsule for `op`, deciding it on first use.
  [[nodiscard]] Expected<CapsuleId> decide(BackendOp op) {
    const std::uint32_t s = state_[static_cast<std::size_t>(op)];
    if (s < kUndecided) return s;
    return decide_slow(op);
  }

 private:
  static constexpr std::uint32_t kUndecided = 0xFFFFFFFEu;
  static constexpr std::uint32_t kFailed = 0xFFFFFFFFu;

  Expected<CapsuleId> decide_slow(BackendOp op);

  const ExecutionConfig& config_;
  const Registry& registry_;
  const Availability* availability_;
  std::array<std::uint32_t, kBackendOpCount> state_{};
};

}  // namespace nnplan::backend
