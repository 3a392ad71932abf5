// compile's second pass: each command's layout (SPEC §12), then the command sequence with a
// reorder command wherever a value is read in a layout it does not have yet, every value's slot
// and every graph output's source (compile_passes.hpp).
#include <algorithm>
#include <cstring>
#include <map>

#include "nnplan/runtime/tensor.hpp"
#include "runtime/compile/compile_passes.hpp"

namespace nnplan::runtime::compile_passes {
namespace {

std::vector<const ir::Shape*> operand_shapes(const ir::Graph& graph, const BoundCommand& bound) {
  std::vector<const ir::Shape*> shapes;
  for (ir::NodeId id : bound.operands)
    shapes.push_back(&graph.nodes[id].shape);
  return shapes;
}

// Whether `slot` is a const whose elements all have the same bytes, of rank `rank`: such a
// value reads the same in every layout, so a command running channels-last reads it as it is.
bool layout_free_const(const ValueSlot& slot, std::size_t rank) {
  if (slot.home != ValueHome::weight || slot.shape->rank() != rank) return false;
  const std::size_t size = ir::size_of(slot.dtype);
  const std::size_t count = element_count_of(*slot.shape);
  for (std::size_t i = 1; i < count; ++i) {
    if (std::memcmp(slot.weight, slot.weight + i * size, size) != 0) return false;
  }
  return true;
}

// Node `node`'s value in arena value `value`.
ValueSlot arena_slot(const ir::Node& node, std::uint32_t value) {
  return ValueSlot{.home = ValueHome::arena,
                   .index = value,
                   .weight = nullptr,
                   .shape = &node.shape,
                   .dtype = node.dtype};
}

// The command a reorder is emitted for: its group and capsule.
struct Needing {
  std::uint32_t group = 0;
  backend::CapsuleId capsule = 0;
};
Needing needing_of(const Command& c) {
  return Needing{.group = c.group, .capsule = c.capsule};
}

// The emission state: per node, where its flat and channels-last versions live.
class Emitter {
 public:
  Emitter(BoundGraph& bound, const backend::PlannedModel& model, const HandlerRegistry& handlers)
      : graph_(model.graph()),
        model_(model),
        handlers_(handlers),
        slots_(std::move(bound.slots)),
        arena_value_of_(graph_.nodes.size(), kNoValue),
        channels_last_of_(graph_.nodes.size()),
        flat_defined_(graph_.nodes.size(), false),
        made_by_(graph_.nodes.size()) {
    for (const ir::Node& node : graph_.nodes) {
      flat_defined_[node.id] = node.kind == ir::OpKind::input || node.kind == ir::OpKind::const_;
    }
  }

  void emit(BoundCommand& bound, const std::map<ir::NodeId, std::size_t>& first_output);
  // The flat version of node `id`, reordered from its channels-last one after the last command
  // when it has none yet (a graph output listed through a detach, say).
  void ensure_flat(ir::NodeId id) {
    if (!flat_defined_[id]) (void)operand_slot(id, TensorLayout::flat, made_by_[id]);
  }
  [[nodiscard]] const ValueSlot& slot(ir::NodeId id) const { return slots_[id]; }
  PlannedCommands planned;

 private:
  // A channels-last version of a node, and the arena value holding it.
  struct ChannelsLastVersion {
    bool present = false;
    ValueSlot slot;
    std::uint32_t arena_value = kNoValue;
  };

  std::uint32_t new_arena_value(const ir::Node& node) {
    const auto index = static_cast<std::uint32_t>(planned.arena_bytes.size());
    planned.arena_bytes.push_back(element_count_of(node.shape) * ir::size_of(node.dtype));
    return index;
  }
  std::uint32_t emit_reorder(ir::NodeId id, TensorLayout from, TensorLayout to, Needing needing,
                             std::optional<ValueSlot> into);
  ValueSlot operand_slot(ir::NodeId id, TensorLayout layout, Needing reader);

