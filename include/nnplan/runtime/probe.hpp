// The host probe (SPEC §11 "Probe"): what this machine and this build can really run, found
// before any work is launched. probe_host gathers the platform (uname), the CPU (cpu_probe.hpp),
// the CUDA driver and cuBLAS (cuda_probe.hpp) and the providers linked into this build, and turns
// them into findings: each device and provider confirmed or not, with the evidence the probe saw.
// A declared target (backend/target.hpp) says what a plan may use; the runtime's refusal compares
// the plan against these findings (confirms, probe_finding) and never falls back.
#pragma once

#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/availability.hpp"
#include "nnplan/backend/target.hpp"
#include "nnplan/backend/vocabulary.hpp"
#include "nnplan/error.hpp"
#include "nnplan/runtime/cpu_probe.hpp"
#include "nnplan/runtime/cuda_probe.hpp"

namespace nnplan::runtime {

// The operating system and architecture uname reports, in the target vocabulary.
struct PlatformProbe {
  backend::OperatingSystem os = backend::OperatingSystem::unknown;
  backend::Architecture arch = backend::Architecture::unknown;
  std::string system;   // uname's sysname ("Linux")
  std::string release;  // uname's release ("6.1.0-18-cloud-amd64")
  std::string machine;  // uname's machine ("x86_64")

  bool operator==(const PlatformProbe&) const = default;
};

// One device the probe looked for.
struct DeviceFinding {
  backend::Device device = backend::Device::cpu;
  bool confirmed = false;
  // What the probe saw: the evidence when confirmed, else why not.
  std::string evidence;

  bool operator==(const DeviceFinding&) const = default;
};

// One provider the probe looked for. `name` is the provider's spelling; it is a string because
// the probe also reports providers that planning's vocabulary does not list yet (onednn).
struct ProviderFinding {
  std::string name;
  bool confirmed = false;
  std::string version;  // empty when not confirmed or not known
  std::string evidence;

  bool operator==(const ProviderFinding&) const = default;
};

// Where probe_host looks; the defaults are the real libraries. Tests name a library that does not
// exist, or one without the driver's symbols, to see each failure's message without a GPU.
struct ProbeOptions {
  // Whether to probe the CUDA driver. `nnplan run` asks for it only when a group of the plan runs
  // on a CUDA device or provider (refusal.hpp's probe_options_for): a CPU plan has no business
  // with the driver. When false the probe reports it, and cuBLAS, as not probed.
  bool cuda = true;
  std::string cuda_library = std::string(kCudaDriverLibrary);
  // Whether to probe cuBLAS: only for a plan whose groups use the cublas provider.
  bool cublas = true;
  std::vector<std::string> cublas_libraries =
      std::vector<std::string>(std::begin(kCublasLibraries), std::end(kCublasLibraries));
  // How long each library's child process may take (cuda_probe.hpp).
  std::chrono::milliseconds deadline = kDriverProbeDeadline;
};

struct HostProbe {
  Expected<PlatformProbe> platform;
  Expected<CpuProbe> cpu;
  Expected<CudaDriverProbe> cuda;
  Expected<CublasProbe> cublas;
  // cpu, then cuda.
  std::vector<DeviceFinding> devices;
  // reference, torchlean, onednn, libtorch, native-cuda, cublas.
  std::vector<ProviderFinding> providers;

  bool operator==(const HostProbe&) const = default;
};

// Probes this machine and process. Never fails: a part that could not be determined holds the
// error saying why, and the findings say what follows from it.
[[nodiscard]] HostProbe probe_host(const ProbeOptions& options = {});

// Whether the probe confirmed the device or provider. A provider the probe does not look for is
// not confirmed: this build has no code for it.
[[nodiscard]] bool confirms(const HostProbe& probe, backend::Device device);
[[nodiscard]] bool confirms(const HostProbe& probe, backend::Provider provider);

// What the probe found for the device or provider: the evidence when confirmed, else what it found
// instead ("libcuda.so.1 could not be loaded: ...", "not built: this build has no cufft provider").
[[nodiscard]] std::string probe_finding(const HostProbe& probe, backend::Device device);
[[nodiscard]] std::string probe_finding(const HostProbe& probe, backend::Provider provider);

// The confirmed devices and providers of planning's vocabulary, in vocabulary order.
[[nodiscard]] backend::Availability probed_availability(const HostProbe& probe);

// One declared device or provider set against the probe.
struct DeclaredDeviceCheck {
  backend::Device device = backend::Device::cpu;
  bool confirmed = false;
  std::string finding;

  bool operator==(const DeclaredDeviceCheck&) const = default;
};
struct DeclaredProviderCheck {
  backend::Provider provider = backend::Provider::reference;
  bool confirmed = false;
  std::string finding;

  bool operator==(const DeclaredProviderCheck&) const = default;
};

// A target's declaration next to the probe: whether its OS and architecture are this machine's
// (`unknown` in the target matches any), and each declared device and provider, in declaration
// order, with what the probe found.
struct TargetCheck {
  backend::Target target;
  bool os_matches = false;
  bool arch_matches = false;
  std::vector<DeclaredDeviceCheck> devices;
  std::vector<DeclaredProviderCheck> providers;

  bool operator==(const TargetCheck&) const = default;

  // Every declared device and provider confirmed, and the platform matches.
  [[nodiscard]] bool all_confirmed() const;
};

[[nodiscard]] TargetCheck check_target(const HostProbe& probe, const backend::Target& target);

}  // namespace nnplan::runtime
