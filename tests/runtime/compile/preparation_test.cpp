// compile's preparation pass (src/runtime/compile/preparation.cpp): what each command's prepare
// sees (shapes, weights, layouts; a reorder's from and to), its state kept, and a failure named
// by the command's group, capsule and node.
#include <gtest/gtest.h>

#include "compile_pass_fixtures.hpp"

namespace nnplan::runtime::compile_passes {
namespace {

using ir::fixtures::shape;

struct Seen {
  std::vector<ir::Shape> inputs;
  ir::Shape output;
  TensorLayout from = TensorLayout::flat;
  TensorLayout to = TensorLayout::flat;
};
std::vector<Seen>& seen() {
  static std::vector<Seen> calls;
  return calls;
}

struct CountedState : KernelState {};

Expected<std::unique_ptr<KernelState>> recording_prepare(const PrepareCall& call) {
  Seen s{.output = call.output_shape, .from = call.input_layout, .to = call.output_layout};
  for (const ir::Shape* in : call.input_shapes)
    s.inputs.push_back(*in);
  seen().push_back(std::move(s));
  return std::unique_ptr<KernelState>(std::make_unique<CountedState>());
}

Expected<std::unique_ptr<KernelState>> failing_prepare(const PrepareCall&) {
  return std::unexpected(make_error(ErrorKind::unavailable, "no primitive for this shape"));
}

Expected<PlannedCommands> emitted(const backend::PlannedModel& model) {
  auto bound = bind(model, builtin_handlers());
  if (!bound) return std::unexpected(bound.error());
  return emit_commands(std::move(*bound), model, builtin_handlers());
}

TEST(CompilePreparation, EachPrepareSeesItsShapesAndLayoutsAndKeepsItsState) {
  auto model = runtime::testing::relu_tanh_model(shape({2, 5}));
  ASSERT_NE(model, nullptr);
  auto planned = emitted(*model);
  ASSERT_TRUE(planned.has_value()) << planned.error().message;
  std::vector<Command>& commands = planned->commands;
  ASSERT_EQ(commands.size(), 2u);
  for (Command& c : commands)
    c.handler.prepare = recording_prepare;
  // The second as a reorder, to see its layouts passed.
  commands[1].reorder = LayoutChange{.from = TensorLayout::channels_last, .to = TensorLayout::flat};
  seen().clear();
  ASSERT_TRUE(prepare(commands, *model, {}).has_value());
  ASSERT_EQ(seen().size(), 2u);
  EXPECT_EQ(seen()[0].inputs, (std::vector<ir::Shape>{shape({2, 5})}));
  EXPECT_EQ(seen()[0].output, shape({2, 5}));
  EXPECT_EQ(seen()[0].from, TensorLayout::flat);
  EXPECT_EQ(seen()[0].to, TensorLayout::flat);
  EXPECT_EQ(seen()[1].from, TensorLayout::channels_last);
  EXPECT_EQ(seen()[1].to, TensorLayout::flat);
  for (const Command& c : commands)
    EXPECT_NE(dynamic_cast<const CountedState*>(c.state.get()), nullptr);
}

TEST(CompilePreparation, AFailureNamesTheCommandAndStopsThere) {
  auto model = runtime::testing::relu_tanh_model(shape({2, 5}));
  ASSERT_NE(model, nullptr);
  auto planned = emitted(*model);
  ASSERT_TRUE(planned.has_value()) << planned.error().message;
  std::vector<Command>& commands = planned->commands;
  commands[0].handler.prepare = failing_prepare;
  commands[1].handler.prepare = recording_prepare;
  seen().clear();
  const auto ok = prepare(commands, *model, {});
  ASSERT_FALSE(ok.has_value());
  EXPECT_EQ(ok.error().kind, ErrorKind::unavailable);
  EXPECT_EQ(ok.error().message,
            "group 0: capsule 'reference.relu' (relu on reference/cpu): " +
                ir::describe(*commands[0].node) +
                ": the handler could not prepare its launch: no primitive for this shape");
  EXPECT_TRUE(seen().empty()) << "no command after the failing one is prepared";
}

TEST(CompilePreparation, CommandsWithoutPrepareKeepNoState) {
  auto model = runtime::testing::relu_tanh_model(shape({2, 5}));
  ASSERT_NE(model, nullptr);
  auto planned = emitted(*model);
  ASSERT_TRUE(planned.has_value());
  ASSERT_TRUE(prepare(planned->commands, *model, {}).has_value());
  for (const Command& c : planned->commands) {
    EXPECT_EQ(c.handler.prepare, nullptr);
    EXPECT_EQ(c.state, nullptr);
  }
}

}  // namespace
}  // namespace nnplan::runtime::compile_passes
