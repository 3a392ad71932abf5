// The host probe on the machine the tests run on: its CPU facts against /proc/cpuinfo, the CUDA
// driver's failure messages through libraries that are missing or are not the driver, and the
// findings the refusal will read. Success paths of the driver run only where one is installed.
#include "nnplan/runtime/probe.hpp"

#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "nnplan/format/probe_json.hpp"

namespace nnplan::runtime {
namespace {

using backend::Device;
using backend::Provider;
using ::testing::HasSubstr;

constexpr const char* kMissingLibrary = "libdoes-not-exist.so.1";

HostProbe probe_without_driver() {
  return probe_host({.cuda_library = kMissingLibrary, .cublas_libraries = {kMissingLibrary}});
}

// The dlerror text this process gets for `library`, or empty when it loads.
std::string dlopen_failure(const char* library) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle != nullptr) {
    dlclose(handle);
    return {};
  }
  const char* text = dlerror();
  return text != nullptr ? text : "";
}

// The flags of /proc/cpuinfo's first `flags` line, or empty when there is none.
std::set<std::string> proc_cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("flags")) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;)
      flags.insert(w);
    return flags;
  }
  return {};
}

TEST(ProbeCuda, MissingDriverKeepsTheLoadersMessage) {
  const auto cuda = probe_cuda_driver(kMissingLibrary);
  ASSERT_FALSE(cuda.has_value());
  EXPECT_EQ(cuda.error().kind, ErrorKind::unavailable);
  EXPECT_EQ(cuda.error().message, std::string(kMissingLibrary) +
                                      " could not be loaded: " + dlopen_failure(kMissingLibrary));
  EXPECT_THAT(cuda.error().message, HasSubstr("cannot open shared object file"));
}

TEST(ProbeCuda, LibraryWithoutTheDriversSymbolsNamesTheMissingOne) {
  const auto cuda = probe_cuda_driver("libm.so.6");
  ASSERT_FALSE(cuda.has_value());
  EXPECT_THAT(cuda.error().message, HasSubstr("libm.so.6 has no cuInit: "));
  EXPECT_THAT(cuda.error().message, HasSubstr("undefined symbol: cuInit"));
}

TEST(ProbeCuda, MissingCublasListsEveryCandidate) {
  constexpr std::string_view libraries[] = {"libnot-cublas-a.so", "libnot-cublas-b.so"};
  const auto cublas = probe_cublas(libraries);
  ASSERT_FALSE(cublas.has_value());
  EXPECT_THAT(cublas.error().message,
              HasSubstr("cublas could not be loaded: libnot-cublas-a.so: "));
  EXPECT_THAT(cublas.error().message, HasSubstr("; libnot-cublas-b.so: "));
  EXPECT_FALSE(probe_cublas({}).has_value());
}

TEST(ProbeCuda, DriverVersionText) {
  EXPECT_EQ(driver_version_text(12040), "12.4");
  EXPECT_EQ(driver_version_text(11080), "11.8");
  EXPECT_EQ(driver_version_text(13000), "13.0");
}

TEST(ProbeHost, MissingDriverConfirmsNoCudaDeviceOrProvider) {
  const HostProbe probe = probe_without_driver();
  ASSERT_FALSE(probe.cuda.has_value());
  const std::string expected = probe.cuda.error().message;
  EXPECT_FALSE(confirms(probe, Device::cuda));
  EXPECT_FALSE(confirms(probe, Provider::native_cuda));
  EXPECT_FALSE(confirms(probe, Provider::cublas));
  EXPECT_EQ(probe_finding(probe, Device::cuda), expected);
  EXPECT_EQ(probe_finding(probe, Provider::native_cuda), expected);
  EXPECT_THAT(probe_finding(probe, Provider::cublas), HasSubstr("cublas could not be loaded"));
#ifdef NNPLAN_HAVE_ONEDNN
  EXPECT_EQ(probed_availability(probe),
            (backend::Availability{.devices = {Device::cpu},
                                   .providers = {Provider::reference, Provider::onednn}}));
#else
  EXPECT_EQ(probed_availability(probe),
            (backend::Availability{.devices = {Device::cpu}, .providers = {Provider::reference}}));
#endif
}

// This machine's driver, whatever it is: a failure is reported as the loader or driver put it, a
// success confirms cuda only with a device to run on.
TEST(ProbeHost, DefaultDriverIsReportedAsFound) {
  const HostProbe probe = probe_host();
  const std::string loader = dlopen_failure("libcuda.so.1");
  if (!loader.empty()) {
    ASSERT_FALSE(probe.cuda.has_value());
    EXPECT_EQ(probe.cuda.error().message, "libcuda.so.1 could not be loaded: " + loader);
    EXPECT_FALSE(confirms(probe, Provider::native_cuda));
    return;
  }
  if (!probe.cuda) {
    EXPECT_FALSE(confirms(probe, Device::cuda));
    EXPECT_EQ(probe_finding(probe, Device::cuda), probe.cuda.error().message);
    return;
  }
  EXPECT_EQ(confirms(probe, Device::cuda), !probe.cuda->devices.empty());
  EXPECT_EQ(confirms(probe, Provider::native_cuda), !probe.cuda->devices.empty());
  for (const CudaDevice& d : probe.cuda->devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.compute_major, 1);
  }
}

