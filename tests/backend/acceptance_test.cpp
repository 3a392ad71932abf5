// Acceptance (SPEC §8–§9): a graph accepted under checked_cpu; rejected under the verified policy
// with the gate's message; an AcceptedGraphPlan obtainable only through the gate; a graph with an
// op that has no capsule on the profile's device fails with the explanation; evaluate_graph
// returns gate failures as data; lowering follows the profile's mode; and the graph report text
// of `nnplan plan` against golden files in tests/golden (NNPLAN_UPDATE_GOLDEN=1 rewrites them).
#include "nnplan/backend/acceptance.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "capsule_fixtures.hpp"
#include "graph_plan_fixtures.hpp"
#include "nnplan/backend/report.hpp"

namespace nnplan::backend {
namespace {

using fixtures::aligned_capsule;
using fixtures::checked;
using fixtures::GraphBuilder;
using fixtures::registry_of;
using fixtures::shape;
using fixtures::shared_registry_of;
using fixtures::unary_chain;
using K = ir::OpKind;

// input [2,3] → linear [2,4] → relu → detach → relu → flatten [8] → reshape [2,4]
// → add(reshape, linear) → softmax(axis 1)
ir::Graph small_mlp() {
  GraphBuilder b;
  const ir::NodeId x = b.input(shape({2, 3}));                           // 0
  const ir::NodeId l = b.add(K::linear, {x}, shape({2, 4}), {}, "fc1");  // 1
  const ir::NodeId r1 = b.add(K::relu, {l}, shape({2, 4}));              // 2
  const ir::NodeId d = b.add(K::detach, {r1}, shape({2, 4}));            // 3
  const ir::NodeId r2 = b.add(K::relu, {d}, shape({2, 4}));              // 4
  const ir::NodeId f = b.add(K::flatten, {r2}, shape({8}), ir::FlattenParams{shape({2, 4})});
  const ir::NodeId rs =
      b.add(K::reshape, {f}, shape({2, 4}), ir::ReshapeParams{shape({8}), shape({2, 4})});
  const ir::NodeId a = b.add(K::add, {rs, l}, shape({2, 4}));  // 7
  b.add(K::softmax, {a}, shape({2, 4}), ir::AxisParams{1});    // 8
  return std::move(b).build();
}

// checked_cpu's device and target, assurance `verified`, and a registry of verified-trust
// capsules whose evidence is runtime guards and test suites: planning admits them, the gate
// does not.
BackendProfile verified_profile() {
  BackendProfile p = make_profile(MaintainedProfile::checked_cpu);
  p.name = "verified_guarded_cpu";
  p.config.assurance = AssurancePolicy::verified();
  std::vector<KernelCapsule> capsules;
  for (BackendOp op : {BackendOp::relu, BackendOp::tanh, BackendOp::linear}) {
    capsules.push_back(aligned_capsule("guarded." + std::string(to_string(op)), op,
                                       Provider::reference, Device::cpu, TrustLevel::verified));
  }
  p.registry = shared_registry_of(std::move(capsules));
  return p;
}

// --- Accepted ----------------------------------------------------------------------------

TEST(AcceptGraph, CheckedCpuAcceptsAndKeepsTheLoweringAndAudit) {
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  auto accepted = accept_graph(profile, checked(small_mlp()));
  ASSERT_TRUE(accepted.has_value()) << render(accepted.error());
  const GraphLoweringPlan& lowering = accepted->lowering();
  EXPECT_EQ(lowering.registry, profile.registry);
  EXPECT_EQ(lowering.node_ids(), (std::vector<ir::NodeId>{1, 2, 4, 5, 6, 7, 8}));
  EXPECT_EQ(lowering.capsule_names(),
            (std::vector<std::string>{"reference.linear", "reference.relu", "reference.reshape",
                                      "reference.add", "reference.softmax"}));
  EXPECT_EQ(accepted->audit().size(), lowering.groups.size());
  EXPECT_EQ(accepted->audit().capsule_names(), lowering.capsule_names());
}

TEST(ThroughGate, PassesWhenTheGatePasses) {
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  auto plan = plan_graph(profile, checked(unary_chain({K::relu, K::relu})));
  ASSERT_TRUE(plan.has_value());
  auto accepted = AcceptedGraphPlan::through_gate(to_coalesced_lowering_plan(*plan),
                                                  AssurancePolicy::checked());
  ASSERT_TRUE(accepted.has_value());
  EXPECT_EQ(accepted->lowering().groups.size(), 1u);
  EXPECT_EQ(accepted->audit().size(), 1u);
}

// --- Rejected by the verified policy ------------------------------------------------------

TEST(ThroughGate, VerifiedPolicyRejectsGuardAndTestEvidence) {
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  auto plan = plan_graph(profile, checked(small_mlp()));
  ASSERT_TRUE(plan.has_value());
  auto accepted = AcceptedGraphPlan::through_gate(to_coalesced_lowering_plan(*plan),
                                                  AssurancePolicy::verified());
  ASSERT_FALSE(accepted.has_value());
  EXPECT_EQ(accepted.error().kind, ErrorKind::rejected_by_policy);
  EXPECT_EQ(accepted.error().message,
            "plan rejected by assurance policy verified: runtime-guard-evidence, test-evidence");
  // Per failure kind one note naming its groups and nodes, then five distinct capsules with two
  // guarded and two tested fields each.
  EXPECT_EQ(accepted.error().notes.size(), 22u);
  EXPECT_EQ(accepted.error().notes[0], "runtime-guard-evidence: groups 0-4; nodes 1,2,4-8");
}

TEST(AcceptGraph, VerifiedProfileRejectsWithTheGateError) {
  const BackendProfile profile = verified_profile();
  auto accepted = accept_graph(profile, checked(unary_chain({K::relu, K::tanh, K::relu})));
  ASSERT_FALSE(accepted.has_value());
  EXPECT_EQ(accepted.error().kind, ErrorKind::rejected_by_policy);
  EXPECT_EQ(accepted.error().message,
            "plan rejected by assurance policy verified: runtime-guard-evidence, test-evidence");
  // Per kind, the groups and nodes, then relu's and tanh's obligations (two each).
  ASSERT_EQ(accepted.error().notes.size(), 10u);
  EXPECT_EQ(accepted.error().notes[0], "runtime-guard-evidence: groups 0-2; nodes 1-3");
  EXPECT_EQ(accepted.error().notes[5], "test-evidence: groups 0-2; nodes 1-3");
  EXPECT_EQ(accepted.error().notes[1],
            "runtime-guard-evidence: guarded.relu shape: shape safety for relu; guarded at "
            "runtime by guarded.relu.shape_guard");
  EXPECT_TRUE(accepted.error().candidates.empty());
  EXPECT_EQ(accepted.error().position, std::nullopt);
}

// --- Only through the gate ------------------------------------------------------------------

static_assert(!std::is_default_constructible_v<AcceptedGraphPlan>);
static_assert(!std::is_constructible_v<AcceptedGraphPlan, GraphLoweringPlan, ExecutionAudit>);
static_assert(!std::is_constructible_v<AcceptedGraphPlan, GraphLoweringPlan>);
static_assert(!std::is_constructible_v<AcceptedGraphPlan, GraphEvaluation>);

TEST(AcceptedGraphPlan, OnlyThroughTheGate) {
  // Compile-time: no public constructor but copy and move (see the static_asserts above).
  // Run-time: the two factories agree.
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  const ir::CheckedGraph graph = checked(small_mlp());
  auto via_accept = accept_graph(profile, graph);
  auto plan = plan_graph(profile, graph);
  ASSERT_TRUE(via_accept.has_value() && plan.has_value());
  auto via_gate = AcceptedGraphPlan::through_gate(lower(profile, graph.graph(), *plan),
                                                  profile.config.assurance);
  ASSERT_TRUE(via_gate.has_value());
  EXPECT_EQ(via_gate->lowering().groups, via_accept->lowering().groups);
  EXPECT_EQ(via_gate->lowering().nodes, via_accept->lowering().nodes);
  EXPECT_EQ(via_gate->audit().capsule_names(), via_accept->audit().capsule_names());
}

// --- No capsule on the profile's device --------------------------------------------------------

TEST(AcceptGraph, OpWithoutCapsuleOnTheDeviceFailsWithTheExplanation) {
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cuda);
  const ir::CheckedGraph graph = checked(unary_chain({K::relu, K::sin, K::tanh}));
  for (const bool evaluate : {false, true}) {
    const Error e =
        evaluate ? evaluate_graph(profile, graph).error() : accept_graph(profile, graph).error();
    EXPECT_EQ(e.kind, ErrorKind::rejected_by_policy);
    EXPECT_EQ(e.message, "no admissible backend capsule for op sin on device cuda");
    EXPECT_EQ(e.position, std::optional<std::size_t>(2));
    EXPECT_EQ(e.context, (std::vector<std::string>{"at node 2 (sin)"}));
    EXPECT_EQ(fixtures::candidate_names(e), (std::vector<std::string>{"reference.sin"}));
    ASSERT_FALSE(e.candidates.empty());
    EXPECT_FALSE(e.candidates[0].reasons.empty());
    EXPECT_EQ(e.candidates[0].reasons[0].code, "wrong-device");
  }
}

// --- evaluate_graph ---------------------------------------------------------------------------

TEST(EvaluateGraph, ReturnsGateFailuresAsData) {
  const BackendProfile profile = verified_profile();
  auto evaluation = evaluate_graph(profile, checked(unary_chain({K::relu, K::relu, K::tanh})));
  ASSERT_TRUE(evaluation.has_value()) << render(evaluation.error());
  EXPECT_FALSE(evaluation->accepted());
  ASSERT_EQ(evaluation->gate_failures.size(), 2u);
  EXPECT_EQ(evaluation->gate_failures[0].kind, GateFailureKind::runtime_guard_evidence);
  EXPECT_EQ(evaluation->gate_failures[1].kind, GateFailureKind::test_evidence);
  EXPECT_EQ(evaluation->lowering.groups.size(), 2u);
  EXPECT_EQ(evaluation->audit.size(), 2u);
  EXPECT_EQ(evaluation->gate_failures,
            gate(profile.config.assurance, evaluation->lowering, evaluation->audit));
  for (const GateFailure& f : evaluation->gate_failures) {
    EXPECT_EQ(f.groups, (std::vector<std::uint32_t>{0, 1}));
    EXPECT_EQ(f.node_ids, (std::vector<ir::NodeId>{1, 2, 3}));
  }
}

TEST(EvaluateGraph, AcceptedUnderCheckedCpu) {
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  auto evaluation = evaluate_graph(profile, checked(small_mlp()));
  ASSERT_TRUE(evaluation.has_value());
  EXPECT_TRUE(evaluation->accepted());
  EXPECT_TRUE(evaluation->gate_failures.empty());
  EXPECT_EQ(evaluation->lowering.groups.size(), 5u);
}

// --- lower follows the profile's mode ---------------------------------------------------------

TEST(Lower, FollowsTheProfileMode) {
  BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  const ir::CheckedGraph graph = checked(small_mlp());
  auto plan = plan_graph(profile, graph);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(profile.lowering, LoweringMode::coalesced);
  EXPECT_EQ(lower(profile, graph.graph(), *plan).groups, to_coalesced_lowering_plan(*plan).groups);
  profile.lowering = LoweringMode::singleton;
  EXPECT_EQ(lower(profile, graph.graph(), *plan).groups, to_singleton_lowering_plan(*plan).groups);
  // The rvalue overload gives the same lowering and takes the kernels over.
  const GraphLoweringPlan copied = lower(profile, graph.graph(), *plan);
  const GraphLoweringPlan moved = lower(profile, graph.graph(), std::move(*plan));
  EXPECT_EQ(moved.groups, copied.groups);
  EXPECT_EQ(moved.nodes, copied.nodes);
  auto evaluation = evaluate_graph(profile, checked(small_mlp()));
  ASSERT_TRUE(evaluation.has_value());
  EXPECT_EQ(evaluation->lowering.groups.size(), 7u);
}

// --- Golden report text -----------------------------------------------------------------------

bool updating_golden() {
  const char* update = std::getenv("NNPLAN_UPDATE_GOLDEN");
  return update != nullptr && std::string_view(update) == "1";
}

void expect_golden(const std::string& file, const std::string& actual) {
  const std::string path = std::string(NNPLAN_GOLDEN_DIR) + "/" + file;
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

TEST(GraphReport, AcceptedSmallMlpMatchesGolden) {
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  auto evaluation = evaluate_graph(profile, checked(small_mlp()));
  ASSERT_TRUE(evaluation.has_value());
  expect_golden("graph_report_checked_cpu_small_mlp.txt", graph_report(profile, *evaluation));
}

TEST(GraphReport, RejectedUnderVerifiedMatchesGolden) {
  const BackendProfile profile = verified_profile();
  auto evaluation =
      evaluate_graph(profile, checked(unary_chain({K::relu, K::detach, K::relu, K::tanh})));
  ASSERT_TRUE(evaluation.has_value());
  expect_golden("graph_report_verified_rejected.txt", graph_report(profile, *evaluation));
}

// write_graph_report hands out the same text as graph_report, in pieces of about
// kReportChunkBytes: a 4001-node chain of alternating relu and tanh (4000 singleton groups,
// about 330 KiB of report) with ONNX names on every node.
TEST(GraphReport, StreamedInPiecesEqualsTheWholeReport) {
  GraphBuilder b;
  ir::NodeId last = b.input(shape({4, 4}));
  for (int i = 0; i < 4000; ++i) {
    last = b.add(i % 2 == 0 ? K::relu : K::tanh, {last}, shape({4, 4}), {},
                 "onnx_node_" + std::to_string(i));
  }
  const ir::CheckedGraph graph = checked(std::move(b).build());
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  auto evaluation = evaluate_graph(profile, graph);
  ASSERT_TRUE(evaluation.has_value());
  ASSERT_EQ(evaluation->lowering.groups.size(), 4000u);
  const std::string whole = graph_report(profile, *evaluation, &graph.graph());
  std::vector<std::string> pieces;
  write_graph_report(profile, *evaluation, &graph.graph(),
                     [&pieces](std::string_view piece) { pieces.emplace_back(piece); });
  std::string joined;
  for (const std::string& piece : pieces) {
    EXPECT_FALSE(piece.empty());
    EXPECT_LT(piece.size(), kReportChunkBytes + 1024) << "a piece is one chunk plus one line";
    joined += piece;
  }
  EXPECT_GT(pieces.size(), 4u);
  EXPECT_EQ(joined, whole);
  EXPECT_NE(whole.find("  group 3999: nodes 4000 [tanh] op=tanh capsule=reference.tanh "
                       "grouping=singleton onnx=onnx_node_3999\n"),
            std::string::npos);
}

}  // namespace
}  // namespace nnplan::backend
