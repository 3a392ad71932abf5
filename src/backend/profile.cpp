#include "nnplan/backend/profile.hpp"

#include <algorithm>
#include <cstdlib>

namespace nnplan::backend {

bool BackendProfile::has_device_capsule() const {
  return std::ranges::any_of(registry->capsules(),
                             [&](const KernelCapsule& c) { return c.device == config.device; });
}

Expected<BackendProfile> BackendProfile::with_capsule_modules(
    std::vector<CapsuleModule> modules) const {
  auto extended = registry->with_modules(std::move(modules));
  if (!extended) return std::unexpected(std::move(extended.error()));
  BackendProfile p = *this;
  p.registry = std::make_shared<const Registry>(std::move(*extended));
  return p;
}

namespace {

BackendProfile checked_cpu_on(std::string name, Target target) {
  return {.name = std::move(name),
          .config = {.device = Device::cpu,
                     .preference = BackendPreference::automatic(),
                     .assurance = AssurancePolicy::checked(),
                     .vjp_mode = VjpMode::torchlean_tape},
          .target = std::move(target),
          .registry = shared_builtin_registry(),
          .lowering = LoweringMode::coalesced};
}

}  // namespace

BackendProfile make_profile(MaintainedProfile which) {
  switch (which) {
    case MaintainedProfile::checked_cpu:
      return checked_cpu_on("checked_cpu", Target::portable_cpu());
    case MaintainedProfile::checked_linux_x86_64_cpu:
      return checked_cpu_on("checked_linux_x86_64_cpu", Target::linux_cpu(Architecture::x86_64));
    case MaintainedProfile::checked_macos_aarch64_cpu:
      return checked_cpu_on("checked_macos_aarch64_cpu", Target::macos_cpu(Architecture::aarch64));
    case MaintainedProfile::checked_windows_x86_64_cpu:
      return checked_cpu_on("checked_windows_x86_64_cpu",
                            Target::windows_cpu(Architecture::x86_64));
    case MaintainedProfile::checked_cuda: {
      BackendProfile p = checked_cpu_on("checked_cuda", Target::linux_cuda(false));
      p.config.device = Device::cuda;
      return p;
    }
    case MaintainedProfile::libtorch_forward_cuda: {
      BackendProfile p = checked_cpu_on("libtorch_forward_cuda", Target::linux_cuda(true));
      p.config.device = Device::cuda;
      p.config.preference = BackendPreference::prefer(Provider::libtorch);
      p.config.assurance = AssurancePolicy::external();
      auto registry = builtin_registry().with_modules({libtorch_module()});
      // Built-in data: the libtorch module's identities never collide with the defaults, so a
      // failure is a programming error; abort (as builtin_registry does) rather than silently
      // return the profile without its libtorch module.
      if (!registry) std::abort();
      p.registry = std::make_shared<const Registry>(std::move(*registry));
      return p;
    }
    case MaintainedProfile::fast_cpu: {
      BackendProfile p = checked_cpu_on("fast_cpu", Target::linux_cpu_onednn());
      p.config.preference = BackendPreference::prefer(Provider::onednn);
      p.config.vjp_mode = VjpMode::none;
      p.lowering = LoweringMode::fused;
      // Built-in data, as above: onednn's identities never collide with the defaults.
      auto registry = builtin_registry().with_modules({onednn_module()});
      if (!registry) std::abort();
      p.registry = std::make_shared<const Registry>(std::move(*registry));
      return p;
    }
  }
  return checked_cpu_on("checked_cpu", Target::portable_cpu());
}

Expected<BackendProfile> profile_by_name(std::string_view name) {
  auto which = parse_maintained_profile(name);
  if (!which) return std::unexpected(std::move(which.error()));
  return make_profile(*which);
}

Expected<BackendProfile> maintained_for_device(Device device) {
  switch (device) {
    case Device::cpu:
      return make_profile(MaintainedProfile::checked_cpu);
    case Device::cuda:
      return make_profile(MaintainedProfile::checked_cuda);
    case Device::rocm:
    case Device::metal:
    case Device::wasm:
    case Device::tpu:
    case Device::trainium:
    case Device::custom:
    case Device::external:
      break;
  }
  return std::unexpected(
      make_error(ErrorKind::not_found,
                 "no maintained runtime profile for device " + std::string(to_string(device)) +
                     "; maintained devices: cpu, cuda (nnplan never falls back to cpu)"));
}

std::string_view base_profile_name(std::string_view name) {
  if (name.ends_with(kOverriddenSuffix)) name.remove_suffix(kOverriddenSuffix.size());
  return name;
}

Expected<BackendProfile> apply_overrides(BackendProfile profile, ProfileOverrides overrides) {
  const ExecutionConfig config = profile.config;
  const Target target = profile.target;
  const LoweringMode lowering = profile.lowering;
  if (overrides.device) profile.config.device = *overrides.device;
  if (overrides.preference) profile.config.preference = *overrides.preference;
  if (overrides.assurance) profile.config.assurance = policy_of(*overrides.assurance);
  if (overrides.vjp_mode) profile.config.vjp_mode = *overrides.vjp_mode;
  if (overrides.target) profile.target = target_of(*overrides.target);
  if (overrides.lowering) profile.lowering = *overrides.lowering;
  const bool changed = profile.config != config || profile.target != target ||
                       profile.lowering != lowering || !overrides.modules.empty();
  if (changed)
    profile.name = std::string(base_profile_name(profile.name)) + std::string(kOverriddenSuffix);
  if (overrides.modules.empty()) return profile;
  return profile.with_capsule_modules(std::move(overrides.modules));
}

Expected<ExecutionPlan> plan_ops(const BackendProfile& profile, std::span<const BackendOp> ops) {
  const Availability availability = profile.availability();
  return plan_ops_available(profile.config, availability, profile.registry, ops);
}

}  // namespace nnplan::backend
