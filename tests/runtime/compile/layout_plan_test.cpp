// compile's layout planning pass (src/runtime/compile/layout_plan.cpp): each command's layout,
// the reorder commands at every layout change with their slots, and the graph outputs' sources.
// Runs on the reference capsules with a registry in which chosen ones prefer channels-last, so
// the decisions do not depend on what oneDNN does on this CPU.
#include <gtest/gtest.h>

#include "compile_pass_fixtures.hpp"

namespace nnplan::runtime::compile_passes {
namespace {

using ir::fixtures::shape;
using runtime::testing::channels_last_registry;
using runtime::testing::relu_tanh_model;

std::vector<std::string> described(const PlannedCommands& planned) {
  std::vector<std::string> out;
  for (const Command& c : planned.commands) {
    std::string line = std::to_string(c.node->id) + " ";
    line += c.reorder ? "reorder " + std::string(to_string(c.reorder->from)) + ">" +
                            std::string(to_string(c.reorder->to))
                      : std::string(to_string(c.layout));
    out.push_back(line);
  }
  return out;
}

Expected<PlannedCommands> planned_with(const backend::PlannedModel& model,
                                       const HandlerRegistry& handlers,
                                       const CompileOptions& options = {}) {
  auto bound = bind(model, handlers);
  if (!bound) return std::unexpected(bound.error());
  choose_layouts(*bound, model, handlers, options);
  return emit_commands(std::move(*bound), model, handlers);
}

TEST(CompileLayoutPlan, WithoutAReorderEverythingStaysFlat) {
  auto model = relu_tanh_model(shape({1, 2, 3, 4}));
  ASSERT_NE(model, nullptr);
  auto planned = planned_with(*model, builtin_handlers());
  ASSERT_TRUE(planned.has_value()) << planned.error().message;
  EXPECT_EQ(described(*planned), (std::vector<std::string>{"1 flat", "2 flat"}));
  // relu writes arena value 0, which tanh reads; tanh writes the graph output in place.
  EXPECT_EQ(planned->arena_bytes, (std::vector<std::size_t>{24 * sizeof(float)}));
  EXPECT_EQ(planned->commands[0].inputs[0].home, ValueHome::input);
  EXPECT_EQ(planned->commands[1].inputs[0].home, ValueHome::arena);
  EXPECT_EQ(planned->commands[1].output.home, ValueHome::output);
  ASSERT_EQ(planned->output_sources.size(), 1u);
  EXPECT_FALSE(planned->output_sources[0].has_value()) << "written in place";
}

TEST(CompileLayoutPlan, ChannelsLastChainGetsOneReorderAtEachEnd) {
  const HandlerRegistry registry = channels_last_registry({"reference.relu", "reference.tanh"});
  auto model = relu_tanh_model(shape({1, 2, 3, 4}));
  ASSERT_NE(model, nullptr);
  auto planned = planned_with(*model, registry);
  ASSERT_TRUE(planned.has_value()) << planned.error().message;
  EXPECT_EQ(described(*planned),
            (std::vector<std::string>{"0 reorder flat>channels-last", "1 channels-last",
                                      "2 channels-last", "2 reorder channels-last>flat"}));
  const auto& c = planned->commands;
  // The input's channels-last copy, relu's and tanh's values: three arena values; the last
  // reorder writes the graph output.
  EXPECT_EQ(planned->arena_bytes.size(), 3u);
  EXPECT_EQ(c[0].inputs[0].home, ValueHome::input);
  EXPECT_EQ(c[1].inputs[0].index, c[0].output.index);
  EXPECT_EQ(c[2].inputs[0].index, c[1].output.index);
  EXPECT_EQ(c[3].inputs[0].index, c[2].output.index);
  EXPECT_EQ(c[3].output.home, ValueHome::output);
  // Each reorder serves the command on its channels-last side.
  EXPECT_EQ(c[0].group, c[1].group);
  EXPECT_EQ(c[3].group, c[2].group);
  ASSERT_EQ(planned->output_sources.size(), 1u);
  EXPECT_FALSE(planned->output_sources[0].has_value()) << "written in place";
}

TEST(CompileLayoutPlan, OptionsAndRankKeepValuesFlat) {
  const HandlerRegistry registry = channels_last_registry({"reference.relu", "reference.tanh"});
  auto model = relu_tanh_model(shape({1, 2, 3, 4}));
  ASSERT_NE(model, nullptr);
  auto off = planned_with(*model, registry, {.channels_last = false});
  ASSERT_TRUE(off.has_value());
  EXPECT_EQ(described(*off), (std::vector<std::string>{"1 flat", "2 flat"}));
  auto rank2 = relu_tanh_model(shape({4, 6}));
  ASSERT_NE(rank2, nullptr);
  auto flat = planned_with(*rank2, registry);
  ASSERT_TRUE(flat.has_value());
  EXPECT_EQ(described(*flat), (std::vector<std::string>{"1 flat", "2 flat"}));
}

// A flat command reading a channels-last value gets it through a reorder on the producer's side.
TEST(CompileLayoutPlan, AFlatReaderOfAChannelsLastValueGetsAReorder) {
  const HandlerRegistry registry = channels_last_registry({"reference.relu"});
  auto model = relu_tanh_model(shape({1, 2, 3, 4}));
  ASSERT_NE(model, nullptr);
  auto planned = planned_with(*model, registry);
  ASSERT_TRUE(planned.has_value()) << planned.error().message;
  EXPECT_EQ(described(*planned),
            (std::vector<std::string>{"0 reorder flat>channels-last", "1 channels-last",
                                      "1 reorder channels-last>flat", "2 flat"}));
  EXPECT_EQ(planned->commands[2].group, planned->commands[1].group);
}

}  // namespace
}  // namespace nnplan::runtime::compile_passes
