// compile's liveness pass (src/runtime/compile/liveness.cpp): each arena value's first and last
// command, the in-place claims of in-place-safe kernels (never of reorders), outputs copied at the
// end, and the slots rewritten to the memory plan's offsets.
#include <gtest/gtest.h>

#include "compile_pass_fixtures.hpp"

namespace nnplan::runtime::compile_passes {
namespace {

const ir::Shape kShape{{2, 3}};

ValueSlot arena(std::size_t value) {
  return {.home = ValueHome::arena, .index = value, .weight = nullptr, .shape = &kShape};
}
ValueSlot graph_input() {
  return {.home = ValueHome::input, .index = 0, .weight = nullptr, .shape = &kShape};
}

Command command(std::vector<ValueSlot> inputs, ValueSlot output, bool in_place_safe,
                bool reorder = false) {
  Command c;
  c.inputs = std::move(inputs);
  c.output = output;
  c.handler.in_place_safe = in_place_safe;
  if (reorder) c.reorder = LayoutChange{};
  return c;
}

// input -> a (in place safe) -> b (not) -> c (in place safe, a reorder) -> d (in place safe, of
// another size); b is also a graph output copied at the end.
PlannedCommands chain() {
  PlannedCommands p;
  p.arena_bytes = {24, 24, 24, 48};
  p.commands.push_back(command({graph_input()}, arena(0), true));
  p.commands.push_back(command({arena(0)}, arena(1), false));
  p.commands.push_back(command({arena(1)}, arena(2), true, true));
  p.commands.push_back(command({arena(2), arena(0)}, arena(3), true));
  p.output_sources = {arena(1)};
  return p;
}

TEST(CompileLiveness, LifetimesFromWritersAndReaders) {
  const std::vector<ArenaValue> values = arena_values(chain());
  ASSERT_EQ(values.size(), 4u);
  const std::vector<std::uint32_t> defined = {0, 1, 2, 3};
  const std::vector<std::uint32_t> last = {3, 4, 3, 3};  // 4: copied out after the last command
  for (std::size_t v = 0; v < values.size(); ++v) {
    SCOPED_TRACE(v);
    EXPECT_EQ(values[v].defined_at, defined[v]);
    EXPECT_EQ(values[v].last_use, last[v]);
  }
  EXPECT_EQ(values[0].in_place_of, std::nullopt) << "its input is a graph input";
  EXPECT_EQ(values[1].in_place_of, std::nullopt) << "its handler is not in-place safe";
  EXPECT_EQ(values[2].in_place_of, std::nullopt) << "a reorder never runs in place";
  EXPECT_EQ(values[3].in_place_of, std::nullopt) << "its first input has another size";
}

TEST(CompileLiveness, InPlaceSafeKernelClaimsItsFirstInput) {
  PlannedCommands p;
  p.arena_bytes = {24, 24, 24};
  p.commands.push_back(command({graph_input()}, arena(0), true));
  p.commands.push_back(command({arena(0)}, arena(1), true));
  p.commands.push_back(command({arena(1)}, arena(2), true));
  const std::vector<ArenaValue> values = arena_values(p);
  EXPECT_EQ(values[1].in_place_of, 0u);
  EXPECT_EQ(values[2].in_place_of, 1u);
}

TEST(CompileLiveness, SlotsBecomeTheMemoryPlansOffsets) {
  PlannedCommands p = chain();
  const PlannedCommands before = p;
  const MemoryPlan memory = plan_liveness(p);
  ASSERT_EQ(memory.offsets.size(), 4u);
  for (std::size_t k = 0; k < p.commands.size(); ++k) {
    SCOPED_TRACE(k);
    for (std::size_t i = 0; i < p.commands[k].inputs.size(); ++i) {
      const ValueSlot& was = before.commands[k].inputs[i];
      const ValueSlot& now = p.commands[k].inputs[i];
      EXPECT_EQ(now.index, was.home == ValueHome::arena ? memory.offsets[was.index] : was.index);
    }
    EXPECT_EQ(p.commands[k].output.index, memory.offsets[before.commands[k].output.index]);
  }
  ASSERT_TRUE(p.output_sources[0].has_value());
  EXPECT_EQ(p.output_sources[0]->index, memory.offsets[1]);
  // Value 1 lives to the end, so nothing later shares its bytes.
  EXPECT_GE(memory.peak_bytes, 24u + 48u);
}

}  // namespace
}  // namespace nnplan::runtime::compile_passes
