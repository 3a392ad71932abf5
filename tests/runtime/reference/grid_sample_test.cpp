// The reference grid_sample kernel (ONNX's GridSample over [N, C, H, W]): an identity grid, a
// float64 oracle written here after ONNX's 2-D reference (both coordinates clamped or reflected
// when either is outside, as ONNX Runtime does; every mode, padding mode and align_corners,
// points inside and outside the image), points far outside or not a number reading within the
// image, the shape guard's message, and the VJP (X and grid) by finite differences.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace grid_sample_test {
namespace {

using backend::BackendOp;
using ir::GridSamplePadding;
using ir::SampleMode;
using namespace testing;

ir::Node grid_node(const ir::Shape& x, const ir::Shape& grid, ir::GridSampleParams p) {
  return {.id = 2,
          .kind = ir::OpKind::grid_sample,
          .parents = {0, 1},
          .shape = shape_of({x.dims[0], x.dims[1], grid.dims[1], grid.dims[2]}),
          .params = p};
}

// ONNX's reference, step by step, in float64.
struct Oracle {
  ir::GridSampleParams p;
  long h, w;
  double x_min, x_max, y_min, y_max;

  static double reflect(double x, double lo, double hi) {
    const double range = hi - lo;
    if (x < lo) {
      const double d = lo - x;
      const long n = static_cast<long>(d / range);
      const double r = d - static_cast<double>(n) * range;
      return n % 2 == 0 ? lo + r : hi - r;
    }
    if (x > hi) {
      const double d = x - hi;
      const long n = static_cast<long>(d / range);
      const double r = d - static_cast<double>(n) * range;
      return n % 2 == 0 ? hi - r : lo + r;
    }
    return x;
  }
  double pixel(const float* image, long r, long c) const {
    if (p.padding_mode == GridSamplePadding::zeros) {
      return r >= 0 && r < h && c >= 0 && c < w ? image[r * w + c] : 0.0;
    }
    if (p.padding_mode == GridSamplePadding::border) {
      return image[std::clamp(r, 0L, h - 1) * w + std::clamp(c, 0L, w - 1)];
    }
    const long rc = static_cast<long>(reflect(static_cast<double>(c), x_min, x_max));
    const long rr = static_cast<long>(reflect(static_cast<double>(r), y_min, y_max));
    return image[rr * w + rc];
  }
  static std::array<double, 4> cubic(double t) {
    const double a = -0.75;
    return {((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
            ((a + 2) * t - (a + 3)) * t * t + 1,
            ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
            ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a};
  }
  double at(const float* image, double gx, double gy) const {
    const auto denorm = [&](double n, long len) {
      return p.align_corners ? (n + 1) / 2.0 * static_cast<double>(len - 1)
                             : ((n + 1) * static_cast<double>(len) - 1) / 2.0;
    };
    double x = denorm(gx, w);
    double y = denorm(gy, h);
    if (p.mode == SampleMode::nearest) {
      x = std::nearbyint(x);
      y = std::nearbyint(y);
    }
    if (x < x_min || x > x_max || y < y_min || y > y_max) {
      if (p.padding_mode == GridSamplePadding::border) {
        x = std::clamp(x, 0.0, static_cast<double>(w - 1));
        y = std::clamp(y, 0.0, static_cast<double>(h - 1));
      } else if (p.padding_mode == GridSamplePadding::reflection) {
        x = reflect(x, x_min, x_max);
        y = reflect(y, y_min, y_max);
      }
    }
    if (p.mode == SampleMode::nearest) {
      return pixel(image, static_cast<long>(y), static_cast<long>(x));
    }
    const long x1 = static_cast<long>(std::floor(x));
    const long y1 = static_cast<long>(std::floor(y));
    if (p.mode == SampleMode::linear) {
      const double dx2 = static_cast<double>(x1 + 1) - x, dx1 = x - static_cast<double>(x1);
      const double dy2 = static_cast<double>(y1 + 1) - y, dy1 = y - static_cast<double>(y1);
      return dy2 * (dx2 * pixel(image, y1, x1) + dx1 * pixel(image, y1, x1 + 1)) +
             dy1 * (dx2 * pixel(image, y1 + 1, x1) + dx1 * pixel(image, y1 + 1, x1 + 1));
    }
    const std::array<double, 4> cx = cubic(x - std::floor(x)), cy = cubic(y - std::floor(y));
    double sum = 0;
    for (long i = 0; i < 4; ++i) {
      double row = 0;
      for (long j = 0; j < 4; ++j)
        row += cx[static_cast<std::size_t>(j)] * pixel(image, y1 - 1 + i, x1 - 1 + j);
      sum += cy[static_cast<std::size_t>(i)] * row;
    }
    return sum;
  }
};

std::vector<ir::GridSampleParams> every_form() {
  std::vector<ir::GridSampleParams> out;
  for (const auto mode : {SampleMode::linear, SampleMode::nearest, SampleMode::cubic})
    for (const auto padding :
         {GridSamplePadding::zeros, GridSamplePadding::border, GridSamplePadding::reflection})
      for (const bool align : {false, true})
        out.push_back({.mode = mode, .padding_mode = padding, .align_corners = align});
  return out;
}

std::string name_of(const ir::GridSampleParams& p) {
  return "mode " + std::to_string(static_cast<int>(p.mode)) + " padding " +
         std::to_string(static_cast<int>(p.padding_mode)) + (p.align_corners ? " aligned" : "");
}

// With align_corners, the grid of each pixel's own normalized coordinates reads X back exactly.
TEST(reference_grid_sample_forward_tests, IdentityGridReadsEveryPixel) {
  const ir::Shape xs = shape_of({1, 2, 3, 4});
  const Tensor x = random_tensor(xs, 3);
  const ir::Shape gs = shape_of({1, 3, 4, 2});
  std::vector<float> g;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) {
      g.push_back(static_cast<float>(c) / 3.0F * 2.0F - 1.0F);
      g.push_back(static_cast<float>(r) / 2.0F * 2.0F - 1.0F);
    }
  }
  for (const auto mode : {SampleMode::linear, SampleMode::nearest}) {
    const auto y = run_forward(handler(BackendOp::grid_sample),
                               grid_node(xs, gs, {.mode = mode, .align_corners = true}),
                               {x, Tensor::of(gs, g)});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    for (std::size_t i = 0; i < x.floats().size(); ++i)
      EXPECT_NEAR(y->floats()[i], x.floats()[i], 1e-6) << "element " << i;
  }
}

TEST(reference_grid_sample_forward_tests, MatchesFloat64Oracle) {
  const ir::Shape xs = shape_of({2, 3, 5, 4});
  const ir::Shape gs = shape_of({2, 6, 7, 2});
  const Tensor x = random_tensor(xs, 11);
  const Tensor grid = random_tensor(gs, 12, -1.4F, 1.4F);  // some points outside the image
  for (const ir::GridSampleParams& p : every_form()) {
    SCOPED_TRACE(name_of(p));
    const auto y = run_forward(handler(BackendOp::grid_sample), grid_node(xs, gs, p), {x, grid});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    const double lo = p.align_corners ? 0.0 : -0.5;
    const Oracle o{.p = p,
                   .h = 5,
                   .w = 4,
                   .x_min = lo,
                   .x_max = p.align_corners ? 3.0 : 3.5,
                   .y_min = lo,
                   .y_max = p.align_corners ? 4.0 : 4.5};
    for (std::size_t n = 0; n < 2; ++n) {
      for (std::size_t c = 0; c < 3; ++c) {
        for (std::size_t q = 0; q < 42; ++q) {
          const float* g = grid.floats().data() + (n * 42 + q) * 2;
          const double want = o.at(x.floats().data() + (n * 3 + c) * 20, g[0], g[1]);
          EXPECT_NEAR(y->floats()[(n * 3 + c) * 42 + q], want, 1e-6 * (1 + std::abs(want)))
              << "n " << n << " c " << c << " point " << q;
        }
      }
    }
  }
}

// A grid point far outside the image, infinite or NaN reads inside it or zeros, never outside.
TEST(reference_grid_sample_forward_tests, PointsFarOutsideStayInBounds) {
  const ir::Shape xs = shape_of({1, 1, 3, 4});
  const ir::Shape gs = shape_of({1, 1, 4, 2});
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor grid =
      Tensor::of(gs, std::vector<float>{1e30F, -1e30F, inf, 0.5F, -inf, nan, 3e17F, 1.0F});
  const Tensor x = random_tensor(xs, 9);
  for (const ir::GridSampleParams& p : every_form()) {
    SCOPED_TRACE(name_of(p));
    const auto y = run_forward(handler(BackendOp::grid_sample), grid_node(xs, gs, p), {x, grid});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    for (const float v : y->floats()) {
      // Every value is a weighted sum of pixels (or 0): bounded by the image's magnitudes.
      EXPECT_TRUE(std::isnan(v) || std::abs(v) <= 8.0F) << v;
    }
  }
}

TEST(reference_grid_sample_forward_tests, ShapeGuard) {
  const ir::Shape xs = shape_of({1, 2, 3, 4});
  const ir::Shape gs = shape_of({1, 2, 2, 2});
  const ir::Node node = grid_node(xs, gs, {});
  EXPECT_EQ(guard_message(handler(BackendOp::grid_sample), node,
                          {zeros(xs), zeros(shape_of({1, 2, 2, 3}))}),
            "node 2 (grid_sample): parent 1 (grid) has shape [1,2,2,3]; it is [1, H_out, W_out, "
            "2] for X [1,2,3,4]");
}

// The VJP of X and of the grid against finite differences, every form, at random grid points
// (seeded: none falls within the probe's step of a pixel boundary, where the interpolation's
// derivative jumps).
TEST(reference_grid_sample_vjp_tests, MatchesFiniteDifferences) {
  const ir::Shape xs = shape_of({1, 2, 4, 5});
  const ir::Shape gs = shape_of({1, 3, 3, 2});
  std::uint32_t seed = 40;
  for (const ir::GridSampleParams& p : every_form()) {
    SCOPED_TRACE(name_of(p));
    const Tensor x = random_tensor(xs, seed++);
    Tensor grid = random_tensor(gs, seed++, -1.2F, 1.2F);
    EXPECT_TRUE(check_vjp(handler(BackendOp::grid_sample), grid_node(xs, gs, p), {x, grid}, {},
                          {.step = 1e-4}));
  }
}

}  // namespace
}  // namespace grid_sample_test
}  // namespace nnplan::runtime::reference
