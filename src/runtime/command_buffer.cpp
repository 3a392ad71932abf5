#include "nnplan/runtime/command_buffer.hpp"

#include <limits>
#include <map>

#include "nnplan/format/payload_file.hpp"
#include "nnplan/runtime/tensor.hpp"

namespace nnplan::runtime {
namespace {

constexpr std::uint32_t kNoValue = std::numeric_limits<std::uint32_t>::max();

std::string group_label(std::uint32_t group, const backend::KernelCapsule& c) {
  return "group " + std::to_string(group) + ": capsule '" + c.name + "' (" +
         std::string(backend::to_string(c.op)) + " on " +
         std::string(backend::to_string(c.provider)) + "/" +
         std::string(backend::to_string(c.device)) + ")";
}

std::string input_name(const ir::Node& node, std::size_t input_nodes) {
  if (!node.source_name.empty()) return node.source_name;
  return input_nodes == 1 ? "input" : "input" + std::to_string(node.id);
}

std::string output_name(const CompileOptions& options, std::size_t position, std::size_t count) {
  if (position < options.output_names.size() && !options.output_names[position].empty()) {
    return options.output_names[position];
  }
  return count == 1 ? "output" : "output" + std::to_string(position);
}

// The guards a capsule's evidence names, resolved in `handlers`; unbound_capsule when one is not
// registered.
Expected<std::vector<CommandGuard>> resolve_guards(const backend::KernelCapsule& capsule,
                                                   std::uint32_t group,
                                                   const HandlerRegistry& handlers) {
  std::vector<CommandGuard> guards;
  for (const backend::ContractDescriptor* d :
       {&capsule.shape, &capsule.layout, &capsule.value, &capsule.vjp}) {
    if (d->evidence.kind != backend::EvidenceKind::runtime_guard) continue;
    const RegisteredGuard* g = handlers.find_guard(d->evidence.name);
    if (g == nullptr) {
      return std::unexpected(make_error(
          ErrorKind::unbound_capsule,
          group_label(group, capsule) + " claims runtime guard '" + d->evidence.name +
              "', which this build does not register; nnplan does not run a capsule whose "
              "guard is missing"));
    }
    guards.push_back({.name = d->evidence.name, .check = g->check});
  }
  return guards;
}

}  // namespace

Expected<CommandBuffer> compile(std::shared_ptr<const backend::PlannedModel> model,
                                const HandlerRegistry& handlers, const CompileOptions& options) {
  if (model == nullptr) {
    return std::unexpected(make_error(ErrorKind::invalid_input, "no planned model to compile"));
  }
  if (!model->accepted()) {
    return std::unexpected(
        make_error(ErrorKind::rejected_by_policy,
                   "the plan was rejected by its gate under assurance " +
                       std::string(backend::label(model->profile().config.assurance)) +
                       "; only an accepted plan is compiled"));
  }
  const ir::Graph& graph = model->graph();
  const backend::GraphLoweringPlan& lowering = model->lowering();
  const format::PayloadStore* store = model->weights().get();

  CommandBuffer buffer;
  buffer.model_ = model;

  std::map<ir::NodeId, std::size_t> first_output;
  for (std::size_t k = 0; k < graph.output_ids.size(); ++k) {
    first_output.emplace(graph.output_ids[k], k);
  }
  std::size_t input_nodes = 0;
  for (const ir::Node& n : graph.nodes)
    input_nodes += n.kind == ir::OpKind::input ? 1 : 0;

  // A detach node's value is its parent's: uses look through it.
  const auto source_of = [&](ir::NodeId id) {
    while (graph.nodes[id].kind == ir::OpKind::detach)
      id = graph.nodes[id].parents[0];
    return id;
  };

  // Per node: its value's slot; for arena values, `index` is the arena value's number until the
  // memory plan gives offsets. Inputs and consts first; kernels' values in lowering order.
  std::vector<ValueSlot> slots(graph.nodes.size());
  std::vector<ArenaValue> arena;
  std::vector<std::uint32_t> arena_value_of(graph.nodes.size(), kNoValue);
  // Whether a node's value is defined by the commands collected so far: inputs and consts at
  // once, kernels' values when their command is collected (in lowering order).
  std::vector<bool> defined(graph.nodes.size(), false);
  for (const ir::Node& node : graph.nodes) {
    defined[node.id] = node.kind == ir::OpKind::input || node.kind == ir::OpKind::const_;
    ValueSlot& slot = slots[node.id];
    slot.shape = &node.shape;
    if (node.kind == ir::OpKind::input) {
      slot.home = ValueHome::input;
      slot.index = buffer.inputs_.size();
      buffer.inputs_.push_back(
          {.name = input_name(node, input_nodes), .node_id = node.id, .shape = &node.shape});
    } else if (node.kind == ir::OpKind::const_) {
      const format::PayloadTensor* value =
          store == nullptr ? nullptr : store->find_tensor(node.id, "value");
      if (value == nullptr) {
        return std::unexpected(make_error(
            ErrorKind::invalid_input,
            ir::describe(node) + ": payload value is missing: the graph's weights were not "
                                 "loaded (the payload file beside the graph, or the ONNX "
                                 "model's initializers)"));
      }
      slot.home = ValueHome::weight;
      slot.weight = value->data.data();
    }
  }

  // One command per planned node, or one per fused group: its nodes root first, its inputs the
  // root's parents then each later node's other operand. Built in lowering order, then given
  // their layouts, then emitted with their operands' slots, the reorders between them and their
  // prepared state.
  struct Pending {
    Command command;
    std::vector<ir::NodeId> operands;
    ir::NodeId last = 0;
  };
  std::vector<Pending> pending;
  const auto collect = [&](std::uint32_t group, backend::CapsuleId capsule_id,
                           std::span<const backend::PlannedNodeKernel> members) -> Expected<void> {
    const backend::KernelCapsule& capsule = lowering.registry->capsule(capsule_id);
    const HandlerDefinition* handler = handlers.find(capsule);
    if (handler == nullptr) {
      return std::unexpected(make_error(ErrorKind::unbound_capsule,
                                        group_label(group, capsule) +
                                            " has no handler in this build; nnplan never runs "
                                            "another capsule in its place"));
    }
    if (const backend::KernelCapsule* declared = handlers.declaration(identity_of(capsule));
        declared != nullptr && *declared != capsule) {
      return std::unexpected(make_error(
          ErrorKind::unbound_capsule,
          group_label(group, capsule) +
              " has the identity of a built-in handler but not its record (contracts, evidence "
              "or numerical policy differ from what the handler was written to); this build "
              "runs that handler only under its own capsule"));
    }
    auto guards = resolve_guards(capsule, group, handlers);
    if (!guards) return std::unexpected(std::move(guards.error()));

    const ir::Node& root = graph.nodes[members.front().node_id];
    Pending p{.command = {.node = &root,
                          .chain = {},
                          .group = group,
                          .capsule = capsule_id,
                          .handler = *handler,
                          .inputs = {},
                          .output = {},
                          .weights = {},
                          .guards = std::move(*guards),
                          .state = nullptr},
              .operands = {},
              .last = members.back().node_id};
    Command& command = p.command;
    for (std::size_t m = 0; m < members.size(); ++m) {
      const ir::Node& n = graph.nodes[members[m].node_id];
      if (n.kind == ir::OpKind::input || n.kind == ir::OpKind::const_ ||
          n.kind == ir::OpKind::detach) {
        return std::unexpected(
            make_error(ErrorKind::internal, ir::describe(n) + " has a planned kernel"));
      }
      command.chain.push_back(&n);
      for (ir::NodeId parent : n.parents) {
        if (m > 0 && parent == members[m - 1].node_id) continue;
        p.operands.push_back(source_of(parent));
      }
    }
    for (ir::NodeId operand : p.operands) {
      if (!defined[operand]) {
        return std::unexpected(make_error(
            ErrorKind::internal, ir::describe(root) + " reads node " + std::to_string(operand) +
                                     " before any command defines it: the lowering is not in "
                                     "execution order"));
      }
    }
    for (const format::PayloadSlot& slot : format::payload_slots(root.kind)) {
      if (slot.attribute) continue;
      const format::PayloadTensor* t =
          store == nullptr ? nullptr : store->find_tensor(root.id, slot.name);
      if (t == nullptr && slot.required) {
        return std::unexpected(make_error(
            ErrorKind::invalid_input,
            ir::describe(root) + ": payload " + std::string(slot.name) +
                " is missing: the graph's weights were not loaded (the payload file beside "
                "the graph, or the ONNX model's initializers)"));
      }
      command.weights.push_back({.name = slot.name, .tensor = t});
    }
    defined[p.last] = true;
    pending.push_back(std::move(p));
    return {};
  };
  for (std::uint32_t g = 0; g < lowering.groups.size(); ++g) {
    const backend::LoweredKernelGroup& group = lowering.groups[g];
    const auto members = lowering.group_nodes(group);
    if (group.grouping == backend::GroupingKind::fused) {
      if (auto ok = collect(g, group.capsule, members); !ok) return std::unexpected(ok.error());
      continue;
    }
    for (std::size_t m = 0; m < members.size(); ++m) {
      if (auto ok = collect(g, members[m].capsule, members.subspan(m, 1)); !ok) {
        return std::unexpected(ok.error());
      }
    }
  }

  // What a command's prepare sees, its operands' shapes in `shapes`.
  const auto prepare_call = [&](const Command& c, const std::vector<const ir::Shape*>& shapes,
                                const ir::Shape& output_shape, TensorLayout from, TensorLayout to) {
    return PrepareCall{.node = *c.node,
                       .chain = c.chain,
                       .input_shapes = shapes,
                       .weights = {.tensors = c.weights, .store = store, .node_id = c.node->id},
                       .output_shape = output_shape,
                       .settings = options.settings,
                       .input_layout = from,
                       .output_layout = to};
  };
  const auto operand_shapes = [&](const Pending& p) {
    std::vector<const ir::Shape*> shapes;
    for (ir::NodeId id : p.operands)
      shapes.push_back(&graph.nodes[id].shape);
    return shapes;
  };

  // Layouts (SPEC §12): channels-last where the handler prefers it (LayoutSupport::channels_last)
  // or follows its inputs and they all come channels-last (any_shared), when its
  // takes_channels_last allows the call; flat everywhere else.
  constexpr int kNoProducer = -1;
  std::vector<int> producer(graph.nodes.size(), kNoProducer);
  for (std::size_t k = 0; k < pending.size(); ++k) {
    Pending& p = pending[k];
    Command& c = p.command;
    const backend::Provider provider = lowering.registry->capsule(c.capsule).provider;
    const bool possible = options.channels_last && handlers.reorder(provider) != nullptr &&
                          graph.nodes[p.last].shape.rank() >= 3;
    bool channels_last = possible && c.handler.layouts == LayoutSupport::channels_last;
    if (possible && c.handler.layouts == LayoutSupport::any_shared) {
      channels_last = !p.operands.empty();
      for (ir::NodeId id : p.operands) {
        channels_last = channels_last && producer[id] != kNoProducer &&
                        pending[static_cast<std::size_t>(producer[id])].command.layout ==
                            TensorLayout::channels_last;
      }
    }
    if (channels_last && c.handler.takes_channels_last != nullptr) {
      const auto shapes = operand_shapes(p);
      channels_last = c.handler.takes_channels_last(prepare_call(
          c, shapes, graph.nodes[p.last].shape, TensorLayout::flat, TensorLayout::flat));
    }
    c.layout = channels_last ? TensorLayout::channels_last : TensorLayout::flat;
    producer[p.last] = static_cast<int>(k);
  }

  // Per node, its channels-last version when it has one (`present`), and the arena value that
  // holds it.
  struct ChannelsLastVersion {
    bool present = false;
    ValueSlot slot;
    std::uint32_t arena_value = kNoValue;
  };
  std::vector<ChannelsLastVersion> channels_last_of(graph.nodes.size());
  // Whether a node's flat version exists yet (in slots[]).
  std::vector<bool> flat_defined(graph.nodes.size(), false);
  for (const ir::Node& node : graph.nodes) {
    flat_defined[node.id] = node.kind == ir::OpKind::input || node.kind == ir::OpKind::const_;
  }
  const auto new_arena_value = [&](const ir::Shape& shape, std::uint32_t at) {
    const auto index = static_cast<std::uint32_t>(arena.size());
    arena.push_back({.bytes = element_count_of(shape) * sizeof(float),
                     .defined_at = at,
                     .last_use = at,
                     .in_place_of = std::nullopt});
    return index;
  };
  const auto arena_slot = [&](const ir::Shape& shape, std::uint32_t value) {
    return ValueSlot{.home = ValueHome::arena, .index = value, .weight = nullptr, .shape = &shape};
  };
  const auto prepared = [&](Command& c, const PrepareCall& call) -> Expected<void> {
    if (c.handler.prepare == nullptr) return {};
    auto state = c.handler.prepare(call);
    if (!state) {
      Error e = std::move(state.error());
      const backend::KernelCapsule& capsule = lowering.registry->capsule(c.capsule);
      e.message = group_label(c.group, capsule) + ": " + ir::describe(*c.node) +
                  (c.reorder ? ": the reorder could not prepare its launch: "
                             : ": the handler could not prepare its launch: ") +
                  e.message;
      return std::unexpected(std::move(e));
    }
    c.state = std::shared_ptr<const KernelState>(std::move(*state));
    return {};
  };
  // The command a reorder is emitted for: its group and capsule.
  struct Needing {
    std::uint32_t group = 0;
    backend::CapsuleId capsule = 0;
  };
  const auto needing_of = [](const Command& c) {
    return Needing{.group = c.group, .capsule = c.capsule};
  };
  // Per node, the command that computes it.
  std::vector<Needing> made_by(graph.nodes.size());
  // Emits the reorder of node `id`'s value from `from` to `to` for command `needing`, into
  // `into` when given (a graph output), else into a new arena value; returns the arena value
  // written (kNoValue for `into`).
  const auto emit_reorder = [&](ir::NodeId id, TensorLayout from, TensorLayout to, Needing needing,
                                std::optional<ValueSlot> into) -> Expected<std::uint32_t> {
    const ir::Node& node = graph.nodes[id];
    const backend::Provider provider = lowering.registry->capsule(needing.capsule).provider;
    const auto index = static_cast<std::uint32_t>(buffer.commands_.size());
    const bool to_flat = to == TensorLayout::flat;
    const ValueSlot source = to_flat ? channels_last_of[id].slot : slots[id];
    const std::uint32_t source_value =
        to_flat ? channels_last_of[id].arena_value : arena_value_of[id];
    if (source_value != kNoValue) arena[source_value].last_use = index;
    std::uint32_t written = kNoValue;
    if (!into) {
      written = new_arena_value(node.shape, index);
      into = arena_slot(node.shape, written);
    }
    Command r{.node = &node,
              .chain = {&node},
              .group = needing.group,
              .capsule = needing.capsule,
              .handler = *handlers.reorder(provider),
              .inputs = {source},
              .output = *into,
              .weights = {},
              .guards = {},
              .state = nullptr,
              .layout = to,
              .reorder = LayoutChange{.from = from, .to = to}};
    const std::vector<const ir::Shape*> shapes{&node.shape};
    if (auto ok = prepared(r, prepare_call(r, shapes, node.shape, from, to)); !ok) {
      return std::unexpected(std::move(ok.error()));
    }
    buffer.commands_.push_back(std::move(r));
    return written;
  };
  // The slot command `reader` reads node `id` from in `layout`, emitting the reorder that makes
  // it first (on the provider of the channels-last side: the reader's to channels-last, the
  // producer's to flat); `value` receives the arena value read (kNoValue for another home).
  const auto operand_slot = [&](ir::NodeId id, TensorLayout layout, Needing reader,
                                std::uint32_t& value) -> Expected<ValueSlot> {
    if (layout == TensorLayout::channels_last) {
      if (!channels_last_of[id].present) {
        auto written =
            emit_reorder(id, TensorLayout::flat, TensorLayout::channels_last, reader, {});
        if (!written) return std::unexpected(std::move(written.error()));
        channels_last_of[id] = {.present = true,
                                .slot = arena_slot(graph.nodes[id].shape, *written),
                                .arena_value = *written};
      }
      value = channels_last_of[id].arena_value;
      return channels_last_of[id].slot;
    }
    if (!flat_defined[id]) {
      auto written =
          emit_reorder(id, TensorLayout::channels_last, TensorLayout::flat, made_by[id], {});
      if (!written) return std::unexpected(std::move(written.error()));
      slots[id] = arena_slot(graph.nodes[id].shape, *written);
      arena_value_of[id] = *written;
      flat_defined[id] = true;
    }
    value = arena_value_of[id];
    return slots[id];
  };

  for (Pending& p : pending) {
    Command& command = p.command;
    made_by[p.last] = needing_of(command);
    const ir::Node& last = graph.nodes[p.last];
    std::vector<std::uint32_t> read_values;
    for (ir::NodeId id : p.operands) {
      std::uint32_t value = kNoValue;
      auto slot = operand_slot(id, command.layout, needing_of(command), value);
      if (!slot) return std::unexpected(std::move(slot.error()));
      command.inputs.push_back(*slot);
      read_values.push_back(value);
    }
    const auto command_index = static_cast<std::uint32_t>(buffer.commands_.size());
    const auto out = first_output.find(last.id);
    const bool channels_last = command.layout == TensorLayout::channels_last;
    std::uint32_t written = kNoValue;
    if (out != first_output.end() && !channels_last) {
      slots[last.id] = {.home = ValueHome::output, .index = out->second, .shape = &last.shape};
      flat_defined[last.id] = true;
      command.output = slots[last.id];
    } else {
      written = new_arena_value(last.shape, command_index);
      if (command.handler.in_place_safe && !read_values.empty() && read_values[0] != kNoValue &&
          arena[read_values[0]].bytes == arena[written].bytes) {
        arena[written].in_place_of = read_values[0];
      }
      command.output = arena_slot(last.shape, written);
      if (channels_last) {
        channels_last_of[last.id] = {
            .present = true, .slot = command.output, .arena_value = written};
      } else {
        slots[last.id] = command.output;
        arena_value_of[last.id] = written;
        flat_defined[last.id] = true;
      }
    }
    // Each arena input is read here: its last use is at least this command.
    for (std::uint32_t value : read_values) {
      if (value != kNoValue) arena[value].last_use = command_index;
    }
    const auto shapes = operand_shapes(p);
    if (auto ok = prepared(
            command, prepare_call(command, shapes, last.shape, command.layout, command.layout));
        !ok) {
      return std::unexpected(std::move(ok.error()));
    }
    buffer.commands_.push_back(std::move(command));
    // A graph output computed channels-last is reordered into its place at once.
    if (out != first_output.end() && channels_last) {
      const ValueSlot output{.home = ValueHome::output, .index = out->second, .shape = &last.shape};
      if (auto ok = emit_reorder(last.id, TensorLayout::channels_last, TensorLayout::flat,
                                 needing_of(buffer.commands_.back()), output);
          !ok) {
        return std::unexpected(std::move(ok.error()));
      }
      slots[last.id] = output;
      flat_defined[last.id] = true;
    }
  }

  // Inputs are bound by name, so two inputs may not share one.
  for (std::size_t i = 0; i < buffer.inputs_.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (buffer.inputs_[i].name == buffer.inputs_[j].name) {
        return std::unexpected(make_error(
            ErrorKind::invalid_input,
            "inputs node " + std::to_string(buffer.inputs_[j].node_id) + " and node " +
                std::to_string(buffer.inputs_[i].node_id) + " are both named '" +
                buffer.inputs_[i].name +
                "': a run could not tell them apart; give each input node its own name"));
      }
    }
  }

