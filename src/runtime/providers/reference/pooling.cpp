// Reference kernels: the pooling family (max_pool, avg_pool). Both pool over the last
// spatial_rank axes of their one input with symmetric padding, keeping the leading axes. A
// window's taps are visited in row-major order over the kernel; a tap in the padding is -inf for
// max_pool and 0 for avg_pool, whose divisor is always the full kernel volume.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "runtime/providers/reference/reference_handlers.hpp"
#include "runtime/providers/reference/row_major.hpp"

namespace nnplan::runtime::reference {
namespace {

std::string list_string(const std::vector<std::uint32_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

Expected<void> fail(std::string message) {
  return std::unexpected(make_error(ErrorKind::invalid_input, std::move(message)));
}

// The shape guard of both pools: the node is of `kind` with one entry per spatial axis in each
// window list, the input has at least spatial_rank axes, and the node's shape is the pooled one.
Expected<void> pool_shape_guard(const KernelCall& call, ir::OpKind kind) {
  const std::string op(ir::to_string(kind));
  if (call.node.kind != kind || !std::holds_alternative<ir::PoolParams>(call.node.params)) {
    return fail("node kind " + std::string(ir::to_string(call.node.kind)) + " is not " + op);
  }
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  const auto& p = std::get<ir::PoolParams>(call.node.params);
  const std::size_t r = p.spatial_rank;
  if (r == 0 || p.kernel.size() != r || p.stride.size() != r || p.padding.size() != r) {
    return fail(op + " with spatial_rank " + std::to_string(r) + " needs one kernel, stride and " +
                "padding entry per spatial axis (kernel " + list_string(p.kernel) + ", stride " +
                list_string(p.stride) + ", padding " + list_string(p.padding) + ")");
  }
  const ir::Shape& in = *call.inputs[0].shape;
  if (in.rank() < r) {
    return std::unexpected(operand_error("input 0", in,
                                         op + " needs rank at least " + std::to_string(r) +
                                             " (spatial_rank " + std::to_string(r) + ")"));
  }
  ir::Shape want = in;
  const std::size_t first = in.rank() - r;
  for (std::size_t i = 0; i < r; ++i) {
    const ir::Dim padded = in.dims[first + i] + 2 * ir::Dim{p.padding[i]};
    if (p.kernel[i] == 0 || p.stride[i] == 0 || padded < p.kernel[i]) {
      return std::unexpected(operand_error(
          "input 0", in,
          op + " needs a window of kernel " + list_string(p.kernel) + " and stride " +
              list_string(p.stride) + " (each at least 1) to fit every axis padded by " +
              list_string(p.padding)));
    }
    want.dims[first + i] = (padded - p.kernel[i]) / p.stride[i] + 1;
  }
  if (call.node.shape != want) {
    return std::unexpected(operand_error(
        "input 0", in,
        op + " with kernel " + list_string(p.kernel) + ", stride " + list_string(p.stride) +
            ", padding " + list_string(p.padding) + " gives " + ir::to_string(want) +
            ", the node declares " + ir::to_string(call.node.shape)));
  }
  return {};
}

Expected<void> max_pool_shape_guard(const KernelCall& call) {
  return pool_shape_guard(call, ir::OpKind::max_pool);
}
Expected<void> avg_pool_shape_guard(const KernelCall& call) {
  return pool_shape_guard(call, ir::OpKind::avg_pool);
}

// A pool's geometry, computed once per call: `outer` leading slices of `in_block` input and
// `out_block` output elements, and per spatial axis its extents, window and input stride.
struct PoolGeometry {
  std::size_t rank = 0;
  std::size_t outer = 1;
  std::size_t in_block = 1;
  std::size_t out_block = 1;
  std::size_t volume = 1;
  std::vector<std::int64_t> in_dims, out_dims, kernel, stride, padding;
  std::vector<std::size_t> in_strides;
  // Scratch for the walks: the output position, the window's first tap and the tap offsets.
  std::vector<std::int64_t> out_pos, start, tap;
};

PoolGeometry geometry_of(const ir::PoolParams& p, const ir::Shape& in, const ir::Shape& out) {
  PoolGeometry g;
  g.rank = p.spatial_rank;
  const std::size_t first = in.rank() - g.rank;
  g.outer = extent_product(in, 0, first);
  g.in_block = extent_product(in, first, in.rank());
  g.out_block = extent_product(out, first, out.rank());
  const std::vector<std::size_t> strides = row_major_strides(in);
  for (std::size_t i = 0; i < g.rank; ++i) {
    g.in_dims.push_back(static_cast<std::int64_t>(in.dims[first + i]));
    g.out_dims.push_back(static_cast<std::int64_t>(out.dims[first + i]));
    g.kernel.push_back(p.kernel[i]);
    g.stride.push_back(p.stride[i]);
    g.padding.push_back(p.padding[i]);
    g.in_strides.push_back(strides[first + i]);
    g.volume *= p.kernel[i];
  }
  g.out_pos.assign(g.rank, 0);
  g.start.assign(g.rank, 0);
  g.tap.assign(g.rank, 0);
  return g;
}

// Advances a row-major counter `pos` over `extent`.
void advance(std::vector<std::int64_t>& pos, const std::vector<std::int64_t>& extent) {
  for (std::size_t i = pos.size(); i-- > 0;) {
    if (++pos[i] < extent[i]) return;
    pos[i] = 0;
  }
}

// Calls on_window(out_index, in_base) for every output element in row-major order, with
// g.start holding the window's first tap (padding included) in spatial coordinates.
template <class OnWindow>
void for_each_window(PoolGeometry& g, OnWindow&& on_window) {
  for (std::size_t o = 0; o < g.outer; ++o) {
    std::fill(g.out_pos.begin(), g.out_pos.end(), 0);
    for (std::size_t w = 0; w < g.out_block; ++w) {
      for (std::size_t i = 0; i < g.rank; ++i) {
        g.start[i] = g.out_pos[i] * g.stride[i] - g.padding[i];
      }
      on_window(o * g.out_block + w, o * g.in_block);
      advance(g.out_pos, g.out_dims);
    }
  }
}

// Calls on_tap(offset) for every tap of the window at g.start in row-major kernel order:
// `offset` is the tap's element offset within its input block, or -1 for a padding tap.
template <class OnTap>
void for_each_tap(PoolGeometry& g, OnTap&& on_tap) {
  std::fill(g.tap.begin(), g.tap.end(), 0);
  for (std::size_t t = 0; t < g.volume; ++t) {
    std::ptrdiff_t offset = 0;
    for (std::size_t i = 0; i < g.rank; ++i) {
      const std::int64_t c = g.start[i] + g.tap[i];
      if (c < 0 || c >= g.in_dims[i]) {
        offset = -1;
        break;
      }
      offset += static_cast<std::ptrdiff_t>(static_cast<std::size_t>(c) * g.in_strides[i]);
    }
    on_tap(offset);
    advance(g.tap, g.kernel);
  }
}

// The window's selected tap: the first NaN if any, else the first maximal tap in window order
// (a padding tap counts as -inf). `offset` is -1 when that tap is padding.
struct MaxTap {
  float value = -std::numeric_limits<float>::infinity();
  std::ptrdiff_t offset = -1;
};

MaxTap window_max(PoolGeometry& g, const float* block) {
  MaxTap best;
  bool first = true;
  for_each_tap(g, [&](std::ptrdiff_t offset) {
    const float v = offset < 0 ? -std::numeric_limits<float>::infinity() : block[offset];
    if (first || (!std::isnan(best.value) && (std::isnan(v) || v > best.value))) {
      best = {v, offset};
      first = false;
    }
  });
  return best;
}

}  // namespace

// y = the window's maximum, compared left to right in row-major kernel order starting from its
// first tap; padding taps are -inf (a window wholly in padding gives -inf); a NaN tap makes the
// result NaN.
void max_pool_forward(const KernelCall& call) {
  const auto& p = std::get<ir::PoolParams>(call.node.params);
  PoolGeometry g = geometry_of(p, *call.inputs[0].shape, *call.output.shape);
  const float* x = call.inputs[0].data<float>();
  float* y = call.output.data<float>();
  for_each_window(g, [&](std::size_t out, std::size_t in_base) {
    y[out] = window_max(g, x + in_base).value;
  });
}

// The whole gradient of each output goes to its window's selected tap (the first maximal one
// in row-major kernel order, or the first NaN); nothing flows to padding.
void max_pool_vjp(const VjpCall& call) {
  const auto& p = std::get<ir::PoolParams>(call.node.params);
  PoolGeometry g = geometry_of(p, *call.inputs[0].shape, *call.output.shape);
  const float* x = call.inputs[0].data<float>();
  const float* gy = call.output_grad.data<float>();
  float* gx = call.input_grads[0].data<float>();
  for_each_window(g, [&](std::size_t out, std::size_t in_base) {
    const MaxTap best = window_max(g, x + in_base);
    if (best.offset >= 0) gx[in_base + static_cast<std::size_t>(best.offset)] += gy[out];
  });
}

// y = (sum of the window's real taps, left to right in row-major kernel order from 0) / the
// full kernel volume: padding taps count as zeros in the divisor.
void avg_pool_forward(const KernelCall& call) {
  const auto& p = std::get<ir::PoolParams>(call.node.params);
  PoolGeometry g = geometry_of(p, *call.inputs[0].shape, *call.output.shape);
  const float volume = static_cast<float>(g.volume);
  const float* x = call.inputs[0].data<float>();
  float* y = call.output.data<float>();
  for_each_window(g, [&](std::size_t out, std::size_t in_base) {
    float sum = 0.0F;
    for_each_tap(g, [&](std::ptrdiff_t offset) {
      if (offset >= 0) sum += x[in_base + static_cast<std::size_t>(offset)];
    });
    y[out] = sum / volume;
  });
}

// Each output's gradient divided by the kernel volume is added to every real tap of its
// window; outputs are visited in row-major order, taps in row-major kernel order.
void avg_pool_vjp(const VjpCall& call) {
  const auto& p = std::get<ir::PoolParams>(call.node.params);
  PoolGeometry g = geometry_of(p, *call.inputs[0].shape, *call.output.shape);
  const float volume = static_cast<float>(g.volume);
  const float* gy = call.output_grad.data<float>();
  float* gx = call.input_grads[0].data<float>();
  for_each_window(g, [&](std::size_t out, std::size_t in_base) {
    const float share = gy[out] / volume;
    for_each_tap(g, [&](std::ptrdiff_t offset) {
      if (offset >= 0) gx[in_base + static_cast<std::size_t>(offset)] += share;
    });
  });
}

std::span<const ReferenceHandler> pooling_handlers() {
  static constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/pooling_test.cpp"};
  static const ReferenceHandler kTable[] = {
      {.op = backend::BackendOp::max_pool,
       .handler = {.symbol = "nnplan::runtime::reference::max_pool_forward",
                   .forward = max_pool_forward,
                   .vjp = max_pool_vjp,
                   .shape_guard = max_pool_shape_guard,
                   .layout_guard = canonical_layout_guard,
                   .forward_tests = kTests,
                   .vjp_tests = kTests}},
      {.op = backend::BackendOp::avg_pool,
       .handler = {.symbol = "nnplan::runtime::reference::avg_pool_forward",
                   .forward = avg_pool_forward,
                   .vjp = avg_pool_vjp,
                   .shape_guard = avg_pool_shape_guard,
                   .layout_guard = canonical_layout_guard,
                   .forward_tests = kTests,
                   .vjp_tests = kTests}},
  };
  return kTable;
}

}  // namespace nnplan::runtime::reference
