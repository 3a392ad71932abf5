// Backend profiles (SPEC §9): the maintained profiles' fields, their plans for the SPEC's
// examples (checked_cuda, libtorch_forward_cuda, checked_cpu and fft_fno), the per-device
// maintained profile and its refusal for other devices, module replacement, overrides and
// has_device_capsule.
#include "nnplan/backend/profile.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"
#include "nnplan/backend/report.hpp"

namespace nnplan::backend {
namespace {

using fixtures::aligned_capsule;
using fixtures::codes;

std::vector<std::string> module_names(const BackendProfile& p) {
  std::vector<std::string> out;
  for (const CapsuleModule& m : p.registry->modules())
    out.push_back(m.name);
  return out;
}

const std::vector<std::string> kBuiltinModules = {"attention", "native-cuda", "reference"};

struct ProfileCase {
  MaintainedProfile which;
  std::string name;
  Device device;
  BackendPreference preference;
  AssurancePolicy assurance;
  VjpMode vjp;
  Target target;
  std::vector<std::string> modules;
};

void PrintTo(const ProfileCase& c, std::ostream* os) {
  *os << c.name;
}

class MaintainedProfileTest : public ::testing::TestWithParam<ProfileCase> {};

TEST_P(MaintainedProfileTest, Fields) {
  const ProfileCase& c = GetParam();
  const BackendProfile p = make_profile(c.which);
  EXPECT_EQ(p.name, c.name);
  EXPECT_EQ(p.config.device, c.device);
  EXPECT_EQ(p.config.preference, c.preference);
  EXPECT_EQ(p.config.assurance, c.assurance);
  EXPECT_EQ(p.config.vjp_mode, c.vjp);
  EXPECT_EQ(p.target, c.target);
  EXPECT_EQ(p.lowering,
            c.which == MaintainedProfile::fast_cpu ? LoweringMode::fused : LoweringMode::coalesced);
  EXPECT_EQ(module_names(p), c.modules);
  EXPECT_EQ(p.availability(), declared_availability(c.target));
  EXPECT_TRUE(p.has_device_capsule());
}

TEST_P(MaintainedProfileTest, ByName) {
  const ProfileCase& c = GetParam();
  auto p = profile_by_name(c.name);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->name, c.name);
  EXPECT_EQ(p->config, make_profile(c.which).config);
  EXPECT_EQ(p->target, make_profile(c.which).target);
}

INSTANTIATE_TEST_SUITE_P(
    All, MaintainedProfileTest,
    ::testing::Values(
        ProfileCase{MaintainedProfile::checked_cpu, "checked_cpu", Device::cpu,
                    BackendPreference::automatic(), AssurancePolicy::checked(),
                    VjpMode::torchlean_tape, Target::portable_cpu(), kBuiltinModules},
        ProfileCase{MaintainedProfile::checked_linux_x86_64_cpu, "checked_linux_x86_64_cpu",
                    Device::cpu, BackendPreference::automatic(), AssurancePolicy::checked(),
                    VjpMode::torchlean_tape, Target::linux_cpu(Architecture::x86_64),
                    kBuiltinModules},
        ProfileCase{MaintainedProfile::checked_macos_aarch64_cpu, "checked_macos_aarch64_cpu",
                    Device::cpu, BackendPreference::automatic(), AssurancePolicy::checked(),
                    VjpMode::torchlean_tape, Target::macos_cpu(Architecture::aarch64),
                    kBuiltinModules},
        ProfileCase{MaintainedProfile::checked_windows_x86_64_cpu, "checked_windows_x86_64_cpu",
                    Device::cpu, BackendPreference::automatic(), AssurancePolicy::checked(),
                    VjpMode::torchlean_tape, Target::windows_cpu(Architecture::x86_64),
                    kBuiltinModules},
        ProfileCase{MaintainedProfile::checked_cuda, "checked_cuda", Device::cuda,
                    BackendPreference::automatic(), AssurancePolicy::checked(),
                    VjpMode::torchlean_tape, Target::linux_cuda(false), kBuiltinModules},
        ProfileCase{MaintainedProfile::libtorch_forward_cuda,
                    "libtorch_forward_cuda",
                    Device::cuda,
                    BackendPreference::prefer(Provider::libtorch),
                    AssurancePolicy::external(),
                    VjpMode::torchlean_tape,
                    Target::linux_cuda(true),
                    {"libtorch", "attention", "native-cuda", "reference"}},
        ProfileCase{MaintainedProfile::fast_cpu,
                    "fast_cpu",
                    Device::cpu,
                    BackendPreference::prefer(Provider::onednn),
                    AssurancePolicy::checked(),
                    VjpMode::none,
                    Target::linux_cpu_onednn(),
                    {"onednn", "attention", "native-cuda", "reference"}}),
    [](const ::testing::TestParamInfo<ProfileCase>& info) { return info.param.name; });

TEST(ProfileByName, UnknownNameListsTheProfiles) {
  auto p = profile_by_name("checked_gpu");
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.error().kind, ErrorKind::invalid_input);
  EXPECT_EQ(p.error().message,
            "unknown profile 'checked_gpu'; did you mean 'checked_cpu'? valid: checked_cpu, "
            "checked_linux_x86_64_cpu, "
            "checked_macos_aarch64_cpu, checked_windows_x86_64_cpu, checked_cuda, "
            "libtorch_forward_cuda, fast_cpu");
}

