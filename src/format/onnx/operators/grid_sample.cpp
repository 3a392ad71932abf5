// GridSample (opset 16; 20 renames the modes `linear` and `cubic` and allows more spatial axes,
// of which the 2-D form is taken): one `grid_sample` node over X [N, C, H, W] and grid
// [N, H_out, W_out, 2], with mode, padding_mode and align_corners as ONNX defines them.
#include <string>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_grid_sample(ImportContext& cx) {
  cx.allow_attrs({"align_corners", "mode", "padding_mode"});
  cx.require_inputs(2, 2);
  const NodeId x = cx.float_value(cx.in_name(0), "input X");
  const NodeId grid = cx.float_value(cx.in_name(1), "grid");
  const Shape xs = cx.shape_of(x);
  const Shape gs = cx.shape_of(grid);
  if (xs.rank() != 4) {
    cx.unsupported("input X " + quoted_name(cx.in_name(0)) + " has shape " + to_string(xs) +
                   "; supported: [N, C, H, W] (two spatial axes)");
  }
  if (gs.rank() != 4 || gs.dims[0] != xs.dims[0] || gs.dims[3] != 2) {
    cx.fail("grid " + quoted_name(cx.in_name(1)) + " has shape " + to_string(gs) + "; it is [" +
            str(xs.dims[0]) + ", H_out, W_out, 2] for X " + to_string(xs));
  }
  ir::GridSampleParams p;
  const std::string mode = cx.attr_string("mode", cx.opset() >= 20 ? "linear" : "bilinear");
  const bool renamed = cx.opset() >= 20;
  if (mode == (renamed ? "linear" : "bilinear")) {
    p.mode = ir::SampleMode::linear;
  } else if (mode == "nearest") {
    p.mode = ir::SampleMode::nearest;
  } else if (mode == (renamed ? "cubic" : "bicubic")) {
    p.mode = ir::SampleMode::cubic;
  } else {
    cx.fail_attr("mode", "'" + mode + "'",
                 renamed ? "linear, nearest, cubic" : "bilinear, nearest, bicubic");
  }
  const std::string padding = cx.attr_string("padding_mode", "zeros");
  if (padding == "zeros") {
    p.padding_mode = ir::GridSamplePadding::zeros;
  } else if (padding == "border") {
    p.padding_mode = ir::GridSamplePadding::border;
  } else if (padding == "reflection") {
    p.padding_mode = ir::GridSamplePadding::reflection;
  } else {
    cx.fail_attr("padding_mode", "'" + padding + "'", "zeros, border, reflection");
  }
  const std::int64_t align = cx.attr_int("align_corners", 0);
  if (align != 0 && align != 1) cx.fail_attr("align_corners", str(align), "0 or 1");
  p.align_corners = align == 1;
  cx.define(cx.out_name(0), cx.add(OpKind::grid_sample, {x, grid}, p,
                                   Shape{{xs.dims[0], xs.dims[1], gs.dims[1], gs.dims[2]}}));
}

}  // namespace nnplan::format::onnx_import
