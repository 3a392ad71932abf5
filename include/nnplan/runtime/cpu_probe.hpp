// The CPU part of the host probe (SPEC §11 "Probe"): the processor's model, its physical cores and
// logical processors, and the ISA features a provider may dispatch to, as libcpuinfo reads them on
// this machine. probe.hpp gathers it with the other parts into one HostProbe.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "nnplan/enum_table.hpp"
#include "nnplan/error.hpp"

namespace nnplan::runtime {

// The ISA features the probe reports, in report order.
enum class CpuFeature : std::uint8_t {
  sse4_2,
  avx,
  avx2,
  fma,
  f16c,
  avx512f,
  avx512bw,
  avx512dq,
  avx512vl,
  avx512_vnni,
  avx512_bf16,
  amx_tile,
  amx_int8,
  amx_bf16,
};
inline constexpr auto kCpuFeatureNames = enum_names<CpuFeature::amx_bf16>(
    {"sse4.2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512dq", "avx512vl",
     "avx512-vnni", "avx512-bf16", "amx-tile", "amx-int8", "amx-bf16"});
inline constexpr std::size_t kCpuFeatureCount = kCpuFeatureNames.size();

[[nodiscard]] constexpr std::string_view to_string(CpuFeature v) {
  return enum_name(kCpuFeatureNames, v);
}

// Which features this CPU has and the operating system lets a process use.
struct CpuFeatures {
  std::array<bool, kCpuFeatureCount> present{};

  bool operator==(const CpuFeatures&) const = default;

  [[nodiscard]] bool has(CpuFeature f) const { return present[static_cast<std::size_t>(f)]; }
};

struct CpuProbe {
  // The first package's name as libcpuinfo decodes it ("AMD EPYC 7B13"); "unnamed" when it has
  // none.
  std::string model;
  std::uint32_t packages = 0;
  std::uint32_t cores = 0;               // physical cores, all packages
  std::uint32_t logical_processors = 0;  // hardware threads, all packages
  CpuFeatures features;

  bool operator==(const CpuProbe&) const = default;
};

// This machine's CPU. Fails (kind `unavailable`) only when libcpuinfo cannot initialise, with
// that in the message.
[[nodiscard]] Expected<CpuProbe> probe_cpu();

}  // namespace nnplan::runtime
