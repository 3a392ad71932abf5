// Mod: one `mod` node (fmod 0: int64 operands, the remainder with the divisor's sign) or `fmod`
// node (fmod 1: float32 or int64 operands, the dividend's sign), its operands broadcast in the
// kernel as numpy does. ONNX requires fmod 1 for floating-point operands; an int64 divisor of 0
// stops the run with a guard failure naming the element.
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::NodeId;
using ir::OpKind;

void import_mod(ImportContext& cx) {
  cx.allow_attrs({"fmod"});
  cx.require_inputs(2, 2);
  const NodeId a = cx.tensor(cx.in_name(0));
  const NodeId b = cx.tensor(cx.in_name(1));
  const std::int64_t fmod = cx.attr_int("fmod", 0);
  if (fmod != 0 && fmod != 1) cx.fail_attr("fmod", str(fmod), "0 or 1");
  const ir::DType da = cx.ir_node(a).dtype;
  const ir::DType db = cx.ir_node(b).dtype;
  if (da != db) {
    cx.fail("inputs " + quoted_name(cx.in_name(0)) + " and " + quoted_name(cx.in_name(1)) +
            " have dtypes " + std::string(ir::to_string(da)) + " and " +
            std::string(ir::to_string(db)) + "; Mod takes one");
  }
  if (da == ir::DType::float32 && fmod == 0) {
    cx.fail("fmod = 0 of float32 inputs; ONNX requires fmod = 1 for floating-point inputs");
  }
  if (da != ir::DType::float32 && da != ir::DType::int64) {
    cx.unsupported("inputs of dtype " + std::string(ir::to_string(da)) +
                   "; supported: float32 and int64");
  }
  const ir::Shape out = cx.broadcast_shapes(cx.shape_of(a), cx.shape_of(b));
  cx.define(cx.out_name(0), cx.add(fmod == 1 ? OpKind::fmod : OpKind::mod, {a, b}, {}, out));
}

}  // namespace nnplan::format::onnx_import
