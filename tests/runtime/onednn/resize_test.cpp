// The onednn resize handler against the reference provider within its conformance tolerance: the
// resampling primitive where its mapping is ONNX's (linear half_pixel and pytorch_half_pixel by
// scales and by sizes, 1 to 3 resized axes, up and down) and the matmul chain for every other
// form (align_corners, asymmetric, nearest, cubic with exclude_outside, a resized leading axis);
// a resize that changes nothing is a copy; and the NaN the matmul chain spreads along a line,
// which the capsule's notes declare.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "onednn_test_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;
using ir::CoordinateTransformation;
using ir::SampleMode;

Command resize_case(const ir::Shape& in, const ir::Shape& out, const ir::ResizeParams& p,
                    std::uint32_t seed = 61) {
  Command cmd;
  cmd.inputs.push_back(random_tensor(in, seed));
  cmd.chain.push_back(node(1, ir::OpKind::resize, {0}, out, p));
  return cmd;
}

TEST(onednn_resize_forward_tests, ResamplingMatchesReference) {
  const ir::ResizeParams half{.mode = SampleMode::linear};
  const ir::ResizeParams torch{
      .mode = SampleMode::linear,
      .coordinate_transformation_mode = CoordinateTransformation::pytorch_half_pixel};
  // By sizes: 1, 2 and 3 resized axes, up and down.
  expect_matches_reference("onednn.resize",
                           resize_case(shape_of({2, 3, 7}), shape_of({2, 3, 12}), half));
  expect_matches_reference("onednn.resize",
                           resize_case(shape_of({1, 4, 6, 5}), shape_of({1, 4, 13, 3}), torch));
  expect_matches_reference("onednn.resize",
                           resize_case(shape_of({1, 2, 3, 4, 5}), shape_of({1, 2, 6, 2, 9}), half));
  // By scales equal to output / input (the bilinear U-Net's factor 2).
  ir::ResizeParams doubled = half;
  doubled.scales = {1, 1, 2, 2};
  expect_matches_reference(
      "onednn.resize", resize_case(shape_of({1, 8, 16, 16}), shape_of({1, 8, 32, 32}), doubled));
}

TEST(onednn_resize_forward_tests, MatmulChainMatchesReference) {
  const ir::Shape in = shape_of({2, 3, 5, 6});
  for (const auto mode : {SampleMode::nearest, SampleMode::linear, SampleMode::cubic}) {
    for (const auto c :
         {CoordinateTransformation::align_corners, CoordinateTransformation::asymmetric,
          CoordinateTransformation::tf_half_pixel_for_nn, CoordinateTransformation::half_pixel}) {
      for (const bool exclude : {false, true}) {
        SCOPED_TRACE("mode " + std::to_string(static_cast<int>(mode)) + " coordinates " +
                     std::to_string(static_cast<int>(c)) + (exclude ? " exclude" : ""));
        const ir::ResizeParams p{.mode = mode,
                                 .coordinate_transformation_mode = c,
                                 .exclude_outside = exclude,
                                 .scales = {1, 1, 1.75F, 0.6F}};
        expect_matches_reference("onednn.resize", resize_case(in, shape_of({2, 3, 8, 3}), p));
      }
    }
  }
  // A leading axis resized too, by sizes.
  expect_matches_reference(
      "onednn.resize",
      resize_case(in, shape_of({4, 3, 5, 9}),
                  {.mode = SampleMode::linear,
                   .coordinate_transformation_mode = CoordinateTransformation::align_corners}));
}

TEST(onednn_resize_forward_tests, UnchangedIsACopy) {
  const Command cmd =
      resize_case(shape_of({2, 3, 4}), shape_of({2, 3, 4}), {.mode = SampleMode::cubic});
  auto got = run_onednn("onednn.resize", cmd);
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_EQ(got->floats(), cmd.inputs[0].floats());
}

// The matmul chain multiplies every element of a line by its weight, zeros included: one NaN
// makes its whole line NaN (the capsule's notes say so); the resampling primitive reads only the
// taps.
TEST(onednn_resize_forward_tests, NanAlongAResizedLine) {
  Command cmd =
      resize_case(shape_of({1, 1, 1, 4}), shape_of({1, 1, 1, 8}),
                  {.mode = SampleMode::linear,
                   .coordinate_transformation_mode = CoordinateTransformation::align_corners});
  cmd.inputs[0] = Tensor::of(shape_of({1, 1, 1, 4}), std::vector<float>{1, 2, 3, NAN});
  auto chained = run_onednn("onednn.resize", cmd);
  ASSERT_TRUE(chained.has_value()) << chained.error().message;
  for (const float v : chained->floats())
    EXPECT_TRUE(std::isnan(v)) << v;
  cmd.chain[0].params = ir::ResizeParams{.mode = SampleMode::linear};
  auto resampled = run_onednn("onednn.resize", cmd);
  ASSERT_TRUE(resampled.has_value()) << resampled.error().message;
  EXPECT_EQ(resampled->floats()[0], 1.0F);
  EXPECT_TRUE(std::isnan(resampled->floats()[7]));
}

}  // namespace
}  // namespace nnplan::runtime::onednn
