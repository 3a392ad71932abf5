// Tile: the input repeated `repeats[i]` times along each axis i (a constant int64 input, one
// non-negative entry per axis), as data movement only: a reshape that puts an extent-1 axis before
// each axis, a broadcast_to that stretches each of those to its repeat count, and a reshape that
// merges each pair (r, d) into r * d. float32 values (broadcast_to takes float32).
#include "../import_context.hpp"
#include "../operators.hpp"
#include "nnplan/format/limits.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::Shape;

void import_tile_1(ImportContext& cx) {
  cx.unsupported(
      "Tile before opset 6 (the tiles and axis inputs) is not supported; supported: "
      "opset 6 and later (one repeats input)");
}

void import_tile(ImportContext& cx) {
  cx.allow_attrs({});
  cx.require_inputs(2, 2);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  const std::vector<std::int64_t> repeats = cx.int_constant(cx.in_name(1), "repeats");
  if (repeats.size() != xs.rank()) {
    cx.fail("repeats " + quoted_name(cx.in_name(1)) + " has " + str(Dim{repeats.size()}) +
            " entries; input " + to_string(xs) + " needs one per axis");
  }
  Shape spread;
  Shape stretched;
  Shape out;
  for (std::size_t a = 0; a < xs.rank(); ++a) {
    const std::int64_t r = repeats[a];
    if (r < 0) cx.fail("repeats[" + str(Dim{a}) + "] is " + str(r) + "; repeats are >= 0");
    const auto total = ir::checked_mul(static_cast<Dim>(r), xs.dims[a]);
    if (!total || *total > kMaxDim) {
      cx.fail("repeating axis " + str(Dim{a}) + " of " + to_string(xs) + " " + str(r) +
              " times exceeds the dimension limit " + str(kMaxDim) + " (2^48)");
    }
    spread.dims.push_back(1);
    spread.dims.push_back(xs.dims[a]);
    stretched.dims.push_back(static_cast<Dim>(r));
    stretched.dims.push_back(xs.dims[a]);
    out.dims.push_back(*total);
  }
  if (!ir::element_count(stretched)) {
    cx.fail("tiling " + to_string(xs) + " gives more elements than fit in 64 bits");
  }
  const NodeId t = cx.broadcast(cx.reshape(x, spread), stretched);
  cx.define(cx.out_name(0), cx.reshape(t, out));
}

}  // namespace nnplan::format::onnx_import
