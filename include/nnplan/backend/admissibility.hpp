// Admissibility (SPEC §2) and its explanation (SPEC §5, §10). A capsule is admissible under a
// config when it supports forward, its contracts are aligned, the policy admits its trust level,
// the preference admits its provider, its device is the config's device and its VJP mode fits.
// `rejection_reasons` returns every part that fails, plus the availability misses, so that a
// planning failure can explain each candidate completely.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/availability.hpp"
#include "nnplan/backend/capsule.hpp"
#include "nnplan/backend/execution_config.hpp"

namespace nnplan::backend {

enum class RejectionReason : std::uint8_t {
  forward_unsupported,
  contracts_misaligned,
  trust_not_admitted,
  provider_excluded,
  wrong_device,
  vjp_incompatible,
  unavailable_device,
  unavailable_provider,
};
inline constexpr auto kRejectionReasonNames = enum_names<RejectionReason::unavailable_provider>(
    {"forward-unsupported", "contracts-misaligned", "trust-not-admitted", "provider-excluded",
     "wrong-device", "vjp-incompatible", "unavailable-device", "unavailable-provider"});
[[nodiscard]] constexpr std::string_view to_string(RejectionReason v) {
  return enum_name(kRejectionReasonNames, v);
}
[[nodiscard]] inline Expected<RejectionReason> parse_rejection_reason(std::string_view s) {
  return parse_enum<RejectionReason>(kRejectionReasonNames, s, "rejection reason");
}

// One failed admissibility part with its specifics, e.g. {contracts_misaligned, "shape field
// holds 'relu forward refines Spec.relu', expected 'shape safety for relu'"}.
struct Rejection {
  RejectionReason reason = RejectionReason::forward_unsupported;
  std::string detail;

  bool operator==(const Rejection&) const = default;
};

// The config-independent part: forward support and aligned contracts.
[[nodiscard]] inline bool well_formed_for_planning(const KernelCapsule& c) {
  return c.supports_forward && contracts_aligned(c);
}

// SPEC §2 admissibility, without availability.
[[nodiscard]] inline bool admissible(const ExecutionConfig& config, const KernelCapsule& c) {
  return well_formed_for_planning(c) && admits_trust(config.assurance, c.trust_level) &&
         admits_provider(config.preference, c.provider) && c.device == config.device &&
         vjp_fits(config.vjp_mode, c.op, c.vjp_mode);
}

// Every reason `capsule` is not admissible under `config`, in SPEC §10 order; when
// `availability` is given, its misses come last. Empty means admissible (and available).
[[nodiscard]] std::vector<Rejection> rejection_reasons(const ExecutionConfig& config,
                                                       const KernelCapsule& capsule,
                                                       const Availability* availability = nullptr);

}  // namespace nnplan::backend
