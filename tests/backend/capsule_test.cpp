// KernelCapsule (SPEC §2): defaults, contract access by field, alignment of the four contract
// fields (and which field is the first misaligned one), and registration identity.
#include "nnplan/backend/capsule.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "capsule_fixtures.hpp"

namespace nnplan::backend {
namespace {

using fixtures::aligned_capsule;

KernelCapsule checked_relu_capsule() {
  return aligned_capsule("x.relu", BackendOp::relu, Provider::reference, Device::cpu,
                         TrustLevel::checked, VjpMode::backend_vjp);
}

TEST(KernelCapsule, Defaults) {
  const KernelCapsule c;
  EXPECT_TRUE(c.supports_forward);
  EXPECT_EQ(c.vjp_mode, VjpMode::none);
  EXPECT_EQ(c.numerical, NumericalPolicy{});
  EXPECT_TRUE(c.notes.empty());
}

TEST(KernelCapsule, ContractByField) {
  const KernelCapsule c = checked_relu_capsule();
  EXPECT_EQ(&c.contract(ContractField::shape), &c.shape);
  EXPECT_EQ(&c.contract(ContractField::layout), &c.layout);
  EXPECT_EQ(&c.contract(ContractField::value), &c.value);
  EXPECT_EQ(&c.contract(ContractField::vjp), &c.vjp);
}

struct AlignmentCase {
  std::string name;
  std::function<void(KernelCapsule&)> mutate;
  std::optional<ContractField> first_misaligned;
};

void PrintTo(const AlignmentCase& c, std::ostream* os) {
  *os << c.name;
}

class AlignmentTest : public ::testing::TestWithParam<AlignmentCase> {};

TEST_P(AlignmentTest, FirstMisalignedField) {
  const AlignmentCase& c = GetParam();
  KernelCapsule capsule = checked_relu_capsule();
  c.mutate(capsule);
  EXPECT_EQ(first_misaligned_field(capsule), c.first_misaligned);
  EXPECT_EQ(contracts_aligned(capsule), !c.first_misaligned.has_value());
}

const BackendOp kOther = BackendOp::gelu;

INSTANTIATE_TEST_SUITE_P(
    Fields, AlignmentTest,
    ::testing::Values(
        AlignmentCase{"aligned", [](KernelCapsule&) {}, std::nullopt},
        // Alignment is about claims only: the layout, spec, summary, evidence and provenance are
        // free.
        AlignmentCase{"other_layout_still_aligned",
                      [](KernelCapsule& c) {
                        c.layout.claim = Claim::layout_compatibility(c.op, Layout::flat_row_major);
                      },
                      std::nullopt},
        AlignmentCase{"other_spec_still_aligned",
                      [](KernelCapsule& c) {
                        c.value.claim.spec = "Spec.other";
                        c.vjp.claim.spec = "Spec.other";
                      },
                      std::nullopt},
        AlignmentCase{"missing_evidence_still_aligned",
                      [](KernelCapsule& c) {
                        c.shape.evidence = {};
                        c.value.evidence = {};
                      },
                      std::nullopt},
        // shape
        AlignmentCase{"value_claim_in_shape",
                      [](KernelCapsule& c) { c.shape.claim = c.value.claim; },
                      ContractField::shape},
        AlignmentCase{"layout_claim_in_shape",
                      [](KernelCapsule& c) { c.shape.claim = c.layout.claim; },
                      ContractField::shape},
        AlignmentCase{"shape_claim_wrong_op",
                      [](KernelCapsule& c) { c.shape.claim = Claim::shape_safety(kOther); },
                      ContractField::shape},
        // layout
        AlignmentCase{"shape_claim_in_layout",
                      [](KernelCapsule& c) { c.layout.claim = c.shape.claim; },
                      ContractField::layout},
        AlignmentCase{"layout_claim_wrong_op",
                      [](KernelCapsule& c) {
                        c.layout.claim =
                            Claim::layout_compatibility(kOther, Layout::canonical_tensor);
                      },
                      ContractField::layout},
        // value
        AlignmentCase{"vjp_claim_in_value", [](KernelCapsule& c) { c.value.claim = c.vjp.claim; },
                      ContractField::value},
        AlignmentCase{
            "value_claim_wrong_op",
            [](KernelCapsule& c) { c.value.claim = Claim::value_refinement(kOther, "Spec.relu"); },
            ContractField::value},
        // vjp
        AlignmentCase{"value_claim_in_vjp", [](KernelCapsule& c) { c.vjp.claim = c.value.claim; },
                      ContractField::vjp},
        AlignmentCase{"vjp_claim_wrong_op",
                      [](KernelCapsule& c) {
                        c.vjp.claim = Claim::vjp_refinement(kOther, c.vjp_mode, "Spec.relu");
                      },
                      ContractField::vjp},
        AlignmentCase{"vjp_claim_tape_capsule_backend",
                      [](KernelCapsule& c) { c.vjp.claim.mode = VjpMode::torchlean_tape; },
                      ContractField::vjp},
        AlignmentCase{"vjp_claim_none_capsule_backend",
                      [](KernelCapsule& c) { c.vjp.claim.mode = VjpMode::none; },
                      ContractField::vjp},
        AlignmentCase{"capsule_mode_changed_claim_not",
                      [](KernelCapsule& c) { c.vjp_mode = VjpMode::none; }, ContractField::vjp},
        AlignmentCase{"capsule_and_claim_both_none",
                      [](KernelCapsule& c) {
                        c.vjp_mode = VjpMode::none;
                        c.vjp.claim.mode = VjpMode::none;
                      },
                      std::nullopt},
        // several misaligned fields: the first in field order is reported.
        AlignmentCase{"shape_and_vjp",
                      [](KernelCapsule& c) {
                        c.shape.claim = c.value.claim;
                        c.vjp.claim.mode = VjpMode::none;
                      },
                      ContractField::shape},
        AlignmentCase{"layout_and_value",
                      [](KernelCapsule& c) {
                        c.layout.claim = c.value.claim;
                        c.value.claim = c.shape.claim;
                      },
                      ContractField::layout},
        AlignmentCase{"capsule_op_changed", [](KernelCapsule& c) { c.op = kOther; },
                      ContractField::shape}),
    [](const ::testing::TestParamInfo<AlignmentCase>& info) { return info.param.name; });

struct IdentityCase {
  std::string name;
  std::function<void(KernelCapsule&)> mutate;
  bool same;
};

void PrintTo(const IdentityCase& c, std::ostream* os) {
  *os << c.name;
}

class IdentityTest : public ::testing::TestWithParam<IdentityCase> {};

TEST_P(IdentityTest, SameIdentity) {
  const IdentityCase& c = GetParam();
  KernelCapsule other = checked_relu_capsule();
  c.mutate(other);
  EXPECT_EQ(same_identity(checked_relu_capsule(), other), c.same);
  EXPECT_EQ(same_identity(other, checked_relu_capsule()), c.same);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, IdentityTest,
    ::testing::Values(
        IdentityCase{"equal", [](KernelCapsule&) {}, true},
        IdentityCase{"name", [](KernelCapsule& c) { c.name = "y.relu"; }, false},
        IdentityCase{"op", [](KernelCapsule& c) { c.op = BackendOp::gelu; }, false},
        IdentityCase{"provider", [](KernelCapsule& c) { c.provider = Provider::torchlean; }, false},
        IdentityCase{"device", [](KernelCapsule& c) { c.device = Device::cuda; }, false},
        IdentityCase{"trust", [](KernelCapsule& c) { c.trust_level = TrustLevel::verified; }, true},
        IdentityCase{"vjp_mode", [](KernelCapsule& c) { c.vjp_mode = VjpMode::none; }, true},
        IdentityCase{"forward", [](KernelCapsule& c) { c.supports_forward = false; }, true},
        IdentityCase{"contracts", [](KernelCapsule& c) { c.shape = {}; }, true},
        IdentityCase{"numerical",
                     [](KernelCapsule& c) { c.numerical.rounding = Rounding::directed; }, true},
        IdentityCase{"notes", [](KernelCapsule& c) { c.notes = "changed"; }, true}),
    [](const ::testing::TestParamInfo<IdentityCase>& info) { return info.param.name; });

}  // namespace
}  // namespace nnplan::backend
