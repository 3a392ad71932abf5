// The Reduce operators: one single-axis reduction per axis (axes from the input or the attribute;
// none: every axis, or the identity with noop_with_empty_axes), highest axis first so that the
// remaining axis numbers stay valid, then a reshape back to the kept dims with keepdims.
// ReduceSum, ReduceMean, ReduceMax, ReduceMin and ReduceProd are chains of their own kind (sums and
// means of equal-sized groups, maxima and minima compose exactly; a product's roundings follow the
// chain's order). The others are what ONNX defines them as, over reduce_sum: ReduceSumSquare sums
// x * x, ReduceL1 sums |x|, ReduceL2 is the sqrt of the sum of squares, ReduceLogSum the log of the
// sum; ReduceLogSumExp shifts by the maximum first, log(sum(exp(x - m))) + m, so that large inputs
// do not overflow (m clamped to the finite range, which keeps an all -inf or a +inf slice exact).
// ArgMax and ArgMin: one argmax (argmin) node over their axis, int64 indices of the first extreme,
// reshaped back with keepdims; with select_last_index, the first extreme of the input reversed
// along the axis, mapped back to the original index (arg_reduce).
// MeanVarianceNormalization: ONNX's function body over the same chains, (x - E[x]) /
// (sqrt(E[x^2] - E[x]^2) + 1e-9), the means reduce_mean chains over `axes` (default 0, 2, 3).
#include <algorithm>
#include <limits>
#include <optional>
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

// What a Reduce node asks for: the input, its axes normalized and sorted highest first, and
// whether the reduced axes stay as 1s. `noop`: empty axes with noop_with_empty_axes.
struct Reduction {
  NodeId x = 0;
  Shape in;
  std::vector<std::uint32_t> axes;
  bool keepdims = true;
  bool noop = false;
};

// `axes` normalized against `rank`, highest first; a repeated axis fails.
std::vector<std::uint32_t> reduced_axes(ImportContext& cx, const std::vector<std::int64_t>& axes,
                                        std::size_t rank) {
  std::vector<std::uint32_t> out;
  for (const std::int64_t a : axes) {
    const std::uint32_t n = cx.norm_axis(a, rank);
    if (std::find(out.begin(), out.end(), n) != out.end()) {
      cx.fail("axes " + list_string(axes) + " repeat axis " + str(n));
    }
    out.push_back(n);
  }
  std::sort(out.rbegin(), out.rend());
  return out;
}

Reduction read_reduction(ImportContext& cx) {
  cx.allow_attrs({"axes", "keepdims", "noop_with_empty_axes"});
  cx.require_inputs(1, 2);
  Reduction r;
  r.x = cx.tensor(cx.in_name(0));
  r.in = cx.shape_of(r.x);
  r.keepdims = cx.attr_int("keepdims", 1) != 0;
  std::vector<std::int64_t> axes = cx.axes_operand(1);
  if (axes.empty()) {
    if (cx.attr_int("noop_with_empty_axes", 0) != 0) {
      r.noop = true;
      return r;
    }
    for (std::size_t i = 0; i < r.in.rank(); ++i)
      axes.push_back(static_cast<std::int64_t>(i));
  }
  r.axes = reduced_axes(cx, axes, r.in.rank());
  return r;
}

// `kind` over each of r's axes in turn, starting from `x` (of r's input shape).
NodeId chain(ImportContext& cx, OpKind kind, const Reduction& r, NodeId x) {
  for (const std::uint32_t a : r.axes)
    x = cx.add(kind, {x}, ir::AxisParams{.axis = a});
  return x;
}

// r's input shape with the reduced axes as 1s.
Shape kept_shape(const Reduction& r) {
  Shape kept = r.in;
  for (const std::uint32_t a : r.axes)
    kept.dims[a] = 1;
  return kept;
}

