// LayerNormalization: one layernorm node over X.shape[axis:] with its epsilon as a payload
// attribute. Scale and B broadcast to the normalized dims: constants of exactly those dims are
// the node's gamma and beta payloads; others (of other dims, or values: a graph input, as in a
// model exported with export_params=False, or computed) a broadcast multiply and add after it,
// the same float32 operations in the same order; an all-ones Scale and an absent or all-zeros B
// emit nothing. The Mean and InvStdDev outputs,
// when used, are computed beside it as ONNX's reference implementation does: the mean over the
// normalized axes, and 1 / sqrt(mean((x - mean)^2) + epsilon), each with the normalized axes kept
// as 1s (ONNX's function body writes the variance E[x^2] - E[x]^2, equal in exact arithmetic).
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

// The mean of `x` over the axes from `axis` on, those axes kept as 1s.
NodeId mean_over(ImportContext& cx, NodeId x, std::uint32_t axis) {
  Shape kept = cx.shape_of(x);
  for (std::uint32_t a = static_cast<std::uint32_t>(kept.rank()); a-- > axis;) {
    x = cx.add(OpKind::reduce_mean, {x}, ir::AxisParams{.axis = a});
    kept.dims[a] = 1;
  }
  return cx.reshape(x, kept);
}

// Defines outputs 1 (Mean) and 2 (InvStdDev) where the graph uses them.
void statistics(ImportContext& cx, NodeId x, std::uint32_t axis, float eps) {
  const bool mean_used = cx.output_count() > 1 && cx.used(cx.out_name(1));
  const bool inv_used = cx.output_count() > 2 && cx.used(cx.out_name(2));
  if (!mean_used && !inv_used) return;
  const Shape xs = cx.shape_of(x);
  const NodeId mean = mean_over(cx, x, axis);
  if (mean_used) cx.define(cx.out_name(1), mean);
  if (!inv_used) return;
  const NodeId d = cx.add(OpKind::sub, {x, cx.broadcast(mean, xs)});
  const NodeId var = mean_over(cx, cx.add(OpKind::mul_elem, {d, d}), axis);
  const Shape kept = cx.shape_of(var);
  const NodeId e = cx.add(OpKind::const_, {}, ir::ConstParams{.value_shape = Shape{}}, Shape{});
  cx.set_payload(e, "value", cx.payload_values(Shape{}, std::vector<float>{eps}));
  const NodeId sum = cx.add(OpKind::add, {var, cx.broadcast(e, kept)});
  cx.define(cx.out_name(2), cx.add(OpKind::inv, {cx.add(OpKind::sqrt, {sum})}));
}

}  // namespace

