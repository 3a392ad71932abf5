// OneHot: for indices of shape S, the tensor of S with an axis of `depth` inserted at `axis`
// (default -1, the last) holding on_value where the position along it equals the index and
// off_value elsewhere; an index in [-depth, -1] counts from the end, one outside [-depth, depth)
// gives a row of off_value. Exact, over existing kinds: the indices (cast to int64 when they are
// float32, truncating toward zero) reshaped to take the new axis with extent 1, compared (`equal`,
// broadcast inside the kernel) with the constant positions 0..depth-1 along it and with the same
// less depth, the two `or`ed, then a `where` between the two values. depth and values are
// constants (a depth computed at run time would make the output's shape data-dependent).
#include <vector>

#include "../constant_folding.hpp"
#include "../import_context.hpp"
#include "../operators.hpp"
#include "../tensor_decoding.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_one_hot(ImportContext& cx) {
  cx.allow_attrs({"axis"});
  cx.require_inputs(3, 3);
  const ConstPtr depth_c = cx.constant(cx.in_name(1));
  if (depth_c == nullptr) cx.fail_not_constant(cx.in_name(1), "depth");
  std::int64_t depth = 0;
  if (depth_c->dtype == onnx::TensorProto_DataType_FLOAT && floats_of(*depth_c).size() == 1) {
    depth = static_cast<std::int64_t>(floats_of(*depth_c)[0]);
  } else if (depth_c->ints.size() == 1 && depth_c->dtype != onnx::TensorProto_DataType_BOOL) {
    depth = depth_c->ints[0];
  } else {
    cx.unsupported("depth " + quoted_name(cx.in_name(1)) +
                   " is not a float32, int64 or int32 "
                   "scalar");
  }
  if (depth < 1 || static_cast<std::uint64_t>(depth) > kMaxFoldedElements) {
    cx.fail("depth is " + str(depth) + "; it is 1 to " + str(kMaxFoldedElements));
  }
  const ConstPtr values = cx.constant(cx.in_name(2));
  if (values == nullptr) cx.fail_not_constant(cx.in_name(2), "values");
  NodeId off;
  NodeId on;
  if (values->dtype == onnx::TensorProto_DataType_FLOAT && floats_of(*values).size() == 2) {
    off = cx.float_scalar(floats_of(*values)[0]);
    on = cx.float_scalar(floats_of(*values)[1]);
  } else if (values->dtype == onnx::TensorProto_DataType_INT64 && values->ints.size() == 2) {
    off = cx.int64_scalar(values->ints[0]);
    on = cx.int64_scalar(values->ints[1]);
  } else {
    cx.unsupported("values " + quoted_name(cx.in_name(2)) +
                   " is not two float32 or int64 values [off_value, on_value]");
  }
  NodeId indices = cx.tensor(cx.in_name(0));
  if (cx.ir_node(indices).dtype == ir::DType::float32) {
    indices = cx.add(OpKind::cast, {indices}, {}, {}, {}, ir::DType::int64);
  }
  if (cx.ir_node(indices).dtype != ir::DType::int64) {
    cx.unsupported("indices " + quoted_name(cx.in_name(0)) +
                   " are bool; supported: int64 or "
                   "float32");
  }
  const Shape is = cx.shape_of(indices);
  const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", -1), is.rank() + 1, false);
  Shape column = is;
  column.dims.insert(column.dims.begin() + axis, 1);
  Shape out = is;
  out.dims.insert(out.dims.begin() + axis, static_cast<Dim>(depth));
  Shape positions(ir::Dims(is.rank() + 1, 1));
  positions.dims[axis] = static_cast<Dim>(depth);
  const auto table = [&](std::int64_t offset) { return cx.int64_range(positions, offset, 1); };
  const NodeId idx = cx.reshape(indices, column);
  const NodeId hit = cx.add(OpKind::or_,
                            {cx.add(OpKind::equal, {idx, table(0)}, {}, out),
                             cx.add(OpKind::equal, {idx, table(-depth)}, {}, out)},
                            {}, out);
  cx.define(cx.out_name(0), cx.add(OpKind::where, {hit, on, off}, {}, out));
}

}  // namespace nnplan::format::onnx_import
