// Where with a constant -inf mask feeding a last-axis Softmax (onnx/operators/where.cpp): one
// hard_masked_softmax node with the mask's polarity and shape, the Softmax absorbed; every near
// miss, and every other Where, one `where` node over its broadcast operands.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <limits>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

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
  m.init_bool("mask", mask_dims,
              scores_first
                  ? std::vector<bool>{true, false, false, true, true, false, true, true, true}
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
    EXPECT_EQ(p.allowed,
              (std::vector<bool>{true, false, false, true, true, false, true, true, true}));
  }
}

TEST(OnnxWhere, LowestFloatBlocksToo) {
  const ImportedModel r = ok(causal({3, 3}, std::numeric_limits<float>::lowest()));
  EXPECT_EQ(r.graph().nodes[1].kind, OpKind::hard_masked_softmax);
}

TEST(OnnxWhere, MaskBroadcastsOverTheLastAxisWhenItSpansIt) {
  Model m;  // a [3,1] condition blocks whole rows but for one; spread over the [3,3] mask
  m.input("s", {2, 3, 3}).output("y");
  m.init_bool("c", {3, 1}, {false, false, false});
  m.init("ninf", {}, {-kInf});
  m.node("Where", {"c", "ninf", "s"}, {"w"}, "where");
  m.node("Softmax", {"w"}, {"y"}, "sm");
  const ImportedModel r = ok(m);
  const auto& p = std::get<ir::MaskParams>(r.graph().nodes[1].params);
  EXPECT_EQ(dims(p.shape), "[3,3]");
  EXPECT_EQ(p.allowed, std::vector<bool>(9, true));
}

// The kinds of the imported graph's nodes, in order.
std::vector<OpKind> kinds(const Model& m) {
  std::vector<OpKind> out;
  const ImportedModel r = ok(m);
  for (const ir::Node& n : r.graph().nodes)
    out.push_back(n.kind);
  return out;
}

// Past the pattern, Where is one `where` node whose operands broadcast in the kernel: no mask of
// the scores' size is ever tabulated.
TEST(OnnxWhere, AMaskThatWouldPassTheFoldingCapIsAWhereNode) {
  // A [2,1,1,2] condition against scores [2,4096,4096,2] would span 2^25 mask entries.
  Model m;
  m.input("s", {2, 4096, 4096, 2}).output("y");
  m.init_bool("mask", {2, 1, 1, 2}, {false, true, true, false});
  m.init("ninf", {}, {-kInf});
  m.node("Where", {"mask", "ninf", "s"}, {"w"}, "where");
  attr_i(m.node("Softmax", {"w"}, {"y"}, "sm"), "axis", -1);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,4096,4096,2] 's'", "1 const -> [2,1,1,2] 'mask'",
                   "2 const -> [] 'ninf'", "3 where [1,2,0] -> [2,4096,4096,2] 'where'",
                   "4 softmax(axis=3) [3] -> [2,4096,4096,2] 'sm'"}));
}

// Each near miss of the pattern is a `where` node and, where there is one, a softmax of its own:
// the same values, computed in two steps.
TEST(OnnxWhere, NearMissesAreAWhereNode) {
  const std::vector<OpKind> where_then_softmax{OpKind::input, OpKind::const_, OpKind::const_,
                                               OpKind::where, OpKind::softmax};
  {
    Model m = causal();  // a softmax over another axis
    m.g().mutable_node(1)->mutable_attribute(0)->set_i(2);
    EXPECT_EQ(kinds(m), where_then_softmax);
  }
  {
    Model m = causal({3, 3}, -1e9F);  // a finite blocking value
    EXPECT_EQ(kinds(m), where_then_softmax);
  }
  {
    Model m = causal();  // the masked scores are a graph output too
    m.output("w");
    EXPECT_EQ(kinds(m), where_then_softmax);
    EXPECT_EQ(ok(m).graph().output_ids, (std::vector<ir::NodeId>{4, 3}));
  }
  {
    Model m = causal();  // no softmax after it
    m.g().mutable_node(1)->set_op_type("Relu");
    m.g().mutable_node(1)->clear_attribute();
    EXPECT_EQ(kinds(m), (std::vector<OpKind>{OpKind::input, OpKind::const_, OpKind::const_,
                                             OpKind::where, OpKind::relu}));
  }
  {
    Model m;  // the first row blocked everywhere: NaN in ONNX, and in the where + softmax
    m.input("s", {3, 3}).output("y");
    std::vector<bool> v = upper(3);
    v[0] = true;
    m.init_bool("mask", {3, 3}, v);
    m.init("ninf", {}, {-kInf});
    m.node("Where", {"mask", "ninf", "s"}, {"w"}, "where");
    m.node("Softmax", {"w"}, {"y"}, "sm");
    EXPECT_EQ(kinds(m), where_then_softmax);
  }
  {
    Model m;  // a condition computed at run time
    m.input("s", {3, 3}).input("c", {3, 3}, onnx::TensorProto_DataType_BOOL).output("y");
    m.init("ninf", {}, {-kInf});
    m.node("Where", {"c", "ninf", "s"}, {"w"}, "where");
    m.node("Softmax", {"w"}, {"y"}, "sm");
    EXPECT_EQ(lines(ok(m).graph()),
              (Lines{"0 input -> [3,3] 's'", "1 input -> [3,3] 'c'", "2 const -> [] 'ninf'",
                     "3 where [1,2,0] -> [3,3] 'where'", "4 softmax(axis=1) [3] -> [3,3] 'sm'"}));
  }
  {
    Model m;  // a mask larger than the scores: the result takes the broadcast shape
    m.input("s", {3}).output("y");
    m.init_bool("mask", {2, 3}, {false, false, false, false, false, false});
    m.init("ninf", {}, {-kInf});
    m.node("Where", {"mask", "ninf", "s"}, {"w"}, "where");
    m.node("Softmax", {"w"}, {"y"}, "sm");
    EXPECT_EQ(lines(ok(m).graph()),
              (Lines{"0 input -> [3] 's'", "1 const -> [2,3] 'mask'", "2 const -> [] 'ninf'",
                     "3 where [1,2,0] -> [2,3] 'where'", "4 softmax(axis=1) [3] -> [2,3] 'sm'"}));
  }
}

// The condition is bool; values of two dtypes, or operands that do not broadcast, are invalid.
TEST(OnnxWhere, ItsOperandsAreChecked) {
  {
    Model m;
    m.input("c", {2}, onnx::TensorProto_DataType_BOOL)
        .input("x", {2})
        .input("i", {2}, onnx::TensorProto_DataType_INT64)
        .output("y");
    m.node("Where", {"c", "x", "i"}, {"y"}, "where");
    EXPECT_THAT(error_of(m),
                ::testing::HasSubstr("parent 2 (node 2 (input 'i')) has dtype int64; where takes "
                                     "values of one dtype (parent 1 is float32)"));
  }
  {
    Model m;
    m.input("c", {2}, onnx::TensorProto_DataType_BOOL).input("x", {3}).output("y");
    m.node("Where", {"c", "x", "x"}, {"y"}, "where");
    EXPECT_THAT(error_of(m), ::testing::HasSubstr("shapes [2] and [3] do not broadcast"));
  }
}

}  // namespace
}  // namespace nnplan::format::onnx_test
