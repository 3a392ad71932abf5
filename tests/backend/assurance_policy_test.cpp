// AssurancePolicy (SPEC §1): the three presets' six switches, the label (preset name or
// `custom`) and the trust admission table.
#include "nnplan/backend/assurance_policy.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "capsule_fixtures.hpp"

namespace nnplan::backend {
namespace {

struct PresetCase {
  AssurancePreset preset;
  AssurancePolicy factory;
  bool allow_checked;
  bool allow_fuzzed;
  bool allow_trusted_external;
  bool require_evidence;
  bool allow_runtime_guards;
  bool allow_test_evidence;
};

void PrintTo(const PresetCase& c, std::ostream* os) {
  *os << to_string(c.preset);
}

class AssurancePresetTest : public ::testing::TestWithParam<PresetCase> {};

TEST_P(AssurancePresetTest, SixSwitches) {
  const PresetCase& c = GetParam();
  const AssurancePolicy p = policy_of(c.preset);
  EXPECT_EQ(p, c.factory);
  EXPECT_EQ(p.allow_checked, c.allow_checked);
  EXPECT_EQ(p.allow_fuzzed, c.allow_fuzzed);
  EXPECT_EQ(p.allow_trusted_external, c.allow_trusted_external);
  EXPECT_EQ(p.require_evidence, c.require_evidence);
  EXPECT_EQ(p.allow_runtime_guards, c.allow_runtime_guards);
  EXPECT_EQ(p.allow_test_evidence, c.allow_test_evidence);
}

TEST_P(AssurancePresetTest, LabelIsThePresetName) {
  const PresetCase& c = GetParam();
  EXPECT_EQ(label(policy_of(c.preset)), to_string(c.preset));
}

INSTANTIATE_TEST_SUITE_P(
    Presets, AssurancePresetTest,
    ::testing::Values(
        //        preset, factory, checked, fuzzed, external, evidence, guards, tests
        PresetCase{AssurancePreset::verified, AssurancePolicy::verified(), false, false, false,
                   true, false, false},
        PresetCase{AssurancePreset::checked, AssurancePolicy::checked(), true, true, false, true,
                   true, true},
        PresetCase{AssurancePreset::external, AssurancePolicy::external(), true, true, true, true,
                   true, true}),
    [](const ::testing::TestParamInfo<PresetCase>& info) {
      return std::string(to_string(info.param.preset));
    });

TEST(AssurancePolicy, DefaultIsVerified) {
  EXPECT_EQ(AssurancePolicy{}, AssurancePolicy::verified());
  EXPECT_EQ(label(AssurancePolicy{}), "verified");
}

// Builds a policy from a 6-bit mask, bit i switching the i-th field in SPEC order.
AssurancePolicy policy_from_bits(unsigned bits) {
  return {.allow_checked = (bits & 1u) != 0,
          .allow_fuzzed = (bits & 2u) != 0,
          .allow_trusted_external = (bits & 4u) != 0,
          .require_evidence = (bits & 8u) != 0,
          .allow_runtime_guards = (bits & 16u) != 0,
          .allow_test_evidence = (bits & 32u) != 0};
}

TEST(AssurancePolicyLabel, CustomForEveryNonPresetCombination) {
  int named = 0;
  for (unsigned bits = 0; bits < 64; ++bits) {
    const AssurancePolicy p = policy_from_bits(bits);
    std::string_view expected = "custom";
    if (p == AssurancePolicy::verified()) expected = "verified";
    if (p == AssurancePolicy::checked()) expected = "checked";
    if (p == AssurancePolicy::external()) expected = "external";
    if (expected != "custom") ++named;
    EXPECT_EQ(label(p), expected) << "bits " << bits;
  }
  EXPECT_EQ(named, 3);
}

TEST(AssurancePolicyLabel, OneSwitchAwayFromAPresetIsCustom) {
  struct Case {
    std::string what;
    AssurancePolicy policy;
  };
  AssurancePolicy verified_no_evidence = AssurancePolicy::verified();
  verified_no_evidence.require_evidence = false;
  AssurancePolicy checked_no_fuzz = AssurancePolicy::checked();
  checked_no_fuzz.allow_fuzzed = false;
  AssurancePolicy checked_no_tests = AssurancePolicy::checked();
  checked_no_tests.allow_test_evidence = false;
  AssurancePolicy external_no_guards = AssurancePolicy::external();
  external_no_guards.allow_runtime_guards = false;
  AssurancePolicy only_external = AssurancePolicy::verified();
  only_external.allow_trusted_external = true;
  for (const Case& c : {Case{"verified without evidence", verified_no_evidence},
                        Case{"checked without fuzz", checked_no_fuzz},
                        Case{"checked without tests", checked_no_tests},
                        Case{"external without guards", external_no_guards},
                        Case{"verified plus external", only_external}}) {
    EXPECT_EQ(label(c.policy), "custom") << c.what;
  }
}

// Trust admission: `verified` always; the others need their switch.
struct TrustCase {
  std::string policy_name;
  AssurancePolicy policy;
  TrustLevel trust;
  bool admitted;
};

void PrintTo(const TrustCase& c, std::ostream* os) {
  *os << c.policy_name << "/" << to_string(c.trust);
}

class TrustAdmissionTest : public ::testing::TestWithParam<TrustCase> {};

TEST_P(TrustAdmissionTest, Admits) {
  const TrustCase& c = GetParam();
  EXPECT_EQ(admits_trust(c.policy, c.trust), c.admitted);
}

AssurancePolicy only_fuzzed() {
  AssurancePolicy p;
  p.allow_fuzzed = true;
  return p;
}
AssurancePolicy only_trusted_external() {
  AssurancePolicy p;
  p.allow_trusted_external = true;
  return p;
}

INSTANTIATE_TEST_SUITE_P(
    EveryPolicyAndLevel, TrustAdmissionTest,
    ::testing::Values(
        TrustCase{"verified", AssurancePolicy::verified(), TrustLevel::verified, true},
        TrustCase{"verified", AssurancePolicy::verified(), TrustLevel::checked, false},
        TrustCase{"verified", AssurancePolicy::verified(), TrustLevel::fuzzed, false},
        TrustCase{"verified", AssurancePolicy::verified(), TrustLevel::trusted_external, false},
        TrustCase{"checked", AssurancePolicy::checked(), TrustLevel::verified, true},
        TrustCase{"checked", AssurancePolicy::checked(), TrustLevel::checked, true},
        TrustCase{"checked", AssurancePolicy::checked(), TrustLevel::fuzzed, true},
        TrustCase{"checked", AssurancePolicy::checked(), TrustLevel::trusted_external, false},
        TrustCase{"external", AssurancePolicy::external(), TrustLevel::verified, true},
        TrustCase{"external", AssurancePolicy::external(), TrustLevel::checked, true},
        TrustCase{"external", AssurancePolicy::external(), TrustLevel::fuzzed, true},
        TrustCase{"external", AssurancePolicy::external(), TrustLevel::trusted_external, true},
        TrustCase{"only_fuzzed", only_fuzzed(), TrustLevel::verified, true},
        TrustCase{"only_fuzzed", only_fuzzed(), TrustLevel::checked, false},
        TrustCase{"only_fuzzed", only_fuzzed(), TrustLevel::fuzzed, true},
        TrustCase{"only_fuzzed", only_fuzzed(), TrustLevel::trusted_external, false},
        TrustCase{"only_external", only_trusted_external(), TrustLevel::verified, true},
        TrustCase{"only_external", only_trusted_external(), TrustLevel::checked, false},
        TrustCase{"only_external", only_trusted_external(), TrustLevel::fuzzed, false},
        TrustCase{"only_external", only_trusted_external(), TrustLevel::trusted_external, true}),
    [](const ::testing::TestParamInfo<TrustCase>& info) {
      return info.param.policy_name + "_" + fixtures::test_name(to_string(info.param.trust));
    });

// The evidence switches never change trust admission.
TEST(TrustAdmission, EvidenceSwitchesAreIrrelevant) {
  for (unsigned bits = 0; bits < 64; ++bits) {
    const AssurancePolicy p = policy_from_bits(bits);
    EXPECT_TRUE(admits_trust(p, TrustLevel::verified)) << bits;
    EXPECT_EQ(admits_trust(p, TrustLevel::checked), p.allow_checked) << bits;
    EXPECT_EQ(admits_trust(p, TrustLevel::fuzzed), p.allow_fuzzed) << bits;
    EXPECT_EQ(admits_trust(p, TrustLevel::trusted_external), p.allow_trusted_external) << bits;
  }
}

}  // namespace
}  // namespace nnplan::backend
