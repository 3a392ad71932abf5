// Tensors of the runtime (SPEC §11): dense, row-major elements of one element type (ir::DType:
// float32, int64, or bool held as one byte, 0 or 1). `Tensor` owns its elements (the inputs a
// caller binds, the outputs a run returns) as a vector of their own type, so its dtype is the
// vector it holds, never a second field that could disagree. `TensorRef` and `MutableTensorRef`
// are the views handlers receive, pointing into the arena, a weight or a bound input: bytes, a
// shape and a dtype, read through `data<T>()`, which refuses a T that is not the view's dtype.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "nnplan/ir/dtype.hpp"
#include "nnplan/ir/shape.hpp"

namespace nnplan::runtime {

// The element types of ir/dtype.hpp.
using ir::DType;

// The C++ types of the elements of a dtype: float, std::int64_t, std::uint8_t (bool).
template <class T>
concept TensorElement =
    std::is_same_v<T, float> || std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint8_t>;

// The number of elements of `shape` (1 for a scalar). The shape must have passed ir::check, so
// its product fits.
[[nodiscard]] std::size_t element_count_of(const ir::Shape& shape);

// A typed access through a view or tensor of another dtype: a bug in the caller (handlers see
// only the dtypes their capsule takes, and inputs are checked when they are bound).
[[noreturn]] void throw_dtype_mismatch(DType held, DType wanted);

// The elements of an owned tensor, one alternative per DType, in DType's order.
using TensorElements =
    std::variant<std::vector<float>, std::vector<std::int64_t>, std::vector<std::uint8_t>>;

static_assert(
    std::is_same_v<
        std::variant_alternative_t<static_cast<std::size_t>(DType::float32), TensorElements>,
        std::vector<float>> &&
        std::is_same_v<
            std::variant_alternative_t<static_cast<std::size_t>(DType::int64), TensorElements>,
            std::vector<std::int64_t>> &&
        std::is_same_v<
            std::variant_alternative_t<static_cast<std::size_t>(DType::boolean), TensorElements>,
            std::vector<std::uint8_t>>,
    "TensorElements lists one vector per DType, in DType's order");

// An owned tensor: `size()` equals the product of `shape`.
struct Tensor {
  ir::Shape shape;
  TensorElements elements;

  // A tensor of `shape` holding `values`.
  template <TensorElement T>
  [[nodiscard]] static Tensor of(ir::Shape shape, std::vector<T> values) {
    return {.shape = std::move(shape), .elements = std::move(values)};
  }

  [[nodiscard]] DType dtype() const { return static_cast<DType>(elements.index()); }
  [[nodiscard]] std::size_t size() const {
    return std::visit([](const auto& v) { return v.size(); }, elements);
  }
  [[nodiscard]] std::size_t byte_size() const { return size() * ir::size_of(dtype()); }

  // The elements as a vector of their type; throws std::logic_error for another T.
  template <TensorElement T>
  [[nodiscard]] std::vector<T>& as() {
    if (auto* v = std::get_if<std::vector<T>>(&elements)) return *v;
    throw_dtype_mismatch(dtype(), ir::kDTypeOf<T>);
  }
  template <TensorElement T>
  [[nodiscard]] const std::vector<T>& as() const {
    if (const auto* v = std::get_if<std::vector<T>>(&elements)) return *v;
    throw_dtype_mismatch(dtype(), ir::kDTypeOf<T>);
  }
  [[nodiscard]] std::vector<float>& floats() { return as<float>(); }
  [[nodiscard]] const std::vector<float>& floats() const { return as<float>(); }
  [[nodiscard]] std::vector<std::int64_t>& ints() { return as<std::int64_t>(); }
  [[nodiscard]] const std::vector<std::int64_t>& ints() const { return as<std::int64_t>(); }
  [[nodiscard]] std::vector<std::uint8_t>& bools() { return as<std::uint8_t>(); }
  [[nodiscard]] const std::vector<std::uint8_t>& bools() const { return as<std::uint8_t>(); }

