// GridSample imports (operators/grid_sample.cpp): one grid_sample node with its attributes (the
// opset-20 mode names from 20 on), and every refusal with its message. Its values are checked by
// the reference kernel's tests, ONNX's node tests and the PyTorch tests.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace grid_sample_import_test {
namespace {

using ::testing::HasSubstr;

Model warp(int opset, std::vector<std::int64_t> x = {1, 2, 4, 5},
           std::vector<std::int64_t> grid = {1, 3, 6, 2}) {
  Model m(opset);
  m.input("x", std::move(x)).input("grid", std::move(grid)).output("y");
  m.node("GridSample", {"x", "grid"}, {"y"}, "gs");
  return m;
}

onnx::NodeProto& node0(Model& m) {
  return m.g().mutable_node()->at(0);
}

TEST(OnnxGridSample, OneNodeWithItsAttributes) {
  const ImportedModel plain = ok(warp(16));
  ASSERT_EQ(plain.graph().nodes.size(), 3U);
  const ir::Node& n = plain.graph().nodes[2];
  EXPECT_EQ(n.kind, ir::OpKind::grid_sample);
  EXPECT_EQ(n.shape, (ir::Shape{{1, 2, 3, 6}}));
  EXPECT_EQ(n.params, (ir::OpParams{ir::GridSampleParams{}}));

  Model set = warp(16);
  attr_s(node0(set), "mode", "bicubic");
  attr_s(node0(set), "padding_mode", "reflection");
  attr_i(node0(set), "align_corners", 1);
  EXPECT_EQ(ok(set).graph().nodes[2].params,
            (ir::OpParams{ir::GridSampleParams{.mode = ir::SampleMode::cubic,
                                               .padding_mode = ir::GridSamplePadding::reflection,
                                               .align_corners = true}}));
  // Opset 20 names the modes linear and cubic.
  Model renamed = warp(20);
  attr_s(node0(renamed), "mode", "cubic");
  EXPECT_EQ(std::get<ir::GridSampleParams>(ok(renamed).graph().nodes[2].params).mode,
            ir::SampleMode::cubic);
}

TEST(OnnxGridSample, Refusals) {
  Model mode = warp(16);
  attr_s(node0(mode), "mode", "linear");
  EXPECT_THAT(unsupported_of(mode),
              HasSubstr("attribute mode = 'linear' is not supported; supported: bilinear, "
                        "nearest, bicubic"));
  Model old_name = warp(20);
  attr_s(node0(old_name), "mode", "bilinear");
  EXPECT_THAT(unsupported_of(old_name), HasSubstr("supported: linear, nearest, cubic"));
  Model padding = warp(16);
  attr_s(node0(padding), "padding_mode", "wrap");
  EXPECT_THAT(unsupported_of(padding), HasSubstr("padding_mode = 'wrap' is not supported"));
  Model align = warp(16);
  attr_i(node0(align), "align_corners", 2);
  EXPECT_THAT(unsupported_of(align),
              HasSubstr("align_corners = 2 is not supported; supported: 0 or 1"));
  EXPECT_EQ(unsupported_of(warp(20, {1, 2, 3, 4, 5}, {1, 2, 3, 4, 3})),
            "node 0 'gs' (GridSample): input X 'x' has shape [1,2,3,4,5]; supported: [N, C, H, "
            "W] (two spatial axes)");
  EXPECT_THAT(error_of(warp(16, {2, 2, 4, 5}, {1, 3, 6, 2})),
              HasSubstr("grid 'grid' has shape [1,3,6,2]; it is [2, H_out, W_out, 2] for X "
                        "[2,2,4,5]"));
  Model before(15);
  before.input("x", {1, 2, 4, 5}).input("grid", {1, 3, 6, 2}).output("y");
  before.node("GridSample", {"x", "grid"}, {"y"}, "gs");
  EXPECT_THAT(error_of(before), HasSubstr("operator GridSample does not exist before opset 16"));
}

}  // namespace
}  // namespace grid_sample_import_test
}  // namespace nnplan::format::onnx_test
