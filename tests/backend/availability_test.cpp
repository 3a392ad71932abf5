// Availability (SPEC §3): the default lists, the three presets, membership, capsule admission
// (device and provider both listed) and the order-keeping filter.
#include "nnplan/backend/availability.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"

namespace nnplan::backend {
namespace {

using fixtures::aligned_capsule;

struct AvailabilityCase {
  std::string name;
  Availability availability;
  std::vector<Device> devices;
  std::vector<Provider> providers;
};

void PrintTo(const AvailabilityCase& c, std::ostream* os) {
  *os << c.name;
}

class AvailabilityPresetTest : public ::testing::TestWithParam<AvailabilityCase> {};

TEST_P(AvailabilityPresetTest, ExactLists) {
  const AvailabilityCase& c = GetParam();
  EXPECT_EQ(c.availability.devices, c.devices);
  EXPECT_EQ(c.availability.providers, c.providers);
}

INSTANTIATE_TEST_SUITE_P(
    Presets, AvailabilityPresetTest,
    ::testing::Values(
        AvailabilityCase{
            "default", Availability{}, {Device::cpu}, {Provider::reference, Provider::torchlean}},
        AvailabilityCase{
            "cpu", Availability::cpu(), {Device::cpu}, {Provider::reference, Provider::torchlean}},
        AvailabilityCase{"cuda_native",
                         Availability::cuda_native(),
                         {Device::cpu, Device::cuda},
                         {Provider::reference, Provider::torchlean, Provider::native_cuda,
                          Provider::cublas, Provider::cufft}},
        AvailabilityCase{"cuda_with_libtorch",
                         Availability::cuda_with_libtorch(),
                         {Device::cpu, Device::cuda},
                         {Provider::reference, Provider::torchlean, Provider::native_cuda,
                          Provider::cublas, Provider::cufft, Provider::libtorch}}),
    [](const ::testing::TestParamInfo<AvailabilityCase>& info) { return info.param.name; });

// Membership of every device and provider in each preset.
TEST(Availability, MembershipMatchesLists) {
  for (const Availability& a :
       {Availability::cpu(), Availability::cuda_native(), Availability::cuda_with_libtorch()}) {
    for (std::size_t i = 0; i < kDeviceNames.size(); ++i) {
      const auto d = static_cast<Device>(i);
      EXPECT_EQ(a.has_device(d), std::ranges::find(a.devices, d) != a.devices.end());
    }
    for (std::size_t i = 0; i < kProviderNames.size(); ++i) {
      const auto p = static_cast<Provider>(i);
      EXPECT_EQ(a.has_provider(p), std::ranges::find(a.providers, p) != a.providers.end());
    }
  }
}

struct AdmitCase {
  std::string name;
  Availability availability;
  Device device;
  Provider provider;
  bool admitted;
};

void PrintTo(const AdmitCase& c, std::ostream* os) {
  *os << c.name;
}

class AvailabilityAdmitsTest : public ::testing::TestWithParam<AdmitCase> {};

TEST_P(AvailabilityAdmitsTest, DeviceAndProviderBothListed) {
  const AdmitCase& c = GetParam();
  const KernelCapsule capsule = aligned_capsule("c", BackendOp::relu, c.provider, c.device);
  EXPECT_EQ(c.availability.admits(capsule), c.admitted);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, AvailabilityAdmitsTest,
    ::testing::Values(
        AdmitCase{"cpu_reference", Availability::cpu(), Device::cpu, Provider::reference, true},
        AdmitCase{"cpu_torchlean", Availability::cpu(), Device::cpu, Provider::torchlean, true},
        AdmitCase{"cpu_native_cuda_provider", Availability::cpu(), Device::cpu,
                  Provider::native_cuda, false},
        AdmitCase{"cpu_cuda_device", Availability::cpu(), Device::cuda, Provider::reference, false},
        AdmitCase{"cpu_external", Availability::cpu(), Device::external, Provider::external, false},
        AdmitCase{"native_cuda", Availability::cuda_native(), Device::cuda, Provider::native_cuda,
                  true},
        AdmitCase{"native_no_libtorch", Availability::cuda_native(), Device::cuda,
                  Provider::libtorch, false},
        AdmitCase{"native_cudnn_not_listed", Availability::cuda_native(), Device::cuda,
                  Provider::cudnn, false},
        AdmitCase{"libtorch", Availability::cuda_with_libtorch(), Device::cuda, Provider::libtorch,
                  true},
        AdmitCase{"libtorch_rocm", Availability::cuda_with_libtorch(), Device::rocm,
                  Provider::libtorch, false}),
    [](const ::testing::TestParamInfo<AdmitCase>& info) { return info.param.name; });

TEST(FilterAvailable, KeepsAdmittedCapsulesInOrder) {
  const std::vector<KernelCapsule> capsules = {
      aligned_capsule("a", BackendOp::relu, Provider::native_cuda, Device::cuda),
      aligned_capsule("b", BackendOp::relu, Provider::reference, Device::cpu),
      aligned_capsule("c", BackendOp::relu, Provider::libtorch, Device::cuda),
      aligned_capsule("d", BackendOp::add, Provider::torchlean, Device::cpu),
      aligned_capsule("e", BackendOp::add, Provider::reference, Device::cuda),
      aligned_capsule("f", BackendOp::add, Provider::cublas, Device::cuda),
  };
  struct Case {
    std::string name;
    Availability availability;
    std::vector<std::string> kept;
  };
  const Case cases[] = {
      {"cpu", Availability::cpu(), {"b", "d"}},
      {"cuda_native", Availability::cuda_native(), {"a", "b", "d", "e", "f"}},
      {"cuda_with_libtorch", Availability::cuda_with_libtorch(), {"a", "b", "c", "d", "e", "f"}},
      {"nothing", Availability{.devices = {}, .providers = {}}, {}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> kept;
    for (const KernelCapsule& k : filter_available(c.availability, capsules))
      kept.push_back(k.name);
    EXPECT_EQ(kept, c.kept) << c.name;
  }
  EXPECT_TRUE(filter_available(Availability::cpu(), {}).empty());
}

}  // namespace
}  // namespace nnplan::backend
