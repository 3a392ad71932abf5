#include "nnplan/runtime/probe.hpp"

#include "nnplan/runtime/handler_registry.hpp"
#ifdef NNPLAN_HAVE_ONEDNN
#include "runtime/providers/onednn/onednn_provider.hpp"
#endif

#include <sys/utsname.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace nnplan::runtime {

using backend::Architecture;
using backend::Device;
using backend::OperatingSystem;
using backend::Provider;

namespace {

OperatingSystem os_of(std::string_view sysname) {
  if (sysname == "Linux") return OperatingSystem::linux_os;
  if (sysname == "Darwin") return OperatingSystem::macos;
  if (sysname.starts_with("Windows") || sysname.starts_with("MINGW") ||
      sysname.starts_with("MSYS") || sysname.starts_with("CYGWIN")) {
    return OperatingSystem::windows;
  }
  if (sysname == "WASI") return OperatingSystem::wasi;
  return OperatingSystem::unknown;
}

Architecture arch_of(std::string_view machine) {
  if (machine == "x86_64" || machine == "amd64") return Architecture::x86_64;
  if (machine == "aarch64" || machine == "arm64") return Architecture::aarch64;
  if (machine == "wasm32") return Architecture::wasm32;
  return Architecture::unknown;
}

Expected<PlatformProbe> probe_platform() {
  utsname names{};
  if (uname(&names) != 0) {
    return std::unexpected(
        make_error(ErrorKind::unavailable, std::string("uname failed: ") + std::strerror(errno)));
  }
  PlatformProbe out{.system = names.sysname, .release = names.release, .machine = names.machine};
  out.os = os_of(out.system);
  out.arch = arch_of(out.machine);
  return out;
}

std::string not_built(std::string_view provider) {
  return "not built: this build has no " + std::string(provider) + " provider";
}

std::string cpu_evidence(const HostProbe& probe) {
  if (!probe.cpu) {
    return "this process runs on it; " + probe.cpu.error().message;
  }
  const CpuProbe& cpu = *probe.cpu;
  return "libcpuinfo: " + cpu.model + ", " + std::to_string(cpu.cores) + " cores, " +
         std::to_string(cpu.logical_processors) + " logical processors";
}

// "libcuda.so.1: driver 12.4, 1 device: NVIDIA H200 (compute 9.0)".
std::string cuda_evidence(const CudaDriverProbe& cuda) {
  std::string out = cuda.library + ": driver " + driver_version_text(cuda.driver_version) + ", " +
                    std::to_string(cuda.devices.size()) +
                    (cuda.devices.size() == 1 ? " device" : " devices");
  for (std::size_t i = 0; i < cuda.devices.size(); ++i) {
    const CudaDevice& d = cuda.devices[i];
    out += (i == 0 ? ": " : ", ") + d.name + " (compute " + std::to_string(d.compute_major) + "." +
           std::to_string(d.compute_minor) + ")";
  }
  return out;
}

// Why there is no usable CUDA device, or nothing when there is one.
std::string cuda_problem(const HostProbe& probe) {
  if (!probe.cuda) return probe.cuda.error().message;
  if (probe.cuda->devices.empty()) return cuda_evidence(*probe.cuda) + ": no device to run on";
  return {};
}

// Whether this build links handlers of `provider` (a provider is confirmed only when its code is
// here and what it needs on the machine initialises).
bool built_in(Provider provider) {
  for (const auto& [identity, handler] : builtin_handlers().handlers()) {
    if (identity.provider == provider) return true;
  }
  return false;
}

// The finding for a CUDA provider: the driver must report a device and the provider's kernels be
// linked into this build.
std::string cuda_provider_evidence(Provider provider, bool has_cuda, const std::string& seen) {
  if (!has_cuda) return seen;
  if (!built_in(provider)) {
    return seen + "; but " + not_built(to_string(provider)) + " (its kernels are not linked)";
  }
  return seen;
}

void add_findings(HostProbe& probe) {
  const std::string cuda_missing = cuda_problem(probe);
  const bool has_cuda = cuda_missing.empty();
  const std::string cuda_seen = has_cuda ? cuda_evidence(*probe.cuda) : cuda_missing;

  // The CPU is confirmed by this process running on it; libcpuinfo adds what it is.
  probe.devices = {
      {.device = Device::cpu, .confirmed = true, .evidence = cpu_evidence(probe)},
      {.device = Device::cuda, .confirmed = has_cuda, .evidence = cuda_seen},
  };

  ProviderFinding cublas{.name = std::string(to_string(Provider::cublas))};
  if (!probe.cublas) {
    cublas.evidence = probe.cublas.error().message;
  } else if (!has_cuda) {
    cublas.evidence = probe.cublas->library + " loaded, but " + cuda_missing;
  } else if (!built_in(Provider::cublas)) {
    cublas.evidence = probe.cublas->library + " loaded and " + cuda_seen + "; but " +
                      not_built(to_string(Provider::cublas)) + " (its kernels are not linked)";
  } else {
    cublas.confirmed = true;
    cublas.version = probe.cublas->version.value_or("");
    cublas.evidence = probe.cublas->library +
                      (probe.cublas->version ? " " + *probe.cublas->version : "") + " loaded; " +
                      cuda_seen;
  }
  probe.providers = {
      {.name = std::string(to_string(Provider::reference)),
       .confirmed = true,
       .version = NNPLAN_VERSION,
       .evidence = "built into this build (nnplan " NNPLAN_VERSION ")"},
      {.name = std::string(to_string(Provider::torchlean)),
       .evidence = not_built(to_string(Provider::torchlean))},
#ifdef NNPLAN_HAVE_ONEDNN
      onednn::probe_onednn(),
#else
      {.name = std::string(to_string(Provider::onednn)),
       .evidence = not_built(to_string(Provider::onednn))},
#endif
      {.name = std::string(to_string(Provider::libtorch)),
       .evidence = not_built(to_string(Provider::libtorch))},
      {.name = std::string(to_string(Provider::native_cuda)),
       .confirmed = has_cuda && built_in(Provider::native_cuda),
       .version = has_cuda ? driver_version_text(probe.cuda->driver_version) : std::string(),
       .evidence = cuda_provider_evidence(Provider::native_cuda, has_cuda, cuda_seen)},
      std::move(cublas),
  };
}

const DeviceFinding* find(const HostProbe& probe, Device device) {
  auto it = std::ranges::find(probe.devices, device, &DeviceFinding::device);
  return it == probe.devices.end() ? nullptr : &*it;
}

const ProviderFinding* find(const HostProbe& probe, Provider provider) {
  auto it = std::ranges::find(probe.providers, to_string(provider), &ProviderFinding::name);
  return it == probe.providers.end() ? nullptr : &*it;
}

}  // namespace

