#include "nnplan/backend/gate.hpp"

#include <cassert>

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
  static_assert(kGateFailureKindNames.size() <= 8, "failure kinds of a capsule fit in one byte");
  std::array<GateFailure, kGateFailureKindNames.size()> by_kind;
  for (std::size_t i = 0; i < by_kind.size(); ++i)
    by_kind[i].kind = static_cast<GateFailureKind>(i);
  // The failure kinds of each distinct capsule, one bit per kind: rows are then named by one
  // table read each.
  std::vector<std::uint8_t> kinds_of(
      audit.distinct_capsules().empty() ? 0 : audit.registry().size(), 0);
  bool failed = false;
  for (CapsuleId id : audit.distinct_capsules()) {
    for (ObligationReport& r : obligations_of(audit.registry().capsule(id))) {
      if (auto kind = gate_failure_for(policy, r.disposition)) {
        const auto k = static_cast<std::size_t>(*kind);
        by_kind[k].obligations.push_back(std::move(r));
        kinds_of[id] = static_cast<std::uint8_t>(kinds_of[id] | (1u << k));
        failed = true;
      }
    }
  }
  if (!failed) return {};
  for (std::size_t row = 0; row < audit.size(); ++row) {
    const std::uint8_t kinds = kinds_of[audit.capsule_id(row)];
    if (kinds == 0) continue;
    for (std::size_t k = 0; k < by_kind.size(); ++k) {
      if ((kinds & (1u << k)) != 0) by_kind[k].groups.push_back(static_cast<std::uint32_t>(row));
    }
  }
  std::vector<GateFailure> failures;
  for (GateFailure& f : by_kind) {
    if (!f.obligations.empty()) failures.push_back(std::move(f));
  }
  return failures;
}

std::vector<GateFailure> gate(const AssurancePolicy& policy, const GraphLoweringPlan& lowering,
                              const ExecutionAudit& audit) {
  std::vector<GateFailure> failures = gate(policy, audit);
  assert(audit.size() == lowering.groups.size());
  for (GateFailure& f : failures) {
    for (std::uint32_t g : f.groups) {
      if (g >= lowering.groups.size()) continue;
      for (const PlannedNodeKernel& k : lowering.group_nodes(lowering.groups[g]))
        f.node_ids.push_back(k.node_id);
    }
  }
  return failures;
}

namespace {

// Ascending ids as text for a note: runs of three or more as `first-last` ("0-3,5,7,8"), and at
// most kShownRuns runs, then how many ids are left out. The artifact keeps every id.
std::string id_list(const std::vector<std::uint32_t>& ids) {
  constexpr std::size_t kShownRuns = 32;
  std::string out;
  std::size_t runs = 0;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1)
      ++j;
    if (runs == kShownRuns) {
      out += ",... (" + std::to_string(ids.size() - i) + " more)";
      break;
    }
    if (!out.empty()) out += ',';
    out += std::to_string(ids[i]);
    if (j - i >= 2) {
      out += '-' + std::to_string(ids[j]);
    } else if (j == i + 1) {
      out += ',' + std::to_string(ids[j]);
    }
    ++runs;
    i = j + 1;
  }
  return out;
}

}  // namespace

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
    if (!f.groups.empty()) {
      std::string where = std::string(to_string(f.kind)) + ": groups " + id_list(f.groups);
      if (!f.node_ids.empty()) where += "; nodes " + id_list(f.node_ids);
      e.notes.push_back(std::move(where));
    }
    for (const ObligationReport& r : f.obligations) {
      e.notes.push_back(std::string(to_string(f.kind)) + ": " + r.capsule + " " +
                        std::string(to_string(r.field)) + ": " + r.claim + "; " +
                        label(r.evidence));
    }
  }
  return e;
}

}  // namespace nnplan::backend
