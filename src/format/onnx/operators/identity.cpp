// The operators that are the identity at inference: Identity, and Dropout when training_mode is
// absent or a constant false, or its ratio a constant 0 (ONNX's reference returns the input and
// an all-true mask then, training or not; torchvision 0.14's Swin exports its attention dropout
// so). Its mask output, where used, is all true. Their output names their input.
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

void import_identity(ImportContext& cx) {
  cx.allow_attrs({});
  cx.require_inputs(1, 1);
  cx.alias(cx.in_name(0), cx.out_name(0));
}

void import_dropout(ImportContext& cx) {
  cx.allow_attrs({"ratio", "seed", "is_test", "consumed_inputs"});
  cx.require_inputs(1, 3);
  const auto constant_zero = [&](std::size_t i) {
    ConstPtr t = cx.constant(cx.in_name(i));
    return t != nullptr && ((!t->ints.empty() && t->ints[0] == 0) ||
                            (!floats_of(*t).empty() && floats_of(*t)[0] == 0.0f));
  };
  if (cx.has_in(2) && !constant_zero(2)) {
    if (!cx.has_in(1) || !constant_zero(1)) {
      cx.unsupported("input training_mode " + quoted_name(cx.in_name(2)) +
                     " is not a constant false, and ratio is not a constant 0; only inference "
                     "is supported");
    }
  }
  // In inference the mask keeps every element: true everywhere (x < x is false even for NaN),
  // of the input's type before opset 10 and bool from 10.
  if (cx.output_count() > 1 && !cx.out_name(1).empty() && cx.used(cx.out_name(1))) {
    const ir::NodeId x = cx.tensor(cx.in_name(0));
    const ir::Shape xs = cx.shape_of(x);
    ir::NodeId mask = cx.add(ir::OpKind::not_, {cx.add(ir::OpKind::less, {x, x}, {}, xs)});
    if (cx.opset() < 10) mask = cx.add(ir::OpKind::cast, {mask}, {}, {}, {}, ir::DType::float32);
    cx.define(cx.out_name(1), mask);
  }
  cx.alias(cx.in_name(0), cx.out_name(0));
}

}  // namespace nnplan::format::onnx_import
