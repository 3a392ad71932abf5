// Resize and Upsample (onnx/operators/resize.cpp): nearest by whole factors as reshape,
// broadcast_to, reshape, for the coordinate modes where that is exact, and what it rejects.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

// unet_small's upsampling: scales [1,1,2,2], nearest, asymmetric, floor.
Model resize(std::vector<float> scales, const std::string& ctm = "asymmetric",
             const std::string& nearest = "floor", const std::string& mode = "nearest") {
  Model m;
  m.input("x", {1, 2, 3, 4}).output("y");
  m.init("roi", {0}, {});
  m.init("scales", {static_cast<std::int64_t>(scales.size())}, scales);
  auto& n = m.node("Resize", {"x", "roi", "scales"}, {"y"}, "up");
  attr_s(n, "coordinate_transformation_mode", ctm);
  attr_f(n, "cubic_coeff_a", -0.75F);
  attr_s(n, "mode", mode);
  attr_s(n, "nearest_mode", nearest);
  return m;
}

TEST(OnnxResize, NearestByWholeFactorsRepeatsElements) {
  EXPECT_EQ(lines(ok(resize({1, 1, 2, 2})).graph()),
            (Lines{"0 input -> [1,2,3,4] 'x'",
                   "1 reshape([1,2,3,4]->[1,2,3,1,4,1]) [0] -> [1,2,3,1,4,1] 'up'",
                   "2 broadcast_to([1,2,3,1,4,1]->[1,2,3,2,4,2]) [1] -> [1,2,3,2,4,2] 'up'",
                   "3 reshape([1,2,3,2,4,2]->[1,2,6,8]) [2] -> [1,2,6,8] 'up'"}));
  // one axis by 3; factor 1 everywhere is no node
  EXPECT_EQ(lines(ok(resize({1, 1, 1, 3})).graph())[3],
            "3 reshape([1,2,3,4,3]->[1,2,3,12]) [2] -> [1,2,3,12] 'up'");
  EXPECT_EQ(lines(ok(resize({1, 1, 1, 1})).graph()).size(), 1U);
}

TEST(OnnxResize, SizesInsteadOfScales) {
  Model m;
  m.input("x", {1, 1, 2, 2}).output("y");
  m.init_i64("sizes", {1, 1, 4, 6});
  auto& n = m.node("Resize", {"x", "", "", "sizes"}, {"y"}, "up");
  attr_s(n, "coordinate_transformation_mode", "half_pixel");
  attr_s(n, "mode", "nearest");
  EXPECT_EQ(lines(ok(m).graph())[3], "3 reshape([1,1,2,2,2,3]->[1,1,4,6]) [2] -> [1,1,4,6] 'up'");
}

struct ModeCase {
  std::string ctm, nearest;
  float factor;
  bool exact;
};

class OnnxResizeModes : public ::testing::TestWithParam<ModeCase> {};

