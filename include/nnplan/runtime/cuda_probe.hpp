// The CUDA part of the host probe (SPEC §11 "Probe"): whether the CUDA driver loads at run time
// (dlopen, never a link-time dependency), its version and the devices it reports, and whether
// cuBLAS loads. probe.hpp gathers these with the other parts into one HostProbe; a failure keeps
// the loader's or the driver's own words (dlerror text, a CUresult name and code).
#pragma once

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

// Loads `library` with dlopen, initialises the driver (cuInit) and lists its devices. Fails (kind
// `unavailable`) with the step that failed: "libcuda.so.1 could not be loaded: <dlerror>",
// "libcuda.so.1 has no cuInit: <dlerror>", "cuInit failed: CUDA_ERROR_NO_DEVICE (100)". Once
// cuInit has run the driver stays loaded for the life of the process.
[[nodiscard]] Expected<CudaDriverProbe> probe_cuda_driver(
    std::string_view library = kCudaDriverLibrary);

// Loads the first of `libraries` that dlopen accepts and reads its version. Fails (kind
// `unavailable`) with every candidate's dlerror text.
[[nodiscard]] Expected<CublasProbe> probe_cublas(
    std::span<const std::string_view> libraries = kCublasLibraries);

// "12.4" for 12040.
[[nodiscard]] std::string driver_version_text(int driver_version);

}  // namespace nnplan::runtime
