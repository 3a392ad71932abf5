// The gate (SPEC §8): judges an execution audit's evidence under an assurance policy. Failure
// kinds come in a fixed order: missing evidence (when require_evidence), runtime-guard evidence,
// test evidence, trusted boundaries, fuzz evidence (each unless allowed). Proved and checked
// evidence always pass. Verdicts are computed once per distinct capsule, so each failure lists the
// obligations of each offending capsule once, however many groups use it.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/assurance_policy.hpp"
#include "nnplan/backend/audit.hpp"

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
  std::vector<ObligationReport> obligations;

  bool operator==(const GateFailure&) const = default;
};

// The failure kind an evidence disposition triggers under `policy`, if any.
[[nodiscard]] std::optional<GateFailureKind> gate_failure_for(const AssurancePolicy& policy,
                                                              Disposition disposition);

// Every failure, in SPEC order; empty means the gate passes.
[[nodiscard]] std::vector<GateFailure> gate(const AssurancePolicy& policy,
                                            const ExecutionAudit& audit);

// `plan rejected by assurance policy <label>: <kind>, <kind>` with one note per obligation.
[[nodiscard]] Error gate_error(const AssurancePolicy& policy,
                               const std::vector<GateFailure>& failures);

}  // namespace nnplan::backend