// --- The SPEC's planning examples ---------------------------------------------------------

struct PlanCase {
  std::string name;
  MaintainedProfile which;
  std::vector<BackendOp> ops;
  std::vector<std::string> capsules;
  std::string boundary;
};

void PrintTo(const PlanCase& c, std::ostream* os) {
  *os << c.name;
}

class ProfilePlanTest : public ::testing::TestWithParam<PlanCase> {};

TEST_P(ProfilePlanTest, Plans) {
  const PlanCase& c = GetParam();
  const BackendProfile profile = make_profile(c.which);
  auto plan = plan_ops(profile, c.ops);
  ASSERT_TRUE(plan.has_value()) << render(plan.error());
  EXPECT_EQ(plan->capsule_names(), c.capsules);
  EXPECT_EQ(boundary_line(*plan), c.boundary);
  EXPECT_TRUE(plan->admissible(profile.config));
  EXPECT_EQ(plan->registry, profile.registry);
}

INSTANTIATE_TEST_SUITE_P(
    Examples, ProfilePlanTest,
    ::testing::Values(PlanCase{"checked_cuda_matmul_attention",
                               MaintainedProfile::checked_cuda,
                               {BackendOp::matmul, BackendOp::scaled_dot_product_attention},
                               {"native_cuda.matmul", "native_cuda.flash_attention"},
                               "trusted external boundary: none"},
                      PlanCase{"libtorch_attention",
                               MaintainedProfile::libtorch_forward_cuda,
                               {BackendOp::scaled_dot_product_attention},
                               {"libtorch.sdpa_forward"},
                               "trusted external boundary: scaled_dot_product_attention"},
                      PlanCase{"libtorch_other_ops_fall_back",
                               MaintainedProfile::libtorch_forward_cuda,
                               {BackendOp::matmul, BackendOp::scaled_dot_product_attention,
                                BackendOp::softmax, BackendOp::scaled_dot_product_attention},
                               {"native_cuda.matmul", "libtorch.sdpa_forward",
                                "native_cuda.softmax", "libtorch.sdpa_forward"},
                               "trusted external boundary: scaled_dot_product_attention"},
                      PlanCase{"checked_cpu_mlp",
                               MaintainedProfile::checked_cpu,
                               {BackendOp::linear, BackendOp::relu, BackendOp::linear,
                                BackendOp::log_softmax},
                               {"reference.linear", "reference.relu", "reference.linear",
                                "reference.log_softmax"},
                               "trusted external boundary: none"},
                      PlanCase{"checked_macos_attention",
                               MaintainedProfile::checked_macos_aarch64_cpu,
                               {BackendOp::scaled_dot_product_attention, BackendOp::sin},
                               {"reference.attention", "reference.sin"},
                               "trusted external boundary: none"},
                      // Forward-only random sources need no VJP, even under torchlean-tape.
                      PlanCase{"checked_cuda_random_sources",
                               MaintainedProfile::checked_cuda,
                               {BackendOp::rand_uniform, BackendOp::bernoulli_mask},
                               {"native_cuda.rand_uniform", "native_cuda.bernoulli_mask"},
                               "trusted external boundary: none"}),
    [](const ::testing::TestParamInfo<PlanCase>& info) { return info.param.name; });