  const ir::Graph& graph_;
  const backend::PlannedModel& model_;
  const HandlerRegistry& handlers_;
  std::vector<ValueSlot> slots_;               // per node, its flat version
  std::vector<std::uint32_t> arena_value_of_;  // the arena value of slots_[id], if any
  std::vector<ChannelsLastVersion> channels_last_of_;
  std::vector<bool> flat_defined_;  // whether slots_[id] exists yet
  std::vector<Needing> made_by_;    // per node, the command that computes it
};

// Emits the reorder of node `id`'s value from `from` to `to` for command `needing`, into `into`
// when given (a graph output), else into a new arena value; returns the arena value written
// (kNoValue for `into`).
std::uint32_t Emitter::emit_reorder(ir::NodeId id, TensorLayout from, TensorLayout to,
                                    Needing needing, std::optional<ValueSlot> into) {
  const ir::Node& node = graph_.nodes[id];
  const backend::Provider provider = model_.lowering().registry->capsule(needing.capsule).provider;
  const bool to_flat = to == TensorLayout::flat;
  const ValueSlot source = to_flat ? channels_last_of_[id].slot : slots_[id];
  std::uint32_t written = kNoValue;
  if (!into) {
    written = new_arena_value(node);
    into = arena_slot(node, written);
  }
  planned.commands.push_back({.node = &node,
                              .chain = {&node},
                              .group = needing.group,
                              .capsule = needing.capsule,
                              .handler = *handlers_.reorder(provider),
                              .inputs = {source},
                              .output = *into,
                              .weights = {},
                              .guards = {},
                              .state = nullptr,
                              .layout = to,
                              .reorder = LayoutChange{.from = from, .to = to}});
  return written;
}

// The slot a command reads node `id` from in `layout`, emitting the reorder that makes it first
// (on the provider of the channels-last side: the reader's to channels-last, the producer's to
// flat).
ValueSlot Emitter::operand_slot(ir::NodeId id, TensorLayout layout, Needing reader) {
  if (layout == TensorLayout::channels_last &&
      !layout_free_const(slots_[id], graph_.nodes[id].shape.rank())) {
    if (!channels_last_of_[id].present) {
      const std::uint32_t written =
          emit_reorder(id, TensorLayout::flat, TensorLayout::channels_last, reader, {});
      channels_last_of_[id] = {
          .present = true, .slot = arena_slot(graph_.nodes[id], written), .arena_value = written};
    }
    return channels_last_of_[id].slot;
  }
  if (!flat_defined_[id]) {
    const std::uint32_t written =
        emit_reorder(id, TensorLayout::channels_last, TensorLayout::flat, made_by_[id], {});
    slots_[id] = arena_slot(graph_.nodes[id], written);
    arena_value_of_[id] = written;
    flat_defined_[id] = true;
  }
  return slots_[id];
}

void Emitter::emit(BoundCommand& bound, const std::map<ir::NodeId, std::size_t>& first_output) {
  Command& command = bound.command;
  made_by_[bound.last] = needing_of(command);
  const ir::Node& last = graph_.nodes[bound.last];
  for (ir::NodeId id : bound.operands)
    command.inputs.push_back(operand_slot(id, command.layout, needing_of(command)));
  const auto out = first_output.find(last.id);
  const bool channels_last = command.layout == TensorLayout::channels_last;
  if (out != first_output.end() && !channels_last) {
    slots_[last.id] = {
        .home = ValueHome::output, .index = out->second, .shape = &last.shape, .dtype = last.dtype};
    flat_defined_[last.id] = true;
    command.output = slots_[last.id];
  } else {
    const std::uint32_t written = new_arena_value(last);
    command.output = arena_slot(last, written);
    if (channels_last) {
      channels_last_of_[last.id] = {
          .present = true, .slot = command.output, .arena_value = written};
    } else {
      slots_[last.id] = command.output;
      arena_value_of_[last.id] = written;
      flat_defined_[last.id] = true;
    }
  }
  planned.commands.push_back(std::move(command));
  // A graph output computed channels-last is reordered into its place at once.
  if (out != first_output.end() && channels_last) {
    const ValueSlot output{
        .home = ValueHome::output, .index = out->second, .shape = &last.shape, .dtype = last.dtype};
    emit_reorder(last.id, TensorLayout::channels_last, TensorLayout::flat,
                 needing_of(planned.commands.back()), output);
    slots_[last.id] = output;
    flat_defined_[last.id] = true;
  }
}

}  // namespace

void choose_layouts(BoundGraph& bound, const backend::PlannedModel& model,
                    const HandlerRegistry& handlers, const CompileOptions& options) {
  const ir::Graph& graph = model.graph();
  constexpr int kNoProducer = -1;
  std::vector<int> producer(graph.nodes.size(), kNoProducer);
  for (std::size_t k = 0; k < bound.commands.size(); ++k) {
    BoundCommand& b = bound.commands[k];
    Command& c = b.command;
    const backend::Provider provider = model.lowering().registry->capsule(c.capsule).provider;
    const bool possible = options.channels_last && handlers.reorder(provider) != nullptr &&
                          graph.nodes[b.last].shape.rank() >= 3;
    bool channels_last = possible && c.handler.layouts == LayoutSupport::channels_last;
    if (possible && c.handler.layouts == LayoutSupport::any_shared) {
      // Channels-last when every operand is made channels-last, or is a const that reads the
      // same in every layout, and at least one is made.
      const std::size_t rank = graph.nodes[b.last].shape.rank();
      bool made = false;
      channels_last = true;
      for (ir::NodeId id : b.operands) {
        const bool made_channels_last =
            producer[id] != kNoProducer &&
            bound.commands[static_cast<std::size_t>(producer[id])].command.layout ==
                TensorLayout::channels_last;
        made = made || made_channels_last;
        channels_last =
            channels_last && (made_channels_last || layout_free_const(bound.slots[id], rank));
      }
      channels_last = channels_last && made;
    }
    if (channels_last && c.handler.takes_channels_last != nullptr) {
      const auto shapes = operand_shapes(graph, b);
      channels_last = c.handler.takes_channels_last(
          prepare_call(c, shapes, graph.nodes[b.last].shape, model, options, TensorLayout::flat,
                       TensorLayout::flat));
    }
    c.layout = channels_last ? TensorLayout::channels_last : TensorLayout::flat;
    producer[b.last] = static_cast<int>(k);
  }
}

Expected<PlannedCommands> emit_commands(BoundGraph bound, const backend::PlannedModel& model,
                                        const HandlerRegistry& handlers) {
  const ir::Graph& graph = model.graph();
  std::map<ir::NodeId, std::size_t> first_output;
  for (std::size_t k = 0; k < graph.output_ids.size(); ++k)
    first_output.emplace(graph.output_ids[k], k);
  std::vector<bool> defined(graph.nodes.size(), false);
  for (const ir::Node& node : graph.nodes)
    defined[node.id] = node.kind == ir::OpKind::input || node.kind == ir::OpKind::const_;

  Emitter emitter(bound, model, handlers);
  for (BoundCommand& b : bound.commands) {
    defined[b.last] = true;
    emitter.emit(b, first_output);
  }
  // A graph output whose value exists only channels-last (one listed through a detach, say) is
  // reordered after the last command.
  for (const ir::NodeId listed : graph.output_ids) {
    const ir::NodeId id = source_of(graph, listed);
    if (defined[id]) emitter.ensure_flat(id);
  }
  // Outputs a command did not write in place are copied from their flat version after the last
  // command.
  for (std::size_t k = 0; k < graph.output_ids.size(); ++k) {
    const ir::NodeId id = source_of(graph, graph.output_ids[k]);
    if (!defined[id]) {
      return std::unexpected(
          make_error(ErrorKind::internal, "graph output " + ir::describe(graph.nodes[id]) +
                                              " is defined by no command of the lowering"));
    }
    const ValueSlot& source = emitter.slot(id);
    if (source.home == ValueHome::output && source.index == k) {
      emitter.planned.output_sources.emplace_back(std::nullopt);
    } else {
      emitter.planned.output_sources.emplace_back(source);
    }
  }
  emitter.planned.dense_weights = std::move(bound.dense_weights);
  return std::move(emitter.planned);
}

}  // namespace nnplan::runtime::compile_passes
