// compile's first pass: every planned node, or fused group, bound to the handler of its capsule
// and the guards its evidence names, with its chain, operands and weights (compile_passes.hpp).
#include <string>

#include "nnplan/ir/op_table.hpp"
#include "nnplan/ir/weights.hpp"
#include "runtime/compile/compile_passes.hpp"

namespace nnplan::runtime::compile_passes {
namespace {

std::string input_name(const ir::Node& node, std::size_t input_nodes) {
  if (!node.source_name.empty()) return node.source_name;
  return input_nodes == 1 ? "input" : "input" + std::to_string(node.id);
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

// `t` as a handler that reads weights on every run sees it: itself when readable in place, else
// a readable copy kept in `copies`, after which the view's bytes are released (a mapped file's
// pages go back).
const ir::WeightTensor* dense_for_reader(
    const ir::WeightTensor* t, std::vector<std::shared_ptr<const ir::WeightTensor>>& copies) {
  if (t == nullptr || t->readable_in_place()) return t;
  copies.push_back(std::make_shared<const ir::WeightTensor>(t->contiguous()));
  t->release();
  return copies.back().get();
}

// The graph's inputs and consts: their slots and the input list (names unique).
Expected<void> bind_values(const ir::Graph& graph, const ir::WeightStore* store,
                           BoundGraph& bound) {
  std::size_t input_nodes = 0;
  for (const ir::Node& n : graph.nodes)
    input_nodes += n.kind == ir::OpKind::input ? 1 : 0;
  for (const ir::Node& node : graph.nodes) {
    ValueSlot& slot = bound.slots[node.id];
    slot.shape = &node.shape;
    slot.dtype = node.dtype;
    if (node.kind == ir::OpKind::input) {
      slot.home = ValueHome::input;
      slot.index = bound.inputs.size();
      bound.inputs.push_back({.name = input_name(node, input_nodes),
                              .node_id = node.id,
                              .shape = &node.shape,
                              .dtype = node.dtype});
    } else if (node.kind == ir::OpKind::const_) {
      const ir::WeightTensor* value = dense_for_reader(
          store == nullptr ? nullptr : store->find_tensor(node.id, "value"), bound.dense_weights);
      if (value == nullptr) {
        return std::unexpected(make_error(
            ErrorKind::invalid_input,
            ir::describe(node) + ": payload value is missing: the graph's weights were not "
                                 "loaded (the payload file beside the graph, or the ONNX "
                                 "model's initializers)"));
      }
      slot.home = ValueHome::weight;
      slot.weight = value->bytes().data();
    }
  }
  // Inputs are bound by name, so two inputs may not share one.
  const std::vector<IoBinding>& inputs = bound.inputs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (inputs[i].name == inputs[j].name) {
        return std::unexpected(make_error(
            ErrorKind::invalid_input,
            "inputs node " + std::to_string(inputs[j].node_id) + " and node " +
                std::to_string(inputs[i].node_id) + " are both named '" + inputs[i].name +
                "': a run could not tell them apart; give each input node its own name"));
      }
    }
  }
  return {};
}

// One command: a planned node (`members` of one) or a fused group, its nodes root first, its
// operands the root's parents then each later node's other operands.
Expected<BoundCommand> bind_command(const backend::PlannedModel& model,
                                    const HandlerRegistry& handlers, std::uint32_t group,
                                    backend::CapsuleId capsule_id,
                                    std::span<const backend::PlannedNodeKernel> members,
                                    const std::vector<bool>& defined,
                                    std::vector<std::shared_ptr<const ir::WeightTensor>>& copies) {
  const ir::Graph& graph = model.graph();
  const ir::WeightStore* store = model.weights().get();
  const backend::KernelCapsule& capsule = model.lowering().registry->capsule(capsule_id);
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
  BoundCommand bound{.command = {.node = &root,
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
  Command& command = bound.command;
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
      bound.operands.push_back(source_of(graph, parent));
    }
  }
  for (ir::NodeId operand : bound.operands) {
    if (!defined[operand]) {
      return std::unexpected(make_error(
          ErrorKind::internal, ir::describe(root) + " reads node " + std::to_string(operand) +
                                   " before any command defines it: the lowering is not in "
                                   "execution order"));
    }
  }
  for (const ir::PayloadSlot& slot : ir::op_traits(root.kind).payloads) {
    if (slot.attribute || ir::given_as_value(slot, root.parents.size())) continue;
    const ir::WeightTensor* t = store == nullptr ? nullptr : store->find_tensor(root.id, slot.name);
    if (!handler->reads_weight_views) t = dense_for_reader(t, copies);
    if (t == nullptr && slot.required) {
      return std::unexpected(make_error(
          ErrorKind::invalid_input,
          ir::describe(root) + ": payload " + std::string(slot.name) +
              " is missing: the graph's weights were not loaded (the payload file beside "
              "the graph, or the ONNX model's initializers)"));
    }
    command.weights.push_back({.name = slot.name, .tensor = t});
  }
  return bound;
}

}  // namespace

std::string group_label(std::uint32_t group, const backend::KernelCapsule& c) {
  return "group " + std::to_string(group) + ": capsule '" + c.name + "' (" +
         std::string(backend::to_string(c.op)) + " on " +
         std::string(backend::to_string(c.provider)) + "/" +
         std::string(backend::to_string(c.device)) + ")";
}

ir::NodeId source_of(const ir::Graph& graph, ir::NodeId id) {
  while (graph.nodes[id].kind == ir::OpKind::detach)
    id = graph.nodes[id].parents[0];
  return id;
}

Expected<BoundGraph> bind(const backend::PlannedModel& model, const HandlerRegistry& handlers) {
  const ir::Graph& graph = model.graph();
  const backend::GraphLoweringPlan& lowering = model.lowering();
  BoundGraph bound;
  bound.slots.resize(graph.nodes.size());
  if (auto ok = bind_values(graph, model.weights().get(), bound); !ok) {
    return std::unexpected(std::move(ok.error()));
  }
  // Whether a node's value is defined by the commands bound so far: inputs and consts at once,
  // a command's value when it is bound (in lowering order).
  std::vector<bool> defined(graph.nodes.size(), false);
  for (const ir::Node& node : graph.nodes)
    defined[node.id] = node.kind == ir::OpKind::input || node.kind == ir::OpKind::const_;
  const auto add = [&](std::uint32_t group, backend::CapsuleId capsule,
                       std::span<const backend::PlannedNodeKernel> members) -> Expected<void> {
    auto command =
        bind_command(model, handlers, group, capsule, members, defined, bound.dense_weights);
    if (!command) return std::unexpected(std::move(command.error()));
    defined[command->last] = true;
    bound.commands.push_back(std::move(*command));
    return {};
  };
  for (std::uint32_t g = 0; g < lowering.groups.size(); ++g) {
    const backend::LoweredKernelGroup& group = lowering.groups[g];
    const auto members = lowering.group_nodes(group);
    if (group.grouping == backend::GroupingKind::fused) {
      if (auto ok = add(g, group.capsule, members); !ok) return std::unexpected(ok.error());
      continue;
    }
    for (std::size_t m = 0; m < members.size(); ++m) {
      if (auto ok = add(g, members[m].capsule, members.subspan(m, 1)); !ok) {
        return std::unexpected(ok.error());
      }
    }
  }
  return bound;
}

}  // namespace nnplan::runtime::compile_passes
