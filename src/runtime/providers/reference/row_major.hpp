// Row-major index arithmetic shared by the reference kernels: strides of a dense shape, and
// the walk from a flat index to its coordinates. Plain loops, no vector tricks: the reference
// kernels are meant to be read.
#pragma once

#include <cstddef>
#include <vector>

#include "nnplan/ir/shape.hpp"

namespace nnplan::runtime::reference {

// The row-major strides of `shape`, in elements (the last axis has stride 1).
[[nodiscard]] inline std::vector<std::size_t> row_major_strides(const ir::Shape& shape) {
  std::vector<std::size_t> strides(shape.rank(), 1);
  for (std::size_t i = shape.rank(); i-- > 1;) {
    strides[i - 1] = strides[i] * static_cast<std::size_t>(shape.dims[i]);
  }
  return strides;
}

// The product of the axes [begin, end) of `shape` (1 when the range is empty).
[[nodiscard]] inline std::size_t extent_product(const ir::Shape& shape, std::size_t begin,
                                                std::size_t end) {
  std::size_t p = 1;
  for (std::size_t i = begin; i < end; ++i) p *= static_cast<std::size_t>(shape.dims[i]);
  return p;
}

}  // namespace nnplan::runtime::reference
