// Ownership (DESIGN.md, "A plan owns what it refers to") and the planned model: every planning
// result (op-list plan, graph plan, lowering, audit, evaluation, accepted plan, PlannedModel)
// reports the same capsules after the profile it came from is moved, copied, destroyed, or has
// its registry modules replaced. The profiles here own registries of their own on the heap (not
// the static built-in one), so a result that still pointed into a destroyed profile would read
// freed memory: AddressSanitizer fails these tests then. Also plan_model's bundle and its errors.
#include "nnplan/backend/planned_model.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "capsule_fixtures.hpp"
#include "graph_plan_fixtures.hpp"
#include "nnplan/backend/acceptance.hpp"
#include "nnplan/backend/builtin_modules.hpp"
#include "nnplan/format/payload_file.hpp"

namespace nnplan::backend {
namespace {

using fixtures::aligned_capsule;
using fixtures::checked;
using fixtures::shared_registry_of;
using fixtures::unary_chain;
using K = ir::OpKind;

// checked_cpu with a heap registry of its own: lab.relu and lab.tanh first, then the built-ins.
BackendProfile lab_profile() {
  auto p =
      make_profile(MaintainedProfile::checked_cpu)
          .with_capsule_modules(
              {{"lab",
                {aligned_capsule("lab.relu", BackendOp::relu, Provider::reference, Device::cpu),
                 aligned_capsule("lab.tanh", BackendOp::tanh, Provider::reference, Device::cpu)}}});
  EXPECT_TRUE(p.has_value());
  p->name = "lab_cpu";
  return std::move(*p);
}

// The lab module replaced by one whose relu is another capsule.
BackendProfile replaced_lab(const BackendProfile& p) {
  auto out = p.with_capsule_modules(
      {{"lab",
        {aligned_capsule("lab.other_relu", BackendOp::relu, Provider::reference, Device::cpu)}}});
  EXPECT_TRUE(out.has_value());
  return std::move(*out);
}

const std::vector<std::string> kChainCapsules = {"lab.relu", "lab.tanh", "lab.relu"};

std::shared_ptr<const ir::CheckedGraph> chain() {
  return std::make_shared<const ir::CheckedGraph>(
      checked(unary_chain({K::relu, K::tanh, K::relu})));
}

// Everything one profile produces, made inside a scope the profile does not leave.
struct Results {
  std::optional<ExecutionPlan> ops;
  std::optional<GraphExecutionPlan> plan;
  std::optional<GraphLoweringPlan> lowering;
  std::optional<ExecutionAudit> audit;
  std::optional<GraphEvaluation> evaluation;
  std::optional<AcceptedGraphPlan> accepted;
  std::optional<PlannedModel> model;
};

Results plan_everything(const BackendProfile& profile) {
  const std::vector<BackendOp> ops = {BackendOp::relu, BackendOp::tanh, BackendOp::relu};
  const auto graph = chain();
  Results r;
  r.ops = plan_ops(profile, ops).value();
  r.plan = plan_graph(profile, *graph).value();
  r.lowering = lower(profile, graph->graph(), *r.plan);
  r.audit = r.lowering->audit();
  r.evaluation = evaluate_graph(profile, *graph).value();
  r.accepted = accept_graph(profile, *graph).value();
  r.model = plan_model(profile, graph).value();
  return r;
}

void expect_lab_capsules(const Results& r, const std::string& when) {
  EXPECT_EQ(r.ops->capsule_names(), kChainCapsules) << when;
  EXPECT_EQ(r.ops->capsule(1).name, "lab.tanh") << when;
  EXPECT_EQ(r.plan->capsule_names(), kChainCapsules) << when;
  EXPECT_EQ(r.plan->capsule(2).name, "lab.relu") << when;
  EXPECT_EQ(r.lowering->capsule_names(), kChainCapsules) << when;
  EXPECT_EQ(r.audit->capsule_names(), kChainCapsules) << when;
  EXPECT_EQ(r.audit->registry().module_of(r.audit->capsule_id(0)), "lab") << when;
  EXPECT_EQ(r.evaluation->audit.capsule_names(), kChainCapsules) << when;
  EXPECT_EQ(r.evaluation->lowering.capsule_names(), kChainCapsules) << when;
  EXPECT_EQ(r.accepted->audit().capsule_names(), kChainCapsules) << when;
  EXPECT_EQ(r.accepted->lowering().capsule_names(), kChainCapsules) << when;
  EXPECT_EQ(r.model->lowering().capsule_names(), kChainCapsules) << when;
  EXPECT_EQ(r.model->audit().capsule_names(), kChainCapsules) << when;
  EXPECT_EQ(r.model->profile().registry->capsule(r.model->plan()[1].capsule).name, "lab.tanh")
      << when;
}

TEST(Ownership, ResultsOutliveTheirProfileDestroyed) {
  Results r;
  {
    const BackendProfile profile = lab_profile();
    r = plan_everything(profile);
    expect_lab_capsules(r, "while the profile lives");
  }
  expect_lab_capsules(r, "after the profile is destroyed");
}

TEST(Ownership, ResultsOutliveTheirProfileMovedAndCopied) {
  auto source = std::make_unique<BackendProfile>(lab_profile());
  const Results r = plan_everything(*source);
  BackendProfile moved = std::move(*source);
  source.reset();
  BackendProfile copy = moved;
  { const BackendProfile dropped = std::move(moved); }
  expect_lab_capsules(r, "after move, copy and destruction");
  // The copy's registry replaced: the results keep the one they were planned against.
  copy.registry = shared_registry_of(
      {aligned_capsule("other.relu", BackendOp::relu, Provider::reference, Device::cpu)});
  expect_lab_capsules(r, "after the copy's registry is replaced");
}

TEST(Ownership, ReplacingRegistryModulesAfterPlanningLeavesPlansAsTheyWere) {
  BackendProfile profile = lab_profile();
  const Results before = plan_everything(profile);
  profile = replaced_lab(profile);
  expect_lab_capsules(before, "after the lab module is replaced");
  // The profile itself now plans the replacement: the results above did not follow it.
  const Results after = plan_everything(profile);
  EXPECT_EQ(after.plan->capsule_names(),
            (std::vector<std::string>{"lab.other_relu", "reference.tanh", "lab.other_relu"}));
  EXPECT_EQ(after.model->lowering().capsule_names(), after.plan->capsule_names());
}

TEST(Ownership, TemporaryProfilesMayBePlannedUnder) {
  const auto graph = chain();
  auto plan = plan_graph(lab_profile(), *graph);
  auto evaluation = evaluate_graph(lab_profile(), *graph);
  auto ops = plan_ops(lab_profile(), std::vector<BackendOp>{BackendOp::tanh});
  ASSERT_TRUE(plan.has_value() && evaluation.has_value() && ops.has_value());
  EXPECT_EQ(plan->capsule_names(), kChainCapsules);
  EXPECT_EQ(evaluation->audit.capsule_names(), kChainCapsules);
  EXPECT_EQ(ops->capsule_names(), std::vector<std::string>{"lab.tanh"});
}

TEST(Ownership, CopyingAProfileSharesItsRegistry) {
  const BackendProfile a = lab_profile();
  const BackendProfile b = a;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(a.registry.get(), b.registry.get());
  auto plan = plan_graph(b, *chain());
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->registry.get(), a.registry.get());
  EXPECT_EQ(make_profile(MaintainedProfile::checked_cpu).registry, shared_builtin_registry());
  EXPECT_EQ(&builtin_registry(), shared_builtin_registry().get());
}

// --- PlannedModel ------------------------------------------------------------------------------

TEST(PlannedModel, BundlesGraphWeightsProfileAndEveryResult) {
  std::optional<PlannedModel> model;
  const ir::CheckedGraph* graph_address = nullptr;
  ir::WeightStore store;
  store.attributes[{.node_id = 1, .name = "epsilon"}] = 0.5;
  auto weights = std::make_shared<const ir::WeightStore>(std::move(store));
  {
    auto graph = chain();
    graph_address = graph.get();
    const BackendProfile profile = lab_profile();
    auto planned = plan_model(profile, std::move(graph), weights);
    ASSERT_TRUE(planned.has_value()) << render(planned.error());
    model = std::move(*planned);
  }
  // The graph and profile went out of scope here; the model holds both.
  EXPECT_EQ(model->checked_graph().get(), graph_address);
  EXPECT_EQ(&model->graph(), &graph_address->graph());
  EXPECT_EQ(model->graph().nodes.size(), 4u);
  EXPECT_EQ(model->weights(), weights);
  EXPECT_EQ(model->weights()->find_attribute(1, "epsilon"), std::optional<double>(0.5));
  EXPECT_EQ(model->profile().name, "lab_cpu");
  ASSERT_EQ(model->plan().size(), 3u);
  EXPECT_EQ(model->plan()[0].node_id, 1u);
  EXPECT_EQ(model->plan()[2].node_id, 3u);
  EXPECT_EQ(model->lowering().groups.size(), 3u);
  EXPECT_EQ(model->audit().size(), 3u);
  EXPECT_TRUE(model->accepted());
  EXPECT_TRUE(model->gate_failures().empty());
  EXPECT_EQ(&model->evaluation().lowering, &model->lowering());
  // Copies share the graph, the weights and the registry.
  const PlannedModel copy = *model;
  EXPECT_EQ(copy.checked_graph(), model->checked_graph());
  EXPECT_EQ(copy.profile().registry, model->profile().registry);
  EXPECT_EQ(copy.lowering().capsule_names(), kChainCapsules);
}

TEST(PlannedModel, WeightsSlotMayBeEmpty) {
  auto model = plan_model(lab_profile(), chain());
  ASSERT_TRUE(model.has_value());
  EXPECT_EQ(model->weights(), nullptr);
}

TEST(PlannedModel, GateRejectionIsAModelThatIsNotAccepted) {
  // Verified-trust capsules whose evidence is runtime guards and tests: admitted, then rejected.
  BackendProfile profile = lab_profile();
  profile.config.assurance = AssurancePolicy::verified();
  profile.registry =
      shared_registry_of({aligned_capsule("guarded.relu", BackendOp::relu, Provider::reference,
                                          Device::cpu, TrustLevel::verified),
                          aligned_capsule("guarded.tanh", BackendOp::tanh, Provider::reference,
                                          Device::cpu, TrustLevel::verified)});
  auto model = plan_model(profile, chain());
  ASSERT_TRUE(model.has_value()) << render(model.error());
  EXPECT_FALSE(model->accepted());
  ASSERT_FALSE(model->gate_failures().empty());
  EXPECT_EQ(model->gate_failures(), evaluate_graph(profile, *chain())->gate_failures);
}

struct ModelErrorCase {
  std::string name;
  BackendProfile profile;
  std::shared_ptr<const ir::CheckedGraph> graph;
  ErrorKind kind;
  std::string message;
};

TEST(PlannedModel, ErrorsNameWhatIsMissing) {
  BackendProfile no_registry = lab_profile();
  no_registry.registry = nullptr;
  BackendProfile cuda_only = lab_profile();
  cuda_only.registry = shared_registry_of(
      {aligned_capsule("gpu.relu", BackendOp::relu, Provider::native_cuda, Device::cuda)});
  const std::vector<ModelErrorCase> cases = {
      {"null_graph", lab_profile(), nullptr, ErrorKind::invalid_input,
       "no checked graph to plan under profile lab_cpu"},
      {"no_registry", no_registry, chain(), ErrorKind::invalid_input,
       "profile lab_cpu has no registry"},
      {"no_admissible", cuda_only, chain(), ErrorKind::rejected_by_policy,
       "no admissible backend capsule for op relu on device cpu"},
  };
  for (const ModelErrorCase& c : cases) {
    auto model = plan_model(c.profile, c.graph);
    ASSERT_FALSE(model.has_value()) << c.name;
    EXPECT_EQ(model.error().kind, c.kind) << c.name;
    EXPECT_EQ(model.error().message, c.message) << c.name;
  }
}

TEST(PlanGraph, NullRegistryIsAnError) {
  const ExecutionConfig config;
  auto plan = plan_graph(config, nullptr, checked(unary_chain({K::relu})));
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().kind, ErrorKind::invalid_input);
  EXPECT_EQ(plan.error().message, "no registry to plan against");
  auto ops = plan_ops(config, nullptr, std::vector<BackendOp>{BackendOp::relu});
  ASSERT_FALSE(ops.has_value());
  EXPECT_EQ(ops.error().message, "no registry to plan against");
}

}  // namespace
}  // namespace nnplan::backend
