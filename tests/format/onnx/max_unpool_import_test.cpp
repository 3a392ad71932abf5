// MaxUnpool imports (operators/max_unpool.cpp): the inferred shape from kernel_shape, strides and
// pads, a larger output_shape as zeros concatenated after each spatial axis, and the refusals.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace max_unpool_import_test {
namespace {

using ::testing::HasSubstr;

Model unpool(std::vector<std::int64_t> indices_shape = {1, 1, 2, 2}) {
  Model m(11);
  m.input("x", {1, 1, 2, 2})
      .input("i", std::move(indices_shape), onnx::TensorProto_DataType_INT64)
      .output("y");
  auto& n = m.node("MaxUnpool", {"x", "i"}, {"y"}, "up");
  attr_ints(n, "kernel_shape", {2, 2});
  attr_ints(n, "strides", {2, 2});
  return m;
}

TEST(OnnxMaxUnpool, TheInferredShapeAndALargerOutputShape) {
  const ImportedModel r = ok(unpool());
  EXPECT_EQ(lines(r.graph()).back(), "2 max_unpool [0,1] -> [1,1,4,4] 'up'");
  Model larger = unpool();
  larger.init_i64("shape", {1, 1, 5, 5});
  larger.g().mutable_node()->at(0).add_input("shape");
  const ImportedModel l = ok(larger);
  EXPECT_EQ(l.graph().nodes.back().shape, (ir::Shape{{1, 1, 5, 5}}));
  EXPECT_EQ(l.graph().nodes.back().kind, ir::OpKind::concat);
}

TEST(OnnxMaxUnpool, Refusals) {
  Model smaller = unpool();
  smaller.init_i64("shape", {1, 1, 3, 4});
  smaller.g().mutable_node()->at(0).add_input("shape");
  EXPECT_THAT(unsupported_of(smaller),
              HasSubstr("output_shape 'shape' holds [1,1,3,4], smaller than the inferred "
                        "[1,1,4,4]; supported: at least the inferred shape"));
  EXPECT_THAT(error_of(unpool({1, 1, 4})),
              HasSubstr("input I 'i' has shape [1,1,4]; it is X's, [1,1,2,2]"));
  Model floats(11);
  floats.input("x", {1, 1, 2, 2}).input("i", {1, 1, 2, 2}).output("y");
  attr_ints(floats.node("MaxUnpool", {"x", "i"}, {"y"}, "up"), "kernel_shape", {2, 2});
  EXPECT_THAT(error_of(floats), HasSubstr("input I 'i' has dtype float32; it is int64"));
}

}  // namespace
}  // namespace max_unpool_import_test
}  // namespace nnplan::format::onnx_test
