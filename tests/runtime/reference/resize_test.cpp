// The reference resize kernel (ONNX's Resize): ONNX's own hand-worked 2x2 cases, a float64 oracle
// written here as ONNX's reference computes (each axis interpolated recursively, the first
// outermost; neighbours picked by distance from an edge-padded axis; nearest as two taps weighted
// 0 and 1) over every mode, coordinate mapping, nearest mode and exclude_outside, by scales and by
// sizes, up and down; an unchanged axis read directly; the shape guard's message; and the VJP by
// finite differences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace resize_test {
namespace {

using backend::BackendOp;
using ir::CoordinateTransformation;
using ir::ResizeNearest;
using ir::SampleMode;
using namespace testing;

ir::Node resize_node(const ir::Shape& out, ir::ResizeParams p) {
  return {.id = 1, .kind = ir::OpKind::resize, .parents = {0}, .shape = out, .params = p};
}

// ONNX's reference (onnx/backend/test/case/node/resize.py), transcribed.
struct Oracle {
  ir::ResizeParams p;

  // The n indices of [0, limit) nearest x, ties to the smaller, in increasing order.
  static std::vector<long> neighbours(double x, std::size_t n, long limit) {
    std::vector<long> idx(static_cast<std::size_t>(limit));
    for (long i = 0; i < limit; ++i)
      idx[static_cast<std::size_t>(i)] = i;
    std::ranges::stable_sort(idx, [x](long a, long b) {
      return std::abs(x - static_cast<double>(a)) < std::abs(x - static_cast<double>(b));
    });
    idx.resize(n);
    std::ranges::sort(idx);
    return idx;
  }

  std::vector<double> coefficients(double ratio) const {
    switch (p.mode) {
      case SampleMode::nearest: {
        if (ratio == 1) return {0, 1};
        switch (p.nearest_mode) {
          case ResizeNearest::round_prefer_floor:
            return {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0};
          case ResizeNearest::round_prefer_ceil:
            return {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
          case ResizeNearest::floor:
            return {1, 0};
          case ResizeNearest::ceil:
            return {0, 1};
        }
        return {};
      }
      case SampleMode::linear:
        return {1 - ratio, ratio};
      case SampleMode::cubic: {
        const double a = p.cubic_coeff_a;
        const double s = 1 - ratio;
        return {((a * (ratio + 1) - 5 * a) * (ratio + 1) + 8 * a) * (ratio + 1) - 4 * a,
                ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1,
                ((a + 2) * s - (a + 3)) * s * s + 1,
                ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
      }
      case SampleMode::avg:  // roi_align's modes, not resize's
      case SampleMode::max:
        break;
    }
    return {};
  }

  double interpolate_1d(const std::vector<double>& data, double scale, double x) const {
    const auto in = static_cast<double>(data.size());
    const double resized = scale * in;
    double x_ori = 0;
    switch (p.coordinate_transformation_mode) {
      case CoordinateTransformation::align_corners:
        x_ori = resized == 1 ? 0 : x * (in - 1) / (resized - 1);
        break;
      case CoordinateTransformation::asymmetric:
        x_ori = x / scale;
        break;
      case CoordinateTransformation::pytorch_half_pixel:
        x_ori = resized == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
        break;
      case CoordinateTransformation::half_pixel:
        x_ori = (x + 0.5) / scale - 0.5;
        break;
      case CoordinateTransformation::tf_half_pixel_for_nn:
        x_ori = (x + 0.5) / scale;
        break;
      case CoordinateTransformation::output_half_pixel:  // roi_align's, not resize's
        break;
    }
    const double ratio = x_ori == std::floor(x_ori) ? 1.0 : x_ori - std::floor(x_ori);
    std::vector<double> c = coefficients(ratio);
    const std::size_t n = c.size();
    const long pad = static_cast<long>((n + 1) / 2);
    const auto width = static_cast<long>(data.size());
    const std::vector<long> idx = neighbours(x_ori + static_cast<double>(pad), n, width + 2 * pad);
    if (p.exclude_outside) {
      double sum = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const long i = idx[j] - pad;
        if (i < 0 || i >= width) c[j] = 0;
        sum += c[j];
      }
      for (double& v : c)
        v /= sum;
    }
    double out = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const long i = std::clamp(idx[j] - pad, 0L, width - 1);
      out += c[j] * data[static_cast<std::size_t>(i)];
    }
    return out;
  }

