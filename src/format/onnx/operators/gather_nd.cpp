// GatherND: one `gather_nd` node over the data (any dtype nnplan takes) and int64 indices (a value
// computed at run time, or a constant) whose last axis of k names an element or slice of the data
// after `batch_dims` shared leading axes (opset 12 on; opset 11 has no batch_dims). An index
// outside the data is refused by the kernel's guard when the model runs, never read.
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_gather_nd(ImportContext& cx) {
  if (cx.opset() < 12) {
    cx.allow_attrs({});
  } else {
    cx.allow_attrs({"batch_dims"});
  }
  cx.require_inputs(2, 2);
  const NodeId x = cx.tensor(cx.in_name(0));
  const NodeId i = cx.tensor(cx.in_name(1));
  const ir::DType index_dtype = cx.ir_node(i).dtype;
  if (index_dtype != ir::DType::int64) {
    cx.unsupported("indices " + quoted_name(cx.in_name(1)) + " have dtype " +
                   std::string(ir::to_string(index_dtype)) + "; supported: int64");
  }
  const Shape xs = cx.shape_of(x);
  const Shape is = cx.shape_of(i);
  const std::int64_t batch = cx.attr_int("batch_dims", 0);
  const auto rank = static_cast<std::int64_t>(std::min(xs.rank(), is.rank()));
  if (batch < 0 || batch >= rank) {
    cx.fail("batch_dims = " + str(batch) + " is outside [0, " + str(rank) + ") for data " +
            to_string(xs) + " and indices " + to_string(is));
  }
  const auto b = static_cast<std::size_t>(batch);
  const ir::Dim k = is.dims.back();
  if (k < 1 || b + k > xs.rank()) {
    cx.fail("indices " + quoted_name(cx.in_name(1)) + " have shape " + to_string(is) +
            "; their last axis must be 1 to " + str(xs.rank() - b) + " for data " + to_string(xs) +
            " after " + str(b) + " batch axes");
  }
  for (std::size_t a = 0; a < b; ++a) {
    if (xs.dims[a] != is.dims[a]) {
      cx.fail("indices " + to_string(is) + " and data " + to_string(xs) + " differ on batch axis " +
              str(a));
    }
  }
  Shape out;
  out.dims.assign(is.dims.begin(), is.dims.end() - 1);
  out.dims.insert(out.dims.end(), xs.dims.begin() + static_cast<std::ptrdiff_t>(b + k),
                  xs.dims.end());
  cx.define(cx.out_name(0),
            cx.add(OpKind::gather_nd, {x, i},
                   ir::GatherNdParams{.batch_dims = static_cast<std::uint32_t>(b)}, out));
}

}  // namespace nnplan::format::onnx_import