TEST(ProbeHost, CpuModelAndCores) {
  const HostProbe probe = probe_host();
  ASSERT_TRUE(probe.cpu.has_value()) << probe.cpu.error().message;
  EXPECT_FALSE(probe.cpu->model.empty());
  EXPECT_GE(probe.cpu->packages, 1u);
  EXPECT_GE(probe.cpu->cores, 1u);
  EXPECT_GE(probe.cpu->logical_processors, probe.cpu->cores);
  EXPECT_TRUE(confirms(probe, Device::cpu));
  EXPECT_THAT(probe_finding(probe, Device::cpu), HasSubstr("libcpuinfo: " + probe.cpu->model));
}

// Each feature with the name Linux gives it in /proc/cpuinfo.
struct FeatureFlag {
  CpuFeature feature;
  const char* proc_flag;
};
constexpr FeatureFlag kFeatureFlags[] = {
    {CpuFeature::sse4_2, "sse4_2"},
    {CpuFeature::avx, "avx"},
    {CpuFeature::avx2, "avx2"},
    {CpuFeature::fma, "fma"},
    {CpuFeature::f16c, "f16c"},
    {CpuFeature::avx512f, "avx512f"},
    {CpuFeature::avx512bw, "avx512bw"},
    {CpuFeature::avx512dq, "avx512dq"},
    {CpuFeature::avx512vl, "avx512vl"},
    {CpuFeature::avx512_vnni, "avx512_vnni"},
    {CpuFeature::avx512_bf16, "avx512_bf16"},
    {CpuFeature::amx_tile, "amx_tile"},
    {CpuFeature::amx_int8, "amx_int8"},
    {CpuFeature::amx_bf16, "amx_bf16"},
};
static_assert(std::size(kFeatureFlags) == kCpuFeatureCount);

TEST(ProbeHost, CpuFeaturesAgreeWithProcCpuinfo) {
  const std::set<std::string> flags = proc_cpu_flags();
  if (flags.empty()) GTEST_SKIP() << "no flags line in /proc/cpuinfo";
  const auto cpu = probe_cpu();
  ASSERT_TRUE(cpu.has_value()) << cpu.error().message;
  for (const FeatureFlag& f : kFeatureFlags) {
    EXPECT_EQ(cpu->features.has(f.feature), flags.contains(f.proc_flag))
        << to_string(f.feature) << " (/proc/cpuinfo flag " << f.proc_flag << ")";
  }
}

TEST(ProbeHost, PlatformInTheTargetVocabulary) {
  const HostProbe probe = probe_host();
  ASSERT_TRUE(probe.platform.has_value()) << probe.platform.error().message;
  EXPECT_FALSE(probe.platform->release.empty());
#if defined(__linux__)
  EXPECT_EQ(probe.platform->os, backend::OperatingSystem::linux_os);
  EXPECT_EQ(probe.platform->system, "Linux");
#endif
#if defined(__x86_64__)
  EXPECT_EQ(probe.platform->arch, backend::Architecture::x86_64);
#endif
}

TEST(ProbeHost, ProvidersOfThisBuild) {
  const HostProbe probe = probe_without_driver();
  EXPECT_TRUE(confirms(probe, Provider::reference));
  const auto reference = std::ranges::find(probe.providers, "reference", &ProviderFinding::name);
  ASSERT_NE(reference, probe.providers.end());
  EXPECT_FALSE(reference->version.empty());
  struct Case {
    const char* name;
    const char* finding;
  };
#ifdef NNPLAN_HAVE_ONEDNN
  // The onednn provider is linked: the probe confirms it with the library's version and ISA.
  const auto onednn = std::ranges::find(probe.providers, "onednn", &ProviderFinding::name);
  ASSERT_NE(onednn, probe.providers.end());
  EXPECT_TRUE(onednn->confirmed) << onednn->evidence;
  EXPECT_TRUE(confirms(probe, Provider::onednn));
  EXPECT_FALSE(onednn->version.empty());
  EXPECT_TRUE(onednn->evidence.starts_with("oneDNN " + onednn->version + " linked"))
      << onednn->evidence;
  EXPECT_NE(onednn->evidence.find("dispatches to ISA "), std::string::npos) << onednn->evidence;
#endif
  for (const Case& c : {Case{"torchlean", "not built: this build has no torchlean provider"},
#ifndef NNPLAN_HAVE_ONEDNN
                        Case{"onednn", "not built: this build has no onednn provider"},
#endif
                        Case{"libtorch", "not built: this build has no libtorch provider"}}) {
    const auto it = std::ranges::find(probe.providers, std::string(c.name), &ProviderFinding::name);
    ASSERT_NE(it, probe.providers.end()) << c.name;
    EXPECT_FALSE(it->confirmed) << c.name;
    EXPECT_EQ(it->evidence, c.finding);
  }
  EXPECT_FALSE(confirms(probe, Provider::libtorch));
  EXPECT_FALSE(confirms(probe, Provider::cufft));
  EXPECT_EQ(probe_finding(probe, Provider::cufft), "not built: this build has no cufft provider");
  EXPECT_FALSE(confirms(probe, Device::rocm));
}