// Defines the node's output as `y` (the reduced axes removed), reshaped back with keepdims.
void finish(ImportContext& cx, const Reduction& r, NodeId y) {
  if (r.keepdims) y = cx.reshape(y, kept_shape(r));
  cx.define(cx.out_name(0), y);
}

// A chain of `kind`; with noop_with_empty_axes and no axes the input itself.
void reduce(ImportContext& cx, OpKind kind) {
  const Reduction r = read_reduction(cx);
  if (r.noop) {
    cx.alias(cx.in_name(0), cx.out_name(0));
    return;
  }
  finish(cx, r, chain(cx, kind, r, r.x));
}

// `before` applied to the input (identity with noop_with_empty_axes), summed over the axes,
// then `after` (none: the sum itself).
void reduce_sum_of(ImportContext& cx, std::optional<OpKind> before, std::optional<OpKind> after) {
  const Reduction r = read_reduction(cx);
  NodeId x = r.x;
  if (before == OpKind::mul_elem) {
    x = cx.add(OpKind::mul_elem, {x, x});
  } else if (before) {
    x = cx.add(*before, {x});
  }
  NodeId y = r.noop ? x : chain(cx, OpKind::reduce_sum, r, x);
  if (after) y = cx.add(*after, {y});
  if (r.noop) {
    cx.define(cx.out_name(0), y);
    return;
  }
  finish(cx, r, y);
}

}  // namespace

void import_reduce_mean(ImportContext& cx) {
  reduce(cx, OpKind::reduce_mean);
}

void import_reduce_sum(ImportContext& cx) {
  reduce(cx, OpKind::reduce_sum);
}

void import_reduce_max(ImportContext& cx) {
  reduce(cx, OpKind::reduce_max);
}

void import_reduce_min(ImportContext& cx) {
  reduce(cx, OpKind::reduce_min);
}

void import_reduce_prod(ImportContext& cx) {
  reduce(cx, OpKind::reduce_prod);
}

void import_reduce_sum_square(ImportContext& cx) {
  reduce_sum_of(cx, OpKind::mul_elem, std::nullopt);
}

void import_reduce_l1(ImportContext& cx) {
  reduce_sum_of(cx, OpKind::abs, std::nullopt);
}

void import_reduce_l2(ImportContext& cx) {
  reduce_sum_of(cx, OpKind::mul_elem, OpKind::sqrt);
}

void import_reduce_log_sum(ImportContext& cx) {
  reduce_sum_of(cx, std::nullopt, OpKind::log);
}

// log(sum(exp(x - m))) + m with m the maximum over the axes, clamped to the finite floats.
void import_reduce_log_sum_exp(ImportContext& cx) {
  const Reduction r = read_reduction(cx);
  if (r.noop) {
    // Over no axis each element is its own slice: log(exp(x)), as ONNX defines it.
    cx.define(cx.out_name(0), cx.add(OpKind::log, {cx.add(OpKind::exp, {r.x})}));
    return;
  }
  constexpr float kMax = std::numeric_limits<float>::max();
  const NodeId m = cx.add(OpKind::clamp, {chain(cx, OpKind::reduce_max, r, r.x)},
                          ir::ClampParams{.min = -kMax, .max = kMax});
  const NodeId shift = cx.broadcast(cx.reshape(m, kept_shape(r)), r.in);
  const NodeId e = cx.add(OpKind::exp, {cx.add(OpKind::sub, {r.x, shift})});
  const NodeId s = cx.add(OpKind::log, {chain(cx, OpKind::reduce_sum, r, e)});
  finish(cx, r, cx.add(OpKind::add, {s, m}));
}

