// Neg as scale(x, -1): multiplying by -1 flips the sign bit and rounds nothing, as negation does.
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

void import_neg(ImportContext& cx) {
  cx.allow_attrs({"consumed_inputs"});
  cx.require_inputs(1, 1);
  cx.define(cx.out_name(0), cx.add(ir::OpKind::scale, {cx.tensor(cx.in_name(0))},
                                   ir::ScaleParams{.factor = -1.0F}));
}

}  // namespace nnplan::format::onnx_import
