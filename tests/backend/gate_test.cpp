// The gate (SPEC §8): each failure kind triggered alone by a custom capsule carrying one evidence
// kind under a custom policy with one switch off; proved and checked evidence always pass; the
// fixed order of failures when several occur; obligations listed once per distinct capsule; the
// gate error's message and notes; the failure-kind spellings.
#include "nnplan/backend/gate.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"

namespace nnplan::backend {
namespace {

using fixtures::aligned_capsule;
using fixtures::registry_of;
using fixtures::shared_registry_of;
using F = GateFailureKind;

// Every evidence switch on, nothing required: the gate passes everything.
constexpr AssurancePolicy kPermissive = {.allow_checked = true,
                                         .allow_fuzzed = true,
                                         .allow_trusted_external = true,
                                         .require_evidence = false,
                                         .allow_runtime_guards = true,
                                         .allow_test_evidence = true};

AssurancePolicy permissive_but(const std::function<void(AssurancePolicy&)>& change) {
  AssurancePolicy p = kPermissive;
  change(p);
  return p;
}

// A relu capsule whose four fields all carry `kind`.
KernelCapsule uniform_evidence(std::string name, EvidenceKind kind,
                               BackendOp op = BackendOp::relu) {
  KernelCapsule c = aligned_capsule(name, op, Provider::reference, Device::cpu);
  for (ContractDescriptor* d : {&c.shape, &c.layout, &c.value, &c.vjp}) {
    d->evidence = {kind, kind == EvidenceKind::not_provided ? "" : name + ".evidence"};
  }
  return c;
}

std::vector<F> kinds_of(const std::vector<GateFailure>& failures) {
  std::vector<F> out;
  for (const GateFailure& f : failures)
    out.push_back(f.kind);
  return out;
}

// --- Each failure kind alone -----------------------------------------------------------------

struct AloneCase {
  std::string name;
  EvidenceKind evidence;
  AssurancePolicy policy;
  std::vector<F> expected;
};

void PrintTo(const AloneCase& c, std::ostream* os) {
  *os << c.name;
}

class GateAloneTest : public ::testing::TestWithParam<AloneCase> {};

TEST_P(GateAloneTest, TriggersExactlyItsKind) {
  const AloneCase& c = GetParam();
  const auto registry = shared_registry_of({uniform_evidence("x.relu", c.evidence)});
  const ExecutionAudit audit(
      ExecutionPlan{.registry = registry, .kernels = {{BackendOp::relu, 0}}});
  const std::vector<GateFailure> failures = gate(c.policy, audit);
  ASSERT_EQ(kinds_of(failures), c.expected);
  if (failures.empty()) return;
  // All four fields carry the evidence, so the one failure lists all four obligations.
  EXPECT_EQ(failures[0].obligations, obligations_of(registry->capsule(0)));
  // gate_failure_for agrees with the gate.
  EXPECT_EQ(gate_failure_for(c.policy, disposition(c.evidence)), c.expected[0]);
}

const AssurancePolicy kVerified = AssurancePolicy::verified();

INSTANTIATE_TEST_SUITE_P(
    Kinds, GateAloneTest,
    ::testing::Values(
        // Proved and checked evidence pass even the strictest policy.
        AloneCase{"theorem_passes_verified", EvidenceKind::theorem, kVerified, {}},
        AloneCase{"checker_passes_verified", EvidenceKind::checker, kVerified, {}},
        AloneCase{"theorem_passes_strictest",
                  EvidenceKind::theorem,
                  AssurancePolicy{.require_evidence = true},
                  {}},
        // not-provided: only when evidence is required.
        AloneCase{"missing_when_required",
                  EvidenceKind::not_provided,
                  permissive_but([](AssurancePolicy& p) { p.require_evidence = true; }),
                  {F::missing_evidence}},
        AloneCase{"missing_not_required", EvidenceKind::not_provided, kPermissive, {}},
        AloneCase{
            "missing_under_verified", EvidenceKind::not_provided, kVerified, {F::missing_evidence}},
        // runtime-guard: unless allow_runtime_guards.
        AloneCase{"guard_not_allowed",
                  EvidenceKind::runtime_guard,
                  permissive_but([](AssurancePolicy& p) { p.allow_runtime_guards = false; }),
                  {F::runtime_guard_evidence}},
        AloneCase{"guard_allowed", EvidenceKind::runtime_guard, kPermissive, {}},
        AloneCase{"guard_under_verified",
                  EvidenceKind::runtime_guard,
                  kVerified,
                  {F::runtime_guard_evidence}},
        // test-suite: unless allow_test_evidence.
        AloneCase{"test_not_allowed",
                  EvidenceKind::test_suite,
                  permissive_but([](AssurancePolicy& p) { p.allow_test_evidence = false; }),
                  {F::test_evidence}},
        AloneCase{"test_allowed", EvidenceKind::test_suite, kPermissive, {}},
        // trusted-boundary: unless allow_trusted_external.
        AloneCase{"trusted_not_allowed",
                  EvidenceKind::trusted_boundary,
                  permissive_but([](AssurancePolicy& p) { p.allow_trusted_external = false; }),
                  {F::trusted_boundary}},
        AloneCase{"trusted_allowed", EvidenceKind::trusted_boundary, kPermissive, {}},
        AloneCase{"trusted_under_checked",
                  EvidenceKind::trusted_boundary,
                  AssurancePolicy::checked(),
                  {F::trusted_boundary}},
        AloneCase{"trusted_under_external",
                  EvidenceKind::trusted_boundary,
                  AssurancePolicy::external(),
                  {}},
        // fuzz-oracle: unless allow_fuzzed.
        AloneCase{"fuzz_not_allowed",
                  EvidenceKind::fuzz_oracle,
                  permissive_but([](AssurancePolicy& p) { p.allow_fuzzed = false; }),
                  {F::fuzz_evidence}},
        AloneCase{"fuzz_allowed", EvidenceKind::fuzz_oracle, kPermissive, {}},
        // A switch for another kind changes nothing.
        AloneCase{"guard_unaffected_by_other_switches",
                  EvidenceKind::runtime_guard,
                  permissive_but([](AssurancePolicy& p) {
                    p.allow_test_evidence = false;
                    p.allow_fuzzed = false;
                    p.allow_trusted_external = false;
                    p.require_evidence = true;
                  }),
                  {}}),
    [](const ::testing::TestParamInfo<AloneCase>& info) { return info.param.name; });

// gate_failure_for over every (switch, disposition) pair: the failure kind or none.
TEST(GateFailureFor, EveryDispositionUnderEverySingleSwitch) {
  using D = Disposition;
  struct Case {
    D disposition;
    std::optional<F> when_strict;  // under AssurancePolicy{} (verified)
    std::optional<F> when_permissive;
  };
  const std::vector<Case> cases = {
      {D::proved, std::nullopt, std::nullopt},
      {D::checked, std::nullopt, std::nullopt},
      {D::guarded, F::runtime_guard_evidence, std::nullopt},
      {D::tested, F::test_evidence, std::nullopt},
      {D::fuzzed, F::fuzz_evidence, std::nullopt},
      {D::trusted, F::trusted_boundary, std::nullopt},
      {D::missing, F::missing_evidence, std::nullopt},
  };
  ASSERT_EQ(cases.size(), kDispositionNames.size());
  for (const Case& c : cases) {
    EXPECT_EQ(gate_failure_for(kVerified, c.disposition), c.when_strict)
        << to_string(c.disposition);
    EXPECT_EQ(gate_failure_for(kPermissive, c.disposition), c.when_permissive)
        << to_string(c.disposition);
  }
}

// --- Order of failures -----------------------------------------------------------------------

TEST(Gate, FailuresComeInSpecOrderWhateverTheRowOrder) {
  // Rows list the capsules in the reverse of the SPEC order.
  const auto registry = shared_registry_of({
      uniform_evidence("fuzz.relu", EvidenceKind::fuzz_oracle, BackendOp::relu),
      uniform_evidence("ext.tanh", EvidenceKind::trusted_boundary, BackendOp::tanh),
      uniform_evidence("tested.exp", EvidenceKind::test_suite, BackendOp::exp),
      uniform_evidence("guarded.log", EvidenceKind::runtime_guard, BackendOp::log),
      uniform_evidence("bare.sin", EvidenceKind::not_provided, BackendOp::sin),
      uniform_evidence("proved.cos", EvidenceKind::theorem, BackendOp::cos),
  });
  ExecutionPlan plan{.registry = registry, .kernels = {}};
  for (CapsuleId id = 0; id < registry->size(); ++id) {
    plan.kernels.push_back({registry->capsule(id).op, id});
  }
  const ExecutionAudit audit(plan);
  const std::vector<GateFailure> failures = gate(kVerified, audit);
  EXPECT_EQ(kinds_of(failures),
            (std::vector<F>{F::missing_evidence, F::runtime_guard_evidence, F::test_evidence,
                            F::trusted_boundary, F::fuzz_evidence}));
  const std::vector<std::string> capsule_of_failure = {"bare.sin", "guarded.log", "tested.exp",
                                                       "ext.tanh", "fuzz.relu"};
  for (std::size_t i = 0; i < failures.size(); ++i) {
    ASSERT_EQ(failures[i].obligations.size(), 4u) << to_string(failures[i].kind);
    for (const ObligationReport& r : failures[i].obligations) {
      EXPECT_EQ(r.capsule, capsule_of_failure[i]) << to_string(failures[i].kind);
    }
  }
  // Allowing some kinds removes exactly those, keeping the others' order.
  const AssurancePolicy some = {.allow_checked = false,
                                .allow_fuzzed = false,
                                .allow_trusted_external = true,
                                .require_evidence = false,
                                .allow_runtime_guards = true,
                                .allow_test_evidence = false};
  EXPECT_EQ(kinds_of(gate(some, audit)), (std::vector<F>{F::test_evidence, F::fuzz_evidence}));
}

TEST(Gate, MixedFieldsOfOneCapsuleSplitByKind) {
  KernelCapsule c = aligned_capsule("mix.relu", BackendOp::relu, Provider::reference, Device::cpu);
  c.shape.evidence = {EvidenceKind::fuzz_oracle, "oracle"};
  c.layout.evidence = {EvidenceKind::not_provided, ""};
  c.value.evidence = {EvidenceKind::trusted_boundary, "external"};
  c.vjp.evidence = {EvidenceKind::checker, "vjp_checker"};
  const auto registry = shared_registry_of({c});
  const ExecutionAudit audit(
      ExecutionPlan{.registry = registry, .kernels = {{BackendOp::relu, 0}}});
  const std::vector<GateFailure> failures = gate(kVerified, audit);
  ASSERT_EQ(kinds_of(failures),
            (std::vector<F>{F::missing_evidence, F::trusted_boundary, F::fuzz_evidence}));
  const std::vector<ContractField> fields = {ContractField::layout, ContractField::value,
                                             ContractField::shape};
  for (std::size_t i = 0; i < failures.size(); ++i) {
    ASSERT_EQ(failures[i].obligations.size(), 1u);
    EXPECT_EQ(failures[i].obligations[0].field, fields[i]);
  }
}

// --- Once per distinct capsule -----------------------------------------------------------------

TEST(Gate, ListsObligationsOncePerDistinctCapsuleInFirstAppearanceOrder) {
  const auto registry = shared_registry_of({
      aligned_capsule("a.relu", BackendOp::relu, Provider::reference, Device::cpu),
      aligned_capsule("b.tanh", BackendOp::tanh, Provider::reference, Device::cpu),
  });
  // b appears first; a is used by five rows, b by three.
  ExecutionPlan plan{.registry = registry, .kernels = {}};
  for (CapsuleId id : {1, 0, 0, 1, 0, 0, 1, 0}) {
    plan.kernels.push_back({registry->capsule(id).op, id});
  }
  const ExecutionAudit audit(plan);
  const std::vector<GateFailure> failures = gate(kVerified, audit);
  ASSERT_EQ(kinds_of(failures), (std::vector<F>{F::runtime_guard_evidence, F::test_evidence}));
  const auto who = [](const GateFailure& f) {
    std::vector<std::string> out;
    for (const ObligationReport& r : f.obligations) {
      out.push_back(r.capsule + ":" + std::string(to_string(r.field)));
    }
    return out;
  };
  EXPECT_EQ(who(failures[0]), (std::vector<std::string>{"b.tanh:shape", "b.tanh:layout",
                                                        "a.relu:shape", "a.relu:layout"}));
  EXPECT_EQ(who(failures[1]),
            (std::vector<std::string>{"b.tanh:value", "b.tanh:vjp", "a.relu:value", "a.relu:vjp"}));
}

TEST(Gate, EmptyAuditPasses) {
  const auto registry =
      shared_registry_of({uniform_evidence("x.relu", EvidenceKind::not_provided)});
  EXPECT_TRUE(
      gate(kVerified, ExecutionAudit(ExecutionPlan{.registry = registry, .kernels = {}})).empty());
}

// --- Failing groups and node ids ---------------------------------------------------------------

// Each failure names the rows whose capsule failed that kind, ascending, and only those.
TEST(Gate, NamesTheRowsOfEachFailureKind) {
  const auto registry = shared_registry_of({
      uniform_evidence("bare.sin", EvidenceKind::not_provided, BackendOp::sin),
      uniform_evidence("proved.cos", EvidenceKind::theorem, BackendOp::cos),
      uniform_evidence("tested.exp", EvidenceKind::test_suite, BackendOp::exp),
  });
  ExecutionPlan plan{.registry = registry, .kernels = {}};
  for (CapsuleId id : {1, 2, 0, 1, 2, 0, 0}) {
    plan.kernels.push_back({registry->capsule(id).op, id});
  }
  const std::vector<GateFailure> failures = gate(kVerified, ExecutionAudit(plan));
  ASSERT_EQ(kinds_of(failures), (std::vector<F>{F::missing_evidence, F::test_evidence}));
  EXPECT_EQ(failures[0].groups, (std::vector<std::uint32_t>{2, 5, 6}));
  EXPECT_EQ(failures[1].groups, (std::vector<std::uint32_t>{1, 4}));
  // An op list has no nodes.
  EXPECT_TRUE(failures[0].node_ids.empty());
  EXPECT_TRUE(failures[1].node_ids.empty());
}

// SPEC §8 clarified: three nodes on one capsule with missing evidence are one failure whose one
// capsule's obligations are listed once, naming every group and every node.
TEST(Gate, ThreeNodesOnOneCapsuleAreAllNamed) {
  const auto registry =
      shared_registry_of({uniform_evidence("bare.relu", EvidenceKind::not_provided)});
  for (const bool coalesced : {true, false}) {
    GraphExecutionPlan plan{.registry = registry, .kernels = {}};
    for (ir::NodeId id : {2, 5, 9}) {
      plan.kernels.push_back({id, ir::OpKind::relu, BackendOp::relu, 0});
    }
    const GraphLoweringPlan lowering =
        coalesced ? to_coalesced_lowering_plan(plan) : to_singleton_lowering_plan(plan);
    const std::vector<GateFailure> failures = gate(kVerified, lowering, lowering.audit());
    ASSERT_EQ(kinds_of(failures), (std::vector<F>{F::missing_evidence})) << coalesced;
    EXPECT_EQ(failures[0].obligations.size(), 4u);
    EXPECT_EQ(failures[0].groups,
              coalesced ? std::vector<std::uint32_t>{0} : (std::vector<std::uint32_t>{0, 1, 2}));
    EXPECT_EQ(failures[0].node_ids, (std::vector<ir::NodeId>{2, 5, 9}));
    EXPECT_EQ(gate_error(kVerified, failures).notes[0],
              coalesced ? "missing-evidence: groups 0; nodes 2,5,9"
                        : "missing-evidence: groups 0-2; nodes 2,5,9");
  }
}

// The graph overload names, per failure, the nodes of exactly the groups it names, in order.
TEST(Gate, GraphOverloadNamesTheNodesOfTheFailingGroups) {
  const auto registry = shared_registry_of({
      uniform_evidence("proved.relu", EvidenceKind::theorem, BackendOp::relu),
      uniform_evidence("guarded.tanh", EvidenceKind::runtime_guard, BackendOp::tanh),
  });
  GraphExecutionPlan plan{.registry = registry, .kernels = {}};
  // Groups after coalescing: [1,2] relu, [3] tanh, [4] relu, [6,7] tanh.
  const std::vector<std::pair<ir::NodeId, CapsuleId>> nodes = {{1, 0}, {2, 0}, {3, 1},
                                                               {4, 0}, {6, 1}, {7, 1}};
  for (const auto& [id, capsule] : nodes) {
    const BackendOp op = registry->capsule(capsule).op;
    plan.kernels.push_back(
        {id, op == BackendOp::relu ? ir::OpKind::relu : ir::OpKind::tanh, op, capsule});
  }
  const GraphLoweringPlan lowering = to_coalesced_lowering_plan(plan);
  ASSERT_EQ(lowering.groups.size(), 4u);
  const std::vector<GateFailure> failures = gate(kVerified, lowering, lowering.audit());
  ASSERT_EQ(kinds_of(failures), (std::vector<F>{F::runtime_guard_evidence}));
  EXPECT_EQ(failures[0].groups, (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(failures[0].node_ids, (std::vector<ir::NodeId>{3, 6, 7}));
  // The audit-only overload agrees on everything but the node ids.
  std::vector<GateFailure> without_nodes = failures;
  without_nodes[0].node_ids.clear();
  EXPECT_EQ(gate(kVerified, lowering.audit()), without_nodes);
}

// --- gate_error --------------------------------------------------------------------------------

// A note names runs of three or more consecutive ids as ranges, and at most 32 runs, saying how
// many ids it leaves out; the failure itself keeps every id.
TEST(GateError, NoteIdListsUseRangesAndStopAfterThirtyTwoRuns) {
  GateFailure f{
      .kind = GateFailureKind::missing_evidence, .groups = {0, 1, 2, 3, 7, 9, 10}, .node_ids = {}};
  for (std::uint32_t i = 0; i < 40; ++i)
    f.node_ids.push_back(i * 2);  // 40 runs of one id
  const Error e = gate_error(kVerified, {f});
  ASSERT_FALSE(e.notes.empty());
  std::string expected = "missing-evidence: groups 0-3,7,9,10; nodes ";
  for (std::uint32_t i = 0; i < 32; ++i)
    expected += (i == 0 ? "" : ",") + std::to_string(i * 2);
  expected += ",... (8 more)";
  EXPECT_EQ(e.notes[0], expected);
}

TEST(GateError, MessageKindAndOneNotePerObligation) {
  const auto registry = shared_registry_of({
      aligned_capsule("a.relu", BackendOp::relu, Provider::reference, Device::cpu),
  });
  const ExecutionAudit audit(
      ExecutionPlan{.registry = registry, .kernels = {{BackendOp::relu, 0}, {BackendOp::relu, 0}}});
  const Error e = gate_error(kVerified, gate(kVerified, audit));
  EXPECT_EQ(e.kind, ErrorKind::rejected_by_policy);
  EXPECT_EQ(e.message,
            "plan rejected by assurance policy verified: runtime-guard-evidence, "
            "test-evidence");
  EXPECT_EQ(e.notes,
            (std::vector<std::string>{
                "runtime-guard-evidence: groups 0,1",
                "runtime-guard-evidence: a.relu shape: shape safety for relu; guarded at runtime "
                "by a.relu.shape_guard",
                "runtime-guard-evidence: a.relu layout: canonical-tensor layout compatibility for "
                "relu; guarded at runtime by a.relu.layout_guard",
                "test-evidence: groups 0,1",
                "test-evidence: a.relu value: relu forward refines Spec.relu; covered by test "
                "suite a.relu.forward_tests",
                "test-evidence: a.relu vjp: relu torchlean-tape VJP refines Spec.relu; covered by "
                "test suite a.relu.vjp_tests"}));
}

TEST(GateError, CustomPolicyIsLabelledCustom) {
  const AssurancePolicy policy = permissive_but([](AssurancePolicy& p) { p.allow_fuzzed = false; });
  const auto registry = shared_registry_of({uniform_evidence("f.relu", EvidenceKind::fuzz_oracle)});
  const ExecutionAudit audit(
      ExecutionPlan{.registry = registry, .kernels = {{BackendOp::relu, 0}}});
  EXPECT_EQ(gate_error(policy, gate(policy, audit)).message,
            "plan rejected by assurance policy custom: fuzz-evidence");
}

// --- Spellings ---------------------------------------------------------------------------------

TEST(GateFailureKind, SpellingsRoundTrip) {
  const std::vector<std::string> names = {"missing-evidence", "runtime-guard-evidence",
                                          "test-evidence", "trusted-boundary", "fuzz-evidence"};
  ASSERT_EQ(names.size(), kGateFailureKindNames.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(to_string(static_cast<F>(i)), names[i]);
    EXPECT_EQ(parse_gate_failure_kind(names[i]), static_cast<F>(i));
  }
  EXPECT_FALSE(parse_gate_failure_kind("runtime-guard").has_value());
}

}  // namespace
}  // namespace nnplan::backend
