// Reference kernel: resize (ONNX's Resize, every mode and coordinate mapping but
// tf_crop_and_resize), forward and VJP.
//
// Each axis is interpolated on its own, as ONNX's reference does. For output index o the source
// coordinate x is the coordinate mode's formula over the axis's scale (the `scales` entry, or
// output / input as a real number when the model gave sizes; ONNX's formulas, the resized length
// in them being scale * input):
//   half_pixel (o + 0.5) / scale - 0.5; pytorch_half_pixel the same, or -0.5 where the resized
//   length is 1; align_corners o * (in - 1) / (resized - 1), or 0 where it is 1; asymmetric
//   o / scale; tf_half_pixel_for_nn (o + 0.5) / scale.
// Its taps are the n input indices nearest x, ties to the lower, an index past either end
// reading the edge element: n = 1 for `nearest` (the nearest mode's pick between floor(x) and
// floor(x) + 1), 2 for `linear` (weights 1 - t and t, t the fraction of x; at a whole x the taps
// x - 1 and x, all of the weight on x), 4 for `cubic` (Keys' kernel with cubic_coeff_a; at a
// whole x the taps x - 2 to x + 1, all of the weight on x). Under exclude_outside the linear and
// cubic taps outside the input weigh 0 and the rest are renormalized (nearest has no taps to
// exclude). An axis whose every output index reads its own input index with weight 1 (a scale of
// 1 under most mappings) is read directly.
//
// The axes are interpolated one at a time, the last first, in float64: each output element is
// ONNX's nested sum, the first axis outermost, and the result is rounded to float32 once (ONNX's
// reference computes in float64 and rounds at the end). The VJP runs the same steps transposed,
// the first axis first, in float64, and adds the result, rounded once, to dX.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "runtime/providers/reference/reference_handlers.hpp"
#include "runtime/providers/reference/resize_taps.hpp"
#include "runtime/providers/reference/row_major.hpp"

