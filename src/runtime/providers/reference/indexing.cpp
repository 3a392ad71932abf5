// Reference kernels: gather_elements and gather_nd. gather_elements, ONNX's GatherElements. For
// each element of the int64 indices, in row-major order, the data's element at the same coordinates
// but along `axis`, where it reads the index (a negative index counts from the end). The guard
// reads every index before the launch and refuses one outside [-extent, extent) naming it, so the
// kernel never reads out of bounds. The VJP adds each output gradient into the data element the
// forward read (several indices may read one element: their gradients add, in row-major order of
// the indices); the indices get no gradient. gather_nd, ONNX's GatherND: each row of k indices
// (after batch_dims axes the indices share with the data) names an element or slice of the data,
// copied to the output in row order; the guard checks every index the same way, and the VJP adds
// each output slice's gradient back into the slice it read.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/providers/reference/index_range.hpp"
#include "runtime/providers/reference/reference_handlers.hpp"
#include "runtime/providers/reference/row_major.hpp"

namespace nnplan::runtime::reference {
namespace {

using ir::DType;

std::uint32_t axis_of(const ir::Node& node) {
  return std::get<ir::AxisParams>(node.params).axis;
}

// Calls f(i, j) for each index element i, in row-major order, with j the offset of the data
// element it reads. The indices were checked by the guard.
template <typename F>
void for_each_gathered(const ir::Shape& data, const ir::Shape& indices, std::uint32_t axis,
                       const std::int64_t* index, F f) {
  const std::vector<std::size_t> data_strides = row_major_strides(data);
  const auto extent = static_cast<std::int64_t>(data.dims[axis]);
  const std::size_t count = extent_product(indices, 0, indices.rank());
  std::vector<std::size_t> coord(indices.rank(), 0);
  std::size_t base = 0;  // the data offset of coord with the axis at 0
  for (std::size_t i = 0; i < count; ++i) {
    const std::int64_t k = index[i] < 0 ? index[i] + extent : index[i];
    f(i, base + static_cast<std::size_t>(k) * data_strides[axis]);
    for (std::size_t a = indices.rank(); a-- > 0;) {
      if (++coord[a] < static_cast<std::size_t>(indices.dims[a])) {
        if (a != axis) base += data_strides[a];
        break;
      }
      if (a != axis) base -= data_strides[a] * (coord[a] - 1);
      coord[a] = 0;
    }
  }
}

// Data of any dtype read by int64 indices (input 1) into an output of the data's dtype.
Expected<void> check_indexed_dtypes(const KernelCall& call) {
  const std::string kind(ir::to_string(call.node.kind));
  if (call.inputs[1].dtype != DType::int64) {
    return std::unexpected(
        make_error(ErrorKind::invalid_input, "input 1 has dtype " +
                                                 std::string(ir::to_string(call.inputs[1].dtype)) +
                                                 "; " + kind + " takes int64 indices"));
  }
  if (call.output.dtype != call.inputs[0].dtype) {
    return std::unexpected(make_error(
        ErrorKind::invalid_input,
        "the output has dtype " + std::string(ir::to_string(call.output.dtype)) + "; " + kind +
            " writes the data's, " + std::string(ir::to_string(call.inputs[0].dtype))));
  }
  return {};
}

// The IR's shape rule, then the dtypes (int64 indices, the output the data's), then every index.
Expected<void> gather_elements_guard(const KernelCall& call) {
  if (auto ok = ir_shape_guard(call, backend::BackendOp::gather_elements); !ok) return ok;
  if (auto ok = check_indexed_dtypes(call); !ok) return ok;
  const std::uint32_t axis = axis_of(call.node);
  const std::size_t extent = call.inputs[0].dim(axis);
  const std::int64_t* index = call.inputs[1].data<std::int64_t>();
  const std::size_t count = call.inputs[1].size();
  for (std::size_t i = 0; i < count; ++i) {
    if (!index_in_range(index[i], extent)) {
      return std::unexpected(index_out_of_range(index[i], i, axis, extent));
    }
  }
  return {};
}

template <typename T>
void gather_as(const KernelCall& call) {
  const T* x = call.inputs[0].data<T>();
  T* y = call.output.data<T>();
  for_each_gathered(*call.inputs[0].shape, *call.inputs[1].shape, axis_of(call.node),
                    call.inputs[1].data<std::int64_t>(),
                    [&](std::size_t i, std::size_t j) { y[i] = x[j]; });
}

// gather_nd: the data offset of each row of the indices (its slice starts there), and the slice
// size; or the message naming the first index out of range.
struct NdRows {
  std::vector<std::size_t> offsets;
  std::size_t slice = 1;
};
Expected<NdRows> nd_rows(const ir::Node& node, const ir::Shape& data, const ir::Shape& indices,
                         const std::int64_t* index) {
  const std::size_t batch = std::get<ir::GatherNdParams>(node.params).batch_dims;
  const std::size_t k = indices.dims.back();
  const std::vector<std::size_t> strides = row_major_strides(data);
  NdRows out;
  out.slice = extent_product(data, batch + k, data.rank());
  const std::size_t rows = extent_product(indices, 0, indices.rank() - 1);
  const std::size_t rows_per_batch = extent_product(indices, batch, indices.rank() - 1);
  const std::size_t batch_stride = extent_product(data, batch, data.rank());
  out.offsets.resize(rows);
  for (std::size_t j = 0; j < rows; ++j) {
    std::size_t offset = rows_per_batch == 0 ? 0 : (j / rows_per_batch) * batch_stride;
    for (std::size_t a = 0; a < k; ++a) {
      const std::int64_t v = index[j * k + a];
      const std::size_t axis = batch + a;
      const auto extent = static_cast<std::size_t>(data.dims[axis]);
      if (!index_in_range(v, extent)) {
        return std::unexpected(index_out_of_range(v, j * k + a, axis, extent));
      }
      offset += wrapped_index(v, extent) * strides[axis];
    }
    out.offsets[j] = offset;
  }
  return out;
}

template <typename Call>
Expected<NdRows> nd_rows(const Call& call) {
  return nd_rows(call.node, *call.inputs[0].shape, *call.inputs[1].shape,
                 call.inputs[1].template data<std::int64_t>());
}

Expected<void> gather_nd_guard(const KernelCall& call) {
  if (auto ok = ir_shape_guard(call, backend::BackendOp::gather_nd); !ok) return ok;
  if (auto ok = check_indexed_dtypes(call); !ok) return ok;
  const auto rows = nd_rows(call);
  if (!rows) return std::unexpected(rows.error());
  return {};
}

template <typename T>
void gather_nd_as(const KernelCall& call, const NdRows& rows) {
  const T* x = call.inputs[0].data<T>();
  T* y = call.output.data<T>();
  for (std::size_t j = 0; j < rows.offsets.size(); ++j) {
    for (std::size_t e = 0; e < rows.slice; ++e)
      y[j * rows.slice + e] = x[rows.offsets[j] + e];
  }
}

}  // namespace

// y[j, e] = x[slice named by row j of the indices][e], rows in row-major order.
void gather_nd_forward(const KernelCall& call) {
  const auto rows = nd_rows(call);
  switch (call.inputs[0].dtype) {
    case DType::float32:
      gather_nd_as<float>(call, *rows);
      return;
    case DType::int64:
      gather_nd_as<std::int64_t>(call, *rows);
      return;
    case DType::boolean:
      gather_nd_as<std::uint8_t>(call, *rows);
      return;
  }
}

// dx[slice of row j][e] += g[j, e], rows in row-major order (float32; indices take none).
void gather_nd_vjp(const VjpCall& call) {
  if (call.inputs[0].dtype != DType::float32) return;
  const auto rows = nd_rows(call);
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  for (std::size_t j = 0; j < rows->offsets.size(); ++j) {
    for (std::size_t e = 0; e < rows->slice; ++e)
      dx[rows->offsets[j] + e] += g[j * rows->slice + e];
  }
}

// y[c] = x[c with axis c_axis replaced by indices[c]], for each coordinate c of the indices.
void gather_elements_forward(const KernelCall& call) {
  switch (call.inputs[0].dtype) {
    case DType::float32:
      gather_as<float>(call);
      return;
    case DType::int64:
      gather_as<std::int64_t>(call);
      return;
    case DType::boolean:
      gather_as<std::uint8_t>(call);
      return;
  }
}

// dx[j] += g[i] for each index element i reading data element j, in row-major order of i.
void gather_elements_vjp(const VjpCall& call) {
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  for_each_gathered(*call.inputs[0].shape, *call.inputs[1].shape, axis_of(call.node),
                    call.inputs[1].data<std::int64_t>(),
                    [&](std::size_t i, std::size_t j) { dx[j] += g[i]; });
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/indexing_test.cpp"};

const ReferenceHandler kIndexingHandlers[] = {
    {backend::BackendOp::gather_elements,
     {.symbol = "nnplan::runtime::reference::gather_elements_forward",
      .forward = gather_elements_forward,
      .vjp = gather_elements_vjp,
      .shape_guard = gather_elements_guard,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
    {backend::BackendOp::gather_nd,
     {.symbol = "nnplan::runtime::reference::gather_nd_forward",
      .forward = gather_nd_forward,
      .vjp = gather_nd_vjp,
      .shape_guard = gather_nd_guard,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
};

}  // namespace

std::span<const ReferenceHandler> indexing_handlers() {
  return kIndexingHandlers;
}

}  // namespace nnplan::runtime::reference
