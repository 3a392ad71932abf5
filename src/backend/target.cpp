#include "nnplan/backend/target.hpp"

namespace nnplan::backend {

std::optional<Provider> provider_of(BuildFeature feature) {
  switch (feature) {
    case BuildFeature::native_cuda:
      return Provider::native_cuda;
    case BuildFeature::libtorch:
      return Provider::libtorch;
    case BuildFeature::aten:
      return Provider::aten;
    case BuildFeature::mps:
      return Provider::mps;
    case BuildFeature::webgpu:
      return Provider::webgpu;
    case BuildFeature::cublas:
      return Provider::cublas;
    case BuildFeature::cudnn:
      return Provider::cudnn;
    case BuildFeature::cufft:
      return Provider::cufft;
    case BuildFeature::xla:
      return Provider::xla;
    case BuildFeature::neuron:
      return Provider::neuron;
    case BuildFeature::custom_chip:
      return Provider::custom_chip;
    case BuildFeature::external_provider:
      return Provider::external;
    case BuildFeature::onednn:
      return Provider::onednn;
  }
  return std::nullopt;
}

std::optional<Device> device_of(Accelerator accelerator) {
  switch (accelerator) {
    case Accelerator::none:
      return std::nullopt;
    case Accelerator::cuda:
      return Device::cuda;
    case Accelerator::rocm:
      return Device::rocm;
    case Accelerator::metal:
      return Device::metal;
    case Accelerator::wasm:
      return Device::wasm;
    case Accelerator::tpu:
      return Device::tpu;
    case Accelerator::trainium:
      return Device::trainium;
    case Accelerator::custom:
      return Device::custom;
    case Accelerator::external:
      return Device::external;
  }
  return std::nullopt;
}

Target Target::portable_cpu(OperatingSystem os, Architecture arch) {
  return {.os = os, .arch = arch, .accelerator = Accelerator::none, .features = {}};
}
Target Target::linux_cpu(Architecture arch) {
  return portable_cpu(OperatingSystem::linux_os, arch);
}
Target Target::linux_cpu_onednn(Architecture arch) {
  Target t = linux_cpu(arch);
  t.features = {BuildFeature::onednn};
  return t;
}
Target Target::macos_cpu(Architecture arch) {
  return portable_cpu(OperatingSystem::macos, arch);
}
Target Target::windows_cpu(Architecture arch) {
  return portable_cpu(OperatingSystem::windows, arch);
}

namespace {
Target cuda_on(OperatingSystem os, bool enable_libtorch) {
  Target t{.os = os,
           .arch = Architecture::x86_64,
           .accelerator = Accelerator::cuda,
           .features = {BuildFeature::native_cuda, BuildFeature::cublas, BuildFeature::cufft}};
  if (enable_libtorch) t.features.push_back(BuildFeature::libtorch);
  return t;
}
}  // namespace

Target Target::linux_cuda(bool enable_libtorch) {
  return cuda_on(OperatingSystem::linux_os, enable_libtorch);
}
Target Target::windows_cuda(bool enable_libtorch) {
  return cuda_on(OperatingSystem::windows, enable_libtorch);
}
Target Target::linux_rocm() {
  return {.os = OperatingSystem::linux_os,
          .arch = Architecture::x86_64,
          .accelerator = Accelerator::rocm,
          .features = {}};
}
Target Target::macos_metal() {
  return {.os = OperatingSystem::macos,
          .arch = Architecture::aarch64,
          .accelerator = Accelerator::metal,
          .features = {BuildFeature::mps}};
}
Target Target::wasm() {
  return {.os = OperatingSystem::wasi,
          .arch = Architecture::wasm32,
          .accelerator = Accelerator::wasm,
          .features = {BuildFeature::webgpu}};
}
Target Target::linux_tpu() {
  return {.os = OperatingSystem::linux_os,
          .arch = Architecture::x86_64,
          .accelerator = Accelerator::tpu,
          .features = {BuildFeature::xla}};
}
Target Target::linux_trainium() {
  return {.os = OperatingSystem::linux_os,
          .arch = Architecture::x86_64,
          .accelerator = Accelerator::trainium,
          .features = {BuildFeature::neuron}};
}
Target Target::custom_chip(OperatingSystem os, Architecture arch) {
  return {.os = os,
          .arch = arch,
          .accelerator = Accelerator::custom,
          .features = {BuildFeature::custom_chip}};
}
Target Target::external(OperatingSystem os, Architecture arch) {
  return {.os = os,
          .arch = arch,
          .accelerator = Accelerator::external,
          .features = {BuildFeature::external_provider}};
}

std::vector<Device> devices(const Target& target) {
  std::vector<Device> out = {Device::cpu};
  if (auto d = device_of(target.accelerator)) out.push_back(*d);
  return out;
}

std::vector<Provider> providers(const Target& target) {
  std::vector<Provider> out = {Provider::reference, Provider::torchlean};
  for (BuildFeature f : target.features) {
    if (auto p = provider_of(f)) out.push_back(*p);
  }
  return out;
}

Availability declared_availability(const Target& target) {
  return {.devices = devices(target), .providers = providers(target)};
}

Target target_of(TargetPreset preset) {
  switch (preset) {
    case TargetPreset::portable_cpu:
      return Target::portable_cpu();
    case TargetPreset::linux_cpu:
      return Target::linux_cpu();
    case TargetPreset::linux_cpu_onednn:
      return Target::linux_cpu_onednn();
    case TargetPreset::macos_cpu:
      return Target::macos_cpu();
    case TargetPreset::windows_cpu:
      return Target::windows_cpu();
    case TargetPreset::linux_cuda:
      return Target::linux_cuda(false);
    case TargetPreset::linux_cuda_libtorch:
      return Target::linux_cuda(true);
    case TargetPreset::windows_cuda:
      return Target::windows_cuda(false);
    case TargetPreset::windows_cuda_libtorch:
      return Target::windows_cuda(true);
    case TargetPreset::linux_rocm:
      return Target::linux_rocm();
    case TargetPreset::macos_metal:
      return Target::macos_metal();
    case TargetPreset::wasm:
      return Target::wasm();
    case TargetPreset::linux_tpu:
      return Target::linux_tpu();
    case TargetPreset::linux_trainium:
      return Target::linux_trainium();
    case TargetPreset::custom_chip:
      return Target::custom_chip();
    case TargetPreset::external:
      return Target::external();
  }
  return Target::portable_cpu();
}

std::optional<TargetPreset> preset_of(const Target& target) {
  for (std::size_t i = 0; i < kTargetPresetNames.size(); ++i) {
    const auto preset = static_cast<TargetPreset>(i);
    if (target_of(preset) == target) return preset;
  }
  return std::nullopt;
}

}  // namespace nnplan::backend
