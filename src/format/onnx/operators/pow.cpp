// Pow with a constant scalar exponent (an initializer or a Constant output, float or integer), as
// the products and roots it stands for: 1 the identity, 2 mul_elem(x, x), 0.5 sqrt, -1 inv; any
// other exponent, or one that is not a constant, is refused. Pow(x, 3) is imported only where it
// starts a tanh-GELU pattern, as the gelu (operators/gelu.cpp): x*x*x rounds twice, so it may
// differ from a correctly rounded x^3 in the last place, and is not offered as Pow(x, 3).
//
// Exactness: x*x and 1/x are the correctly rounded x^2 and x^-1 that Pow computes. sqrt differs
// from pow(x, 0.5) only at -0 (sqrt gives -0, pow +0) and -inf (NaN against +inf).
#include <string>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_pow(ImportContext& cx) {
  cx.allow_attrs({});
  cx.require_inputs(2, 2);
  const std::string_view exponent_name = cx.in_name(1);
  ConstPtr e = cx.constant(exponent_name);
  if (e == nullptr) cx.fail_not_constant(exponent_name, "exponent Y");
  double exponent = 0;
  std::string shown;
  if (e->dtype == onnx::TensorProto_DataType_FLOAT) {
    const std::vector<float>& v = floats_of(*e);
    if (v.size() != 1) {
      cx.unsupported("exponent Y " + quoted_name(exponent_name) + " has " + str(v.size()) +
                     " elements; supported: a scalar");
    }
    exponent = v[0];
    shown = str(v[0]);
  } else if (e->dtype == onnx::TensorProto_DataType_INT64 ||
             e->dtype == onnx::TensorProto_DataType_INT32) {
    if (e->ints.size() != 1) {
      cx.unsupported("exponent Y " + quoted_name(exponent_name) + " has " + str(e->ints.size()) +
                     " elements; supported: a scalar");
    }
    exponent = static_cast<double>(e->ints[0]);
    shown = str(e->ints[0]);
  } else {
    cx.unsupported("exponent Y " + quoted_name(exponent_name) + " has data type " +
                   dtype_name(e->dtype) + "; supported: float32, int64, int32");
  }
  if (exponent == 3 && import_gelu_pattern(cx)) return;

  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape out = cx.broadcast_shapes(cx.shape_of(x), Shape{e->dims});
  NodeId y = x;
  if (exponent == 1) {
    if (out == cx.shape_of(x)) return cx.alias(cx.in_name(0), cx.out_name(0));
  } else if (exponent == 2) {
    y = cx.add(OpKind::mul_elem, {x, x});
  } else if (exponent == 0.5) {
    y = cx.add(OpKind::sqrt, {x});
  } else if (exponent == -1) {
    y = cx.add(OpKind::inv, {x});
  } else {
    cx.unsupported("exponent " + shown + " (" + quoted_name(exponent_name) +
                   ") is not supported; supported: 1, 2, 0.5, -1 (3 only inside the tanh GELU "
                   "pattern: x*x*x is not a correctly rounded cube)");
  }
  cx.define(cx.out_name(0), cx.broadcast(y, out));
}

}  // namespace nnplan::format::onnx_import
