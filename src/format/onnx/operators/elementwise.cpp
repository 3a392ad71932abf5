// Element-wise operators: one IR node per unary operator; binary operators with numpy
// broadcasting (broadcast_to nodes where the shapes differ), Div as a product with the inverse;
// Max, Min and Sum over one or more inputs, folded left pairwise (Max and Min of int64 values as
// a comparison and a where); Mean a scaled Sum; Selu a
// scaled Elu.
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

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

namespace {

// The inputs folded left pairwise by `kind`, broadcast; one input is defined as the output
// itself (and none is returned).
std::optional<NodeId> fold_inputs(ImportContext& cx, OpKind kind) {
  cx.allow_attrs({});
  const int n = cx.input_count();
  if (n < 1) cx.fail("has no inputs");
  if (n == 1) {
    cx.alias(cx.in_name(0), cx.out_name(0));
    return std::nullopt;
  }
  NodeId acc = cx.tensor(cx.in_name(0));
  for (int i = 1; i < n; ++i) {
    const NodeId next = cx.tensor(cx.in_name(i));
    const bool extreme = kind == OpKind::max_elem || kind == OpKind::min_elem;
    if (extreme && cx.ir_node(acc).dtype == ir::DType::int64 &&
        cx.ir_node(next).dtype == ir::DType::int64) {
      // Max and Min of int64 values: the larger (smaller) of each pair chosen by a comparison,
      // exactly (max_elem and min_elem take float32); the operands broadcast in the kernels.
      const Shape out = cx.broadcast_shapes(cx.shape_of(acc), cx.shape_of(next));
      const OpKind beats = kind == OpKind::max_elem ? OpKind::greater : OpKind::less;
      const NodeId takes_next = cx.add(beats, {next, acc}, {}, out);
      acc = cx.add(OpKind::where, {takes_next, next, acc}, {}, out);
      continue;
    }
    acc = cx.combine(kind, acc, next, false);
  }
  return acc;
}

}  // namespace

void import_variadic(ImportContext& cx, OpKind kind) {
  if (const auto acc = fold_inputs(cx, kind)) cx.define(cx.out_name(0), *acc);
}

// Mean: the Sum of the inputs (pairwise, broadcast), scaled by 1/n (the float nearest 1/n).
void import_mean(ImportContext& cx) {
  if (const auto sum = fold_inputs(cx, OpKind::add)) {
    const auto n = static_cast<float>(cx.input_count());
    cx.define(cx.out_name(0), cx.add(OpKind::scale, {*sum}, ir::ScaleParams{.factor = 1.0F / n}));
  }
}

// Selu: gamma * elu(x) with elu's alpha the Selu's alpha, as ONNX defines it piecewise
// (gamma * x above 0, gamma * alpha * (exp(x) - 1) at and below it).
void import_selu(ImportContext& cx) {
  cx.allow_attrs({"alpha", "gamma", "consumed_inputs"});
  cx.require_inputs(1, 1);
  const float alpha = cx.attr_float("alpha", 1.67326319217681884765625F);
  const float gamma = cx.attr_float("gamma", 1.05070102214813232421875F);
  for (const auto& [name, v] : {std::pair{"alpha", alpha}, std::pair{"gamma", gamma}}) {
    if (!std::isfinite(v))
      cx.unsupported(std::string(name) + " is " + str(v) + "; supported: a finite number");
  }
  const NodeId elu =
      cx.add(OpKind::elu, {cx.tensor(cx.in_name(0))}, ir::AlphaParams{.alpha = alpha});
  cx.define(cx.out_name(0), cx.add(OpKind::scale, {elu}, ir::ScaleParams{.factor = gamma}));
}

// PRelu: relu(x) + slope * min(x, 0), min(x, 0) written -relu(-x); slope broadcast to x's shape
// (ONNX's unidirectional broadcasting). Exact: above 0 the sum is x + 0, below it 0 + slope * x,
// rounded once.
void import_prelu(ImportContext& cx) {
  cx.allow_attrs({"consumed_inputs"});
  cx.require_inputs(2, 2);
  const NodeId x = cx.tensor(cx.in_name(0));
  const ir::Shape xs = cx.shape_of(x);
  const NodeId slope = cx.tensor(cx.in_name(1));
  if (cx.broadcast_shapes(cx.shape_of(slope), xs) != xs) {
    cx.fail("slope " + quoted_name(cx.in_name(1)) + " has shape " + to_string(cx.shape_of(slope)) +
            ", which does not broadcast to X's shape " + to_string(xs));
  }
  const ir::OpParams negate = ir::ScaleParams{.factor = -1.0F};
  const NodeId below =
      cx.add(OpKind::scale, {cx.add(OpKind::relu, {cx.add(OpKind::scale, {x}, negate)})}, negate);
  const NodeId sloped = cx.add(OpKind::mul_elem, {below, cx.broadcast(slope, xs)});
  cx.define(cx.out_name(0), cx.add(OpKind::add, {cx.add(OpKind::relu, {x}), sloped}));
}

}  // namespace nnplan::format::onnx_import
