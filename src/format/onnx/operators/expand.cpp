// Expand of a float tensor by a constant shape: one `broadcast_to` node (none when the shape
// stays). ONNX broadcasts both ways: the result is the broadcast of the input's shape and the
// requested one, so a 1 in the requested shape keeps the input's extent. An Expand of constants
// folds at import time and never gets here.
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::Shape;

void import_expand(ImportContext& cx) {
  cx.allow_attrs({});
  cx.require_inputs(2, 2);
  const NodeId x = cx.tensor(cx.in_name(0));
  const std::vector<std::int64_t> shape = cx.int_constant(cx.in_name(1), "shape");
  Shape requested{ir::Dims(shape.size(), 1)};
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) cx.fail("shape " + list_string(shape) + " has a negative entry");
    requested.dims[i] = static_cast<Dim>(shape[i]);
  }
  cx.define(cx.out_name(0), cx.broadcast(x, cx.broadcast_shapes(cx.shape_of(x), requested)));
}

}  // namespace nnplan::format::onnx_import
