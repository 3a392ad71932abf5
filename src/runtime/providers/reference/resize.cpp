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
// Its taps are the n input indices nearest x, ties to the lower (at a whole x, x itself and the
// n - 1 before it, all of the weight on x), an index past either end reading the edge element:
// n = 1 for `nearest` (the nearest mode's pick between floor(x) and floor(x) + 1), 2 for `linear`
// (weights 1 - t and t, t the fraction of x, 1 at a whole x), 4 for `cubic` (Keys' kernel with
// cubic_coeff_a; under exclude_outside the taps outside the input weigh 0 and the rest are
// renormalized). An axis whose every output index reads its own input index with weight 1 (a
// scale of 1 under most mappings) is read directly.
//
// An output element is the nested sum over the axes' taps, the first axis outermost, in float64;
// the result is rounded to float32 once (ONNX's reference computes in float64 and rounds at the
// end). The VJP adds each output gradient times the product of its taps' weights into dX at each
// element the taps read, summed in float64 and rounded once.
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

// One axis's taps with each index times the axis's stride in X.
struct AxisTaps {
  std::size_t count = 1;
  std::vector<std::size_t> offset;
  std::vector<double> weight;
};

// Every axis's taps for resizing X of shape `xs` to `ys`.
std::vector<AxisTaps> all_taps(const ir::Node& node, const ir::Shape& xs, const ir::Shape& ys) {
  const auto& p = std::get<ir::ResizeParams>(node.params);
  std::vector<AxisTaps> taps(xs.rank());
  std::size_t stride = 1;
  for (std::size_t i = xs.rank(); i-- > 0;) {
    ResizeAxisTaps t = resize_axis_taps(p, i, xs.dims[i], ys.dims[i]);
    for (std::size_t& at : t.index)
      at *= stride;
    taps[i] =
        AxisTaps{.count = t.count, .offset = std::move(t.index), .weight = std::move(t.weight)};
    stride *= static_cast<std::size_t>(xs.dims[i]);
  }
  return taps;
}

// Calls f(output element, its offset in X, weight) for every tap combination of every output
// element, in row-major order of the outputs and the first axis's taps outermost.
template <class F>
void each_tap(std::span<const AxisTaps> taps, const ir::Shape& ys, F&& f) {
  const std::size_t rank = ys.rank();
  const std::size_t total = extent_product(ys, 0, rank);
  if (total == 0) return;
  std::vector<std::size_t> o(rank, 0);
  std::vector<std::size_t> tap(rank, 0);
  std::vector<std::size_t> offset(rank + 1, 0);
  std::vector<double> weight(rank + 1, 1.0);
  for (std::size_t element = 0; element < total; ++element) {
    // Every tap combination, odometer over `tap` with the last axis fastest.
    std::size_t axis = 0;
    while (true) {
      for (; axis < rank; ++axis) {
        const std::size_t at = o[axis] * taps[axis].count + tap[axis];
        offset[axis + 1] = offset[axis] + taps[axis].offset[at];
        weight[axis + 1] = weight[axis] * taps[axis].weight[at];
      }
      f(element, offset[rank], weight[rank]);
      // Next combination.
      std::size_t a = rank;
      while (a > 0 && ++tap[a - 1] == taps[a - 1].count) {
        tap[a - 1] = 0;
        --a;
      }
      if (a == 0) break;
      axis = a - 1;
    }
    // Next output element.
    for (std::size_t a = rank; a-- > 0;) {
      if (++o[a] < ys.dims[a]) break;
      o[a] = 0;
    }
  }
}

void resize_forward(const KernelCall& call) {
  const ir::Shape& xs = *call.inputs[0].shape;
  const ir::Shape& ys = call.node.shape;
  const std::vector<AxisTaps> taps = all_taps(call.node, xs, ys);
  const float* x = call.inputs[0].data<float>();
  float* y = call.output.data<float>();
  // The nested sums of ONNX's reference, flattened: sum over combinations of the product of
  // weights times the element (the same terms; float64 throughout).
  double sum = 0;
  std::size_t current = 0;
  each_tap(taps, ys, [&](std::size_t element, std::size_t at, double w) {
    if (element != current) {
      y[current] = static_cast<float>(sum);
      sum = 0;
      current = element;
    }
    sum += w * static_cast<double>(x[at]);
  });
  if (call.output.size() > 0) y[current] = static_cast<float>(sum);
}

void resize_vjp(const VjpCall& call) {
  float* dx = call.input_grads[0].data<float>();
  if (dx == nullptr) return;
  const ir::Shape& xs = *call.inputs[0].shape;
  const ir::Shape& ys = call.node.shape;
  const std::vector<AxisTaps> taps = all_taps(call.node, xs, ys);
  const float* gy = call.output_grad.data<float>();
  std::vector<double> acc(call.inputs[0].size(), 0.0);
  each_tap(taps, ys, [&](std::size_t element, std::size_t at, double w) {
    acc[at] += w * static_cast<double>(gy[element]);
  });
  for (std::size_t i = 0; i < acc.size(); ++i)
    dx[i] += static_cast<float>(acc[i]);
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
