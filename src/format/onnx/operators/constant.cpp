// Constant: its one value attribute (a tensor, or a float, floats, int or ints) becomes a
// constant known at import time, materialized or folded where it is consumed.
#include <memory>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

void import_constant(ImportContext& cx) {
  cx.allow_attrs({"value", "value_float", "value_floats", "value_int", "value_ints", "sparse_value",
                  "value_string", "value_strings"});
  cx.require_inputs(0, 0);
  if (cx.node().attribute_size() != 1) cx.fail("needs exactly one value attribute");
  const onnx::AttributeProto& a = cx.node().attribute(0);
  ConstPtr c;
  if (a.name() == "value") {
    c = cx.decode_constant(a.t());
  } else {
    c = std::make_shared<ConstTensor>();
    c->source = cx.node_name();
    if (a.name() == "value_float") {
      c->dtype = onnx::TensorProto_DataType_FLOAT;
      c->floats = {a.f()};
    } else if (a.name() == "value_floats") {
      c->dtype = onnx::TensorProto_DataType_FLOAT;
      c->floats.assign(a.floats().begin(), a.floats().end());
      c->dims = {c->floats.size()};
    } else if (a.name() == "value_int") {
      c->dtype = onnx::TensorProto_DataType_INT64;
      c->ints = {a.i()};
    } else if (a.name() == "value_ints") {
      c->dtype = onnx::TensorProto_DataType_INT64;
      c->ints.assign(a.ints().begin(), a.ints().end());
      c->dims = {c->ints.size()};
    } else {
      cx.unsupported("attribute " + a.name() +
                     " is not supported; supported: value, value_float, "
                     "value_floats, value_int, value_ints");
    }
  }
  if (!cx.out_name(0).empty()) cx.define_constant(cx.out_name(0), c);
}

}  // namespace nnplan::format::onnx_import
