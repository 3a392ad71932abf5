// Command buffers (SPEC §11): an accepted plan compiled for this build. One command per planned
// node (or fused group), in execution order, plus the reorders that change a value's layout
// between commands whose handlers run on channels-last data (SPEC §12); each bound to the handler
// registered under exactly its capsule's identity, with the guards its capsule's runtime-guard
// evidence names, its operands' homes (a graph input, a weight, the arena or a graph output) and
// its payloads resolved. The buffer owns the planned model it was compiled from (and through it the
// graph and weights every command points into), and the memory plan of its arena.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "nnplan/backend/planned_model.hpp"
#include "nnplan/error.hpp"
#include "nnplan/runtime/handler_registry.hpp"
#include "nnplan/runtime/memory_plan.hpp"

namespace nnplan::runtime {

// Where a value lives while the buffer runs.
enum class ValueHome : std::uint8_t { input, weight, arena, output };

struct ValueSlot {
  ValueHome home = ValueHome::arena;
  // input: the input's position; output: the output's position; arena: the byte offset.
  std::size_t index = 0;
  const std::byte* weight = nullptr;  // weight: the payload's bytes
  const ir::Shape* shape = nullptr;
  // The value's element type: float32 for every value of the IR today (graph inputs, node
  // outputs and consts); int64 and bool values arrive with the operators that make them.
  DType dtype = DType::float32;
};

// A guard a command runs before its launch, under its evidence name.
struct CommandGuard {
  std::string_view name;
  GuardFn check = nullptr;
};

// What a reorder command does: copy its node's value from layout `from` (input 0) to `to`.
struct LayoutChange {
  TensorLayout from = TensorLayout::flat;
  TensorLayout to = TensorLayout::flat;
};

struct Command {
  // The node the command runs; for a fused group, the chain's root (`chain` lists them all). For
  // a reorder, the node whose value it copies.
  const ir::Node* node = nullptr;
  // The command's nodes, root first: one for a plain command, the whole chain for a fused one.
  std::vector<const ir::Node*> chain;
  std::uint32_t group = 0;  // the lowered group the node belongs to
  backend::CapsuleId capsule = 0;
  // A copy of the handler registered for the capsule (plain function pointers and static names),
  // so the buffer does not depend on the registry it was compiled against outliving it.
  HandlerDefinition handler;
  std::vector<ValueSlot> inputs;  // in parent order
  ValueSlot output;
  std::vector<WeightRef> weights;  // the node's payload tensors, in slot order
  std::vector<CommandGuard> guards;
  // What the handler's prepare built when the buffer was compiled; null when it has none.
  std::shared_ptr<const KernelState> state;
  // The layout of every input and of the output of a kernel command.
  TensorLayout layout = TensorLayout::flat;
  // Set on a reorder: its handler is the reorder (HandlerRegistry::reorder) of the provider whose
  // command runs channels-last on its side (the reader, for a reorder to channels-last; the
  // producer, for one to flat), `group` and `capsule` are that command's, and it has no guards.
  std::optional<LayoutChange> reorder;
};

// A graph input or output as callers bind it: its name, node, shape and element type.
struct IoBinding {
  std::string name;
  ir::NodeId node_id = 0;
  const ir::Shape* shape = nullptr;
  DType dtype = DType::float32;
};

struct CompileOptions {
  // The graph outputs' names, in graph order (an ONNX model's output names); empty: `output`
  // for a single output, else `output0`, `output1`, ...
  std::vector<std::string> output_names;
  // Passed to every handler's prepare (threads for onednn).
  KernelSettings settings;
  // Whether a value may stay channels-last between commands whose handlers run on it (SPEC §12;
  // kernel.hpp, LayoutSupport); false keeps every value flat and adds no reorder.
  bool channels_last = true;
};

class CommandBuffer {
 public:
  [[nodiscard]] std::span<const Command> commands() const { return commands_; }
  [[nodiscard]] std::span<const IoBinding> inputs() const { return inputs_; }
  [[nodiscard]] std::span<const IoBinding> outputs() const { return outputs_; }
  // Per graph output: where its value is copied from after the last command, for an output no
  // command writes directly (an input, a weight, a detached value, a node listed twice); nullopt
  // for an output its command writes in place.
  [[nodiscard]] std::span<const std::optional<ValueSlot>> output_sources() const {
    return output_sources_;
  }
  [[nodiscard]] const MemoryPlan& memory() const { return memory_; }
  [[nodiscard]] std::size_t peak_arena_bytes() const { return memory_.peak_bytes; }
  [[nodiscard]] std::size_t no_reuse_bytes() const { return memory_.no_reuse_bytes; }
  [[nodiscard]] const backend::PlannedModel& model() const { return *model_; }
  [[nodiscard]] const backend::KernelCapsule& capsule(const Command& c) const {
    return model_->lowering().registry->capsule(c.capsule);
  }

 private:
  friend Expected<CommandBuffer> compile(std::shared_ptr<const backend::PlannedModel> model,
                                         const HandlerRegistry& handlers,
                                         const CompileOptions& options);
  std::shared_ptr<const backend::PlannedModel> model_;
  std::vector<Command> commands_;
  std::vector<IoBinding> inputs_;
  std::vector<IoBinding> outputs_;
  std::vector<std::optional<ValueSlot>> output_sources_;
  MemoryPlan memory_;
  // Readable copies of the weights that are not readable in place, for the handlers and consts
  // that read weights on every run (HandlerDefinition::reads_weight_views); commands and slots
  // point into them.
  std::vector<std::shared_ptr<const ir::WeightTensor>> dense_weights_;
};

// Compiles an accepted planned model. A command whose handler prefers channels-last runs on it,
// as does a command whose handler follows its inputs' layout (LayoutSupport::any_shared) when
// every input is channels-last (a const whose elements are all equal, which reads the same in
// every layout, counts as one, read as it is) and its `takes_channels_last` allows it; a value
// is reordered once for each other layout its readers need, the reorder placed just before its
// first such reader (after its producer, for a graph output). Errors: a model that is not accepted
// (rejected_by_policy); a capsule without a handler of its identity in `handlers`, or one whose
// runtime-guard evidence names a guard `handlers` does not register (unbound_capsule, naming the
// group and capsule); a node whose required payload is missing (invalid_input, naming the node
// and payload).
[[nodiscard]] Expected<CommandBuffer> compile(std::shared_ptr<const backend::PlannedModel> model,
                                              const HandlerRegistry& handlers = builtin_handlers(),
                                              const CompileOptions& options = {});

// The layout each lowered group of `buffer`'s plan runs in, in group order: its commands, those
// that run channels-last, and the reorders on its behalf (a reorder counts for the group of the
// command on its channels-last side).
[[nodiscard]] std::vector<backend::GroupLayout> group_layouts(const CommandBuffer& buffer);
// The same for `model` compiled with the built-in handlers, as `nnplan run` compiles it: what
// `nnplan report` states beside each layout contract. The error says why there are none ("the
// gate rejects the plan, so it is not compiled", "compiling the plan failed: ...").
[[nodiscard]] Expected<std::vector<backend::GroupLayout>> group_layouts(
    std::shared_ptr<const backend::PlannedModel> model);

}  // namespace nnplan::runtime
