// compile's binding pass (src/runtime/compile/binding.cpp): one bound command per planned node in
// lowering order, with the handler of its capsule, its operands (detach looked through) and its
// weights; the graph's inputs; and the refusals with their messages.
#include <gtest/gtest.h>

#include "compile_pass_fixtures.hpp"

namespace nnplan::runtime::compile_passes {
namespace {

using ir::OpKind;
using ir::fixtures::shape;
using runtime::testing::planned_cpu;

TEST(CompileBinding, OneCommandPerPlannedNodeWithItsCapsulesHandler) {
  auto loaded = runtime::testing::load(runtime::testing::example_path("mlp.json"));
  ASSERT_TRUE(loaded.has_value());
  auto model = planned_cpu(loaded->graph, loaded->payloads);
  ASSERT_NE(model, nullptr);
  auto bound = bind(*model, builtin_handlers());
  ASSERT_TRUE(bound.has_value()) << bound.error().message;
  const backend::GraphLoweringPlan& lowering = model->lowering();
  ASSERT_EQ(bound->commands.size(), lowering.nodes.size());
  for (std::size_t i = 0; i < bound->commands.size(); ++i) {
    const BoundCommand& b = bound->commands[i];
    const backend::KernelCapsule& capsule = lowering.registry->capsule(b.command.capsule);
    EXPECT_EQ(b.command.node->id, lowering.nodes[i].node_id);
    EXPECT_EQ(b.last, b.command.node->id);
    EXPECT_EQ(b.command.handler.symbol, builtin_handlers().find(capsule)->symbol);
    EXPECT_EQ(b.operands, std::vector<ir::NodeId>(b.command.node->parents.begin(),
                                                  b.command.node->parents.end()));
    EXPECT_TRUE(b.command.inputs.empty()) << "binding sets no slots";
    EXPECT_EQ(b.command.guards.size(), 2u) << "shape and layout guards";
  }
  // The linear commands carry their weight and bias, in slot order.
  const Command& first = bound->commands.front().command;
  ASSERT_EQ(first.node->kind, OpKind::linear);
  ASSERT_EQ(first.weights.size(), 2u);
  EXPECT_EQ(first.weights[0].name, "weight");
  EXPECT_EQ(first.weights[1].name, "bias");
  ASSERT_EQ(bound->inputs.size(), 1u);
  EXPECT_EQ(bound->slots[bound->inputs[0].node_id].home, ValueHome::input);
}

TEST(CompileBinding, OperandsLookThroughDetach) {
  ir::fixtures::GraphBuilder b;
  const ir::NodeId x = b.add(OpKind::input, {}, shape({2, 3}), {}, "x");
  const ir::NodeId d = b.add(OpKind::detach, {x}, shape({2, 3}));
  b.add(OpKind::add, {d, x}, shape({2, 3}));
  auto model = planned_cpu(runtime::testing::checked_graph(std::move(b).build()));
  ASSERT_NE(model, nullptr);
  auto bound = bind(*model, builtin_handlers());
  ASSERT_TRUE(bound.has_value()) << bound.error().message;
  ASSERT_EQ(bound->commands.size(), 1u);
  EXPECT_EQ(bound->commands[0].operands, (std::vector<ir::NodeId>{x, x}));
}

TEST(CompileBinding, ACapsuleWithoutHandlerIsUnbound) {
  auto model = runtime::testing::relu_tanh_model(shape({2, 3}));
  ASSERT_NE(model, nullptr);
  HandlerRegistry registry;  // no handler at all
  auto bound = bind(*model, registry);
  ASSERT_FALSE(bound.has_value());
  EXPECT_EQ(bound.error().kind, ErrorKind::unbound_capsule);
  EXPECT_EQ(bound.error().message,
            "group 0: capsule 'reference.relu' (relu on reference/cpu) has no handler in this "
            "build; nnplan never runs another capsule in its place");
}

TEST(CompileBinding, TwoInputsOfOneNameAreRefused) {
  ir::fixtures::GraphBuilder b;
  const ir::NodeId x = b.add(OpKind::input, {}, shape({2}), {}, "x");
  const ir::NodeId y = b.add(OpKind::input, {}, shape({2}), {}, "x");
  b.add(OpKind::add, {x, y}, shape({2}));
  auto model = planned_cpu(runtime::testing::checked_graph(std::move(b).build()));
  ASSERT_NE(model, nullptr);
  auto bound = bind(*model, builtin_handlers());
  ASSERT_FALSE(bound.has_value());
  EXPECT_EQ(bound.error().kind, ErrorKind::invalid_input);
  EXPECT_EQ(bound.error().message,
            "inputs node 0 and node 1 are both named 'x': a run could not tell them apart; give "
            "each input node its own name");
}

}  // namespace
}  // namespace nnplan::runtime::compile_passes
