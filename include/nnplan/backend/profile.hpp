// Backend profiles (SPEC §9): a name, an execution config, a declared target, a validated
// registry (a shared immutable value: copying a profile copies a pointer, and every plan made
// under the profile shares the registry) and a lowering mode. The maintained profiles are the
// user-facing defaults; flags and registry files derive new profiles from them. A profile plans op
// lists against its target's declared availability.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/builtin_modules.hpp"
#include "nnplan/backend/execution_config.hpp"
#include "nnplan/backend/planner.hpp"
#include "nnplan/backend/registry.hpp"
#include "nnplan/backend/target.hpp"

namespace nnplan::backend {

// `fused` (SPEC §7): plan every node, then replace each chain that matches an admissible fused
// capsule's pattern with one `fused` group; the rest is grouped as `coalesced` does.
enum class LoweringMode : std::uint8_t { singleton, coalesced, fused };
inline constexpr auto kLoweringModeNames =
    enum_names<LoweringMode::fused>({"singleton", "coalesced", "fused"});
[[nodiscard]] constexpr std::string_view to_string(LoweringMode v) {
  return enum_name(kLoweringModeNames, v);
}
[[nodiscard]] inline Expected<LoweringMode> parse_lowering_mode(std::string_view s) {
  return parse_enum<LoweringMode>(kLoweringModeNames, s, "lowering mode");
}

struct BackendProfile {
  std::string name;
  ExecutionConfig config;
  Target target;
  std::shared_ptr<const Registry> registry = shared_builtin_registry();
  LoweringMode lowering = LoweringMode::coalesced;

  // The availability the target declares (not a probe of this machine).
  [[nodiscard]] Availability availability() const { return declared_availability(target); }
  // Whether the registry holds any capsule for the profile's device.
  [[nodiscard]] bool has_device_capsule() const;
  // This profile with `modules` put first and same-name modules replaced.
  [[nodiscard]] Expected<BackendProfile> with_capsule_modules(
      std::vector<CapsuleModule> modules) const;
};

// The maintained profiles of SPEC §9, in listing order.
enum class MaintainedProfile : std::uint8_t {
  checked_cpu,
  checked_linux_x86_64_cpu,
  checked_macos_aarch64_cpu,
  checked_windows_x86_64_cpu,
  checked_cuda,
  libtorch_forward_cuda,
  fast_cpu,  // SPEC §12: cpu, prefer onednn, checked, vjp none, linux-cpu-onednn, lowering fused
};
inline constexpr auto kMaintainedProfileNames = enum_names<MaintainedProfile::fast_cpu>(
    {"checked_cpu", "checked_linux_x86_64_cpu", "checked_macos_aarch64_cpu",
     "checked_windows_x86_64_cpu", "checked_cuda", "libtorch_forward_cuda", "fast_cpu"});
[[nodiscard]] constexpr std::string_view to_string(MaintainedProfile v) {
  return enum_name(kMaintainedProfileNames, v);
}
[[nodiscard]] inline Expected<MaintainedProfile> parse_maintained_profile(std::string_view s) {
  return parse_enum<MaintainedProfile>(kMaintainedProfileNames, s, "profile");
}

[[nodiscard]] BackendProfile make_profile(MaintainedProfile which);
// The maintained profile by name; unknown names list the valid ones.
[[nodiscard]] Expected<BackendProfile> profile_by_name(std::string_view name);
// `checked_cpu` for cpu, `checked_cuda` for cuda; any other device fails (kind not_found) with
// "no maintained runtime profile for device <d>" rather than running somewhere else.
[[nodiscard]] Expected<BackendProfile> maintained_for_device(Device device);

// Command-line style overrides of a profile's fields; unset fields keep the profile's value.
// `target` replaces the whole target; `modules` are added with replacement by name.
struct ProfileOverrides {
  std::optional<Device> device;
  std::optional<BackendPreference> preference;
  std::optional<AssurancePreset> assurance;
  std::optional<VjpMode> vjp_mode;
  std::optional<TargetPreset> target;
  std::optional<LoweringMode> lowering;
  std::vector<CapsuleModule> modules;
};

// The suffix a profile's name takes once overrides changed it: `checked_cpu+overrides` is
// checked_cpu with some field changed or registry modules added; the fields themselves say how.
inline constexpr std::string_view kOverriddenSuffix = "+overrides";
// `name` without kOverriddenSuffix: the profile an overridden one started from.
[[nodiscard]] std::string_view base_profile_name(std::string_view name);

// `profile` with `overrides` applied; fails only when the added modules break the registry rules.
// When the result differs from `profile` (a field changed, or modules were added) its name is
// the base name with kOverriddenSuffix, so it never carries the untouched profile's name;
// overrides that change nothing keep the name.
[[nodiscard]] Expected<BackendProfile> apply_overrides(BackendProfile profile,
                                                       ProfileOverrides overrides);

// plan_ops_available under the profile's config, declared availability and registry (which the
// plan shares).
[[nodiscard]] Expected<ExecutionPlan> plan_ops(const BackendProfile& profile,
                                               std::span<const BackendOp> ops);

}  // namespace nnplan::backend
