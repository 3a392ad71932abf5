#include "nnplan/backend/planner.hpp"

#include <algorithm>
#include <optional>

namespace nnplan::backend {
namespace {

bool eligible(const ExecutionConfig& config, const KernelCapsule& c,
              const Availability* availability) {
  return admissible(config, c) && (availability == nullptr || availability->admits(c));
}

std::optional<CapsuleId> choose(const ExecutionConfig& config, const Registry& registry,
                                BackendOp op, const Availability* availability) {
  std::optional<CapsuleId> first;
  const bool prefer = config.preference.kind == BackendPreference::Kind::prefer;
  for (CapsuleId id : registry.implementing(op)) {
    const KernelCapsule& c = registry.capsule(id);
    if (!eligible(config, c, availability)) continue;
    if (!prefer || c.provider == config.preference.provider) return id;
    if (!first) first = id;
  }
  return first;
}

}  // namespace

std::vector<std::string> ExecutionPlan::capsule_names() const {
  std::vector<std::string> names;
  names.reserve(kernels.size());
  for (const PlannedKernel& k : kernels)
    names.push_back(registry->capsule(k.capsule).name);
  return names;
}

bool ExecutionPlan::admissible(const ExecutionConfig& config) const {
  return std::ranges::all_of(kernels, [&](const PlannedKernel& k) {
    return backend::admissible(config, registry->capsule(k.capsule));
  });
}

std::vector<KernelCapsule> order_by_preference(const ExecutionConfig& config,
                                               std::span<const KernelCapsule> capsules) {
  std::vector<KernelCapsule> out(capsules.begin(), capsules.end());
  if (config.preference.kind == BackendPreference::Kind::prefer) {
    std::ranges::stable_partition(
        out, [&](const KernelCapsule& c) { return c.provider == config.preference.provider; });
  }
  return out;
}

Error explain_no_admissible(const ExecutionConfig& config, const Registry& registry, BackendOp op,
                            const Availability* availability) {
  Error e = make_error(ErrorKind::rejected_by_policy,
                       "no admissible backend capsule for op " + std::string(to_string(op)) +
                           " on device " + std::string(to_string(config.device)));
  const auto ids = registry.implementing(op);
  if (ids.empty()) {
    e.notes.push_back("no capsule in the registry implements " + std::string(to_string(op)));
    return e;
  }
  for (CapsuleId id : ids) {
    const KernelCapsule& c = registry.capsule(id);
    CandidateReport report{.capsule = c.name,
                           .provider = std::string(to_string(c.provider)),
                           .device = std::string(to_string(c.device)),
                           .reasons = {}};
    for (Rejection& r : rejection_reasons(config, c, availability)) {
      report.reasons.push_back({std::string(to_string(r.reason)), std::move(r.detail)});
    }
    e.candidates.push_back(std::move(report));
  }
  return e;
}

Expected<PlannedKernel> plan_op(const ExecutionConfig& config, const Registry& registry,
                                BackendOp op, const Availability* availability) {
  if (auto id = choose(config, registry, op, availability)) return PlannedKernel{op, *id};
  return std::unexpected(explain_no_admissible(config, registry, op, availability));
}

Expected<CapsuleId> OpDecisions::decide_slow(BackendOp op) {
  auto& slot = state_[static_cast<std::size_t>(op)];
  if (slot == kUndecided) {
    auto id = choose(config_, registry_, op, availability_);
    slot = id ? *id : kFailed;
  }
  if (slot != kFailed) return slot;
  return std::unexpected(explain_no_admissible(config_, registry_, op, availability_));
}

namespace {

Expected<ExecutionPlan> plan_sequence(const ExecutionConfig& config,
                                      std::shared_ptr<const Registry> registry,
                                      std::span<const BackendOp> ops,
                                      const Availability* availability) {
  if (!registry) {
    return std::unexpected(make_error(ErrorKind::invalid_input, "no registry to plan against"));
  }
  ExecutionPlan plan{.registry = std::move(registry), .kernels = {}};
  plan.kernels.reserve(ops.size());
  OpDecisions decisions(config, *plan.registry, availability);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    auto id = decisions.decide(ops[i]);
    if (!id) {
      Error e = std::move(id.error());
      e.position = i;
      return std::unexpected(std::move(e).with_context("at op " + std::to_string(i + 1) + " of " +
                                                       std::to_string(ops.size()) + " (" +
                                                       std::string(to_string(ops[i])) + ")"));
    }
    plan.kernels.push_back({ops[i], *id});
  }
  return plan;
}

}  // namespace

Expected<ExecutionPlan> plan_ops(const ExecutionConfig& config,
                                 std::shared_ptr<const Registry> registry,
                                 std::span<const BackendOp> ops) {
  return plan_sequence(config, std::move(registry), ops, nullptr);
}

Expected<ExecutionPlan> plan_ops_available(const ExecutionConfig& config,
                                           const Availability& availability,
                                           std::shared_ptr<const Registry> registry,
                                           std::span<const BackendOp> ops) {
  return plan_sequence(config, std::move(registry), ops, &availability);
}

}  // namespace nnplan::backend
