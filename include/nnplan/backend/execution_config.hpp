// What a run wants (SPEC §1): a device, a provider preference, an assurance policy and a VJP
// mode. The planner admits a capsule only when it fits all four.
#pragma once

#include <string>

#include "nnplan/backend/assurance_policy.hpp"
#include "nnplan/backend/vocabulary.hpp"
#include "nnplan/error.hpp"

namespace nnplan::backend {

// `auto`, `prefer <provider>` or `only <provider>`.
struct BackendPreference {
  enum class Kind : std::uint8_t { automatic, prefer, only };
  Kind kind = Kind::automatic;
  Provider provider = Provider::reference;  // meaningful for prefer and only

  bool operator==(const BackendPreference&) const = default;

  [[nodiscard]] static constexpr BackendPreference automatic() { return {}; }
  [[nodiscard]] static constexpr BackendPreference prefer(Provider p) {
    return {.kind = Kind::prefer, .provider = p};
  }
  [[nodiscard]] static constexpr BackendPreference only(Provider p) {
    return {.kind = Kind::only, .provider = p};
  }
};

// `auto`, `prefer native-cuda`, `only libtorch`.
[[nodiscard]] std::string to_string(const BackendPreference& preference);
// Inverse of to_string; lists the valid forms and providers on error.
[[nodiscard]] Expected<BackendPreference> parse_backend_preference(std::string_view text);

// `only p` admits exactly provider p; `auto` and `prefer` admit every provider.
[[nodiscard]] constexpr bool admits_provider(const BackendPreference& preference,
                                             Provider provider) {
  return preference.kind != BackendPreference::Kind::only || preference.provider == provider;
}

struct ExecutionConfig {
  Device device = Device::cpu;
  BackendPreference preference = BackendPreference::automatic();
  AssurancePolicy assurance = AssurancePolicy::checked();
  VjpMode vjp_mode = VjpMode::torchlean_tape;

  bool operator==(const ExecutionConfig&) const = default;
};

// SPEC §2: a config in mode `none`, or an op without a VJP, accepts any capsule mode;
// `torchlean-tape` accepts tape or backend VJPs; `backend-vjp` accepts only backend VJPs.
[[nodiscard]] constexpr bool vjp_fits(VjpMode config_mode, BackendOp op, VjpMode capsule_mode) {
  if (!requires_vjp(op)) return true;
  switch (config_mode) {
    case VjpMode::none:
      return true;
    case VjpMode::torchlean_tape:
      return capsule_mode == VjpMode::torchlean_tape || capsule_mode == VjpMode::backend_vjp;
    case VjpMode::backend_vjp:
      return capsule_mode == VjpMode::backend_vjp;
  }
  return false;
}

}  // namespace nnplan::backend
