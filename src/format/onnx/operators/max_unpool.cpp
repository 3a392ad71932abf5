// MaxUnpool (opsets 9 and 11): one `max_unpool` node writing X's elements at their indices I
// (int64, X's shape, flat as MaxPool's Indices are) into zeros of the inferred shape, per spatial
// axis (in - 1) * stride + kernel - pads (kernel_shape, strides, pads as ONNX reads them). A
// constant output_shape input, when given, extends that result with zeros at the end of each
// spatial axis, as ONNX's reference (and its node test) places the unpooled values in the top-left
// corner of the larger output; an output_shape smaller than the inferred one is unsupported.
#include <string>
#include <vector>

#include "../import_context.hpp"
#include "../operators.hpp"
#include "../window_attributes.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_max_unpool(ImportContext& cx) {
  cx.allow_attrs({"kernel_shape", "pads", "strides"});
  cx.require_inputs(2, 3);
  const NodeId x = cx.tensor(cx.in_name(0));
  const NodeId indices = cx.tensor(cx.in_name(1));
  const Shape xs = cx.shape_of(x);
  if (xs.rank() < 3) {
    cx.fail("input X " + quoted_name(cx.in_name(0)) + " has shape " + to_string(xs) +
            "; it is (N, C, spatial...) with at least one spatial axis");
  }
  if (cx.ir_node(indices).dtype != ir::DType::int64) {
    cx.fail("input I " + quoted_name(cx.in_name(1)) + " has dtype " +
            std::string(ir::to_string(cx.ir_node(indices).dtype)) + "; it is int64");
  }
  if (cx.shape_of(indices) != xs) {
    cx.fail("input I " + quoted_name(cx.in_name(1)) + " has shape " +
            to_string(cx.shape_of(indices)) + "; it is X's, " + to_string(xs));
  }
  const std::size_t r = xs.rank() - 2;
  const std::vector<Dim> spatial(xs.dims.begin() + 2, xs.dims.end());
  const std::vector<std::uint32_t> kernel = read_kernel_shape(cx, r, true);
  const WindowGeometry g = read_window(cx, spatial, kernel);
  Shape inferred = xs;
  for (std::size_t i = 0; i < r; ++i) {
    const auto full = static_cast<std::int64_t>((spatial[i] - 1) * g.stride[i] + kernel[i]);
    const std::int64_t extent = full - g.pad_begin[i] - g.pad_end[i];
    if (extent < 1) {
      cx.fail("pads " + list_string(g.pad_begin) + " and " + list_string(g.pad_end) +
              " leave no output on spatial axis " + str(static_cast<std::uint64_t>(i)));
    }
    inferred.dims[2 + i] = static_cast<Dim>(extent);
  }
  NodeId y = cx.add(OpKind::max_unpool, {x, indices}, {}, inferred);
  if (cx.has_in(2)) {
    const std::vector<std::int64_t> shape = cx.int_constant(cx.in_name(2), "output_shape");
    bool fits = shape.size() == xs.rank() && static_cast<Dim>(shape[0]) == xs.dims[0] &&
                static_cast<Dim>(shape[1]) == xs.dims[1];
    for (std::size_t i = 2; fits && i < shape.size(); ++i)
      fits = shape[i] >= 1;
    if (!fits) {
      cx.fail("output_shape " + quoted_name(cx.in_name(2)) + " holds " + list_string(shape) +
              "; it is X's N and C, then one positive extent per spatial axis");
    }
    for (std::size_t i = 2; i < shape.size(); ++i) {
      if (static_cast<Dim>(shape[i]) < inferred.dims[i]) {
        cx.unsupported("output_shape " + quoted_name(cx.in_name(2)) + " holds " +
                       list_string(shape) + ", smaller than the inferred " + to_string(inferred) +
                       "; supported: at least the inferred shape");
      }
      const Dim extra = static_cast<Dim>(shape[i]) - inferred.dims[i];
      if (extra > 0) y = cx.pad_with(y, i, 0, extra, 0.0F);
    }
  }
  cx.define(cx.out_name(0), y);
}

}  // namespace nnplan::format::onnx_import
