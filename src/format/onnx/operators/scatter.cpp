// ScatterElements (and Scatter, its name at opsets 9 and 10) and ScatterND: one `scatter_elements`
// or `scatter_nd` node over the data, int64 indices (a value computed at run time, or a constant)
// and updates of the data's dtype, with `reduction` none, add or mul (opset 16 on; max and min,
// added at 18, are unsupported). An index outside the data is refused by the kernel's guard when
// the model runs (guard-failed, naming the node and the index), never written.
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

ir::ScatterReduction read_reduction(ImportContext& cx, ir::DType dtype) {
  if (cx.opset() < 16) return ir::ScatterReduction::none;
  const std::string r = cx.attr_string("reduction", "none");
  if (r == "none") return ir::ScatterReduction::none;
  if (r != "add" && r != "mul") cx.fail_attr("reduction", "'" + r + "'", "none, add or mul");
  if (dtype == ir::DType::boolean) {
    cx.unsupported("reduction '" + r + "' of bool data is not supported; supported: float32 " +
                   "and int64 data");
  }
  return r == "add" ? ir::ScatterReduction::add : ir::ScatterReduction::mul;
}

// The three inputs, checked: indices int64, updates of the data's dtype.
struct ScatterInputs {
  NodeId data = 0;
  NodeId indices = 0;
  NodeId updates = 0;
};
ScatterInputs read_inputs(ImportContext& cx) {
  cx.require_inputs(3, 3);
  const ScatterInputs in{.data = cx.tensor(cx.in_name(0)),
                         .indices = cx.tensor(cx.in_name(1)),
                         .updates = cx.tensor(cx.in_name(2))};
  const ir::DType index_dtype = cx.ir_node(in.indices).dtype;
  if (index_dtype != ir::DType::int64) {
    cx.unsupported("indices " + quoted_name(cx.in_name(1)) + " have dtype " +
                   std::string(ir::to_string(index_dtype)) + "; supported: int64");
  }
  if (cx.ir_node(in.updates).dtype != cx.ir_node(in.data).dtype) {
    cx.fail("updates " + quoted_name(cx.in_name(2)) + " have dtype " +
            std::string(ir::to_string(cx.ir_node(in.updates).dtype)) + " and data " +
            std::string(ir::to_string(cx.ir_node(in.data).dtype)) + "; they must match");
  }
  return in;
}

}  // namespace

void import_scatter_elements(ImportContext& cx) {
  if (cx.opset() < 16) {
    cx.allow_attrs({"axis"});
  } else {
    cx.allow_attrs({"axis", "reduction"});
  }
  const ScatterInputs in = read_inputs(cx);
  const Shape xs = cx.shape_of(in.data);
  const Shape is = cx.shape_of(in.indices);
  if (xs.rank() == 0) cx.fail("data is a scalar; ScatterElements takes a tensor of rank 1 or more");
  if (is.rank() != xs.rank()) {
    cx.fail("indices " + quoted_name(cx.in_name(1)) + " have shape " + to_string(is) +
            " and data " + to_string(xs) + "; ScatterElements takes indices of the data's rank");
  }
  if (cx.shape_of(in.updates) != is) {
    cx.fail("updates " + quoted_name(cx.in_name(2)) + " have shape " +
            to_string(cx.shape_of(in.updates)) + ", not the indices' " + to_string(is));
  }
  const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", 0), xs.rank());
  const ir::ScatterParams params{.axis = axis,
                                 .reduction = read_reduction(cx, cx.ir_node(in.data).dtype)};
  cx.define(cx.out_name(0),
            cx.add(OpKind::scatter_elements, {in.data, in.indices, in.updates}, params, xs));
}

void import_scatter_nd(ImportContext& cx) {
  if (cx.opset() < 16) {
    cx.allow_attrs({});
  } else {
    cx.allow_attrs({"reduction"});
  }
  const ScatterInputs in = read_inputs(cx);
  const Shape xs = cx.shape_of(in.data);
  const Shape is = cx.shape_of(in.indices);
  const ir::Dim k = is.rank() == 0 ? 0 : is.dims.back();
  if (xs.rank() == 0 || is.rank() == 0 || k < 1 || k > xs.rank()) {
    cx.fail("indices " + quoted_name(cx.in_name(1)) + " have shape " + to_string(is) +
            "; ScatterND takes indices whose last axis is 1 to the data " + to_string(xs) +
            "'s rank");
  }
  Shape want;
  want.dims.assign(is.dims.begin(), is.dims.end() - 1);
  want.dims.insert(want.dims.end(), xs.dims.begin() + static_cast<std::ptrdiff_t>(k),
                   xs.dims.end());
  if (cx.shape_of(in.updates) != want) {
    cx.fail("updates " + quoted_name(cx.in_name(2)) + " have shape " +
            to_string(cx.shape_of(in.updates)) + "; ScatterND takes " + to_string(want));
  }
  const ir::ScatterParams params{.reduction = read_reduction(cx, cx.ir_node(in.data).dtype)};
  cx.define(cx.out_name(0),
            cx.add(OpKind::scatter_nd, {in.data, in.indices, in.updates}, params, xs));
}

}  // namespace nnplan::format::onnx_import
