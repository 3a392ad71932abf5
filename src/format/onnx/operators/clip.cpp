// Clip as a `clamp` node; HardSigmoid and HardSwish as `hard_sigmoid` and `hard_swish` nodes.
//
// Clip: its bounds are the attributes min and max before opset 11, and the optional constant
// scalar inputs min and max from opset 11 (torch writes them as Constant outputs); an absent bound,
// or an infinite one on its own side (-inf for min, +inf for max), is no bound. ReLU6 is Clip(x, 0,
// 6). A bound that is not a constant, NaN, infinite on the other side, or a min above the max
// (where ONNX makes every element the max) is refused.
//
// HardSigmoid(x) = max(0, min(1, alpha*x + beta)) (alpha 0.2, beta 0.5 by default) is the
// extension kind hard_sigmoid with those two fields; HardSwish(x) = x * HardSigmoid(x) with alpha
// 1/6 (the float 0.16666667, as ONNX's function body writes it) and beta 0.5 is hard_swish. The
// kinds' float operations are ONNX's as written (alpha*x rounded, then + beta rounded, the bounds,
// the product); PyTorch's x * relu6(x + 3) / 6 rounds differently and is not what ONNX defines.
#include <cmath>
#include <optional>
#include <string>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

// Bound `value` named `role` as a clamp bound: nullopt for the infinity that bounds nothing.
std::optional<float> bound(const ImportContext& cx, float value, std::string_view role) {
  const bool is_min = role == "min";
  if (std::isnan(value)) cx.unsupported(std::string(role) + " is NaN; supported: a number");
  if (std::isinf(value)) {
    if ((value < 0) == is_min) return std::nullopt;
    cx.unsupported(std::string(role) + " is " + (value < 0 ? "-inf" : "+inf") +
                   ", which leaves no value in range; supported: a finite bound");
  }
  return value;
}

// Clip's bound input `i` (opset 11 on), absent when the input is.
std::optional<float> bound_input(ImportContext& cx, int i, std::string_view role) {
  if (!cx.has_in(i)) return std::nullopt;
  const std::string_view name = cx.in_name(i);
  ConstPtr c = cx.float_constant(name, role);
  const std::vector<float>& v = floats_of(*c);
  if (v.size() != 1) {
    cx.fail(std::string(role) + " " + quoted_name(name) + " has " + str(v.size()) +
            " elements; Clip's bounds are scalars");
  }
  return bound(cx, v[0], role);
}

void clamp(ImportContext& cx, std::optional<float> min, std::optional<float> max) {
  if (min && max && *min > *max) {
    cx.unsupported("min " + str(*min) + " is above max " + str(*max) +
                   "; supported: min at most max");
  }
  cx.define(cx.out_name(0), cx.add(OpKind::clamp, {cx.tensor(cx.in_name(0))},
                                   ir::ClampParams{.min = min, .max = max}));
}

}  // namespace

NodeId hard_sigmoid(ImportContext& cx, NodeId x, float alpha, float beta) {
  return cx.add(OpKind::hard_sigmoid, {x}, ir::HardSigmoidParams{.alpha = alpha, .beta = beta});
}

void import_clip_1(ImportContext& cx) {
  cx.allow_attrs({"min", "max", "consumed_inputs"});
  cx.require_inputs(1, 1);
  std::optional<float> min;
  std::optional<float> max;
  if (cx.attr("min") != nullptr) min = bound(cx, cx.attr_float("min", 0), "min");
  if (cx.attr("max") != nullptr) max = bound(cx, cx.attr_float("max", 0), "max");
  clamp(cx, min, max);
}

void import_clip_11(ImportContext& cx) {
  cx.allow_attrs({});
  cx.require_inputs(1, 3);
  const std::optional<float> min = bound_input(cx, 1, "min");
  const std::optional<float> max = bound_input(cx, 2, "max");
  clamp(cx, min, max);
}

void import_hard_sigmoid(ImportContext& cx) {
  cx.allow_attrs({"alpha", "beta", "consumed_inputs"});
  cx.require_inputs(1, 1);
  const float alpha = cx.attr_float("alpha", 0.2F);
  const float beta = cx.attr_float("beta", 0.5F);
  cx.define(cx.out_name(0), hard_sigmoid(cx, cx.tensor(cx.in_name(0)), alpha, beta));
}

void import_hard_swish(ImportContext& cx) {
  cx.allow_attrs({});
  cx.require_inputs(1, 1);
  cx.define(cx.out_name(0), cx.add(OpKind::hard_swish, {cx.tensor(cx.in_name(0))}));
}

}  // namespace nnplan::format::onnx_import
