// The conformance table run as GoogleTest (conformance_table.cpp, oracle.hpp): each row's seeded
// cases, planned under fast_cpu (which must run the row's capsule) and under checked_cpu (the
// reference provider), agree within the row's tolerance; a row whose provider this build lacks is
// skipped. The table and the registry agree (every fast capsule's fuzz-oracle evidence is one
// row), and evidence resolution lists exactly the table's rows. CTest runs this suite as its own
// entry, `conformance` (tests/CMakeLists.txt); nnplan_oracles runs the same rows for any number
// of cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "nnplan/runtime/evidence.hpp"
#include "oracle.hpp"

namespace nnplan::oracles {
namespace {

// Seeds 1..kCases per row: fixed, so a failure reproduces with the command its report prints.
constexpr std::uint64_t kCases = 64;
constexpr std::uint64_t kSpecialCases = 32;

std::vector<const Oracle*> rows() {
  std::vector<const Oracle*> out;
  for (const Oracle& o : registered_oracles())
    out.push_back(&o);
  return out;
}

class Conformance : public ::testing::TestWithParam<const Oracle*> {};

TEST_P(Conformance, AgreesWithTheReference) {
  const Oracle& row = *GetParam();
  const RunSetup setup;
  const auto capsules = setup.under_test.registry->capsules();
  const auto capsule = std::ranges::find(capsules, row.capsule, &backend::KernelCapsule::name);
  ASSERT_NE(capsule, capsules.end()) << row.capsule;
  if (!provider_built(*setup.handlers, capsule->provider)) {
    GTEST_SKIP() << "this build has no " << to_string(capsule->provider) << " handlers";
  }
  double worst = 0;
  for (std::uint64_t seed = 1; seed <= kCases; ++seed) {
    const CaseResult result = run_case(row, seed, setup);
    EXPECT_TRUE(result.passed) << result.report;
    worst = std::max(worst, result.share);
  }
  RecordProperty("worst_share", std::to_string(worst));
}

// The same rows with about one input element in sixteen made NaN, +inf, -inf or -0: the outputs
// agree as the row's special-value claim says (oracle.hpp's SpecialValues), and the capsule's
// value summary makes the same claim.
TEST_P(Conformance, SpecialValuesAsClaimed) {
  const Oracle& row = *GetParam();
  RunSetup setup;
  setup.special_values = true;
  const auto capsules = setup.under_test.registry->capsules();
  const auto capsule = std::ranges::find(capsules, row.capsule, &backend::KernelCapsule::name);
  ASSERT_NE(capsule, capsules.end()) << row.capsule;
  EXPECT_EQ(backend::special_value_caveat(capsule->value).empty(),
            row.special == SpecialValues::as_reference)
      << capsule->value.summary;
  if (!provider_built(*setup.handlers, capsule->provider)) {
    GTEST_SKIP() << "this build has no " << to_string(capsule->provider) << " handlers";
  }
  for (std::uint64_t seed = 1; seed <= kSpecialCases; ++seed) {
    const CaseResult result = run_case(row, seed, setup);
    EXPECT_TRUE(result.passed) << result.report;
  }
}

INSTANTIATE_TEST_SUITE_P(Rows, Conformance, ::testing::ValuesIn(rows()),
                         [](const ::testing::TestParamInfo<const Oracle*>& info) {
                           std::string name(info.param->capsule);
                           std::ranges::replace(name, '.', '_');
                           return name;
                         });

TEST(ConformanceTable, EveryFastCapsuleCitesOneRow) {
  EXPECT_EQ(registration_problems(registered_oracles(), RunSetup{}.under_test),
            std::vector<std::string>{});
}

TEST(ConformanceTable, EveryRowStatesItsReason) {
  for (const Oracle& row : registered_oracles()) {
    EXPECT_FALSE(row.reason.empty()) << row.capsule;
    EXPECT_FALSE(row.covers.empty()) << row.capsule;
    EXPECT_NE(row.build, nullptr) << row.capsule;
  }
}

TEST(ConformanceTable, EvidenceResolutionListsExactlyTheRows) {
  std::vector<std::string> listed(runtime::this_build_sources().oracles.begin(),
                                  runtime::this_build_sources().oracles.end());
  std::vector<std::string> names;
  for (const Oracle& row : registered_oracles())
    names.push_back(row.name());
  std::ranges::sort(listed);
  std::ranges::sort(names);
  EXPECT_EQ(listed, names);
}

}  // namespace
}  // namespace nnplan::oracles
