// Cast and CastLike of a value computed at run time (a cast of constants folds at import,
// onnx/constant_folding.hpp). A cast to the value's own type is the value itself: the output names
// the input, as PyTorch's exports write Cast(to=float) around float32 values. A cast between
// float32, int64 and bool is one `cast` node declaring the target dtype; a cast to any other type
// is refused naming both types.
#include <onnx/onnx_pb.h>

#include <optional>

#include "../import_context.hpp"
#include "../operators.hpp"
#include "../tensor_decoding.hpp"

namespace nnplan::format::onnx_import {

namespace {

// The ONNX data type of an IR dtype.
int onnx_type_of(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::float32:
      return onnx::TensorProto_DataType_FLOAT;
    case ir::DType::int64:
      return onnx::TensorProto_DataType_INT64;
    case ir::DType::boolean:
      return onnx::TensorProto_DataType_BOOL;
  }
  return onnx::TensorProto_DataType_UNDEFINED;
}

// The IR dtype of ONNX data type `t`, or nullopt when the IR has none.
std::optional<ir::DType> dtype_of(int t) {
  for (const ir::DType d : {ir::DType::float32, ir::DType::int64, ir::DType::boolean}) {
    if (onnx_type_of(d) == t) return d;
  }
  return std::nullopt;
}

// Input 0 cast to ONNX data type `to`.
void cast_value(ImportContext& cx, int to) {
  const ir::NodeId x = cx.tensor(cx.in_name(0));
  const int from = onnx_type_of(cx.ir_node(x).dtype);
  if (to == from) {
    cx.alias(cx.in_name(0), cx.out_name(0));
    return;
  }
  const std::optional<ir::DType> target = dtype_of(to);
  if (!target) {
    cx.unsupported("a cast of a " + dtype_name(from) + " value computed at run time to " +
                   dtype_name(to) +
                   " is not supported; supported: a cast to float32, int64 or "
                   "bool");
  }
  cx.define(cx.out_name(0), cx.add(ir::OpKind::cast, {x}, {}, {}, {}, *target));
}

}  // namespace

void import_cast(ImportContext& cx) {
  cx.allow_attrs({"to", "saturate"});
  cx.require_inputs(1, 1);
  cast_value(cx, cx.attr_data_type("to"));
}

// The target type is input 1's: a constant's data type, or the dtype of the value computed at
// run time.
void import_cast_like(ImportContext& cx) {
  cx.allow_attrs({"saturate"});
  cx.require_inputs(2, 2);
  const ConstPtr target = cx.constant(cx.in_name(1));
  cast_value(cx, target != nullptr ? target->dtype
                                   : onnx_type_of(cx.ir_node(cx.tensor(cx.in_name(1))).dtype));
}

}  // namespace nnplan::format::onnx_import