  // The value at output coordinates `o` (from axis `axis` on) of the block of X at `base`.
  double at(const std::vector<float>& x, const ir::Shape& xs, const std::vector<double>& scales,
            const std::vector<std::size_t>& o, std::size_t axis, std::size_t base) const {
    std::size_t stride = 1;
    for (std::size_t i = axis + 1; i < xs.rank(); ++i)
      stride *= static_cast<std::size_t>(xs.dims[i]);
    std::vector<double> line(static_cast<std::size_t>(xs.dims[axis]));
    for (std::size_t i = 0; i < line.size(); ++i) {
      line[i] = axis + 1 == xs.rank() ? static_cast<double>(x[base + i])
                                      : at(x, xs, scales, o, axis + 1, base + i * stride);
    }
    return interpolate_1d(line, scales[axis], static_cast<double>(o[axis]));
  }
};

// Resizes x (shape xs) to `out` with params p through the kernel, and compares every element with
// the oracle.
void expect_matches_oracle(const Tensor& x, const ir::Shape& out, const ir::ResizeParams& p) {
  const ir::Shape& xs = x.shape;
  const auto y = run_forward(handler(BackendOp::resize), resize_node(out, p), {x});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  std::vector<double> scales;
  for (std::size_t i = 0; i < xs.rank(); ++i) {
    scales.push_back(p.scales.empty()
                         ? static_cast<double>(out.dims[i]) / static_cast<double>(xs.dims[i])
                         : static_cast<double>(p.scales[i]));
  }
  const Oracle oracle{.p = p};
  std::vector<std::size_t> o(out.rank(), 0);
  for (std::size_t e = 0; e < y->floats().size(); ++e) {
    const double want = oracle.at(x.floats(), xs, scales, o, 0, 0);
    EXPECT_NEAR(y->floats()[e], want, 2e-7 * (1 + std::abs(want))) << "element " << e;
    for (std::size_t a = out.rank(); a-- > 0;) {
      if (++o[a] < out.dims[a]) break;
      o[a] = 0;
    }
  }
}

std::vector<ir::ResizeParams> every_form() {
  std::vector<ir::ResizeParams> out;
  const auto coordinates = {
      CoordinateTransformation::half_pixel, CoordinateTransformation::pytorch_half_pixel,
      CoordinateTransformation::align_corners, CoordinateTransformation::asymmetric,
      CoordinateTransformation::tf_half_pixel_for_nn};
  for (const auto c : coordinates) {
    for (const auto nearest : {ResizeNearest::round_prefer_floor, ResizeNearest::round_prefer_ceil,
                               ResizeNearest::floor, ResizeNearest::ceil}) {
      out.push_back({.mode = SampleMode::nearest,
                     .coordinate_transformation_mode = c,
                     .nearest_mode = nearest});
    }
    out.push_back({.mode = SampleMode::linear, .coordinate_transformation_mode = c});
    for (const bool exclude : {false, true}) {
      out.push_back({.mode = SampleMode::cubic,
                     .coordinate_transformation_mode = c,
                     .cubic_coeff_a = exclude ? -0.5F : -0.75F,
                     .exclude_outside = exclude});
    }
  }
  return out;
}

std::string name_of(const ir::ResizeParams& p) {
  return "mode " + std::to_string(static_cast<int>(p.mode)) + " coordinates " +
         std::to_string(static_cast<int>(p.coordinate_transformation_mode)) + " nearest " +
         std::to_string(static_cast<int>(p.nearest_mode)) +
         (p.exclude_outside ? " exclude_outside" : "");
}

// ONNX's node tests resize_upsample_scales_linear and _linear_align_corners: [[1, 2], [3, 4]]
// doubled.
TEST(reference_resize_forward_tests, OnnxLinearCases) {
  const Tensor x = Tensor::of(shape_of({1, 1, 2, 2}), std::vector<float>{1, 2, 3, 4});
  const ir::Shape out = shape_of({1, 1, 4, 4});
  const auto half =
      run_forward(handler(BackendOp::resize),
                  resize_node(out, {.mode = SampleMode::linear, .scales = {1, 1, 2, 2}}), {x});
  ASSERT_TRUE(half.has_value()) << half.error().message;
  EXPECT_EQ(half->floats(), (std::vector<float>{1, 1.25F, 1.75F, 2, 1.5F, 1.75F, 2.25F, 2.5F, 2.5F,
                                                2.75F, 3.25F, 3.5F, 3, 3.25F, 3.75F, 4}));
  const auto aligned = run_forward(
      handler(BackendOp::resize),
      resize_node(out, {.mode = SampleMode::linear,
                        .coordinate_transformation_mode = CoordinateTransformation::align_corners,
                        .scales = {1, 1, 2, 2}}),
      {x});
  ASSERT_TRUE(aligned.has_value()) << aligned.error().message;
  const std::vector<double> want = {1,       4.0 / 3,  5.0 / 3,  2,       5.0 / 3, 2,
                                    7.0 / 3, 8.0 / 3,  7.0 / 3,  8.0 / 3, 3,       10.0 / 3,
                                    3,       10.0 / 3, 11.0 / 3, 4};
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(aligned->floats()[i], static_cast<float>(want[i])) << "element " << i;
}

TEST(reference_resize_forward_tests, MatchesOnnxReferenceByScales) {
  const Tensor x = random_tensor(shape_of({2, 3, 4, 5}), 21);
  for (const ir::ResizeParams& form : every_form()) {
    SCOPED_TRACE(name_of(form));
    ir::ResizeParams up = form;
    up.scales = {1, 1, 1.75F, 2};  // 4 * 1.75 = 7, 5 * 2 = 10
    expect_matches_oracle(x, shape_of({2, 3, 7, 10}), up);
    ir::ResizeParams down = form;
    down.scales = {1, 1, 0.6F, 0.8F};  // floor(2.4) = 2, floor(4) = 4
    expect_matches_oracle(x, shape_of({2, 3, 2, 4}), down);
  }
}

TEST(reference_resize_forward_tests, MatchesOnnxReferenceBySizes) {
  const Tensor x = random_tensor(shape_of({3, 4, 5}), 22);
  for (const ir::ResizeParams& form : every_form()) {
    SCOPED_TRACE(name_of(form));
    expect_matches_oracle(x, shape_of({2, 9, 3}), form);  // every axis: 1.5x down, up, down
    expect_matches_oracle(x, shape_of({1, 1, 1}), form);  // to one element (resized length 1)
  }
}

// An axis that keeps its extent under a mapping that reads each index itself is read directly:
// a NaN beside it stays where it is.
TEST(reference_resize_forward_tests, UnchangedAxisIsReadDirectly) {
  const Tensor x = Tensor::of(shape_of({2, 3}), std::vector<float>{1, 2, 3, NAN, 5, 6});
  const auto y = run_forward(handler(BackendOp::resize),
                             resize_node(shape_of({2, 3}), {.mode = SampleMode::linear}), {x});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats()[0], 1.0F);
  EXPECT_EQ(y->floats()[2], 3.0F);
  EXPECT_TRUE(std::isnan(y->floats()[3]));
  EXPECT_EQ(y->floats()[5], 6.0F);
}

