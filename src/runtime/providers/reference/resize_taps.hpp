// The interpolation taps of one axis of a resize (ONNX's Resize), computed by the reference
// kernel's file (resize.cpp, which documents the formulas) and read by every provider that runs
// resize, so that the coordinate mapping and the weights have one home.
#pragma once

#include <cstddef>
#include <vector>

#include "nnplan/ir/graph.hpp"

namespace nnplan::runtime::reference {

// For output index o, `count` input indices (clamped into the axis) and their weights, from
// o * count; `identity` when every output index reads its own input index with weight 1 (the
// axis is then one tap of weight 1 per index).
struct ResizeAxisTaps {
  std::size_t count = 1;
  std::vector<std::size_t> index;
  std::vector<double> weight;
  bool identity = false;
};

// The taps of axis `axis` of a resize with parameters `p` from `in` to `out` elements (`in` at
// least 1).
[[nodiscard]] ResizeAxisTaps resize_axis_taps(const ir::ResizeParams& p, std::size_t axis,
                                              ir::Dim in, ir::Dim out);

}  // namespace nnplan::runtime::reference