// selective_scan is forward-only on native-cuda (SPEC §4) but differentiable (SPEC §1), so a
// torchlean-tape run cannot plan it.
TEST(ProfilePlan, CheckedCudaSelectiveScanNeedsAVjp) {
  const BackendOp ops[] = {BackendOp::selective_scan};
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cuda);
  auto plan = plan_ops(profile, ops);
  ASSERT_FALSE(plan.has_value());
  ASSERT_EQ(plan.error().candidates.size(), 1u);
  EXPECT_EQ(codes(plan.error().candidates[0].reasons),
            std::vector<std::string>{"vjp-incompatible"});
}

TEST(ProfilePlan, CheckedCpuCannotPlanFftFno) {
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  const BackendOp ops[] = {BackendOp::fft_fno};
  auto plan = plan_ops(profile, ops);
  ASSERT_FALSE(plan.has_value());
  const Error& e = plan.error();
  EXPECT_EQ(e.kind, ErrorKind::rejected_by_policy);
  EXPECT_EQ(e.message, "no admissible backend capsule for op fft_fno on device cpu");
  EXPECT_EQ(e.position, 0u);
  ASSERT_EQ(e.candidates.size(), 1u);
  EXPECT_EQ(e.candidates[0].capsule, "native_cuda.fft_fno");
  EXPECT_EQ(
      codes(e.candidates[0].reasons),
      (std::vector<std::string>{"wrong-device", "unavailable-device", "unavailable-provider"}));
}

// sin and cos exist only on cpu: the cuda profile explains the cpu capsule's reasons.
TEST(ProfilePlan, CheckedCudaCannotPlanSin) {
  const BackendOp ops[] = {BackendOp::relu, BackendOp::sin};
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cuda);
  auto plan = plan_ops(profile, ops);
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().message, "no admissible backend capsule for op sin on device cuda");
  EXPECT_EQ(plan.error().position, 1u);
  ASSERT_EQ(plan.error().candidates.size(), 1u);
  EXPECT_EQ(plan.error().candidates[0].capsule, "reference.sin");
  EXPECT_EQ(codes(plan.error().candidates[0].reasons), std::vector<std::string>{"wrong-device"});
}

// The profile plans against its target's declared availability.
TEST(ProfilePlan, UsesTheTargetsDeclaredAvailability) {
  BackendProfile p = make_profile(MaintainedProfile::checked_cuda);
  p.target = Target::portable_cpu();
  const BackendOp ops[] = {BackendOp::matmul};
  auto plan = plan_ops(p, ops);
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(codes(plan.error().candidates[0].reasons),
            (std::vector<std::string>{"unavailable-device", "unavailable-provider"}));

  // Without the libtorch feature the preferred provider is absent and attention falls back.
  BackendProfile no_libtorch = make_profile(MaintainedProfile::libtorch_forward_cuda);
  no_libtorch.target = Target::linux_cuda(false);
  const BackendOp attention[] = {BackendOp::scaled_dot_product_attention};
  auto fallback = plan_ops(no_libtorch, attention);
  ASSERT_TRUE(fallback.has_value());
  EXPECT_EQ(fallback->capsule_names(), std::vector<std::string>{"native_cuda.flash_attention"});
}

// --- maintained_for_device ----------------------------------------------------------------

