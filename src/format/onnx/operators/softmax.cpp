// Softmax and LogSoftmax (softmax / log_softmax): from opset 13 over one axis (default the last);
// before opset 13 over the input flattened to 2-D at `axis` (default 1), which is one op on the
// last axis when `axis` is the last, else a reshape, the op over the rows and a reshape back (the
// same values: each row of the 2-D view is one row of the op).
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

// The input, checked to be no scalar.
NodeId softmax_input(ImportContext& cx) {
  cx.allow_attrs({"axis"});
  cx.require_inputs(1, 1);
  const NodeId x = cx.tensor(cx.in_name(0));
  if (cx.shape_of(x).rank() == 0) cx.fail("input is a scalar");
  return x;
}

// `kind` is softmax or log_softmax.
void over_axis(ImportContext& cx, OpKind kind) {
  const NodeId x = softmax_input(cx);
  const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", -1), cx.shape_of(x).rank());
  cx.define(cx.out_name(0), cx.add(kind, {x}, ir::AxisParams{.axis = axis}));
}

void over_2d_view(ImportContext& cx, OpKind kind) {
  const NodeId x = softmax_input(cx);
  const Shape xs = cx.shape_of(x);
  const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", 1), xs.rank());
  if (axis + 1 == xs.rank()) {
    cx.define(cx.out_name(0), cx.add(kind, {x}, ir::AxisParams{.axis = axis}));
    return;
  }
  Dim rows = 1;
  Dim cols = 1;
  for (std::size_t i = 0; i < xs.rank(); ++i)
    (i < axis ? rows : cols) *= xs.dims[i];
  const NodeId flat = cx.reshape(x, Shape{{rows, cols}});
  const NodeId s = cx.add(kind, {flat}, ir::AxisParams{.axis = 1});
  cx.define(cx.out_name(0), cx.reshape(s, xs));
}

}  // namespace

void import_softmax_13(ImportContext& cx) {
  over_axis(cx, OpKind::softmax);
}

void import_softmax_1(ImportContext& cx) {
  over_2d_view(cx, OpKind::softmax);
}

void import_log_softmax_13(ImportContext& cx) {
  over_axis(cx, OpKind::log_softmax);
}

void import_log_softmax_1(ImportContext& cx) {
  over_2d_view(cx, OpKind::log_softmax);
}

}  // namespace nnplan::format::onnx_import
