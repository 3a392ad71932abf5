// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, as the IR nodes of ONNX's own function
// bodies for them. For input X of shape (N, C, d1, ...) (log-probabilities for the NLL loss,
// scores for the softmax cross entropy, which takes their log_softmax over axis 1 first) and int64
// target T of shape (N, d1, ...):
//   - the target, reshaped to (N, 1, d1, ...), selects one entry of the class axis per element
//     (`gather_elements` along axis 1; an index outside [0, C) that is not ignore_index is refused
//     by the kernel's guard when the model runs), and the loss is its negation;
//   - with a weight W of shape (C), each loss is multiplied by W at its target (W broadcast to X's
//     shape, then gathered the same way);
//   - with ignore_index, an element whose target is it takes the index 0 for its gathers and
//     weight and loss 0 (`equal`, then `where`);
//   - reduction none keeps the (N, d1, ...) losses; sum adds them (`sum`); mean divides that sum by
//     the number of elements not ignored, or, with a weight, by the sum of their weights (0 / 0
//     is NaN, as in ONNX, when every element is ignored).
// SoftmaxCrossEntropyLoss's optional second output is the log_softmax.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

// The loss of log-probabilities `logp` against the target input `target_input`, with the weight
// input `weight_input` (-1: none), reduced as the node's `reduction` says.
NodeId nll(ImportContext& cx, NodeId logp, int target_input, int weight_input,
           const std::string& default_reduction) {
  const std::string reduction = cx.attr_string("reduction", default_reduction);
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    cx.fail("reduction is '" + reduction + "'; it is none, sum or mean");
  }
  const Shape xs = cx.shape_of(logp);
  if (xs.rank() < 2) {
    cx.fail("input " + quoted_name(cx.in_name(0)) + " has shape " + to_string(xs) +
            "; the loss takes (N, C) or (N, C, d1, ...)");
  }
  const NodeId target = cx.tensor(cx.in_name(target_input));
  const Shape ts = cx.shape_of(target);
  Shape want = xs;
  want.dims.erase(want.dims.begin() + 1);
  if (ts != want) {
    cx.fail("target " + quoted_name(cx.in_name(target_input)) + " has shape " + to_string(ts) +
            "; input " + to_string(xs) + " needs " + to_string(want));
  }
  if (cx.ir_node(target).dtype != ir::DType::int64) {
    cx.unsupported("target " + quoted_name(cx.in_name(target_input)) + " has dtype " +
                   std::string(ir::to_string(cx.ir_node(target).dtype)) +
                   "; supported: int64 class indices");
  }
  Shape column = xs;
  column.dims[1] = 1;  // (N, 1, d1, ...)
  NodeId index = cx.reshape(target, column);
  std::optional<NodeId> ignored;  // bool (N, 1, d1, ...): where the target is ignore_index
  if (cx.attr(std::string_view("ignore_index")) != nullptr) {
    const std::int64_t ii = cx.attr_int("ignore_index", 0);
    ignored = cx.add(OpKind::equal, {index, cx.int64_scalar(ii)}, {}, column);
    index = cx.add(OpKind::where, {*ignored, cx.int64_scalar(0), index}, {}, column);
  }
  NodeId loss =
      cx.add(OpKind::scale,
             {cx.add(OpKind::gather_elements, {logp, index}, ir::AxisParams{.axis = 1}, column)},
             ir::ScaleParams{.factor = -1.0F});
  std::optional<NodeId> weight;  // (N, 1, d1, ...): each element's weight
  if (weight_input >= 0 && weight_input < cx.input_count() && !cx.in_name(weight_input).empty()) {
    const NodeId w = cx.tensor(cx.in_name(weight_input));
    const Shape ws = cx.shape_of(w);
    if (ws != Shape{{xs.dims[1]}}) {
      cx.fail("weight " + quoted_name(cx.in_name(weight_input)) + " has shape " + to_string(ws) +
              "; input " + to_string(xs) + " needs [" + str(xs.dims[1]) + "]");
    }
    Shape per_class(ir::Dims(xs.rank(), 1));
    per_class.dims[1] = xs.dims[1];
    const NodeId spread = cx.broadcast(cx.reshape(w, per_class), xs);
    weight = cx.add(OpKind::gather_elements, {spread, index}, ir::AxisParams{.axis = 1}, column);
    loss = cx.add(OpKind::mul_elem, {loss, *weight});
  }
  if (ignored) {
    const NodeId zero = cx.float_scalar(0.0F);
    loss = cx.add(OpKind::where, {*ignored, zero, loss}, {}, column);
    if (weight) weight = cx.add(OpKind::where, {*ignored, zero, *weight}, {}, column);
  }
  if (reduction == "none") return cx.reshape(loss, want);
  const NodeId total = cx.add(OpKind::sum, {loss}, {}, Shape{});
  if (reduction == "sum") return total;
  NodeId count;
  if (weight) {
    count = cx.add(OpKind::sum, {*weight}, {}, Shape{});
  } else if (ignored) {
    const NodeId kept =
        cx.add(OpKind::cast, {cx.add(OpKind::not_, {*ignored})}, {}, {}, {}, ir::DType::float32);
    count = cx.add(OpKind::sum, {kept}, {}, Shape{});
  } else {
    // The element count, rounded to float32 as ONNX's reference divides by it.
    count = cx.float_scalar(static_cast<float>(ir::element_count(ts).value()));
  }
  return cx.add(OpKind::mul_elem, {total, cx.add(OpKind::inv, {count})});
}

}  // namespace

void import_negative_log_likelihood_loss(ImportContext& cx) {
  cx.allow_attrs({"reduction", "ignore_index"});
  cx.require_inputs(2, 3);
  const NodeId logp = cx.tensor(cx.in_name(0));
  cx.define(cx.out_name(0), nll(cx, logp, 1, 2, "mean"));
}

void import_softmax_cross_entropy_loss(ImportContext& cx) {
  cx.allow_attrs({"reduction", "ignore_index"});
  cx.require_inputs(2, 3);
  const NodeId scores = cx.tensor(cx.in_name(0));
  if (cx.shape_of(scores).rank() < 2) {
    cx.fail("scores " + quoted_name(cx.in_name(0)) + " have shape " +
            to_string(cx.shape_of(scores)) + "; the loss takes (N, C) or (N, C, d1, ...)");
  }
  const NodeId logp = cx.add(OpKind::log_softmax, {scores}, ir::AxisParams{.axis = 1});
  cx.define(cx.out_name(0), nll(cx, logp, 1, 2, "mean"));
  if (cx.output_count() > 1 && cx.used(cx.out_name(1))) cx.define(cx.out_name(1), logp);
}

}  // namespace nnplan::format::onnx_import
