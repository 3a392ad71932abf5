// IsNaN and IsInf of float32 values, exactly, as comparisons (bool results):
//   IsNaN: not(x == x), NaN being the only value unequal to itself;
//   IsInf: x == +inf (detect_positive, default 1) or x == -inf (detect_negative, default 1); with
//   neither, false everywhere (x == +inf and x == -inf both left out: a constant false where).
#include <limits>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_is_nan(ImportContext& cx) {
  cx.allow_attrs({});
  cx.require_inputs(1, 1);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  cx.define(cx.out_name(0), cx.add(OpKind::not_, {cx.add(OpKind::equal, {x, x}, {}, xs)}));
}

void import_is_inf(ImportContext& cx) {
  cx.allow_attrs({"detect_positive", "detect_negative"});
  cx.require_inputs(1, 1);
  const std::int64_t positive = cx.attr_int("detect_positive", 1);
  const std::int64_t negative = cx.attr_int("detect_negative", 1);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (positive == 0 && negative == 0) {
    // x < x is false for every x, NaN included: a bool of x's shape with no true element.
    cx.define(cx.out_name(0), cx.add(OpKind::less, {x, x}, {}, xs));
    return;
  }
  std::optional<NodeId> y;
  if (positive != 0) y = cx.add(OpKind::equal, {x, cx.float_scalar(kInf)}, {}, xs);
  if (negative != 0) {
    const NodeId n = cx.add(OpKind::equal, {x, cx.float_scalar(-kInf)}, {}, xs);
    y = y ? cx.add(OpKind::or_, {*y, n}, {}, xs) : n;
  }
  cx.define(cx.out_name(0), *y);
}

}  // namespace nnplan::format::onnx_import
