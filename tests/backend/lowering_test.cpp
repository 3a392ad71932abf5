// Lowering (SPEC §7, seed "Backend Lowering Plans"): every rule as a table of graphs and the
// groups they must lower to (same-capsule runs coalesce even across IR kinds, different ops or
// capsule identities never do, nodes without runtime work vanish so their neighbours meet,
// singleton lowering keeps one group per node), LoweringState::push_kernel step by step, the
// group and plan accessors, and seeded random plans checked against the definition.
#include "nnplan/backend/lowering.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"
#include "graph_plan_fixtures.hpp"
#include "nnplan/backend/audit.hpp"
#include "nnplan/backend/profile.hpp"

namespace nnplan::backend {
namespace {

using fixtures::aligned_capsule;
using fixtures::checked;
using fixtures::GraphBuilder;
using fixtures::registry_of;
using fixtures::shape;
using fixtures::shared_registry_of;
using fixtures::unary_chain;
using G = GroupingKind;
using K = ir::OpKind;

// What a group must look like, with its capsule by name.
struct ExpectedGroup {
  std::vector<ir::NodeId> node_ids;
  std::vector<ir::OpKind> kinds;
  BackendOp op = BackendOp::add;
  std::string capsule;
  GroupingKind grouping = GroupingKind::singleton;

