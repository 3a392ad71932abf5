// GatherElements: one `gather_elements` node over the data (any dtype nnplan takes) and int64
// indices of its rank (a value computed at run time, or a constant), along `axis` (negative counts
// from the end). An index outside the data is refused by the kernel's guard when the model runs
// (guard-failed, naming the node), never read.
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_gather_elements(ImportContext& cx) {
  cx.allow_attrs({"axis"});
  cx.require_inputs(2, 2);
  const NodeId x = cx.tensor(cx.in_name(0));
  const NodeId i = cx.tensor(cx.in_name(1));
  const Shape xs = cx.shape_of(x);
  const Shape is = cx.shape_of(i);
  if (xs.rank() == 0) cx.fail("data is a scalar; GatherElements takes a tensor of rank 1 or more");
  if (is.rank() != xs.rank()) {
    cx.fail("indices " + quoted_name(cx.in_name(1)) + " have shape " + to_string(is) +
            " and data " + to_string(xs) + "; GatherElements takes indices of the data's rank");
  }
  const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", 0), xs.rank());
  cx.define(cx.out_name(0),
            cx.add(OpKind::gather_elements, {x, i}, ir::AxisParams{.axis = axis}, is));
}

}  // namespace nnplan::format::onnx_import
