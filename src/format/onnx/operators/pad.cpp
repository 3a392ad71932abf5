// Pad (pads as an attribute before opset 11, as a constant input from opset 11): all-zero pads
// are the identity. Zero constant padding on H and W alone of an (N,C,H,W) tensor consumed only by
// Conv, MaxPool or AveragePool becomes a pending Pad that the consumer folds into its own padding.
// Any other Pad is explicit, axis by axis: a negative pad crops (`slice`); a positive one adds,
// in constant mode, `const` blocks of the value concatenated on each side, and in edge and
// reflect modes a `gather` of the axis's elements at the indices those modes read (edge repeats
// the first and last element; reflect mirrors about them without repeating them, as numpy's
// "reflect" does, folding again past the far end). Exact: data movement only.
#include <algorithm>
#include <optional>
#include <vector>

#include "../constant_folding.hpp"
#include "../import_context.hpp"
#include "../operators.hpp"
#include "nnplan/format/limits.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

// The index of the input element padded position `j` (from -before) reads on an axis of `n`.
std::int64_t source_index(std::int64_t j, std::int64_t n, bool reflect) {
  if (!reflect || n == 1) return std::clamp<std::int64_t>(j, 0, n - 1);
  const std::int64_t period = 2 * (n - 1);
  std::int64_t k = j % period;
  if (k < 0) k += period;
  return k < n ? k : period - k;
}

// Whether the Pad folds into its consumers: zero constant padding on H and W alone of an (N,C,H,W)
// tensor, every consumer a Conv, MaxPool or AveragePool reading it as its input 0 with explicit
// pads (SAME padding is computed from the padded input), a MaxPool only over a non-negative input
// (it pads with -inf, which equals zero padding only there).
bool foldable(ImportContext& cx, const std::vector<std::int64_t>& pads, const Shape& xs,
              float value, bool constant) {
  const std::size_t r = xs.rank();
  bool ok = constant && value == 0.0F && r == 4 && pads[2] > 0 && pads[2] <= 0xFFFF;
  for (std::size_t i = 0; ok && i < r; ++i) {
    const bool spatial = i >= 2;
    ok = pads[i] == (spatial ? pads[2] : 0) && pads[r + i] == (spatial ? pads[2] : 0);
  }
  const std::string_view out = cx.out_name(0);
  if (!ok || cx.is_graph_output(out) || cx.consumers(out).empty()) return false;
  for (const int index : cx.consumers(out)) {
    const onnx::NodeProto& consumer = cx.other_node(index);
    const std::string& op = consumer.op_type();
    const bool window = op == "Conv" || op == "MaxPool" || op == "AveragePool";
    if (!window || consumer.input(0) != out || !is_default_domain(consumer.domain())) return false;
    for (const onnx::AttributeProto& a : consumer.attribute()) {
      if (a.name() == "auto_pad" && a.s().starts_with("SAME")) return false;
    }
    if (op == "MaxPool") {
      const std::optional<NodeId> producer = cx.node_of(cx.in_name(0));
      if (!producer) return false;
      const OpKind kind = cx.ir_node(*producer).kind;
      if (kind != OpKind::relu && kind != OpKind::sigmoid && kind != OpKind::exp &&
          kind != OpKind::abs && kind != OpKind::sqrt) {
        return false;
      }
    }
  }
  return true;
}

