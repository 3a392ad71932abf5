// Weights as core values (SPEC §6, §11): the parameters a graph's nodes take from outside the
// graph (weights, biases, constants, batch-norm statistics, gather indices), keyed by node id and
// slot name. A weight is a typed view over bytes that someone else owns (row-major, or strided
// where it is another tensor seen transposed): a mapped model, payload or external data file, or
// an owned buffer where an import had to make new bytes (a decoded text field). Each view keeps its
// owner alive, so a plan or a compiled command buffer outlives the loader that made its weights.
// The format layer fills a WeightStore; planning never reads it; the runtime's handlers read typed
// views of it. Which slots a node takes, and their shapes, come from the op table (op_table.hpp,
// payload_shapes.hpp); check_weights (here) holds a store against a graph.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/error.hpp"
#include "nnplan/ir/dtype.hpp"
#include "nnplan/ir/graph.hpp"

namespace nnplan::ir {

// Whoever owns the bytes weights view. An owner that maps a file may give pages back to the
// system when told a range is no longer read (release); the bytes stay valid and are read back
// from the file if touched again.
class WeightBytes {
 public:
  WeightBytes() = default;
  WeightBytes(const WeightBytes&) = delete;
  WeightBytes& operator=(const WeightBytes&) = delete;
  virtual ~WeightBytes() = default;

  // A hint that nothing reads `bytes` (a range inside this owner) for now. Does nothing by
  // default (an owned buffer keeps its bytes).
  virtual void release(std::span<const std::byte> bytes) const noexcept { (void)bytes; }
};

// A weight's address: the node it belongs to and its slot name there ("weight").
struct WeightKey {
  NodeId node_id = 0;
  std::string name;
  auto operator<=>(const WeightKey&) const = default;
  bool operator==(const WeightKey&) const = default;
};

// A tensor of `dtype` viewing bytes `owner` keeps alive. The factories lay the elements out in
// row-major order; `transposed` makes a strided view of the same bytes (a transpose with no copy).
// A view whose bytes are not aligned to the element width (protobuf places raw_data anywhere) or
// that is strided is not readable in place: the element accessors (bytes, values, floats, ints)
// give it nothing, and `contiguous` copies it into an aligned row-major buffer. A reader that
// packs the weight once (oneDNN) reads the view; one that reads it on every run is given such a
// copy when the command buffer is compiled (runtime/compile/binding.cpp). A default-constructed
// WeightTensor is an empty float32 scalar view with no data (size 0). The factories take the
// element count as given; check_weights and the tensor writers compare it with the shape.
class WeightTensor {
 public:
  WeightTensor() = default;

  // An owned tensor holding `values` (copied into a buffer this tensor shares).
  [[nodiscard]] static WeightTensor of_floats(Shape shape, std::span<const float> values);
  [[nodiscard]] static WeightTensor of_ints(Shape shape, std::span<const std::int64_t> values);
  [[nodiscard]] static WeightTensor of_bools(Shape shape, std::span<const std::uint8_t> values);
  // An owned tensor taking over `values` (no copy): float, std::int64_t, or std::uint8_t (bool).
  template <typename T>
  [[nodiscard]] static WeightTensor adopt(Shape shape, std::vector<T> values);
  // An owned tensor of `shape` and `dtype`, filled with zeros.
  [[nodiscard]] static WeightTensor zeros(Shape shape, DType dtype);
  // A view of `count` elements of `dtype` at `data` (which holds count × size_of(dtype) bytes:
  // the caller checked the size), inside bytes `owner` keeps alive, aligned or not (a misaligned
  // view is read through contiguous()). Without an owner the bytes are copied into an owned
  // buffer.
  [[nodiscard]] static WeightTensor view(Shape shape, DType dtype, const std::byte* data,
                                         std::size_t count,
                                         std::shared_ptr<const WeightBytes> owner);