TEST(reference_resize_forward_tests, ShapeGuard) {
  const ir::Node node = resize_node(shape_of({1, 2, 6, 8}), {.scales = {1, 1, 2, 2}});
  EXPECT_EQ(guard_message(handler(BackendOp::resize), node, {zeros(shape_of({1, 2, 3, 3}))}),
            "node 1 (resize): declared shape [1,2,6,8] has 8 on axis 3 where X [1,2,3,3] scaled "
            "by 2 has 6");
}

// resize is linear in X: its VJP is exact, every form, by scales and by sizes.
TEST(reference_resize_vjp_tests, MatchesFiniteDifferences) {
  const ir::Shape xs = shape_of({1, 2, 3, 4});
  std::uint32_t seed = 60;
  for (ir::ResizeParams p : every_form()) {
    SCOPED_TRACE(name_of(p));
    const Tensor x = random_tensor(xs, seed++);
    EXPECT_TRUE(check_vjp(handler(BackendOp::resize), resize_node(shape_of({1, 2, 5, 3}), p), {x}));
    p.scales = {1, 1, 2.5F, 1.5F};
    EXPECT_TRUE(check_vjp(handler(BackendOp::resize), resize_node(shape_of({1, 2, 7, 6}), p), {x}));
  }
}

}  // namespace
}  // namespace resize_test
}  // namespace nnplan::runtime::reference