  // A graph output whose value exists only channels-last (one listed through a detach, say) is
  // reordered after the last command.
  for (const ir::NodeId listed : graph.output_ids) {
    const ir::NodeId id = source_of(listed);
    if (!defined[id] || flat_defined[id]) continue;
    // Only a command's output can lack its flat version: its producer needs the reorder.
    std::uint32_t value = kNoValue;
    if (auto slot = operand_slot(id, TensorLayout::flat, made_by[id], value); !slot) {
      return std::unexpected(std::move(slot.error()));
    }
  }

  // Outputs a command did not write in place are copied after the last command; an arena value
  // copied then lives to the end.
  const auto end = static_cast<std::uint32_t>(buffer.commands_.size());
  for (std::size_t k = 0; k < graph.output_ids.size(); ++k) {
    const ir::NodeId listed = graph.output_ids[k];
    buffer.outputs_.push_back({.name = output_name(options, k, graph.output_ids.size()),
                               .node_id = listed,
                               .shape = &graph.nodes[listed].shape});
    const ir::NodeId id = source_of(listed);
    if (!defined[id]) {
      return std::unexpected(
          make_error(ErrorKind::internal, "graph output " + ir::describe(graph.nodes[id]) +
                                              " is defined by no command of the lowering"));
    }
    const ValueSlot& source = slots[id];
    if (source.home == ValueHome::output && source.index == k) {
      buffer.output_sources_.emplace_back(std::nullopt);
      continue;
    }
    if (arena_value_of[id] != kNoValue && source.home == ValueHome::arena) {
      arena[arena_value_of[id]].last_use = end;
    }
    buffer.output_sources_.emplace_back(source);
  }

  // A command's in-place claim holds only if its first input dies there; the planner checks.
  buffer.memory_ = plan_memory(arena);
  const auto to_offset = [&](ValueSlot& s) {
    if (s.home == ValueHome::arena) s.index = buffer.memory_.offsets[s.index];
  };
  for (Command& c : buffer.commands_) {
    for (ValueSlot& s : c.inputs)
      to_offset(s);
    to_offset(c.output);
  }
  for (std::optional<ValueSlot>& s : buffer.output_sources_) {
    if (s) to_offset(*s);
  }
  return buffer;
}

}  // namespace nnplan::runtime