  bool operator==(const ExpectedGroup&) const = default;
};

std::ostream& operator<<(std::ostream& os, const ExpectedGroup& g) {
  os << "{nodes";
  for (ir::NodeId id : g.node_ids)
    os << ' ' << id;
  os << " [";
  for (ir::OpKind k : g.kinds)
    os << ' ' << ir::to_string(k);
  return os << " ] " << to_string(g.op) << ' ' << g.capsule << ' ' << to_string(g.grouping) << '}';
}

std::vector<ExpectedGroup> describe_groups(const GraphLoweringPlan& plan) {
  std::vector<ExpectedGroup> out;
  for (const LoweredKernelGroup& g : plan.groups) {
    out.push_back({.node_ids = plan.group_node_ids(g),
                   .kinds = plan.group_kinds(g),
                   .op = g.op,
                   .capsule = plan.capsule(g).name,
                   .grouping = g.grouping});
  }
  return out;
}

// --- Table: graph → groups, under checked_cpu ------------------------------------------------

struct LoweringCase {
  std::string name;
  ir::Graph graph;
  LoweringMode mode = LoweringMode::coalesced;
  std::vector<ExpectedGroup> groups;
};

void PrintTo(const LoweringCase& c, std::ostream* os) {
  *os << c.name;
}

ir::Graph flatten_then_reshape() {
  GraphBuilder b;
  const ir::NodeId x = b.input(shape({4, 4}));
  const ir::NodeId f = b.add(K::flatten, {x}, shape({16}), ir::FlattenParams{shape({4, 4})});
  b.add(K::reshape, {f}, shape({2, 8}), ir::ReshapeParams{shape({16}), shape({2, 8})});
  return std::move(b).build();
}

// transpose(0,1), transpose(1,2) (the legacy swap_first_two and transpose3d_last_two), permute.
ir::Graph permutes_of_two_kinds() {
  GraphBuilder b;
  const ir::NodeId x = b.input(shape({2, 3, 4}));
  const ir::NodeId s =
      b.add(K::transpose, {x}, shape({3, 2, 4}), ir::TransposeParams{.axis1 = 0, .axis2 = 1});
  const ir::NodeId t =
      b.add(K::transpose, {s}, shape({3, 4, 2}), ir::TransposeParams{.axis1 = 1, .axis2 = 2});
  b.add(K::permute, {t}, shape({2, 4, 3}), ir::PermuteParams{{2, 1, 0}});
  return std::move(b).build();
}

// relu, add(relu, input): adjacent but different ops.
ir::Graph relu_then_add() {
  GraphBuilder b;
  const ir::NodeId x = b.input(shape({4, 4}));
  const ir::NodeId r = b.add(K::relu, {x}, shape({4, 4}));
  b.add(K::add, {r, x}, shape({4, 4}));
  return std::move(b).build();
}

// relu, const, input, relu: the nodes between carry no runtime work.
ir::Graph relu_const_input_relu() {
  GraphBuilder b;
  const ir::NodeId x = b.input(shape({4, 4}));
  b.add(K::relu, {x}, shape({4, 4}));
  b.add(K::const_, {}, shape({4, 4}), ir::ConstParams{shape({4, 4})});
  const ir::NodeId y = b.input(shape({4, 4}));
  b.add(K::relu, {y}, shape({4, 4}));
  return std::move(b).build();
}

ExpectedGroup single(ir::NodeId id, ir::OpKind kind, BackendOp op, std::string capsule) {
  return {{id}, {kind}, op, std::move(capsule), G::singleton};
}

const std::vector<LoweringCase>& lowering_cases() {
  static const std::vector<LoweringCase> cases = {
      {"flatten_then_reshape_coalesce_across_kinds",
       flatten_then_reshape(),
       LoweringMode::coalesced,
       {{{1, 2},
         {K::flatten, K::reshape},
         BackendOp::reshape,
         "reference.reshape",
         G::same_capsule_run}}},
      {"flatten_then_reshape_singleton",
       flatten_then_reshape(),
       LoweringMode::singleton,
       {single(1, K::flatten, BackendOp::reshape, "reference.reshape"),
        single(2, K::reshape, BackendOp::reshape, "reference.reshape")}},
      {"transpose_and_permute_one_group",
       permutes_of_two_kinds(),
       LoweringMode::coalesced,
       {{{1, 2, 3},
         {K::transpose, K::transpose, K::permute},
         BackendOp::permute,
         "reference.permute",
         G::same_capsule_run}}},
      {"relu_detach_relu_skip_makes_neighbours",
       unary_chain({K::relu, K::detach, K::relu}),
       LoweringMode::coalesced,
       {{{1, 3}, {K::relu, K::relu}, BackendOp::relu, "reference.relu", G::same_capsule_run}}},
      {"relu_const_input_relu_skip_makes_neighbours",
       relu_const_input_relu(),
       LoweringMode::coalesced,
       {{{1, 4}, {K::relu, K::relu}, BackendOp::relu, "reference.relu", G::same_capsule_run}}},
      {"relu_detach_relu_singleton",
       unary_chain({K::relu, K::detach, K::relu}),
       LoweringMode::singleton,
       {single(1, K::relu, BackendOp::relu, "reference.relu"),
        single(3, K::relu, BackendOp::relu, "reference.relu")}},
      {"different_ops_never_coalesce",
       unary_chain({K::relu, K::tanh, K::sigmoid}),
       LoweringMode::coalesced,
       {single(1, K::relu, BackendOp::relu, "reference.relu"),
        single(2, K::tanh, BackendOp::tanh, "reference.tanh"),
        single(3, K::sigmoid, BackendOp::sigmoid, "reference.sigmoid")}},
      {"relu_then_add_different_ops",
       relu_then_add(),
       LoweringMode::coalesced,
       {single(1, K::relu, BackendOp::relu, "reference.relu"),
        single(2, K::add, BackendOp::add, "reference.add")}},
      {"runs_split_by_another_op",
       unary_chain({K::relu, K::relu, K::tanh, K::relu, K::relu, K::relu}),
       LoweringMode::coalesced,
       {{{1, 2}, {K::relu, K::relu}, BackendOp::relu, "reference.relu", G::same_capsule_run},
        single(3, K::tanh, BackendOp::tanh, "reference.tanh"),
        {{4, 5, 6},
         {K::relu, K::relu, K::relu},
         BackendOp::relu,
         "reference.relu",
         G::same_capsule_run}}},
      {"runs_singleton_one_group_per_node",
       unary_chain({K::relu, K::relu, K::tanh}),
       LoweringMode::singleton,
       {single(1, K::relu, BackendOp::relu, "reference.relu"),
        single(2, K::relu, BackendOp::relu, "reference.relu"),
        single(3, K::tanh, BackendOp::tanh, "reference.tanh")}},
      {"no_runtime_work_no_groups", unary_chain({K::detach}), LoweringMode::coalesced, {}},
      {"no_runtime_work_singleton", unary_chain({K::detach}), LoweringMode::singleton, {}},
  };
  return cases;
}

class LoweringTableTest : public ::testing::TestWithParam<LoweringCase> {};

TEST_P(LoweringTableTest, LowersToTheExpectedGroups) {
  const LoweringCase& c = GetParam();
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  auto plan = plan_graph(profile, checked(c.graph));
  ASSERT_TRUE(plan.has_value()) << render(plan.error());
  const GraphLoweringPlan lowering = c.mode == LoweringMode::coalesced
                                         ? to_coalesced_lowering_plan(*plan)
                                         : to_singleton_lowering_plan(*plan);
  EXPECT_EQ(describe_groups(lowering), c.groups);
  // Provenance: every planned node, in the plan's order, exactly once.
  EXPECT_EQ(lowering.node_ids(), plan->node_ids());
  EXPECT_EQ(lowering.nodes, plan->kernels);
  EXPECT_EQ(lowering.registry, plan->registry);
}

INSTANTIATE_TEST_SUITE_P(Rules, LoweringTableTest, ::testing::ValuesIn(lowering_cases()),
                         [](const ::testing::TestParamInfo<LoweringCase>& info) {
                           return info.param.name;
                         });

// --- Same op, different capsule identity ---------------------------------------------------

// Two relu capsules on cpu from different providers. `prefer torchlean` picks the second, `auto`
// the first; planning consecutive nodes under the two configs gives the same op with different
// capsule identities, which must not coalesce.
TEST(CoalescedLowering, SameOpDifferentCapsuleDoesNotCoalesce) {
  const auto registry = shared_registry_of({
      aligned_capsule("cpu.relu_reference", BackendOp::relu, Provider::reference, Device::cpu),
      aligned_capsule("cpu.relu_torchlean", BackendOp::relu, Provider::torchlean, Device::cpu),
  });
  const ir::Graph graph = unary_chain({K::relu, K::relu, K::relu, K::relu});
  ExecutionConfig automatic;
  ExecutionConfig prefer_torchlean;
  prefer_torchlean.preference = BackendPreference::prefer(Provider::torchlean);

  GraphExecutionPlan plan{.registry = registry, .kernels = {}};
  const ExecutionConfig* configs[] = {&automatic, &automatic, &prefer_torchlean, &automatic};
  for (ir::NodeId id = 1; id <= 4; ++id) {
    auto k = plan_node(*configs[id - 1], *registry, graph.nodes[id]);
    ASSERT_TRUE(k.has_value() && k->has_value());
    plan.kernels.push_back(**k);
  }
  ASSERT_NE(plan.kernels[1].capsule, plan.kernels[2].capsule);
  EXPECT_EQ(
      describe_groups(to_coalesced_lowering_plan(plan)),
      (std::vector<ExpectedGroup>{
          {{1, 2}, {K::relu, K::relu}, BackendOp::relu, "cpu.relu_reference", G::same_capsule_run},
          {{3}, {K::relu}, BackendOp::relu, "cpu.relu_torchlean", G::singleton},
          {{4}, {K::relu}, BackendOp::relu, "cpu.relu_reference", G::singleton}}));
}

// --- LoweredKernelGroup ----------------------------------------------------------------------

TEST(LoweredKernelGroup, CanAppendComparesOpAndCapsuleIdentityOnly) {
  const LoweredKernelGroup g{
      .first = 0, .count = 1, .op = BackendOp::relu, .grouping = G::singleton, .capsule = 5};
  struct Case {
    std::string name;
    PlannedNodeKernel k;
    bool expected;
  };
  const std::vector<Case> cases = {
      {"same_op_same_capsule", {9, K::relu, BackendOp::relu, 5}, true},
      {"other_kind_same_op_same_capsule", {9, K::flatten, BackendOp::relu, 5}, true},
      {"same_op_other_capsule", {9, K::relu, BackendOp::relu, 6}, false},
      {"other_op_same_capsule", {9, K::relu, BackendOp::tanh, 5}, false},
      {"other_op_other_capsule", {9, K::tanh, BackendOp::tanh, 6}, false},
  };
  for (const Case& c : cases)
    EXPECT_EQ(g.can_append(c.k), c.expected) << c.name;
}

TEST(LoweredKernelGroup, AppendNodeExtendsTheRangeAndMarksTheRun) {
  const PlannedNodeKernel k{3, K::relu, BackendOp::relu, 2};
  const LoweredKernelGroup g = to_singleton_lowered_group(k, 7);
  EXPECT_EQ(
      g,
      (LoweredKernelGroup{
          .first = 7, .count = 1, .op = BackendOp::relu, .grouping = G::singleton, .capsule = 2}));
  const LoweredKernelGroup two = g.append_node({4, K::relu, BackendOp::relu, 2});
  EXPECT_EQ(two, (LoweredKernelGroup{.first = 7,
                                     .count = 2,
                                     .op = BackendOp::relu,
                                     .grouping = G::same_capsule_run,
                                     .capsule = 2}));
  EXPECT_EQ(two.append_node({5, K::relu, BackendOp::relu, 2}).count, 3u);
  EXPECT_EQ(g.count, 1u);  // append_node returns a new group
}

TEST(LoweredKernelGroup, ToPlannedKernelErasesLoweringMetadata) {
  const LoweredKernelGroup g{
      .first = 4, .count = 3, .op = BackendOp::conv, .grouping = G::same_capsule_run, .capsule = 9};
  EXPECT_EQ(g.to_planned_kernel(), (PlannedKernel{BackendOp::conv, 9}));
}

Registry boundary_registry() {
  return registry_of({
      aligned_capsule("cpu.relu", BackendOp::relu, Provider::reference, Device::cpu),
      aligned_capsule("ext.tanh", BackendOp::tanh, Provider::libtorch, Device::cpu,
                      TrustLevel::trusted_external),
      aligned_capsule("cpu.tanh", BackendOp::tanh, Provider::reference, Device::cpu,
                      TrustLevel::fuzzed),
  });
}

TEST(LoweredKernelGroup, HasTrustedExternalFollowsTheCapsuleTrust) {
  const auto registry = std::make_shared<const Registry>(boundary_registry());
  for (CapsuleId id = 0; id < registry->size(); ++id) {
    const LoweredKernelGroup g{.op = registry->capsule(id).op, .capsule = id};
    EXPECT_EQ(g.has_trusted_external(*registry), registry->capsule(id).name == "ext.tanh")
        << registry->capsule(id).name;
  }
}

// --- GraphLoweringPlan accessors --------------------------------------------------------------

// nodes 1..6 over capsules relu(0), ext.tanh(1), cpu.tanh(2): relu relu | ext ext | cpu | relu
GraphExecutionPlan hand_plan(const std::shared_ptr<const Registry>& registry) {
  return {.registry = registry,
          .kernels = {{1, K::relu, BackendOp::relu, 0},
                      {2, K::relu, BackendOp::relu, 0},
                      {4, K::tanh, BackendOp::tanh, 1},
                      {5, K::tanh, BackendOp::tanh, 1},
                      {6, K::tanh, BackendOp::tanh, 2},
                      {8, K::relu, BackendOp::relu, 0}}};
}

TEST(GraphLoweringPlan, AccessorsPerGroupAndPerPlan) {
  const auto registry = std::make_shared<const Registry>(boundary_registry());
  const GraphLoweringPlan p = to_coalesced_lowering_plan(hand_plan(registry));
  ASSERT_EQ(p.groups.size(), 4u);
  EXPECT_EQ(p.node_ids(), (std::vector<ir::NodeId>{1, 2, 4, 5, 6, 8}));
  EXPECT_EQ(p.capsule_names(),
            (std::vector<std::string>{"cpu.relu", "ext.tanh", "cpu.tanh", "cpu.relu"}));
  EXPECT_EQ(p.group_node_ids(p.groups[1]), (std::vector<ir::NodeId>{4, 5}));
  EXPECT_EQ(p.group_kinds(p.groups[1]), (std::vector<ir::OpKind>{K::tanh, K::tanh}));
  EXPECT_EQ(p.group_nodes(p.groups[2]).size(), 1u);
  EXPECT_EQ(p.group_nodes(p.groups[2])[0].node_id, 6u);
  EXPECT_EQ(p.capsule(p.groups[3]).name, "cpu.relu");
  EXPECT_TRUE(p.has_trusted_external());

  const ExecutionPlan ep = p.to_execution_plan();
  EXPECT_EQ(ep.registry, registry);
  EXPECT_EQ(
      ep.kernels,
      (std::vector<PlannedKernel>{
          {BackendOp::relu, 0}, {BackendOp::tanh, 1}, {BackendOp::tanh, 2}, {BackendOp::relu, 0}}));
  EXPECT_EQ(ep.capsule_names(), p.capsule_names());

  const ExecutionAudit audit = p.audit();
  EXPECT_EQ(audit.size(), p.groups.size());
  EXPECT_EQ(audit.capsule_names(), p.capsule_names());
  EXPECT_TRUE(audit.has_trusted_external());
}

TEST(GraphLoweringPlan, NoTrustedExternalWithoutSuchGroup) {
  const auto registry = std::make_shared<const Registry>(boundary_registry());
  GraphExecutionPlan plan = hand_plan(registry);
  std::erase_if(plan.kernels, [](const PlannedNodeKernel& k) { return k.capsule == 1; });
  EXPECT_FALSE(to_coalesced_lowering_plan(plan).has_trusted_external());
  EXPECT_FALSE(to_singleton_lowering_plan(plan).has_trusted_external());
  EXPECT_FALSE(
      to_coalesced_lowering_plan({.registry = registry, .kernels = {}}).has_trusted_external());
}

// --- LoweringState::push_kernel, step by step ------------------------------------------------

TEST(LoweringState, PushKernelStepByStep) {
  const auto registry = std::make_shared<const Registry>(boundary_registry());
  struct Step {
    PlannedNodeKernel k;
    LoweredKernelGroups groups;  // after the push
  };
  const auto grp = [](std::uint32_t first, std::uint32_t count, BackendOp op, CapsuleId c) {
    return LoweredKernelGroup{.first = first,
                              .count = count,
                              .op = op,
                              .grouping = count == 1 ? G::singleton : G::same_capsule_run,
                              .capsule = c};
  };
  const BackendOp relu = BackendOp::relu;
  const BackendOp tanh = BackendOp::tanh;
  const std::vector<Step> steps = {
      {{1, K::relu, relu, 0}, {grp(0, 1, relu, 0)}},
      {{2, K::relu, relu, 0}, {grp(0, 2, relu, 0)}},
      {{4, K::tanh, tanh, 1}, {grp(0, 2, relu, 0), grp(2, 1, tanh, 1)}},
      {{5, K::tanh, tanh, 2}, {grp(0, 2, relu, 0), grp(2, 1, tanh, 1), grp(3, 1, tanh, 2)}},
      {{6, K::tanh, tanh, 2}, {grp(0, 2, relu, 0), grp(2, 1, tanh, 1), grp(3, 2, tanh, 2)}},
      {{7, K::relu, relu, 0},
       {grp(0, 2, relu, 0), grp(2, 1, tanh, 1), grp(3, 2, tanh, 2), grp(5, 1, relu, 0)}},
  };
  LoweringState state{.plan = {.registry = registry, .nodes = {}, .groups = {}}};
  PlannedNodeKernels pushed;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    state.push_kernel(steps[i].k);
    pushed.push_back(steps[i].k);
    EXPECT_EQ(state.plan.groups, steps[i].groups) << "after step " << i;
    EXPECT_EQ(state.plan.nodes, pushed) << "after step " << i;
  }
}

// --- Seeded random plans against the definition ---------------------------------------------

// Kernels drawn from 2 ops x 2 capsules each, with runs made likely.
GraphExecutionPlan random_plan(const std::shared_ptr<const Registry>& registry, std::mt19937& rng,
                               std::size_t n) {
  GraphExecutionPlan plan{.registry = registry, .kernels = {}};
  PlannedNodeKernel k{0, K::relu, BackendOp::relu, 0};
  ir::NodeId id = 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (rng() % 3 == 0) {
      const CapsuleId c = static_cast<CapsuleId>(rng() % registry->size());
      k.capsule = c;
      k.op = registry->capsule(c).op;
      k.kind = k.op == BackendOp::relu ? K::relu : K::tanh;
    }
    id += 1 + static_cast<ir::NodeId>(rng() % 3);  // gaps: skipped nodes
    k.node_id = id;
    plan.kernels.push_back(k);
  }
  return plan;
}

