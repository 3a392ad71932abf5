// Report lines (SPEC §9): kernel line, detail lines, profile summary and boundary line as exact
// strings, and whole plan reports and failure explanations compared against golden files in
// tests/golden. Set NNPLAN_UPDATE_GOLDEN=1 to rewrite the golden files on purpose.
#include "nnplan/backend/report.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"
#include "nnplan/backend/builtin_modules.hpp"

namespace nnplan::backend {
namespace {

using fixtures::aligned_capsule;
using fixtures::registry_of;
using fixtures::shared_registry_of;

const KernelCapsule& builtin(std::string_view name) {
  for (const KernelCapsule& c : builtin_registry().capsules()) {
    if (c.name == name) return c;
  }
  static const KernelCapsule missing;
  ADD_FAILURE() << "no built-in capsule " << name;
  return missing;
}

struct KernelLineCase {
  std::string name;
  KernelCapsule capsule;
  std::string line;
};

void PrintTo(const KernelLineCase& c, std::ostream* os) {
  *os << c.name;
}

class KernelLineTest : public ::testing::TestWithParam<KernelLineCase> {};

TEST_P(KernelLineTest, Exact) {
  EXPECT_EQ(kernel_line(GetParam().capsule), GetParam().line);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, KernelLineTest,
    ::testing::Values(
        KernelLineCase{"reference_relu", builtin("reference.relu"),
                       "  relu: reference.relu provider=reference trust=checked vjp=torchlean-tape "
                       "numeric=[round=scalar-context,subnormal=implementation-defined,contract=n/"
                       "a,reduce=n/a]"},
        KernelLineCase{"reference_matmul", builtin("reference.matmul"),
                       "  matmul: reference.matmul provider=reference trust=checked "
                       "vjp=torchlean-tape numeric=[round=scalar-context,subnormal=implementation-"
                       "defined,contract=n/a,reduce=fixed-left]"},
        KernelLineCase{"reference_rand_uniform", builtin("reference.rand_uniform"),
                       "  rand_uniform: reference.rand_uniform provider=reference trust=checked "
                       "vjp=none numeric=[round=scalar-context,subnormal=implementation-defined,"
                       "contract=n/a,reduce=n/a]"},
        KernelLineCase{"native_cuda_matmul", builtin("native_cuda.matmul"),
                       "  matmul: native_cuda.matmul provider=native-cuda trust=checked "
                       "vjp=backend-vjp numeric=[round=nearest-even,subnormal=implementation-"
                       "defined,contract=implementation-defined,reduce=implementation-defined]"},
        KernelLineCase{"flash_attention", builtin("native_cuda.flash_attention"),
                       "  scaled_dot_product_attention: native_cuda.flash_attention "
                       "provider=native-cuda trust=checked vjp=backend-vjp numeric=[round=nearest-"
                       "even,subnormal=implementation-defined,contract=fused,reduce=implementation-"
                       "defined]"},
        KernelLineCase{"libtorch_sdpa", libtorch_module().capsules[0],
                       "  scaled_dot_product_attention: libtorch.sdpa_forward provider=libtorch "
                       "trust=trusted-external vjp=torchlean-tape numeric=[round=implementation-"
                       "defined,subnormal=implementation-defined,contract=implementation-defined,"
                       "reduce=implementation-defined]"},
        KernelLineCase{"custom_unspecified",
                       aligned_capsule("acme.relu", BackendOp::relu, Provider::external,
                                       Device::external, TrustLevel::fuzzed, VjpMode::backend_vjp),
                       "  relu: acme.relu provider=external trust=fuzzed vjp=backend-vjp "
                       "numeric=[round=unspecified,subnormal=unspecified,contract=unspecified,"
                       "reduce=unspecified]"}),
    [](const ::testing::TestParamInfo<KernelLineCase>& info) { return info.param.name; });

TEST(DetailLines, ReferenceRelu) {
  EXPECT_EQ(detail_lines(builtin("reference.relu")),
            "    shape: shape safety for relu; guarded at runtime by reference.relu.shape_guard\n"
            "    layout: canonical-tensor layout compatibility for relu; guarded at runtime by "
            "reference.relu.layout_guard\n"
            "    value: relu forward refines Spec.relu; covered by test suite "
            "reference.relu.forward_tests\n"
            "    vjp: relu torchlean-tape VJP refines Spec.relu; covered by test suite "
            "reference.relu.vjp_tests\n"
            "    numerical: round=scalar-context,subnormal=implementation-defined,contract=n/"
            "a,reduce=n/a\n");
}

TEST(DetailLines, LibtorchBoundary) {
  EXPECT_EQ(detail_lines(libtorch_module().capsules[0]),
            "    shape: shape safety for scaled_dot_product_attention; guarded at runtime by "
            "libtorch.sdpa_forward.shape_guard\n"
            "    layout: libtorch-cuda-view layout compatibility for scaled_dot_product_attention; "
            "guarded at runtime by libtorch.sdpa_forward.layout_guard\n"
            "    value: scaled_dot_product_attention forward refines "
            "Spec.scaled_dot_product_attention; trusted boundary: LibTorch "
            "scaled_dot_product_attention is external code, not audited\n"
            "    vjp: scaled_dot_product_attention torchlean-tape VJP refines "
            "Spec.scaled_dot_product_attention; covered by test suite "
            "libtorch.sdpa_forward.vjp_tests\n"
            "    numerical: round=implementation-defined,subnormal=implementation-defined,"
            "contract=implementation-defined,reduce=implementation-defined\n");
}

TEST(DetailLines, EveryEvidenceLabel) {
  KernelCapsule c = aligned_capsule("x.add", BackendOp::add, Provider::reference, Device::cpu,
                                    TrustLevel::verified, VjpMode::backend_vjp);
  c.shape.evidence = {EvidenceKind::theorem, "Add.shape_ok"};
  c.layout.evidence = {EvidenceKind::checker, "layout_checker"};
  c.value.evidence = {EvidenceKind::fuzz_oracle, "add_oracle"};
  c.vjp.evidence = {};
  c.layout.claim.layout = Layout::flat_row_major;
  EXPECT_EQ(detail_lines(c),
            "    shape: shape safety for add; proved by Add.shape_ok\n"
            "    layout: flat-row-major layout compatibility for add; accepted by checker "
            "layout_checker\n"
            "    value: add forward refines Spec.add; compared by fuzz oracle add_oracle\n"
            "    vjp: add backend-vjp VJP refines Spec.add; no evidence recorded\n"
            "    numerical: round=unspecified,subnormal=unspecified,contract=unspecified,"
            "reduce=unspecified\n");
}

TEST(ProfileSummary, MaintainedProfiles) {
  struct Case {
    MaintainedProfile which;
    std::string summary;
  };
  const Case cases[] = {
      {MaintainedProfile::checked_cpu,
       "profile=checked_cpu device=cpu assurance=checked vjp=torchlean-tape"},
      {MaintainedProfile::checked_linux_x86_64_cpu,
       "profile=checked_linux_x86_64_cpu device=cpu assurance=checked vjp=torchlean-tape"},
      {MaintainedProfile::checked_macos_aarch64_cpu,
       "profile=checked_macos_aarch64_cpu device=cpu assurance=checked vjp=torchlean-tape"},
      {MaintainedProfile::checked_windows_x86_64_cpu,
       "profile=checked_windows_x86_64_cpu device=cpu assurance=checked vjp=torchlean-tape"},
      {MaintainedProfile::checked_cuda,
       "profile=checked_cuda device=cuda assurance=checked vjp=torchlean-tape"},
      {MaintainedProfile::libtorch_forward_cuda,
       "profile=libtorch_forward_cuda device=cuda assurance=external vjp=torchlean-tape"},
  };
  for (const Case& c : cases)
    EXPECT_EQ(profile_summary(make_profile(c.which)), c.summary);
}

TEST(ProfileSummary, CustomPolicyAndOtherFields) {
  BackendProfile p = make_profile(MaintainedProfile::checked_cpu);
  p.name = "mine";
  p.config.device = Device::tpu;
  p.config.assurance.allow_fuzzed = false;
  p.config.vjp_mode = VjpMode::none;
  EXPECT_EQ(profile_summary(p), "profile=mine device=tpu assurance=custom vjp=none");
  p.config.assurance = AssurancePolicy::verified();
  p.config.vjp_mode = VjpMode::backend_vjp;
  EXPECT_EQ(profile_summary(p), "profile=mine device=tpu assurance=verified vjp=backend-vjp");
}

// Boundary line: none, or the distinct ops of trusted-external kernels in plan order.
TEST(BoundaryLine, Cases) {
  const auto registry = shared_registry_of({
      aligned_capsule("ext.relu", BackendOp::relu, Provider::libtorch, Device::cpu,
                      TrustLevel::trusted_external),
      aligned_capsule("ext.gelu", BackendOp::gelu, Provider::libtorch, Device::cpu,
                      TrustLevel::trusted_external),
      aligned_capsule("ref.add", BackendOp::add, Provider::reference, Device::cpu),
      aligned_capsule("fuzz.mul", BackendOp::mul, Provider::reference, Device::cpu,
                      TrustLevel::fuzzed),
  });
  const ExecutionConfig config{.assurance = AssurancePolicy::external()};
  struct Case {
    std::string name;
    std::vector<BackendOp> ops;
    std::string line;
  };
  const Case cases[] = {
      {"empty", {}, "trusted external boundary: none"},
      {"none", {BackendOp::add, BackendOp::mul}, "trusted external boundary: none"},
      {"one", {BackendOp::add, BackendOp::relu}, "trusted external boundary: relu"},
      {"repeated_once",
       {BackendOp::relu, BackendOp::add, BackendOp::relu},
       "trusted external boundary: relu"},
      {"plan_order",
       {BackendOp::gelu, BackendOp::add, BackendOp::relu, BackendOp::gelu},
       "trusted external boundary: gelu, relu"},
      {"other_order", {BackendOp::relu, BackendOp::gelu}, "trusted external boundary: relu, gelu"},
  };
  for (const Case& c : cases) {
    auto plan = plan_ops(config, registry, c.ops);
    ASSERT_TRUE(plan.has_value()) << c.name << ": " << render(plan.error());
    EXPECT_EQ(boundary_line(*plan), c.line) << c.name;
  }
}

// --- Golden files -------------------------------------------------------------------------

std::string golden_path(const std::string& file) {
  return std::string(NNPLAN_GOLDEN_DIR) + "/" + file;
}

bool updating_golden() {
  const char* update = std::getenv("NNPLAN_UPDATE_GOLDEN");
  return update != nullptr && std::string_view(update) == "1";
}

void expect_golden(const std::string& file, const std::string& actual) {
  const std::string path = golden_path(file);
  if (updating_golden()) {
    std::ofstream out(path, std::ios::binary);
    out << actual;
    ASSERT_TRUE(out.good()) << "cannot write " << path;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing golden file " << path
                         << " (run with NNPLAN_UPDATE_GOLDEN=1 to create it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "golden file " << path;
}

struct GoldenCase {
  std::string file;
  std::string profile;
  std::function<void(BackendProfile&)> adjust;
  std::vector<BackendOp> ops;
  bool expect_success;
};

void PrintTo(const GoldenCase& c, std::ostream* os) {
  *os << c.file;
}

class PlanReportGoldenTest : public ::testing::TestWithParam<GoldenCase> {};

// Accepted plans print the plan report; rejected ones the rendered explanation.
TEST_P(PlanReportGoldenTest, MatchesGoldenFile) {
  const GoldenCase& c = GetParam();
  BackendProfile profile = profile_by_name(c.profile).value();
  c.adjust(profile);
  auto plan = plan_ops(profile, c.ops);
  ASSERT_EQ(plan.has_value(), c.expect_success)
      << (plan ? std::string("planned") : render(plan.error()));
  const std::string text = plan ? plan_report(profile, *plan) : render(plan.error()) + "\n";
  expect_golden(c.file, text);
}

const auto kAsIs = [](BackendProfile&) {};

INSTANTIATE_TEST_SUITE_P(
    Reports, PlanReportGoldenTest,
    ::testing::Values(
        GoldenCase{"report_checked_cpu_mlp.txt",
                   "checked_cpu",
                   kAsIs,
                   {BackendOp::linear, BackendOp::relu, BackendOp::linear, BackendOp::log_softmax,
                    BackendOp::mse_loss},
                   true},
        GoldenCase{
            "report_checked_cpu_dropout.txt",
            "checked_cpu",
            kAsIs,
            {BackendOp::rand_uniform, BackendOp::bernoulli_mask, BackendOp::mul, BackendOp::scale},
            true},
        GoldenCase{"report_checked_cuda_transformer.txt",
                   "checked_cuda",
                   kAsIs,
                   {BackendOp::layer_norm, BackendOp::matmul,
                    BackendOp::scaled_dot_product_attention, BackendOp::gelu, BackendOp::matmul},
                   true},
        GoldenCase{"report_libtorch_forward_cuda_attention.txt",
                   "libtorch_forward_cuda",
                   kAsIs,
                   {BackendOp::matmul, BackendOp::scaled_dot_product_attention, BackendOp::softmax},
                   true},
        GoldenCase{"explain_checked_cpu_fft_fno.txt",
                   "checked_cpu",
                   kAsIs,
                   {BackendOp::relu, BackendOp::fft_fno},
                   false},
        GoldenCase{"explain_verified_cpu_attention.txt",
                   "checked_cpu",
                   [](BackendProfile& p) { p.config.assurance = AssurancePolicy::verified(); },
                   {BackendOp::scaled_dot_product_attention},
                   false},
        GoldenCase{"explain_checked_cuda_backend_vjp_attention.txt",
                   "checked_cuda",
                   [](BackendProfile& p) {
                     p.config.vjp_mode = VjpMode::backend_vjp;
                     p.config.preference = BackendPreference::only(Provider::torchlean);
                   },
                   {BackendOp::scaled_dot_product_attention, BackendOp::matmul},
                   false}),
    [](const ::testing::TestParamInfo<GoldenCase>& info) {
      return fixtures::test_name(info.param.file.substr(0, info.param.file.find('.')));
    });

// plan_report is the summary, the boundary line, then each kernel line and its details.
TEST(PlanReport, Structure) {
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  const BackendOp ops[] = {BackendOp::relu, BackendOp::add};
  auto plan = plan_ops(profile, ops);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan_report(profile, *plan),
            profile_summary(profile) + "\n" + boundary_line(*plan) + "\n" +
                kernel_line(plan->capsule(0)) + "\n" + detail_lines(plan->capsule(0)) +
                kernel_line(plan->capsule(1)) + "\n" + detail_lines(plan->capsule(1)));
  auto empty = plan_ops(profile, {});
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(plan_report(profile, *empty),
            "profile=checked_cpu device=cpu assurance=checked vjp=torchlean-tape\n"
            "trusted external boundary: none\n");
}

}  // namespace
}  // namespace nnplan::backend

