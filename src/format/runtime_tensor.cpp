#include "nnplan/format/runtime_tensor.hpp"

#include <utility>
#include <variant>

namespace nnplan::format {

runtime::Tensor to_runtime_tensor(const ir::WeightTensor& tensor) {
  switch (tensor.dtype()) {
    case ir::DType::int64:
      return runtime::Tensor::of(tensor.shape(), tensor.to_vector<std::int64_t>());
    case ir::DType::boolean:
      return runtime::Tensor::of(tensor.shape(), tensor.to_vector<std::uint8_t>());
    case ir::DType::float32:
      break;
  }
  return runtime::Tensor::of(tensor.shape(), tensor.to_vector<float>());
}

ir::WeightTensor to_weight_tensor(runtime::Tensor tensor) {
  return std::visit(
      [&](auto& values) { return ir::WeightTensor::adopt(tensor.shape, std::move(values)); },
      tensor.elements);
}

}  // namespace nnplan::format
