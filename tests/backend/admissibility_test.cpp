// Admissibility (SPEC §2) and its explanation (SPEC §5, §10): each part on its own, every failing
// part reported at once in SPEC order with exact codes, availability misses appended last, and
// the equivalence "no reasons" == admissible (and available), checked on seeded random inputs.
#include "nnplan/backend/admissibility.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"

namespace nnplan::backend {
namespace {

using fixtures::aligned_capsule;
using fixtures::codes;

// cpu, reference, checked, torchlean-tape: admissible under the default config.
KernelCapsule relu_capsule() {
  return aligned_capsule("reference.relu", BackendOp::relu, Provider::reference, Device::cpu);
}

struct ReasonsCase {
  std::string name;
  std::function<void(KernelCapsule&)> mutate_capsule;
  std::function<void(ExecutionConfig&)> mutate_config;
  std::optional<Availability> availability;
  std::vector<std::string> expected;
};

void PrintTo(const ReasonsCase& c, std::ostream* os) {
  *os << c.name;
}

class RejectionReasonsTest : public ::testing::TestWithParam<ReasonsCase> {};

TEST_P(RejectionReasonsTest, AllReasonsInSpecOrder) {
  const ReasonsCase& c = GetParam();
  KernelCapsule capsule = relu_capsule();
  c.mutate_capsule(capsule);
  ExecutionConfig config;
  c.mutate_config(config);
  const Availability* availability = c.availability ? &*c.availability : nullptr;
  EXPECT_EQ(codes(rejection_reasons(config, capsule, availability)), c.expected);
  // Without availability only the admissibility parts remain, and they decide admissible().
  std::vector<std::string> config_only;
  for (const std::string& code : c.expected) {
    if (!code.starts_with("unavailable-")) config_only.push_back(code);
  }
  EXPECT_EQ(codes(rejection_reasons(config, capsule)), config_only);
  EXPECT_EQ(admissible(config, capsule), config_only.empty());
}

const auto kKeep = [](auto&) {};

Availability nothing_available() {
  return {.devices = {}, .providers = {}};
}

INSTANTIATE_TEST_SUITE_P(
    Parts, RejectionReasonsTest,
    ::testing::Values(
        ReasonsCase{"admissible", kKeep, kKeep, std::nullopt, {}},
        ReasonsCase{"admissible_and_available", kKeep, kKeep, Availability::cpu(), {}},
        ReasonsCase{"forward_unsupported",
                    [](KernelCapsule& c) { c.supports_forward = false; },
                    kKeep,
                    std::nullopt,
                    {"forward-unsupported"}},
        ReasonsCase{"misaligned_shape",
                    [](KernelCapsule& c) { c.shape.claim = c.value.claim; },
                    kKeep,
                    std::nullopt,
                    {"contracts-misaligned"}},
        ReasonsCase{"misaligned_vjp_mode",
                    [](KernelCapsule& c) { c.vjp.claim.mode = VjpMode::backend_vjp; },
                    kKeep,
                    std::nullopt,
                    {"contracts-misaligned"}},
        ReasonsCase{"trust_verified_policy",
                    kKeep,
                    [](ExecutionConfig& g) { g.assurance = AssurancePolicy::verified(); },
                    std::nullopt,
                    {"trust-not-admitted"}},
        ReasonsCase{"trust_external_under_checked",
                    [](KernelCapsule& c) { c.trust_level = TrustLevel::trusted_external; },
                    kKeep,
                    std::nullopt,
                    {"trust-not-admitted"}},
        ReasonsCase{"trust_external_under_external",
                    [](KernelCapsule& c) { c.trust_level = TrustLevel::trusted_external; },
                    [](ExecutionConfig& g) { g.assurance = AssurancePolicy::external(); },
                    std::nullopt,
                    {}},
        ReasonsCase{
            "provider_excluded_by_only",
            kKeep,
            [](ExecutionConfig& g) { g.preference = BackendPreference::only(Provider::torchlean); },
            std::nullopt,
            {"provider-excluded"}},
        ReasonsCase{
            "only_same_provider",
            kKeep,
            [](ExecutionConfig& g) { g.preference = BackendPreference::only(Provider::reference); },
            std::nullopt,
            {}},
        ReasonsCase{"prefer_other_provider_admits",
                    kKeep,
                    [](ExecutionConfig& g) {
                      g.preference = BackendPreference::prefer(Provider::torchlean);
                    },
                    std::nullopt,
                    {}},
        ReasonsCase{"wrong_device",
                    kKeep,
                    [](ExecutionConfig& g) { g.device = Device::cuda; },
                    std::nullopt,
                    {"wrong-device"}},
        ReasonsCase{"vjp_incompatible_backend_config",
                    kKeep,
                    [](ExecutionConfig& g) { g.vjp_mode = VjpMode::backend_vjp; },
                    std::nullopt,
                    {"vjp-incompatible"}},
        ReasonsCase{"vjp_forward_only_under_tape",
                    [](KernelCapsule& c) {
                      c.vjp_mode = VjpMode::none;
                      c.vjp.claim.mode = VjpMode::none;
                    },
                    kKeep,
                    std::nullopt,
                    {"vjp-incompatible"}},
        ReasonsCase{"vjp_none_config_admits_forward_only",
                    [](KernelCapsule& c) {
                      c.vjp_mode = VjpMode::none;
                      c.vjp.claim.mode = VjpMode::none;
                    },
                    [](ExecutionConfig& g) { g.vjp_mode = VjpMode::none; },
                    std::nullopt,
                    {}},
        ReasonsCase{"unavailable_device",
                    [](KernelCapsule& c) { c.device = Device::cuda; },
                    [](ExecutionConfig& g) { g.device = Device::cuda; },
                    Availability::cpu(),
                    {"unavailable-device"}},
        ReasonsCase{"unavailable_provider",
                    [](KernelCapsule& c) { c.provider = Provider::libtorch; },
                    kKeep,
                    Availability::cpu(),
                    {"unavailable-provider"}},
        ReasonsCase{"unavailable_both",
                    kKeep,
                    kKeep,
                    nothing_available(),
                    {"unavailable-device", "unavailable-provider"}},
        ReasonsCase{"wrong_device_and_unavailable",
                    [](KernelCapsule& c) {
                      c.device = Device::cuda;
                      c.provider = Provider::native_cuda;
                    },
                    kKeep,
                    Availability::cpu(),
                    {"wrong-device", "unavailable-device", "unavailable-provider"}},
        ReasonsCase{"every_reason_at_once",
                    [](KernelCapsule& c) {
                      c.supports_forward = false;
                      c.shape.claim = c.value.claim;
                      c.trust_level = TrustLevel::fuzzed;
                      c.provider = Provider::libtorch;
                      c.device = Device::tpu;
                    },
                    [](ExecutionConfig& g) {
                      g.assurance = AssurancePolicy::verified();
                      g.preference = BackendPreference::only(Provider::xla);
                      g.vjp_mode = VjpMode::backend_vjp;
                    },
                    Availability::cpu(),
                    {"forward-unsupported", "contracts-misaligned", "trust-not-admitted",
                     "provider-excluded", "wrong-device", "vjp-incompatible", "unavailable-device",
                     "unavailable-provider"}},
        ReasonsCase{"config_reasons_without_availability",
                    [](KernelCapsule& c) {
                      c.supports_forward = false;
                      c.device = Device::cuda;
                    },
                    [](ExecutionConfig& g) { g.vjp_mode = VjpMode::backend_vjp; },
                    std::nullopt,
                    {"forward-unsupported", "wrong-device", "vjp-incompatible"}}),
    [](const ::testing::TestParamInfo<ReasonsCase>& info) { return info.param.name; });

// The details name the specifics (capsule value against what is allowed).
TEST(RejectionReasons, Details) {
  KernelCapsule c = relu_capsule();
  c.supports_forward = false;
  c.shape.claim = c.value.claim;
  c.trust_level = TrustLevel::trusted_external;
  c.provider = Provider::libtorch;
  c.device = Device::cuda;
  c.vjp_mode = VjpMode::none;
  c.vjp.claim.mode = VjpMode::none;
  const ExecutionConfig config{.device = Device::cpu,
                               .preference = BackendPreference::only(Provider::reference),
                               .assurance = AssurancePolicy::checked(),
                               .vjp_mode = VjpMode::torchlean_tape};
  const Availability availability = Availability::cpu();
  const std::vector<Rejection> reasons = rejection_reasons(config, c, &availability);
  const std::vector<Rejection> expected = {
      {RejectionReason::forward_unsupported, "capsule does not support forward"},
      {RejectionReason::contracts_misaligned,
       "shape field holds 'relu forward refines Spec.relu', expected shape safety for relu"},
      {RejectionReason::trust_not_admitted,
       "trust trusted-external is not admitted by assurance policy checked"},
      {RejectionReason::provider_excluded, "provider libtorch is excluded by 'only reference'"},
      {RejectionReason::wrong_device, "capsule runs on cuda, the config asks for cpu"},
      {RejectionReason::vjp_incompatible,
       "capsule vjp none does not serve config vjp torchlean-tape"},
      {RejectionReason::unavailable_device, "device cuda is not available on the target"},
      {RejectionReason::unavailable_provider, "provider libtorch is not available on the target"},
  };
  EXPECT_EQ(reasons, expected);
}

TEST(RejectionReasons, MisalignmentDetailNamesTheField) {
  struct Case {
    std::string name;
    std::function<void(KernelCapsule&)> mutate;
    std::string detail;
  };
  const Case cases[] = {
      {"layout", [](KernelCapsule& c) { c.layout.claim = c.shape.claim; },
       "layout field holds 'shape safety for relu', expected a layout compatibility claim for "
       "relu"},
      {"value",
       [](KernelCapsule& c) { c.value.claim = Claim::value_refinement(BackendOp::gelu, "S"); },
       "value field holds 'gelu forward refines S', expected a forward refinement claim for relu"},
      {"vjp", [](KernelCapsule& c) { c.vjp.claim.mode = VjpMode::backend_vjp; },
       "vjp field holds 'relu backend-vjp VJP refines Spec.relu', expected a torchlean-tape VJP "
       "refinement claim for relu"},
  };
  for (const Case& tc : cases) {
    KernelCapsule c = relu_capsule();
    tc.mutate(c);
    const auto reasons = rejection_reasons(ExecutionConfig{}, c);
    ASSERT_EQ(reasons.size(), 1u) << tc.name;
    EXPECT_EQ(reasons[0].reason, RejectionReason::contracts_misaligned);
    EXPECT_EQ(reasons[0].detail, tc.detail);
  }
}

TEST(RejectionReasons, EveryMisalignedFieldIsReported) {
  KernelCapsule c = relu_capsule();
  c.shape.claim = c.value.claim;
  c.vjp.claim.mode = VjpMode::backend_vjp;
  EXPECT_EQ(misaligned_fields(c), (std::vector{ContractField::shape, ContractField::vjp}));
  EXPECT_EQ(first_misaligned_field(c), ContractField::shape);
  const std::vector<Rejection> reasons = rejection_reasons(ExecutionConfig{}, c);
  const std::vector<Rejection> expected = {
      {RejectionReason::contracts_misaligned,
       "shape field holds 'relu forward refines Spec.relu', expected shape safety for relu; vjp "
       "field holds 'relu backend-vjp VJP refines Spec.relu', expected a torchlean-tape VJP "
       "refinement claim for relu"},
  };
  EXPECT_EQ(reasons, expected);
  EXPECT_TRUE(misaligned_fields(relu_capsule()).empty());
}

TEST(RejectionReasons, CustomPolicyLabelInDetail) {
  ExecutionConfig config;
  config.assurance.allow_checked = false;
  const auto reasons = rejection_reasons(config, relu_capsule());
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_EQ(reasons[0].detail, "trust checked is not admitted by assurance policy custom");
}

TEST(WellFormedForPlanning, ForwardAndAlignment) {
  EXPECT_TRUE(well_formed_for_planning(relu_capsule()));
  KernelCapsule no_forward = relu_capsule();
  no_forward.supports_forward = false;
  EXPECT_FALSE(well_formed_for_planning(no_forward));
  EXPECT_FALSE(well_formed_for_planning(fixtures::value_claim_in_shape_field(relu_capsule())));
}

// An oracle written from SPEC §2, independent of the library's helpers.
bool spec_admissible(const ExecutionConfig& g, const KernelCapsule& c) {
  const bool aligned = c.shape.claim.kind == ClaimKind::shape_safety && c.shape.claim.op == c.op &&
                       c.layout.claim.kind == ClaimKind::layout_compatibility &&
                       c.layout.claim.op == c.op &&
                       c.value.claim.kind == ClaimKind::value_refinement &&
                       c.value.claim.op == c.op && c.vjp.claim.kind == ClaimKind::vjp_refinement &&
                       c.vjp.claim.op == c.op && c.vjp.claim.mode == c.vjp_mode;
  bool trust = false;
  switch (c.trust_level) {
    case TrustLevel::verified:
      trust = true;
      break;
    case TrustLevel::checked:
      trust = g.assurance.allow_checked;
      break;
    case TrustLevel::fuzzed:
      trust = g.assurance.allow_fuzzed;
      break;
    case TrustLevel::trusted_external:
      trust = g.assurance.allow_trusted_external;
      break;
  }
  const bool provider =
      g.preference.kind != BackendPreference::Kind::only || g.preference.provider == c.provider;
  const bool random = c.op == BackendOp::rand_uniform || c.op == BackendOp::bernoulli_mask;
  bool vjp = true;
  if (g.vjp_mode == VjpMode::torchlean_tape && !random) vjp = c.vjp_mode != VjpMode::none;
  if (g.vjp_mode == VjpMode::backend_vjp && !random) vjp = c.vjp_mode == VjpMode::backend_vjp;
  return c.supports_forward && aligned && trust && provider && c.device == g.device && vjp;
}

TEST(RejectionReasons, PropertyNoReasonsIffAdmissibleAndAvailable) {
  std::mt19937 rng(0x5eed0001u);
  auto pick = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  const BackendOp ops[] = {BackendOp::relu, BackendOp::rand_uniform, BackendOp::matmul,
                           BackendOp::bernoulli_mask};
  const Device devices[] = {Device::cpu, Device::cuda, Device::external};
  const Provider providers[] = {Provider::reference, Provider::native_cuda, Provider::libtorch};
  int admissible_count = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    KernelCapsule c =
        aligned_capsule("c", ops[pick(4)], providers[pick(3)], devices[pick(3)],
                        static_cast<TrustLevel>(pick(4)), static_cast<VjpMode>(pick(3)));
    if (pick(8) == 0) c.supports_forward = false;
    if (pick(8) == 0) c.vjp.claim.mode = static_cast<VjpMode>(pick(3));
    if (pick(10) == 0) c.shape.claim = c.value.claim;
    ExecutionConfig g{
        .device = devices[pick(3)],
        .preference = {static_cast<BackendPreference::Kind>(pick(3)), providers[pick(3)]},
        .assurance = policy_of(static_cast<AssurancePreset>(pick(3))),
        .vjp_mode = static_cast<VjpMode>(pick(3))};
    Availability a{.devices = {}, .providers = {}};
    for (Device d : devices) {
      if (pick(2) == 0) a.devices.push_back(d);
    }
    for (Provider p : providers) {
      if (pick(2) == 0) a.providers.push_back(p);
    }
    const bool expected = spec_admissible(g, c);
    admissible_count += expected ? 1 : 0;
    EXPECT_EQ(admissible(g, c), expected) << trial;
    EXPECT_EQ(rejection_reasons(g, c).empty(), expected) << trial;
    const bool available = a.admits(c);
    EXPECT_EQ(rejection_reasons(g, c, &a).empty(), expected && available) << trial;
    // Reasons are distinct and in SPEC §10 order.
    const auto reasons = rejection_reasons(g, c, &a);
    for (std::size_t i = 1; i < reasons.size(); ++i) {
      EXPECT_LT(static_cast<int>(reasons[i - 1].reason), static_cast<int>(reasons[i].reason));
    }
  }
  // The generator must exercise both outcomes.
  EXPECT_GT(admissible_count, 50);
  EXPECT_LT(admissible_count, 3950);
}

}  // namespace
}  // namespace nnplan::backend