TEST(MaintainedForDevice, CpuAndCudaOnly) {
  for (std::size_t i = 0; i < kDeviceNames.size(); ++i) {
    const auto device = static_cast<Device>(i);
    auto p = maintained_for_device(device);
    if (device == Device::cpu || device == Device::cuda) {
      ASSERT_TRUE(p.has_value()) << to_string(device);
      EXPECT_EQ(p->name, device == Device::cpu ? "checked_cpu" : "checked_cuda");
      EXPECT_EQ(p->config.device, device);
      continue;
    }
    ASSERT_FALSE(p.has_value()) << to_string(device);
    EXPECT_EQ(p.error().kind, ErrorKind::not_found);
    EXPECT_TRUE(p.error().message.starts_with("no maintained runtime profile for device " +
                                              std::string(to_string(device))))
        << p.error().message;
  }
}

TEST(MaintainedForDevice, ExactMessage) {
  auto p = maintained_for_device(Device::rocm);
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.error().message,
            "no maintained runtime profile for device rocm; maintained devices: cpu, cuda (nnplan "
            "never falls back to cpu)");
}

// --- with_capsule_modules and has_device_capsule ------------------------------------------

TEST(WithCapsuleModules, ReplacesByNameAndPutsNewFirst) {
  const BackendProfile base = make_profile(MaintainedProfile::checked_cpu);
  KernelCapsule replacement =
      aligned_capsule("reference.relu", BackendOp::relu, Provider::reference, Device::cpu);
  replacement.notes = "patched";
  auto p = base.with_capsule_modules(
      {{"reference", {replacement}},
       {"acme",
        {aligned_capsule("acme.gelu", BackendOp::gelu, Provider::torchlean, Device::cpu)}}});
  ASSERT_TRUE(p.has_value()) << p.error().message;
  EXPECT_EQ(module_names(*p),
            (std::vector<std::string>{"reference", "acme", "attention", "native-cuda"}));
  EXPECT_EQ(p->name, base.name);
  EXPECT_EQ(p->config, base.config);
  const BackendOp ops[] = {BackendOp::relu, BackendOp::gelu};
  auto plan = plan_ops(*p, ops);
  ASSERT_TRUE(plan.has_value()) << render(plan.error());
  EXPECT_EQ(plan->capsule_names(), (std::vector<std::string>{"reference.relu", "acme.gelu"}));
  EXPECT_EQ(plan->capsule(0).notes, "patched");
  // The original profile is unchanged.
  EXPECT_EQ(module_names(base), kBuiltinModules);
}

TEST(WithCapsuleModules, DuplicateIsAnError) {
  auto p = make_profile(MaintainedProfile::checked_cpu)
               .with_capsule_modules({{"acme",
                                       {aligned_capsule("reference.relu", BackendOp::relu,
                                                        Provider::reference, Device::cpu)}}});
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(p.error().message,
            "duplicate backend capsule identity 'reference.relu' (op relu, provider reference, "
            "device cpu) in module 'reference'; module 'acme' holds it too");
}

TEST(HasDeviceCapsule, DependsOnRegistryAndDevice) {
  struct Case {
    std::string name;
    Device device;
    std::vector<CapsuleModule> modules;  // replaces the built-ins when not empty
    bool expected;
  };
  const Case cases[] = {
      {"cpu_builtin", Device::cpu, {}, true},
      {"cuda_builtin", Device::cuda, {}, true},
      {"tpu_builtin", Device::tpu, {}, false},
      {"external_builtin", Device::external, {}, false},
      {"tpu_with_module",
       Device::tpu,
       {{"tpu", {aligned_capsule("xla.relu", BackendOp::relu, Provider::xla, Device::tpu)}}},
       true},
  };
  for (const Case& c : cases) {
    BackendProfile p = make_profile(MaintainedProfile::checked_cpu);
    p.config.device = c.device;
    if (!c.modules.empty()) p = p.with_capsule_modules(c.modules).value();
    EXPECT_EQ(p.has_device_capsule(), c.expected) << c.name;
  }
}

// --- apply_overrides (command-line style) -------------------------------------------------

