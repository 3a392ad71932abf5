// The onednn resize handler against the reference provider within its conformance tolerance: the
// resampling primitive where its mapping is ONNX's (linear half_pixel and pytorch_half_pixel by
// scales and by sizes, 1 to 3 resized axes, up and down) and the matmul chain for every other
// form (align_corners, asymmetric, nearest, cubic with exclude_outside, a resized leading axis);
// a resize that changes nothing is a copy; the NaN the matmul chain spreads over the resized
// block, which the capsule's notes declare (and by which the tests tell the two paths apart); the
// chain's matrix bound; channels-last for the resampling form only.
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
  Command unet = resize_case(shape_of({1, 8, 16, 16}), shape_of({1, 8, 32, 32}), doubled);
  expect_matches_reference("onednn.resize", unet);
  // It ran on the resampling primitive: a NaN in the first element stays in its corner (the
  // matmul chain would make the whole plane NaN).
  unet.inputs[0].floats()[0] = NAN;
  auto got = run_onednn("onednn.resize", unet);
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_TRUE(std::isnan(got->floats()[0]));
  EXPECT_FALSE(std::isnan(got->floats()[32 * 32 - 1]));
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
// makes its whole line NaN, and with two resized axes its whole plane (the capsule's notes say
// so); the resampling primitive reads only the taps.
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
  // H and W resized by the chain: the one NaN reaches every output of its plane, none of the
  // other channel's.
  Command plane =
      resize_case(shape_of({1, 2, 3, 3}), shape_of({1, 2, 5, 4}),
                  {.mode = SampleMode::linear,
                   .coordinate_transformation_mode = CoordinateTransformation::asymmetric});
  plane.inputs[0].floats()[4] = NAN;
  auto spread = run_onednn("onednn.resize", plane);
  ASSERT_TRUE(spread.has_value()) << spread.error().message;
  for (std::size_t i = 0; i < 20; ++i)
    EXPECT_TRUE(std::isnan(spread->floats()[i])) << i;
  for (std::size_t i = 20; i < 40; ++i)
    EXPECT_FALSE(std::isnan(spread->floats()[i])) << i;
}

// The chain's matrices are input x output extent: past 2^24 entries compile refuses, naming the
// profile whose reference kernel has no such bound.
TEST(onednn_resize_forward_tests, ChainMatrixIsBounded) {
  const Command big =
      resize_case(shape_of({1, 1, 5000}), shape_of({1, 1, 4000}), {.mode = SampleMode::cubic});
  EXPECT_EQ(refusal("onednn.resize", big),
            "resizing axis 2 from 5000 to 4000 elements needs an interpolation matrix of more "
            "than 2^24 entries on onednn (oneDNN's resampling takes linear half_pixel only); run "
            "it under checked_cpu, whose reference.resize has no such limit");
}

// Channels-last: the resampling form whose resized axes are all but N and C takes it; the matmul
// chain runs flat only.
TEST(onednn_resize_forward_tests, ChannelsLastOnlyForResampling) {
  const Command resampled =
      resize_case(shape_of({1, 4, 6, 5}), shape_of({1, 4, 12, 10}), {.mode = SampleMode::linear});
  EXPECT_TRUE(prepare_onednn("onednn.resize", resampled, 0, TensorLayout::channels_last,
                             TensorLayout::channels_last)
                  .has_value());
  const Command chained =
      resize_case(shape_of({1, 4, 6, 5}), shape_of({1, 4, 12, 10}), {.mode = SampleMode::cubic});
  const auto refused = prepare_onednn("onednn.resize", chained, 0, TensorLayout::channels_last,
                                      TensorLayout::channels_last);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("channels-last only when it resamples all axes but the "
                                         "first two"),
            std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace nnplan::runtime::onednn
