// AssurancePolicy (SPEC §1): which trust levels and which kinds of evidence a run accepts.
// The planner uses trust admission; the gate (later in the flow) uses the evidence switches.
#pragma once

#include <array>
#include <string_view>

#include "nnplan/backend/vocabulary.hpp"
#include "nnplan/error.hpp"

namespace nnplan::backend {

struct AssurancePolicy {
  bool allow_checked = false;
  bool allow_fuzzed = false;
  bool allow_trusted_external = false;
  bool require_evidence = true;
  bool allow_runtime_guards = false;
  bool allow_test_evidence = false;

  bool operator==(const AssurancePolicy&) const = default;

  // Only verified capsules, only proof-backed evidence.
  [[nodiscard]] static constexpr AssurancePolicy verified() { return {}; }
  // Checked and fuzzed capsules, runtime guards and test evidence accepted.
  [[nodiscard]] static constexpr AssurancePolicy checked() {
    return {.allow_checked = true,
            .allow_fuzzed = true,
            .require_evidence = true,
            .allow_runtime_guards = true,
            .allow_test_evidence = true};
  }
  // `checked` plus trusted-external boundaries.
  [[nodiscard]] static constexpr AssurancePolicy external() {
    AssurancePolicy p = checked();
    p.allow_trusted_external = true;
    return p;
  }
};

// The named presets of the command line, in this order.
enum class AssurancePreset : std::uint8_t { verified, checked, external };
inline constexpr auto kAssurancePresetNames =
    enum_names<AssurancePreset::external>({"verified", "checked", "external"});
[[nodiscard]] constexpr std::string_view to_string(AssurancePreset v) {
  return enum_name(kAssurancePresetNames, v);
}
[[nodiscard]] inline Expected<AssurancePreset> parse_assurance_preset(std::string_view s) {
  return parse_enum<AssurancePreset>(kAssurancePresetNames, s, "assurance policy");
}
[[nodiscard]] constexpr AssurancePolicy policy_of(AssurancePreset preset) {
  switch (preset) {
    case AssurancePreset::verified:
      return AssurancePolicy::verified();
    case AssurancePreset::checked:
      return AssurancePolicy::checked();
    case AssurancePreset::external:
      return AssurancePolicy::external();
  }
  return AssurancePolicy::verified();
}

// The preset's name when the policy equals one, else `custom`.
[[nodiscard]] std::string_view label(const AssurancePolicy& policy);

// `verified` always; the other levels need their allow_* switch.
[[nodiscard]] constexpr bool admits_trust(const AssurancePolicy& policy, TrustLevel trust) {
  switch (trust) {
    case TrustLevel::verified:
      return true;
    case TrustLevel::checked:
      return policy.allow_checked;
    case TrustLevel::fuzzed:
      return policy.allow_fuzzed;
    case TrustLevel::trusted_external:
      return policy.allow_trusted_external;
  }
  return false;
}

}  // namespace nnplan::backend
