// Targets (SPEC §3, seed "Backend Targets"): a declared platform and build (OS, architecture,
// accelerator, build features) and the availability it implies. A declaration is not a discovery:
// the executable path still probes the machine before launching work.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "nnplan/backend/availability.hpp"
#include "nnplan/backend/vocabulary.hpp"

namespace nnplan::backend {

enum class OperatingSystem : std::uint8_t { linux_os, macos, windows, wasi, unknown };
inline constexpr auto kOperatingSystemNames =
    enum_names<OperatingSystem::unknown>({"linux", "macos", "windows", "wasi", "unknown"});

enum class Architecture : std::uint8_t { x86_64, aarch64, wasm32, unknown };
inline constexpr auto kArchitectureNames =
    enum_names<Architecture::unknown>({"x86_64", "aarch64", "wasm32", "unknown"});

enum class Accelerator : std::uint8_t {
  none,
  cuda,
  rocm,
  metal,
  wasm,
  tpu,
  trainium,
  custom,
  external
};
inline constexpr auto kAcceleratorNames = enum_names<Accelerator::external>(
    {"none", "cuda", "rocm", "metal", "wasm", "tpu", "trainium", "custom", "external"});

enum class BuildFeature : std::uint8_t {
  native_cuda,
  libtorch,
  aten,
  mps,
  webgpu,
  cublas,
  cudnn,
  cufft,
  xla,
  neuron,
  custom_chip,
  external_provider,
  onednn,  // nnplan's own: the oneDNN-backed CPU provider (SPEC §12)
};
inline constexpr auto kBuildFeatureNames = enum_names<BuildFeature::onednn>(
    {"native-cuda", "libtorch", "aten", "mps", "webgpu", "cublas", "cudnn", "cufft", "xla",
     "neuron", "custom-chip", "external-provider", "onednn"});

[[nodiscard]] constexpr std::string_view to_string(OperatingSystem v) {
  return enum_name(kOperatingSystemNames, v);
}
[[nodiscard]] constexpr std::string_view to_string(Architecture v) {
  return enum_name(kArchitectureNames, v);
}
[[nodiscard]] constexpr std::string_view to_string(Accelerator v) {
  return enum_name(kAcceleratorNames, v);
}
[[nodiscard]] constexpr std::string_view to_string(BuildFeature v) {
  return enum_name(kBuildFeatureNames, v);
}
[[nodiscard]] inline Expected<OperatingSystem> parse_operating_system(std::string_view s) {
  return parse_enum<OperatingSystem>(kOperatingSystemNames, s, "operating system");
}
[[nodiscard]] inline Expected<Architecture> parse_architecture(std::string_view s) {
  return parse_enum<Architecture>(kArchitectureNames, s, "architecture");
}
[[nodiscard]] inline Expected<Accelerator> parse_accelerator(std::string_view s) {
  return parse_enum<Accelerator>(kAcceleratorNames, s, "accelerator");
}
[[nodiscard]] inline Expected<BuildFeature> parse_build_feature(std::string_view s) {
  return parse_enum<BuildFeature>(kBuildFeatureNames, s, "build feature");
}

// The provider a build feature exposes (every feature exposes one: `external-provider` exposes
// `external`, the others the provider of the same name). Optional to keep the seed's shape.
[[nodiscard]] std::optional<Provider> provider_of(BuildFeature feature);
// The device an accelerator exposes; none for `none` (CPU is added by `devices`).
[[nodiscard]] std::optional<Device> device_of(Accelerator accelerator);

struct Target {
  OperatingSystem os = OperatingSystem::unknown;
  Architecture arch = Architecture::unknown;
  Accelerator accelerator = Accelerator::none;
  std::vector<BuildFeature> features;

  bool operator==(const Target&) const = default;

  [[nodiscard]] static Target portable_cpu(OperatingSystem os = OperatingSystem::unknown,
                                           Architecture arch = Architecture::unknown);
  [[nodiscard]] static Target linux_cpu(Architecture arch = Architecture::x86_64);
  // Linux CPU with the `onednn` build feature (SPEC §12).
  [[nodiscard]] static Target linux_cpu_onednn(Architecture arch = Architecture::x86_64);
  [[nodiscard]] static Target macos_cpu(Architecture arch = Architecture::aarch64);
  [[nodiscard]] static Target windows_cpu(Architecture arch = Architecture::x86_64);
  [[nodiscard]] static Target linux_cuda(bool enable_libtorch = false);
  [[nodiscard]] static Target windows_cuda(bool enable_libtorch = false);
  [[nodiscard]] static Target linux_rocm();
  [[nodiscard]] static Target macos_metal();
  [[nodiscard]] static Target wasm();
  [[nodiscard]] static Target linux_tpu();
  [[nodiscard]] static Target linux_trainium();
  [[nodiscard]] static Target custom_chip(OperatingSystem os = OperatingSystem::linux_os,
                                          Architecture arch = Architecture::unknown);
  [[nodiscard]] static Target external(OperatingSystem os = OperatingSystem::unknown,
                                       Architecture arch = Architecture::unknown);
};

// `cpu` followed by the accelerator's device.
[[nodiscard]] std::vector<Device> devices(const Target& target);
// `reference`, `torchlean`, then each feature's provider in feature order.
[[nodiscard]] std::vector<Provider> providers(const Target& target);
// The two lists above; a declaration, not a probe of this machine.
[[nodiscard]] Availability declared_availability(const Target& target);

// The named target presets of the command line (SPEC §10), with their default arguments.
enum class TargetPreset : std::uint8_t {
  portable_cpu,
  linux_cpu,
  macos_cpu,
  windows_cpu,
  linux_cuda,
  linux_cuda_libtorch,
  windows_cuda,
  windows_cuda_libtorch,
  linux_rocm,
  macos_metal,
  wasm,
  linux_tpu,
  linux_trainium,
  custom_chip,
  external,
  linux_cpu_onednn,  // Linux CPU with nnplan's onednn feature (SPEC §12)
};
inline constexpr auto kTargetPresetNames = enum_names<TargetPreset::linux_cpu_onednn>(
    {"portable-cpu", "linux-cpu", "macos-cpu", "windows-cpu", "linux-cuda", "linux-cuda-libtorch",
     "windows-cuda", "windows-cuda-libtorch", "linux-rocm", "macos-metal", "wasm", "linux-tpu",
     "linux-trainium", "custom-chip", "external", "linux-cpu-onednn"});
[[nodiscard]] constexpr std::string_view to_string(TargetPreset v) {
  return enum_name(kTargetPresetNames, v);
}
[[nodiscard]] inline Expected<TargetPreset> parse_target_preset(std::string_view s) {
  return parse_enum<TargetPreset>(kTargetPresetNames, s, "target preset");
}
[[nodiscard]] Target target_of(TargetPreset preset);
// The preset whose default target equals `target`, if any (for reports and artifacts).
[[nodiscard]] std::optional<TargetPreset> preset_of(const Target& target);

}  // namespace nnplan::backend
