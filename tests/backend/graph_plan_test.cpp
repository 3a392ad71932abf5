// Graph planning (SPEC §6): every IR kind maps to the backend op SPEC §6 lists (or to no kernel),
// nodes without runtime work are skipped, plan_graph equals plan_node applied node by node (each
// op decided once and reused), failures name the node and carry the per-candidate explanation,
// plan_graph_checked rejects malformed graphs, and the plan's accessors.
#include "nnplan/backend/graph_plan.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"
#include "graph_plan_fixtures.hpp"
#include "nnplan/backend/profile.hpp"

namespace nnplan::backend {
namespace {

using fixtures::aligned_capsule;
using fixtures::all_kinds;
using fixtures::checked;
using fixtures::GraphBuilder;
using fixtures::one_op_graph;
using fixtures::shape;
using fixtures::shared_registry_of;
using fixtures::spec_backend_op;
using fixtures::unary_chain;
using K = ir::OpKind;

// --- Every kind: its backend op under checked_cpu, or no kernel at all. ---------------------

class KindMappingTest : public ::testing::TestWithParam<ir::OpKind> {};

TEST_P(KindMappingTest, PlansTheSpecBackendOpOrNothing) {
  const ir::OpKind kind = GetParam();
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  const ir::CheckedGraph graph = checked(one_op_graph(kind));
  ASSERT_EQ(graph.graph().output_ids.size(), 1u);
  const ir::NodeId last = graph.graph().output_ids[0];
  ASSERT_EQ(graph.graph().nodes[last].kind, kind);

  auto plan = plan_graph(profile, graph);
  ASSERT_TRUE(plan.has_value()) << render(plan.error());
  EXPECT_EQ(plan->registry, profile.registry);
  const std::optional<BackendOp> op = spec_backend_op(kind);
  if (!op) {
    EXPECT_TRUE(plan->kernels.empty());
    return;
  }
  ASSERT_EQ(plan->kernels.size(), 1u);
  const PlannedNodeKernel& k = plan->kernels[0];
  EXPECT_EQ(k.node_id, last);
  EXPECT_EQ(k.kind, kind);
  EXPECT_EQ(k.op, *op);
  const Availability availability = profile.availability();
  auto expected = plan_op(profile.config, *profile.registry, *op, &availability);
  ASSERT_TRUE(expected.has_value());
  EXPECT_EQ(k.capsule, expected->capsule);
  EXPECT_EQ(plan->capsule(0).op, *op);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, KindMappingTest, ::testing::ValuesIn(all_kinds()),
                         [](const ::testing::TestParamInfo<ir::OpKind>& info) {
                           return fixtures::test_name(ir::to_string(info.param));
                         });

// --- Skipping nodes without runtime work -------------------------------------------------

TEST(PlanGraph, SkipsInputConstAndDetachKeepingGraphOrder) {
  GraphBuilder b;
  const ir::NodeId x = b.input(shape({4, 4}));                                               // 0
  const ir::NodeId c = b.add(K::const_, {}, shape({4, 4}), ir::ConstParams{shape({4, 4})});  // 1
  const ir::NodeId r = b.add(K::relu, {x}, shape({4, 4}));                                   // 2
  const ir::NodeId d = b.add(K::detach, {r}, shape({4, 4}));                                 // 3
  const ir::NodeId a = b.add(K::add, {d, c}, shape({4, 4}));                                 // 4
  const ir::NodeId y = b.input(shape({4, 4}));                                               // 5
  b.add(K::mul_elem, {a, y}, shape({4, 4}));                                                 // 6
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  auto plan = plan_graph(profile, checked(std::move(b).build()));
  ASSERT_TRUE(plan.has_value()) << render(plan.error());
  EXPECT_EQ(plan->node_ids(), (std::vector<ir::NodeId>{2, 4, 6}));
  EXPECT_EQ(plan->capsule_names(),
            (std::vector<std::string>{"reference.relu", "reference.add", "reference.mul"}));
  ASSERT_EQ(plan->kernels.size(), 3u);
  EXPECT_EQ(plan->kernels[0].kind, K::relu);
  EXPECT_EQ(plan->kernels[1].kind, K::add);
  EXPECT_EQ(plan->kernels[2].kind, K::mul_elem);
  EXPECT_EQ(plan->kernels[2].op, BackendOp::mul);
  EXPECT_EQ(plan->capsule(2).name, "reference.mul");
}

TEST(PlanGraph, GraphWithoutRuntimeWorkPlansToNothing) {
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  auto plan = plan_graph(profile, checked(unary_chain({K::detach, K::detach})));
  ASSERT_TRUE(plan.has_value());
  EXPECT_TRUE(plan->kernels.empty());
  EXPECT_TRUE(plan->node_ids().empty());
  EXPECT_TRUE(plan->capsule_names().empty());
}

// --- plan_node ------------------------------------------------------------------------------

TEST(PlanNode, NodesWithoutRuntimeWorkGiveNoKernel) {
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  for (const ir::OpKind kind : {K::input, K::const_, K::detach}) {
    const ir::Graph graph = one_op_graph(kind);
    auto k = plan_node(profile.config, *profile.registry, graph.nodes.back());
    ASSERT_TRUE(k.has_value()) << ir::to_string(kind);
    EXPECT_FALSE(k->has_value()) << ir::to_string(kind);
  }
}

TEST(PlanNode, RuntimeNodeGetsIdKindOpAndCapsule) {
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  const ir::Graph graph = one_op_graph(K::flatten);
  auto k = plan_node(profile.config, *profile.registry, graph.nodes.back());
  ASSERT_TRUE(k.has_value());
  ASSERT_TRUE(k->has_value());
  EXPECT_EQ(k->value().node_id, graph.nodes.back().id);
  EXPECT_EQ(k->value().kind, K::flatten);
  EXPECT_EQ(k->value().op, BackendOp::reshape);
  EXPECT_EQ(profile.registry->capsule(k->value().capsule).name, "reference.reshape");
}

// Seeded random chains of unary and binary ops over [4,4]: plan_graph (which decides each op once
// and reuses the decision) equals plan_node applied to each node, under several configurations.
TEST(PlanGraph, EqualsPlanNodePerNode) {
  const std::vector<K> unary = {K::relu, K::tanh, K::sigmoid, K::exp, K::log, K::abs,
                                K::sqrt, K::inv,  K::detach,  K::sin, K::cos};
  const std::vector<K> binary = {K::add, K::sub, K::mul_elem, K::max_elem, K::min_elem, K::matmul};
  std::mt19937 rng(31);
  for (const MaintainedProfile which :
       {MaintainedProfile::checked_cpu, MaintainedProfile::checked_linux_x86_64_cpu}) {
    const BackendProfile profile = make_profile(which);
    for (int round = 0; round < 20; ++round) {
      GraphBuilder b;
      std::vector<ir::NodeId> ids = {b.input(shape({4, 4}))};
      const int n = 1 + static_cast<int>(rng() % 60);
      for (int i = 0; i < n; ++i) {
        const auto pick = [&] { return ids[rng() % ids.size()]; };
        if (rng() % 3 == 0) {
          ids.push_back(b.add(binary[rng() % binary.size()], {pick(), pick()}, shape({4, 4})));
        } else {
          ids.push_back(b.add(unary[rng() % unary.size()], {pick()}, shape({4, 4})));
        }
      }
      const ir::CheckedGraph graph = checked(std::move(b).build());
      const Availability availability = profile.availability();
      auto plan = plan_graph(profile.config, profile.registry, graph, &availability);
      ASSERT_TRUE(plan.has_value()) << render(plan.error());
      PlannedNodeKernels expected;
      for (const ir::Node& node : graph.graph().nodes) {
        auto k = plan_node(profile.config, *profile.registry, node, &availability);
        ASSERT_TRUE(k.has_value()) << render(k.error());
        if (*k) expected.push_back(**k);
      }
      EXPECT_EQ(plan->kernels, expected) << profile.name << " round " << round;
    }
  }
}

// --- Failures: node id and kind, position, explanation ---------------------------------------

TEST(PlanGraph, FailureNamesTheFirstFailingNodeAndExplainsEveryCandidate) {
  // checked_cuda has no sin capsule on cuda: native-cuda omits it and reference.sin is cpu only.
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cuda);
  const ir::CheckedGraph graph = checked(unary_chain({K::relu, K::detach, K::sin, K::sin}));
  auto plan = plan_graph(profile, graph);
  ASSERT_FALSE(plan.has_value());
  const Error& e = plan.error();
  EXPECT_EQ(e.kind, ErrorKind::rejected_by_policy);
  EXPECT_EQ(e.message, "no admissible backend capsule for op sin on device cuda");
  EXPECT_EQ(e.position, std::optional<std::size_t>(3));
  EXPECT_EQ(e.context, (std::vector<std::string>{"at node 3 (sin)"}));
  ASSERT_EQ(e.candidates.size(), 1u);
  EXPECT_EQ(e.candidates[0].capsule, "reference.sin");
  EXPECT_EQ(e.candidates[0].device, "cpu");
  EXPECT_EQ(fixtures::codes(e.candidates[0].reasons), (std::vector<std::string>{"wrong-device"}));
}

TEST(PlanNode, FailureCarriesTheSameFrameAndPosition) {
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cuda);
  GraphBuilder b;
  b.input(shape({4, 4}));
  b.add(K::cos, {0}, shape({4, 4}), {}, "model/cos1");
  const ir::Graph graph = std::move(b).build();
  const Availability availability = profile.availability();
  auto k = plan_node(profile.config, *profile.registry, graph.nodes[1], &availability);
  ASSERT_FALSE(k.has_value());
  EXPECT_EQ(k.error().position, std::optional<std::size_t>(1));
  EXPECT_EQ(k.error().context, (std::vector<std::string>{"at node 1 (cos 'model/cos1')"}));
  EXPECT_EQ(fixtures::candidate_names(k.error()), (std::vector<std::string>{"reference.cos"}));
}

