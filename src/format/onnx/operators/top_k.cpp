// TopK: one `top_k` node making the int64 indices of the k largest (or smallest) elements along
// `axis`, sorted (ties and NaN as the kernel orders them: a NaN ranks above every number, equal
// values by increasing index), and, where the graph uses the Values output, a `gather_elements` of
// the input by those indices, which reads the values exactly. k is the attribute before opset 10
// and a constant input from 10; `largest` and `sorted` come at 11 (an unsorted TopK may return any
// order, so the sorted one answers it too). The input must be float32.
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_top_k(ImportContext& cx) {
  if (cx.opset() < 10) {
    cx.allow_attrs({"axis", "k"});
    cx.require_inputs(1, 1);
  } else if (cx.opset() < 11) {
    cx.allow_attrs({"axis"});
    cx.require_inputs(2, 2);
  } else {
    cx.allow_attrs({"axis", "largest", "sorted"});
    cx.require_inputs(2, 2);
  }
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  if (cx.ir_node(x).dtype != ir::DType::float32) {
    cx.unsupported("input " + quoted_name(cx.in_name(0)) + " has dtype " +
                   std::string(ir::to_string(cx.ir_node(x).dtype)) + "; supported: float32");
  }
  if (xs.rank() == 0) cx.fail("input " + quoted_name(cx.in_name(0)) + " is a scalar");
  const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", -1), xs.rank());
  std::int64_t k = 0;
  if (cx.opset() < 10) {
    if (cx.attr("k") == nullptr) cx.fail("attribute k is missing");
    k = cx.attr_int("k", 0);
  } else {
    const std::vector<std::int64_t> ks = cx.int_constant(cx.in_name(1), "K");
    if (ks.size() != 1) cx.fail("K has " + str(ks.size()) + " values; it must hold one");
    k = ks[0];
  }
  const auto extent = static_cast<std::int64_t>(xs.dims[axis]);
  if (k < 0 || k > extent) {
    cx.fail("k = " + str(k) + " is outside [0, " + str(extent) + "], axis " + str(axis) + " of " +
            to_string(xs));
  }
  const std::int64_t largest = cx.attr_int("largest", 1);
  if (largest != 0 && largest != 1) cx.fail_attr("largest", str(largest), "0 or 1");
  const std::int64_t sorted = cx.attr_int("sorted", 1);
  if (sorted != 0 && sorted != 1) cx.fail_attr("sorted", str(sorted), "0 or 1");
  Shape out = xs;
  out.dims[axis] = static_cast<ir::Dim>(k);
  const NodeId indices =
      cx.add(OpKind::top_k, {x}, ir::TopKParams{.axis = axis, .largest = largest == 1}, out);
  if (cx.used(cx.out_name(0))) {
    cx.define(cx.out_name(0),
              cx.add(OpKind::gather_elements, {x, indices}, ir::AxisParams{.axis = axis}, out));
  }
  if (cx.output_count() > 1 && !cx.out_name(1).empty()) cx.define(cx.out_name(1), indices);
}

}  // namespace nnplan::format::onnx_import