TEST(ProbeTarget, DeclaredCudaIsNotConfirmedWithoutADriver) {
  const HostProbe probe = probe_without_driver();
  const TargetCheck check = check_target(probe, backend::Target::linux_cuda());
  EXPECT_FALSE(check.all_confirmed());
  ASSERT_EQ(check.devices.size(), 2u);
  EXPECT_TRUE(check.devices[0].confirmed);
  EXPECT_EQ(check.devices[1].device, Device::cuda);
  EXPECT_FALSE(check.devices[1].confirmed);
  EXPECT_EQ(check.devices[1].finding, probe.cuda.error().message);
  const auto native =
      std::ranges::find(check.providers, Provider::native_cuda, &DeclaredProviderCheck::provider);
  ASSERT_NE(native, check.providers.end());
  EXPECT_FALSE(native->confirmed);
  EXPECT_THAT(native->finding, HasSubstr(std::string(kMissingLibrary) + " could not be loaded"));
}

TEST(ProbeTarget, UnknownPlatformMatchesAnyAndAnotherDoesNot) {
  const HostProbe probe = probe_without_driver();
  const TargetCheck portable = check_target(probe, backend::Target::portable_cpu());
  EXPECT_TRUE(portable.os_matches);
  EXPECT_TRUE(portable.arch_matches);
#if defined(__linux__) && defined(__x86_64__)
  const TargetCheck macos = check_target(probe, backend::Target::macos_cpu());
  EXPECT_FALSE(macos.os_matches);
  EXPECT_FALSE(macos.arch_matches);
  EXPECT_FALSE(macos.all_confirmed());
  EXPECT_TRUE(check_target(probe, backend::Target::linux_cpu()).os_matches);
#endif
}

TEST(ProbeJson, FieldsAndTypes) {
  const HostProbe probe = probe_without_driver();
  const auto doc = nlohmann::json::parse(
      format::probe_json(probe, check_target(probe, backend::Target::linux_cuda())));
  EXPECT_EQ(doc["format"], "nnplan.probe.v1");
  EXPECT_TRUE(doc["platform"]["found"].get<bool>());
  EXPECT_TRUE(doc["platform"]["os"].is_string());
  EXPECT_TRUE(doc["cpu"]["model"].is_string());
  EXPECT_TRUE(doc["cpu"]["cores"].is_number_unsigned());
  EXPECT_TRUE(doc["cpu"]["logical_processors"].is_number_unsigned());
  ASSERT_TRUE(doc["cpu"]["features"].is_object());
  EXPECT_EQ(doc["cpu"]["features"].size(), kCpuFeatureCount);
  EXPECT_TRUE(doc["cpu"]["features"]["avx2"].is_boolean());
  EXPECT_FALSE(doc["cuda"]["found"].get<bool>());
  EXPECT_THAT(doc["cuda"]["error"].get<std::string>(), HasSubstr("could not be loaded"));
  EXPECT_FALSE(doc["cuda"].contains("devices"));
  EXPECT_FALSE(doc["cublas"]["found"].get<bool>());
  ASSERT_EQ(doc["devices"].size(), 2u);
  EXPECT_EQ(doc["devices"][0]["device"], "cpu");
  EXPECT_TRUE(doc["devices"][0]["confirmed"].get<bool>());
  EXPECT_TRUE(doc["devices"][0]["evidence"].is_string());
  EXPECT_EQ(doc["providers"][0]["provider"], "reference");
  EXPECT_TRUE(doc["providers"][0]["version"].is_string());
  EXPECT_EQ(doc["availability"]["devices"], nlohmann::json::array({"cpu"}));
#ifdef NNPLAN_HAVE_ONEDNN
  EXPECT_EQ(doc["providers"][2]["provider"], "onednn");
  EXPECT_TRUE(doc["providers"][2]["version"].is_string());
  EXPECT_TRUE(doc["providers"][3]["version"].is_null());
  EXPECT_EQ(doc["availability"]["providers"], nlohmann::json::array({"reference", "onednn"}));
#else
  EXPECT_TRUE(doc["providers"][2]["version"].is_null());
  EXPECT_EQ(doc["availability"]["providers"], nlohmann::json::array({"reference"}));
#endif
  EXPECT_EQ(doc["target"]["name"], "linux-cuda");
  EXPECT_TRUE(doc["target"]["os_matches"].is_boolean());
  EXPECT_FALSE(doc["target"]["all_confirmed"].get<bool>());
  EXPECT_EQ(doc["target"]["devices"][1]["device"], "cuda");
  EXPECT_FALSE(doc["target"]["devices"][1]["confirmed"].get<bool>());
  EXPECT_TRUE(doc["target"]["providers"][0]["finding"].is_string());
}

}  // namespace
}  // namespace nnplan::runtime
