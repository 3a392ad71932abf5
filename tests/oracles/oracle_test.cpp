// The oracles can fail (oracle.hpp): the comparison's tolerance terms and special values; a
// planted wrong result (one element 1000 ulp off) is reported with its seed, shapes, worst element,
// both values and the command that reproduces it; a plan that does not run the capsule under test
// (another provider's capsule, or no fused group) fails before anything runs; a wrongly drawn
// graph fails as an oracle bug; registration problems are named. The cases run with test oracles
// over reference capsules, so they need no optional provider.
#include "oracle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "draws.hpp"

namespace nnplan::oracles {
namespace {

using backend::BackendPreference;
using backend::MaintainedProfile;
using backend::Provider;

runtime::Tensor tensor(std::vector<ir::Dim> dims, std::vector<float> values) {
  return {.shape = ir::Shape{std::move(dims)}, .elements = std::move(values)};
}

// `v` moved `ulps` representable floats up (towards +inf for v >= 0).
float ulps_up(float v, std::int32_t ulps) {
  return std::bit_cast<float>(std::bit_cast<std::int32_t>(v) + ulps);
}

struct CompareCase {
  std::string label;
  std::vector<float> got;
  std::vector<float> want;
  Tolerance tolerance;
  bool passes = false;
  std::size_t worst = 0;
};

TEST(OracleCompare, TolerancesAndSpecialValues) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::vector<CompareCase> cases = {
      {"equal", {1, -2, 0}, {1, -2, 0}, {}, true, 0},
      {"one ulp, exact tolerance", {1, ulps_up(-2, 1), 0}, {1, -2, 0}, {}, false, 1},
      {"one ulp within rel", {1, ulps_up(-2, 1), 0}, {1, -2, 0}, {.rel = 1e-6}, true, 1},
      {"abs admits near zero", {1, -2, 1e-7F}, {1, -2, 0}, {.abs = 1e-6}, true, 2},
      {"rel does not admit near zero", {1, -2, 1e-7F}, {1, -2, 0}, {.rel = 1e-3}, false, 2},
      {"norm scales with max |want|", {100, -2, 5e-4F}, {100, -2, 0}, {.norm = 1e-5}, true, 2},
      {"norm, too far", {100, -2, 2e-3F}, {100, -2, 0}, {.norm = 1e-5}, false, 2},
      {"NaN matches NaN", {kNaN, 1, 2}, {kNaN, 1, 2}, {}, true, 0},
      {"NaN where a number is wanted", {1, kNaN, 2}, {1, 1, 2}, {.abs = 1}, false, 1},
      {"infinity matches itself", {1, -kInf, 2}, {1, -kInf, 2}, {}, true, 0},
      {"wrong infinity", {1, kInf, 2}, {1, -kInf, 2}, {.abs = 1}, false, 1},
      {"finite where infinity is wanted", {1, 3e38F, 2}, {1, kInf, 2}, {.rel = 1}, false, 1},
  };
  for (const CompareCase& c : cases) {
    const std::vector<runtime::Tensor> got{tensor({3}, c.got)};
    const std::vector<runtime::Tensor> want{tensor({3}, c.want)};
    const Comparison cmp = compare(got, want, c.tolerance);
    EXPECT_EQ(cmp.passed, c.passes) << c.label;
    EXPECT_EQ(cmp.element, c.worst) << c.label;
    EXPECT_TRUE(cmp.problem.empty()) << c.label;
  }
}

TEST(OracleCompare, ShapeAndCountMismatches) {
  const std::vector<runtime::Tensor> one{tensor({2}, {1, 2})};
  const std::vector<runtime::Tensor> other{tensor({2, 1}, {1, 2})};
  const Comparison shape = compare(one, other, {});
  EXPECT_FALSE(shape.passed);
  EXPECT_EQ(shape.problem, "output 0 has shape [2], the reference's is [2,1]");
  const Comparison count = compare(one, {}, {});
  EXPECT_FALSE(count.passed);
  EXPECT_EQ(count.problem, "1 outputs, the reference has 0");
}

void relu_case(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::relu, Values{.lo = 0.5F, .hi = 4.0F, .zeros = 0});
}

void conv_relu_case(CaseBuilder& b) {
  const ir::NodeId conv = draw_conv(b, false);
  b.target(ir::OpKind::relu, {conv});
}