TEST(Lowering, RandomPlansMatchTheDefinition) {
  const auto registry = shared_registry_of({
      aligned_capsule("a.relu", BackendOp::relu, Provider::reference, Device::cpu),
      aligned_capsule("b.relu", BackendOp::relu, Provider::torchlean, Device::cpu),
      aligned_capsule("a.tanh", BackendOp::tanh, Provider::reference, Device::cpu),
      aligned_capsule("b.tanh", BackendOp::tanh, Provider::torchlean, Device::cpu),
  });
  std::mt19937 rng(2026);
  for (int round = 0; round < 200; ++round) {
    const GraphExecutionPlan plan = random_plan(registry, rng, rng() % 40);
    const GraphLoweringPlan singleton = to_singleton_lowering_plan(plan);
    ASSERT_EQ(singleton.groups.size(), plan.kernels.size());
    for (std::size_t i = 0; i < singleton.groups.size(); ++i) {
      EXPECT_EQ(singleton.groups[i],
                to_singleton_lowered_group(plan.kernels[i], static_cast<std::uint32_t>(i)));
    }
    const GraphLoweringPlan coalesced = to_coalesced_lowering_plan(plan);
    EXPECT_EQ(coalesced.nodes, plan.kernels);
    std::uint32_t next = 0;
    for (std::size_t i = 0; i < coalesced.groups.size(); ++i) {
      const LoweredKernelGroup& g = coalesced.groups[i];
      EXPECT_EQ(g.first, next);  // groups tile the nodes in order
      ASSERT_GE(g.count, 1u);
      next += g.count;
      EXPECT_EQ(g.grouping, g.count == 1 ? G::singleton : G::same_capsule_run);
      for (const PlannedNodeKernel& k : coalesced.group_nodes(g)) {
        EXPECT_EQ(k.op, g.op);
        EXPECT_EQ(k.capsule, g.capsule);
      }
      if (i > 0) {  // maximal runs: a group never could have joined its predecessor
        EXPECT_FALSE(coalesced.groups[i - 1].can_append(coalesced.group_nodes(g)[0]));
      }
    }
    EXPECT_EQ(next, plan.kernels.size());
  }
}

