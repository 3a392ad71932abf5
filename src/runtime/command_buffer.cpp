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
    return std::unexpected(make_error(
        ErrorKind::rejected_by_policy,
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
  for (const ir::Node& n : graph.nodes) input_nodes += n.kind == ir::OpKind::input ? 1 : 0;

  // A detach node's value is its parent's: uses look through it.
  const auto source_of = [&](ir::NodeId id) {
    while (graph.nodes[id].kind == ir::OpKind::detach) id = graph.nodes[id].parents[0];
    return id;
  };

  // Per node: its value's slot; for arena values, `index` is the arena value's number until the
  // memory plan gives offsets. Inputs and consts first; kernels' values in lowering order.
  std::vector<ValueSlot> slots(graph.nodes.size());
  std::vector<ArenaValue> arena;
  std::vector<std::uint32_t> arena_value_of(graph.nodes.size(), kNoValue);
  // Whether a node's value has its slot yet: inputs and consts at once, kernels' values when
  // their command is emitted.
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
  // root's parents then each later node's other operand.
  const auto emit = [&](std::uint32_t group, backend::CapsuleId capsule_id,
                        std::span<const backend::PlannedNodeKernel> members) -> Expected<void> {
    const backend::KernelCapsule& capsule = lowering.registry->capsule(capsule_id);
    const HandlerDefinition* handler = handlers.find(capsule);
    if (handler == nullptr) {
      return std::unexpected(make_error(
          ErrorKind::unbound_capsule,
          group_label(group, capsule) + " has no handler in this build; nnplan never runs "
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
    const ir::Node& last = graph.nodes[members.back().node_id];
    Command command{.node = &root,
                    .chain = {},
                    .group = group,
                    .capsule = capsule_id,
                    .handler = *handler,
                    .inputs = {},
                    .output = {},
                    .weights = {},
                    .guards = std::move(*guards),
                    .state = nullptr};
    std::vector<ir::NodeId> operands;
    for (std::size_t m = 0; m < members.size(); ++m) {
      const ir::Node& n = graph.nodes[members[m].node_id];
      if (n.kind == ir::OpKind::input || n.kind == ir::OpKind::const_ ||
          n.kind == ir::OpKind::detach) {
        return std::unexpected(
            make_error(ErrorKind::internal, ir::describe(n) + " has a planned kernel"));
      }
      command.chain.push_back(&n);
      for (ir::NodeId p : n.parents) {
        if (m > 0 && p == members[m - 1].node_id) continue;
        operands.push_back(source_of(p));
      }
    }
    for (ir::NodeId p : operands) {
      if (!defined[p]) {
        return std::unexpected(make_error(
            ErrorKind::internal, ir::describe(root) + " reads node " + std::to_string(p) +
                                     " before any command defines it: the lowering is not in "
                                     "execution order"));
      }
      command.inputs.push_back(slots[p]);
    }
    for (const format::PayloadSlot& s : format::payload_slots(root.kind)) {
      if (s.attribute) continue;
      const format::PayloadTensor* t =
          store == nullptr ? nullptr : store->find_tensor(root.id, s.name);
      if (t == nullptr && s.required) {
        return std::unexpected(make_error(
            ErrorKind::invalid_input,
            ir::describe(root) + ": payload " + std::string(s.name) +
                " is missing: the graph's weights were not loaded (the payload file beside "
                "the graph, or the ONNX model's initializers)"));
      }
      command.weights.push_back({.name = s.name, .tensor = t});
    }

    ValueSlot& slot = slots[last.id];
    defined[last.id] = true;
    const auto command_index = static_cast<std::uint32_t>(buffer.commands_.size());
    const auto out = first_output.find(last.id);
    if (out != first_output.end()) {
      slot.home = ValueHome::output;
      slot.index = out->second;
    } else {
      slot.home = ValueHome::arena;
      slot.index = arena.size();
      arena_value_of[last.id] = static_cast<std::uint32_t>(arena.size());
      ArenaValue value{.bytes = element_count_of(last.shape) * sizeof(float),
                       .defined_at = command_index,
                       .last_use = command_index,
                       .in_place_of = std::nullopt};
      if (handler->in_place_safe && !operands.empty()) {
        const std::uint32_t first = arena_value_of[operands[0]];
        if (first != kNoValue && arena[first].bytes == value.bytes) value.in_place_of = first;
      }
      arena.push_back(value);
    }
    command.output = slot;
    // Each arena input is read here: its last use is at least this command.
    for (ir::NodeId p : operands) {
      if (arena_value_of[p] != kNoValue) arena[arena_value_of[p]].last_use = command_index;
    }

    if (handler->prepare != nullptr) {
      std::vector<const ir::Shape*> shapes;
      for (const ValueSlot& in : command.inputs) shapes.push_back(in.shape);
      const PrepareCall call{
          .node = root,
          .chain = command.chain,
          .input_shapes = shapes,
          .weights = {.tensors = command.weights, .store = store, .node_id = root.id},
          .output_shape = last.shape,
          .settings = options.settings};
      auto state = handler->prepare(call);
      if (!state) {
        Error e = std::move(state.error());
        e.message = group_label(group, capsule) + ": " + ir::describe(root) +
                    ": the handler could not prepare its launch: " + e.message;
        return std::unexpected(std::move(e));
      }
      command.state = std::shared_ptr<const KernelState>(std::move(*state));
    }
    buffer.commands_.push_back(std::move(command));
    return {};
  };

  for (std::uint32_t g = 0; g < lowering.groups.size(); ++g) {
    const backend::LoweredKernelGroup& group = lowering.groups[g];
    const auto members = lowering.group_nodes(group);
    if (group.grouping == backend::GroupingKind::fused) {
      if (auto ok = emit(g, group.capsule, members); !ok) return std::unexpected(ok.error());
      continue;
    }
    for (std::size_t m = 0; m < members.size(); ++m) {
      if (auto ok = emit(g, members[m].capsule, members.subspan(m, 1)); !ok) {
        return std::unexpected(ok.error());
      }
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
      return std::unexpected(make_error(ErrorKind::internal,
                                        "graph output " + ir::describe(graph.nodes[id]) +
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
    for (ValueSlot& s : c.inputs) to_offset(s);
    to_offset(c.output);
  }
  for (std::optional<ValueSlot>& s : buffer.output_sources_) {
    if (s) to_offset(*s);
  }
  return buffer;
}

}  // namespace nnplan::runtime
