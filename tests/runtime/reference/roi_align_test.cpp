// The reference roi_align kernel (ONNX's RoiAlign): a float64 oracle transcribed from ONNX's
// reference (precomputed bilinear taps per sample, samples more than a pixel outside reading 0,
// avg over the grid's count, max over the weighted taps) over both modes, both coordinate
// mappings, fixed and adaptive sampling, boxes inside, across and outside the image, reversed and
// empty boxes; the guard's refusals (batch index, non-finite box, too many samples); and the VJP
// of X and the boxes by finite differences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace roi_align_test {
namespace {

using backend::BackendOp;
using ir::CoordinateTransformation;
using ir::SampleMode;
using namespace testing;

ir::Node roi_node(ir::Dim rois, ir::Dim channels, ir::Dim oh, ir::Dim ow, ir::RoiAlignParams p) {
  return {.id = 3,
          .kind = ir::OpKind::roi_align,
          .parents = {0, 1, 2},
          .shape = shape_of({rois, channels, oh, ow}),
          .params = p};
}

Tensor batch_of(std::vector<std::int64_t> b) {
  const ir::Shape shape = shape_of({static_cast<ir::Dim>(b.size())});
  return Tensor::of(shape, std::move(b));
}

// ONNX's reference, step by step: one output value.
double oracle(const std::vector<float>& x, const ir::Shape& xs, const float* box,
              std::int64_t batch, std::size_t c, ir::Dim ph, ir::Dim pw, ir::Dim oh, ir::Dim ow,
              const ir::RoiAlignParams& p) {
  const long h = static_cast<long>(xs.dims[2]), w = static_cast<long>(xs.dims[3]);
  const bool half = p.coordinate_transformation_mode == CoordinateTransformation::half_pixel;
  const double off = half ? 0.5 : 0.0;
  const double s = p.spatial_scale;
  const double sw = box[0] * s - off, sh = box[1] * s - off;
  const double ew = box[2] * s - off, eh = box[3] * s - off;
  double rw = ew - sw, rh = eh - sh;
  if (!half) {
    rw = std::max(rw, 1.0);
    rh = std::max(rh, 1.0);
  }
  const double bh = rh / static_cast<double>(oh), bw = rw / static_cast<double>(ow);
  const long gh = p.sampling_ratio > 0 ? static_cast<long>(p.sampling_ratio)
                                       : static_cast<long>(std::ceil(rh / static_cast<double>(oh)));
  const long gw = p.sampling_ratio > 0 ? static_cast<long>(p.sampling_ratio)
                                       : static_cast<long>(std::ceil(rw / static_cast<double>(ow)));
  const double count = static_cast<double>(std::max(gh * gw, 1L));
  const std::size_t plane = static_cast<std::size_t>(h * w);
  const float* img = x.data() + (static_cast<std::size_t>(batch) * xs.dims[1] + c) * plane;
  double out = 0;
  bool first = true;
  for (long iy = 0; iy < gh; ++iy) {
    double y = sh + static_cast<double>(ph) * bh + (static_cast<double>(iy) + 0.5) * bh / gh;
    for (long ix = 0; ix < gw; ++ix) {
      double xx = sw + static_cast<double>(pw) * bw + (static_cast<double>(ix) + 0.5) * bw / gw;
      double v[4] = {0, 0, 0, 0};
      if (!(y < -1.0 || y > h || xx < -1.0 || xx > w)) {
        double yy = std::max(y, 0.0), xc = std::max(xx, 0.0);
        long yl = static_cast<long>(yy), xl = static_cast<long>(xc), yh2 = 0, xh2 = 0;
        if (yl >= h - 1) {
          yh2 = yl = h - 1;
          yy = static_cast<double>(yl);
        } else {
          yh2 = yl + 1;
        }
        if (xl >= w - 1) {
          xh2 = xl = w - 1;
          xc = static_cast<double>(xl);
        } else {
          xh2 = xl + 1;
        }
        const double ly = yy - yl, lx = xc - xl, hy = 1 - ly, hx = 1 - lx;
        v[0] = hy * hx * img[yl * w + xl];
        v[1] = hy * lx * img[yl * w + xh2];
        v[2] = ly * hx * img[yh2 * w + xl];
        v[3] = ly * lx * img[yh2 * w + xh2];
      } else {
        for (double& t : v)
          t = 0 * static_cast<double>(img[0]);
      }
      if (p.mode == SampleMode::avg) {
        out += v[0] + v[1] + v[2] + v[3];
      } else {
        double m = v[0];
        for (int k = 1; k < 4; ++k)
          if (v[k] > m) m = v[k];
        if (first || m > out) out = m;
        first = false;
      }
    }
  }
  return p.mode == SampleMode::avg ? out / count : out;
}

std::vector<ir::RoiAlignParams> every_form() {
  std::vector<ir::RoiAlignParams> out;
  for (const auto mode : {SampleMode::avg, SampleMode::max})
    for (const auto c :
         {CoordinateTransformation::half_pixel, CoordinateTransformation::output_half_pixel})
      for (const std::uint64_t ratio : {0U, 2U})
        out.push_back({.mode = mode,
                       .coordinate_transformation_mode = c,
                       .sampling_ratio = ratio,
                       .spatial_scale = ratio == 0 ? 1.0F : 0.5F});
  return out;
}

std::string name_of(const ir::RoiAlignParams& p) {
  return std::string(p.mode == SampleMode::avg ? "avg" : "max") +
         (p.coordinate_transformation_mode == CoordinateTransformation::half_pixel
              ? " half_pixel"
              : " output_half_pixel") +
         " ratio " + std::to_string(p.sampling_ratio);
}

// Boxes inside, across the border, outside, reversed (x2 < x1) and empty.
const std::vector<float> kBoxes = {1.2F,  0.7F,  6.3F, 4.9F, -2.0F, -1.5F, 3.1F, 2.2F, 9.5F, 9.0F,
                                   14.0F, 12.0F, 5.0F, 4.0F, 2.0F,  1.0F,  3.0F, 3.0F, 3.0F, 3.0F};

TEST(reference_roi_align_forward_tests, MatchesOnnxReference) {
  const ir::Shape xs = shape_of({2, 3, 7, 8});
  const Tensor x = random_tensor(xs, 31);
  const Tensor rois = Tensor::of(shape_of({5, 4}), kBoxes);
  const Tensor batch = batch_of({0, 1, 1, 0, 1});
  for (const ir::RoiAlignParams& p : every_form()) {
    SCOPED_TRACE(name_of(p));
    const auto y =
        run_forward(handler(BackendOp::roi_align), roi_node(5, 3, 3, 2, p), {x, rois, batch});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    std::size_t i = 0;
    for (std::size_t r = 0; r < 5; ++r)
      for (std::size_t c = 0; c < 3; ++c)
        for (ir::Dim ph = 0; ph < 3; ++ph)
          for (ir::Dim pw = 0; pw < 2; ++pw, ++i) {
            const double want =
                oracle(x.floats(), xs, kBoxes.data() + r * 4, batch.ints()[r], c, ph, pw, 3, 2, p);
            EXPECT_NEAR(y->floats()[i], want, 2e-7 * (1 + std::abs(want)))
                << "roi " << r << " channel " << c << " bin " << ph << "," << pw;
          }
  }
}

TEST(reference_roi_align_forward_tests, GuardRefusesWhatItCannotRead) {
  const ir::Shape xs = shape_of({2, 1, 4, 4});
  const ir::Node node = roi_node(1, 1, 2, 2, {});
  const Tensor box = Tensor::of(shape_of({1, 4}), std::vector<float>{0, 0, 2, 2});
  EXPECT_EQ(guard_message(handler(BackendOp::roi_align), node, {zeros(xs), box, batch_of({2})}),
            "batch index 2 of roi 0 is outside X's 2 images; it lies in [0, 2)");
  EXPECT_EQ(guard_message(handler(BackendOp::roi_align), node, {zeros(xs), box, batch_of({-1})}),
            "batch index -1 of roi 0 is outside X's 2 images; it lies in [0, 2)");
  const Tensor nan_box = Tensor::of(
      shape_of({1, 4}), std::vector<float>{0, std::numeric_limits<float>::quiet_NaN(), 2, 2});
  EXPECT_EQ(guard_message(handler(BackendOp::roi_align), node, {zeros(xs), nan_box, batch_of({0})}),
            "roi 0 has a coordinate that is not a finite number");
  // Huge along x but reversed along y (no samples there): bounded per axis, not only in all.
  const Tensor lopsided = Tensor::of(shape_of({1, 4}), std::vector<float>{0, 3, 1e30F, 1});
  EXPECT_NE(guard_message(handler(BackendOp::roi_align), node, {zeros(xs), lopsided, batch_of({0})})
                .find("samples per bin; at most 2^24"),
            std::string::npos);
  const Tensor huge = Tensor::of(shape_of({1, 4}), std::vector<float>{0, 0, 1e30F, 1e30F});
  EXPECT_NE(guard_message(handler(BackendOp::roi_align), node, {zeros(xs), huge, batch_of({0})})
                .find("samples per bin; at most 2^24 (give sampling_ratio, or a smaller box)"),
            std::string::npos);
}

// The VJP of X and of the boxes against finite differences, every form (boxes inside the image,
// so that no sample sits on a clamp, and off the pixel grid).
TEST(reference_roi_align_vjp_tests, MatchesFiniteDifferences) {
  const ir::Shape xs = shape_of({2, 2, 6, 7});
  const Tensor rois = Tensor::of(
      shape_of({2, 4}), std::vector<float>{1.13F, 0.71F, 5.37F, 4.29F, 0.83F, 1.41F, 3.77F, 4.63F});
  std::uint32_t seed = 80;
  for (const ir::RoiAlignParams& p : every_form()) {
    SCOPED_TRACE(name_of(p));
    const Tensor x = random_tensor(xs, seed++);
    EXPECT_TRUE(check_vjp(handler(BackendOp::roi_align), roi_node(2, 2, 2, 3, p),
                          {x, rois, batch_of({1, 0})}, {}, {.step = 1e-4}));
  }
}

}  // namespace
}  // namespace roi_align_test
}  // namespace nnplan::runtime::reference
