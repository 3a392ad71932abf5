// Reference kernel: grid_sample (ONNX's GridSample over [N, C, H, W]), forward and VJP.
//
// For each output point (n, oy, ox), grid[n, oy, ox] = (gx, gy) in [-1, 1] is mapped to the pixel
// coordinates x = (gx + 1) / 2 * (W - 1) with align_corners, else ((gx + 1) * W - 1) / 2 (y
// likewise with H); `nearest` rounds them to the nearest integer, ties to even. When either lies
// outside the border ([0, W - 1] with align_corners, else [-0.5, W - 0.5]), `border` clamps both
// to [0, W - 1] and [0, H - 1] and `reflection` reflects both at the border until inside. The
// value is then a weighted sum of taps: the nearest pixel; the four around the point with
// bilinear weights; or the sixteen around it with Keys' cubic weights (a = -0.75), rows then
// columns. A tap outside the image reads 0 (`zeros`), the nearest edge pixel (`border`), or the
// pixel at its index reflected at the border and truncated toward zero (`reflection`); both
// coordinates are clamped or reflected when either is outside, as ONNX Runtime and ONNX's 2-D
// reference do. Coordinates, weights and sums are float64, the result rounded to float32 once
// (ONNX's reference keeps float32 coordinates; the two agree to float32 rounding). A non-finite or
// huge coordinate reflects to the border, never to a read outside the image. The VJP adds each
// tap's weight times the output gradient into dX at the pixel the tap read, and into dgrid the
// derivative of the weights along x and y times the taps, through the coordinate mapping (0 where a
// clamp held the coordinate, -1 per reflection; nearest: none).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <span>

#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {
namespace {

// One image's geometry and the node's parameters.
struct Sampler {
  std::ptrdiff_t h = 0, w = 0;
  ir::GridSampleParams p;
  double x_min = 0, x_max = 0, y_min = 0, y_max = 0;

  Sampler(const ir::Node& node, const ir::Shape& x)
      : h(static_cast<std::ptrdiff_t>(x.dims[2])),
        w(static_cast<std::ptrdiff_t>(x.dims[3])),
        p(std::get<ir::GridSampleParams>(node.params)) {
    const double lo = p.align_corners ? 0.0 : -0.5;
    const double shrink = p.align_corners ? 1.0 : 0.5;
    x_min = lo;
    y_min = lo;
    x_max = static_cast<double>(w) - shrink;
    y_max = static_cast<double>(h) - shrink;
  }
};

// The pixel coordinate of normalized `n` along an axis of `length`, and its derivative.
double denormalize(double n, std::ptrdiff_t length, bool align_corners) {
  const auto l = static_cast<double>(length);
  return align_corners ? (n + 1) / 2.0 * (l - 1) : ((n + 1) * l - 1) / 2.0;
}
double denormalize_slope(std::ptrdiff_t length, bool align_corners) {
  const auto l = static_cast<double>(length);
  return align_corners ? (l - 1) / 2.0 : l / 2.0;
}

// `x` reflected at lo and hi until inside, and the derivative of that map (+1 or -1); an empty
// range (one pixel with align_corners) gives lo and 0.
struct Reflected {
  double x;
  double slope;
};
Reflected reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (x >= lo && x <= hi) return {x, 1.0};
  if (!(range > 0) || !std::isfinite(x)) return {lo, 0.0};
  const bool below = x < lo;
  const double d = below ? lo - x : x - hi;
  const double times = std::trunc(d / range);
  const double r = d - times * range;
  const bool even = std::fmod(times, 2.0) == 0.0;
  // Far from the image, d / range loses precision: the result is kept inside [lo, hi].
  const auto inside = [&](Reflected f) { return Reflected{std::clamp(f.x, lo, hi), f.slope}; };
  if (below) return inside(even ? Reflected{lo + r, -1.0} : Reflected{hi - r, 1.0});
  return inside(even ? Reflected{hi - r, -1.0} : Reflected{lo + r, 1.0});
}

// Keys' cubic convolution weights of the four taps around a point at offset t in [0, 1) past
// the second, and their derivatives in t.
constexpr double kCubicA = -0.75;
std::array<double, 4> cubic_weights(double t) {
  const auto near = [](double s) { return ((kCubicA + 2) * s - (kCubicA + 3)) * s * s + 1; };
  const auto far = [](double s) {
    return ((kCubicA * s - 5 * kCubicA) * s + 8 * kCubicA) * s - 4 * kCubicA;
  };
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}
std::array<double, 4> cubic_slopes(double t) {
  const auto near = [](double s) { return 3 * (kCubicA + 2) * s * s - 2 * (kCubicA + 3) * s; };
  const auto far = [](double s) { return 3 * kCubicA * s * s - 10 * kCubicA * s + 8 * kCubicA; };
  return {far(t + 1), near(t), -near(1 - t), -far(2 - t)};
}

