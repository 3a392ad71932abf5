// ThresholdedRelu and Shrink, exactly as ONNX defines them, as `where` nodes over comparisons of
// the input with constant scalars (the operands broadcast inside the kernels):
//   ThresholdedRelu: x where x > alpha (default 1), else 0;
//   Shrink: x - bias where x > lambd, x + bias where x < -lambd, else 0 (bias default 0, lambd
//   default 0.5).
// NaN compares false, so it becomes 0, as in ONNX's reference. The gradient reaches x where it is
// kept.
#include <cmath>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

float finite_attr(ImportContext& cx, std::string_view name, float fallback) {
  const float v = cx.attr_float(name, fallback);
  if (!std::isfinite(v)) {
    cx.unsupported(std::string(name) + " is " + str(v) + "; supported: a finite number");
  }
  return v;
}

}  // namespace

void import_thresholded_relu(ImportContext& cx) {
  cx.allow_attrs({"alpha"});
  cx.require_inputs(1, 1);
  const float alpha = finite_attr(cx, "alpha", 1.0F);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  const NodeId kept = cx.add(OpKind::greater, {x, cx.float_scalar(alpha)}, {}, xs);
  cx.define(cx.out_name(0), cx.add(OpKind::where, {kept, x, cx.float_scalar(0.0F)}, {}, xs));
}

void import_shrink(ImportContext& cx) {
  cx.allow_attrs({"bias", "lambd"});
  cx.require_inputs(1, 1);
  const float bias = finite_attr(cx, "bias", 0.0F);
  const float lambd = finite_attr(cx, "lambd", 0.5F);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  const NodeId above = cx.add(OpKind::greater, {x, cx.float_scalar(lambd)}, {}, xs);
  const NodeId below = cx.add(OpKind::less, {x, cx.float_scalar(-lambd)}, {}, xs);
  const NodeId b = cx.broadcast(cx.float_scalar(bias), xs);
  const NodeId lower =
      cx.add(OpKind::where, {below, cx.add(OpKind::add, {x, b}), cx.float_scalar(0.0F)}, {}, xs);
  cx.define(cx.out_name(0),
            cx.add(OpKind::where, {above, cx.add(OpKind::sub, {x, b}), lower}, {}, xs));
}

}  // namespace nnplan::format::onnx_import