// Repeats are reshape, broadcast_to, reshape; any other nearest mapping gathers the picked rows.
TEST_P(OnnxResizeModes, RepeatsWhereNearestRepeatsElseGathers) {
  const ModeCase& c = GetParam();
  const Model m = resize({1, 1, c.factor, 1}, c.ctm, c.nearest);
  const ImportedModel r = ok(m);
  if (c.exact) {
    EXPECT_EQ(r.graph().nodes.size(), 4U);
  } else {
    ASSERT_EQ(r.graph().nodes.size(), 2U);
    EXPECT_EQ(r.graph().nodes[1].kind, ir::OpKind::gather);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, OnnxResizeModes,
    ::testing::Values(ModeCase{"asymmetric", "floor", 3, true},
                      ModeCase{"asymmetric", "round_prefer_floor", 2, true},
                      ModeCase{"asymmetric", "round_prefer_floor", 3, false},
                      ModeCase{"asymmetric", "ceil", 2, false},
                      ModeCase{"half_pixel", "round_prefer_floor", 3, true},
                      ModeCase{"pytorch_half_pixel", "round_prefer_ceil", 2, true},
                      ModeCase{"half_pixel", "floor", 2, false},
                      ModeCase{"tf_half_pixel_for_nn", "floor", 4, true},
                      ModeCase{"align_corners", "round_prefer_floor", 2, false}));

// Linear: per resized axis, two gathers of the neighbours, each times its coefficients, summed.
TEST(OnnxResize, LinearInterpolatesOneAxisAtATime) {
  EXPECT_EQ(lines(ok(resize({1, 1, 2, 1}, "half_pixel", "round_prefer_floor", "linear")).graph()),
            (Lines{"0 input -> [1,2,3,4] 'x'", "1 gather(axis=2) [0] -> [1,2,6,4] 'up'",
                   "2 const -> [6] 'up'", "3 reshape([6]->[6,1]) [2] -> [6,1] 'up'",
                   "4 broadcast_to([6,1]->[1,2,6,4]) [3] -> [1,2,6,4] 'up'",
                   "5 mul_elem [1,4] -> [1,2,6,4] 'up'", "6 gather(axis=2) [0] -> [1,2,6,4] 'up'",
                   "7 const -> [6] 'up'", "8 reshape([6]->[6,1]) [7] -> [6,1] 'up'",
                   "9 broadcast_to([6,1]->[1,2,6,4]) [8] -> [1,2,6,4] 'up'",
                   "10 mul_elem [6,9] -> [1,2,6,4] 'up'", "11 add [5,10] -> [1,2,6,4] 'up'"}));
  // Downscaling and fractional factors gather too; an unchanged axis is no node.
  EXPECT_EQ(ok(resize({1, 1, 0.5F, 1}, "asymmetric", "floor", "nearest")).graph().nodes.size(), 2U);
  EXPECT_EQ(ok(resize({1, 1, 1, 1}, "align_corners", "floor", "cubic")).graph().nodes.size(), 1U);
}

TEST(OnnxResize, Rejects) {
  EXPECT_EQ(unsupported_of(resize({1, 1, 2, 2}, "tf_crop_and_resize", "floor", "linear")),
            "node 0 'up' (Resize): coordinate_transformation_mode = tf_crop_and_resize is not "
            "supported; supported: half_pixel, pytorch_half_pixel, align_corners, asymmetric, "
            "tf_half_pixel_for_nn");
  EXPECT_EQ(error_of(resize({1, 1, 2, 2}, "asymmetric", "floor", "bilinear")),
            "m.onnx: node 'up' (Resize, opset 17): attribute mode = 'bilinear' is no Resize mode; "
            "ONNX defines nearest, linear and cubic");
  EXPECT_EQ(error_of(resize({1, 1, 2, 2}, "corners", "floor", "linear")),
            "m.onnx: node 'up' (Resize, opset 17): attribute coordinate_transformation_mode = "
            "'corners' is no coordinate mode ONNX defines");
  EXPECT_EQ(error_of(resize({1, 1, -2, 2})),
            "m.onnx: node 'up' (Resize, opset 17): scale -2 on axis 2 is not a positive number");
  EXPECT_EQ(error_of(resize({1, 2, 2})),
            "m.onnx: node 'up' (Resize, opset 17): scales has 3 entries for input [1,2,3,4]");
  // A small file cannot make the import tabulate gigabytes of taps, nor name a size past 2^48.
  EXPECT_EQ(unsupported_of(resize({1, 1, 1, 1048577.0F}, "half_pixel", "floor", "linear")),
            "node 0 'up' (Resize): axis 3 resized to 4194308 elements by interpolation is not "
            "supported; supported: up to 4194304 (2^22) per interpolated axis");
  EXPECT_EQ(error_of(resize({1, 1, 1, 1e15F})),
            "m.onnx: node 'up' (Resize, opset 17): axis 3 of [1,2,3,4] resized to "
            "3999999947964416 elements is past the limit of 2^48 per dimension");
}

TEST(OnnxResize, Opset10IsAsymmetricFloor) {
  Model m(10);
  m.input("x", {1, 1, 2, 2}).output("y");
  m.init("scales", {4}, {1, 1, 3, 3});
  attr_s(m.node("Resize", {"x", "scales"}, {"y"}, "up"), "mode", "nearest");
  EXPECT_EQ(dims(ok(m).graph().nodes.back().shape), "[1,1,6,6]");
}

// Upsample reads as Resize-10: scales from input 1 (opset 9) or the attribute (7 and 8).
TEST(OnnxResize, UpsampleOfOpsets7To9) {
  Model nine(9);
  nine.input("x", {1, 1, 2, 2}).output("y");
  nine.init("scales", {4}, {1, 1, 2, 3});
  nine.node("Upsample", {"x", "scales"}, {"y"}, "up");
  EXPECT_EQ(lines(ok(nine).graph()).back(),
            "3 reshape([1,1,2,2,2,3]->[1,1,4,6]) [2] -> [1,1,4,6] 'up'");
  Model seven(7);
  seven.input("x", {1, 1, 2, 2}).output("y");
  auto& n = seven.node("Upsample", {"x"}, {"y"}, "up");
  new_attr(n, "scales", onnx::AttributeProto_AttributeType_FLOATS);
  for (const float s : {1.0F, 1.0F, 2.0F, 2.0F})
    n.mutable_attribute(n.attribute_size() - 1)->add_floats(s);
  EXPECT_EQ(lines(ok(seven).graph()).back(),
            "3 reshape([1,1,2,2,2,2]->[1,1,4,4]) [2] -> [1,1,4,4] 'up'");
  Model ten(10);
  ten.input("x", {1, 1, 2, 2}).output("y");
  ten.init("scales", {4}, {1, 1, 2, 2});
  ten.node("Upsample", {"x", "scales"}, {"y"}, "up");
  EXPECT_EQ(unsupported_of(ten),
            "node 0 'up' (Upsample): operator Upsample is supported up to opset 9; its definition "
            "changed after that, and the model's opset is 10");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
