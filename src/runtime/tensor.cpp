#include "nnplan/runtime/tensor.hpp"

namespace nnplan::runtime {

std::size_t element_count_of(const ir::Shape& shape) {
  std::size_t n = 1;
  for (ir::Dim d : shape.dims) n *= static_cast<std::size_t>(d);
  return n;
}

void throw_dtype_mismatch(DType held, DType wanted) {
  throw std::logic_error("a tensor of dtype " + std::string(ir::to_string(held)) + " read as " +
                         std::string(ir::to_string(wanted)));
}

Tensor zeros(const ir::Shape& shape, DType dtype) {
  const std::size_t n = element_count_of(shape);
  switch (dtype) {
    case DType::int64:
      return Tensor::of(shape, std::vector<std::int64_t>(n, 0));
    case DType::boolean:
      return Tensor::of(shape, std::vector<std::uint8_t>(n, 0));
    case DType::float32:
      break;
  }
  return Tensor::of(shape, std::vector<float>(n, 0.0F));
}

}  // namespace nnplan::runtime
