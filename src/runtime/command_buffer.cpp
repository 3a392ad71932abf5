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

  std::vector<std::uint32_t> group_of(lowering.nodes.size(), 0);
  for (std::uint32_t g = 0; g < lowering.groups.size(); ++g) {
    for (std::uint32_t k = 0; k < lowering.groups[g].count; ++k) {
      group_of[lowering.groups[g].first + k] = g;
    }
  }
  std::map<ir::NodeId, std::size_t> first_output;
  for (std::size_t k = 0; k < graph.output_ids.size(); ++k) {
    first_output.emplace(graph.output_ids[k], k);
  }
  std::size_t input_nodes = 0;
  for (const ir::Node& n : graph.nodes) input_nodes += n.kind == ir::OpKind::input ? 1 : 0;

  // Per node: its value's slot; for arena values, `index` is the arena value's number until the
  // memory plan gives offsets.
  std::vector<ValueSlot> slots(graph.nodes.size());
  std::vector<ArenaValue> arena;
  std::vector<std::uint32_t> arena_value_of(graph.nodes.size(), kNoValue);
  std::size_t planned = 0;
  for (const ir::Node& node : graph.nodes) {
    ValueSlot& slot = slots[node.id];
    slot.shape = &node.shape;
    switch (node.kind) {
      case ir::OpKind::input:
        slot.home = ValueHome::input;
        slot.index = buffer.inputs_.size();
        buffer.inputs_.push_back({.name = input_name(node, input_nodes),
                                  .node_id = node.id,
                                  .shape = &node.shape});
        continue;
      case ir::OpKind::const_: {
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
        continue;
      }
      case ir::OpKind::detach:
        slot = slots[node.parents[0]];
        arena_value_of[node.id] = arena_value_of[node.parents[0]];
        continue;
      default:
        break;
    }
    if (planned >= lowering.nodes.size() || lowering.nodes[planned].node_id != node.id) {
      return std::unexpected(make_error(ErrorKind::internal,
                                        ir::describe(node) + " has no planned kernel"));
    }
    const std::uint32_t group = group_of[planned];
    const backend::CapsuleId capsule_id = lowering.nodes[planned].capsule;
    ++planned;
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

    Command command{.node = &node,
                    .group = group,
                    .capsule = capsule_id,
                    .handler = *handler,
                    .inputs = {},
                    .output = {},
                    .weights = {},
                    .guards = std::move(*guards)};
    for (ir::NodeId p : node.parents) command.inputs.push_back(slots[p]);
    for (const format::PayloadSlot& s : format::payload_slots(node.kind)) {
      if (s.attribute) continue;
      const format::PayloadTensor* t = store == nullptr ? nullptr : store->find_tensor(node.id, s.name);
      if (t == nullptr && s.required) {
        return std::unexpected(make_error(
            ErrorKind::invalid_input,
            ir::describe(node) + ": payload " + std::string(s.name) +
                " is missing: the graph's weights were not loaded (the payload file beside "
                "the graph, or the ONNX model's initializers)"));
      }
      command.weights.push_back({.name = s.name, .tensor = t});
    }

    const auto out = first_output.find(node.id);
    if (out != first_output.end()) {
      slot.home = ValueHome::output;
      slot.index = out->second;
    } else {
      slot.home = ValueHome::arena;
      slot.index = arena.size();
      arena_value_of[node.id] = static_cast<std::uint32_t>(arena.size());
      const auto command_index = static_cast<std::uint32_t>(buffer.commands_.size());
      ArenaValue value{.bytes = element_count_of(node.shape) * sizeof(float),
                       .defined_at = command_index,
                       .last_use = command_index,
                       .in_place_of = std::nullopt};
      if (handler->in_place_safe && !node.parents.empty()) {
        const std::uint32_t first = arena_value_of[node.parents[0]];
        if (first != kNoValue && arena[first].bytes == value.bytes) value.in_place_of = first;
      }
      arena.push_back(value);
    }
    command.output = slot;
    // Each arena input is read here: its last use is at least this command.
    for (ir::NodeId p : node.parents) {
      if (arena_value_of[p] != kNoValue) {
        arena[arena_value_of[p]].last_use = static_cast<std::uint32_t>(buffer.commands_.size());
      }
    }
    buffer.commands_.push_back(std::move(command));
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
    const ir::NodeId id = graph.output_ids[k];
    buffer.outputs_.push_back({.name = output_name(options, k, graph.output_ids.size()),
                               .node_id = id,
                               .shape = &graph.nodes[id].shape});
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
