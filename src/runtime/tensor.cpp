#include "nnplan/runtime/tensor.hpp"

namespace nnplan::runtime {

std::size_t element_count_of(const ir::Shape& shape) {
  std::size_t n = 1;
  for (ir::Dim d : shape.dims) n *= static_cast<std::size_t>(d);
  return n;
}

Tensor zeros(const ir::Shape& shape) {
  return {.dtype = DType::float32, .shape = shape, .values = std::vector<float>(element_count_of(shape), 0.0F)};
}

}  // namespace nnplan::runtime
