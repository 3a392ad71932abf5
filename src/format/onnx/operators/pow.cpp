// Pow with a constant scalar exponent (an initializer or a Constant output, float or integer) of
// 1, 2, 0.5 or -1, as the products and roots it stands for: 1 the identity, 2 mul_elem(x, x), 0.5
// sqrt, -1 inv. Pow(x, 3) that starts a tanh-GELU pattern is the gelu (operators/gelu.cpp). Any
// other exponent, a tensor or a value computed at run time included, is one `pow` node over the
// broadcast operands (std::pow in float32).
//
// Exactness: x*x and 1/x are the correctly rounded x^2 and x^-1 that Pow computes. sqrt differs
// from pow(x, 0.5) only at -0 (sqrt gives -0, pow +0) and -inf (NaN against +inf).
#include <optional>
#include <string>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

// Pow over operands of any shape and exponent: one `pow` node over both, broadcast; an int64
// exponent is cast to float32 first (exact up to 2^24 in magnitude).
void import_general_pow(ImportContext& cx) {
  const NodeId x = cx.tensor(cx.in_name(0));
  NodeId e = cx.tensor(cx.in_name(1));
  if (cx.ir_node(e).dtype == ir::DType::int64) {
    e = cx.add(OpKind::cast, {e}, {}, {}, {}, ir::DType::float32);
  }
  cx.define(cx.out_name(0), cx.combine(OpKind::pow, x, e, false));
}

}  // namespace

void import_pow(ImportContext& cx) {
  cx.allow_attrs({});
  cx.require_inputs(2, 2);
  const std::string_view exponent_name = cx.in_name(1);
  const ConstPtr e = cx.constant(exponent_name);
  // A constant scalar exponent of 1, 2, 0.5 or -1 is an exact cheaper op (and 3 may close a tanh
  // GELU); any other exponent is a pow node.
  std::optional<double> exponent;
  if (e != nullptr && !e->external && e->dtype == onnx::TensorProto_DataType_FLOAT) {
    const std::vector<float>& v = floats_of(*e);
    if (v.size() == 1) exponent = v[0];
  } else if (e != nullptr && (e->dtype == onnx::TensorProto_DataType_INT64 ||
                              e->dtype == onnx::TensorProto_DataType_INT32)) {
    if (e->ints.size() == 1) exponent = static_cast<double>(e->ints[0]);
  }
  if (exponent == 3 && import_gelu_pattern(cx)) return;
  if (exponent != 1 && exponent != 2 && exponent != 0.5 && exponent != -1) {
    return import_general_pow(cx);
  }
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape out = cx.broadcast_shapes(cx.shape_of(x), Shape{e->dims});
  NodeId y = x;
  if (exponent == 1) {
    if (out == cx.shape_of(x)) return cx.alias(cx.in_name(0), cx.out_name(0));
  } else if (exponent == 2) {
    y = cx.add(OpKind::mul_elem, {x, x});
  } else if (exponent == 0.5) {
    y = cx.add(OpKind::sqrt, {x});
  } else {
    y = cx.add(OpKind::inv, {x});
  }
  cx.define(cx.out_name(0), cx.broadcast(y, out));
}

}  // namespace nnplan::format::onnx_import