namespace nnplan::backend {
namespace {

// group_line writes node ids and group indices in decimal: every digit count and the largest
// node id come out as std::to_string writes them.
TEST(GroupLine, NumbersAreWrittenInFull) {
  const auto& registry = shared_builtin_registry();
  const CapsuleId relu = registry->implementing(BackendOp::relu).front();
  const std::vector<ir::NodeId> ids = {0, 7, 10, 99, 100, 1009, 65536, 4294967295u};
  GraphLoweringPlan plan{.registry = registry, .nodes = {}, .groups = {}};
  std::string want_ids;
  std::string want_kinds;
  for (const ir::NodeId id : ids) {
    plan.nodes.push_back({id, ir::OpKind::relu, BackendOp::relu, relu});
    want_ids += (want_ids.empty() ? "" : ",") + std::to_string(id);
    want_kinds += want_kinds.empty() ? "relu" : ",relu";
  }
  const auto count = static_cast<std::uint32_t>(ids.size());
  // Group i covers node i alone, and the last group covers all of them.
  for (std::uint32_t i = 0; i < count; ++i) {
    plan.groups.push_back({.first = i,
                           .count = 1,
                           .op = BackendOp::relu,
                           .grouping = GroupingKind::singleton,
                           .capsule = relu});
  }
  plan.groups.push_back({.first = 0,
                         .count = count,
                         .op = BackendOp::relu,
                         .grouping = GroupingKind::same_capsule_run,
                         .capsule = relu});
  const std::string suffix = " op=relu capsule=" + registry->capsule(relu).name;
  for (std::uint32_t i = 0; i < count; ++i) {
    EXPECT_EQ(group_line(plan, i), "  group " + std::to_string(i) + ": nodes " +
                                       std::to_string(ids[i]) + " [relu]" + suffix +
                                       " grouping=singleton");
  }
  EXPECT_EQ(group_line(plan, count), "  group " + std::to_string(count) + ": nodes " + want_ids +
                                         " [" + want_kinds + "]" + suffix +
                                         " grouping=same-capsule-run");
}

}  // namespace
}  // namespace nnplan::backend
