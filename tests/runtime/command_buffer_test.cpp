// compile (runtime/command_buffer.hpp): one command per planned node in graph order, each bound to
// the handler and guards of exactly its capsule's identity; outputs written in place or copied;
// arena reuse on the examples; and the errors of a plan that cannot be compiled, with their full
// messages.
#include "nnplan/runtime/command_buffer.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../backend/capsule_fixtures.hpp"
#include "../ir/graph_fixtures.hpp"
#include "nnplan/backend/assurance_policy.hpp"
#include "nnplan/backend/builtin_modules.hpp"
#include "nnplan/runtime/executor.hpp"
#include "nnplan/runtime/handler_registry.hpp"
#include "nnplan/runtime/thread_bound.hpp"
#include "runtime/providers/reference/reference_provider.hpp"
#include "runtime_test_support.hpp"

namespace nnplan::runtime {
namespace {

using backend::BackendOp;
using backend::Device;
using backend::Provider;
using ir::fixtures::GraphBuilder;
using ir::fixtures::shape;
using K = ir::OpKind;
using testing::checked_graph;
using testing::compiled;
using testing::example_path;
using testing::load;
using testing::planned_cpu;

std::string expected_capsule_name(BackendOp op) {
  if (op == BackendOp::scaled_dot_product_attention) return "reference.attention";
  return "reference." + std::string(backend::to_string(op));
}

struct ExampleCase {
  std::string file;
  std::size_t commands;
};

TEST(CommandBuffer, ExamplesCompileOneBoundCommandPerPlannedNode) {
  const std::vector<ExampleCase> cases = {
      {"mlp.json", 4}, {"cnn.json", 7}, {"transformer_block.json", 0}};
  for (const ExampleCase& c : cases) {
    SCOPED_TRACE(c.file);
    auto loaded = load(example_path(c.file));
    ASSERT_TRUE(loaded.has_value());
    auto model = planned_cpu(loaded->graph, loaded->payloads);
    ASSERT_NE(model, nullptr);
    ASSERT_TRUE(model->accepted());
    auto buffer = compiled(model);
    ASSERT_TRUE(buffer.has_value());
    const backend::GraphLoweringPlan& lowering = model->lowering();
    const auto commands = buffer->commands();
    ASSERT_EQ(commands.size(), lowering.nodes.size());
    if (c.commands != 0) {
      EXPECT_EQ(commands.size(), c.commands);
    }

    std::size_t runtime_nodes = 0;
    for (const ir::Node& n : model->graph().nodes) {
      runtime_nodes += n.kind == K::input || n.kind == K::const_ || n.kind == K::detach ? 0 : 1;
    }
    EXPECT_EQ(commands.size(), runtime_nodes);

    ir::NodeId previous = 0;
    for (std::size_t i = 0; i < commands.size(); ++i) {
      SCOPED_TRACE("command " + std::to_string(i));
      const Command& command = commands[i];
      ASSERT_NE(command.node, nullptr);
      EXPECT_EQ(command.node->id, lowering.nodes[i].node_id);
      EXPECT_EQ(command.node, &model->graph().nodes[command.node->id]);
      if (i > 0) {
        EXPECT_GT(command.node->id, previous);
      }
      previous = command.node->id;
      EXPECT_EQ(command.capsule, lowering.nodes[i].capsule);
      const backend::LoweredKernelGroup& group = lowering.groups.at(command.group);
      EXPECT_LE(group.first, i);
      EXPECT_LT(i, group.first + group.count);

      const backend::KernelCapsule& capsule = buffer->capsule(command);
      EXPECT_EQ(capsule.name, expected_capsule_name(capsule.op));
      EXPECT_EQ(capsule.provider, Provider::reference);
      const HandlerDefinition* registered = builtin_handlers().find(identity_of(capsule));
      ASSERT_NE(registered, nullptr);
      EXPECT_EQ(command.handler.forward, registered->forward);
      EXPECT_EQ(command.handler.symbol, registered->symbol);

      ASSERT_EQ(command.guards.size(), 2U);
      EXPECT_EQ(command.guards[0].name, capsule.name + ".shape_guard");
      EXPECT_EQ(command.guards[1].name, capsule.name + ".layout_guard");
      EXPECT_EQ(command.guards[0].name, capsule.shape.evidence.name);
      EXPECT_EQ(command.guards[1].name, capsule.layout.evidence.name);
      EXPECT_EQ(command.guards[0].check, command.handler.shape_guard);
      EXPECT_EQ(command.guards[1].check, command.handler.layout_guard);

      ASSERT_EQ(command.inputs.size(), command.node->parents.size());
      EXPECT_EQ(command.output.shape, &command.node->shape);
      for (const WeightRef& w : command.weights) {
        EXPECT_EQ(w.tensor, loaded->payloads->find_tensor(command.node->id, w.name)) << w.name;
      }
    }
    // The last node is the graph's output and is written in place.
    ASSERT_EQ(buffer->outputs().size(), 1U);
    EXPECT_EQ(buffer->outputs()[0].name, "output");
    EXPECT_EQ(commands.back().output.home, ValueHome::output);
    EXPECT_EQ(commands.back().output.index, 0U);
    EXPECT_EQ(buffer->output_sources()[0], std::nullopt);
    // Intermediate values reuse the arena.
    EXPECT_LT(buffer->peak_arena_bytes(), buffer->no_reuse_bytes());
    EXPECT_EQ(buffer->peak_arena_bytes(), buffer->memory().peak_bytes);
  }
}

// A registry that dies before the buffer runs: the commands keep their handlers by value.
HandlerRegistry temporary_reference_registry() {
  HandlerRegistry r;
  reference::register_reference_handlers(r);
  return r;
}

// A thread bound below 0 or past kThreadsPerCpu per usable CPU is invalid_input naming it and
// the range; 0 (every core) and the largest bound compile.
TEST(CommandBuffer, ThreadBoundOutsideTheMachineIsRefused) {
  auto loaded = load(example_path("mlp.json"));
  ASSERT_TRUE(loaded.has_value());
  auto model = planned_cpu(loaded->graph, loaded->payloads);
  const auto with = [&](int threads) {
    return compile(model, builtin_handlers(), {.settings = {.threads = threads}});
  };
  EXPECT_EQ(max_threads(), kThreadsPerCpu * usable_cpus());
  for (const int bad : {-5, max_threads() + 1, 70000}) {
    auto buffer = with(bad);
    ASSERT_FALSE(buffer.has_value()) << bad;
    EXPECT_EQ(buffer.error().kind, ErrorKind::invalid_input);
    EXPECT_EQ(buffer.error().message,
              "threads " + std::to_string(bad) +
                  (bad < 0 ? ": needs at least 1 thread; give "
                           : ": more threads than this machine can use; give ") +
                  thread_range());
  }
  EXPECT_TRUE(with(0).has_value());
  EXPECT_TRUE(with(max_threads()).has_value());
}

TEST(CommandBuffer, OutlivesTheHandlerRegistryItWasCompiledAgainst) {
  auto loaded = load(example_path("mlp.json"));
  ASSERT_TRUE(loaded.has_value());
  auto model = planned_cpu(loaded->graph, loaded->payloads);
  auto buffer = compile(model, temporary_reference_registry());
  ASSERT_TRUE(buffer.has_value()) << render(buffer.error());
  Executor from_temporary(std::move(*buffer));
  auto expected = compiled(model);
  ASSERT_TRUE(expected.has_value());
  Executor from_builtin(std::move(*expected));
  const std::vector<NamedTensor> inputs = {
      {.name = "image", .tensor = testing::seeded_tensor(loaded->graph->graph().nodes[0].shape, 3)}};
  auto a = from_temporary.run(inputs);
  auto b = from_builtin.run(inputs);
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(*a, *b);
}

TEST(CommandBuffer, MlpArenaPlan) {
  // fc1 [1,32] (128 bytes), relu in place over it, fc2 [1,10] (40 -> 64 bytes) beside it: the
  // softmax output is the graph output, outside the arena.
  auto loaded = load(example_path("mlp.json"));
  ASSERT_TRUE(loaded.has_value());
  auto buffer = compiled(planned_cpu(loaded->graph, loaded->payloads));
  ASSERT_TRUE(buffer.has_value());
  EXPECT_EQ(buffer->memory().offsets, (std::vector<std::size_t>{0, 0, 128}));
  EXPECT_EQ(buffer->peak_arena_bytes(), 192U);
  EXPECT_EQ(buffer->no_reuse_bytes(), 320U);
  EXPECT_EQ(buffer->memory().in_place_count, 1U);
  ASSERT_EQ(buffer->inputs().size(), 1U);
  EXPECT_EQ(buffer->inputs()[0].name, "image");
  EXPECT_EQ(buffer->inputs()[0].node_id, 0U);
  const auto commands = buffer->commands();
  EXPECT_EQ(commands[0].inputs[0].home, ValueHome::input);
  EXPECT_EQ(commands[0].output.home, ValueHome::arena);
  EXPECT_EQ(commands[1].inputs[0].home, ValueHome::arena);
  EXPECT_EQ(commands[1].output.home, ValueHome::arena);
  EXPECT_EQ(commands[1].output.index, commands[1].inputs[0].index);
  EXPECT_EQ(commands[2].output.home, ValueHome::arena);
  EXPECT_EQ(commands[2].output.index, 128U);
  ASSERT_EQ(commands[0].weights.size(), 2U);
  EXPECT_EQ(commands[0].weights[0].name, "weight");
  EXPECT_EQ(commands[0].weights[1].name, "bias");
}

bool same_slot(const ValueSlot& a, const ValueSlot& b) {
  return a.home == b.home && a.index == b.index && a.weight == b.weight && a.shape == b.shape &&
         a.dtype == b.dtype;
}

TEST(CommandBuffer, OutputsThatNoCommandWritesAreCopied) {
  GraphBuilder b;
  const ir::NodeId x = b.add(K::input, {}, shape({2, 3}), {}, "x");
  const ir::NodeId c = b.add(K::const_, {}, shape({2, 3}), ir::ConstParams{shape({2, 3})});
  const ir::NodeId sum = b.add(K::add, {x, c}, shape({2, 3}));
  const ir::NodeId r = b.add(K::relu, {sum}, shape({2, 3}));
  const ir::NodeId d_out = b.add(K::detach, {r}, shape({2, 3}));
  const ir::NodeId d_arena = b.add(K::detach, {sum}, shape({2, 3}));
  b.graph().output_ids = {r, x, c, d_out, r, d_arena};
  auto weights = std::make_shared<ir::WeightStore>();
  weights->tensors.emplace(ir::WeightKey{c, "value"}, testing::seeded_payload(shape({2, 3}), 7));
  auto model = planned_cpu(checked_graph(std::move(b).build()), weights);
  ASSERT_NE(model, nullptr);
  auto buffer = compiled(model, {.output_names = {"y", "", "c"}});
  ASSERT_TRUE(buffer.has_value());

  std::vector<std::string> names;
  for (const IoBinding& o : buffer->outputs()) names.push_back(o.name);
  EXPECT_EQ(names, (std::vector<std::string>{"y", "output1", "c", "output3", "output4", "output5"}));
  ASSERT_EQ(buffer->inputs().size(), 1U);
  EXPECT_EQ(buffer->inputs()[0].name, "x");

  const auto commands = buffer->commands();
  ASSERT_EQ(commands.size(), 2U);
  EXPECT_EQ(commands[0].node->id, sum);
  EXPECT_EQ(commands[1].node->id, r);
  const ir::Graph& g = model->graph();
  const auto* value =
      reinterpret_cast<const std::byte*>(weights->find_tensor(c, "value")->floats().data());
  EXPECT_TRUE(same_slot(commands[0].inputs[0], {ValueHome::input, 0, nullptr, &g.nodes[x].shape}));
  EXPECT_TRUE(same_slot(commands[0].inputs[1], {ValueHome::weight, 0, value, &g.nodes[c].shape}));
  EXPECT_TRUE(same_slot(commands[0].output, {ValueHome::arena, 0, nullptr, &g.nodes[sum].shape}));
  EXPECT_TRUE(same_slot(commands[1].inputs[0], {ValueHome::arena, 0, nullptr, &g.nodes[sum].shape}));
  // The first listing of relu is written by its command; the rest are copies.
  EXPECT_TRUE(same_slot(commands[1].output, {ValueHome::output, 0, nullptr, &g.nodes[r].shape}));

  const auto sources = buffer->output_sources();
  ASSERT_EQ(sources.size(), 6U);
  EXPECT_EQ(sources[0], std::nullopt);
  ASSERT_TRUE(sources[1] && sources[2] && sources[3] && sources[4] && sources[5]);
  EXPECT_TRUE(same_slot(*sources[1], {ValueHome::input, 0, nullptr, &g.nodes[x].shape}));
  EXPECT_TRUE(same_slot(*sources[2], {ValueHome::weight, 0, value, &g.nodes[c].shape}));
  EXPECT_TRUE(same_slot(*sources[3], {ValueHome::output, 0, nullptr, &g.nodes[r].shape}));
  EXPECT_TRUE(same_slot(*sources[4], {ValueHome::output, 0, nullptr, &g.nodes[r].shape}));
  EXPECT_TRUE(same_slot(*sources[5], {ValueHome::arena, 0, nullptr, &g.nodes[sum].shape}));
  // The copied arena value lives to the end.
  EXPECT_EQ(buffer->memory().offsets, (std::vector<std::size_t>{0}));
  EXPECT_EQ(buffer->peak_arena_bytes(), 64U);
}

// A one-node relu graph.
std::shared_ptr<const ir::CheckedGraph> relu_graph() {
  GraphBuilder b;
  const ir::NodeId x = b.input(shape({4, 4}));
  b.add(K::relu, {x}, shape({4, 4}));
  return checked_graph(std::move(b).build());
}

backend::BackendProfile profile_with(std::vector<backend::KernelCapsule> capsules) {
  backend::BackendProfile p = backend::make_profile(backend::MaintainedProfile::checked_cpu);
  p.registry = backend::fixtures::shared_registry_of(std::move(capsules));
  return p;
}

// The reference relu handler under another capsule identity.
HandlerRegistry registry_with_relu_as(std::string name) {
  HandlerRegistry r;
  const auto* relu = builtin_handlers().find(CapsuleIdentity{
      .name = "reference.relu", .op = BackendOp::relu, .provider = Provider::reference,
      .device = Device::cpu});
  EXPECT_NE(relu, nullptr);
  EXPECT_TRUE(r.add({.name = std::move(name), .op = BackendOp::relu,
                     .provider = Provider::reference, .device = Device::cpu},
                    *relu)
                  .has_value());
  return r;
}

struct ErrorCase {
  std::string name;
  std::shared_ptr<const backend::PlannedModel> model;
  const HandlerRegistry* handlers;
  ErrorKind kind;
  std::string message;
};

TEST(CommandBuffer, ErrorsNameWhatCannotBeCompiled) {
  using backend::fixtures::aligned_capsule;
  backend::BackendProfile verified = profile_with({aligned_capsule(
      "guarded.relu", BackendOp::relu, Provider::reference, Device::cpu,
      backend::TrustLevel::verified)});
  verified.config.assurance = backend::AssurancePolicy::verified();

  backend::KernelCapsule renamed_guard =
      aligned_capsule("lab.relu", BackendOp::relu, Provider::reference, Device::cpu);
  renamed_guard.layout.evidence.name = "lab.relu.layout_check";

  const HandlerRegistry empty;
  const HandlerRegistry lab = registry_with_relu_as("lab.relu");

  auto unloaded = load(example_path("mlp.json"), false);
  ASSERT_TRUE(unloaded.has_value());
  GraphBuilder const_graph;
  const ir::NodeId x = const_graph.input(shape({2}));
  const ir::NodeId c = const_graph.add(K::const_, {}, shape({2}), ir::ConstParams{shape({2})});
  const_graph.add(K::add, {x, c}, shape({2}));

  // A registry capsule that takes the built-in relu's identity with other claims.
  backend::KernelCapsule borrowed;
  for (const backend::KernelCapsule& k : backend::reference_module().capsules) {
    if (k.name == "reference.relu") borrowed = k;
  }
  borrowed.numerical.contraction = backend::Contraction::fused;
  borrowed.shape.evidence = {backend::EvidenceKind::theorem, "my.relu_safe"};

  GraphBuilder twins;
  const ir::NodeId a = twins.input(shape({2}));
  const ir::NodeId b2 = twins.input(shape({2}));
  twins.add(K::add, {a, b2}, shape({2}));
  ir::Graph twin_graph = std::move(twins).build();
  twin_graph.nodes[0].source_name = "x";
  twin_graph.nodes[1].source_name = "x";

  const std::string not_loaded =
      " is missing: the graph's weights were not loaded (the payload file beside the graph, or "
      "the ONNX model's initializers)";
  std::vector<ErrorCase> cases = {
      {"rejected_plan", testing::planned(verified, relu_graph()), &builtin_handlers(),
       ErrorKind::rejected_by_policy,
       "the plan was rejected by its gate under assurance verified; only an accepted plan is "
       "compiled"},
      {"empty_handler_registry", planned_cpu(relu_graph()), &empty, ErrorKind::unbound_capsule,
       "group 0: capsule 'reference.relu' (relu on reference/cpu) has no handler in this build; "
       "nnplan never runs another capsule in its place"},
      {"capsule_the_build_lacks",
       testing::planned(profile_with({aligned_capsule("lab.relu", BackendOp::relu,
                                                      Provider::reference, Device::cpu)}),
                        relu_graph()),
       &builtin_handlers(), ErrorKind::unbound_capsule,
       "group 0: capsule 'lab.relu' (relu on reference/cpu) has no handler in this build; nnplan "
       "never runs another capsule in its place"},
      {"guard_not_registered", testing::planned(profile_with({renamed_guard}), relu_graph()), &lab,
       ErrorKind::unbound_capsule,
       "group 0: capsule 'lab.relu' (relu on reference/cpu) claims runtime guard "
       "'lab.relu.layout_check', which this build does not register; nnplan does not run a "
       "capsule whose guard is missing"},
      {"missing_linear_weight", planned_cpu(unloaded->graph, unloaded->payloads),
       &builtin_handlers(), ErrorKind::invalid_input,
       "node 1 (linear 'fc1'): payload weight" + not_loaded},
      {"missing_const_value", planned_cpu(checked_graph(std::move(const_graph).build())),
       &builtin_handlers(), ErrorKind::invalid_input, "node 1 (const): payload value" + not_loaded},
      {"no_model", nullptr, &builtin_handlers(), ErrorKind::invalid_input,
       "no planned model to compile"},
      {"built_in_identity_other_claims", testing::planned(profile_with({borrowed}), relu_graph()),
       &builtin_handlers(), ErrorKind::unbound_capsule,
       "group 0: capsule 'reference.relu' (relu on reference/cpu) has the identity of a built-in "
       "handler but not its record (contracts, evidence or numerical policy differ from what the "
       "handler was written to); this build runs that handler only under its own capsule"},
      {"two_inputs_one_name", planned_cpu(checked_graph(std::move(twin_graph))),
       &builtin_handlers(), ErrorKind::invalid_input,
       "inputs node 0 and node 1 are both named 'x': a run could not tell them apart; give each "
       "input node its own name"},
  };
  const auto cuda = testing::planned(backend::make_profile(backend::MaintainedProfile::checked_cuda),
                                     relu_graph());
  ASSERT_NE(cuda, nullptr);
  if (cuda->accepted()) {
    cases.push_back({"cuda_capsule_without_handler", cuda, &builtin_handlers(),
                     ErrorKind::unbound_capsule,
                     "group 0: capsule 'native_cuda.relu' (relu on native-cuda/cuda) has no "
                     "handler in this build; nnplan never runs another capsule in its place"});
  }
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.name);
    if (c.name != "no_model") {
      ASSERT_NE(c.model, nullptr);
    }
    auto buffer = compile(c.model, *c.handlers);
    ASSERT_FALSE(buffer.has_value());
    EXPECT_EQ(buffer.error().kind, c.kind);
    EXPECT_EQ(buffer.error().message, c.message);
  }
  // The verified profile's plan is a rejection, not a planning error.
  EXPECT_FALSE(cases[0].model->accepted());
  // The lab handler registry binds the lab capsule when the evidence names its guards.
  auto bound = compile(testing::planned(profile_with({aligned_capsule(
                                            "lab.relu", BackendOp::relu, Provider::reference,
                                            Device::cpu)}),
                                        relu_graph()),
                       lab);
  ASSERT_TRUE(bound.has_value()) << render(bound.error());
  const HandlerDefinition* registered = lab.find(CapsuleIdentity{
      .name = "lab.relu", .op = BackendOp::relu, .provider = Provider::reference,
      .device = Device::cpu});
  ASSERT_NE(registered, nullptr);
  EXPECT_EQ(bound->commands()[0].handler.forward, registered->forward);
}

}  // namespace
}  // namespace nnplan::runtime