TEST(ApplyOverrides, UnsetFieldsKeepTheProfile) {
  const BackendProfile base = make_profile(MaintainedProfile::checked_cpu);
  auto same = apply_overrides(base, {});
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->config, base.config);
  EXPECT_EQ(same->target, base.target);
  EXPECT_EQ(module_names(*same), kBuiltinModules);

  auto changed =
      apply_overrides(base, {.device = Device::cuda,
                             .preference = BackendPreference::only(Provider::native_cuda),
                             .assurance = AssurancePreset::external,
                             .vjp_mode = VjpMode::backend_vjp,
                             .target = TargetPreset::linux_cuda,
                             .lowering = LoweringMode::singleton,
                             .modules = {libtorch_module()}});
  ASSERT_TRUE(changed.has_value());
  EXPECT_EQ(changed->config.device, Device::cuda);
  EXPECT_EQ(changed->config.preference, BackendPreference::only(Provider::native_cuda));
  EXPECT_EQ(changed->config.assurance, AssurancePolicy::external());
  EXPECT_EQ(changed->config.vjp_mode, VjpMode::backend_vjp);
  EXPECT_EQ(changed->target, Target::linux_cuda());
  EXPECT_EQ(changed->lowering, LoweringMode::singleton);
  EXPECT_EQ(module_names(*changed),
            (std::vector<std::string>{"libtorch", "attention", "native-cuda", "reference"}));
  EXPECT_EQ(changed->name, "checked_cpu+overrides");
  EXPECT_EQ(same->name, "checked_cpu");
}

// A profile any field of which an override changes is named <base>+overrides; overrides equal
// to the profile's own values change nothing, and the suffix is never doubled.
TEST(ApplyOverrides, ChangedProfilesAreNotNamedAfterTheUntouchedOne) {
  struct Case {
    std::string label;
    ProfileOverrides overrides;
    std::string name;
  };
  const BackendProfile base = make_profile(MaintainedProfile::checked_cpu);
  std::vector<Case> cases;
  cases.push_back({"nothing", {}, "checked_cpu"});
  cases.push_back({"same_device", {.device = Device::cpu}, "checked_cpu"});
  cases.push_back({"same_assurance", {.assurance = AssurancePreset::checked}, "checked_cpu"});
  cases.push_back({"same_lowering", {.lowering = LoweringMode::coalesced}, "checked_cpu"});
  cases.push_back({"same_target", {.target = TargetPreset::portable_cpu}, "checked_cpu"});
  cases.push_back({"device", {.device = Device::cuda}, "checked_cpu+overrides"});
  cases.push_back({"preference",
                   {.preference = BackendPreference::prefer(Provider::torchlean)},
                   "checked_cpu+overrides"});
  cases.push_back({"assurance", {.assurance = AssurancePreset::verified}, "checked_cpu+overrides"});
  cases.push_back({"vjp", {.vjp_mode = VjpMode::none}, "checked_cpu+overrides"});
  cases.push_back({"target", {.target = TargetPreset::linux_cpu}, "checked_cpu+overrides"});
  cases.push_back({"lowering", {.lowering = LoweringMode::singleton}, "checked_cpu+overrides"});
  cases.push_back({"modules", {.modules = {libtorch_module()}}, "checked_cpu+overrides"});
  for (Case& c : cases) {
    auto p = apply_overrides(base, std::move(c.overrides));
    ASSERT_TRUE(p.has_value()) << c.label;
    EXPECT_EQ(p->name, c.name) << c.label;
    auto again = apply_overrides(*p, {.vjp_mode = VjpMode::backend_vjp});
    ASSERT_TRUE(again.has_value()) << c.label;
    EXPECT_EQ(again->name, "checked_cpu+overrides") << c.label;
  }
}

TEST(BaseProfileName, StripsTheOverriddenSuffixOnly) {
  EXPECT_EQ(base_profile_name("checked_cuda+overrides"), "checked_cuda");
  EXPECT_EQ(base_profile_name("checked_cuda"), "checked_cuda");
  EXPECT_EQ(base_profile_name("+overrides"), "");
  EXPECT_EQ(base_profile_name("checked_cpu+overrides+x"), "checked_cpu+overrides+x");
}

}  // namespace
}  // namespace nnplan::backend