HostProbe probe_host(const ProbeOptions& options) {
  const auto not_probed = [](std::string why) {
    return std::unexpected(make_error(ErrorKind::unavailable, "not probed: " + std::move(why)));
  };
  HostProbe probe{.platform = probe_platform(), .cpu = probe_cpu(), .cuda = {}, .cublas = {}};
  if (options.cuda) {
    probe.cuda = probe_cuda_driver(options.cuda_library, options.deadline);
  } else {
    probe.cuda = not_probed("the plan uses no CUDA device or provider");
  }
  const std::vector<std::string_view> cublas_libraries(options.cublas_libraries.begin(),
                                                       options.cublas_libraries.end());
  if (options.cublas && options.cuda) {
    probe.cublas = probe_cublas(cublas_libraries, options.deadline);
  } else {
    probe.cublas = not_probed(options.cublas ? "the CUDA driver was not probed"
                                             : "the plan uses no cuBLAS capsule");
  }
  add_findings(probe);
  return probe;
}

bool confirms(const HostProbe& probe, Device device) {
  const DeviceFinding* f = find(probe, device);
  return f != nullptr && f->confirmed;
}

bool confirms(const HostProbe& probe, Provider provider) {
  const ProviderFinding* f = find(probe, provider);
  return f != nullptr && f->confirmed;
}

std::string probe_finding(const HostProbe& probe, Device device) {
  const DeviceFinding* f = find(probe, device);
  if (f != nullptr) return f->evidence;
  return "not built: this build cannot probe for a " + std::string(to_string(device)) + " device";
}

std::string probe_finding(const HostProbe& probe, Provider provider) {
  const ProviderFinding* f = find(probe, provider);
  return f != nullptr ? f->evidence : not_built(to_string(provider));
}

backend::Availability probed_availability(const HostProbe& probe) {
  backend::Availability out{.devices = {}, .providers = {}};
  for (std::size_t i = 0; i < backend::kDeviceNames.size(); ++i) {
    const auto device = static_cast<Device>(i);
    if (confirms(probe, device)) out.devices.push_back(device);
  }
  for (std::size_t i = 0; i < backend::kProviderNames.size(); ++i) {
    const auto provider = static_cast<Provider>(i);
    if (confirms(probe, provider)) out.providers.push_back(provider);
  }
  return out;
}

bool TargetCheck::all_confirmed() const {
  return os_matches && arch_matches &&
         std::ranges::all_of(devices, &DeclaredDeviceCheck::confirmed) &&
         std::ranges::all_of(providers, &DeclaredProviderCheck::confirmed);
}

TargetCheck check_target(const HostProbe& probe, const backend::Target& target) {
  TargetCheck out{.target = target};
  // A platform uname could not name matches only a target that declares none.
  const auto os = probe.platform ? probe.platform->os : OperatingSystem::unknown;
  const auto arch = probe.platform ? probe.platform->arch : Architecture::unknown;
  out.os_matches = target.os == OperatingSystem::unknown || target.os == os;
  out.arch_matches = target.arch == Architecture::unknown || target.arch == arch;
  for (Device d : backend::devices(target)) {
    out.devices.push_back(
        {.device = d, .confirmed = confirms(probe, d), .finding = probe_finding(probe, d)});
  }
  for (Provider p : backend::providers(target)) {
    out.providers.push_back(
        {.provider = p, .confirmed = confirms(probe, p), .finding = probe_finding(probe, p)});
  }
  return out;
}

}  // namespace nnplan::runtime
