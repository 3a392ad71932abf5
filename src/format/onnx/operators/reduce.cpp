// ReduceSum and ReduceMean: one single-axis reduction per axis (axes from the input or the
// attribute; none: every axis, or the identity with noop_with_empty_axes), highest axis first so
// that the remaining axis numbers stay valid, then a reshape back to the kept dims with keepdims.
// Sums and means of equal-sized groups compose exactly.
#include <algorithm>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

void reduce(ImportContext& cx, OpKind kind) {
  cx.allow_attrs({"axes", "keepdims", "noop_with_empty_axes"});
  cx.require_inputs(1, 2);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  std::vector<std::int64_t> axes = cx.axes_operand(1);
  if (axes.empty()) {
    if (cx.attr_int("noop_with_empty_axes", 0) != 0) {
      cx.alias(cx.in_name(0), cx.out_name(0));
      return;
    }
    for (std::size_t i = 0; i < xs.rank(); ++i)
      axes.push_back(static_cast<std::int64_t>(i));
  }
  std::vector<std::uint32_t> norm;
  for (const std::int64_t a : axes) {
    const std::uint32_t n = cx.norm_axis(a, xs.rank());
    if (std::find(norm.begin(), norm.end(), n) != norm.end()) {
      cx.fail("axes " + list_string(axes) + " repeat axis " + str(n));
    }
    norm.push_back(n);
  }
  std::sort(norm.rbegin(), norm.rend());
  NodeId y = x;
  Shape kept = xs;
  for (const std::uint32_t a : norm) {
    y = cx.add(kind, {y}, ir::AxisParams{.axis = a});
    kept.dims[a] = 1;
  }
  if (cx.attr_int("keepdims", 1) != 0) y = cx.reshape(y, kept);
  cx.define(cx.out_name(0), y);
}

}  // namespace

void import_reduce_mean(ImportContext& cx) {
  reduce(cx, OpKind::reduce_mean);
}

void import_reduce_sum(ImportContext& cx) {
  reduce(cx, OpKind::reduce_sum);
}

}  // namespace nnplan::format::onnx_import
