#include "nnplan/backend/gate.hpp"

namespace nnplan::backend {

std::optional<GateFailureKind> gate_failure_for(const AssurancePolicy& policy,
                                                Disposition disposition) {
  switch (disposition) {
    case Disposition::proved:
    case Disposition::checked:
      return std::nullopt;
    case Disposition::missing:
      if (policy.require_evidence) return GateFailureKind::missing_evidence;
      return std::nullopt;
    case Disposition::guarded:
      if (!policy.allow_runtime_guards) return GateFailureKind::runtime_guard_evidence;
      return std::nullopt;
    case Disposition::tested:
      if (!policy.allow_test_evidence) return GateFailureKind::test_evidence;
      return std::nullopt;
    case Disposition::trusted:
      if (!policy.allow_trusted_external) return GateFailureKind::trusted_boundary;
      return std::nullopt;
    case Disposition::fuzzed:
      if (!policy.allow_fuzzed) return GateFailureKind::fuzz_evidence;
      return std::nullopt;
  }
  return std::nullopt;
}

std::vector<GateFailure> gate(const AssurancePolicy& policy, const ExecutionAudit& audit) {
  std::array<GateFailure, kGateFailureKindNames.size()> by_kind;
  for (std::size_t i = 0; i < by_kind.size(); ++i)
    by_kind[i].kind = static_cast<GateFailureKind>(i);
  for (CapsuleId id : audit.distinct_capsules()) {
    for (ObligationReport& r : obligations_of(audit.registry().capsule(id))) {
      if (auto kind = gate_failure_for(policy, r.disposition)) {
        by_kind[static_cast<std::size_t>(*kind)].obligations.push_back(std::move(r));
      }
    }
  }
  std::vector<GateFailure> failures;
  for (GateFailure& f : by_kind) {
    if (!f.obligations.empty()) failures.push_back(std::move(f));
  }
  return failures;
}

Error gate_error(const AssurancePolicy& policy, const std::vector<GateFailure>& failures) {
  std::string kinds;
  for (const GateFailure& f : failures) {
    if (!kinds.empty()) kinds += ", ";
    kinds += to_string(f.kind);
  }
  Error e =
      make_error(ErrorKind::rejected_by_policy,
                 "plan rejected by assurance policy " + std::string(label(policy)) + ": " + kinds);
  for (const GateFailure& f : failures) {
    for (const ObligationReport& r : f.obligations) {
      e.notes.push_back(std::string(to_string(f.kind)) + ": " + r.capsule + " " +
                        std::string(to_string(r.field)) + ": " + r.claim + "; " +
                        label(r.evidence));
    }
  }
  return e;
}

}  // namespace nnplan::backend