  // The elements' bytes, whatever their type.
  [[nodiscard]] std::byte* bytes() {
    return std::visit([](auto& v) { return reinterpret_cast<std::byte*>(v.data()); }, elements);
  }
  [[nodiscard]] const std::byte* bytes() const {
    return std::visit([](const auto& v) { return reinterpret_cast<const std::byte*>(v.data()); },
                      elements);
  }

  bool operator==(const Tensor&) const = default;
};

// A read-only view of a dense row-major tensor.
struct TensorRef {
  const std::byte* bytes = nullptr;
  const ir::Shape* shape = nullptr;
  DType dtype = DType::float32;

  [[nodiscard]] std::size_t size() const { return element_count_of(*shape); }
  [[nodiscard]] std::size_t rank() const { return shape->rank(); }
  [[nodiscard]] ir::Dim dim(std::size_t axis) const { return shape->dims[axis]; }
  // The elements as T; throws std::logic_error when T is not the view's dtype.
  template <TensorElement T>
  [[nodiscard]] const T* data() const {
    if (dtype != ir::kDTypeOf<T>) throw_dtype_mismatch(dtype, ir::kDTypeOf<T>);
    return reinterpret_cast<const T*>(bytes);
  }
  template <TensorElement T>
  [[nodiscard]] std::span<const T> elements() const {
    return {data<T>(), size()};
  }
  [[nodiscard]] std::span<const float> values() const { return elements<float>(); }
};

// A writable view of a dense row-major tensor.
struct MutableTensorRef {
  std::byte* bytes = nullptr;
  const ir::Shape* shape = nullptr;
  DType dtype = DType::float32;

  [[nodiscard]] std::size_t size() const { return element_count_of(*shape); }
  [[nodiscard]] std::size_t rank() const { return shape->rank(); }
  [[nodiscard]] ir::Dim dim(std::size_t axis) const { return shape->dims[axis]; }
  template <TensorElement T>
  [[nodiscard]] T* data() const {
    if (dtype != ir::kDTypeOf<T>) throw_dtype_mismatch(dtype, ir::kDTypeOf<T>);
    return reinterpret_cast<T*>(bytes);
  }
  template <TensorElement T>
  [[nodiscard]] std::span<T> elements() const {
    return {data<T>(), size()};
  }
  [[nodiscard]] std::span<float> values() const { return elements<float>(); }
  // Read-only, as the inputs of a handler are.
  operator TensorRef() const {
    return {bytes, shape, dtype};
  }  // NOLINT(google-explicit-constructor)
};

// A float32 view of `data` with `shape` (a handler's own buffers, a oneDNN memory's handle).
[[nodiscard]] inline TensorRef float_view(const float* data, const ir::Shape* shape) {
  return {reinterpret_cast<const std::byte*>(data), shape, DType::float32};
}
[[nodiscard]] inline MutableTensorRef float_view(float* data, const ir::Shape* shape) {
  return {reinterpret_cast<std::byte*>(data), shape, DType::float32};
}

[[nodiscard]] inline TensorRef view(const Tensor& t) {
  return {t.bytes(), &t.shape, t.dtype()};
}
[[nodiscard]] inline MutableTensorRef mutable_view(Tensor& t) {
  return {t.bytes(), &t.shape, t.dtype()};
}

// The elements of `from` copied into `to` unchanged, in row-major order, any dtype (a reshape's
// whole work, on every provider): nothing to do when `to` is `from`'s buffer; throws
// std::logic_error when the two dtypes differ.
void copy_elements(const TensorRef& from, const MutableTensorRef& to);

// A zero-filled (false, for bool) tensor of `shape` and `dtype`.
[[nodiscard]] Tensor zeros(const ir::Shape& shape, DType dtype = DType::float32);

}  // namespace nnplan::runtime