  [[nodiscard]] const Shape& shape() const { return shape_; }
  [[nodiscard]] DType dtype() const { return dtype_; }
  // The number of elements.
  [[nodiscard]] std::size_t size() const { return count_; }
  // Whether the element accessors read the bytes as they are: row-major order with no gaps, and
  // aligned to the element width.
  [[nodiscard]] bool readable_in_place() const { return strides_.empty() && aligned(); }
  // Whether the data pointer is aligned to the element width.
  [[nodiscard]] bool aligned() const {
    return reinterpret_cast<std::uintptr_t>(data_) % size_of(dtype_) == 0;
  }
  // The distance, in elements, between neighbours along each axis: the row-major strides for a
  // dense tensor.
  [[nodiscard]] std::vector<std::size_t> strides() const;
  // The elements' bytes in row-major order; empty unless readable in place (contiguous() first).
  [[nodiscard]] std::span<const std::byte> bytes() const {
    if (!readable_in_place()) return {};
    return {data_, count_ * size_of(dtype_)};
  }
  // The bytes this tensor views, in whatever order its strides give: what release hands back.
  [[nodiscard]] std::span<const std::byte> storage() const;
  // The elements as `T` in row-major order; empty when the dtype is not T's or the tensor is not
  // readable in place.
  template <typename T>
  [[nodiscard]] std::span<const T> values() const {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, std::int64_t> ||
                  std::is_same_v<T, std::uint8_t>);
    if (dtype_ != kDTypeOf<T> || data_ == nullptr || !readable_in_place()) return {};
    return {reinterpret_cast<const T*>(data_), count_};
  }
  [[nodiscard]] std::span<const float> floats() const { return values<float>(); }
  [[nodiscard]] std::span<const std::int64_t> ints() const { return values<std::int64_t>(); }
  // A copy of the elements as `T` in row-major order, a strided view's included (empty when the
  // dtype is not T's).
  template <typename T>
  [[nodiscard]] std::vector<T> to_vector() const {
    if (!readable_in_place()) return contiguous().to_vector<T>();
    const auto v = values<T>();
    return {v.begin(), v.end()};
  }
  // The same bytes seen with the axes in reverse order (numpy's `.T`): a [K, N] tensor becomes an
  // [N, K] view whose element (n, k) is this one's (k, n). No copy; a rank 0 or 1 tensor is
  // returned as it is, and the transpose of a transpose is dense again.
  [[nodiscard]] WeightTensor transposed() const;
  // This tensor when it is readable in place; else its elements copied into an owned, aligned
  // row-major buffer.
  [[nodiscard]] WeightTensor contiguous() const;
  // contiguous(), for a reader that reads only the copy from then on (a packer): the bytes of a
  // row-major view are copied `block` bytes at a time, each block released to the owner once
  // copied, so a mapped weight and its copy are never both resident whole.
  [[nodiscard]] WeightTensor contiguous_releasing(std::size_t block = std::size_t{1} << 22) const;
  // Tells the owner nothing reads these bytes for now (WeightBytes::release of storage()).
  void release() const noexcept;
  // Whether this tensor's bytes lie inside `range` (a mapped file, say).
  [[nodiscard]] bool views_into(std::span<const std::byte> range) const;

  // Same shape, dtype and elements, whatever either's strides (float elements compared as
  // floats: a NaN is not equal to itself, and -0 equals +0).
  bool operator==(const WeightTensor& other) const;

 private:
  Shape shape_;
  DType dtype_ = DType::float32;
  const std::byte* data_ = nullptr;
  std::size_t count_ = 0;
  // Element strides per axis; empty for a dense row-major tensor.
  std::vector<std::size_t> strides_;
  std::shared_ptr<const WeightBytes> owner_;
};

// The owner of a vector a tensor took over (WeightTensor::adopt).
template <typename T>
class VectorBytes final : public WeightBytes {
 public:
  explicit VectorBytes(std::vector<T> values) : values_(std::move(values)) {}
  [[nodiscard]] const T* data() const { return values_.data(); }

 private:
  std::vector<T> values_;
};

template <typename T>
WeightTensor WeightTensor::adopt(Shape shape, std::vector<T> values) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, std::int64_t> ||
                std::is_same_v<T, std::uint8_t>);
  const std::size_t count = values.size();
  auto owner = std::make_shared<const VectorBytes<T>>(std::move(values));
  const auto* data = reinterpret_cast<const std::byte*>(owner->data());
  return view(std::move(shape), kDTypeOf<T>, data, count, std::move(owner));
}

// Why `bytes` are not bool elements, naming the first byte that is neither 0 nor 1
// ("bool element 2 is the byte 7; a bool element is the byte 0 or 1"), or nullopt when they are.
// Readers and writers of bool data check it before the bytes become a tensor or a file.
[[nodiscard]] std::optional<std::string> bool_bytes_problem(std::span<const std::byte> bytes);

// Every weight of a graph, and its scalar attributes ("epsilon"). Keys are unique by
// construction of the maps.
struct WeightStore {
  std::map<WeightKey, WeightTensor> tensors;
  std::map<WeightKey, double> attributes;

  bool operator==(const WeightStore&) const = default;

  // The tensor `name` of node `node`, or nullptr.
  [[nodiscard]] const WeightTensor* find_tensor(NodeId node, std::string_view name) const;
  // The attribute `name` of node `node`, or nullopt.
  [[nodiscard]] std::optional<double> find_attribute(NodeId node, std::string_view name) const;
};

// Checks `store` against `graph` (normally a checked one): every node that takes weights has each
// required one, of the slot's dtype and with the shape payload_shape gives; every weight and
// attribute names an existing node that takes it. Errors are invalid_input, prefixed with
// `source` when it is not empty, naming the node and slot:
//   w.payloads: node 3 (linear): payload weight: shape [10,20] does not match the expected [20,10]
[[nodiscard]] Expected<void> check_weights(const Graph& graph, const WeightStore& store,
                                           std::string_view source = {});

}  // namespace nnplan::ir
