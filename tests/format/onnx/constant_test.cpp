// Constant (onnx/operators/constant.cpp): its value becomes a constant, materialized on use.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

TEST(OnnxImport, ConstantNodeBecomesConstPayload) {
  Model m;
  m.input("x", {3}).output("y");
  auto& c = m.node("Constant", {}, {"k"}, "k_node");
  auto& a = new_attr(c, "value", onnx::AttributeProto_AttributeType_TENSOR);
  fill_tensor(*a.mutable_t(), "", {3}, {1.5f, 2.5f, 3.5f}, false);
  m.node("Add", {"x", "k"}, {"y"}, "add");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [3] 'x'", "1 const -> [3] 'k_node'", "2 add [0,1] -> [3] 'add'"}));
  EXPECT_EQ(tensor_of(r, 1, "value").to_vector<float>(), (std::vector<float>{1.5f, 2.5f, 3.5f}));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
