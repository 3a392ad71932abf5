// Concat: one `concat` node over two or more inputs along `axis`; one input is the identity.
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

void import_concat(ImportContext& cx) {
  cx.allow_attrs({"axis"});
  const int n = cx.input_count();
  if (n == 0) cx.fail("has no inputs");
  if (n == 1) {
    cx.alias(cx.in_name(0), cx.out_name(0));
    return;
  }
  ir::Parents parents;
  for (int i = 0; i < n; ++i)
    parents.push_back(cx.tensor(cx.in_name(i)));
  if (cx.attr("axis") == nullptr) cx.fail("attribute axis is missing");
  const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", 0), cx.shape_of(parents[0]).rank());
  cx.define(cx.out_name(0),
            cx.add(ir::OpKind::concat, std::move(parents), ir::AxisParams{.axis = axis}));
}

}  // namespace nnplan::format::onnx_import
