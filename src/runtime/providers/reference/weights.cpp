// The payload look-ups the reference kernels share: a payload's data and its gradient buffer,
// by slot name.
#include <string_view>

#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {

const float* weight_data(const NodeWeights& weights, std::string_view name) {
  const ir::WeightTensor* w = weights.find(name);
  return w == nullptr ? nullptr : w->floats().data();
}

float* weight_grad(const VjpCall& call, std::string_view name) {
  for (std::size_t i = 0; i < call.weights.tensors.size() && i < call.weight_grads.size(); ++i) {
    if (call.weights.tensors[i].name == name) return call.weight_grads[i].data<float>();
  }
  return nullptr;
}

}  // namespace nnplan::runtime::reference
