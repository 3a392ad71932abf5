// Reference kernels: the data movement family (reshape, permute, broadcast, concat, slice,
// gather). These kernels only copy values: no arithmetic happens in a forward pass, so the
// outputs are exactly input values. Each VJP adds the output gradient back into the input
// gradient positions the forward read from; where several output elements read one input
// element (broadcast, repeated gather indices) their gradients are summed in float32, one
// accumulator per input element, in increasing output index order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "runtime/providers/reference/index_range.hpp"
#include "runtime/providers/reference/reference_handlers.hpp"
#include "runtime/providers/reference/row_major.hpp"

namespace nnplan::runtime::reference {
namespace {

constexpr std::string_view kTests = "tests/runtime/reference/data_movement_test.cpp";

std::unexpected<Error> invalid(std::string message) {
  return std::unexpected(make_error(ErrorKind::invalid_input, std::move(message)));
}

// The error when `call` is not a node of one of `kinds` carrying the `Params` alternative.
template <typename Params>
Expected<void> check_kind(const KernelCall& call, std::string_view handler,
                          std::span<const ir::OpKind> kinds) {
  const bool known = std::find(kinds.begin(), kinds.end(), call.node.kind) != kinds.end();
  if (!known) {
    std::string list;
    for (const ir::OpKind k : kinds) {
      if (!list.empty()) list += ", ";
      list += ir::to_string(k);
    }
    return invalid("node kind " + std::string(ir::to_string(call.node.kind)) +
                   " is not run by the " + std::string(handler) + " handler (it runs " + list +
                   ")");
  }
  if (!std::holds_alternative<Params>(call.node.params)) {
    return invalid("the " + std::string(ir::to_string(call.node.kind)) +
                   " node carries parameters of another kind");
  }
  return {};
}

// The same for a handler of two kinds, `first` carrying FirstParams and `second` SecondParams.
template <typename FirstParams, typename SecondParams>
Expected<void> check_kinds(const KernelCall& call, std::string_view handler, ir::OpKind first,
                           ir::OpKind second) {
  const ir::OpKind kinds[] = {first, second};
  return call.node.kind == second ? check_kind<SecondParams>(call, handler, kinds)
                                  : check_kind<FirstParams>(call, handler, kinds);
}

// Walks the coordinates of a shape in row-major order and keeps the offset
// sum(coordinate[i] * strides[i]) of a second tensor that the walk reads or writes.
class StridedWalk {
 public:
  StridedWalk(const ir::Shape& shape, std::vector<std::size_t> strides)
      : shape_(shape), strides_(std::move(strides)), coords_(shape.rank(), 0) {}

  [[nodiscard]] std::size_t offset() const { return offset_; }

  // Moves to the next coordinate (the last axis fastest).
  void next() {
    for (std::size_t i = shape_.rank(); i-- > 0;) {
      ++coords_[i];
      offset_ += strides_[i];
      if (coords_[i] < shape_.dims[i]) return;
      offset_ -= strides_[i] * static_cast<std::size_t>(shape_.dims[i]);
      coords_[i] = 0;
    }
  }

