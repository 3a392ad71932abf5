#include "draws.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace nnplan::oracles {
namespace {

std::string list(const std::vector<std::uint32_t>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    out += (i == 0 ? "" : ",") + std::to_string(v[i]);
  return out + "]";
}

std::string bound(std::optional<float> v) {
  return v ? std::to_string(*v) : std::string("none");
}

}  // namespace

ir::NodeId draw_conv(CaseBuilder& b, bool transposed) {
  Draw& d = b.draw();
  const std::uint32_t r = d.pick<std::uint32_t>({1, 2, 2, 2, 3});
  const std::uint32_t style = d.between(0, 5);  // 0-2: groups 1, 3-4: a few groups, 5: depthwise
  // A quarter of the 1-D and 2-D cases are wide enough for oneDNN's blocked kernels and their
  // channel and spatial tails.
  const bool wide = r <= 2 && d.chance(0.25);
  const std::uint32_t per_group = wide ? 24 : (r == 3 ? 2 : 4);
  std::uint32_t groups = 1;
  std::uint32_t in_c = 0;
  std::uint32_t out_c = 0;
  if (style == 5) {
    in_c = d.between(1, wide ? 40 : 8);
    groups = in_c;
    out_c = in_c * d.between(1, 2);
  } else {
    groups = style <= 2 ? 1 : d.between(2, 3);
    in_c = groups * d.between(1, per_group);
    out_c = groups * d.between(1, per_group);
  }
  ir::ConvParams p{.spatial_rank = r, .groups = groups, .in_channels = in_c, .out_channels = out_c};
  ir::Shape in{{d.between(1, 2), in_c}};
  for (std::uint32_t i = 0; i < r; ++i) {
    const std::uint32_t k = d.between(1, r == 3 ? 2 : 3);
    const std::uint32_t s = d.pick<std::uint32_t>({1, 1, 2, 3});
    const std::uint32_t dil = d.pick<std::uint32_t>({1, 1, 2});
    const std::uint32_t reach = dil * (k - 1);
    std::uint32_t before = d.between(0, std::min<std::uint32_t>(2, reach));
    std::uint32_t after = d.between(0, std::min<std::uint32_t>(2, reach));
    std::uint32_t x = 0;
    std::uint32_t out_pad = 0;
    if (transposed) {
      x = d.between(1, r == 3 ? 3 : 6);
      out_pad = d.between(0, std::max(s, dil) - 1);
      const std::uint32_t full = (x - 1) * s + reach + out_pad + 1;
      if (before + after >= full) {
        after = 0;
        before = std::min(before, full - 1);
      }
    } else {
      const std::uint32_t need = reach + 1 > before + after ? reach + 1 - before - after : 1;
      x = d.between(std::max(1U, need), std::max(1U, need) + (r == 3 ? 3 : wide ? 15 : 7));
    }
    in.dims.push_back(x);
    p.kernel.push_back(k);
    p.stride.push_back(s);
    p.dilation.push_back(dil);
    p.padding.push_back(before);
    p.padding_after.push_back(after);
    if (transposed) p.output_padding.push_back(out_pad);
  }
  const Values values = d.signed_values();
  const ir::NodeId x = b.input(in, values);
  ir::Shape weight =
      transposed ? ir::Shape{{in_c, out_c / groups}} : ir::Shape{{out_c, in_c / groups}};
  for (std::uint32_t k : p.kernel)
    weight.dims.push_back(k);
  b.note(std::string(transposed ? "conv_transpose " : "conv ") + std::to_string(r) + "-D" +
         (wide ? " wide" : "") + " groups " + std::to_string(groups) +
         (style == 5 ? " (depthwise)" : "") + " in_c " + std::to_string(in_c) + " out_c " +
         std::to_string(out_c) + " kernel " + list(p.kernel) + " stride " + list(p.stride) +
         " dilation " + list(p.dilation) + " pads " + list(p.padding) + " before " +
         list(p.padding_after) + " after" +
         (transposed ? " output_padding " + list(p.output_padding) : std::string()));
  const bool bias = d.chance(0.7);
  const ir::NodeId conv =
      b.target(transposed ? ir::OpKind::conv_transpose : ir::OpKind::conv, {x}, std::move(p));
  b.weight(conv, "weight", weight, d.signed_values());
  if (bias) b.weight(conv, "bias", ir::Shape{{out_c}}, d.signed_values());
  b.note(std::string("weight ") + ir::to_string(weight) + (bias ? " with bias" : " no bias"));
  return conv;
}

