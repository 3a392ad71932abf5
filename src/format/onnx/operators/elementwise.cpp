// Element-wise operators: one IR node per unary operator; binary operators with numpy
// broadcasting (broadcast_to nodes where the shapes differ), Div as a product with the inverse;
// Max and Min over one or more inputs, folded left pairwise.
#include <cmath>
#include <string>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;

void import_unary(ImportContext& cx, OpKind kind) {
  cx.allow_attrs({});
  cx.require_inputs(1, 1);
  cx.define(cx.out_name(0), cx.add(kind, {cx.tensor(cx.in_name(0))}));
}

void import_unary_with_alpha(ImportContext& cx, OpKind kind, float fallback) {
  // consumed_inputs is opset 1's legacy optimisation hint; it changes no value.
  cx.allow_attrs({"alpha", "consumed_inputs"});
  cx.require_inputs(1, 1);
  const float alpha = cx.attr_float("alpha", fallback);
  if (!std::isfinite(alpha)) {
    cx.unsupported("alpha is " + str(alpha) + "; supported: a finite number");
  }
  cx.define(cx.out_name(0),
            cx.add(kind, {cx.tensor(cx.in_name(0))}, ir::AlphaParams{.alpha = alpha}));
}

namespace {

void binary(ImportContext& cx, OpKind kind, bool divide) {
  cx.allow_attrs({});
  cx.require_inputs(2, 2);
  const NodeId a = cx.tensor(cx.in_name(0));
  const NodeId b = cx.tensor(cx.in_name(1));
  cx.define(cx.out_name(0), cx.combine(kind, a, b, divide));
}

}  // namespace

void import_binary(ImportContext& cx, OpKind kind) {
  binary(cx, kind, false);
}

void import_div(ImportContext& cx) {
  binary(cx, OpKind::mul_elem, true);
}

void import_variadic(ImportContext& cx, OpKind kind) {
  cx.allow_attrs({});
  const int n = cx.input_count();
  if (n < 1) cx.fail("has no inputs");
  if (n == 1) return cx.alias(cx.in_name(0), cx.out_name(0));
  NodeId acc = cx.tensor(cx.in_name(0));
  for (int i = 1; i < n; ++i)
    acc = cx.combine(kind, acc, cx.tensor(cx.in_name(i)), false);
  cx.define(cx.out_name(0), acc);
}

}  // namespace nnplan::format::onnx_import
