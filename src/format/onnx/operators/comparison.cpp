// Comparisons and logic: Equal, Less, LessOrEqual, Greater, GreaterOrEqual (two operands of one
// dtype, float32, int64 or bool, to bool), And, Or, Xor (two bool operands) and Not (one), each
// one IR node of its kind. The operands broadcast inside the kernel, as numpy does (the shape
// rule broadcast_operands), so a bool or int64 operand is never expanded by a node of its own;
// a constant operand is a `const` node of its dtype. Comparisons over constants fold at import
// time (onnx/constant_folding.hpp) and never get here. Opsets 1 to 6 spelled broadcasting with
// the `broadcast` and `axis` attributes, which are refused as unsupported, as for Add.
#include "../import_context.hpp"
#include "../operators.hpp"
#include "nnplan/ir/op_table.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_broadcasting(ImportContext& cx, OpKind kind) {
  cx.allow_attrs({});
  const int n = static_cast<int>(ir::op_traits(kind).arity.max);
  cx.require_inputs(n, n);
  ir::Parents parents;
  Shape out;
  for (int i = 0; i < n; ++i) {
    const NodeId id = cx.tensor(cx.in_name(i));
    out = i == 0 ? cx.shape_of(id) : cx.broadcast_shapes(out, cx.shape_of(id));
    parents.push_back(id);
  }
  cx.define(cx.out_name(0), cx.add(kind, parents, {}, out));
}

}  // namespace nnplan::format::onnx_import
