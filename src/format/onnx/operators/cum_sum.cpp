// CumSum: one `cum_sum` node, the running sums of float32 or int64 values along the axis its
// constant second input names (a scalar or a one-element tensor; negative counts from the end),
// with `exclusive` and `reverse` as ONNX defines them (opsets 11 and 14 alike for these types).
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_cum_sum(ImportContext& cx) {
  cx.allow_attrs({"exclusive", "reverse"});
  cx.require_inputs(2, 2);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  const ir::DType dtype = cx.ir_node(x).dtype;
  if (dtype != ir::DType::float32 && dtype != ir::DType::int64) {
    cx.unsupported("input " + quoted_name(cx.in_name(0)) + " has dtype " +
                   std::string(ir::to_string(dtype)) + "; supported: float32 and int64");
  }
  if (xs.rank() == 0) cx.fail("input " + quoted_name(cx.in_name(0)) + " is a scalar");
  const std::vector<std::int64_t> axes = cx.int_constant(cx.in_name(1), "axis");
  if (axes.size() != 1) cx.fail("axis has " + str(axes.size()) + " values; it must hold one");
  const std::uint32_t axis = cx.norm_axis(axes[0], xs.rank());
  const auto flag = [&cx](std::string_view name) {
    const std::int64_t v = cx.attr_int(name, 0);
    if (v != 0 && v != 1) cx.fail_attr(std::string(name), str(v), "0 or 1");
    return v == 1;
  };
  const ir::CumSumParams params{
      .axis = axis, .exclusive = flag("exclusive"), .reverse = flag("reverse")};
  cx.define(cx.out_name(0), cx.add(OpKind::cum_sum, {x}, params, xs));
}

}  // namespace nnplan::format::onnx_import
