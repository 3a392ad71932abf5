#include "nnplan/runtime/cpu_probe.hpp"

#include <cpuinfo.h>

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace nnplan::runtime {

namespace {

// AMX by hand: the libcpuinfo Debian bookworm ships (2022-06) has no AMX query. A feature counts
// when the CPU reports it (CPUID leaf 7, EDX) and the OS has enabled its tile state in XCR0
// (XTILECFG and XTILEDATA, bits 17 and 18), which is when Linux lists it in /proc/cpuinfo.
struct AmxFeatures {
  bool tile = false;
  bool int8 = false;
  bool bf16 = false;
};

AmxFeatures amx_features() {
  AmxFeatures amx;
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return amx;
  const bool osxsave = (ecx & (1u << 27)) != 0;
  if (!osxsave) return amx;
  unsigned xcr0_low = 0, xcr0_high = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  constexpr unsigned kTileState = (1u << 17) | (1u << 18);
  if ((xcr0_low & kTileState) != kTileState) return amx;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return amx;
  amx.bf16 = (edx & (1u << 22)) != 0;
  amx.tile = (edx & (1u << 24)) != 0;
  amx.int8 = (edx & (1u << 25)) != 0;
#endif
  return amx;
}

CpuFeatures cpu_features() {
  CpuFeatures out;
  auto set = [&out](CpuFeature f, bool value) { out.present[static_cast<std::size_t>(f)] = value; };
  set(CpuFeature::sse4_2, cpuinfo_has_x86_sse4_2());
  set(CpuFeature::avx, cpuinfo_has_x86_avx());
  set(CpuFeature::avx2, cpuinfo_has_x86_avx2());
  set(CpuFeature::fma, cpuinfo_has_x86_fma3());
  set(CpuFeature::f16c, cpuinfo_has_x86_f16c());
  set(CpuFeature::avx512f, cpuinfo_has_x86_avx512f());
  set(CpuFeature::avx512bw, cpuinfo_has_x86_avx512bw());
  set(CpuFeature::avx512dq, cpuinfo_has_x86_avx512dq());
  set(CpuFeature::avx512vl, cpuinfo_has_x86_avx512vl());
  set(CpuFeature::avx512_vnni, cpuinfo_has_x86_avx512vnni());
  set(CpuFeature::avx512_bf16, cpuinfo_has_x86_avx512bf16());
  const AmxFeatures amx = amx_features();
  set(CpuFeature::amx_tile, amx.tile);
  set(CpuFeature::amx_int8, amx.int8);
  set(CpuFeature::amx_bf16, amx.bf16);
  return out;
}

}  // namespace

Expected<CpuProbe> probe_cpu() {
  // cpuinfo_initialize runs once per process and is safe to call again; the tables it fills stay
  // valid until exit, so they are never torn down here.
  if (!cpuinfo_initialize()) {
    return std::unexpected(make_error(
        ErrorKind::unavailable,
        "libcpuinfo could not be initialised: it cannot read this machine's processor tables"));
  }
  CpuProbe cpu;
  const cpuinfo_package* package = cpuinfo_get_package(0);
  const std::size_t name_length =
      package == nullptr ? 0 : strnlen(package->name, CPUINFO_PACKAGE_NAME_MAX);
  cpu.model = name_length == 0 ? std::string("unnamed") : std::string(package->name, name_length);
  cpu.packages = cpuinfo_get_packages_count();
  cpu.cores = cpuinfo_get_cores_count();
  cpu.logical_processors = cpuinfo_get_processors_count();
  cpu.features = cpu_features();
  return cpu;
}

}  // namespace nnplan::runtime
