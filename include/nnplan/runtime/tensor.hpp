// Tensors of the runtime (SPEC §11): dense, row-major values with their element type in the type.
// `Tensor` owns its values (the inputs a caller binds, the outputs a run returns); `TensorRef` and
// `MutableTensorRef` are the views handlers receive, pointing into the arena, a weight or a bound
// input. float32 is the only element type that executes today; the dtype travels with every
// tensor so that a second one is a new enumerator, not a new API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "nnplan/ir/dtype.hpp"
#include "nnplan/ir/shape.hpp"

namespace nnplan::runtime {

// The element types of ir/dtype.hpp.
using ir::DType;

// The number of elements of `shape` (1 for a scalar). The shape must have passed ir::check, so
// its product fits.
[[nodiscard]] std::size_t element_count_of(const ir::Shape& shape);

// An owned tensor: `values.size()` equals the product of `shape`.
struct Tensor {
  DType dtype = DType::float32;
  ir::Shape shape;
  std::vector<float> values;

  bool operator==(const Tensor&) const = default;
};

// A read-only view of a dense row-major float32 tensor.
struct TensorRef {
  const float* data = nullptr;
  const ir::Shape* shape = nullptr;

  [[nodiscard]] std::size_t size() const { return element_count_of(*shape); }
  [[nodiscard]] std::span<const float> values() const { return {data, size()}; }
  [[nodiscard]] std::size_t rank() const { return shape->rank(); }
  [[nodiscard]] ir::Dim dim(std::size_t axis) const { return shape->dims[axis]; }
};

// A writable view of a dense row-major float32 tensor.
struct MutableTensorRef {
  float* data = nullptr;
  const ir::Shape* shape = nullptr;

  [[nodiscard]] std::size_t size() const { return element_count_of(*shape); }
  [[nodiscard]] std::span<float> values() const { return {data, size()}; }
  [[nodiscard]] std::size_t rank() const { return shape->rank(); }
  [[nodiscard]] ir::Dim dim(std::size_t axis) const { return shape->dims[axis]; }
  [[nodiscard]] TensorRef as_const() const { return {data, shape}; }
};

[[nodiscard]] inline TensorRef view(const Tensor& t) { return {t.values.data(), &t.shape}; }
[[nodiscard]] inline MutableTensorRef mutable_view(Tensor& t) { return {t.values.data(), &t.shape}; }

// A zero-filled tensor of `shape`.
[[nodiscard]] Tensor zeros(const ir::Shape& shape);

}  // namespace nnplan::runtime
