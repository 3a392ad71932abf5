// Reference kernel: max_pool_indices (ONNX MaxPool's second output, Indices). For each window of
// the max pool over the last spatial_rank axes of X (each axis padded by `padding` before and
// `padding_after` after, taps `dilation` apart), the index in X of the window's largest element:
// the taps are visited in row-major order over the kernel, padding skipped, and the tap chosen is
// the one max_pool's value is (reference/pooling.cpp): the first NaN if any, else the first of
// the window's maxima. The index counts
// X's leading axes row-major and its spatial axes row-major (storage_order 0) or column-major
// (storage_order 1), as ONNX Runtime does; a window of padding only gives -1. Indices have no
// gradient (the op's VJP mode is none).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "runtime/providers/reference/reference_handlers.hpp"
#include "runtime/providers/reference/row_major.hpp"

namespace nnplan::runtime::reference {
namespace {

void max_pool_indices_forward(const KernelCall& call) {
  const auto& p = std::get<ir::MaxPoolIndicesParams>(call.node.params);
  const ir::Shape& xs = *call.inputs[0].shape;
  const ir::Shape& ys = call.node.shape;
  const std::size_t r = p.spatial_rank;
  const std::size_t first = xs.rank() - r;
  const std::size_t outer = extent_product(xs, 0, first);
  const std::size_t in_block = extent_product(xs, first, xs.rank());
  const std::size_t out_block = extent_product(ys, first, ys.rank());
  const float* x = call.inputs[0].data<float>();
  std::int64_t* y = call.output.data<std::int64_t>();
  if (out_block == 0) return;
  // Row-major and column-major strides of the spatial block.
  std::vector<std::size_t> row(r, 1), column(r, 1);
  for (std::size_t i = r; i-- > 1;)
    row[i - 1] = row[i] * static_cast<std::size_t>(xs.dims[first + i]);
  for (std::size_t i = 1; i < r; ++i)
    column[i] = column[i - 1] * static_cast<std::size_t>(xs.dims[first + i - 1]);
  std::vector<std::size_t> pos(r, 0), tap(r, 0), best(r, 0);
  for (std::size_t n = 0; n < outer; ++n) {
    const float* block = x + n * in_block;
    std::fill(pos.begin(), pos.end(), 0);
    for (std::size_t o = 0; o < out_block; ++o) {
      bool found = false;
      float best_value = 0;
      std::fill(tap.begin(), tap.end(), 0);
      while (true) {
        // The tap's coordinates; padding is skipped.
        bool inside = true;
        std::size_t flat = 0;
        for (std::size_t i = 0; i < r && inside; ++i) {
          const std::int64_t c =
              static_cast<std::int64_t>(pos[i] * p.stride[i] + tap[i] * p.dilation[i]) -
              static_cast<std::int64_t>(p.padding[i]);
          inside = c >= 0 && c < static_cast<std::int64_t>(xs.dims[first + i]);
          flat += static_cast<std::size_t>(c) * row[i];
        }
        const float v = inside ? block[flat] : 0.0F;
        if (inside && (!found || (!std::isnan(best_value) && (std::isnan(v) || v > best_value)))) {
          found = true;
          best_value = v;
          for (std::size_t i = 0; i < r; ++i)
            best[i] = pos[i] * p.stride[i] + tap[i] * p.dilation[i] - p.padding[i];
        }
        std::size_t a = r;
        while (a > 0 && ++tap[a - 1] == p.kernel[a - 1]) {
          tap[a - 1] = 0;
          --a;
        }
        if (a == 0) break;
      }
      std::int64_t index = -1;
      if (found) {
        std::size_t at = 0;
        for (std::size_t i = 0; i < r; ++i)
          at += best[i] * (p.storage_order == 0 ? row[i] : column[i]);
        index = static_cast<std::int64_t>(n * in_block + at);
      }
      y[n * out_block + o] = index;
      for (std::size_t a = r; a-- > 0;) {
        if (++pos[a] < ys.dims[first + a]) break;
        pos[a] = 0;
      }
    }
  }
}

Expected<void> max_pool_indices_guard(const KernelCall& call) {
  return ir_shape_guard(call, backend::BackendOp::max_pool_indices);
}

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/max_pool_indices_test.cpp"};

constexpr ReferenceHandler kHandlers[] = {
    {backend::BackendOp::max_pool_indices,
     {.symbol = "nnplan::runtime::reference::max_pool_indices_forward",
      .forward = max_pool_indices_forward,
      .vjp = nullptr,
      .shape_guard = max_pool_indices_guard,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
};

}  // namespace

std::span<const ReferenceHandler> max_pool_indices_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::reference