void import_mean_variance_normalization(ImportContext& cx) {
  cx.allow_attrs({"axes"});
  cx.require_inputs(1, 1);
  Reduction r;
  r.x = cx.tensor(cx.in_name(0));
  r.in = cx.shape_of(r.x);
  if (cx.ir_node(r.x).dtype != ir::DType::float32) {
    cx.unsupported("input " + quoted_name(cx.in_name(0)) + " has dtype " +
                   std::string(ir::to_string(cx.ir_node(r.x).dtype)) + "; supported: float32");
  }
  const std::vector<std::int64_t> axes =
      cx.attr_ints("axes").value_or(std::vector<std::int64_t>{0, 2, 3});
  r.axes = reduced_axes(cx, axes, r.in.rank());
  const Shape kept = kept_shape(r);
  const NodeId mean = cx.reshape(chain(cx, OpKind::reduce_mean, r, r.x), kept);
  const NodeId squares = cx.add(OpKind::mul_elem, {r.x, r.x});
  const NodeId mean_of_squares = cx.reshape(chain(cx, OpKind::reduce_mean, r, squares), kept);
  const NodeId variance =
      cx.add(OpKind::sub, {mean_of_squares, cx.add(OpKind::mul_elem, {mean, mean})});
  const NodeId deviation =
      cx.combine(OpKind::add, cx.add(OpKind::sqrt, {variance}), cx.float_scalar(1e-9F), false);
  const NodeId centred = cx.combine(OpKind::sub, r.x, mean, false);
  cx.define(cx.out_name(0), cx.combine(OpKind::mul_elem, centred, deviation, true));
}

namespace {

void arg_reduce(ImportContext& cx, OpKind kind) {
  cx.allow_attrs({"axis", "keepdims", "select_last_index"});
  cx.require_inputs(1, 1);
  const NodeId x = cx.tensor(cx.in_name(0));
  Shape kept = cx.shape_of(x);
  const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", 0), kept.rank());
  const std::int64_t last = cx.attr_int("select_last_index", 0);
  if (last != 0 && last != 1) cx.fail_attr("select_last_index", str(last), "0 or 1");
  if (kept.dims[axis] == 0) cx.fail("axis " + str(axis) + " of " + to_string(kept) + " is empty");
  const Dim n = kept.dims[axis];
  NodeId y;
  if (last == 0 || n == 1) {
    y = cx.add(kind, {x}, ir::AxisParams{.axis = axis});
  } else if (n > kMaxFoldedElements) {
    cx.unsupported("select_last_index over an axis of " + str(n) + " needs an index table of " +
                   "that many entries; supported: up to " + str(kMaxFoldedElements));
  } else {
    // The last extreme is the first of x reversed along the axis (a gather of indices n-1..0),
    // at index n-1-r for that first's r: a gather_elements of the table [n-1, ..., 0] by the
    // flattened indices, reshaped back.
    std::vector<std::int64_t> reversed(n);
    for (Dim i = 0; i < n; ++i)
      reversed[i] = static_cast<std::int64_t>(n - 1 - i);
    const NodeId flipped = cx.add(OpKind::gather, {x}, ir::AxisParams{.axis = axis}, kept);
    const Shape table_shape{{n}};
    const NodeId table = cx.int64_range(table_shape, static_cast<std::int64_t>(n) - 1, -1);
    if (cx.keep_payloads()) {
      cx.set_payload(flipped, "indices", ir::WeightTensor::adopt(table_shape, std::move(reversed)));
    }
    const NodeId first = cx.add(kind, {flipped}, ir::AxisParams{.axis = axis});
    const Shape reduced = cx.shape_of(first);
    const Shape flat{{ir::element_count(reduced).value()}};
    const NodeId mapped = cx.add(OpKind::gather_elements, {table, cx.reshape(first, flat)},
                                 ir::AxisParams{.axis = 0}, flat);
    y = cx.reshape(mapped, reduced);
  }
  kept.dims[axis] = 1;
  if (cx.attr_int("keepdims", 1) != 0) y = cx.reshape(y, kept);
  cx.define(cx.out_name(0), y);
}

}  // namespace

void import_arg_max(ImportContext& cx) {
  arg_reduce(cx, OpKind::argmax);
}

void import_arg_min(ImportContext& cx) {
  arg_reduce(cx, OpKind::argmin);
}

}  // namespace nnplan::format::onnx_import
