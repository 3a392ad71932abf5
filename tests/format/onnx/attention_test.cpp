// Scaled dot-product attention (onnx/operators/attention.cpp): MatMul(q, kT) [scaled] [causally
// masked] -> Softmax(-1) -> MatMul(., v) as one scaled_dot_product_attention node, and the near
// misses left to the plain importers.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <limits>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// q [2,4,8], kT [2,8,4], v [2,4,8] (torch 1.13's nn.MultiheadAttention, heads in the batch);
// `scale`: a Mul of the scores by a constant; `mask`: Where(upper triangle, -inf, scores).
Model attention(bool scale, bool mask, bool causal_mask = true) {
  Model m;
  m.input("q", {2, 4, 8}).input("kt", {2, 8, 4}).input("v", {2, 4, 8}).output("y");
  m.node("MatMul", {"q", "kt"}, {"s"}, "qk");
  std::string scores = "s";
  if (scale) {
    m.init("c", {}, {0.25F});
    m.node("Mul", {"s", "c"}, {"ss"}, "scale");
    scores = "ss";
  }
  if (mask) {
    auto* t = m.g().add_initializer();
    t->set_name("mask");
    t->set_data_type(onnx::TensorProto_DataType_BOOL);
    t->add_dims(4);
    t->add_dims(4);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        t->add_int32_data(j > i || (!causal_mask && i == 3 && j == 0) ? 1 : 0);
    m.init("ninf", {}, {-kInf});
    m.node("Where", {"mask", "ninf", scores}, {"w"}, "where");
    scores = "w";
  }
  attr_i(m.node("Softmax", {scores}, {"p"}, "sm"), "axis", -1);
  m.node("MatMul", {"p", "v"}, {"y"}, "pv");
  return m;
}

TEST(OnnxAttention, ChainIsOneNode) {
  const ImportedModel r = ok(attention(true, true));
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [2,4,8] 'q'", "1 input -> [2,8,4] 'kt'", "2 input -> [2,4,8] 'v'",
                   "3 permute(perm=0,2,1) [1] -> [2,4,8] 'qk'",
                   "4 scaled_dot_product_attention [0,3,2] -> [2,4,8] 'qk'"}));
  const auto& p = std::get<ir::AttentionParams>(r.graph().nodes[4].params);
  EXPECT_TRUE(p.causal);
  EXPECT_EQ(p.scale, 0.25F);
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{4}));
}

TEST(OnnxAttention, WithoutScaleOrMaskTheScaleIsOne) {
  const ImportedModel r = ok(attention(false, false));
  ASSERT_EQ(r.graph().nodes.size(), 5U);
  const auto& p = std::get<ir::AttentionParams>(r.graph().nodes[4].params);
  EXPECT_FALSE(p.causal);
  EXPECT_EQ(p.scale, 1.0F);
}

TEST(OnnxAttention, NearMissesStayPlainNodes) {
  // a mask that is not causal: matmul, scale, hard_masked_softmax, matmul
  const ImportedModel r = ok(attention(true, true, false));
  EXPECT_EQ(r.graph().nodes[3].kind, OpKind::matmul);
  bool masked = false;
  for (const auto& n : r.graph().nodes) {
    EXPECT_NE(n.kind, OpKind::scaled_dot_product_attention);
    masked = masked || n.kind == OpKind::hard_masked_softmax;
  }
  EXPECT_TRUE(masked);
  // the scores also a graph output
  Model g = attention(false, false);
  g.output("s");
  const ImportedModel rg = ok(g);
  for (const auto& n : rg.graph().nodes)
    EXPECT_NE(n.kind, OpKind::scaled_dot_product_attention);
  // the softmax over another axis
  Model a = attention(false, false);
  a.g().mutable_node(1)->mutable_attribute(0)->set_i(1);
  const ImportedModel ra = ok(a);
  for (const auto& n : ra.graph().nodes)
    EXPECT_NE(n.kind, OpKind::scaled_dot_product_attention);
}

}  // namespace
}  // namespace nnplan::format::onnx_test
