// ExecutionConfig (SPEC §1, §2): its defaults, provider admission by preference, and the full
// VJP-fit table (config mode × capsule mode × whether the op needs a VJP).
#include "nnplan/backend/execution_config.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "capsule_fixtures.hpp"

namespace nnplan::backend {
namespace {

TEST(ExecutionConfig, Defaults) {
  const ExecutionConfig config;
  EXPECT_EQ(config.device, Device::cpu);
  EXPECT_EQ(config.preference, BackendPreference::automatic());
  EXPECT_EQ(config.preference.kind, BackendPreference::Kind::automatic);
  EXPECT_EQ(to_string(config.preference), "auto");
  EXPECT_EQ(config.assurance, AssurancePolicy::checked());
  EXPECT_EQ(label(config.assurance), "checked");
  EXPECT_EQ(config.vjp_mode, VjpMode::torchlean_tape);
}

TEST(BackendPreference, Factories) {
  EXPECT_EQ(BackendPreference::prefer(Provider::xla).kind, BackendPreference::Kind::prefer);
  EXPECT_EQ(BackendPreference::prefer(Provider::xla).provider, Provider::xla);
  EXPECT_EQ(BackendPreference::only(Provider::mps).kind, BackendPreference::Kind::only);
  EXPECT_EQ(BackendPreference::only(Provider::mps).provider, Provider::mps);
  EXPECT_NE(BackendPreference::prefer(Provider::mps), BackendPreference::only(Provider::mps));
}

// `only p` admits exactly p; `auto` and `prefer` admit every provider.
TEST(BackendPreference, AdmitsProvider) {
  for (std::size_t i = 0; i < kProviderNames.size(); ++i) {
    const auto candidate = static_cast<Provider>(i);
    EXPECT_TRUE(admits_provider(BackendPreference::automatic(), candidate));
    for (std::size_t j = 0; j < kProviderNames.size(); ++j) {
      const auto wanted = static_cast<Provider>(j);
      EXPECT_TRUE(admits_provider(BackendPreference::prefer(wanted), candidate));
      EXPECT_EQ(admits_provider(BackendPreference::only(wanted), candidate), i == j)
          << "only " << to_string(wanted) << " vs " << to_string(candidate);
    }
  }
}

struct VjpFitCase {
  VjpMode config;
  VjpMode capsule;
  bool op_requires_vjp;
  bool fits;
};

void PrintTo(const VjpFitCase& c, std::ostream* os) {
  *os << to_string(c.config) << "/" << to_string(c.capsule)
      << (c.op_requires_vjp ? "/differentiable" : "/random");
}

class VjpFitTest : public ::testing::TestWithParam<VjpFitCase> {};

// Checked over every op of the vocabulary with the given requires_vjp value.
TEST_P(VjpFitTest, Fits) {
  const VjpFitCase& c = GetParam();
  int checked_ops = 0;
  for (std::size_t i = 0; i < kBackendOpCount; ++i) {
    const auto op = static_cast<BackendOp>(i);
    if (requires_vjp(op) != c.op_requires_vjp) continue;
    ++checked_ops;
    EXPECT_EQ(vjp_fits(c.config, op, c.capsule), c.fits) << to_string(op);
  }
  EXPECT_EQ(checked_ops, c.op_requires_vjp ? 83 : 17);
}

constexpr VjpMode kNone = VjpMode::none;
constexpr VjpMode kTape = VjpMode::torchlean_tape;
constexpr VjpMode kBackend = VjpMode::backend_vjp;

INSTANTIATE_TEST_SUITE_P(
    FullTable, VjpFitTest,
    ::testing::Values(
        // config none: everything fits.
        VjpFitCase{kNone, kNone, true, true}, VjpFitCase{kNone, kTape, true, true},
        VjpFitCase{kNone, kBackend, true, true}, VjpFitCase{kNone, kNone, false, true},
        VjpFitCase{kNone, kTape, false, true}, VjpFitCase{kNone, kBackend, false, true},
        // config torchlean-tape: tape or backend VJPs; anything for the random sources.
        VjpFitCase{kTape, kNone, true, false}, VjpFitCase{kTape, kTape, true, true},
        VjpFitCase{kTape, kBackend, true, true}, VjpFitCase{kTape, kNone, false, true},
        VjpFitCase{kTape, kTape, false, true}, VjpFitCase{kTape, kBackend, false, true},
        // config backend-vjp: only backend VJPs; anything for the random sources.
        VjpFitCase{kBackend, kNone, true, false}, VjpFitCase{kBackend, kTape, true, false},
        VjpFitCase{kBackend, kBackend, true, true}, VjpFitCase{kBackend, kNone, false, true},
        VjpFitCase{kBackend, kTape, false, true}, VjpFitCase{kBackend, kBackend, false, true}),
    [](const ::testing::TestParamInfo<VjpFitCase>& info) {
      return "config_" + fixtures::test_name(to_string(info.param.config)) + "_capsule_" +
             fixtures::test_name(to_string(info.param.capsule)) +
             (info.param.op_requires_vjp ? "_differentiable" : "_random_source");
    });

}  // namespace
}  // namespace nnplan::backend