ir::NodeId draw_pool(CaseBuilder& b, bool max) {
  Draw& d = b.draw();
  const std::uint32_t r = d.pick<std::uint32_t>({1, 2, 2, 3});
  const bool global = d.chance(0.15);
  // Max pooling, sometimes: one axis drawn as ONNX pads (before and after, each below the
  // kernel) and ceil_mode, lowered as the importer lowers them (src/format/onnx/operators/
  // pooling.cpp): the common part as the node's padding, the rest and the ceil overhang as -inf
  // borders concatenated before the pool.
  const std::uint32_t onnx_axis = max && !global && d.chance(0.4) ? d.between(0, r - 1) : r;
  ir::PoolParams p{.spatial_rank = r};
  ir::Shape in{{d.between(1, 2), d.between(1, 4)}};
  std::uint32_t border_before = 0;
  std::uint32_t border_after = 0;
  std::string onnx_text;
  for (std::uint32_t i = 0; i < r; ++i) {
    std::uint32_t x = d.between(1, r == 3 ? 5 : 9);
    const std::uint32_t k = global ? x : d.between(1, 3);
    const std::uint32_t s = global ? 1 : d.between(1, 3);
    std::uint32_t pad = global ? 0 : d.between(0, std::min<std::uint32_t>(2, k - 1));
    if (i == onnx_axis) {
      const std::uint32_t pb = d.between(0, k - 1);
      const std::uint32_t pe = d.between(0, k - 1);
      const bool ceil = d.chance(0.5);
      x = std::max(x, k > pb + pe ? k - pb - pe : 1);
      const std::uint32_t span = x + pb + pe;
      const std::uint32_t floor_out = (span - k) / s + 1;
      std::uint32_t out = ceil ? (span - k + s - 1) / s + 1 : floor_out;
      if (out > floor_out && (out - 1) * s >= x + pb) --out;
      const std::uint32_t extra = out > floor_out ? (out - 1) * s + k - span : 0;
      pad = std::min(pb, pe + extra);
      border_before = pb - pad;
      border_after = pe + extra - pad;
      onnx_text = "axis " + std::to_string(2 + i) + " from ONNX pads " + std::to_string(pb) +
                  " before, " + std::to_string(pe) + " after" + (ceil ? ", ceil_mode" : "") +
                  ": -inf borders " + std::to_string(border_before) + " before, " +
                  std::to_string(border_after) + " after";
    } else {
      x = std::max(x, k > 2 * pad ? k - 2 * pad : 1);
    }
    in.dims.push_back(x);
    p.kernel.push_back(k);
    p.stride.push_back(s);
    p.padding.push_back(pad);
  }
  const Values values = d.signed_values();
  ir::NodeId x = b.input(in, values);
  if (border_before > 0 || border_after > 0) {
    const std::uint32_t axis = 2 + onnx_axis;
    ir::Shape side = in;
    std::vector<ir::NodeId> parts;
    if (border_before > 0) {
      side.dims[axis] = border_before;
      parts.push_back(b.constant(side, -std::numeric_limits<float>::infinity()));
    }
    parts.push_back(x);
    if (border_after > 0) {
      side.dims[axis] = border_after;
      parts.push_back(b.constant(side, -std::numeric_limits<float>::infinity()));
    }
    x = b.add(ir::OpKind::concat, parts, ir::AxisParams{.axis = axis});
  }
  if (!onnx_text.empty()) b.note(onnx_text);
  b.note(std::string(max ? "max_pool " : "avg_pool ") + std::to_string(r) + "-D" +
         (global ? " global" : "") + " kernel " + list(p.kernel) + " stride " + list(p.stride) +
         " padding " + list(p.padding));
  return b.target(max ? ir::OpKind::max_pool : ir::OpKind::avg_pool, {x}, std::move(p));
}

ir::NodeId draw_matmul(CaseBuilder& b) {
  Draw& d = b.draw();
  const std::uint32_t form = d.between(0, 4);  // 0-1: 2-D, 2-3: equal 3-D batch, 4: general
  const bool wide = d.chance(0.25);
  const ir::Dim m = d.between(1, wide ? 64 : 24);
  const ir::Dim k = d.between(1, wide ? 160 : 48);
  const ir::Dim n = d.between(1, wide ? 64 : 24);
  ir::Shape a;
  ir::Shape c;
  if (form <= 1) {
    a = ir::Shape{{m, k}};
    c = ir::Shape{{k, n}};
  } else if (form <= 3) {
    const ir::Dim batch = d.between(1, 4);
    a = ir::Shape{{batch, m, k}};
    c = ir::Shape{{batch, k, n}};
  } else {
    const std::uint32_t ar = d.between(1, 4);
    const std::uint32_t br = d.between(1, 4);
    const std::uint32_t batch = std::max({ar, br, 2U}) - 2;
    std::vector<ir::Dim> extents;
    for (std::uint32_t i = 0; i < batch; ++i)
      extents.push_back(d.between(1, 3));
    for (std::uint32_t i = batch + 2 - ar; i < batch; ++i) {
      a.dims.push_back(d.chance(0.4) ? 1 : extents[i]);
    }
    for (std::uint32_t i = batch + 2 - br; i < batch; ++i) {
      c.dims.push_back(d.chance(0.4) ? 1 : extents[i]);
    }
    if (ar >= 2) a.dims.push_back(m);
    a.dims.push_back(k);
    c.dims.push_back(k);
    if (br >= 2) c.dims.push_back(n);
  }
  const ir::NodeId x = b.input(a, d.signed_values());
  const ir::NodeId y = b.input(c, d.signed_values());
  b.note(form == 4 ? "matmul, broadcast batch" : "matmul");
  return b.target(ir::OpKind::matmul, {x, y});
}

