// Targets (SPEC §3, seed "Backend Targets"): every preset's OS, architecture, accelerator and
// features with the seed's default arguments; devices, providers and declared availability (in
// order); the feature → provider and accelerator → device maps; presets by name and back.
#include "nnplan/backend/target.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"

namespace nnplan::backend {
namespace {

using OS = OperatingSystem;
using Arch = Architecture;
using Acc = Accelerator;
using F = BuildFeature;
using P = Provider;
using D = Device;

struct TargetPresetCase {
  TargetPreset preset;
  Target factory;  // the seed's constructor with its default arguments
  OS os;
  Arch arch;
  Acc accelerator;
  std::vector<F> features;
  std::vector<D> devices;
  std::vector<P> providers;
};

void PrintTo(const TargetPresetCase& c, std::ostream* os) {
  *os << to_string(c.preset);
}

class TargetPresetTest : public ::testing::TestWithParam<TargetPresetCase> {};

TEST_P(TargetPresetTest, Declaration) {
  const TargetPresetCase& c = GetParam();
  const Target t = target_of(c.preset);
  EXPECT_EQ(t, c.factory);
  EXPECT_EQ(t.os, c.os);
  EXPECT_EQ(t.arch, c.arch);
  EXPECT_EQ(t.accelerator, c.accelerator);
  EXPECT_EQ(t.features, c.features);
}

TEST_P(TargetPresetTest, DevicesProvidersAndDeclaredAvailability) {
  const TargetPresetCase& c = GetParam();
  const Target t = target_of(c.preset);
  EXPECT_EQ(devices(t), c.devices);
  EXPECT_EQ(providers(t), c.providers);
  const Availability a = declared_availability(t);
  EXPECT_EQ(a.devices, c.devices);
  EXPECT_EQ(a.providers, c.providers);
}

TEST_P(TargetPresetTest, PresetOfGivesThePresetBack) {
  EXPECT_EQ(preset_of(target_of(GetParam().preset)), GetParam().preset);
}

const std::vector<P> kBase = {P::reference, P::torchlean};

std::vector<P> base_plus(std::vector<P> extra) {
  std::vector<P> out = kBase;
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    EveryPreset, TargetPresetTest,
    ::testing::Values(
        TargetPresetCase{TargetPreset::portable_cpu,
                         Target::portable_cpu(),
                         OS::unknown,
                         Arch::unknown,
                         Acc::none,
                         {},
                         {D::cpu},
                         kBase},
        TargetPresetCase{TargetPreset::linux_cpu,
                         Target::linux_cpu(),
                         OS::linux_os,
                         Arch::x86_64,
                         Acc::none,
                         {},
                         {D::cpu},
                         kBase},
        TargetPresetCase{TargetPreset::macos_cpu,
                         Target::macos_cpu(),
                         OS::macos,
                         Arch::aarch64,
                         Acc::none,
                         {},
                         {D::cpu},
                         kBase},
        TargetPresetCase{TargetPreset::windows_cpu,
                         Target::windows_cpu(),
                         OS::windows,
                         Arch::x86_64,
                         Acc::none,
                         {},
                         {D::cpu},
                         kBase},
        TargetPresetCase{TargetPreset::linux_cuda,
                         Target::linux_cuda(),
                         OS::linux_os,
                         Arch::x86_64,
                         Acc::cuda,
                         {F::native_cuda, F::cublas, F::cufft},
                         {D::cpu, D::cuda},
                         base_plus({P::native_cuda, P::cublas, P::cufft})},
        TargetPresetCase{TargetPreset::linux_cuda_libtorch,
                         Target::linux_cuda(true),
                         OS::linux_os,
                         Arch::x86_64,
                         Acc::cuda,
                         {F::native_cuda, F::cublas, F::cufft, F::libtorch},
                         {D::cpu, D::cuda},
                         base_plus({P::native_cuda, P::cublas, P::cufft, P::libtorch})},
        TargetPresetCase{TargetPreset::windows_cuda,
                         Target::windows_cuda(),
                         OS::windows,
                         Arch::x86_64,
                         Acc::cuda,
                         {F::native_cuda, F::cublas, F::cufft},
                         {D::cpu, D::cuda},
                         base_plus({P::native_cuda, P::cublas, P::cufft})},
        TargetPresetCase{TargetPreset::windows_cuda_libtorch,
                         Target::windows_cuda(true),
                         OS::windows,
                         Arch::x86_64,
                         Acc::cuda,
                         {F::native_cuda, F::cublas, F::cufft, F::libtorch},
                         {D::cpu, D::cuda},
                         base_plus({P::native_cuda, P::cublas, P::cufft, P::libtorch})},
        TargetPresetCase{TargetPreset::linux_rocm,
                         Target::linux_rocm(),
                         OS::linux_os,
                         Arch::x86_64,
                         Acc::rocm,
                         {},
                         {D::cpu, D::rocm},
                         kBase},
        TargetPresetCase{TargetPreset::macos_metal,
                         Target::macos_metal(),
                         OS::macos,
                         Arch::aarch64,
                         Acc::metal,
                         {F::mps},
                         {D::cpu, D::metal},
                         base_plus({P::mps})},
        TargetPresetCase{TargetPreset::wasm,
                         Target::wasm(),
                         OS::wasi,
                         Arch::wasm32,
                         Acc::wasm,
                         {F::webgpu},
                         {D::cpu, D::wasm},
                         base_plus({P::webgpu})},
        TargetPresetCase{TargetPreset::linux_tpu,
                         Target::linux_tpu(),
                         OS::linux_os,
                         Arch::x86_64,
                         Acc::tpu,
                         {F::xla},
                         {D::cpu, D::tpu},
                         base_plus({P::xla})},
        TargetPresetCase{TargetPreset::linux_trainium,
                         Target::linux_trainium(),
                         OS::linux_os,
                         Arch::x86_64,
                         Acc::trainium,
                         {F::neuron},
                         {D::cpu, D::trainium},
                         base_plus({P::neuron})},
        TargetPresetCase{TargetPreset::custom_chip,
                         Target::custom_chip(),
                         OS::linux_os,
                         Arch::unknown,
                         Acc::custom,
                         {F::custom_chip},
                         {D::cpu, D::custom},
                         base_plus({P::custom_chip})},
        TargetPresetCase{TargetPreset::external,
                         Target::external(),
                         OS::unknown,
                         Arch::unknown,
                         Acc::external,
                         {F::external_provider},
                         {D::cpu, D::external},
                         base_plus({P::external})}),
    [](const ::testing::TestParamInfo<TargetPresetCase>& info) {
      return fixtures::test_name(to_string(info.param.preset));
    });

// Every preset exactly once in the table above.
TEST(TargetPreset, SixteenPresets) {
  EXPECT_EQ(kTargetPresetNames.size(), 16u);
  EXPECT_EQ(target_of(TargetPreset::linux_cpu_onednn), (Target{.os = OS::linux_os,
                                                               .arch = Arch::x86_64,
                                                               .accelerator = Accelerator::none,
                                                               .features = {F::onednn}}));
}

// Non-default arguments are honoured and such targets are not presets.
TEST(Target, ArgumentsOverrideDefaults) {
  struct Case {
    std::string name;
    Target target;
    OS os;
    Arch arch;
  };
  const Case cases[] = {
      {"portable_linux_aarch64", Target::portable_cpu(OS::linux_os, Arch::aarch64), OS::linux_os,
       Arch::aarch64},
      {"linux_aarch64", Target::linux_cpu(Arch::aarch64), OS::linux_os, Arch::aarch64},
      {"macos_x86_64", Target::macos_cpu(Arch::x86_64), OS::macos, Arch::x86_64},
      {"windows_aarch64", Target::windows_cpu(Arch::aarch64), OS::windows, Arch::aarch64},
      {"custom_chip_windows", Target::custom_chip(OS::windows, Arch::x86_64), OS::windows,
       Arch::x86_64},
      {"external_linux", Target::external(OS::linux_os, Arch::aarch64), OS::linux_os,
       Arch::aarch64},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.target.os, c.os) << c.name;
    EXPECT_EQ(c.target.arch, c.arch) << c.name;
    EXPECT_EQ(preset_of(c.target), std::nullopt) << c.name;
  }
  EXPECT_EQ(Target::custom_chip(OS::windows).accelerator, Acc::custom);
  EXPECT_EQ(Target::external(OS::linux_os).features, std::vector<F>{F::external_provider});
}

TEST(Target, PresetOfNonPresetIsEmpty) {
  Target t = Target::linux_cuda();
  t.features.push_back(F::cudnn);
  EXPECT_EQ(preset_of(t), std::nullopt);
  Target reordered = Target::linux_cuda();
  std::swap(reordered.features[0], reordered.features[2]);
  EXPECT_EQ(preset_of(reordered), std::nullopt);
  EXPECT_EQ(preset_of(Target{}), TargetPreset::portable_cpu);
}

struct FeatureCase {
  F feature;
  P provider;
};

TEST(ProviderOf, EveryFeatureExposesTheProviderOfTheSameName) {
  const FeatureCase cases[] = {
      {F::native_cuda, P::native_cuda},
      {F::libtorch, P::libtorch},
      {F::aten, P::aten},
      {F::mps, P::mps},
      {F::webgpu, P::webgpu},
      {F::cublas, P::cublas},
      {F::cudnn, P::cudnn},
      {F::cufft, P::cufft},
      {F::xla, P::xla},
      {F::neuron, P::neuron},
      {F::custom_chip, P::custom_chip},
      {F::external_provider, P::external},
      {F::onednn, P::onednn},
  };
  ASSERT_EQ(std::size(cases), kBuildFeatureNames.size());
  for (const FeatureCase& c : cases) {
    EXPECT_EQ(provider_of(c.feature), c.provider) << to_string(c.feature);
    if (c.feature != F::external_provider) {
      EXPECT_EQ(to_string(c.feature), to_string(c.provider));
    }
  }
}

TEST(DeviceOf, EveryAcceleratorButNoneExposesTheDeviceOfTheSameName) {
  EXPECT_EQ(device_of(Acc::none), std::nullopt);
  int exposing = 0;
  for (std::size_t i = 0; i < kAcceleratorNames.size(); ++i) {
    const auto acc = static_cast<Acc>(i);
    if (acc == Acc::none) continue;
    const auto device = device_of(acc);
    ASSERT_TRUE(device.has_value()) << to_string(acc);
    EXPECT_EQ(to_string(*device), to_string(acc));
    ++exposing;
  }
  EXPECT_EQ(exposing, 8);
}

// Providers follow the feature order as declared, with duplicates kept as declared.
TEST(Providers, FeatureOrderIsKept) {
  const Target t{.os = OS::linux_os,
                 .arch = Arch::x86_64,
                 .accelerator = Acc::none,
                 .features = {F::external_provider, F::cufft, F::native_cuda, F::aten}};
  EXPECT_EQ(providers(t), (std::vector<P>{P::reference, P::torchlean, P::external, P::cufft,
                                          P::native_cuda, P::aten}));
  EXPECT_EQ(devices(t), std::vector<D>{D::cpu});
}

// The availability presets are the declared availability of the matching targets.
TEST(DeclaredAvailability, MatchesAvailabilityPresets) {
  EXPECT_EQ(declared_availability(Target::portable_cpu()), Availability::cpu());
  EXPECT_EQ(declared_availability(Target::linux_cuda(false)), Availability::cuda_native());
  EXPECT_EQ(declared_availability(Target::linux_cuda(true)), Availability::cuda_with_libtorch());
}

TEST(DeclaredAvailability, FiltersCapsules) {
  using fixtures::aligned_capsule;
  const std::vector<KernelCapsule> capsules = {
      aligned_capsule("ext", BackendOp::relu, P::external, D::external),
      aligned_capsule("ref", BackendOp::relu, P::reference, D::cpu),
      aligned_capsule("mps", BackendOp::relu, P::mps, D::metal),
      aligned_capsule("xla_on_cpu", BackendOp::relu, P::xla, D::cpu),
  };
  struct Case {
    TargetPreset preset;
    std::vector<std::string> kept;
  };
  for (const Case& c :
       {Case{TargetPreset::portable_cpu, {"ref"}}, Case{TargetPreset::external, {"ext", "ref"}},
        Case{TargetPreset::macos_metal, {"ref", "mps"}},
        Case{TargetPreset::linux_tpu, {"ref", "xla_on_cpu"}},
        Case{TargetPreset::linux_rocm, {"ref"}}}) {
    std::vector<std::string> kept;
    for (const KernelCapsule& k :
         filter_available(declared_availability(target_of(c.preset)), capsules)) {
      kept.push_back(k.name);
    }
    EXPECT_EQ(kept, c.kept) << to_string(c.preset);
  }
}

}  // namespace
}  // namespace nnplan::backend
