// RoiAlign (opsets 10 and 16): one `roi_align` node over X [N, C, H, W], rois [R, 4] and int64
// batch_indices [R], making [R, C, output_height, output_width]. Opset 10 has no
// coordinate_transformation_mode and maps as output_half_pixel (no half-pixel shift); opset 16's
// default is half_pixel.
#include <cmath>
#include <string>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_roi_align(ImportContext& cx) {
  const bool has_mapping = cx.opset() >= 16;
  if (has_mapping) {
    cx.allow_attrs({"coordinate_transformation_mode", "mode", "output_height", "output_width",
                    "sampling_ratio", "spatial_scale"});
  } else {
    cx.allow_attrs({"mode", "output_height", "output_width", "sampling_ratio", "spatial_scale"});
  }
  cx.require_inputs(3, 3);
  const NodeId x = cx.float_value(cx.in_name(0), "input X");
  const NodeId rois = cx.float_value(cx.in_name(1), "rois");
  const NodeId batch = cx.tensor(cx.in_name(2));
  const Shape xs = cx.shape_of(x);
  const Shape rs = cx.shape_of(rois);
  if (xs.rank() != 4) {
    cx.fail("input X " + quoted_name(cx.in_name(0)) + " has shape " + to_string(xs) +
            "; it is [N, C, H, W]");
  }
  if (rs.rank() != 2 || rs.dims[1] != 4) {
    cx.fail("rois " + quoted_name(cx.in_name(1)) + " has shape " + to_string(rs) +
            "; it is [num_rois, 4]");
  }
  if (cx.ir_node(batch).dtype != ir::DType::int64) {
    cx.fail("batch_indices " + quoted_name(cx.in_name(2)) + " has dtype " +
            std::string(ir::to_string(cx.ir_node(batch).dtype)) + "; it is int64");
  }
  if (cx.shape_of(batch) != Shape{{rs.dims[0]}}) {
    cx.fail("batch_indices " + quoted_name(cx.in_name(2)) + " has shape " +
            to_string(cx.shape_of(batch)) + "; it is [" + str(rs.dims[0]) + "], one per roi");
  }
  ir::RoiAlignParams p;
  const std::string mode = cx.attr_string("mode", "avg");
  if (mode == "avg") {
    p.mode = ir::SampleMode::avg;
  } else if (mode == "max") {
    p.mode = ir::SampleMode::max;
  } else {
    cx.fail_attr("mode", "'" + mode + "'", "avg, max");
  }
  const std::string mapping = has_mapping
                                  ? cx.attr_string("coordinate_transformation_mode", "half_pixel")
                                  : "output_half_pixel";
  if (mapping == "half_pixel") {
    p.coordinate_transformation_mode = ir::CoordinateTransformation::half_pixel;
  } else if (mapping == "output_half_pixel") {
    p.coordinate_transformation_mode = ir::CoordinateTransformation::output_half_pixel;
  } else {
    cx.fail_attr("coordinate_transformation_mode", "'" + mapping + "'",
                 "half_pixel, output_half_pixel");
  }
  const std::int64_t height = cx.attr_int("output_height", 1);
  const std::int64_t width = cx.attr_int("output_width", 1);
  if (height < 1 || width < 1) {
    cx.fail("attribute " + std::string(height < 1 ? "output_height" : "output_width") + " = " +
            str(height < 1 ? height : width) + " is not a positive integer");
  }
  if (height > (std::int64_t{1} << 24) || width > (std::int64_t{1} << 24)) {
    cx.unsupported("output_height " + str(height) + " x output_width " + str(width) +
                   " is not supported; supported: up to 2^24 each");
  }
  const std::int64_t ratio = cx.attr_int("sampling_ratio", 0);
  if (ratio < 0) {
    cx.fail("attribute sampling_ratio = " + str(ratio) +
            " is negative; it is 0 (adaptive) or a positive integer");
  }
  p.sampling_ratio = static_cast<std::uint64_t>(ratio);
  p.spatial_scale = cx.attr_float("spatial_scale", 1.0F);
  if (!(p.spatial_scale > 0) || !std::isfinite(p.spatial_scale)) {
    cx.fail("attribute spatial_scale = " + str(p.spatial_scale) + " is not a positive number");
  }
  cx.define(cx.out_name(0), cx.add(OpKind::roi_align, {x, rois, batch}, p,
                                   Shape{{rs.dims[0], xs.dims[1], static_cast<ir::Dim>(height),
                                          static_cast<ir::Dim>(width)}}));
}

}  // namespace nnplan::format::onnx_import