 private:
  const ir::Shape& shape_;
  std::vector<std::size_t> strides_;
  std::vector<ir::Dim> coords_;
  std::size_t offset_ = 0;
};

// Output axis i is input axis perm[i]: the params' perm, or the identity with transpose's two
// axes swapped. Assumes the node's kind and params were checked.
std::vector<std::uint32_t> permutation_of(const ir::Node& node, std::size_t rank) {
  if (node.kind == ir::OpKind::permute) return std::get<ir::PermuteParams>(node.params).perm;
  const auto& p = std::get<ir::TransposeParams>(node.params);
  std::vector<std::uint32_t> perm(rank);
  for (std::size_t i = 0; i < rank; ++i)
    perm[i] = static_cast<std::uint32_t>(i);
  std::swap(perm[p.axis1], perm[p.axis2]);
  return perm;
}

// For each output axis, the input stride it walks along.
std::vector<std::size_t> permuted_strides(const ir::Node& node, const ir::Shape& in) {
  const std::vector<std::uint32_t> perm = permutation_of(node, in.rank());
  const std::vector<std::size_t> in_strides = row_major_strides(in);
  std::vector<std::size_t> strides(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    strides[i] = in_strides[perm[i]];
  return strides;
}

// For each output axis, the input stride it walks along: 0 for an added leading axis and for a
// stretched size-1 axis.
std::vector<std::size_t> broadcast_strides(const ir::Shape& in, const ir::Shape& out) {
  const std::vector<std::size_t> in_strides = row_major_strides(in);
  const std::size_t lead = out.rank() - in.rank();
  std::vector<std::size_t> strides(out.rank(), 0);
  for (std::size_t i = 0; i < in.rank(); ++i) {
    strides[lead + i] = in.dims[i] == 1 ? 0 : in_strides[i];
  }
  return strides;
}

// y[o] = x[offset(o)] for o in row-major order of y's shape, offset(o) walking `strides`.
void strided_copy(const TensorRef& x, const MutableTensorRef& y, std::vector<std::size_t> strides) {
  StridedWalk walk(*y.shape, std::move(strides));
  const std::size_t n = y.size();
  for (std::size_t o = 0; o < n; ++o, walk.next())
    y.data<float>()[o] = x.data<float>()[walk.offset()];
}

// dx[offset(o)] += g[o] for o = 0, 1, ... in row-major order of g's shape, offset(o) walking
// `strides`.
void strided_add(const TensorRef& g, float* dx, std::vector<std::size_t> strides) {
  StridedWalk walk(*g.shape, std::move(strides));
  const std::size_t n = g.size();
  for (std::size_t o = 0; o < n; ++o, walk.next())
    dx[walk.offset()] += g.data<float>()[o];
}

// The clamped start and the number of elements taken, as ir::check's slice rule gives them.
struct SliceExtent {
  std::size_t start = 0;
  std::size_t count = 0;
};
SliceExtent slice_extent(const ir::SliceParams& p, ir::Dim extent) {
  const ir::Dim start = std::min<ir::Dim>(p.start, extent);
  const ir::Dim end = std::min<ir::Dim>(p.end, extent);
  return {.start = static_cast<std::size_t>(start),
          .count = static_cast<std::size_t>(end > start ? (end - start - 1) / p.step + 1 : 0)};
}

// The sizes of the index walk: the axes before `axis` (outer), the input's extent on `axis`,
// the number of indices, and the axes after `axis` (inner).
struct GatherExtent {
  std::size_t outer = 1;
  std::size_t extent = 0;
  std::size_t count = 0;
  std::size_t inner = 1;
};
GatherExtent gather_extent(const ir::Node& node, const ir::Shape& in, std::size_t count) {
  const std::uint32_t axis = std::get<ir::AxisParams>(node.params).axis;
  return {.outer = extent_product(in, 0, axis),
          .extent = static_cast<std::size_t>(in.dims[axis]),
          .count = count,
          .inner = extent_product(in, axis + 1, in.rank())};
}

}  // namespace

// The handlers' functions have external linkage so that each forward kernel's qualified name is
// the symbol its table row names.

// ---- reshape (reshape, flatten) ------------------------------------------------------------

Expected<void> reshape_shape_guard(const KernelCall& call) {
  if (auto ok = check_kinds<ir::ReshapeParams, ir::FlattenParams>(
          call, "reshape", ir::OpKind::reshape, ir::OpKind::flatten);
      !ok) {
    return ok;
  }
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  const ir::Shape& in = *call.inputs[0].shape;
  const ir::Shape& expected = call.node.kind == ir::OpKind::flatten
                                  ? std::get<ir::FlattenParams>(call.node.params).in
                                  : std::get<ir::ReshapeParams>(call.node.params).in;
  if (in != expected) {
    return std::unexpected(operand_error("input 0", in,
                                         std::string(ir::to_string(call.node.kind)) +
                                             " needs its params' input shape " +
                                             ir::to_string(expected)));
  }
  if (call.node.kind == ir::OpKind::reshape) {
    const ir::Shape& out = std::get<ir::ReshapeParams>(call.node.params).out;
    if (*call.output.shape != out) {
      return std::unexpected(
          operand_error("the output", *call.output.shape,
                        "reshape needs its params' output shape " + ir::to_string(out)));
    }
  }
  if (call.inputs[0].size() != call.output.size()) {
    return std::unexpected(operand_error("input 0", in,
                                         std::string(ir::to_string(call.node.kind)) +
                                             " needs the element count of the output " +
                                             ir::to_string(*call.output.shape)));
  }
  return {};
}

// The values in row-major order, unchanged, of any dtype (the output's is the input's, ir::check's
// dtype rule); nothing to do when the output is input 0's buffer.
void reshape_forward(const KernelCall& call) {
  copy_elements(call.inputs[0], call.output);
}

// dx[i] += g[i] for each i.
void reshape_vjp(const VjpCall& call) {
  const std::size_t n = call.output_grad.size();
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  for (std::size_t i = 0; i < n; ++i)
    dx[i] += g[i];
}

// ---- permute (permute, transpose) ----------------------------------------------------------

Expected<void> permute_shape_guard(const KernelCall& call) {
  if (auto ok = check_kinds<ir::PermuteParams, ir::TransposeParams>(
          call, "permute", ir::OpKind::permute, ir::OpKind::transpose);
      !ok) {
    return ok;
  }
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  const ir::Shape& in = *call.inputs[0].shape;
  const std::size_t rank = in.rank();
  if (call.node.kind == ir::OpKind::transpose) {
    const auto& p = std::get<ir::TransposeParams>(call.node.params);
    if (p.axis1 >= rank || p.axis2 >= rank) {
      return std::unexpected(operand_error(
          "input 0", in,
          "transpose of axes " + std::to_string(p.axis1) + " and " + std::to_string(p.axis2) +
              " needs rank at least " + std::to_string(std::max(p.axis1, p.axis2) + 1)));
    }
  } else {
    const auto& perm = std::get<ir::PermuteParams>(call.node.params).perm;
    if (perm.size() != rank) {
      return std::unexpected(operand_error("input 0", in,
                                           "permute with " + std::to_string(perm.size()) +
                                               " perm entries needs rank " +
                                               std::to_string(perm.size())));
    }
    std::vector<bool> seen(rank, false);
    for (const std::uint32_t axis : perm) {
      if (axis >= rank || seen[axis]) {
        return invalid("perm entry " + std::to_string(axis) +
                       (axis >= rank ? " is out of range" : " is repeated") +
                       "; permute needs a permutation of the axes of " + ir::to_string(in));
      }
      seen[axis] = true;
    }
  }
  const std::vector<std::uint32_t> perm = permutation_of(call.node, rank);
  ir::Shape permuted;
  for (const std::uint32_t axis : perm)
    permuted.dims.push_back(in.dims[axis]);
  if (permuted != *call.output.shape) {
    return std::unexpected(
        operand_error("the output", *call.output.shape,
                      "the permuted input 0 has shape " + ir::to_string(permuted)));
  }
  return {};
}

// y[o] = x[offset(o)], o in row-major output order.
void permute_forward(const KernelCall& call) {
  strided_copy(call.inputs[0], call.output, permuted_strides(call.node, *call.inputs[0].shape));
}

// dx[offset(o)] += g[o]: the inverse permutation (each input element is read once).
void permute_vjp(const VjpCall& call) {
  strided_add(call.output_grad, call.input_grads[0].data<float>(),
              permuted_strides(call.node, *call.inputs[0].shape));
}

// ---- broadcast (broadcast_to) --------------------------------------------------------------

Expected<void> broadcast_shape_guard(const KernelCall& call) {
  static constexpr ir::OpKind kinds[] = {ir::OpKind::broadcast_to};
  if (auto ok = check_kind<ir::BroadcastParams>(call, "broadcast", kinds); !ok) return ok;
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  const auto& p = std::get<ir::BroadcastParams>(call.node.params);
  const ir::Shape& in = *call.inputs[0].shape;
  if (in != p.from) {
    return std::unexpected(operand_error(
        "input 0", in, "broadcast_to needs its params' source shape " + ir::to_string(p.from)));
  }
  const ir::Shape& out = *call.output.shape;
  if (out != p.to) {
    return std::unexpected(operand_error(
        "the output", out, "broadcast_to needs its params' target shape " + ir::to_string(p.to)));
  }
  if (in.rank() > out.rank()) {
    return std::unexpected(operand_error("input 0", in,
                                         "broadcast_to needs rank at most the output's " +
                                             ir::to_string(out) + " rank " +
                                             std::to_string(out.rank())));
  }
  const std::size_t lead = out.rank() - in.rank();
  for (std::size_t i = 0; i < in.rank(); ++i) {
    if (in.dims[i] != 1 && in.dims[i] != out.dims[lead + i]) {
      return std::unexpected(operand_error("input 0", in,
                                           "broadcast_to " + ir::to_string(out) + " needs axis " +
                                               std::to_string(i) + " to be 1 or " +
                                               std::to_string(out.dims[lead + i])));
    }
  }
  return {};
}

// y[o] = x[offset(o)], o in row-major output order.
void broadcast_forward(const KernelCall& call) {
  strided_copy(call.inputs[0], call.output,
               broadcast_strides(*call.inputs[0].shape, *call.output.shape));
}

// dx[offset(o)] += g[o] for o = 0, 1, ...: each input element sums the gradients of the output
// elements it was copied to, left to right in output index order.
void broadcast_vjp(const VjpCall& call) {
  strided_add(call.output_grad, call.input_grads[0].data<float>(),
              broadcast_strides(*call.inputs[0].shape, *call.output_grad.shape));
}

// ---- concat --------------------------------------------------------------------------------

Expected<void> concat_shape_guard(const KernelCall& call) {
  static constexpr ir::OpKind kinds[] = {ir::OpKind::concat};
  if (auto ok = check_kind<ir::AxisParams>(call, "concat", kinds); !ok) return ok;
  if (call.inputs.size() < 2) {
    return invalid(std::to_string(call.inputs.size()) + " inputs given; concat takes at least 2");
  }
  if (auto ok = check_arity_and_output(call, call.node.parents.size()); !ok) return ok;
  const std::uint32_t axis = std::get<ir::AxisParams>(call.node.params).axis;
  const ir::Shape& out = *call.output.shape;
  if (axis >= out.rank()) {
    return std::unexpected(operand_error("the output", out,
                                         "concat along axis " + std::to_string(axis) +
                                             " needs rank at least " + std::to_string(axis + 1)));
  }
  ir::Dim total = 0;  // the extents on `axis` so far, at most the output's
  bool sums = true;
  for (std::size_t k = 0; k < call.inputs.size(); ++k) {
    const ir::Shape& in = *call.inputs[k].shape;
    const std::string name = "input " + std::to_string(k);
    bool fits = in.rank() == out.rank();
    for (std::size_t d = 0; fits && d < in.rank(); ++d)
      fits = d == axis || in.dims[d] == out.dims[d];
    if (!fits) {
      return std::unexpected(operand_error(name, in,
                                           "concat along axis " + std::to_string(axis) +
                                               " needs the output's shape " + ir::to_string(out) +
                                               " outside that axis"));
    }
    if (sums && in.dims[axis] <= out.dims[axis] - total) {
      total += in.dims[axis];
    } else {
      sums = false;
    }
  }
  if (!sums || total != out.dims[axis]) {
    return std::unexpected(operand_error("the output", out,
                                         "concat along axis " + std::to_string(axis) +
                                             " needs the inputs' extents there to sum to " +
                                             std::to_string(out.dims[axis])));
  }
  return {};
}

// The output, for each index of the axes before `axis` (outer), holds input 0's block, then
// input 1's, and so on; a block is the input's extent on `axis` times the axes after it.
void concat_forward(const KernelCall& call) {
  const ir::Shape& out = *call.output.shape;
  const std::uint32_t axis = std::get<ir::AxisParams>(call.node.params).axis;
  const std::size_t outer = extent_product(out, 0, axis);
  const std::size_t inner = extent_product(out, axis + 1, out.rank());
  const std::size_t out_block = static_cast<std::size_t>(out.dims[axis]) * inner;
  std::size_t start = 0;  // of input k's block inside an output block
  for (const TensorRef& x : call.inputs) {
    const std::size_t block = static_cast<std::size_t>(x.dim(axis)) * inner;
    for (std::size_t o = 0; o < outer; ++o) {
      std::copy(x.data<float>() + o * block, x.data<float>() + (o + 1) * block,
                call.output.data<float>() + o * out_block + start);
    }
    start += block;
  }
}

// The split: each input gradient adds its block of g.
void concat_vjp(const VjpCall& call) {
  const ir::Shape& out = *call.output_grad.shape;
  const std::uint32_t axis = std::get<ir::AxisParams>(call.node.params).axis;
  const std::size_t outer = extent_product(out, 0, axis);
  const std::size_t inner = extent_product(out, axis + 1, out.rank());
  const std::size_t out_block = static_cast<std::size_t>(out.dims[axis]) * inner;
  std::size_t start = 0;
  for (const MutableTensorRef& dx : call.input_grads) {
    const std::size_t block = static_cast<std::size_t>(dx.dim(axis)) * inner;
    for (std::size_t o = 0; o < outer; ++o) {
      const float* g = call.output_grad.data<float>() + o * out_block + start;
      float* d = dx.data<float>() + o * block;
      for (std::size_t i = 0; i < block; ++i)
        d[i] += g[i];
    }
    start += block;
  }
}

// ---- slice ---------------------------------------------------------------------------------

Expected<void> slice_shape_guard(const KernelCall& call) {
  static constexpr ir::OpKind kinds[] = {ir::OpKind::slice};
  if (auto ok = check_kind<ir::SliceParams>(call, "slice", kinds); !ok) return ok;
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  const auto& p = std::get<ir::SliceParams>(call.node.params);
  const ir::Shape& in = *call.inputs[0].shape;
  if (p.axis >= in.rank()) {
    return std::unexpected(operand_error("input 0", in,
                                         "slice along axis " + std::to_string(p.axis) +
                                             " needs rank at least " + std::to_string(p.axis + 1)));
  }
  if (p.step == 0) return invalid("slice step 0 is not allowed (must be at least 1)");
  ir::Shape sliced = in;
  sliced.dims[p.axis] = slice_extent(p, in.dims[p.axis]).count;
  if (sliced != *call.output.shape) {
    return std::unexpected(operand_error(
        "the output", *call.output.shape,
        "slice " + std::to_string(p.start) + ":" + std::to_string(p.end) + ":" +
            std::to_string(p.step) + " of input 0 " + ir::to_string(in) + " along axis " +
            std::to_string(p.axis) + " gives " + ir::to_string(sliced)));
  }
  return {};
}

// For each index of the axes before `axis` and each taken position j, the row of the axes
// after it at input position start + j * step.
void slice_forward(const KernelCall& call) {
  const auto& p = std::get<ir::SliceParams>(call.node.params);
  const ir::Shape& in = *call.inputs[0].shape;
  const std::size_t extent = in.dims[p.axis];
  const SliceExtent s = slice_extent(p, extent);
  const std::size_t outer = extent_product(in, 0, p.axis);
  const std::size_t inner = extent_product(in, p.axis + 1, in.rank());
  const float* x = call.inputs[0].data<float>();
  float* y = call.output.data<float>();
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::size_t j = 0; j < s.count; ++j) {
      const float* row = x + (o * extent + s.start + j * p.step) * inner;
      std::copy(row, row + inner, y + (o * s.count + j) * inner);
    }
  }
}

