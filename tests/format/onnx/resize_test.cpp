// Resize and Upsample (onnx/operators/resize.cpp): nearest by whole factors as reshape,
// broadcast_to, reshape, for the coordinate modes where that is exact, every other resize as one
// `resize` node with the model's attributes, and what it rejects.
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

// Repeats are reshape, broadcast_to, reshape; any other nearest mapping is a resize node.
TEST_P(OnnxResizeModes, RepeatsWhereNearestRepeatsElseResizes) {
  const ModeCase& c = GetParam();
  const Model m = resize({1, 1, c.factor, 1}, c.ctm, c.nearest);
  const ImportedModel r = ok(m);
  if (c.exact) {
    EXPECT_EQ(r.graph().nodes.size(), 4U);
  } else {
    ASSERT_EQ(r.graph().nodes.size(), 2U);
    EXPECT_EQ(r.graph().nodes[1].kind, ir::OpKind::resize);
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

// Linear and cubic: one resize node keeping the attributes; the model's scales when it gave
// them, none when it gave sizes.
TEST(OnnxResize, InterpolationIsOneResizeNode) {
  const ImportedModel linear =
      ok(resize({1, 1, 2, 1.5F}, "half_pixel", "round_prefer_floor", "linear"));
  ASSERT_EQ(linear.graph().nodes.size(), 2U);
  const ir::Node& node = linear.graph().nodes[1];
  EXPECT_EQ(node.kind, ir::OpKind::resize);
  EXPECT_EQ(dims(node.shape), "[1,2,6,6]");
  EXPECT_EQ(node.params,
            (ir::OpParams{ir::ResizeParams{
                .mode = ir::SampleMode::linear,
                .coordinate_transformation_mode = ir::CoordinateTransformation::half_pixel,
                .nearest_mode = ir::ResizeNearest::round_prefer_floor,
                .cubic_coeff_a = -0.75F,
                .exclude_outside = false,
                .scales = {1, 1, 2, 1.5F}}}));

  Model m;
  m.input("x", {1, 1, 2, 2}).output("y");
  m.init_i64("sizes", {1, 1, 3, 5});
  auto& n = m.node("Resize", {"x", "", "", "sizes"}, {"y"}, "up");
  attr_s(n, "coordinate_transformation_mode", "align_corners");
  attr_s(n, "mode", "cubic");
  attr_f(n, "cubic_coeff_a", -0.5F);
  attr_i(n, "exclude_outside", 1);
  const ImportedModel cubic = ok(m);
  ASSERT_EQ(cubic.graph().nodes.size(), 2U);
  EXPECT_EQ(dims(cubic.graph().nodes[1].shape), "[1,1,3,5]");
  EXPECT_EQ(cubic.graph().nodes[1].params,
            (ir::OpParams{ir::ResizeParams{
                .mode = ir::SampleMode::cubic,
                .coordinate_transformation_mode = ir::CoordinateTransformation::align_corners,
                .nearest_mode = ir::ResizeNearest::round_prefer_floor,
                .cubic_coeff_a = -0.5F,
                .exclude_outside = true,
                .scales = {}}}));
  // Downscaling by a fraction is a resize too.
  EXPECT_EQ(ok(resize({1, 1, 0.5F, 1}, "asymmetric", "floor", "nearest")).graph().nodes[1].kind,
            ir::OpKind::resize);
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
  // A small file cannot name a size past 2^48.
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