ir::NodeId draw_linear(CaseBuilder& b) {
  Draw& d = b.draw();
  ir::Shape in = d.shape(1, 3, 4, 24);
  const ir::Dim features = d.between(1, d.chance(0.25) ? 256 : 64);
  in.dims.push_back(features);
  const ir::Dim out = d.between(1, 48);
  ir::Shape declared = in;
  declared.dims.back() = out;
  const ir::NodeId x = b.input(in, d.signed_values());
  const ir::NodeId linear = b.target(ir::OpKind::linear, {x}, {}, declared);
  b.weight(linear, "weight", ir::Shape{{out, features}}, d.signed_values());
  const bool bias = d.chance(0.7);
  if (bias) b.weight(linear, "bias", ir::Shape{{out}}, d.signed_values());
  b.note("linear " + std::to_string(features) + " -> " + std::to_string(out) +
         (bias ? " with bias" : " no bias"));
  return linear;
}

ir::ClampParams draw_clamp(CaseBuilder& b, const Values& values) {
  Draw& d = b.draw();
  ir::ClampParams p;
  switch (d.between(0, 4)) {
    case 0:
      p = {.min = 0.0F, .max = 6.0F};
      break;
    case 1:
      p.min = d.value(values);
      break;
    case 2:
      p.max = d.value(values);
      break;
    case 3:
      p.min = p.max = d.value(values);
      break;
    default: {
      const float lo = d.value(values);
      const float hi = d.value(values);
      p = {.min = std::min(lo, hi), .max = std::max(lo, hi)};
    }
  }
  b.note("clamp min " + bound(p.min) + " max " + bound(p.max));
  return p;
}

ir::GeluParams draw_gelu(CaseBuilder& b) {
  const bool tanh = b.draw().chance(0.5);
  b.note(tanh ? "gelu tanh" : "gelu erf");
  return {.approximate = tanh ? ir::GeluApproximation::tanh : ir::GeluApproximation::none};
}

ir::NodeId draw_broadcast_to(CaseBuilder& b, const ir::Shape& to, const Values& values,
                             bool target) {
  Draw& d = b.draw();
  ir::Shape from;
  const std::uint32_t drop = d.between(0, static_cast<std::uint32_t>(to.rank() - 1));
  for (std::size_t a = drop; a < to.rank(); ++a) {
    from.dims.push_back(d.chance(0.5) ? 1 : to.dims[a]);
  }
  const ir::NodeId small = b.input(from, values);
  b.note("broadcast " + ir::to_string(from) + " to " + ir::to_string(to));
  const ir::BroadcastParams params{.from = from, .to = to};
  return target ? b.target(ir::OpKind::broadcast_to, {small}, params)
                : b.add(ir::OpKind::broadcast_to, {small}, params);
}

ir::NodeId draw_operand(CaseBuilder& b, const ir::Shape& shape, const Values& values,
                        std::optional<ir::NodeId> self, Operand operand) {
  Draw& d = b.draw();
  const std::uint32_t style = d.between(0, 9);
  if (self && style == 9) {
    b.note("operand: the same value");
    return *self;
  }
  if (style < 5 || shape.rank() == 0 || operand == Operand::same_shape) {
    return b.input(shape, values);
  }
  return draw_broadcast_to(b, shape, values);
}

ir::NodeId draw_unary(CaseBuilder& b, ir::OpKind kind, const Values& values, ir::OpParams params) {
  const ir::NodeId x = b.input(b.draw().shape(1, 4, 16), values);
  return b.target(kind, {x}, std::move(params));
}

ir::NodeId draw_binary(CaseBuilder& b, ir::OpKind kind, Operand operand) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 16);
  const Values values = d.signed_values();
  const ir::NodeId x = b.input(shape, values);
  const ir::NodeId y = draw_operand(b, shape, values, x, operand);
  if (d.chance(0.5)) {
    b.note("operands swapped");
    return b.target(kind, {y, x});
  }
  return b.target(kind, {x, y});
}

}  // namespace nnplan::oracles