// The scatter: each taken position's input gradient adds its row of g (positions are distinct).
void slice_vjp(const VjpCall& call) {
  const auto& p = std::get<ir::SliceParams>(call.node.params);
  const ir::Shape& in = *call.inputs[0].shape;
  const std::size_t extent = in.dims[p.axis];
  const SliceExtent s = slice_extent(p, extent);
  const std::size_t outer = extent_product(in, 0, p.axis);
  const std::size_t inner = extent_product(in, p.axis + 1, in.rank());
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::size_t j = 0; j < s.count; ++j) {
      float* d = dx + (o * extent + s.start + j * p.step) * inner;
      const float* row = g + (o * s.count + j) * inner;
      for (std::size_t i = 0; i < inner; ++i)
        d[i] += row[i];
    }
  }
}

// ---- gather --------------------------------------------------------------------------------
//
// The indices are the payload `indices` (values in [0, extent), float32 data), or input 1 (a value,
// SPEC §6: int64 indices in [-extent, extent), a negative one counting from the end, checked by
// the guard before every launch; data of any dtype).

namespace {

// The indices of a gather call, wherever they come from.
struct GatherIndices {
  std::span<const std::int64_t> values;
  const ir::Shape* shape = nullptr;
};

template <class Call>
GatherIndices gather_indices(const Call& call) {
  if (call.inputs.size() == 2) {
    const TensorRef& in = call.inputs[1];
    return {.values = {in.template data<std::int64_t>(), in.size()}, .shape = in.shape};
  }
  const ir::WeightTensor* w = call.weights.find("indices");
  if (w == nullptr) return {};
  return {.values = w->ints(), .shape = &w->shape()};
}

}  // namespace

