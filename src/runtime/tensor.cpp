#include "nnplan/runtime/tensor.hpp"

#include <cstring>
#include <stdexcept>

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

void copy_elements(const TensorRef& from, const MutableTensorRef& to) {
  if (to.dtype != from.dtype) throw_dtype_mismatch(to.dtype, from.dtype);
  const std::size_t bytes = from.size() * ir::size_of(from.dtype);
  if (to.bytes == from.bytes || bytes == 0) return;
  std::memcpy(to.bytes, from.bytes, bytes);
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
