// The passes of runtime::compile (SPEC §11 "Command buffer"), one file each, in the order
// compile (command_buffer.cpp) calls them:
//
//   bind            binding.cpp      each planned node or fused group bound to its handler and
//                                    guards: one BoundCommand per command, in lowering order
//   choose_layouts  layout_plan.cpp  each command's layout (channels-last where its handler runs
//   emit_commands                    it), then the command sequence with a reorder command at
//                                    every layout change, every value's slot and each graph
//                                    output's source
//   prepare         preparation.cpp  each command's prepared state (handler.prepare)
//   plan_liveness   liveness.cpp     each arena value's first and last command and in-place use,
//                                    the memory plan, and every arena slot turned into its offset
//
// A pass reads what the earlier ones produced and nothing else of compile's; each is tested on
// its own (tests/runtime/compile/). The first error stops compile: binding's, then emission's
// (a graph output no command defines), then the first failing prepare in command order.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "nnplan/backend/planned_model.hpp"
#include "nnplan/runtime/command_buffer.hpp"
#include "nnplan/runtime/handler_registry.hpp"

namespace nnplan::runtime::compile_passes {

// "group 3: capsule 'onednn.conv' (conv on onednn/cpu)": how compile's errors name a command.
[[nodiscard]] std::string group_label(std::uint32_t group, const backend::KernelCapsule& c);

// ---- binding ----

// A command as binding makes it: handler, guards, chain and weights set, no slots yet. `operands`
// are the nodes whose values it reads (detach looked through), in input order: the root's
// parents, then each later chain node's other operands. `last` is the node whose value it defines.
struct BoundCommand {
  Command command;
  std::vector<ir::NodeId> operands;
  ir::NodeId last = 0;
};

struct BoundGraph {
  std::vector<BoundCommand> commands;  // in lowering order
  // Per node: the slot of each graph input and const; default for the rest.
  std::vector<ValueSlot> slots;
  std::vector<IoBinding> inputs;  // the graph's inputs, in node order, each with its own name
  // Readable copies of the weights that are not readable in place (strided or misaligned views)
  // for the consts and the handlers that read weights on every run; slots and commands point
  // into them.
  std::vector<std::shared_ptr<const ir::WeightTensor>> dense_weights;
};

// Binds every command of an accepted model's lowering: the handler registered for its capsule's
// identity (and record), the guards its evidence names, its weights (one that is not readable in
// place copied unless the handler reads views, and its source's pages released). unbound_capsule
// for a capsule without handler or guard; invalid_input for missing weights or two inputs of one
// name; internal for a lowering that reads a value before any command defines it.
[[nodiscard]] Expected<BoundGraph> bind(const backend::PlannedModel& model,
                                        const HandlerRegistry& handlers);

// A node's value as graph outputs and operands see it: detach looked through.
[[nodiscard]] ir::NodeId source_of(const ir::Graph& graph, ir::NodeId id);

// ---- layout planning ----

// No arena value (a slot of another home).
inline constexpr std::uint32_t kNoValue = std::numeric_limits<std::uint32_t>::max();

// The command sequence layout planning emits. Arena slots index `arena_bytes` (one entry per
// arena value, its size) until plan_liveness turns them into offsets.
struct PlannedCommands {
  std::vector<Command> commands;
  std::vector<std::size_t> arena_bytes;
  // Per graph output, in graph order: the slot its value is copied from after the last command,
  // nullopt when a command writes it in place.
  std::vector<std::optional<ValueSlot>> output_sources;
  // The bound graph's readable weight copies (BoundGraph::dense_weights), which the commands
  // point into: they travel with the commands.
  std::vector<std::shared_ptr<const ir::WeightTensor>> dense_weights;
};

// Sets each bound command's layout (SPEC §12): channels-last where its handler prefers it
// (LayoutSupport::channels_last) or follows its inputs and they all come channels-last
// (any_shared), when the provider has a reorder, the value has rank 3 or more and the handler's
// takes_channels_last allows the call; flat everywhere else (and always without
// options.channels_last).
void choose_layouts(BoundGraph& bound, const backend::PlannedModel& model,
                    const HandlerRegistry& handlers, const CompileOptions& options);

// Emits the commands with their input and output slots, a reorder command wherever a value is
// read in a layout it does not have yet (and for each graph output computed channels-last), and
// each graph output's source. internal when a graph output is defined by no command.
[[nodiscard]] Expected<PlannedCommands> emit_commands(BoundGraph bound,
                                                      const backend::PlannedModel& model,
                                                      const HandlerRegistry& handlers);

// ---- liveness and the memory plan ----

// Each arena value's lifetime from the commands that write and read it: defined at the first
// command writing it, last used by the last command reading it (the end, one past the last
// command, when a graph output is copied from it), in place of a kernel command's first input
// when its handler is in_place_safe and the two have one size (plan_memory keeps the claim only
// where that input dies there).
[[nodiscard]] std::vector<ArenaValue> arena_values(const PlannedCommands& planned);

// Plans the arena (plan_memory) and rewrites every arena slot, in the commands and the output
// sources, from its value's number to its byte offset.
[[nodiscard]] MemoryPlan plan_liveness(PlannedCommands& planned);

// ---- preparation ----

// What `command`'s prepare sees: its inputs' and output's shapes, its weights, the settings, and
// its layouts (a reorder's from and to).
[[nodiscard]] PrepareCall prepare_call(const Command& command,
                                       std::span<const ir::Shape* const> input_shapes,
                                       const ir::Shape& output_shape,
                                       const backend::PlannedModel& model,
                                       const CompileOptions& options, TensorLayout from,
                                       TensorLayout to);

// Runs every command's prepare in order, keeping its state; the first failure, named by the
// command's group, capsule and node.
[[nodiscard]] Expected<void> prepare(std::span<Command> commands,
                                     const backend::PlannedModel& model,
                                     const CompileOptions& options);

}  // namespace nnplan::runtime::compile_passes