Expected<void> gather_shape_guard(const KernelCall& call) {
  static constexpr ir::OpKind kinds[] = {ir::OpKind::gather};
  if (auto ok = check_kind<ir::AxisParams>(call, "gather", kinds); !ok) return ok;
  const bool by_value = call.inputs.size() == 2;
  if (auto ok = check_arity_and_output(call, by_value ? 2 : 1); !ok) return ok;
  const std::uint32_t axis = std::get<ir::AxisParams>(call.node.params).axis;
  const ir::Shape& in = *call.inputs[0].shape;
  if (axis >= in.rank()) {
    return std::unexpected(operand_error("input 0", in,
                                         "gather along axis " + std::to_string(axis) +
                                             " needs rank at least " + std::to_string(axis + 1)));
  }
  const std::string where = by_value ? "input 1" : "payload indices";
  if (by_value) {
    if (call.inputs[1].dtype != ir::DType::int64) {
      return std::unexpected(operand_error(
          where, *call.inputs[1].shape,
          "gather needs int64 values, not " + std::string(ir::to_string(call.inputs[1].dtype))));
    }
    if (call.output.dtype != call.inputs[0].dtype) {
      return invalid("the output has dtype " + std::string(ir::to_string(call.output.dtype)) +
                     "; gather writes the data's, " +
                     std::string(ir::to_string(call.inputs[0].dtype)));
    }
  } else {
    const ir::WeightTensor* indices = call.weights.find("indices");
    if (indices == nullptr) {
      return invalid("payload indices is missing; gather needs an int64 tensor of indices");
    }
    if (indices->dtype() != ir::DType::int64) {
      return std::unexpected(operand_error(
          where, indices->shape(),
          "gather needs int64 values, not " + std::string(ir::to_string(indices->dtype()))));
    }
    const std::optional<ir::Dim> count = ir::element_count(indices->shape());
    if (!count || *count != indices->ints().size()) {
      return std::unexpected(operand_error(where, indices->shape(),
                                           "gather needs one value per element, it holds " +
                                               std::to_string(indices->ints().size())));
    }
  }
  const GatherIndices indices = gather_indices(call);
  ir::Shape gathered;
  for (std::size_t d = 0; d < axis; ++d)
    gathered.dims.push_back(in.dims[d]);
  for (const ir::Dim d : indices.shape->dims)
    gathered.dims.push_back(d);
  for (std::size_t d = axis + 1; d < in.rank(); ++d)
    gathered.dims.push_back(in.dims[d]);
  if (gathered != *call.output.shape) {
    return std::unexpected(operand_error("the output", *call.output.shape,
                                         "gather along axis " + std::to_string(axis) +
                                             " of input 0 " + ir::to_string(in) + " with indices " +
                                             ir::to_string(*indices.shape) + " gives " +
                                             ir::to_string(gathered)));
  }
  const auto extent = static_cast<std::int64_t>(in.dims[axis]);
  const std::int64_t lowest = by_value ? -extent : 0;
  for (std::size_t j = 0; j < indices.values.size(); ++j) {
    const std::int64_t v = indices.values[j];
    if (v < lowest || v >= extent) {
      return std::unexpected(operand_error(
          where, *indices.shape,
          "gather needs values in [" + std::to_string(lowest) + ", " + std::to_string(extent) +
              ") (axis " + std::to_string(axis) + " of input 0 " + ir::to_string(in) +
              "), element " + std::to_string(j) + " is " + std::to_string(v)));
    }
  }
  return {};
}

