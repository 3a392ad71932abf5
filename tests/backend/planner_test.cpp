// The planner (SPEC §2 "Choosing", §5): preference handling, every admissibility part seen
// through plan_op, availability filtering, the failure explanation (first line, candidates with
// every reason, hidden capsules, the "no capsule implements" note), plan_ops positions,
// ExecutionPlan accessors, OpDecisions, and the property "choosing == first eligible capsule of
// order_by_preference" on seeded random registries.
#include "nnplan/backend/planner.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"
#include "nnplan/backend/builtin_modules.hpp"
#include "nnplan/backend/target.hpp"

namespace nnplan::backend {
namespace {

using fixtures::aligned_capsule;
using fixtures::candidate_names;
using fixtures::codes;
using fixtures::registry_of;
using fixtures::shared_registry_of;
using fixtures::value_claim_in_shape_field;

using Op = BackendOp;
using P = Provider;
using D = Device;

ExecutionConfig config_with(std::function<void(ExecutionConfig&)> mutate) {
  ExecutionConfig config;
  mutate(config);
  return config;
}

// --- Table: one registry per case, a config, an op, the expected choice or the expected
// reasons of each candidate when nothing is admissible. -------------------------------------

struct ChoiceCase {
  std::string name;
  std::vector<KernelCapsule> capsules;
  ExecutionConfig config;
  Op op = Op::relu;
  std::optional<Availability> availability;
  std::optional<std::string> expected;                      // chosen capsule
  std::vector<std::vector<std::string>> candidate_reasons;  // when expected is nullopt
};

void PrintTo(const ChoiceCase& c, std::ostream* os) {
  *os << c.name;
}

class PlanOpChoiceTest : public ::testing::TestWithParam<ChoiceCase> {};

TEST_P(PlanOpChoiceTest, Chooses) {
  const ChoiceCase& c = GetParam();
  const Registry registry = registry_of(c.capsules);
  const Availability* availability = c.availability ? &*c.availability : nullptr;
  auto planned = plan_op(c.config, registry, c.op, availability);
  if (c.expected) {
    ASSERT_TRUE(planned.has_value()) << render(planned.error());
    EXPECT_EQ(registry.capsule(planned->capsule).name, *c.expected);
    EXPECT_EQ(planned->op, c.op);
    return;
  }
  ASSERT_FALSE(planned.has_value()) << "chose " << registry.capsule(planned->capsule).name;
  const Error& e = planned.error();
  EXPECT_EQ(e.kind, ErrorKind::rejected_by_policy);
  ASSERT_EQ(e.candidates.size(), c.candidate_reasons.size());
  for (std::size_t i = 0; i < e.candidates.size(); ++i) {
    EXPECT_EQ(codes(e.candidates[i].reasons), c.candidate_reasons[i]) << e.candidates[i].capsule;
  }
}

KernelCapsule cpu(std::string name, P provider = P::reference, Op op = Op::relu) {
  return aligned_capsule(std::move(name), op, provider, D::cpu);
}

KernelCapsule with_vjp(KernelCapsule c, VjpMode mode) {
  c.vjp_mode = mode;
  c.vjp.claim.mode = mode;
  return c;
}

KernelCapsule with_trust(KernelCapsule c, TrustLevel trust) {
  c.trust_level = trust;
  return c;
}

KernelCapsule forward_unsupported(KernelCapsule c) {
  c.supports_forward = false;
  return c;
}

KernelCapsule on(KernelCapsule c, D device) {
  c.device = device;
  return c;
}

const ExecutionConfig kDefault{};

ExecutionConfig prefer(P p) {
  return config_with([p](ExecutionConfig& g) { g.preference = BackendPreference::prefer(p); });
}
ExecutionConfig only(P p) {
  return config_with([p](ExecutionConfig& g) { g.preference = BackendPreference::only(p); });
}
ExecutionConfig vjp(VjpMode m) {
  return config_with([m](ExecutionConfig& g) { g.vjp_mode = m; });
}
ExecutionConfig policy(AssurancePolicy a) {
  return config_with([a](ExecutionConfig& g) { g.assurance = a; });
}

INSTANTIATE_TEST_SUITE_P(
    Preference, PlanOpChoiceTest,
    ::testing::Values(
        ChoiceCase{"auto_takes_first",
                   {cpu("ref"), cpu("tl", P::torchlean), cpu("ext", P::external)},
                   kDefault,
                   Op::relu,
                   std::nullopt,
                   "ref",
                   {}},
        ChoiceCase{"prefer_last_in_catalog",
                   {cpu("ref"), cpu("tl", P::torchlean), cpu("ext", P::external)},
                   prefer(P::external),
                   Op::relu,
                   std::nullopt,
                   "ext",
                   {}},
        ChoiceCase{"prefer_middle",
                   {cpu("ref"), cpu("tl", P::torchlean), cpu("ext", P::external)},
                   prefer(P::torchlean),
                   Op::relu,
                   std::nullopt,
                   "tl",
                   {}},
        ChoiceCase{"prefer_first_of_several_preferred",
                   {cpu("ref"), cpu("ext1", P::external), cpu("ext2", P::external)},
                   prefer(P::external),
                   Op::relu,
                   std::nullopt,
                   "ext1",
                   {}},
        ChoiceCase{"prefer_skips_ineligible_preferred",
                   {cpu("ref"), on(cpu("ext1", P::external), D::cuda), cpu("ext2", P::external)},
                   prefer(P::external),
                   Op::relu,
                   std::nullopt,
                   "ext2",
                   {}},
        ChoiceCase{"prefer_falls_back_when_preferred_ineligible",
                   {cpu("ref"), cpu("tl", P::torchlean), on(cpu("ext", P::external), D::cuda)},
                   prefer(P::external),
                   Op::relu,
                   std::nullopt,
                   "ref",
                   {}},
        ChoiceCase{"prefer_falls_back_to_first_eligible",
                   {forward_unsupported(cpu("ref")), cpu("tl", P::torchlean),
                    with_trust(cpu("ext", P::external), TrustLevel::trusted_external)},
                   prefer(P::external),
                   Op::relu,
                   std::nullopt,
                   "tl",
                   {}},
        ChoiceCase{"prefer_absent_provider",
                   {cpu("ref"), cpu("tl", P::torchlean)},
                   prefer(P::libtorch),
                   Op::relu,
                   std::nullopt,
                   "ref",
                   {}},
        ChoiceCase{"prefer_fails_when_nothing_eligible",
                   {on(cpu("ref"), D::cuda), on(cpu("ext", P::external), D::cuda)},
                   prefer(P::external),
                   Op::relu,
                   std::nullopt,
                   std::nullopt,
                   {{"wrong-device"}, {"wrong-device"}}},
        ChoiceCase{"only_excludes_others",
                   {cpu("ref"), cpu("tl", P::torchlean), cpu("ext", P::external)},
                   only(P::external),
                   Op::relu,
                   std::nullopt,
                   "ext",
                   {}},
        ChoiceCase{"only_without_eligible_fails",
                   {cpu("ref"), cpu("tl", P::torchlean), on(cpu("ext", P::external), D::cuda)},
                   only(P::external),
                   Op::relu,
                   std::nullopt,
                   std::nullopt,
                   {{"provider-excluded"}, {"provider-excluded"}, {"wrong-device"}}},
        ChoiceCase{"only_absent_provider",
                   {cpu("ref")},
                   only(P::libtorch),
                   Op::relu,
                   std::nullopt,
                   std::nullopt,
                   {{"provider-excluded"}}}),
    [](const ::testing::TestParamInfo<ChoiceCase>& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Vjp, PlanOpChoiceTest,
    ::testing::Values(
        // Inference mode admits capsules with or without a VJP.
        ChoiceCase{"inference_admits_backend_vjp",
                   {with_vjp(cpu("bv"), VjpMode::backend_vjp)},
                   vjp(VjpMode::none),
                   Op::relu,
                   std::nullopt,
                   "bv",
                   {}},
        ChoiceCase{"inference_admits_tape",
                   {with_vjp(cpu("tape"), VjpMode::torchlean_tape)},
                   vjp(VjpMode::none),
                   Op::relu,
                   std::nullopt,
                   "tape",
                   {}},
        ChoiceCase{"inference_admits_forward_only",
                   {with_vjp(cpu("fwd"), VjpMode::none)},
                   vjp(VjpMode::none),
                   Op::relu,
                   std::nullopt,
                   "fwd",
                   {}},
        ChoiceCase{"inference_takes_first_regardless_of_vjp",
                   {with_vjp(cpu("bv"), VjpMode::backend_vjp),
                    with_vjp(cpu("fwd", P::torchlean), VjpMode::none)},
                   vjp(VjpMode::none),
                   Op::relu,
                   std::nullopt,
                   "bv",
                   {}},
        // A forward-only capsule is rejected for a differentiable op under torchlean-tape.
        ChoiceCase{"tape_rejects_forward_only",
                   {with_vjp(cpu("fwd"), VjpMode::none)},
                   kDefault,
                   Op::relu,
                   std::nullopt,
                   std::nullopt,
                   {{"vjp-incompatible"}}},
        ChoiceCase{"tape_skips_forward_only",
                   {with_vjp(cpu("fwd"), VjpMode::none),
                    with_vjp(cpu("bv", P::torchlean), VjpMode::backend_vjp)},
                   kDefault,
                   Op::relu,
                   std::nullopt,
                   "bv",
                   {}},
        ChoiceCase{"tape_admits_forward_only_random_source",
                   {with_vjp(cpu("rand", P::reference, Op::rand_uniform), VjpMode::none)},
                   kDefault,
                   Op::rand_uniform,
                   std::nullopt,
                   "rand",
                   {}},
        // backend-vjp rejects a torchlean-tape capsule.
        ChoiceCase{"backend_rejects_tape",
                   {with_vjp(cpu("tape"), VjpMode::torchlean_tape)},
                   vjp(VjpMode::backend_vjp),
                   Op::relu,
                   std::nullopt,
                   std::nullopt,
                   {{"vjp-incompatible"}}},
        ChoiceCase{"backend_skips_tape",
                   {with_vjp(cpu("tape"), VjpMode::torchlean_tape),
                    with_vjp(cpu("fwd", P::torchlean), VjpMode::none),
                    with_vjp(cpu("bv", P::external), VjpMode::backend_vjp)},
                   vjp(VjpMode::backend_vjp),
                   Op::relu,
                   std::nullopt,
                   "bv",
                   {}},
        ChoiceCase{"backend_admits_forward_only_random_source",
                   {with_vjp(cpu("mask", P::reference, Op::bernoulli_mask), VjpMode::none)},
                   vjp(VjpMode::backend_vjp),
                   Op::bernoulli_mask,
                   std::nullopt,
                   "mask",
                   {}}),
    [](const ::testing::TestParamInfo<ChoiceCase>& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    WellFormednessAndTrust, PlanOpChoiceTest,
    ::testing::Values(
        ChoiceCase{"forward_unsupported_skipped",
                   {forward_unsupported(cpu("nofwd")), cpu("ok", P::torchlean)},
                   kDefault,
                   Op::relu,
                   std::nullopt,
                   "ok",
                   {}},
        ChoiceCase{"forward_unsupported_even_when_preferred",
                   {cpu("ok"), forward_unsupported(cpu("nofwd", P::external))},
                   prefer(P::external),
                   Op::relu,
                   std::nullopt,
                   "ok",
                   {}},
        ChoiceCase{"forward_unsupported_never_chosen",
                   {forward_unsupported(cpu("nofwd"))},
                   vjp(VjpMode::none),
                   Op::relu,
                   std::nullopt,
                   std::nullopt,
                   {{"forward-unsupported"}}},
        ChoiceCase{"misaligned_skipped",
                   {value_claim_in_shape_field(cpu("bad")), cpu("ok", P::torchlean)},
                   kDefault,
                   Op::relu,
                   std::nullopt,
                   "ok",
                   {}},
        ChoiceCase{"verified_policy_rejects_checked",
                   {cpu("checked")},
                   policy(AssurancePolicy::verified()),
                   Op::relu,
                   std::nullopt,
                   std::nullopt,
                   {{"trust-not-admitted"}}},
        ChoiceCase{"verified_policy_admits_verified",
                   {cpu("checked"), with_trust(cpu("proved", P::torchlean), TrustLevel::verified)},
                   policy(AssurancePolicy::verified()),
                   Op::relu,
                   std::nullopt,
                   "proved",
                   {}},
        ChoiceCase{"checked_policy_takes_first_checked",
                   {cpu("checked"), with_trust(cpu("proved", P::torchlean), TrustLevel::verified)},
                   kDefault,
                   Op::relu,
                   std::nullopt,
                   "checked",
                   {}},
        ChoiceCase{"checked_policy_rejects_trusted_external",
                   {with_trust(cpu("ext", P::libtorch), TrustLevel::trusted_external)},
                   kDefault,
                   Op::relu,
                   std::nullopt,
                   std::nullopt,
                   {{"trust-not-admitted"}}},
        ChoiceCase{"external_policy_admits_trusted_external",
                   {with_trust(cpu("ext", P::libtorch), TrustLevel::trusted_external)},
                   policy(AssurancePolicy::external()),
                   Op::relu,
                   std::nullopt,
                   "ext",
                   {}},
        ChoiceCase{"wrong_device_skipped",
                   {on(cpu("gpu"), D::cuda), cpu("host", P::torchlean)},
                   kDefault,
                   Op::relu,
                   std::nullopt,
                   "host",
                   {}},
        ChoiceCase{"other_ops_ignored",
                   {cpu("gelu", P::reference, Op::gelu), cpu("relu", P::torchlean)},
                   kDefault,
                   Op::relu,
                   std::nullopt,
                   "relu",
                   {}}),
    [](const ::testing::TestParamInfo<ChoiceCase>& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    AvailabilityFilter, PlanOpChoiceTest,
    ::testing::Values(
        // Without availability the first capsule wins; with it, its absent provider hides it.
        ChoiceCase{"no_availability_filter",
                   {cpu("ext", P::external), cpu("ref")},
                   kDefault,
                   Op::relu,
                   std::nullopt,
                   "ext",
                   {}},
        ChoiceCase{"absent_provider_hidden",
                   {cpu("ext", P::external), cpu("ref")},
                   kDefault,
                   Op::relu,
                   Availability::cpu(),
                   "ref",
                   {}},
        ChoiceCase{"absent_provider_only_candidate",
                   {cpu("ext", P::external)},
                   kDefault,
                   Op::relu,
                   Availability::cpu(),
                   std::nullopt,
                   {{"unavailable-provider"}}},
        ChoiceCase{"absent_provider_hidden_even_when_preferred",
                   {cpu("ref"), cpu("ext", P::external)},
                   prefer(P::external),
                   Op::relu,
                   Availability::cpu(),
                   "ref",
                   {}},
        ChoiceCase{"absent_device_hidden",
                   {on(cpu("gpu", P::native_cuda), D::cuda)},
                   config_with([](ExecutionConfig& g) { g.device = D::cuda; }),
                   Op::relu,
                   Availability::cpu(),
                   std::nullopt,
                   {{"unavailable-device", "unavailable-provider"}}},
        ChoiceCase{"cuda_available",
                   {on(cpu("gpu", P::native_cuda), D::cuda)},
                   config_with([](ExecutionConfig& g) { g.device = D::cuda; }),
                   Op::relu,
                   Availability::cuda_native(),
                   "gpu",
                   {}}),
    [](const ::testing::TestParamInfo<ChoiceCase>& info) { return info.param.name; });

// A misaligned capsule is rejected under every policy, even one that admits everything.
class MisalignedUnderEveryPolicyTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(MisalignedUnderEveryPolicyTest, Rejected) {
  const unsigned bits = GetParam();
  const AssurancePolicy a{.allow_checked = (bits & 1u) != 0,
                          .allow_fuzzed = (bits & 2u) != 0,
                          .allow_trusted_external = (bits & 4u) != 0,
                          .require_evidence = (bits & 8u) != 0,
                          .allow_runtime_guards = (bits & 16u) != 0,
                          .allow_test_evidence = (bits & 32u) != 0};
  for (VjpMode mode : {VjpMode::none, VjpMode::torchlean_tape, VjpMode::backend_vjp}) {
    const ExecutionConfig config{.device = D::cpu,
                                 .preference = BackendPreference::only(P::reference),
                                 .assurance = a,
                                 .vjp_mode = mode};
    // Verified trust and a backend VJP: nothing but the misalignment can reject it.
    const KernelCapsule bad = value_claim_in_shape_field(
        with_vjp(with_trust(cpu("bad"), TrustLevel::verified), VjpMode::backend_vjp));
    const Registry registry = registry_of({bad});
    const Availability cpu_only = Availability::cpu();
    auto planned = plan_op(config, registry, Op::relu, &cpu_only);
    ASSERT_FALSE(planned.has_value()) << "policy bits " << bits;
    ASSERT_EQ(planned.error().candidates.size(), 1u);
    EXPECT_EQ(codes(planned.error().candidates[0].reasons),
              std::vector<std::string>{"contracts-misaligned"});
  }
}

INSTANTIATE_TEST_SUITE_P(AllSixtyFourPolicies, MisalignedUnderEveryPolicyTest,
                         ::testing::Range(0u, 64u));

// cpu availability rejects an external-device capsule; the external target admits it.
TEST(PlanOpsAvailable, ExternalTargetAdmitsExternalCapsule) {
  const auto registry =
      shared_registry_of({aligned_capsule("acme.relu", Op::relu, P::external, D::external)});
  const ExecutionConfig config{.device = D::external};
  const std::vector<Op> ops = {Op::relu};

  auto on_cpu = plan_ops_available(config, Availability::cpu(), registry, ops);
  ASSERT_FALSE(on_cpu.has_value());
  ASSERT_EQ(on_cpu.error().candidates.size(), 1u);
  EXPECT_EQ(codes(on_cpu.error().candidates[0].reasons),
            (std::vector<std::string>{"unavailable-device", "unavailable-provider"}));
  EXPECT_EQ(on_cpu.error().message, "no admissible backend capsule for op relu on device external");

  auto on_external =
      plan_ops_available(config, declared_availability(Target::external()), registry, ops);
  ASSERT_TRUE(on_external.has_value()) << render(on_external.error());
  EXPECT_EQ(on_external->capsule_names(), std::vector<std::string>{"acme.relu"});
}

// --- Failure explanations ------------------------------------------------------------------

TEST(PlanOpFailure, FftFnoOnCpu) {
  const Availability cpu_only = Availability::cpu();
  auto planned = plan_op(ExecutionConfig{}, builtin_registry(), Op::fft_fno, &cpu_only);
  ASSERT_FALSE(planned.has_value());
  const Error& e = planned.error();
  EXPECT_EQ(e.kind, ErrorKind::rejected_by_policy);
  EXPECT_EQ(e.message, "no admissible backend capsule for op fft_fno on device cpu");
  EXPECT_EQ(render(e).substr(0, render(e).find('\n')), e.message);
  EXPECT_TRUE(e.notes.empty());
  ASSERT_EQ(e.candidates.size(), 1u);
  EXPECT_EQ(e.candidates[0].capsule, "native_cuda.fft_fno");
  EXPECT_EQ(e.candidates[0].provider, "native-cuda");
  EXPECT_EQ(e.candidates[0].device, "cuda");
  EXPECT_EQ(
      codes(e.candidates[0].reasons),
      (std::vector<std::string>{"wrong-device", "unavailable-device", "unavailable-provider"}));
  // Without availability only the config's reasons remain.
  auto unfiltered = plan_op(ExecutionConfig{}, builtin_registry(), Op::fft_fno);
  ASSERT_FALSE(unfiltered.has_value());
  EXPECT_EQ(codes(unfiltered.error().candidates[0].reasons),
            std::vector<std::string>{"wrong-device"});
}

// Every implementing capsule is a candidate, in registry order, including the hidden ones.
TEST(PlanOpFailure, CandidatesListEveryImplementingCapsule) {
  const ExecutionConfig config{.device = D::tpu,
                               .preference = BackendPreference::only(P::xla),
                               .assurance = AssurancePolicy::verified(),
                               .vjp_mode = VjpMode::backend_vjp};
  const Availability cpu_only = Availability::cpu();
  auto planned = plan_op(config, builtin_registry(), Op::scaled_dot_product_attention, &cpu_only);
  ASSERT_FALSE(planned.has_value());
  const Error& e = planned.error();
  EXPECT_EQ(e.message,
            "no admissible backend capsule for op scaled_dot_product_attention on device tpu");
  EXPECT_EQ(candidate_names(e),
            (std::vector<std::string>{"native_cuda.flash_attention", "torchlean.composed_attention",
                                      "reference.attention"}));
  ASSERT_EQ(e.candidates.size(), 3u);
  EXPECT_EQ(codes(e.candidates[0].reasons),
            (std::vector<std::string>{"trust-not-admitted", "provider-excluded", "wrong-device",
                                      "unavailable-device", "unavailable-provider"}));
  EXPECT_EQ(codes(e.candidates[1].reasons),
            (std::vector<std::string>{"trust-not-admitted", "provider-excluded", "wrong-device",
                                      "vjp-incompatible", "unavailable-device"}));
  EXPECT_EQ(codes(e.candidates[2].reasons),
            (std::vector<std::string>{"trust-not-admitted", "provider-excluded", "wrong-device",
                                      "vjp-incompatible"}));
  EXPECT_EQ(e.candidates[1].provider, "torchlean");
  EXPECT_EQ(e.candidates[2].device, "cpu");
}

TEST(PlanOpFailure, NoCapsuleImplementsTheOp) {
  const Registry registry = Registry::create({reference_module()}).value();
  for (Op op : {Op::fft_fno, Op::selective_scan}) {
    auto planned = plan_op(ExecutionConfig{}, registry, op);
    ASSERT_FALSE(planned.has_value());
    const std::string name(to_string(op));
    EXPECT_EQ(planned.error().message,
              "no admissible backend capsule for op " + name + " on device cpu");
    EXPECT_TRUE(planned.error().candidates.empty());
    EXPECT_EQ(planned.error().notes,
              std::vector<std::string>{"no capsule in the registry implements " + name});
  }
  // An empty registry says the same for every op.
  const Registry empty = Registry::create({}).value();
  for (std::size_t i = 0; i < kBackendOpCount; ++i) {
    auto planned = plan_op(ExecutionConfig{}, empty, static_cast<Op>(i));
    ASSERT_FALSE(planned.has_value());
    EXPECT_EQ(planned.error().notes.size(), 1u);
  }
}

TEST(PlanOpFailure, ExplainMatchesPlanOp) {
  const Availability cpu_only = Availability::cpu();
  const ExecutionConfig cuda{.device = D::cuda};
  for (std::size_t i = 0; i < kBackendOpCount; ++i) {
    const auto op = static_cast<Op>(i);
    auto planned = plan_op(cuda, builtin_registry(), op, &cpu_only);
    ASSERT_FALSE(planned.has_value()) << to_string(op);
    EXPECT_EQ(planned.error(), explain_no_admissible(cuda, builtin_registry(), op, &cpu_only));
  }
}

// --- plan_ops ------------------------------------------------------------------------------

TEST(PlanOps, PlansInRequestOrder) {
  const std::vector<Op> ops = {Op::linear, Op::relu, Op::linear, Op::rand_uniform,
                               Op::scaled_dot_product_attention};
  auto plan = plan_ops(ExecutionConfig{}, shared_builtin_registry(), ops);
  ASSERT_TRUE(plan.has_value()) << render(plan.error());
  EXPECT_EQ(plan->registry, shared_builtin_registry());
  ASSERT_EQ(plan->kernels.size(), ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i)
    EXPECT_EQ(plan->kernels[i].op, ops[i]);
  EXPECT_EQ(plan->capsule_names(),
            (std::vector<std::string>{"reference.linear", "reference.relu", "reference.linear",
                                      "reference.rand_uniform", "reference.attention"}));
  EXPECT_EQ(plan->kernels[0].capsule, plan->kernels[2].capsule);
  EXPECT_EQ(&plan->capsule(1), &builtin_registry().capsule(plan->kernels[1].capsule));
}

TEST(PlanOps, EmptyOpList) {
  auto plan = plan_ops(ExecutionConfig{}, shared_builtin_registry(), {});
  ASSERT_TRUE(plan.has_value());
  EXPECT_TRUE(plan->kernels.empty());
  EXPECT_TRUE(plan->capsule_names().empty());
  EXPECT_TRUE(plan->admissible(ExecutionConfig{}));
}

struct PositionCase {
  std::string name;
  std::vector<Op> ops;
  std::size_t position;
  std::string frame;
  std::string op;
};

void PrintTo(const PositionCase& c, std::ostream* os) {
  *os << c.name;
}

class PlanOpsPositionTest : public ::testing::TestWithParam<PositionCase> {};

TEST_P(PlanOpsPositionTest, NamesTheFailingPosition) {
  const PositionCase& c = GetParam();
  auto plan =
      plan_ops_available(ExecutionConfig{}, Availability::cpu(), shared_builtin_registry(), c.ops);
  ASSERT_FALSE(plan.has_value());
  const Error& e = plan.error();
  EXPECT_EQ(e.message, "no admissible backend capsule for op " + c.op + " on device cpu");
  EXPECT_EQ(e.position, c.position);
  EXPECT_EQ(e.context, std::vector<std::string>{c.frame});
  EXPECT_FALSE(e.candidates.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PlanOpsPositionTest,
    ::testing::Values(
        PositionCase{"first", {Op::fft_fno, Op::relu}, 0, "at op 1 of 2 (fft_fno)", "fft_fno"},
        PositionCase{"middle",
                     {Op::relu, Op::matmul, Op::fft_fno, Op::add},
                     2,
                     "at op 3 of 4 (fft_fno)",
                     "fft_fno"},
        PositionCase{"last",
                     {Op::relu, Op::selective_scan},
                     1,
                     "at op 2 of 2 (selective_scan)",
                     "selective_scan"},
        PositionCase{"first_failure_wins",
                     {Op::add, Op::selective_scan, Op::fft_fno},
                     1,
                     "at op 2 of 3 (selective_scan)",
                     "selective_scan"},
        PositionCase{"only", {Op::fft_fno}, 0, "at op 1 of 1 (fft_fno)", "fft_fno"}),
    [](const ::testing::TestParamInfo<PositionCase>& info) { return info.param.name; });

TEST(PlanOps, FailureCarriesTheSameExplanationAsPlanOp) {
  const std::vector<Op> ops = {Op::relu, Op::fft_fno};
  auto plan = plan_ops(ExecutionConfig{}, shared_builtin_registry(), ops);
  ASSERT_FALSE(plan.has_value());
  auto single = plan_op(ExecutionConfig{}, builtin_registry(), Op::fft_fno);
  ASSERT_FALSE(single.has_value());
  EXPECT_EQ(plan.error().candidates, single.error().candidates);
  EXPECT_EQ(plan.error().message, single.error().message);
  EXPECT_EQ(render(plan.error()),
            "no admissible backend capsule for op fft_fno on device cpu\n"
            "  at op 2 of 2 (fft_fno)\n"
            "  candidate native_cuda.fft_fno (provider=native-cuda device=cuda):\n"
            "    wrong-device: capsule runs on cuda, the config asks for cpu");
}

TEST(ExecutionPlan, AdmissibleUnderConfig) {
  const ExecutionConfig cuda{.device = D::cuda};
  const std::vector<Op> ops = {Op::matmul, Op::scaled_dot_product_attention, Op::relu};
  auto plan = plan_ops(cuda, shared_builtin_registry(), ops);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->capsule_names(),
            (std::vector<std::string>{"native_cuda.matmul", "native_cuda.flash_attention",
                                      "native_cuda.relu"}));
  struct Case {
    std::string name;
    ExecutionConfig config;
    bool admissible;
  };
  const Case cases[] = {
      {"planning_config", cuda, true},
      {"inference", {.device = D::cuda, .vjp_mode = VjpMode::none}, true},
      {"backend_vjp", {.device = D::cuda, .vjp_mode = VjpMode::backend_vjp}, true},
      {"cpu", ExecutionConfig{}, false},
      {"verified", {.device = D::cuda, .assurance = AssurancePolicy::verified()}, false},
      {"only_native",
       {.device = D::cuda, .preference = BackendPreference::only(P::native_cuda)},
       true},
      {"only_reference",
       {.device = D::cuda, .preference = BackendPreference::only(P::reference)},
       false},
  };
  for (const Case& c : cases)
    EXPECT_EQ(plan->admissible(c.config), c.admissible) << c.name;

  // A tape-planned plan is not admissible under backend-vjp when it holds a tape capsule.
  auto cpu_plan = plan_ops(ExecutionConfig{}, shared_builtin_registry(), ops);
  ASSERT_TRUE(cpu_plan.has_value());
  EXPECT_FALSE(cpu_plan->admissible({.vjp_mode = VjpMode::backend_vjp}));
  EXPECT_TRUE(cpu_plan->admissible({.vjp_mode = VjpMode::none}));
}

// --- order_by_preference -------------------------------------------------------------------

TEST(OrderByPreference, StablePartitionTable) {
  const std::vector<KernelCapsule> capsules = {
      cpu("r1"), cpu("e1", P::external), cpu("t1", P::torchlean), cpu("e2", P::external),
      cpu("r2"), cpu("e3", P::external)};
  struct Case {
    std::string name;
    ExecutionConfig config;
    std::vector<std::string> order;
  };
  const Case cases[] = {
      {"auto", kDefault, {"r1", "e1", "t1", "e2", "r2", "e3"}},
      {"only_external", only(P::external), {"r1", "e1", "t1", "e2", "r2", "e3"}},
      {"prefer_external", prefer(P::external), {"e1", "e2", "e3", "r1", "t1", "r2"}},
      {"prefer_reference", prefer(P::reference), {"r1", "r2", "e1", "t1", "e2", "e3"}},
      {"prefer_torchlean", prefer(P::torchlean), {"t1", "r1", "e1", "e2", "r2", "e3"}},
      {"prefer_absent", prefer(P::xla), {"r1", "e1", "t1", "e2", "r2", "e3"}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> order;
    for (const KernelCapsule& k : order_by_preference(c.config, capsules))
      order.push_back(k.name);
    EXPECT_EQ(order, c.order) << c.name;
  }
  EXPECT_TRUE(order_by_preference(prefer(P::external), {}).empty());
}

// --- Property: seeded random registries and configs ---------------------------------------

struct RandomWorld {
  std::mt19937 rng;
  std::size_t pick(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  }
};

const Op kRandomOps[] = {Op::relu, Op::rand_uniform, Op::matmul};
const P kRandomProviders[] = {P::reference, P::torchlean, P::native_cuda, P::libtorch};
const D kRandomDevices[] = {D::cpu, D::cuda};

KernelCapsule random_capsule(RandomWorld& w, std::size_t index) {
  KernelCapsule c =
      aligned_capsule("c" + std::to_string(index), kRandomOps[w.pick(3)],
                      kRandomProviders[w.pick(4)], kRandomDevices[w.pick(2)],
                      static_cast<TrustLevel>(w.pick(4)), static_cast<VjpMode>(w.pick(3)));
  if (w.pick(10) == 0) c.supports_forward = false;
  if (w.pick(10) == 0) c = value_claim_in_shape_field(std::move(c));
  return c;
}

ExecutionConfig random_config(RandomWorld& w) {
  AssurancePolicy a = policy_of(static_cast<AssurancePreset>(w.pick(3)));
  if (w.pick(4) == 0) {
    a.allow_checked = w.pick(2) == 0;
    a.allow_fuzzed = w.pick(2) == 0;
    a.allow_trusted_external = w.pick(2) == 0;
  }
  return {
      .device = kRandomDevices[w.pick(2)],
      .preference = {static_cast<BackendPreference::Kind>(w.pick(3)), kRandomProviders[w.pick(4)]},
      .assurance = a,
      .vjp_mode = static_cast<VjpMode>(w.pick(3))};
}

std::optional<Availability> random_availability(RandomWorld& w) {
  switch (w.pick(4)) {
    case 0:
      return std::nullopt;
    case 1:
      return Availability::cpu();
    case 2:
      return Availability::cuda_native();
    default:
      return Availability::cuda_with_libtorch();
  }
}

TEST(PlannerProperty, ChoosingIsFirstEligibleOfOrderByPreference) {
  RandomWorld w{std::mt19937(0xC0FFEEu)};
  int planned_count = 0;
  int failed_count = 0;
  int preferred_not_first = 0;
  for (int trial = 0; trial < 6000; ++trial) {
    const std::size_t n = w.pick(9);
    std::vector<KernelCapsule> capsules;
    for (std::size_t i = 0; i < n; ++i)
      capsules.push_back(random_capsule(w, i));
    const Registry registry = registry_of(capsules);
    const ExecutionConfig config = random_config(w);
    const std::optional<Availability> availability = random_availability(w);
    const Availability* avail = availability ? &*availability : nullptr;
    for (Op op : kRandomOps) {
      std::vector<KernelCapsule> implementing;
      for (const KernelCapsule& c : capsules) {
        if (c.op == op) implementing.push_back(c);
      }
      std::optional<std::string> expected;
      std::optional<std::string> first_in_catalog;
      for (const KernelCapsule& c : order_by_preference(config, implementing)) {
        if (admissible(config, c) && (avail == nullptr || avail->admits(c))) {
          expected = c.name;
          break;
        }
      }
      for (const KernelCapsule& c : implementing) {
        if (admissible(config, c) && (avail == nullptr || avail->admits(c))) {
          first_in_catalog = c.name;
          break;
        }
      }
      if (expected != first_in_catalog) ++preferred_not_first;
      auto planned = plan_op(config, registry, op, avail);
      if (expected) {
        ++planned_count;
        ASSERT_TRUE(planned.has_value()) << "trial " << trial;
        EXPECT_EQ(registry.capsule(planned->capsule).name, *expected) << "trial " << trial;
        EXPECT_TRUE(rejection_reasons(config, registry.capsule(planned->capsule), avail).empty());
      } else {
        ++failed_count;
        ASSERT_FALSE(planned.has_value()) << "trial " << trial;
        // Every implementing capsule is a candidate, in order, with its full reasons.
        const Error& e = planned.error();
        ASSERT_EQ(e.candidates.size(), implementing.size()) << "trial " << trial;
        for (std::size_t i = 0; i < implementing.size(); ++i) {
          EXPECT_EQ(e.candidates[i].capsule, implementing[i].name);
          EXPECT_EQ(codes(e.candidates[i].reasons),
                    codes(rejection_reasons(config, implementing[i], avail)));
          EXPECT_FALSE(e.candidates[i].reasons.empty());
        }
        EXPECT_EQ(e.notes.empty(), !implementing.empty());
      }
      // OpDecisions gives the same answer, twice.
      OpDecisions decisions(config, registry, avail);
      for (int repeat = 0; repeat < 2; ++repeat) {
        auto decided = decisions.decide(op);
        ASSERT_EQ(decided.has_value(), planned.has_value());
        if (decided) {
          EXPECT_EQ(*decided, planned->capsule);
        } else {
          EXPECT_EQ(decided.error(), planned.error());
        }
      }
    }
  }
  // The generator must exercise successes, failures and preference reordering.
  EXPECT_GT(planned_count, 500);
  EXPECT_GT(failed_count, 500);
  EXPECT_GT(preferred_not_first, 20);
}

TEST(PlannerProperty, OrderByPreferenceIsAStablePartition) {
  RandomWorld w{std::mt19937(0xBADA55u)};
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<KernelCapsule> capsules;
    const std::size_t n = w.pick(12);
    for (std::size_t i = 0; i < n; ++i)
      capsules.push_back(random_capsule(w, i));
    const ExecutionConfig config = random_config(w);
    std::vector<std::string> expected;
    const bool prefer = config.preference.kind == BackendPreference::Kind::prefer;
    for (const KernelCapsule& c : capsules) {
      if (!prefer || c.provider == config.preference.provider) expected.push_back(c.name);
    }
    if (prefer) {
      for (const KernelCapsule& c : capsules) {
        if (c.provider != config.preference.provider) expected.push_back(c.name);
      }
    }
    std::vector<std::string> got;
    for (const KernelCapsule& c : order_by_preference(config, capsules))
      got.push_back(c.name);
    EXPECT_EQ(got, expected) << "trial " << trial;
  }
}

// OpDecisions answers like plan_op for every op of the vocabulary under several configs.
TEST(OpDecisions, SameAnswersAsPlanOp) {
  const Availability cuda = Availability::cuda_native();
  const ExecutionConfig configs[] = {
      ExecutionConfig{},
      {.device = D::cuda},
      {.device = D::cuda, .preference = BackendPreference::prefer(P::torchlean)},
      {.device = D::cuda, .vjp_mode = VjpMode::backend_vjp},
      {.device = D::cpu, .assurance = AssurancePolicy::verified()},
  };
  for (const ExecutionConfig& config : configs) {
    for (const Availability* avail : {static_cast<const Availability*>(nullptr), &cuda}) {
      OpDecisions decisions(config, builtin_registry(), avail);
      for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t i = 0; i < kBackendOpCount; ++i) {
          const auto op = static_cast<Op>(i);
          auto planned = plan_op(config, builtin_registry(), op, avail);
          auto decided = decisions.decide(op);
          ASSERT_EQ(decided.has_value(), planned.has_value()) << to_string(op);
          if (decided) {
            EXPECT_EQ(*decided, planned->capsule) << to_string(op);
          } else {
            EXPECT_EQ(decided.error(), planned.error()) << to_string(op);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace nnplan::backend
