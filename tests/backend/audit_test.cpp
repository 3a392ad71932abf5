// Audit and recheck (SPEC §8): a kernel audit copies every field of its capsule; an execution
// audit (from an op-list plan or a graph lowering plan) answers trust levels, capsule names,
// trusted-external ops and whether any exist, and lists distinct capsules in first-appearance
// order; the recheck expands each row into four obligation reports in field order with the
// disposition of their evidence.
#include "nnplan/backend/audit.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"
#include "graph_plan_fixtures.hpp"
#include "nnplan/backend/lowering.hpp"
#include "nnplan/backend/profile.hpp"

namespace nnplan::backend {
namespace {

using fixtures::aligned_capsule;
using fixtures::checked;
using fixtures::registry_of;
using fixtures::shared_registry_of;
using fixtures::unary_chain;
using K = ir::OpKind;

// --- audit_kernel: every field is the capsule's -------------------------------------------

class AuditKernelTest : public ::testing::TestWithParam<KernelCapsule> {};

TEST_P(AuditKernelTest, CopiesEveryField) {
  const KernelCapsule& c = GetParam();
  const KernelAudit a = audit_kernel(c);
  EXPECT_EQ(a.op, c.op);
  EXPECT_EQ(a.capsule, c.name);
  EXPECT_EQ(a.provider, c.provider);
  EXPECT_EQ(a.device, c.device);
  EXPECT_EQ(a.trust, c.trust_level);
  EXPECT_EQ(a.vjp_mode, c.vjp_mode);
  EXPECT_EQ(a.shape, c.shape);
  EXPECT_EQ(a.layout, c.layout);
  EXPECT_EQ(a.value, c.value);
  EXPECT_EQ(a.vjp, c.vjp);
  EXPECT_EQ(a.numerical, c.numerical);
}

std::vector<KernelCapsule> audit_kernel_cases() {
  std::vector<KernelCapsule> out;
  const Registry& builtin = builtin_registry();
  for (const char* name : {"reference.relu", "native_cuda.conv", "native_cuda.flash_attention"}) {
    for (const KernelCapsule& c : builtin.capsules()) {
      if (c.name == name) out.push_back(c);
    }
  }
  out.push_back(libtorch_module().capsules.at(0));
  KernelCapsule custom = aligned_capsule("custom.tanh", BackendOp::tanh, Provider::custom_chip,
                                         Device::custom, TrustLevel::fuzzed, VjpMode::backend_vjp);
  custom.numerical.rounding = Rounding::nearest_even;
  custom.value.evidence = {EvidenceKind::fuzz_oracle, "oracle.tanh"};
  out.push_back(custom);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Capsules, AuditKernelTest, ::testing::ValuesIn(audit_kernel_cases()),
                         [](const ::testing::TestParamInfo<KernelCapsule>& info) {
                           return fixtures::test_name(info.param.name);
                         });

// --- ExecutionAudit of a graph lowering plan -----------------------------------------------

// capsules: 0 cpu.relu (checked), 1 ext.tanh (trusted-external), 2 ext.relu (trusted-external),
// 3 cpu.sin (verified).
Registry mixed_registry() {
  return registry_of({
      aligned_capsule("cpu.relu", BackendOp::relu, Provider::reference, Device::cpu),
      aligned_capsule("ext.tanh", BackendOp::tanh, Provider::libtorch, Device::cpu,
                      TrustLevel::trusted_external),
      aligned_capsule("ext.relu", BackendOp::relu, Provider::libtorch, Device::cpu,
                      TrustLevel::trusted_external),
      aligned_capsule("cpu.sin", BackendOp::sin, Provider::reference, Device::cpu,
                      TrustLevel::verified),
  });
}

// Groups (coalesced): sin | tanh(ext) | relu(cpu) x2 | tanh(ext) | relu(ext) | sin
GraphLoweringPlan mixed_lowering(const std::shared_ptr<const Registry>& registry) {
  const GraphExecutionPlan plan{.registry = registry,
                                .kernels = {{1, K::sin, BackendOp::sin, 3},
                                            {2, K::tanh, BackendOp::tanh, 1},
                                            {3, K::relu, BackendOp::relu, 0},
                                            {4, K::relu, BackendOp::relu, 0},
                                            {5, K::tanh, BackendOp::tanh, 1},
                                            {6, K::relu, BackendOp::relu, 2},
                                            {7, K::sin, BackendOp::sin, 3}}};
  return to_coalesced_lowering_plan(plan);
}

TEST(ExecutionAudit, OneRowPerGroupEqualToTheCapsuleAudit) {
  const auto registry = std::make_shared<const Registry>(mixed_registry());
  const GraphLoweringPlan lowering = mixed_lowering(registry);
  const ExecutionAudit audit = lowering.audit();
  ASSERT_EQ(audit.size(), lowering.groups.size());
  ASSERT_EQ(audit.size(), 6u);
  EXPECT_EQ(&audit.registry(), registry.get());
  EXPECT_EQ(audit.shared_registry(), registry);
  for (std::size_t i = 0; i < audit.size(); ++i) {
    const KernelCapsule& c = lowering.capsule(lowering.groups[i]);
    EXPECT_EQ(audit.row(i), audit_kernel(c)) << "row " << i;
    EXPECT_EQ(&audit.capsule(i), &c) << "row " << i;
    EXPECT_EQ(audit.row(i).op, lowering.groups[i].op) << "row " << i;
  }
}

TEST(ExecutionAudit, OfALoweringPlanEqualsTheAuditOfItsExecutionPlan) {
  const auto registry = std::make_shared<const Registry>(mixed_registry());
  const GraphLoweringPlan lowering = mixed_lowering(registry);
  const ExecutionAudit direct(lowering);
  const ExecutionAudit via_plan(lowering.to_execution_plan());
  ASSERT_EQ(direct.size(), via_plan.size());
  for (std::size_t i = 0; i < direct.size(); ++i)
    EXPECT_EQ(direct.row(i), via_plan.row(i));
  EXPECT_EQ(direct.distinct_capsules(), via_plan.distinct_capsules());
  EXPECT_EQ(direct.capsule_names(), via_plan.capsule_names());
  EXPECT_EQ(recheck(direct), recheck(via_plan));
}

TEST(ExecutionAudit, Queries) {
  const auto registry = std::make_shared<const Registry>(mixed_registry());
  const ExecutionAudit audit = mixed_lowering(registry).audit();
  using T = TrustLevel;
  EXPECT_EQ(audit.trust_levels(),
            (std::vector<TrustLevel>{T::verified, T::trusted_external, T::checked,
                                     T::trusted_external, T::trusted_external, T::verified}));
  EXPECT_EQ(audit.capsule_names(), (std::vector<std::string>{"cpu.sin", "ext.tanh", "cpu.relu",
                                                             "ext.tanh", "ext.relu", "cpu.sin"}));
  // Distinct ops, in row order, once each.
  EXPECT_EQ(audit.trusted_external_ops(),
            (std::vector<BackendOp>{BackendOp::tanh, BackendOp::relu}));
  EXPECT_TRUE(audit.has_trusted_external());
  EXPECT_EQ(audit.distinct_capsules(), (std::vector<CapsuleId>{3, 1, 0, 2}));
}

TEST(ExecutionAudit, WithoutTrustedExternalRows) {
  const auto registry = std::make_shared<const Registry>(mixed_registry());
  const ExecutionPlan plan{.registry = registry,
                           .kernels = {{BackendOp::relu, 0}, {BackendOp::sin, 3}}};
  const ExecutionAudit audit(plan);
  EXPECT_TRUE(audit.trusted_external_ops().empty());
  EXPECT_FALSE(audit.has_trusted_external());
  EXPECT_EQ(audit.distinct_capsules(), (std::vector<CapsuleId>{0, 3}));
}

TEST(ExecutionAudit, EmptyPlan) {
  const auto registry = std::make_shared<const Registry>(mixed_registry());
  const ExecutionAudit audit(ExecutionPlan{.registry = registry, .kernels = {}});
  EXPECT_EQ(audit.size(), 0u);
  EXPECT_TRUE(audit.trust_levels().empty());
  EXPECT_TRUE(audit.capsule_names().empty());
  EXPECT_TRUE(audit.distinct_capsules().empty());
  EXPECT_FALSE(audit.has_trusted_external());
  EXPECT_TRUE(recheck(audit).empty());
}

TEST(ExecutionAudit, GraphUnderCheckedCpu) {
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  auto plan =
      plan_graph(profile, checked(unary_chain({K::relu, K::relu, K::tanh, K::detach, K::relu})));
  ASSERT_TRUE(plan.has_value());
  const ExecutionAudit audit = to_coalesced_lowering_plan(*plan).audit();
  EXPECT_EQ(audit.capsule_names(),
            (std::vector<std::string>{"reference.relu", "reference.tanh", "reference.relu"}));
  EXPECT_EQ(audit.distinct_capsules().size(), 2u);
  EXPECT_FALSE(audit.has_trusted_external());
  EXPECT_EQ(audit.trust_levels(), std::vector<TrustLevel>(3, TrustLevel::checked));
}

// --- Dispositions and the recheck -----------------------------------------------------------

TEST(Disposition, OfEachEvidenceKind) {
  struct Case {
    EvidenceKind kind;
    Disposition disposition;
  };
  const std::vector<Case> cases = {
      {EvidenceKind::theorem, Disposition::proved},
      {EvidenceKind::checker, Disposition::checked},
      {EvidenceKind::runtime_guard, Disposition::guarded},
      {EvidenceKind::test_suite, Disposition::tested},
      {EvidenceKind::fuzz_oracle, Disposition::fuzzed},
      {EvidenceKind::trusted_boundary, Disposition::trusted},
      {EvidenceKind::not_provided, Disposition::missing},
  };
  ASSERT_EQ(cases.size(), kEvidenceKindNames.size());
  for (const Case& c : cases)
    EXPECT_EQ(disposition(c.kind), c.disposition) << to_string(c.kind);
}

// A capsule with one evidence kind per field, so each report's disposition differs.
KernelCapsule mixed_evidence_capsule() {
  KernelCapsule c = aligned_capsule("mix.relu", BackendOp::relu, Provider::reference, Device::cpu);
  c.shape.evidence = {EvidenceKind::theorem, "Relu.shape_ok"};
  c.layout.evidence = {EvidenceKind::checker, "layout_checker"};
  c.value.evidence = {EvidenceKind::fuzz_oracle, "relu_oracle"};
  c.vjp.evidence = {EvidenceKind::not_provided, ""};
  return c;
}

TEST(ObligationsOf, FourReportsInFieldOrder) {
  const KernelCapsule c = mixed_evidence_capsule();
  const std::vector<ObligationReport> reports = obligations_of(c);
  ASSERT_EQ(reports.size(), 4u);
  const std::vector<ContractField> fields = {ContractField::shape, ContractField::layout,
                                             ContractField::value, ContractField::vjp};
  const std::vector<Disposition> dispositions = {Disposition::proved, Disposition::checked,
                                                 Disposition::fuzzed, Disposition::missing};
  for (std::size_t i = 0; i < 4; ++i) {
    const ObligationReport& r = reports[i];
    EXPECT_EQ(r.op, BackendOp::relu);
    EXPECT_EQ(r.capsule, "mix.relu");
    EXPECT_EQ(r.field, fields[i]);
    EXPECT_EQ(r.claim, label(c.contract(fields[i]).claim));
    EXPECT_EQ(r.evidence, c.contract(fields[i]).evidence);
    EXPECT_EQ(r.disposition, dispositions[i]);
  }
  EXPECT_EQ(reports[0].claim, "shape safety for relu");
  EXPECT_EQ(reports[2].claim, "relu forward refines Spec.relu");
}

TEST(Recheck, FourReportsPerRowInRowAndFieldOrder) {
  KernelCapsule mix = mixed_evidence_capsule();
  const auto registry = shared_registry_of({
      aligned_capsule("cpu.tanh", BackendOp::tanh, Provider::reference, Device::cpu),
      mix,
  });
  // Rows: tanh, relu(mix), tanh; the repeated capsule is rechecked per row.
  const ExecutionPlan plan{
      .registry = registry,
      .kernels = {{BackendOp::tanh, 0}, {BackendOp::relu, 1}, {BackendOp::tanh, 0}}};
  const ExecutionAudit audit(plan);
  const std::vector<ObligationReport> reports = recheck(audit);
  ASSERT_EQ(reports.size(), 12u);
  for (std::size_t row = 0; row < 3; ++row) {
    const std::vector<ObligationReport> expected = obligations_of(audit.capsule(row));
    for (std::size_t f = 0; f < 4; ++f) {
      EXPECT_EQ(reports[row * 4 + f], expected[f]) << "row " << row << " field " << f;
    }
  }
  const std::vector<Disposition> tanh_dispositions = {Disposition::guarded, Disposition::guarded,
                                                      Disposition::tested, Disposition::tested};
  for (std::size_t f = 0; f < 4; ++f) {
    EXPECT_EQ(reports[f].disposition, tanh_dispositions[f]);
    EXPECT_EQ(reports[8 + f].disposition, tanh_dispositions[f]);
  }
  EXPECT_EQ(reports[4].disposition, Disposition::proved);
  EXPECT_EQ(reports[7].disposition, Disposition::missing);
}

TEST(Recheck, BuiltinLibtorchBoundaryIsTrusted) {
  const BackendProfile profile = make_profile(MaintainedProfile::libtorch_forward_cuda);
  const BackendOp op[] = {BackendOp::scaled_dot_product_attention};
  auto plan = plan_ops(profile, op);
  ASSERT_TRUE(plan.has_value()) << render(plan.error());
  const ExecutionAudit audit(*plan);
  EXPECT_EQ(audit.capsule_names(), (std::vector<std::string>{"libtorch.sdpa_forward"}));
  EXPECT_EQ(audit.trusted_external_ops(),
            (std::vector<BackendOp>{BackendOp::scaled_dot_product_attention}));
  const std::vector<ObligationReport> reports = recheck(audit);
  ASSERT_EQ(reports.size(), 4u);
  EXPECT_EQ(reports[2].field, ContractField::value);
  EXPECT_EQ(reports[2].disposition, Disposition::trusted);
}

}  // namespace
}  // namespace nnplan::backend
