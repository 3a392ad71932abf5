// The payload look-ups the reference kernels share: a payload's data and its gradient buffer,
// by slot name.
#include <optional>
#include <string_view>

#include "nnplan/ir/op_table.hpp"

#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {

const float* weight_data(const NodeWeights& weights, std::string_view name) {
  const ir::WeightTensor* w = weights.find(name);
  return w == nullptr ? nullptr : w->floats().data();
}

namespace {

// The index of the parent standing for slot `name` of `node`, if the node takes it as a value.
std::optional<std::size_t> value_parent_of(const ir::Node& node, std::string_view name) {
  for (const ir::PayloadSlot& slot : ir::op_traits(node.kind).payloads) {
    if (slot.name == name && ir::given_as_value(slot, node.parents.size())) {
      return slot.value_parent;
    }
  }
  return std::nullopt;
}

}  // namespace

float* weight_grad(const VjpCall& call, std::string_view name) {
  if (const auto parent = value_parent_of(call.node, name)) {
    return *parent < call.input_grads.size() ? call.input_grads[*parent].data<float>() : nullptr;
  }
  for (std::size_t i = 0; i < call.weights.tensors.size() && i < call.weight_grads.size(); ++i) {
    if (call.weights.tensors[i].name == name) return call.weight_grads[i].data<float>();
  }
  return nullptr;
}

const TensorRef* weight_value(const KernelCall& call, std::string_view name) {
  const auto parent = value_parent_of(call.node, name);
  return parent && *parent < call.inputs.size() ? &call.inputs[*parent] : nullptr;
}

const TensorRef* weight_value(const VjpCall& call, std::string_view name) {
  const auto parent = value_parent_of(call.node, name);
  return parent && *parent < call.inputs.size() ? &call.inputs[*parent] : nullptr;
}

const float* slot_data(const KernelCall& call, std::string_view name) {
  if (const TensorRef* v = weight_value(call, name)) return v->data<float>();
  return weight_data(call.weights, name);
}

const float* slot_data(const VjpCall& call, std::string_view name) {
  if (const TensorRef* v = weight_value(call, name)) return v->data<float>();
  return weight_data(call.weights, name);
}

}  // namespace nnplan::runtime::reference