// The coalesced lowering is the fold of push_kernel; the rvalue overloads give the same plans and
// take the kernel array over.
TEST(Lowering, CoalescedIsThePushKernelFoldAndRvalueOverloadsAgree) {
  const auto registry = shared_registry_of({
      aligned_capsule("a.relu", BackendOp::relu, Provider::reference, Device::cpu),
      aligned_capsule("b.relu", BackendOp::relu, Provider::torchlean, Device::cpu),
      aligned_capsule("a.tanh", BackendOp::tanh, Provider::reference, Device::cpu),
  });
  std::mt19937 rng(7);
  for (int round = 0; round < 100; ++round) {
    GraphExecutionPlan plan = random_plan(registry, rng, rng() % 30);
    LoweringState state{.plan = {.registry = registry, .nodes = {}, .groups = {}}};
    for (const PlannedNodeKernel& k : plan.kernels)
      state.push_kernel(k);
    const GraphLoweringPlan coalesced = to_coalesced_lowering_plan(plan);
    EXPECT_EQ(coalesced.groups, state.plan.groups);
    EXPECT_EQ(coalesced.nodes, state.plan.nodes);
    EXPECT_EQ(coalesced.registry, registry);

    const GraphLoweringPlan singleton = to_singleton_lowering_plan(plan);
    GraphExecutionPlan copy = plan;
    const GraphLoweringPlan moved_singleton = to_singleton_lowering_plan(std::move(copy));
    EXPECT_EQ(moved_singleton.groups, singleton.groups);
    EXPECT_EQ(moved_singleton.nodes, singleton.nodes);
    EXPECT_EQ(moved_singleton.registry, registry);

    const GraphLoweringPlan moved = to_coalesced_lowering_plan(std::move(plan));
    EXPECT_EQ(moved.groups, coalesced.groups);
    EXPECT_EQ(moved.nodes, coalesced.nodes);
    EXPECT_EQ(moved.registry, registry);
    EXPECT_TRUE(plan.kernels.empty());  // NOLINT(bugprone-use-after-move): documented state
  }
}

// --- GroupingKind spellings ------------------------------------------------------------------

TEST(GroupingKind, SpellingsRoundTripAndErrorsListThem) {
  EXPECT_EQ(to_string(G::singleton), "singleton");
  EXPECT_EQ(to_string(G::same_capsule_run), "same-capsule-run");
  EXPECT_EQ(parse_grouping_kind("same-capsule-run"), G::same_capsule_run);
  EXPECT_EQ(parse_grouping_kind("singleton"), G::singleton);
  EXPECT_EQ(to_string(G::fused), "fused");
  EXPECT_EQ(parse_grouping_kind("fused"), G::fused);
  auto bad = parse_grouping_kind("fusion");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("singleton, same-capsule-run, fused"), std::string::npos)
      << bad.error().message;
}

TEST(LoweredKernelGroup, IsSixteenBytes) {
  EXPECT_EQ(sizeof(LoweredKernelGroup), 16u);
}

}  // namespace
}  // namespace nnplan::backend
