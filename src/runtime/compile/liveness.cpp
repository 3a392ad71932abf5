// compile's third pass: each arena value's lifetime from the commands that write and read it, the
// memory plan, and every arena slot turned into its byte offset (compile_passes.hpp).
#include "runtime/compile/compile_passes.hpp"

namespace nnplan::runtime::compile_passes {

std::vector<ArenaValue> arena_values(const PlannedCommands& planned) {
  std::vector<ArenaValue> values(planned.arena_bytes.size());
  std::vector<bool> written(values.size(), false);
  for (std::size_t v = 0; v < values.size(); ++v)
    values[v].bytes = planned.arena_bytes[v];
  for (std::size_t k = 0; k < planned.commands.size(); ++k) {
    const Command& c = planned.commands[k];
    const auto index = static_cast<std::uint32_t>(k);
    for (const ValueSlot& in : c.inputs) {
      if (in.home == ValueHome::arena) values[in.index].last_use = index;
    }
    if (c.output.home != ValueHome::arena || written[c.output.index]) continue;
    ArenaValue& out = values[c.output.index];
    written[c.output.index] = true;
    out.defined_at = index;
    out.last_use = index;
    // A kernel that may write over its first input does, where that input has the same size
    // (plan_memory keeps the claim only where the input dies at this command).
    if (!c.reorder && c.handler.in_place_safe && !c.inputs.empty() &&
        c.inputs[0].home == ValueHome::arena && values[c.inputs[0].index].bytes == out.bytes) {
      out.in_place_of = static_cast<std::uint32_t>(c.inputs[0].index);
    }
  }
  // An output copied from the arena after the last command keeps its value to the end.
  const auto end = static_cast<std::uint32_t>(planned.commands.size());
  for (const std::optional<ValueSlot>& source : planned.output_sources) {
    if (source && source->home == ValueHome::arena) values[source->index].last_use = end;
  }
  return values;
}

MemoryPlan plan_liveness(PlannedCommands& planned) {
  MemoryPlan memory = plan_memory(arena_values(planned));
  const auto to_offset = [&](ValueSlot& s) {
    if (s.home == ValueHome::arena) s.index = memory.offsets[s.index];
  };
  for (Command& c : planned.commands) {
    for (ValueSlot& s : c.inputs)
      to_offset(s);
    to_offset(c.output);
  }
  for (std::optional<ValueSlot>& s : planned.output_sources) {
    if (s) to_offset(*s);
  }
  return memory;
}

}  // namespace nnplan::runtime::compile_passes
