// The CUDA part of the host probe (SPEC §11 "Probe"): whether the CUDA driver loads at run time
// (dlopen, never a link-time dependency), its version and the devices it reports, and whether
// cuBLAS loads. probe.hpp gathers these with the other parts into one HostProbe; a failure keeps
// the loader's or the driver's own words (dlerror text, a CUresult name and code). Both are loaded
// and queried in a child process with a deadline (isolated_call.hpp), never in this one: a driver
// that crashes, aborts, hangs, exits or reports what no machine has is a finding, not the end of
// nnplan, and this process never maps either library.
#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/error.hpp"

namespace nnplan::runtime {

// The library names tried in order when no other is given.
inline constexpr std::string_view kCudaDriverLibrary = "libcuda.so.1";
inline constexpr std::string_view kCublasLibraries[] = {"libcublas.so.13", "libcublas.so.12",
                                                        "libcublas.so.11", "libcublas.so"};

// How long the child that loads and queries a library may take before it is stopped.
inline constexpr std::chrono::milliseconds kDriverProbeDeadline{8000};
// The most devices a driver is believed to report; a count past it (or below zero) fails the
// probe rather than sizing anything by it.
inline constexpr int kMaxCudaDevices = 64;

struct CudaDevice {
  int ordinal = 0;
  std::string name;  // as the driver reports it ("NVIDIA H200")
  int compute_major = 0;
  int compute_minor = 0;

  bool operator==(const CudaDevice&) const = default;
};

struct CudaDriverProbe {
  std::string library;     // the soname that loaded
  int driver_version = 0;  // the driver's encoding: 1000 * major + 10 * minor (12040 is 12.4)
  std::vector<CudaDevice> devices;

  bool operator==(const CudaDriverProbe&) const = default;
};

struct CublasProbe {
  std::string library;  // the soname that loaded
  // "major.minor.patch" from cublasGetProperty; none when the library does not export it.
  std::optional<std::string> version;

  bool operator==(const CublasProbe&) const = default;
};

// In a child process: loads `library` with dlopen, initialises the driver (cuInit) and lists its
// devices. Fails (kind `unavailable`) with the step that failed: "libcuda.so.1 could not be
// loaded: <dlerror>", "libcuda.so.1 has no cuInit: <dlerror>", "cuInit failed:
// CUDA_ERROR_NO_DEVICE (100)", "cuDeviceGetCount reported 2147483647 devices ...", or with what
// happened to the child ("the CUDA driver probe (libcuda.so.1) was killed by signal 11
// (Segmentation fault) before it answered", "... did not answer within 8 s and was stopped").
// Device names are kept as the driver wrote them (at most 256 bytes); outputs escape them.
[[nodiscard]] Expected<CudaDriverProbe> probe_cuda_driver(
    std::string_view library = kCudaDriverLibrary,
    std::chrono::milliseconds deadline = kDriverProbeDeadline);

// In a child process: loads the first of `libraries` that dlopen accepts and reads its version.
// Fails (kind `unavailable`) with every candidate's dlerror text, or with what happened to the
// child.
[[nodiscard]] Expected<CublasProbe> probe_cublas(
    std::span<const std::string_view> libraries = kCublasLibraries,
    std::chrono::milliseconds deadline = kDriverProbeDeadline);

// "12.4" for 12040.
[[nodiscard]] std::string driver_version_text(int driver_version);

}  // namespace nnplan::runtime
