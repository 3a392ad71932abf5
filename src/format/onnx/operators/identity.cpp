// The operators that are the identity at inference: Identity, and Dropout when training_mode is
// absent or a constant false and its mask output is unused. Their output names their input.
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
  if (cx.has_in(2)) {
    ConstPtr t = cx.constant(cx.in_name(2));
    const bool inference = t != nullptr && ((!t->ints.empty() && t->ints[0] == 0) ||
                                            (!floats_of(*t).empty() && floats_of(*t)[0] == 0.0f));
    if (!inference) {
      cx.unsupported("input training_mode " + quoted_name(cx.in_name(2)) +
                     " is not a constant false; only inference is supported");
    }
  }
  cx.only_first_output({"output", "mask"});
  cx.alias(cx.in_name(0), cx.out_name(0));
}

}  // namespace nnplan::format::onnx_import
