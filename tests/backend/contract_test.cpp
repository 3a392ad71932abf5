// Contract descriptors (SPEC §2): claim factories and labels, evidence labels and their coarse
// dispositions.
#include "nnplan/backend/contract.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "capsule_fixtures.hpp"

namespace nnplan::backend {
namespace {

struct ClaimCase {
  std::string name;
  Claim claim;
  ClaimKind kind;
  std::string label;
};

void PrintTo(const ClaimCase& c, std::ostream* os) {
  *os << c.name;
}

class ClaimLabelTest : public ::testing::TestWithParam<ClaimCase> {};

TEST_P(ClaimLabelTest, Label) {
  const ClaimCase& c = GetParam();
  EXPECT_EQ(c.claim.kind, c.kind);
  EXPECT_EQ(label(c.claim), c.label);
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, ClaimLabelTest,
    ::testing::Values(
        ClaimCase{"shape_relu", Claim::shape_safety(BackendOp::relu), ClaimKind::shape_safety,
                  "shape safety for relu"},
        ClaimCase{"shape_attention", Claim::shape_safety(BackendOp::scaled_dot_product_attention),
                  ClaimKind::shape_safety, "shape safety for scaled_dot_product_attention"},
        ClaimCase{"layout_canonical",
                  Claim::layout_compatibility(BackendOp::relu, Layout::canonical_tensor),
                  ClaimKind::layout_compatibility,
                  "canonical-tensor layout compatibility for relu"},
        ClaimCase{
            "layout_flat", Claim::layout_compatibility(BackendOp::matmul, Layout::flat_row_major),
            ClaimKind::layout_compatibility, "flat-row-major layout compatibility for matmul"},
        ClaimCase{"layout_libtorch",
                  Claim::layout_compatibility(BackendOp::scaled_dot_product_attention,
                                              Layout::libtorch_cuda_view),
                  ClaimKind::layout_compatibility,
                  "libtorch-cuda-view layout compatibility for scaled_dot_product_attention"},
        ClaimCase{"value", Claim::value_refinement(BackendOp::relu, "Spec.relu"),
                  ClaimKind::value_refinement, "relu forward refines Spec.relu"},
        ClaimCase{"value_other_spec", Claim::value_refinement(BackendOp::gelu, "Spec.gelu_tanh"),
                  ClaimKind::value_refinement, "gelu forward refines Spec.gelu_tanh"},
        ClaimCase{
            "vjp_none",
            Claim::vjp_refinement(BackendOp::rand_uniform, VjpMode::none, "Spec.rand_uniform"),
            ClaimKind::vjp_refinement, "rand_uniform none VJP refines Spec.rand_uniform"},
        ClaimCase{"vjp_tape",
                  Claim::vjp_refinement(BackendOp::relu, VjpMode::torchlean_tape, "Spec.relu"),
                  ClaimKind::vjp_refinement, "relu torchlean-tape VJP refines Spec.relu"},
        ClaimCase{"vjp_backend",
                  Claim::vjp_refinement(BackendOp::relu, VjpMode::backend_vjp, "Spec.relu"),
                  ClaimKind::vjp_refinement, "relu backend-vjp VJP refines Spec.relu"}),
    [](const ::testing::TestParamInfo<ClaimCase>& info) { return info.param.name; });

TEST(Claim, FactoriesFillOnlyTheirFields) {
  const Claim layout = Claim::layout_compatibility(BackendOp::conv, Layout::flat_row_major);
  EXPECT_EQ(layout.op, BackendOp::conv);
  EXPECT_EQ(layout.layout, Layout::flat_row_major);
  EXPECT_TRUE(layout.spec.empty());
  const Claim vjp = Claim::vjp_refinement(BackendOp::conv, VjpMode::backend_vjp, "Spec.conv");
  EXPECT_EQ(vjp.mode, VjpMode::backend_vjp);
  EXPECT_EQ(vjp.spec, "Spec.conv");
  EXPECT_EQ(Claim::shape_safety(BackendOp::conv).mode, VjpMode::none);
  EXPECT_NE(Claim::value_refinement(BackendOp::conv, "A"),
            Claim::value_refinement(BackendOp::conv, "B"));
}

struct EvidenceCase {
  EvidenceKind kind;
  std::string name;
  std::string label;
  Disposition disposition;
  std::string disposition_spelling;
};

void PrintTo(const EvidenceCase& c, std::ostream* os) {
  *os << to_string(c.kind);
}

class EvidenceTest : public ::testing::TestWithParam<EvidenceCase> {};

TEST_P(EvidenceTest, LabelAndDisposition) {
  const EvidenceCase& c = GetParam();
  const Evidence e{c.kind, c.name};
  EXPECT_EQ(label(e), c.label);
  EXPECT_EQ(disposition(c.kind), c.disposition);
  EXPECT_EQ(to_string(disposition(c.kind)), c.disposition_spelling);
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, EvidenceTest,
    ::testing::Values(
        EvidenceCase{EvidenceKind::theorem, "Relu.refines", "proved by Relu.refines",
                     Disposition::proved, "proved"},
        EvidenceCase{EvidenceKind::checker, "shape_checker", "accepted by checker shape_checker",
                     Disposition::checked, "checked"},
        EvidenceCase{EvidenceKind::runtime_guard, "relu.guard", "guarded at runtime by relu.guard",
                     Disposition::guarded, "guarded"},
        EvidenceCase{EvidenceKind::test_suite, "relu_tests", "covered by test suite relu_tests",
                     Disposition::tested, "tested"},
        EvidenceCase{EvidenceKind::fuzz_oracle, "relu_fuzz", "compared by fuzz oracle relu_fuzz",
                     Disposition::fuzzed, "fuzzed"},
        EvidenceCase{EvidenceKind::trusted_boundary, "external code, not audited",
                     "trusted boundary: external code, not audited", Disposition::trusted,
                     "trusted"},
        EvidenceCase{EvidenceKind::not_provided, "", "no evidence recorded", Disposition::missing,
                     "missing"}),
    [](const ::testing::TestParamInfo<EvidenceCase>& info) {
      return fixtures::test_name(to_string(info.param.kind));
    });

TEST(Evidence, DefaultIsMissing) {
  const Evidence e;
  EXPECT_EQ(e.kind, EvidenceKind::not_provided);
  EXPECT_EQ(label(e), "no evidence recorded");
  EXPECT_EQ(disposition(e.kind), Disposition::missing);
}

// Provenance is never evidence: a descriptor with provenance but no evidence is still missing.
TEST(ContractDescriptor, ProvenanceIsNotEvidence) {
  ContractDescriptor d;
  d.claim = Claim::shape_safety(BackendOp::relu);
  d.provenance.push_back({.kind = ProvenanceKind::source_file,
                          .path = "kernels/relu.cu",
                          .symbol = "",
                          .build_target = "",
                          .text = ""});
  d.provenance.push_back({.kind = ProvenanceKind::native_symbol,
                          .path = "kernels/relu.cu",
                          .symbol = "relu_kernel",
                          .build_target = "kernels",
                          .text = ""});
  EXPECT_EQ(disposition(d.evidence.kind), Disposition::missing);
  EXPECT_EQ(label(d.evidence), "no evidence recorded");
  EXPECT_EQ(Provenance{}.kind, ProvenanceKind::note);
}

}  // namespace
}  // namespace nnplan::backend