namespace {

template <typename T>
void gather_rows(const KernelCall& call) {
  const GatherIndices indices = gather_indices(call);
  const GatherExtent e = gather_extent(call.node, *call.inputs[0].shape, indices.values.size());
  const T* x = call.inputs[0].data<T>();
  T* y = call.output.data<T>();
  for (std::size_t o = 0; o < e.outer; ++o) {
    for (std::size_t j = 0; j < e.count; ++j) {
      const T* row = x + (o * e.extent + wrapped_index(indices.values[j], e.extent)) * e.inner;
      std::copy(row, row + e.inner, y + (o * e.count + j) * e.inner);
    }
  }
}

}  // namespace

// y[o, j, i] = x[o, indices[j], i] with o the outer index, j the flat index into the indices
// and i the inner index.
void gather_forward(const KernelCall& call) {
  switch (call.inputs[0].dtype) {
    case ir::DType::float32:
      gather_rows<float>(call);
      return;
    case ir::DType::int64:
      gather_rows<std::int64_t>(call);
      return;
    case ir::DType::boolean:
      gather_rows<std::uint8_t>(call);
      return;
  }
}

// The scatter-add dx[o, indices[j], i] += g[o, j, i], walking g in row-major order: a repeated
// index sums its gradients left to right in output index order. The int64 indices take none.
void gather_vjp(const VjpCall& call) {
  const GatherIndices indices = gather_indices(call);
  const GatherExtent e = gather_extent(call.node, *call.inputs[0].shape, indices.values.size());
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  for (std::size_t o = 0; o < e.outer; ++o) {
    for (std::size_t j = 0; j < e.count; ++j) {
      float* d = dx + (o * e.extent + wrapped_index(indices.values[j], e.extent)) * e.inner;
      const float* row = g + (o * e.count + j) * e.inner;
      for (std::size_t i = 0; i < e.inner; ++i)
        d[i] += row[i];
    }
  }
}