void pad(ImportContext& cx, std::vector<std::int64_t> pads, float value, const std::string& mode) {
  const Shape xs = cx.tensor_shape(cx.in_name(0));
  const std::size_t r = xs.rank();
  if (pads.size() != 2 * r) {
    cx.fail("pads " + list_string(pads) + " do not have two entries per axis of " + to_string(xs));
  }
  if (std::all_of(pads.begin(), pads.end(), [](std::int64_t p) { return p == 0; })) {
    cx.alias(cx.in_name(0), cx.out_name(0));
    return;
  }
  for (std::size_t i = 0; i < r; ++i) {
    const auto n = static_cast<std::int64_t>(xs.dims[i]);
    const std::int64_t kept =
        n + std::min<std::int64_t>(pads[i], 0) + std::min<std::int64_t>(pads[r + i], 0);
    if (pads[i] < -n || pads[r + i] < -n || kept < 0) {
      cx.fail("pads " + list_string(pads) + " crop more than axis " + str(Dim{i}) + " of " +
              to_string(xs) + " holds");
    }
    if (pads[i] > static_cast<std::int64_t>(kMaxDim) ||
        pads[r + i] > static_cast<std::int64_t>(kMaxDim)) {
      cx.fail("pads " + list_string(pads) + " exceed the dimension limit " + str(kMaxDim));
    }
    if (mode != "constant" && kept == 0 && (pads[i] > 0 || pads[r + i] > 0)) {
      cx.fail("pads " + list_string(pads) + " pad axis " + str(Dim{i}) + " of " + to_string(xs) +
              " in " + mode + " mode, which reads the axis's elements, but it has none left");
    }
  }
  if (foldable(cx, pads, xs, value, mode == "constant")) {
    cx.define_pad(cx.out_name(0), PendingPad{.input = std::string(cx.in_name(0)),
                                             .input_node = cx.node_of(cx.in_name(0)),
                                             .padding = static_cast<std::uint32_t>(pads[2]),
                                             .pad_node = std::string(cx.node_name())});
    cx.tensor(cx.in_name(0));  // the padded tensor must exist
    return;
  }
  NodeId y = cx.tensor(cx.in_name(0));
  for (std::size_t i = 0; i < r; ++i) {
    const auto axis = static_cast<std::uint32_t>(i);
    const Dim n = cx.shape_of(y).dims[i];
    // Crop first: a negative pad removes elements from its side.
    const Dim start = static_cast<Dim>(std::max<std::int64_t>(-pads[i], 0));
    const Dim end = n - static_cast<Dim>(std::max<std::int64_t>(-pads[r + i], 0));
    if (start != 0 || end != n) {
      y = cx.add(OpKind::slice, {y},
                 ir::SliceParams{.axis = axis, .start = start, .end = end, .step = 1});
    }
    const Dim before = static_cast<Dim>(std::max<std::int64_t>(pads[i], 0));
    const Dim after = static_cast<Dim>(std::max<std::int64_t>(pads[r + i], 0));
    if (before == 0 && after == 0) continue;
    if (mode == "constant") {
      y = cx.pad_with(y, i, before, after, value);
      continue;
    }
    const auto m = static_cast<std::int64_t>(end - start);
    const Dim total = before + static_cast<Dim>(m) + after;
    if (total > kMaxFoldedElements) {
      cx.unsupported("padding axis " + str(Dim{i}) + " to " + str(total) + " in " + mode +
                     " mode needs that many indices; supported: up to " + str(kMaxFoldedElements));
    }
    Shape gathered = cx.shape_of(y);
    gathered.dims[i] = total;
    const NodeId g = cx.add(OpKind::gather, {y}, ir::AxisParams{.axis = axis}, gathered);
    if (cx.keep_payloads()) {
      std::vector<std::int64_t> indices(total);
      for (Dim j = 0; j < total; ++j) {
        indices[j] = source_index(static_cast<std::int64_t>(j) - static_cast<std::int64_t>(before),
                                  m, mode == "reflect");
      }
      cx.set_payload(g, "indices", ir::WeightTensor::adopt(Shape{{total}}, std::move(indices)));
    }
    y = g;
  }
  cx.define(cx.out_name(0), y);
}

std::string read_mode(ImportContext& cx) {
  cx.allow_attrs({"mode", "pads", "value"});
  cx.require_inputs(1, 3);
  const std::string mode = cx.attr_string("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") {
    cx.fail_attr("mode", mode, "constant, edge, reflect");
  }
  return mode;
}

}  // namespace

void import_pad_1(ImportContext& cx) {
  const std::string mode = read_mode(cx);
  const float value = cx.attr_float("value", 0.0f);
  pad(cx, cx.attr_ints("pads").value_or(std::vector<std::int64_t>{}), value, mode);
}

void import_pad_11(ImportContext& cx) {
  const std::string mode = read_mode(cx);
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
  pad(cx, std::move(pads), value, mode);
}

}  // namespace nnplan::format::onnx_import
