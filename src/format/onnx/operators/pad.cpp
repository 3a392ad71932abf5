// Pad, constant mode with value 0 (pads as an attribute before opset 11, as a constant input from
// opset 11): all-zero pads are the identity; equal pads on H and W of an (N,C,H,W) tensor become a
// pending Pad that the Conv, MaxPool or AveragePool consuming it (its only kind of consumer)
// folds into its own padding. Anything else is rejected.
#include <algorithm>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Shape;

namespace {

void pad(ImportContext& cx, std::vector<std::int64_t> pads, float value) {
  if (value != 0.0f) {
    cx.unsupported("constant value " + str(value) + " is not supported; supported: 0");
  }
  const Shape xs = cx.tensor_shape(cx.in_name(0));
  if (pads.size() != 2 * xs.rank()) {
    cx.fail("pads " + list_string(pads) + " do not have two entries per axis of " + to_string(xs));
  }
  if (std::all_of(pads.begin(), pads.end(), [](std::int64_t p) { return p == 0; })) {
    cx.alias(cx.in_name(0), cx.out_name(0));
    return;
  }
  const std::size_t r = xs.rank();
  bool foldable = r == 4 && pads[2] > 0 && pads[2] <= 0xFFFF;
  for (std::size_t i = 0; foldable && i < r; ++i) {
    const bool spatial = i >= 2;
    foldable = pads[i] == (spatial ? pads[2] : 0) && pads[r + i] == (spatial ? pads[2] : 0);
  }
  if (!foldable) {
    cx.unsupported("pads " + list_string(pads) +
                   " are not supported; supported: all zero, or equal non-negative pads on H "
                   "and W of an (N,C,H,W) tensor folded into a following Conv, MaxPool or "
                   "AveragePool");
  }
  const std::string_view out = cx.out_name(0);
  if (cx.is_graph_output(out)) {
    cx.unsupported("pads " + list_string(pads) +
                   " are not supported on a graph output; supported: all zero, "
                   "or folded into a following Conv, MaxPool or AveragePool");
  }
  for (const int index : cx.consumers(out)) {
    const onnx::NodeProto& consumer = cx.other_node(index);
    const std::string& op = consumer.op_type();
    const bool window = op == "Conv" || op == "MaxPool" || op == "AveragePool";
    if (!window || consumer.input(0) != out || !is_default_domain(consumer.domain())) {
      const std::string name = consumer.name().empty() ? op + "_" + str(index) : consumer.name();
      cx.unsupported("pads " + list_string(pads) + " cannot be folded: output " + quoted_name(out) +
                     " is consumed by node " + quoted_name(name) + " (" + capped_name(op) +
                     "); nonzero pads fold only into a following Conv, MaxPool or AveragePool");
    }
  }
  cx.define_pad(out, PendingPad{.input = std::string(cx.in_name(0)),
                                .input_node = cx.node_of(cx.in_name(0)),
                                .padding = static_cast<std::uint32_t>(pads[2]),
                                .pad_node = std::string(cx.node_name())});
  cx.tensor(cx.in_name(0));  // the padded tensor must exist
}

void check_mode(ImportContext& cx) {
  cx.allow_attrs({"mode", "pads", "value"});
  cx.require_inputs(1, 3);
  const std::string mode = cx.attr_string("mode", "constant");
  if (mode != "constant") cx.fail_attr("mode", mode, "constant");
}

}  // namespace

void import_pad_1(ImportContext& cx) {
  check_mode(cx);
  const float value = cx.attr_float("value", 0.0f);
  pad(cx, cx.attr_ints("pads").value_or(std::vector<std::int64_t>{}), value);
}

void import_pad_11(ImportContext& cx) {
  check_mode(cx);
  float value = cx.attr_float("value", 0.0f);
  if (!cx.has_in(1)) cx.fail("has no pads input");
  std::vector<std::int64_t> pads = cx.int_constant(cx.in_name(1), "pads");
  if (cx.has_in(2)) {
    ConstPtr v = cx.float_constant(cx.in_name(2), "constant_value");
    if (floats_of(*v).size() != 1) {
      cx.fail("constant_value " + quoted_name(cx.in_name(2)) + " is not a scalar");
    }
    value = floats_of(*v)[0];
  }
  pad(cx, std::move(pads), value);
}

}  // namespace nnplan::format::onnx_import
