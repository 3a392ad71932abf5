// Reference kernel: roi_align (ONNX's RoiAlign), forward, VJP and guard.
//
// For roi r of image b = batch_indices[r], its box (x1, y1, x2, y2) times spatial_scale, less half
// a pixel under half_pixel, starts at (x1, y1) and spans (x2 - x1, y2 - y1), at least 1 each under
// output_half_pixel. The span is cut into output_height x output_width bins; each bin takes a
// grid of sampling_ratio x sampling_ratio samples (0: ceil of the bin's extent on each axis, none
// when that is not positive), at the centres of the grid's cells. A sample more than one pixel
// outside the image reads 0 (weights 0 at element 0); any other is clamped into the image and read
// bilinearly from its four neighbours. `avg` averages the samples' values over the grid's count
// (at least 1); `max` takes, over the samples, the largest of the four weighted neighbours
// (ONNX's and ONNX Runtime's definition: the weights multiply before the maximum). Coordinates,
// weights and sums are float64, the result rounded to float32 once, as ONNX's reference computes.
// The VJP gives X the output gradient times each read's weight (avg: over the count; max: to the
// weighted neighbour that was largest, the first on ties) and the rois the derivative of each
// sample's bilinear value along its coordinates (0 where a sample is clamped or outside, and where
// output_half_pixel's minimum span of 1 holds); the batch indices take none.
//
// The guard refuses a batch index outside [0, N), a roi that is not finite, and a roi whose bins
// would take more than 2^24 samples along either axis or in all (sampling_ratio 0 on a huge box):
// each names the roi.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {
namespace {

constexpr double kMaxSamplesPerBin = 16777216.0;  // 2^24

// One roi's geometry along one axis: where it starts, its bins' extent, the samples per bin, and
// the derivatives of start and bin extent with respect to the box's two coordinates on this axis
// (d_start = {d/dlow, d/dhigh}).
struct AxisBox {
  double start = 0, bin = 0;
  std::int64_t grid = 0;
  std::array<double, 2> d_start{}, d_bin{};
};

AxisBox axis_box(const ir::RoiAlignParams& p, double low, double high, ir::Dim bins) {
  const bool half_pixel =
      p.coordinate_transformation_mode == ir::CoordinateTransformation::half_pixel;
  const double scale = p.spatial_scale;
  const double offset = half_pixel ? 0.5 : 0.0;
  AxisBox a;
  a.start = low * scale - offset;
  double extent = (high * scale - offset) - a.start;
  std::array<double, 2> d_extent = {-scale, scale};
  if (!half_pixel && extent < 1.0) {
    extent = 1.0;
    d_extent = {0.0, 0.0};
  }
  const auto n = static_cast<double>(bins);
  a.bin = extent / n;
  a.d_start = {scale, 0.0};
  a.d_bin = {d_extent[0] / n, d_extent[1] / n};
  const double grid =
      p.sampling_ratio > 0 ? static_cast<double>(p.sampling_ratio) : std::ceil(extent / n);
  // Bounded before the conversion: a huge box's count is refused by the guard, never converted
  // past the integer's range.
  a.grid = grid > 0 ? static_cast<std::int64_t>(std::min(grid, 1e15)) : 0;
  return a;
}

// A sample's four reads (offsets in one channel's plane), their weights, and the derivatives of
// the weights along y and x (0 where the sample is clamped or outside).
struct Sample {
  std::array<std::size_t, 4> at{};
  std::array<double, 4> w{}, dw_dy{}, dw_dx{};
};

// Clamps a coordinate into [0, length - 1] as ONNX's reference does: the lower neighbour, the
// upper one, the fraction, and whether the coordinate moves the sample (not clamped).
struct Axis1D {
  std::size_t low = 0, high = 0;
  double frac = 0;
  bool moves = true;
};
Axis1D clamp_axis(double v, std::size_t length) {
  Axis1D a;
  if (v <= 0) {
    a.moves = v > 0;
    v = 0;
  }
  a.low = static_cast<std::size_t>(v);
  if (a.low >= length - 1) {
    a.low = a.high = length - 1;
    v = static_cast<double>(a.low);
    a.moves = false;
  } else {
    a.high = a.low + 1;
  }
  a.frac = v - static_cast<double>(a.low);
  return a;
}

Sample sample_at(double y, double x, std::size_t h, std::size_t w) {
  Sample s;
  if (y < -1.0 || y > static_cast<double>(h) || x < -1.0 || x > static_cast<double>(w)) return s;
  const Axis1D ay = clamp_axis(y, h);
  const Axis1D ax = clamp_axis(x, w);
  const double ly = ay.frac, lx = ax.frac, hy = 1 - ly, hx = 1 - lx;
  s.at = {ay.low * w + ax.low, ay.low * w + ax.high, ay.high * w + ax.low, ay.high * w + ax.high};
  s.w = {hy * hx, hy * lx, ly * hx, ly * lx};
  if (ay.moves) s.dw_dy = {-hx, -lx, hx, lx};
  if (ax.moves) s.dw_dx = {-hy, hy, -ly, ly};
  return s;
}

// Calls f(r, batch, bin index in the roi's plane, sample, dy/d(y1, y2), dx/d(x1, x2), count)
// for every sample of every bin of every roi, in ONNX's order.
template <class F>
void each_sample(const ir::Node& node, const ir::Shape& xs, const float* rois,
                 const std::int64_t* batch, std::size_t roi_count, F&& f) {
  const auto& p = std::get<ir::RoiAlignParams>(node.params);
  const ir::Dim oh = node.shape.dims[2], ow = node.shape.dims[3];
  const auto h = static_cast<std::size_t>(xs.dims[2]);
  const auto w = static_cast<std::size_t>(xs.dims[3]);
  for (std::size_t r = 0; r < roi_count; ++r) {
    const float* box = rois + r * 4;
    const AxisBox by = axis_box(p, box[1], box[3], oh);
    const AxisBox bx = axis_box(p, box[0], box[2], ow);
    const double count = static_cast<double>(std::max<std::int64_t>(by.grid * bx.grid, 1));
    for (ir::Dim ph = 0; ph < oh; ++ph) {
      for (ir::Dim pw = 0; pw < ow; ++pw) {
        const std::size_t bin = static_cast<std::size_t>(ph * ow + pw);
        for (std::int64_t iy = 0; iy < by.grid; ++iy) {
          // y = start + ph * bin + (iy + 0.5) * bin / grid, and its derivatives.
          const double ky = static_cast<double>(ph) +
                            (static_cast<double>(iy) + 0.5) / static_cast<double>(by.grid);
          const double y = by.start + static_cast<double>(ph) * by.bin +
                           (static_cast<double>(iy) + 0.5) * by.bin / static_cast<double>(by.grid);
          const std::array<double, 2> dy = {by.d_start[0] + ky * by.d_bin[0],
                                            by.d_start[1] + ky * by.d_bin[1]};
          for (std::int64_t ix = 0; ix < bx.grid; ++ix) {
            const double kx = static_cast<double>(pw) +
                              (static_cast<double>(ix) + 0.5) / static_cast<double>(bx.grid);
            const double x =
                bx.start + static_cast<double>(pw) * bx.bin +
                (static_cast<double>(ix) + 0.5) * bx.bin / static_cast<double>(bx.grid);
            const std::array<double, 2> dx = {bx.d_start[0] + kx * bx.d_bin[0],
                                              bx.d_start[1] + kx * bx.d_bin[1]};
            f(r, static_cast<std::size_t>(batch[r]), bin, sample_at(y, x, h, w), dy, dx, count);
          }
        }
      }
    }
  }
}

// The largest weighted read of a sample (the first on ties, as Python's max), and which.
std::size_t largest_read(const Sample& s, const float* plane) {
  std::size_t best = 0;
  for (std::size_t k = 1; k < 4; ++k) {
    if (s.w[k] * plane[s.at[k]] > s.w[best] * plane[s.at[best]]) best = k;
  }
  return best;
}

void roi_align_forward(const KernelCall& call) {
  const ir::Shape& xs = *call.inputs[0].shape;
  const auto& p = std::get<ir::RoiAlignParams>(call.node.params);
  const bool avg = p.mode == ir::SampleMode::avg;
  const float* x = call.inputs[0].data<float>();
  float* y = call.output.data<float>();
  const auto channels = static_cast<std::size_t>(xs.dims[1]);
  const std::size_t plane = static_cast<std::size_t>(xs.dims[2] * xs.dims[3]);
  const std::size_t bins =
      static_cast<std::size_t>(call.node.shape.dims[2] * call.node.shape.dims[3]);
  std::vector<double> acc(call.output.size(), 0.0);
  std::vector<bool> seen(call.output.size(), false);
  // avg: each roi's sample count, the divisor of its bins' sums (ONNX sums, then divides once).
  std::vector<double> counts(call.inputs[1].shape->dims[0], 1.0);
  each_sample(call.node, xs, call.inputs[1].data<float>(), call.inputs[2].data<std::int64_t>(),
              call.inputs[1].shape->dims[0],
              [&](std::size_t r, std::size_t b, std::size_t bin, const Sample& s,
                  const std::array<double, 2>&, const std::array<double, 2>&, double count) {
                for (std::size_t c = 0; c < channels; ++c) {
                  const float* image = x + (b * channels + c) * plane;
                  const std::size_t out = (r * channels + c) * bins + bin;
                  if (avg) {
                    acc[out] += s.w[0] * image[s.at[0]] + s.w[1] * image[s.at[1]] +
                                s.w[2] * image[s.at[2]] + s.w[3] * image[s.at[3]];
                    counts[r] = count;
                    continue;
                  }
                  const std::size_t k = largest_read(s, image);
                  const double v = s.w[k] * image[s.at[k]];
                  if (!seen[out] || v > acc[out]) acc[out] = v;
                  seen[out] = true;
                }
              });
  const std::size_t per_roi = channels * bins;
  for (std::size_t i = 0; i < acc.size(); ++i)
    y[i] = static_cast<float>(avg ? acc[i] / counts[i / per_roi] : acc[i]);
}

void roi_align_vjp(const VjpCall& call) {
  const ir::Shape& xs = *call.inputs[0].shape;
  const auto& p = std::get<ir::RoiAlignParams>(call.node.params);
  const bool avg = p.mode == ir::SampleMode::avg;
  const float* x = call.inputs[0].data<float>();
  const float* gy = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  float* drois = call.input_grads.size() > 1 ? call.input_grads[1].data<float>() : nullptr;
  const auto channels = static_cast<std::size_t>(xs.dims[1]);
  const std::size_t plane = static_cast<std::size_t>(xs.dims[2] * xs.dims[3]);
  const std::size_t bins =
      static_cast<std::size_t>(call.node.shape.dims[2] * call.node.shape.dims[3]);
  const std::size_t roi_count = call.inputs[1].shape->dims[0];
  std::vector<double> dx_acc(dx != nullptr ? call.inputs[0].size() : 0, 0.0);
  std::vector<double> droi_acc(roi_count * 4, 0.0);
  // max: the sample (and its read) that gave each output, found by a first pass.
  std::vector<double> best(avg ? 0 : call.output.size(), 0.0);
  std::vector<bool> seen(avg ? 0 : call.output.size(), false);
  const float* rois = call.inputs[1].data<float>();
  const std::int64_t* batch = call.inputs[2].data<std::int64_t>();
  if (!avg) {
    each_sample(call.node, xs, rois, batch, roi_count,
                [&](std::size_t r, std::size_t b, std::size_t bin, const Sample& s,
                    const std::array<double, 2>&, const std::array<double, 2>&, double) {
                  for (std::size_t c = 0; c < channels; ++c) {
                    const float* image = x + (b * channels + c) * plane;
                    const std::size_t out = (r * channels + c) * bins + bin;
                    const std::size_t k = largest_read(s, image);
                    const double v = s.w[k] * image[s.at[k]];
                    if (!seen[out] || v > best[out]) best[out] = v;
                    seen[out] = true;
                  }
                });
    std::fill(seen.begin(), seen.end(), false);
  }
  each_sample(call.node, xs, rois, batch, roi_count,
              [&](std::size_t r, std::size_t b, std::size_t bin, const Sample& s,
                  const std::array<double, 2>& dy, const std::array<double, 2>& dxc, double count) {
                for (std::size_t c = 0; c < channels; ++c) {
                  const std::size_t image = (b * channels + c) * plane;
                  const std::size_t out = (r * channels + c) * bins + bin;
                  const double g = gy[out];
                  std::array<double, 4> share{};  // d out / d (w_k * x_k)
                  if (avg) {
                    share.fill(1.0 / count);
                  } else {
                    const std::size_t k = largest_read(s, x + image);
                    if (seen[out] || s.w[k] * x[image + s.at[k]] != best[out]) continue;
                    seen[out] = true;
                    share[k] = 1.0;
                  }
                  double along_y = 0, along_x = 0;
                  for (std::size_t k = 0; k < 4; ++k) {
                    if (share[k] == 0) continue;
                    if (dx != nullptr) dx_acc[image + s.at[k]] += g * share[k] * s.w[k];
                    along_y += share[k] * s.dw_dy[k] * x[image + s.at[k]];
                    along_x += share[k] * s.dw_dx[k] * x[image + s.at[k]];
                  }
                  double* d = droi_acc.data() + r * 4;
                  d[0] += g * along_x * dxc[0];
                  d[2] += g * along_x * dxc[1];
                  d[1] += g * along_y * dy[0];
                  d[3] += g * along_y * dy[1];
                }
              });
  for (std::size_t i = 0; i < dx_acc.size(); ++i)
    dx[i] += static_cast<float>(dx_acc[i]);
  if (drois != nullptr) {
    for (std::size_t i = 0; i < droi_acc.size(); ++i)
      drois[i] += static_cast<float>(droi_acc[i]);
  }
}

Expected<void> roi_align_guard(const KernelCall& call) {
  if (auto ok = ir_shape_guard(call, backend::BackendOp::roi_align); !ok) return ok;
  const auto& p = std::get<ir::RoiAlignParams>(call.node.params);
  const ir::Dim images = call.inputs[0].shape->dims[0];
  const std::size_t roi_count = call.inputs[1].shape->dims[0];
  const float* rois = call.inputs[1].data<float>();
  const std::int64_t* batch = call.inputs[2].data<std::int64_t>();
  for (std::size_t r = 0; r < roi_count; ++r) {
    if (batch[r] < 0 || static_cast<ir::Dim>(batch[r]) >= images) {
      return std::unexpected(make_error(ErrorKind::invalid_input,
                                        "batch index " + std::to_string(batch[r]) + " of roi " +
                                            std::to_string(r) + " is outside X's " +
                                            std::to_string(images) + " images; it lies in [0, " +
                                            std::to_string(images) + ")"));
    }
    const float* box = rois + r * 4;
    if (!std::isfinite(box[0]) || !std::isfinite(box[1]) || !std::isfinite(box[2]) ||
        !std::isfinite(box[3])) {
      return std::unexpected(
          make_error(ErrorKind::invalid_input,
                     "roi " + std::to_string(r) + " has a coordinate that is not a finite number"));
    }
    const AxisBox by = axis_box(p, box[1], box[3], call.node.shape.dims[2]);
    const AxisBox bx = axis_box(p, box[0], box[2], call.node.shape.dims[3]);
    const auto gy = static_cast<double>(by.grid);
    const auto gx = static_cast<double>(bx.grid);
    if (gy > kMaxSamplesPerBin || gx > kMaxSamplesPerBin || gy * gx > kMaxSamplesPerBin) {
      return std::unexpected(
          make_error(ErrorKind::invalid_input,
                     "roi " + std::to_string(r) + " would take " + std::to_string(by.grid) + " x " +
                         std::to_string(bx.grid) +
                         " samples per bin; at most 2^24 (give sampling_ratio, or a smaller box)"));
    }
  }
  return {};
}

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/roi_align_test.cpp"};

constexpr ReferenceHandler kHandlers[] = {
    {backend::BackendOp::roi_align,
     {.symbol = "nnplan::runtime::reference::roi_align_forward",
      .forward = roi_align_forward,
      .vjp = roi_align_vjp,
      .shape_guard = roi_align_guard,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
};

}  // namespace

std::span<const ReferenceHandler> roi_align_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::reference
