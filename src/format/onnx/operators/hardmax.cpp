// Hardmax: 1 at the first largest element along the axis, 0 elsewhere, exactly: the argmax along
// the axis (kept as an extent-1 axis) compared with the constant int64 positions 0..n-1 along it
// (`equal`, broadcast inside the kernel), cast to float32. From opset 13 the axis is any axis
// (default -1); before, the input is coerced to 2-D at `axis` (default 1), hardmax runs over the
// flattened trailing axes, and the result is reshaped back.
#include <vector>

#include "../constant_folding.hpp"
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

// Hardmax of x along `axis`.
NodeId hardmax_along(ImportContext& cx, NodeId x, std::uint32_t axis) {
  Shape kept = cx.shape_of(x);
  const Dim n = kept.dims[axis];
  if (n == 0) return x;  // nothing to pick: the empty input itself
  if (n > kMaxFoldedElements) {
    cx.unsupported("an axis of " + str(n) + " needs a position table of that many entries; " +
                   "supported: up to " + str(kMaxFoldedElements));
  }
  const NodeId first = cx.add(OpKind::argmax, {x}, ir::AxisParams{.axis = axis});
  kept.dims[axis] = 1;
  Shape positions(ir::Dims(kept.rank(), 1));
  positions.dims[axis] = n;
  const NodeId table = cx.int64_range(positions, 0, 1);
  const NodeId hit = cx.add(OpKind::equal, {cx.reshape(first, kept), table}, {}, cx.shape_of(x));
  return cx.add(OpKind::cast, {hit}, {}, {}, {}, ir::DType::float32);
}

}  // namespace

void import_hardmax(ImportContext& cx) {
  cx.allow_attrs({"axis"});
  cx.require_inputs(1, 1);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  if (xs.rank() == 0) cx.fail("input " + quoted_name(cx.in_name(0)) + " is a scalar");
  if (cx.opset() >= 13) {
    const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", -1), xs.rank());
    cx.define(cx.out_name(0), hardmax_along(cx, x, axis));
    return;
  }
  const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", 1), xs.rank(), true);
  Dim outer = 1;
  Dim inner = 1;
  for (std::size_t a = 0; a < xs.rank(); ++a)
    (a < axis ? outer : inner) *= xs.dims[a];
  const NodeId flat = cx.reshape(x, Shape{{outer, inner}});
  cx.define(cx.out_name(0), cx.reshape(hardmax_along(cx, flat, 1), xs));
}

}  // namespace nnplan::format::onnx_import
