// The gate (SPEC §8): judges an execution audit's evidence under an assurance policy. Failure
// kinds come in a fixed order: missing evidence (when require_evidence), runtime-guard evidence,
// test evidence, trusted boundaries, fuzz evidence (each unless allowed). Proved and checked
// evidence always pass. Verdicts are computed once per distinct capsule, so each failure lists the
// obligations of each offending capsule once, however many groups use it, and names every group
// (audit row) using an offending capsule and, for a graph, every source node of those groups.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/assurance_policy.hpp"
#include "nnplan/backend/audit.hpp"
#include "nnplan/backend/lowering.hpp"
#include "nnplan/ir/graph.hpp"

namespace nnplan::backend {

enum class GateFailureKind : std::uint8_t {
  missing_evidence,
  runtime_guard_evidence,
  test_evidence,
  trusted_boundary,
  fuzz_evidence,
};
inline constexpr auto kGateFailureKindNames = enum_names<GateFailureKind::fuzz_evidence>(
    {"missing-evidence", "runtime-guard-evidence", "test-evidence", "trusted-boundary",
     "fuzz-evidence"});
[[nodiscard]] constexpr std::string_view to_string(GateFailureKind v) {
  return enum_name(kGateFailureKindNames, v);
}
[[nodiscard]] inline Expected<GateFailureKind> parse_gate_failure_kind(std::string_view s) {
  return parse_enum<GateFailureKind>(kGateFailureKindNames, s, "gate failure kind");
}

struct GateFailure {
  GateFailureKind kind = GateFailureKind::missing_evidence;
  // Each offending capsule's obligations of this kind, in first-appearance order of the capsules.
  std::vector<ObligationReport> obligations;
  // The audit rows (for a graph, the lowered groups) whose capsule has an obligation of this
  // kind, ascending.
  std::vector<std::uint32_t> groups;
  // The source node ids of those groups, in group order then node order; empty when the audit is
  // of an op list, which has no nodes.
  std::vector<ir::NodeId> node_ids;

  bool operator==(const GateFailure&) const = default;
};

// The failure kind an evidence disposition triggers under `policy`, if any.
[[nodiscard]] std::optional<GateFailureKind> gate_failure_for(const AssurancePolicy& policy,
                                                              Disposition disposition);

// Every failure, in SPEC order, naming the failing rows as `groups` (node_ids stay empty); empty
// means the gate passes.
[[nodiscard]] std::vector<GateFailure> gate(const AssurancePolicy& policy,
                                            const ExecutionAudit& audit);

// The same for the audit of a graph lowering (`audit` made from `lowering`, one row per group),
// with each failure's `node_ids` filled from the groups it names.
[[nodiscard]] std::vector<GateFailure> gate(const AssurancePolicy& policy,
                                            const GraphLoweringPlan& lowering,
                                            const ExecutionAudit& audit);

// `plan rejected by assurance policy <label>: <kind>, <kind>` with, per failure, one note
// `<kind>: groups <i,i,...>; nodes <id,id,...>` (the nodes part only when node ids are known)
// followed by one note per obligation.
[[nodiscard]] Error gate_error(const AssurancePolicy& policy,
                               const std::vector<GateFailure>& failures);

}  // namespace nnplan::backend