// A test oracle over the reference provider: both sides run under checked_cpu.
const Oracle kReferenceRelu{
    .capsule = "reference.relu", .tolerance = {.rel = 1e-6}, .build = relu_case};

RunSetup reference_setup() {
  RunSetup setup;
  setup.under_test = backend::make_profile(MaintainedProfile::checked_cpu);
  return setup;
}

TEST(OracleRun, AgreeingCasePasses) {
  const CaseResult result = run_case(kReferenceRelu, 42, reference_setup());
  EXPECT_TRUE(result.passed) << result.report;
  EXPECT_EQ(result.share, 0);
}

TEST(OracleRun, PlantedWrongResultIsReportedWithItsSeed) {
  RunSetup setup = reference_setup();
  std::size_t planted = 0;
  float wrong = 0;
  float right = 0;
  setup.tamper = [&](std::vector<runtime::Tensor>& outputs) {
    std::vector<float>& v = outputs.at(0).floats();
    planted = v.size() / 2;
    right = v[planted];
    v[planted] = wrong = ulps_up(right, 1000);
  };
  const CaseResult result = run_case(kReferenceRelu, 42, setup);
  ASSERT_FALSE(result.passed);
  EXPECT_GT(result.share, 1);
  const std::string& r = result.report;
  EXPECT_TRUE(r.starts_with("reference.relu.oracle case seed 42: FAILED: outside the tolerance\n"))
      << r;
  EXPECT_NE(r.find("  case: x0 ["), std::string::npos) << r;
  EXPECT_NE(r.find("  tolerance: abs 0, rel 1e-06, norm 0 (of max |reference|)\n"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("  worst: output 0 element " + std::to_string(planted) + " "), std::string::npos)
      << r;
  const auto digits = [](float v) {
    std::ostringstream out;
    out.precision(9);
    out << v;
    return out.str();
  };
  EXPECT_NE(r.find("checked_cpu " + digits(wrong) + ", checked_cpu " + digits(right)),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("  reproduce: nnplan_oracles reference.relu.oracle --seed 42 --cases 1\n"),
            std::string::npos)
      << r;
}

TEST(OracleRun, OneUlpWithinTheToleranceStillPasses) {
  RunSetup setup = reference_setup();
  setup.tamper = [](std::vector<runtime::Tensor>& outputs) {
    for (float& v : outputs.at(0).floats())
      v = ulps_up(v, 1);
  };
  const CaseResult result = run_case(kReferenceRelu, 7, setup);
  EXPECT_TRUE(result.passed) << result.report;
  EXPECT_GT(result.share, 0);
}

TEST(OracleRun, PlanThatRunsAnotherCapsuleFails) {
  // fast_cpu told to prefer the reference provider plans reference.relu, not onednn.relu.
  auto profile =
      backend::apply_overrides(backend::make_profile(MaintainedProfile::fast_cpu),
                               {.preference = BackendPreference::prefer(Provider::reference)});
  ASSERT_TRUE(profile.has_value());
  RunSetup setup;
  setup.under_test = *profile;
  const Oracle onednn_relu{.capsule = "onednn.relu", .tolerance = {}, .build = relu_case};
  const CaseResult result = run_case(onednn_relu, 3, setup);
  ASSERT_FALSE(result.passed);
  EXPECT_NE(result.report.find("onednn.relu.oracle case seed 3: FAILED: the plan under "
                               "fast_cpu+overrides runs node 1 (relu) with capsule "
                               "reference.relu, not onednn.relu; the oracle would compare other "
                               "code\n"),
            std::string::npos)
      << result.report;
  EXPECT_NE(result.report.find("--seed 3 --cases 1"), std::string::npos) << result.report;
}

TEST(OracleRun, FusedOracleFailsWithoutItsFusedGroup) {
  auto profile = backend::apply_overrides(backend::make_profile(MaintainedProfile::fast_cpu),
                                          {.lowering = backend::LoweringMode::coalesced});
  ASSERT_TRUE(profile.has_value());
  RunSetup setup;
  setup.under_test = *profile;
  const Oracle fused{.capsule = "onednn.conv_relu", .tolerance = {}, .build = conv_relu_case};
  const CaseResult result = run_case(fused, 5, setup);
  ASSERT_FALSE(result.passed);
  EXPECT_NE(result.report.find(": FAILED: the plan under fast_cpu+overrides has 0 fused group(s) "
                               "naming onednn.conv_relu, wanted one over nodes [1,2]; its groups: "
                               "group [1] (singleton, onednn.conv), group [2] (singleton, "
                               "onednn.relu); the oracle would compare other code\n"),
            std::string::npos)
      << result.report;
}

// The choice check alone, on plans (no handler is needed to plan).
TEST(OracleChoice, FastCpuFusesTheChainAndRunsSingleOpsAlone) {
  Draw draw(11);
  CaseBuilder b(draw);
  conv_relu_case(b);
  auto c = std::move(b).finish();
  ASSERT_TRUE(c.has_value()) << c.error().message;
  auto model =
      backend::plan_model(backend::make_profile(MaintainedProfile::fast_cpu), c->graph, c->weights);
  ASSERT_TRUE(model.has_value()) << model.error().message;
  EXPECT_TRUE(check_choice(*model, "onednn.conv_relu", c->targets).has_value());
  // The conv alone is not what this plan runs: it sits inside the fused group.
  auto alone = check_choice(*model, "onednn.conv", std::vector<ir::NodeId>{1});
  ASSERT_FALSE(alone.has_value());
  EXPECT_EQ(alone.error().message,
            "the plan under fast_cpu runs node 1 (conv) inside fused group [1,2] (fused, "
            "onednn.conv_relu), not alone under onednn.conv; the oracle would compare other code");
  auto unknown = check_choice(*model, "onednn.nothing", c->targets);
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().message,
            "the plan under fast_cpu has no capsule onednn.nothing in its registry; the oracle "
            "would compare other code");
}

