// Where with a constant -inf mask feeding a last-axis Softmax (onnx/operators/where.cpp): one
// hard_masked_softmax node with the mask's polarity and shape, the Softmax absorbed; the near
// misses each unsupported with the reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <limits>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

void bool_init(Model& m, const std::string& name, std::vector<std::int64_t> d,
               const std::vector<bool>& v) {
  auto* t = m.g().add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto_DataType_BOOL);
  for (const auto x : d)
    t->add_dims(x);
  for (const bool b : v)
    t->add_int32_data(b ? 1 : 0);
}

// The causal mask torch writes: true above the diagonal (blocked).
std::vector<bool> upper(int n) {
  std::vector<bool> v;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      v.push_back(j > i);
  return v;
}

// gpt_block's pattern: Where(mask, -inf, scores) -> Softmax(-1) -> y.
Model causal(std::vector<std::int64_t> mask_dims = {3, 3}, float blocked = -kInf,
             bool scores_first = false) {
  Model m;
  m.input("s", {1, 2, 3, 3}).output("y");
  bool_init(m, "mask", mask_dims, scores_first ? std::vector<bool>{true, false, false, true, true,
                                                                   false, true, true, true}
                                               : upper(3));
  m.init("ninf", {}, {blocked});
  if (scores_first) {
    m.node("Where", {"mask", "s", "ninf"}, {"w"}, "where");
  } else {
    m.node("Where", {"mask", "ninf", "s"}, {"w"}, "where");
  }
  attr_i(m.node("Softmax", {"w"}, {"y"}, "sm"), "axis", -1);
  return m;
}

TEST(OnnxWhere, CausalMaskBeforeSoftmaxIsHardMaskedSoftmax) {
  for (const bool scores_first : {false, true}) {
    const ImportedModel r = ok(causal({1, 1, 3, 3}, -kInf, scores_first));
    EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [1,2,3,3] 's'",
                                       "1 hard_masked_softmax [0] -> [1,2,3,3] 'where'"}));
    EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{1}));
    const auto& p = std::get<ir::MaskParams>(r.graph().nodes[1].params);
    EXPECT_EQ(dims(p.shape), "[3,3]");  // the leading 1-dims dropped
    // Allowed where the scores are chosen: the lower triangle.
    EXPECT_EQ(p.allowed, (std::vector<bool>{true, false, false, true, true, false, true, true, true}));
  }
}

TEST(OnnxWhere, LowestFloatBlocksToo) {
  const ImportedModel r = ok(causal({3, 3}, std::numeric_limits<float>::lowest()));
  EXPECT_EQ(r.graph().nodes[1].kind, OpKind::hard_masked_softmax);
}

TEST(OnnxWhere, MaskBroadcastsOverTheLastAxisWhenItSpansIt) {
  Model m;  // a [3,1] condition blocks whole rows but for one; spread over the [3,3] mask
  m.input("s", {2, 3, 3}).output("y");
  bool_init(m, "c", {3, 1}, {false, false, false});
  m.init("ninf", {}, {-kInf});
  m.node("Where", {"c", "ninf", "s"}, {"w"}, "where");
  m.node("Softmax", {"w"}, {"y"}, "sm");
  const ImportedModel r = ok(m);
  const auto& p = std::get<ir::MaskParams>(r.graph().nodes[1].params);
  EXPECT_EQ(dims(p.shape), "[3,3]");
  EXPECT_EQ(p.allowed, std::vector<bool>(9, true));
}

std::string why(const Model& m) {
  const std::string msg = unsupported_of(m);
  const std::string lead = "(hard_masked_softmax); ";
  const auto at = msg.find(lead);
  return at == std::string::npos ? msg : msg.substr(at + lead.size());
}

TEST(OnnxWhere, AMaskPastTheFoldingCapIsRefused) {
  // A [2,1,1,2] condition against scores [2,4096,4096,2] spans 2^25 mask entries.
  Model m;
  m.input("s", {2, 4096, 4096, 2}).output("y");
  bool_init(m, "mask", {2, 1, 1, 2}, {false, true, true, false});
  m.init("ninf", {}, {-kInf});
  m.node("Where", {"mask", "ninf", "s"}, {"w"}, "where");
  attr_i(m.node("Softmax", {"w"}, {"y"}, "sm"), "axis", -1);
  EXPECT_THAT(unsupported_of(m), ::testing::HasSubstr("the mask [2,4096,4096,2] would hold more "
                                                      "than 16777216 entries"));
}

TEST(OnnxWhere, NearMissesAreUnsupportedWithTheReason) {
  {
    Model m = causal();
    m.g().mutable_node(1)->mutable_attribute(0)->set_i(2);
    EXPECT_EQ(why(m), "the Softmax is over axis 2, not the last axis of [1,2,3,3]");
  }
  {
    Model m = causal({3, 3}, -1e9F);
    EXPECT_EQ(why(m), "neither branch is a constant -inf");
  }
  {
    Model m = causal();
    m.output("w");
    EXPECT_EQ(why(m), "its output 'w' has 1 consumers and is a graph output");
  }
  {
    Model m = causal();
    m.g().mutable_node(1)->set_op_type("Relu");
    m.g().mutable_node(1)->clear_attribute();
    EXPECT_EQ(why(m), "its output feeds Relu, not a Softmax");
  }
  {
    Model m;  // the first row blocked everywhere: NaN in ONNX
    m.input("s", {3, 3}).output("y");
    std::vector<bool> v = upper(3);
    v[0] = true;
    bool_init(m, "mask", {3, 3}, v);
    m.init("ninf", {}, {-kInf});
    m.node("Where", {"mask", "ninf", "s"}, {"w"}, "where");
    m.node("Softmax", {"w"}, {"y"}, "sm");
    EXPECT_EQ(why(m),
              "row 0 of the mask blocks every position, where ONNX gives NaN and "
              "hard_masked_softmax zeros");
  }
  {
    Model m;  // a condition computed at run time
    m.input("s", {3, 3}).input("c", {3, 3}, onnx::TensorProto_DataType_BOOL).output("y");
    m.init("ninf", {}, {-kInf});
    m.node("Where", {"c", "ninf", "s"}, {"w"}, "where");
    m.node("Softmax", {"w"}, {"y"}, "sm");
    EXPECT_EQ(why(m), "the condition 'c' is not a constant");
  }
  {
    Model m;  // a mask larger than the scores
    m.input("s", {3}).output("y");
    bool_init(m, "mask", {2, 3}, {false, false, false, false, false, false});
    m.init("ninf", {}, {-kInf});
    m.node("Where", {"mask", "ninf", "s"}, {"w"}, "where");
    m.node("Softmax", {"w"}, {"y"}, "sm");
    EXPECT_EQ(why(m),
              "the condition [2,3] or the -inf [] broadcasts the scores [3] to a larger shape");
  }
}

}  // namespace
}  // namespace nnplan::format::onnx_test
