// GatherND (onnx/operators/gather_nd.cpp): one gather_nd node over the data and int64 indices,
// batch_dims from opset 12; and what it refuses.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace gather_nd_test {
namespace {

constexpr int kInt64 = onnx::TensorProto_DataType_INT64;

Model gather_nd(std::int64_t opset, std::vector<std::int64_t> indices, std::int64_t batch = 0) {
  Model m(opset);
  m.input("x", {2, 3, 4}).input("i", std::move(indices), kInt64).output("y");
  onnx::NodeProto& n = m.node("GatherND", {"x", "i"}, {"y"}, "g");
  if (batch != 0) attr_i(n, "batch_dims", batch);
  return m;
}

TEST(OnnxGatherNd, OneNodeOfTheIndicesLeadingShapeThenTheData) {
  EXPECT_EQ(lines(ok(gather_nd(11, {5, 2})).graph()).back(),
            "2 gather_nd(batch_dims=0) [0,1] -> [5,4] 'g'");
  EXPECT_EQ(lines(ok(gather_nd(13, {2, 7, 1}, 1)).graph()).back(),
            "2 gather_nd(batch_dims=1) [0,1] -> [2,7,4] 'g'");
  EXPECT_EQ(lines(ok(gather_nd(13, {6, 3})).graph()).back(),
            "2 gather_nd(batch_dims=0) [0,1] -> [6] 'g'");
}

TEST(OnnxGatherNd, Refusals) {
  EXPECT_EQ(error_of(gather_nd(13, {5, 4})),
            "m.onnx: node 'g' (GatherND, opset 13): indices 'i' have shape [5,4]; their last axis "
            "must be 1 to 3 for data [2,3,4] after 0 batch axes");
  EXPECT_EQ(error_of(gather_nd(13, {3, 1}, 1)),
            "m.onnx: node 'g' (GatherND, opset 13): indices [3,1] and data [2,3,4] differ on "
            "batch axis 0");
  EXPECT_EQ(error_of(gather_nd(13, {2, 1}, 2)),
            "m.onnx: node 'g' (GatherND, opset 13): batch_dims = 2 is outside [0, 2) for data "
            "[2,3,4] and indices [2,1]");
  Model early = gather_nd(11, {2, 1}, 1);
  EXPECT_NE(unsupported_error(early).notes.at(0).find("batch_dims"), std::string::npos);
}

}  // namespace
}  // namespace gather_nd_test
}  // namespace nnplan::format::onnx_test
