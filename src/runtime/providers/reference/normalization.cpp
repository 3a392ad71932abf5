// Reference kernels: the normalization family. batch_norm (IR kind batch_norm_eval) applies
// per-channel statistics from its payloads; layer_norm (IR kind layernorm) normalizes each
// slice over the axes from `axis` on with its own population mean and variance.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "runtime/providers/reference/reference_handlers.hpp"
#include "runtime/providers/reference/row_major.hpp"

namespace nnplan::runtime::reference {
namespace {

constexpr double kLayerNormDefaultEpsilon = 1e-5;

Expected<void> fail(std::string message) {
  return std::unexpected(make_error(ErrorKind::invalid_input, std::move(message)));
}

// Checks that the float32 weight `name` is present (when `required`) with shape `want`: the
// payload, or the input standing for it (weights as values).
Expected<void> check_weight(const KernelCall& call, std::string_view name, const ir::Shape& want,
                            bool required, std::string_view op) {
  if (const TensorRef* v = weight_value(call, name)) {
    if (v->dtype != ir::DType::float32 || *v->shape != want) {
      return std::unexpected(
          operand_error("weight " + std::string(name), *v->shape,
                        std::string(op) + " needs float32 " + ir::to_string(want)));
    }
    return {};
  }
  const ir::WeightTensor* w = call.weights.find(name);
  if (w == nullptr) {
    if (!required) return {};
    return fail(std::string(op) + " needs the weight " + std::string(name) + " of shape " +
                ir::to_string(want));
  }
  if (w->dtype() != ir::DType::float32 || w->shape() != want ||
      w->floats().size() != element_count_of(want)) {
    return std::unexpected(
        operand_error("weight " + std::string(name), w->shape(),
                      std::string(op) + " needs float32 " + ir::to_string(want)));
  }
  return {};
}

Expected<void> batch_norm_shape_guard(const KernelCall& call) {
  if (call.node.kind != ir::OpKind::batch_norm_eval ||
      !std::holds_alternative<ir::ChannelAxisParams>(call.node.params)) {
    return fail("node kind " + std::string(ir::to_string(call.node.kind)) +
                " is not batch_norm_eval");
  }
  if (auto ok = check_arity_and_output(call, call.node.parents.size()); !ok) return ok;
  const auto& p = std::get<ir::ChannelAxisParams>(call.node.params);
  const ir::Shape& in = *call.inputs[0].shape;
  if (p.channel_axis >= in.rank() || in.dims[p.channel_axis] != p.channels) {
    return std::unexpected(operand_error(
        "input 0", in,
        "batch_norm needs " + std::to_string(p.channels) + " channels on axis " +
            std::to_string(p.channel_axis)));
  }
  if (call.node.shape != in) {
    return std::unexpected(operand_error("input 0", in,
                                         "batch_norm keeps the shape, the node declares " +
                                             ir::to_string(call.node.shape)));
  }
  ir::Shape channels;
  channels.dims.push_back(p.channels);
  for (const std::string_view name : {"scale", "bias", "mean", "var"}) {
    if (auto ok = check_weight(call, name, channels, true, "batch_norm"); !ok) return ok;
  }
  if (!call.weights.attribute("epsilon").has_value()) {
    return fail("batch_norm needs the attribute epsilon");
  }
  return {};
}

// The geometry of a channel-axis op: `outer` slices before the axis, `channels`, and `inner`
// elements after it.
struct ChannelSplit {
  std::size_t outer = 1;
  std::size_t channels = 1;
  std::size_t inner = 1;
};

ChannelSplit split_of(const ir::Shape& in, std::size_t axis) {
  return {.outer = extent_product(in, 0, axis),
          .channels = static_cast<std::size_t>(in.dims[axis]),
          .inner = extent_product(in, axis + 1, in.rank())};
}

}  // namespace

// Per element of channel c, in float32 and exactly this order:
//   y = ((x - mean[c]) / sqrt(var[c] + epsilon)) * scale[c] + bias[c]
// with epsilon rounded to float32 and sqrt(var[c] + epsilon) computed once per channel slice.
void batch_norm_forward(const KernelCall& call) {
  const auto& p = std::get<ir::ChannelAxisParams>(call.node.params);
  const ChannelSplit s = split_of(*call.inputs[0].shape, p.channel_axis);
  const float eps = static_cast<float>(*call.weights.attribute("epsilon"));
  const float* scale = slot_data(call, "scale");
  const float* bias = slot_data(call, "bias");
  const float* mean = slot_data(call, "mean");
  const float* var = slot_data(call, "var");
  const float* x = call.inputs[0].data<float>();
  float* y = call.output.data<float>();
  for (std::size_t o = 0; o < s.outer; ++o) {
    for (std::size_t c = 0; c < s.channels; ++c) {
      const float denom = std::sqrt(var[c] + eps);
      const std::size_t base = (o * s.channels + c) * s.inner;
      for (std::size_t i = 0; i < s.inner; ++i) {
        y[base + i] = (x[base + i] - mean[c]) / denom * scale[c] + bias[c];
      }
    }
  }
}

// With d = sqrt(var + eps) and xhat = (x - mean) / d, per element:
//   dx = (g * scale) / d
//   dscale += g * xhat, dbias += g, dmean += -((g * scale) / d),
//   dvar += g * (((-0.5 * scale) * xhat) / (var + eps)).
// Each weight gradient accumulates into its buffer over the channel's elements in index order.
void batch_norm_vjp(const VjpCall& call) {
  const auto& p = std::get<ir::ChannelAxisParams>(call.node.params);
  const ChannelSplit s = split_of(*call.inputs[0].shape, p.channel_axis);
  const float eps = static_cast<float>(*call.weights.attribute("epsilon"));
  const float* scale = slot_data(call, "scale");
  const float* mean = slot_data(call, "mean");
  const float* var = slot_data(call, "var");
  float* dscale = weight_grad(call, "scale");
  float* dbias = weight_grad(call, "bias");
  float* dmean = weight_grad(call, "mean");
  float* dvar = weight_grad(call, "var");
  const float* x = call.inputs[0].data<float>();
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  for (std::size_t o = 0; o < s.outer; ++o) {
    for (std::size_t c = 0; c < s.channels; ++c) {
      const float shifted_var = var[c] + eps;
      const float denom = std::sqrt(shifted_var);
      const float var_factor = -0.5F * scale[c];
      const std::size_t base = (o * s.channels + c) * s.inner;
      for (std::size_t i = 0; i < s.inner; ++i) {
        const float gi = g[base + i];
        const float xhat = (x[base + i] - mean[c]) / denom;
        const float gx = gi * scale[c] / denom;
        if (dx != nullptr) dx[base + i] += gx;
        if (dscale != nullptr) dscale[c] += gi * xhat;
        if (dbias != nullptr) dbias[c] += gi;
        if (dmean != nullptr) dmean[c] += -gx;
        if (dvar != nullptr) dvar[c] += gi * (var_factor * xhat / shifted_var);
      }
    }
  }
}

namespace {

Expected<void> layer_norm_shape_guard(const KernelCall& call) {
  if (call.node.kind != ir::OpKind::layernorm ||
      !std::holds_alternative<ir::AxisParams>(call.node.params)) {
    return fail("node kind " + std::string(ir::to_string(call.node.kind)) + " is not layernorm");
  }
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  const std::uint32_t axis = std::get<ir::AxisParams>(call.node.params).axis;
  const ir::Shape& in = *call.inputs[0].shape;
  if (axis >= in.rank()) {
    return std::unexpected(operand_error(
        "input 0", in, "layer_norm over the axes from " + std::to_string(axis) +
                           " on needs rank at least " + std::to_string(axis + 1)));
  }
  if (call.node.shape != in) {
    return std::unexpected(operand_error("input 0", in,
                                         "layer_norm keeps the shape, the node declares " +
                                             ir::to_string(call.node.shape)));
  }
  ir::Shape normalized;
  for (std::size_t i = axis; i < in.rank(); ++i) normalized.dims.push_back(in.dims[i]);
  for (const std::string_view name : {"gamma", "beta"}) {
    if (auto ok = check_weight(call, name, normalized, false, "layer_norm"); !ok) return ok;
  }
  return {};
}

// One layer_norm call's slices: `outer` slices of n elements (the axes from `axis` on), n as a
// float, and epsilon (default 1e-5) rounded to float32.
struct LayerNormSlices {
  std::size_t outer = 1;
  std::size_t n = 1;
  float count = 1.0F;
  float eps = 0.0F;
};

LayerNormSlices layer_norm_slices(const ir::Node& node, const ir::Shape& shape,
                                  const NodeWeights& weights) {
  const std::uint32_t axis = std::get<ir::AxisParams>(node.params).axis;
  LayerNormSlices s;
  s.outer = extent_product(shape, 0, axis);
  s.n = extent_product(shape, axis, shape.rank());
  s.count = static_cast<float>(s.n);
  s.eps = static_cast<float>(weights.attribute("epsilon").value_or(kLayerNormDefaultEpsilon));
  return s;
}

// One slice's mean and d = sqrt(var + epsilon), both sums left to right from 0.
struct SliceMoments {
  float mean = 0.0F;
  float denom = 1.0F;
};

SliceMoments slice_moments(const float* x, const LayerNormSlices& s) {
  float sum = 0.0F;
  for (std::size_t j = 0; j < s.n; ++j)
    sum += x[j];
  const float mean = sum / s.count;
  float squares = 0.0F;
  for (std::size_t j = 0; j < s.n; ++j)
    squares += (x[j] - mean) * (x[j] - mean);
  return {.mean = mean, .denom = std::sqrt(squares / s.count + s.eps)};
}

}  // namespace

// Per slice of n elements (the axes from `axis` on), in float32:
//   mean = (x[0] + x[1] + ... left to right from 0) / n
//   var = ((x[0] - mean) * (x[0] - mean) + ... left to right from 0) / n   (population)
//   y[j] = ((x[j] - mean) / sqrt(var + epsilon)) * gamma[j] + beta[j]
// with gamma and beta skipped when absent and epsilon (default 1e-5) rounded to float32.
void layer_norm_forward(const KernelCall& call) {
  const LayerNormSlices s = layer_norm_slices(call.node, *call.inputs[0].shape, call.weights);
  const std::size_t n = s.n;
  const float* gamma = weight_data(call.weights, "gamma");
  const float* beta = weight_data(call.weights, "beta");
  for (std::size_t o = 0; o < s.outer; ++o) {
    const float* x = call.inputs[0].data<float>() + o * n;
    float* y = call.output.data<float>() + o * n;
    const auto [mean, denom] = slice_moments(x, s);
    for (std::size_t j = 0; j < n; ++j) {
      float v = (x[j] - mean) / denom;
      if (gamma != nullptr) v = v * gamma[j];
      if (beta != nullptr) v = v + beta[j];
      y[j] = v;
    }
  }
}

// Per slice, with mean, d = sqrt(var + epsilon) and xhat[j] = (x[j] - mean) / d recomputed as
// in the forward pass and h[j] = g[j] * gamma[j] (g[j] without gamma):
//   a = (h[0] + h[1] + ...) / n, b = (h[0] * xhat[0] + h[1] * xhat[1] + ...) / n
//   dx[j] += ((h[j] - a) - xhat[j] * b) / d
//   dgamma[j] += g[j] * xhat[j], dbeta[j] += g[j]   (accumulated over slices in order)
// every sum left to right from 0.
void layer_norm_vjp(const VjpCall& call) {
  const LayerNormSlices s = layer_norm_slices(call.node, *call.inputs[0].shape, call.weights);
  const std::size_t n = s.n;
  const float count = s.count;
  const float* gamma = weight_data(call.weights, "gamma");
  float* dgamma = gamma != nullptr ? weight_grad(call, "gamma") : nullptr;
  float* dbeta = weight_data(call.weights, "beta") != nullptr ? weight_grad(call, "beta")
                                                               : nullptr;
  for (std::size_t o = 0; o < s.outer; ++o) {
    const float* x = call.inputs[0].data<float>() + o * n;
    const float* g = call.output_grad.data<float>() + o * n;
    float* dx = call.input_grads[0].data<float>() + o * n;
    const auto [mean, denom] = slice_moments(x, s);
    float h_sum = 0.0F;
    float hx_sum = 0.0F;
    for (std::size_t j = 0; j < n; ++j) {
      const float xhat = (x[j] - mean) / denom;
      const float h = gamma != nullptr ? g[j] * gamma[j] : g[j];
      h_sum += h;
      hx_sum += h * xhat;
      if (dgamma != nullptr) dgamma[j] += g[j] * xhat;
      if (dbeta != nullptr) dbeta[j] += g[j];
    }
    const float a = h_sum / count;
    const float b = hx_sum / count;
    for (std::size_t j = 0; j < n; ++j) {
      const float xhat = (x[j] - mean) / denom;
      const float h = gamma != nullptr ? g[j] * gamma[j] : g[j];
      dx[j] += (h - a - xhat * b) / denom;
    }
  }
}

std::span<const ReferenceHandler> normalization_handlers() {
  static constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/normalization_test.cpp"};
  static const ReferenceHandler kTable[] = {
      {.op = backend::BackendOp::batch_norm,
       .handler = {.symbol = "nnplan::runtime::reference::batch_norm_forward",
                   .forward = batch_norm_forward,
                   .vjp = batch_norm_vjp,
                   .shape_guard = batch_norm_shape_guard,
                   .layout_guard = canonical_layout_guard,
                   .forward_tests = kTests,
                   .vjp_tests = kTests}},
      {.op = backend::BackendOp::layer_norm,
       .handler = {.symbol = "nnplan::runtime::reference::layer_norm_forward",
                   .forward = layer_norm_forward,
                   .vjp = layer_norm_vjp,
                   .shape_guard = layer_norm_shape_guard,
                   .layout_guard = canonical_layout_guard,
                   .forward_tests = kTests,
                   .vjp_tests = kTests}},
  };
  return kTable;
}

}  // namespace nnplan::runtime::reference
