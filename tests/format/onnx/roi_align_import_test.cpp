// RoiAlign imports (operators/roi_align.cpp): one roi_align node with its attributes (opset 10's
// output_half_pixel mapping, opset 16's half_pixel default), and every refusal with its message.
// Its values are checked by the reference kernel's tests, ONNX's node tests and the torchvision
// test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace roi_align_import_test {
namespace {

using ::testing::HasSubstr;

Model pool(int opset, std::vector<std::int64_t> rois = {5, 4},
           int batch_type = onnx::TensorProto_DataType_INT64) {
  Model m(opset);
  m.input("x", {2, 3, 8, 8}).input("rois", std::move(rois)).input("b", {5}, batch_type);
  m.output("y");
  m.node("RoiAlign", {"x", "rois", "b"}, {"y"}, "ra");
  return m;
}

onnx::NodeProto& node0(Model& m) {
  return m.g().mutable_node()->at(0);
}

TEST(OnnxRoiAlign, OneNodeWithItsAttributes) {
  const ImportedModel plain = ok(pool(16));
  ASSERT_EQ(plain.graph().nodes.size(), 4U);
  const ir::Node& n = plain.graph().nodes[3];
  EXPECT_EQ(n.kind, ir::OpKind::roi_align);
  EXPECT_EQ(n.shape, (ir::Shape{{5, 3, 1, 1}}));
  EXPECT_EQ(n.params, (ir::OpParams{ir::RoiAlignParams{}}));

  Model set = pool(16);
  attr_s(node0(set), "mode", "max");
  attr_s(node0(set), "coordinate_transformation_mode", "output_half_pixel");
  attr_i(node0(set), "output_height", 7);
  attr_i(node0(set), "output_width", 5);
  attr_i(node0(set), "sampling_ratio", 2);
  attr_f(node0(set), "spatial_scale", 0.0625F);
  const ImportedModel r = ok(set);
  EXPECT_EQ(r.graph().nodes[3].shape, (ir::Shape{{5, 3, 7, 5}}));
  EXPECT_EQ(r.graph().nodes[3].params,
            (ir::OpParams{ir::RoiAlignParams{
                .mode = ir::SampleMode::max,
                .coordinate_transformation_mode = ir::CoordinateTransformation::output_half_pixel,
                .sampling_ratio = 2,
                .spatial_scale = 0.0625F}}));
  // Opset 10 has no mapping attribute: its boxes are not shifted (output_half_pixel).
  EXPECT_EQ(std::get<ir::RoiAlignParams>(ok(pool(10)).graph().nodes[3].params)
                .coordinate_transformation_mode,
            ir::CoordinateTransformation::output_half_pixel);
}

TEST(OnnxRoiAlign, Refusals) {
  Model mode = pool(16);
  attr_s(node0(mode), "mode", "sum");
  EXPECT_THAT(unsupported_of(mode),
              HasSubstr("attribute mode = 'sum' is not supported; supported: avg, max"));
  Model mapping = pool(16);
  attr_s(node0(mapping), "coordinate_transformation_mode", "align_corners");
  EXPECT_THAT(unsupported_of(mapping),
              HasSubstr("coordinate_transformation_mode = 'align_corners' is not supported; "
                        "supported: half_pixel, output_half_pixel"));
  Model ten = pool(10);
  attr_s(node0(ten), "coordinate_transformation_mode", "half_pixel");
  EXPECT_THAT(unsupported_of(ten),
              HasSubstr("attribute 'coordinate_transformation_mode' is not supported for "));
  Model height = pool(16);
  attr_i(node0(height), "output_height", 0);
  EXPECT_THAT(error_of(height), HasSubstr("attribute output_height = 0 is not a positive integer"));
  Model ratio = pool(16);
  attr_i(node0(ratio), "sampling_ratio", -1);
  EXPECT_THAT(error_of(ratio),
              HasSubstr("attribute sampling_ratio = -1 is negative; it is 0 (adaptive) or a "
                        "positive integer"));
  Model scale = pool(16);
  attr_f(node0(scale), "spatial_scale", 0.0F);
  EXPECT_THAT(error_of(scale), HasSubstr("attribute spatial_scale = 0 is not a positive number"));
  EXPECT_THAT(error_of(pool(16, {5, 5})),
              HasSubstr("rois 'rois' has shape [5,5]; it is [num_rois, 4]"));
  EXPECT_THAT(error_of(pool(16, {4, 4})),
              HasSubstr("batch_indices 'b' has shape [5]; it is [4], one per roi"));
  EXPECT_THAT(error_of(pool(16, {5, 4}, kFloat)),
              HasSubstr("batch_indices 'b' has dtype float32; it is int64"));
}

}  // namespace
}  // namespace roi_align_import_test
}  // namespace nnplan::format::onnx_test
