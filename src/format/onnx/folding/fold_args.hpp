// What a constant-folding evaluator (evaluators.hpp) works with: FoldArgs, the node being folded
// and its inputs' constants, with the checks every evaluator shares (the element cap, the rank
// limit, broadcasting), and the strided walk that the data-movement evaluators (Slice, Transpose,
// Expand) and the broadcasting elementwise ones are written with.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../tensor_decoding.hpp"

namespace nnplan::format::onnx_import {

class ImportContext;

namespace folding {

using ir::Dim;
using DimList = std::vector<Dim>;

inline constexpr int kF32 = onnx::TensorProto_DataType_FLOAT;
inline constexpr int kI64 = onnx::TensorProto_DataType_INT64;
inline constexpr int kI32 = onnx::TensorProto_DataType_INT32;
inline constexpr int kBool = onnx::TensorProto_DataType_BOOL;

// Whether folding reads tensors of data type `t`: float32, int64, int32 and bool.
[[nodiscard]] bool foldable_dtype(int t);
[[nodiscard]] inline bool is_float(const ConstTensor& c) {
  return c.dtype == kF32;
}
[[nodiscard]] inline bool is_int(const ConstTensor& c) {
  return c.dtype == kI64 || c.dtype == kI32;
}

// Thrown by FoldArgs::count when a result over the cap is better imported as IR nodes.
struct FoldDeclined {};

class FoldArgs {
 public:
  // `inputs[i]`: input i's constant, null when absent (or, for Shape and Size, not a constant).
  // `imports`: the node imports as IR nodes too, so a float32 result over the cap is declined
  // rather than refused.
  FoldArgs(ImportContext& cx, std::vector<ConstPtr> inputs, bool imports)
      : cx(cx), inputs_(std::move(inputs)), imports_(imports) {}

  ImportContext& cx;

  bool has(int i) const {
    return i < static_cast<int>(inputs_.size()) && inputs_[static_cast<std::size_t>(i)] != nullptr;
  }
  // Input i's constant; fails when the input is absent.
  ConstTensor& in(int i) const;
  // Input i's name, quoted for messages.
  std::string quoted(int i) const;
  // The dimensions of input i: a constant's, or (Shape, Size) the IR node's static shape.
  DimList input_dims(int i) const;
  // The values of int64 (or int32) input i, which operand `role` is.
  std::vector<std::int64_t> ints(int i, std::string_view role) const;
  // Fails unless the present inputs in `indices` share one data type; returns it.
  int same_dtype(std::initializer_list<int> indices) const;

  // The element count of a result of `dims` and data type `dtype`: fails past the rank limit,
  // the dimension limit or kMaxFoldedElements (or, for a float32 result of a node that imports
  // as IR nodes too, throws FoldDeclined past the cap).
  std::size_t count(const DimList& dims, int dtype) const;
  // A tensor of `dtype` and `dims` whose elements are zero.
  ConstTensor make(int dtype, DimList dims) const;
  // The numpy broadcast of `shapes`; fails naming the two that do not broadcast.
  DimList broadcast(std::initializer_list<const DimList*> shapes) const;

 private:
  std::vector<ConstPtr> inputs_;
  bool imports_ = false;
};

// Row-major strides of `dims`, in elements.
[[nodiscard]] std::vector<std::int64_t> strides_of(const DimList& dims);
// The strides that read a tensor of `in` dims at each index of its numpy broadcast to `out`: the
// leading axes it lacks and its size-1 axes that stretch read with stride 0.
[[nodiscard]] std::vector<std::int64_t> broadcast_strides(const DimList& in, const DimList& out);

// Walks the indices of a tensor of `dims` in row-major order, keeping for each source k its flat
// offset: offsets[k] plus the index dotted with strides[k].
class StridedWalk {
 public:
  StridedWalk(DimList dims, std::vector<std::vector<std::int64_t>> strides,
              std::vector<std::int64_t> offsets);
  std::size_t at(std::size_t k) const { return static_cast<std::size_t>(offsets_[k]); }
  void next();

 private:
  DimList dims_;
  std::vector<std::vector<std::int64_t>> strides_;
  std::vector<std::int64_t> offsets_;
  DimList index_;
};

// A tensor of `dims` with `src`'s data type whose element i is `src`'s element at the walk's
// offset: Slice, Transpose and Expand.
[[nodiscard]] ConstTensor take_strided(const FoldArgs& a, ConstTensor& src, DimList dims,
                                       std::vector<std::int64_t> strides, std::int64_t offset);

// `src` with `dims` instead of its own (equal element counts): Reshape, Squeeze, Unsqueeze.
[[nodiscard]] ConstTensor with_dims(const FoldArgs& a, ConstTensor& src, DimList dims);

// Copies `n` elements of `src` from `from` into `dst` at `to` (the same data type).
void copy_elements(ConstTensor& dst, std::size_t to, ConstTensor& src, std::size_t from,
                   std::size_t n);

}  // namespace folding
}  // namespace nnplan::format::onnx_import