// ---- the table -----------------------------------------------------------------------------

namespace {

HandlerDefinition definition(std::string_view symbol, ForwardFn forward, VjpFn vjp,
                             GuardFn shape_guard, bool in_place_safe = false) {
  return {.symbol = symbol,
          .forward = forward,
          .vjp = vjp,
          .shape_guard = shape_guard,
          .layout_guard = in_place_safe ? canonical_layout_guard_in_place : canonical_layout_guard,
          .in_place_safe = in_place_safe,
          .forward_tests = {.source = kTests},
          .vjp_tests = {.source = kTests}};
}

}  // namespace

std::span<const ReferenceHandler> data_movement_handlers() {
  using backend::BackendOp;
  static const ReferenceHandler table[] = {
      {BackendOp::reshape, definition("nnplan::runtime::reference::reshape_forward",
                                      reshape_forward, reshape_vjp, reshape_shape_guard, true)},
      {BackendOp::permute, definition("nnplan::runtime::reference::permute_forward",
                                      permute_forward, permute_vjp, permute_shape_guard)},
      {BackendOp::broadcast, definition("nnplan::runtime::reference::broadcast_forward",
                                        broadcast_forward, broadcast_vjp, broadcast_shape_guard)},
      {BackendOp::concat, definition("nnplan::runtime::reference::concat_forward", concat_forward,
                                     concat_vjp, concat_shape_guard)},
      {BackendOp::slice, definition("nnplan::runtime::reference::slice_forward", slice_forward,
                                    slice_vjp, slice_shape_guard)},
      {BackendOp::gather, definition("nnplan::runtime::reference::gather_forward", gather_forward,
                                     gather_vjp, gather_shape_guard)},
  };
  return table;
}

}  // namespace nnplan::runtime::reference