// One tap: the pixel it reads (row-major within the image; -1 for a zero) and its weight with
// that weight's derivatives in x and y.
struct Tap {
  std::ptrdiff_t at = -1;
  double weight = 0, dx = 0, dy = 0;
};
struct Taps {
  std::array<Tap, 16> taps{};
  std::size_t count = 0;
  double slope_x = 0, slope_y = 0;  // d(pixel coordinate) / d(grid value), through the padding
};

// The pixel a tap at (r, c) reads under the padding mode, or -1 for a zero.
std::ptrdiff_t pixel_at(const Sampler& s, std::ptrdiff_t r, std::ptrdiff_t c) {
  switch (s.p.padding_mode) {
    case ir::GridSamplePadding::zeros:
      return r >= 0 && r < s.h && c >= 0 && c < s.w ? r * s.w + c : -1;
    case ir::GridSamplePadding::border:
      r = std::clamp<std::ptrdiff_t>(r, 0, s.h - 1);
      c = std::clamp<std::ptrdiff_t>(c, 0, s.w - 1);
      return r * s.w + c;
    case ir::GridSamplePadding::reflection:
      break;
  }
  c = std::clamp<std::ptrdiff_t>(
      static_cast<std::ptrdiff_t>(reflect(static_cast<double>(c), s.x_min, s.x_max).x), 0, s.w - 1);
  r = std::clamp<std::ptrdiff_t>(
      static_cast<std::ptrdiff_t>(reflect(static_cast<double>(r), s.y_min, s.y_max).x), 0, s.h - 1);
  return r * s.w + c;
}

Taps taps_of(const Sampler& s, double gx, double gy) {
  Taps t;
  double x = denormalize(gx, s.w, s.p.align_corners);
  double y = denormalize(gy, s.h, s.p.align_corners);
  const bool nearest = s.p.mode == ir::SampleMode::nearest;
  if (nearest) {
    x = std::nearbyint(x);
    y = std::nearbyint(y);
  }
  t.slope_x = denormalize_slope(s.w, s.p.align_corners);
  t.slope_y = denormalize_slope(s.h, s.p.align_corners);
  if (x < s.x_min || x > s.x_max || y < s.y_min || y > s.y_max) {
    if (s.p.padding_mode == ir::GridSamplePadding::border) {
      const double cx = std::clamp(x, 0.0, static_cast<double>(s.w - 1));
      const double cy = std::clamp(y, 0.0, static_cast<double>(s.h - 1));
      t.slope_x *= cx == x ? 1.0 : 0.0;
      t.slope_y *= cy == y ? 1.0 : 0.0;
      x = cx;
      y = cy;
    } else if (s.p.padding_mode == ir::GridSamplePadding::reflection) {
      const Reflected rx = reflect(x, s.x_min, s.x_max);
      const Reflected ry = reflect(y, s.y_min, s.y_max);
      x = rx.x;
      y = ry.x;
      t.slope_x *= rx.slope;
      t.slope_y *= ry.slope;
    }
  }
  if (nearest && (!(std::abs(x) < 1e15) || !(std::abs(y) < 1e15))) {
    t.count = 0;  // far outside: zeros padding reads 0
    return t;
  }
  if (nearest) {
    t.taps[0] = {.at = pixel_at(s, static_cast<std::ptrdiff_t>(y), static_cast<std::ptrdiff_t>(x)),
                 .weight = 1.0};
    t.count = 1;
    t.slope_x = 0;
    t.slope_y = 0;
    return t;
  }
  // A coordinate past every tap (zeros padding far outside, or not a number) reads only zeros.
  constexpr double kFar = 1e15;
  if (!(std::abs(x) < kFar) || !(std::abs(y) < kFar)) {
    t.count = 0;
    t.slope_x = 0;
    t.slope_y = 0;
    return t;
  }
  const double fx = std::floor(x);
  const double fy = std::floor(y);
  const auto x1 = static_cast<std::ptrdiff_t>(fx);
  const auto y1 = static_cast<std::ptrdiff_t>(fy);
  if (s.p.mode == ir::SampleMode::linear) {
    const double dx1 = x - fx, dx2 = fx + 1 - x, dy1 = y - fy, dy2 = fy + 1 - y;
    t.taps[0] = {pixel_at(s, y1, x1), dy2 * dx2, -dy2, -dx2};
    t.taps[1] = {pixel_at(s, y1, x1 + 1), dy2 * dx1, dy2, -dx1};
    t.taps[2] = {pixel_at(s, y1 + 1, x1), dy1 * dx2, -dy1, dx2};
    t.taps[3] = {pixel_at(s, y1 + 1, x1 + 1), dy1 * dx1, dy1, dx1};
    t.count = 4;
    return t;
  }
  const std::array<double, 4> cx = cubic_weights(x - fx), cy = cubic_weights(y - fy);
  const std::array<double, 4> sx = cubic_slopes(x - fx), sy = cubic_slopes(y - fy);
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 4; ++j) {
      const auto r = y1 - 1 + static_cast<std::ptrdiff_t>(i);
      const auto c = x1 - 1 + static_cast<std::ptrdiff_t>(j);
      t.taps[i * 4 + j] = {pixel_at(s, r, c), cy[i] * cx[j], cy[i] * sx[j], sy[i] * cx[j]};
    }
  }
  t.count = 16;
  return t;
}