TEST(PlanGraph, OpWithoutAnyCapsuleNotesIt) {
  // A registry without relu: the explanation says no capsule implements it.
  const auto registry = shared_registry_of(
      {aligned_capsule("cpu.tanh", BackendOp::tanh, Provider::reference, Device::cpu)});
  const ExecutionConfig config;
  auto plan = plan_graph(config, registry, checked(unary_chain({K::tanh, K::relu})));
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().position, std::optional<std::size_t>(2));
  EXPECT_EQ(plan.error().context, (std::vector<std::string>{"at node 2 (relu)"}));
  EXPECT_TRUE(plan.error().candidates.empty());
  EXPECT_EQ(plan.error().notes,
            (std::vector<std::string>{"no capsule in the registry implements relu"}));
}

// --- The profile overload honours the profile's config and declared availability -----------

TEST(PlanGraph, ProfileOverloadUsesPreferenceAndAvailability) {
  // The cuda profile picks native-cuda for relu; the cpu one the reference capsule.
  const ir::CheckedGraph graph = checked(unary_chain({K::relu}));
  // Temporary profiles: the plans share their registries, so they outlive them.
  auto cpu = plan_graph(make_profile(MaintainedProfile::checked_cpu), graph);
  auto cuda = plan_graph(make_profile(MaintainedProfile::checked_cuda), graph);
  ASSERT_TRUE(cpu.has_value());
  ASSERT_TRUE(cuda.has_value());
  EXPECT_EQ(cpu->capsule_names(), (std::vector<std::string>{"reference.relu"}));
  EXPECT_EQ(cuda->capsule_names(), (std::vector<std::string>{"native_cuda.relu"}));
}

TEST(PlannedNodeKernel, IsTwelveBytes) {
  // DESIGN.md "Performance by design": a few dozen bytes of plan per node.
  EXPECT_EQ(sizeof(PlannedNodeKernel), 12u);
}

}  // namespace
}  // namespace nnplan::backend