void invalid_case(CaseBuilder& b) {
  const ir::NodeId x = b.input(ir::Shape{{2, 3}}, {});
  const ir::NodeId y = b.input(ir::Shape{{3, 2}}, {});
  b.target(ir::OpKind::add, {x, y});
}

TEST(OracleRun, InvalidDrawIsAnOracleBug) {
  const Oracle broken{.capsule = "reference.add", .tolerance = {}, .build = invalid_case};
  const CaseResult result = run_case(broken, 1, reference_setup());
  ASSERT_FALSE(result.passed);
  EXPECT_TRUE(result.report.starts_with(
      "reference.add.oracle case seed 1: FAILED: the oracle drew an invalid graph: node 2 (add): "
      "parent shapes differ: [2,3] and [3,2] (broadcasting must be explicit)"))
      << result.report;
}

TEST(OracleRegistration, ProblemsAreNamed) {
  const backend::BackendProfile fast = backend::make_profile(MaintainedProfile::fast_cpu);
  std::vector<Oracle> oracles;
  for (const backend::KernelCapsule& c : fast.registry->capsules()) {
    if (c.provider != Provider::onednn) continue;
    oracles.push_back({.capsule = c.name, .build = relu_case});
  }
  EXPECT_EQ(registration_problems(oracles, fast), std::vector<std::string>{});

  // The first row dropped; a second row for onednn.conv; rows for a capsule the profile lacks and
  // for one that cites other evidence.
  std::vector<Oracle> planted(oracles.begin() + 1, oracles.end());
  planted.push_back({.capsule = "onednn.conv", .build = relu_case});
  planted.push_back({.capsule = "onednn.nothing", .build = relu_case});
  planted.push_back({.capsule = "reference.relu", .build = relu_case});
  std::vector<std::string> problems = registration_problems(planted, fast);
  std::ranges::sort(problems);
  const std::string first = oracles.front().name();
  std::vector<std::string> want{
      "capsule onednn.conv has more than one row",
      "capsule reference.relu does not cite reference.relu.oracle as its value evidence",
      "row onednn.nothing.oracle tests capsule onednn.nothing, which profile fast_cpu does not "
      "have",
      "capsule " + std::string(oracles.front().capsule) + " cites fuzz oracle " + first +
          ", which no row of the conformance table is",
  };
  std::ranges::sort(want);
  EXPECT_EQ(problems, want);
}

TEST(OracleRegistration, ARowIsNamedAfterItsCapsule) {
  const Oracle row{.capsule = "onednn.conv_add_relu"};
  EXPECT_EQ(row.name(), "onednn.conv_add_relu.oracle");
  ASSERT_NE(find_oracle("onednn.conv.oracle"), nullptr);
  EXPECT_EQ(find_oracle("onednn.conv.oracle")->capsule, "onednn.conv");
  EXPECT_EQ(find_oracle("onednn.conv"), nullptr);
}

}  // namespace
}  // namespace nnplan::oracles