// Calls f(n, c, plane of X, output index, taps) for every output element, the taps computed
// once per point.
template <class F>
void each_point(const Sampler& s, const ir::Shape& x, const ir::Shape& grid_shape,
                const float* grid, F&& f) {
  const auto n_count = static_cast<std::size_t>(x.dims[0]);
  const auto channels = static_cast<std::size_t>(x.dims[1]);
  const std::size_t points = static_cast<std::size_t>(grid_shape.dims[1] * grid_shape.dims[2]);
  for (std::size_t n = 0; n < n_count; ++n) {
    for (std::size_t q = 0; q < points; ++q) {
      const float* g = grid + (n * points + q) * 2;
      const Taps taps = taps_of(s, g[0], g[1]);
      for (std::size_t c = 0; c < channels; ++c)
        f(n, c, q, points, taps);
    }
  }
}

void grid_sample_forward(const KernelCall& call) {
  const ir::Shape& xs = *call.inputs[0].shape;
  const Sampler s(call.node, xs);
  const float* x = call.inputs[0].data<float>();
  float* y = call.output.data<float>();
  const auto plane = static_cast<std::size_t>(s.h * s.w);
  const auto channels = static_cast<std::size_t>(xs.dims[1]);
  each_point(s, xs, *call.inputs[1].shape, call.inputs[1].data<float>(),
             [&](std::size_t n, std::size_t c, std::size_t q, std::size_t points, const Taps& t) {
               const float* image = x + (n * channels + c) * plane;
               double sum = 0;
               for (std::size_t k = 0; k < t.count; ++k) {
                 if (t.taps[k].at >= 0) sum += t.taps[k].weight * image[t.taps[k].at];
               }
               y[(n * channels + c) * points + q] = static_cast<float>(sum);
             });
}

void grid_sample_vjp(const VjpCall& call) {
  const ir::Shape& xs = *call.inputs[0].shape;
  const Sampler s(call.node, xs);
  const float* x = call.inputs[0].data<float>();
  const float* gy = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  float* dgrid = call.input_grads[1].data<float>();
  const auto plane = static_cast<std::size_t>(s.h * s.w);
  const auto channels = static_cast<std::size_t>(xs.dims[1]);
  each_point(s, xs, *call.inputs[1].shape, call.inputs[1].data<float>(),
             [&](std::size_t n, std::size_t c, std::size_t q, std::size_t points, const Taps& t) {
               const std::size_t image = (n * channels + c) * plane;
               const double g = gy[(n * channels + c) * points + q];
               double along_x = 0;
               double along_y = 0;
               for (std::size_t k = 0; k < t.count; ++k) {
                 const Tap& tap = t.taps[k];
                 if (tap.at < 0) continue;
                 const auto at = image + static_cast<std::size_t>(tap.at);
                 if (dx != nullptr) dx[at] += static_cast<float>(tap.weight * g);
                 along_x += tap.dx * x[at];
                 along_y += tap.dy * x[at];
               }
               if (dgrid != nullptr) {
                 float* d = dgrid + (n * points + q) * 2;
                 d[0] += static_cast<float>(g * along_x * t.slope_x);
                 d[1] += static_cast<float>(g * along_y * t.slope_y);
               }
             });
}

Expected<void> grid_sample_guard(const KernelCall& call) {
  return ir_shape_guard(call, backend::BackendOp::grid_sample);
}

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/grid_sample_test.cpp"};

constexpr ReferenceHandler kHandlers[] = {
    {backend::BackendOp::grid_sample,
     {.symbol = "nnplan::runtime::reference::grid_sample_forward",
      .forward = grid_sample_forward,
      .vjp = grid_sample_vjp,
      .shape_guard = grid_sample_guard,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
};

}  // namespace

std::span<const ReferenceHandler> grid_sample_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::reference
