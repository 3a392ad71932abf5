// Reference kernels: scatter_elements and scatter_nd, ONNX's ScatterElements and ScatterND. Both
// copy the data to the output, then apply each update, in row-major order of the updates, to the
// output element it lands on: it replaces the element (reduction none: of two updates of one
// element the later stands), is added to it, or multiplies it (float32 or, wrapping, int64; bool
// only replaces). scatter_elements lands update c at c with `axis` replaced by indices[c];
// scatter_nd lands the slice of updates under indices[j] (one row of k coordinates) on the slice
// of the data those k coordinates name. A negative index counts from the end; the guard reads
// every index before the launch and refuses one out of range, naming it, so the kernel never
// writes out of bounds. The VJPs (float32): the data's gradient is the output's, times the
// product of the updates for mul, and zero where an update replaced the element; an update's
// gradient is the output's gradient where it landed, for none only if it is the one that stood,
// times the data and the other updates of that element for mul.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/providers/reference/index_range.hpp"
#include "runtime/providers/reference/reference_handlers.hpp"
#include "runtime/providers/reference/row_major.hpp"

namespace nnplan::runtime::reference {
namespace {

using ir::DType;
using ir::ScatterReduction;

const ir::ScatterParams& params_of(const ir::Node& node) {
  return std::get<ir::ScatterParams>(node.params);
}

Expected<void> refuse(std::string what) {
  return std::unexpected(make_error(ErrorKind::invalid_input, std::move(what)));
}

// The output offset of each update element, in the updates' row-major order, or the message
// naming the first index out of range.
Expected<std::vector<std::size_t>> landing_offsets(const ir::Node& node, const ir::Shape& data,
                                                   const ir::Shape& indices_shape,
                                                   const std::int64_t* indices,
                                                   std::size_t update_count) {
  const std::vector<std::size_t> strides = row_major_strides(data);
  std::vector<std::size_t> out(update_count);
  if (node.kind == ir::OpKind::scatter_elements) {
    const std::uint32_t axis = params_of(node).axis;
    const std::vector<std::size_t> index_strides = row_major_strides(indices_shape);
    for (std::size_t i = 0; i < update_count; ++i) {
      std::size_t offset = 0;
      std::size_t rest = i;
      for (std::size_t a = 0; a < indices_shape.rank(); ++a) {
        std::size_t c = rest / index_strides[a];
        rest %= index_strides[a];
        if (a == axis) {
          if (!index_in_range(indices[i], data.dims[a])) {
            return std::unexpected(index_out_of_range(indices[i], i, a, data.dims[a]));
          }
          c = wrapped_index(indices[i], data.dims[a]);
        }
        offset += c * strides[a];
      }
      out[i] = offset;
    }
    return out;
  }
  // scatter_nd: row j of the indices names the slice at offset base(j); its elements follow.
  const std::size_t k = indices_shape.dims.back();
  const std::size_t rows = k == 0 ? 0 : extent_product(indices_shape, 0, indices_shape.rank()) / k;
  const std::size_t slice = extent_product(data, k, data.rank());
  for (std::size_t j = 0; j < rows; ++j) {
    std::size_t base = 0;
    for (std::size_t a = 0; a < k; ++a) {
      const std::int64_t v = indices[j * k + a];
      if (!index_in_range(v, data.dims[a])) {
        return std::unexpected(index_out_of_range(v, j * k + a, a, data.dims[a]));
      }
      base += wrapped_index(v, data.dims[a]) * strides[a];
    }
    for (std::size_t e = 0; e < slice; ++e)
      out[j * slice + e] = base + e;
  }
  return out;
}

template <typename Call>
Expected<std::vector<std::size_t>> landing_offsets(const Call& call) {
  return landing_offsets(call.node, *call.inputs[0].shape, *call.inputs[1].shape,
                         call.inputs[1].template data<std::int64_t>(), call.inputs[2].size());
}

// The IR's shape rule, the dtypes (int64 indices, updates and output the data's; add and mul
// not on bool), then every index.
template <backend::BackendOp op>
Expected<void> scatter_guard(const KernelCall& call) {
  if (auto ok = ir_shape_guard(call, op); !ok) return ok;
  const std::string kind(ir::to_string(call.node.kind));
  const DType data = call.inputs[0].dtype;
  if (call.inputs[1].dtype != DType::int64) {
    return refuse("input 1 has dtype " + std::string(ir::to_string(call.inputs[1].dtype)) + "; " +
                  kind + " takes int64 indices");
  }
  if (call.inputs[2].dtype != data || call.output.dtype != data) {
    return refuse("input 2 has dtype " + std::string(ir::to_string(call.inputs[2].dtype)) +
                  " and the output " + std::string(ir::to_string(call.output.dtype)) + "; " + kind +
                  " takes and writes the data's, " + std::string(ir::to_string(data)));
  }
  if (data == DType::boolean && params_of(call.node).reduction != ScatterReduction::none) {
    return refuse(kind + " adds or multiplies float32 or int64 values, not bool");
  }
  const auto offsets = landing_offsets(call);
  if (!offsets) return std::unexpected(offsets.error());
  return {};
}

template <typename T>
void scatter_as(const KernelCall& call, const std::vector<std::size_t>& offsets) {
  const T* x = call.inputs[0].data<T>();
  const T* u = call.inputs[2].data<T>();
  T* y = call.output.data<T>();
  const std::size_t n = call.inputs[0].size();
  for (std::size_t i = 0; i < n; ++i)
    y[i] = x[i];
  // int64 adds and multiplies wrap modulo 2^64, as unsigned arithmetic does.
  using Op = std::conditional_t<std::is_same_v<T, std::int64_t>, std::uint64_t, T>;
  switch (params_of(call.node).reduction) {
    case ScatterReduction::none:
      for (std::size_t i = 0; i < offsets.size(); ++i)
        y[offsets[i]] = u[i];
      return;
    case ScatterReduction::add:
      for (std::size_t i = 0; i < offsets.size(); ++i)
        y[offsets[i]] = static_cast<T>(static_cast<Op>(y[offsets[i]]) + static_cast<Op>(u[i]));
      return;
    case ScatterReduction::mul:
      for (std::size_t i = 0; i < offsets.size(); ++i)
        y[offsets[i]] = static_cast<T>(static_cast<Op>(y[offsets[i]]) * static_cast<Op>(u[i]));
      return;
  }
}

}  // namespace

// y = x, then y[landing(c)] = u[c] (or += u[c], or *= u[c]) for each update c in row-major order.
void scatter_elements_forward(const KernelCall& call) {
  const auto offsets = landing_offsets(call);
  switch (call.inputs[0].dtype) {
    case DType::float32:
      scatter_as<float>(call, *offsets);
      return;
    case DType::int64:
      scatter_as<std::int64_t>(call, *offsets);
      return;
    case DType::boolean:
      scatter_as<std::uint8_t>(call, *offsets);
      return;
  }
}
void scatter_nd_forward(const KernelCall& call) {
  scatter_elements_forward(call);
}

// The reverse of either scatter (float32; the indices take no gradient).
void scatter_elements_vjp(const VjpCall& call) {
  if (call.inputs[0].dtype != DType::float32) return;
  const auto offsets = landing_offsets(call);
  const float* g = call.output_grad.data<float>();
  const float* x = call.inputs[0].data<float>();
  const float* u = call.inputs[2].data<float>();
  float* dx = call.input_grads[0].data<float>();
  float* du = call.input_grads[2].data<float>();
  const std::size_t n = call.inputs[0].size();
  switch (params_of(call.node).reduction) {
    case ScatterReduction::none: {
      // The last update landing on each element is the one that stood.
      std::vector<std::size_t> last(n, offsets->size());
      for (std::size_t i = 0; i < offsets->size(); ++i)
        last[(*offsets)[i]] = i;
      for (std::size_t j = 0; j < n; ++j) {
        if (last[j] == offsets->size()) dx[j] += g[j];
      }
      for (std::size_t i = 0; i < offsets->size(); ++i) {
        if (last[(*offsets)[i]] == i) du[i] += g[(*offsets)[i]];
      }
      return;
    }
    case ScatterReduction::add:
      for (std::size_t j = 0; j < n; ++j)
        dx[j] += g[j];
      for (std::size_t i = 0; i < offsets->size(); ++i)
        du[i] += g[(*offsets)[i]];
      return;
    case ScatterReduction::mul: {
      // y[j] = x[j] * u[a] * u[b] * ...: each factor's gradient is g[j] times the others, taken
      // as products over the list (no division, so a zero factor is exact).
      std::vector<std::vector<std::size_t>> landing(n);
      for (std::size_t i = 0; i < offsets->size(); ++i)
        landing[(*offsets)[i]].push_back(i);
      for (std::size_t j = 0; j < n; ++j) {
        float others = 1.0F;
        for (const std::size_t i : landing[j])
          others *= u[i];
        dx[j] += g[j] * others;
        for (const std::size_t i : landing[j]) {
          float rest = x[j];
          for (const std::size_t q : landing[j]) {
            if (q != i) rest *= u[q];
          }
          du[i] += g[j] * rest;
        }
      }
      return;
    }
  }
}
void scatter_nd_vjp(const VjpCall& call) {
  scatter_elements_vjp(call);
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/scatter_test.cpp"};

const ReferenceHandler kScatterHandlers[] = {
    {backend::BackendOp::scatter_elements,
     {.symbol = "nnplan::runtime::reference::scatter_elements_forward",
      .forward = scatter_elements_forward,
      .vjp = scatter_elements_vjp,
      .shape_guard = scatter_guard<backend::BackendOp::scatter_elements>,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
    {backend::BackendOp::scatter_nd,
     {.symbol = "nnplan::runtime::reference::scatter_nd_forward",
      .forward = scatter_nd_forward,
      .vjp = scatter_nd_vjp,
      .shape_guard = scatter_guard<backend::BackendOp::scatter_nd>,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
};

}  // namespace

std::span<const ReferenceHandler> scatter_handlers() {
  return kScatterHandlers;
}

}  // namespace nnplan::runtime::reference