namespace nnplan::runtime::reference {
namespace {

using ir::CoordinateTransformation;
using ir::ResizeNearest;
using ir::SampleMode;

// The source coordinate of output index `o` on an axis of `in` elements scaled by `scale`.
double source_coordinate(CoordinateTransformation mode, double o, double scale, double in) {
  const double resized = scale * in;
  switch (mode) {
    case CoordinateTransformation::align_corners:
      return resized == 1 ? 0.0 : o * (in - 1) / (resized - 1);
    case CoordinateTransformation::asymmetric:
      return o / scale;
    case CoordinateTransformation::pytorch_half_pixel:
      return resized == 1 ? -0.5 : (o + 0.5) / scale - 0.5;
    case CoordinateTransformation::tf_half_pixel_for_nn:
      return (o + 0.5) / scale;
    case CoordinateTransformation::half_pixel:
    case CoordinateTransformation::output_half_pixel:  // roi_align's; check refuses it here
      break;
  }
  return (o + 0.5) / scale - 0.5;
}

// The nearest mode's pick between floor(x) and floor(x) + 1.
double nearest_index(ResizeNearest mode, double x) {
  const double f = std::floor(x);
  const double frac = x - f;
  switch (mode) {
    case ResizeNearest::floor:
      return f;
    case ResizeNearest::ceil:
      return std::ceil(x);
    case ResizeNearest::round_prefer_ceil:
      return frac >= 0.5 ? f + 1 : f;
    case ResizeNearest::round_prefer_floor:
      break;
  }
  return frac > 0.5 ? f + 1 : f;
}

// Keys' cubic kernel at the four taps around a point of fraction t (t in (0, 1]).
std::array<double, 4> cubic_weights(double t, double a) {
  const double s = 1 - t;
  return {((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
          ((a + 2) * t - (a + 3)) * t * t + 1, ((a + 2) * s - (a + 3)) * s * s + 1,
          ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
}

}  // namespace

ResizeAxisTaps resize_axis_taps(const ir::ResizeParams& p, std::size_t axis, ir::Dim in,
                                ir::Dim out) {
  const std::size_t n = p.mode == SampleMode::nearest ? 1 : p.mode == SampleMode::linear ? 2 : 4;
  const double scale = p.scales.empty() ? static_cast<double>(out) / static_cast<double>(in)
                                        : static_cast<double>(p.scales[axis]);
  const auto last = static_cast<double>(in - 1);
  ResizeAxisTaps taps{.count = n,
                      .index = std::vector<std::size_t>(out * n),
                      .weight = std::vector<double>(out * n)};
  bool identity = in == out;
  for (ir::Dim o = 0; o < out; ++o) {
    const double x = source_coordinate(p.coordinate_transformation_mode, static_cast<double>(o),
                                       scale, static_cast<double>(in));
    std::array<double, 4> index{};
    std::array<double, 4> w{};
    if (n == 1) {
      index[0] = nearest_index(p.nearest_mode, x);
      w[0] = 1;
    } else {
      // The window ends at ceil(x) + n/2 - 1 (at a whole x, x + n/2 - 1, all of the weight on
      // x), and the fraction is 1 there.
      const double f = std::floor(x);
      const double t = x == f ? 1.0 : x - f;
      const double first = (x == f ? x - 1 : f) - static_cast<double>(n / 2 - 1);
      if (n == 2) {
        w[0] = 1 - t;
        w[1] = t;
      } else {
        w = cubic_weights(t, p.cubic_coeff_a);
      }
      for (std::size_t j = 0; j < n; ++j)
        index[j] = first + static_cast<double>(j);
      if (p.exclude_outside) {
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
          if (index[j] < 0 || index[j] > last) w[j] = 0;
          sum += w[j];
        }
        for (std::size_t j = 0; j < n; ++j)
          w[j] /= sum;
      }
    }
    double own = 0;
    for (std::size_t j = 0; j < n; ++j) {
      // A non-finite coordinate (an overflowing scale) clamps like any other.
      const double clamped = std::isnan(index[j]) ? 0.0 : std::clamp(index[j], 0.0, last);
      const auto at = static_cast<std::size_t>(clamped);
      if (at == o) {
        own += w[j];
      } else if (w[j] != 0) {
        identity = false;
      }
      taps.index[o * n + j] = at;
      taps.weight[o * n + j] = w[j];
    }
    identity = identity && own == 1;
  }
  if (identity) {
    taps.count = 1;
    taps.identity = true;
    taps.index.resize(out);
    taps.weight.assign(out, 1.0);
    for (ir::Dim o = 0; o < out; ++o)
      taps.index[o] = o;
  }
  return taps;
}

namespace {

// The extents [before, axis, after] of `shape` around `axis`.
struct AxisView {
  std::size_t before = 1, extent = 1, after = 1;
};
AxisView view_of(const ir::Shape& shape, std::size_t axis) {
  return {.before = extent_product(shape, 0, axis),
          .extent = static_cast<std::size_t>(shape.dims[axis]),
          .after = extent_product(shape, axis + 1, shape.rank())};
}

// `v` (of shape `from`) interpolated along `axis` to `out` elements by `taps`: each output the
// sum, in tap order, of the taps' weights times the elements they read.
std::vector<double> along_axis(const std::vector<double>& v, const ir::Shape& from,
                               std::size_t axis, ir::Dim out, const ResizeAxisTaps& taps) {
  const AxisView in = view_of(from, axis);
  std::vector<double> result(in.before * static_cast<std::size_t>(out) * in.after, 0.0);
  for (std::size_t b = 0; b < in.before; ++b) {
    for (std::size_t o = 0; o < out; ++o) {
      double* row = result.data() + (b * out + o) * in.after;
      for (std::size_t j = 0; j < taps.count; ++j) {
        const double w = taps.weight[o * taps.count + j];
        const double* src = v.data() + (b * in.extent + taps.index[o * taps.count + j]) * in.after;
        for (std::size_t a = 0; a < in.after; ++a)
          row[a] += w * src[a];
      }
    }
  }
  return result;
}

// The transpose of along_axis: `g` (of shape `from`, `out` along `axis`) sent back to `in`
// elements along `axis`, each output's gradient times each tap's weight added at the element the
// tap read.
std::vector<double> along_axis_transposed(const std::vector<double>& g, const ir::Shape& from,
                                          std::size_t axis, ir::Dim in,
                                          const ResizeAxisTaps& taps) {
  const AxisView out = view_of(from, axis);
  std::vector<double> result(out.before * static_cast<std::size_t>(in) * out.after, 0.0);
  for (std::size_t b = 0; b < out.before; ++b) {
    for (std::size_t o = 0; o < out.extent; ++o) {
      const double* row = g.data() + (b * out.extent + o) * out.after;
      for (std::size_t j = 0; j < taps.count; ++j) {
        const double w = taps.weight[o * taps.count + j];
        double* dst =
            result.data() +
            (b * static_cast<std::size_t>(in) + taps.index[o * taps.count + j]) * out.after;
        for (std::size_t a = 0; a < out.after; ++a)
          dst[a] += w * row[a];
      }
    }
  }
  return result;
}

// Every axis's taps for resizing X of shape `xs` to `ys` (an empty axis has none to take).
std::vector<ResizeAxisTaps> all_taps(const ir::Node& node, const ir::Shape& xs,
                                     const ir::Shape& ys) {
  const auto& p = std::get<ir::ResizeParams>(node.params);
  std::vector<ResizeAxisTaps> taps(xs.rank());
  for (std::size_t i = 0; i < xs.rank(); ++i) {
    taps[i] = xs.dims[i] == 0 ? ResizeAxisTaps{.identity = true}
                              : resize_axis_taps(p, i, xs.dims[i], ys.dims[i]);
  }
  return taps;
}

void resize_forward(const KernelCall& call) {
  const ir::Shape& xs = *call.inputs[0].shape;
  const ir::Shape& ys = call.node.shape;
  float* y = call.output.data<float>();
  if (call.output.size() == 0) return;
  const std::vector<ResizeAxisTaps> taps = all_taps(call.node, xs, ys);
  const float* x = call.inputs[0].data<float>();
  std::vector<double> v(x, x + call.inputs[0].size());
  ir::Shape now = xs;
  for (std::size_t k = xs.rank(); k-- > 0;) {
    if (taps[k].identity) continue;
    v = along_axis(v, now, k, ys.dims[k], taps[k]);
    now.dims[k] = ys.dims[k];
  }
  for (std::size_t i = 0; i < v.size(); ++i)
    y[i] = static_cast<float>(v[i]);
}

void resize_vjp(const VjpCall& call) {
  float* dx = call.input_grads[0].data<float>();
  if (dx == nullptr || call.inputs[0].size() == 0) return;
  const ir::Shape& xs = *call.inputs[0].shape;
  const ir::Shape& ys = call.node.shape;
  const std::vector<ResizeAxisTaps> taps = all_taps(call.node, xs, ys);
  const float* gy = call.output_grad.data<float>();
  std::vector<double> g(gy, gy + call.output.size());
  ir::Shape now = ys;
  for (std::size_t k = 0; k < xs.rank(); ++k) {
    if (taps[k].identity) continue;
    g = along_axis_transposed(g, now, k, xs.dims[k], taps[k]);
    now.dims[k] = xs.dims[k];
  }
  for (std::size_t i = 0; i < g.size(); ++i)
    dx[i] += static_cast<float>(g[i]);
}

Expected<void> resize_guard(const KernelCall& call) {
  return ir_shape_guard(call, backend::BackendOp::resize);
}

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/resize_test.cpp"};

constexpr ReferenceHandler kHandlers[] = {
    {backend::BackendOp::resize,
     {.symbol = "nnplan::runtime::reference::resize_forward",
      .forward = resize_forward,
      .vjp = resize_vjp,
      .shape_guard = resize_guard,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
};

}  // namespace

std::span<const ReferenceHandler> resize_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::reference