void import_layer_normalization(ImportContext& cx) {
  cx.allow_attrs({"axis", "epsilon", "stash_type"});
  cx.require_inputs(2, 3);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", -1), xs.rank());
  // stash_type 1 (float32) is how the normalization is computed for float32 input anyway.
  if (const std::int64_t stash = cx.attr_int("stash_type", 1); stash != 1) {
    cx.fail_attr("stash_type", str(stash), "1 (float32)");
  }
  const float eps = cx.attr_float("epsilon", 1e-5f);
  if (!(eps > 0.0f) || !std::isfinite(eps)) {
    cx.fail_attr("epsilon", str(eps), "a finite positive epsilon");
  }
  const Shape normalized{ir::Dims(xs.dims.begin() + axis, xs.dims.end())};
  // Whether input `index` (Scale or B) is present and not a constant (a value).
  const auto is_value = [&](int index) {
    return cx.has_in(index) && cx.constant(cx.in_name(index)) == nullptr;
  };
  // Checks that Scale or B of `dims` broadcasts to the normalized dims.
  const auto check_broadcast = [&](std::string_view name, std::string_view role,
                                   const std::vector<Dim>& dims) {
    const std::size_t rank = dims.size();
    bool fits = rank <= normalized.rank();
    for (std::size_t i = 0; fits && i < rank; ++i) {
      const Dim d = dims[rank - 1 - i];
      fits = d == 1 || d == normalized.dims[normalized.rank() - 1 - i];
    }
    if (!fits) {
      cx.fail(std::string(role) + " " + quoted_name(name) + " has shape " + list_string(dims) +
              ", which does not broadcast to the normalized dims " + to_string(normalized) +
              " (X.shape[" + str(axis) + ":])");
    }
  };
  // Input `index` (Scale or B) when a constant, present and not `identity` everywhere; null
  // otherwise.
  const auto affine = [&](int index, std::string_view role, float identity) -> ConstPtr {
    if (!cx.has_in(index) || is_value(index)) return nullptr;
    const std::string_view name = cx.in_name(index);
    ConstPtr c = cx.float_constant(name, role);
    check_broadcast(name, role, c->dims);
    // External data is not read when planning: such a tensor is never taken for the identity.
    const bool trivial =
        !c->external && std::ranges::all_of(floats_of(*c), [&](float f) { return f == identity; });
    return trivial ? nullptr : c;
  };
  // A Scale or B that is a value, checked as a float32 that broadcasts.
  const auto value_operand = [&](int index, std::string_view role) -> std::optional<NodeId> {
    if (!is_value(index)) return std::nullopt;
    const std::string_view name = cx.in_name(index);
    const NodeId id = cx.float_value(name, role);
    check_broadcast(name, role,
                    std::vector<Dim>(cx.shape_of(id).dims.begin(), cx.shape_of(id).dims.end()));
    return id;
  };
  const ConstPtr scale = affine(1, "Scale", 1.0f);
  const ConstPtr bias = affine(2, "B", 0.0f);
  const std::optional<NodeId> scale_value = value_operand(1, "Scale");
  const std::optional<NodeId> bias_value = value_operand(2, "B");
  const NodeId norm = cx.add(OpKind::layernorm, {x}, ir::AxisParams{.axis = axis});
  // The default epsilon is the IR's: recorded only when it differs.
  if (eps != 1e-5f) cx.set_attribute(norm, "epsilon", static_cast<double>(eps));
  const auto is_payload = [&](const ConstPtr& c) {
    return c != nullptr && Shape{c->dims} == normalized;
  };
  const bool gamma = is_payload(scale);
  const bool beta = is_payload(bias) && (scale == nullptr || gamma) && !scale_value;
  if (gamma) {
    cx.set_payload(norm, "gamma", cx.payload_tensor(scale, normalized));
  }
  if (beta) {
    cx.set_payload(norm, "beta", cx.payload_tensor(bias, normalized));
  }
  NodeId y = norm;
  if ((scale != nullptr && !gamma) || scale_value) {
    y = cx.add(OpKind::mul_elem, {y, cx.broadcast(cx.tensor(cx.in_name(1)), xs)});
  }
  if ((bias != nullptr && !beta) || bias_value) {
    y = cx.add(OpKind::add, {y, cx.broadcast(cx.tensor(cx.in_name(2)), xs)});
  }
  cx.define(cx.out_name(0), y);
  statistics(cx, x, axis, eps);
}

// InstanceNormalization over (N, C, D1, ...): each (n, c) slice normalized over its spatial axes,
// which is a layernorm from axis 2 (mean and biased variance over D1, ..., epsilon inside the
// square root), then the per-channel scale and B, each seen as [C, 1, ...] and broadcast.
void import_instance_normalization(ImportContext& cx) {
  cx.allow_attrs({"epsilon"});
  cx.require_inputs(3, 3);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  if (xs.rank() < 3) {
    cx.fail("input has shape " + to_string(xs) + "; InstanceNormalization needs (N, C, D1, ...)");
  }
  const float eps = cx.attr_float("epsilon", 1e-5f);
  if (!(eps > 0.0f) || !std::isfinite(eps)) {
    cx.fail_attr("epsilon", str(eps), "a finite positive epsilon");
  }
  const NodeId norm = cx.add(OpKind::layernorm, {x}, ir::AxisParams{.axis = 2});
  if (eps != 1e-5f) cx.set_attribute(norm, "epsilon", static_cast<double>(eps));
  // Scale and B as [C, 1, ...] (one 1 per spatial axis), broadcast to X's shape.
  Shape per_channel{ir::Dims(xs.rank() - 1, 1)};
  per_channel.dims[0] = xs.dims[1];
  const auto channel_operand = [&](int index, std::string_view role) {
    const NodeId v = cx.tensor(cx.in_name(index));
    if (cx.shape_of(v) != Shape{{xs.dims[1]}}) {
      cx.fail(std::string(role) + " " + quoted_name(cx.in_name(index)) + " has shape " +
              to_string(cx.shape_of(v)) + "; expected [" + str(xs.dims[1]) +
              "] (one value per channel)");
    }
    return cx.broadcast(cx.reshape(v, per_channel), xs);
  };
  const NodeId scaled = cx.add(OpKind::mul_elem, {norm, channel_operand(1, "scale")});
  cx.define(cx.out_name(0), cx.add(OpKind::add, {scaled, channel_operand(2, "B")}));
}

}  // namespace nnplan::format::onnx_import
