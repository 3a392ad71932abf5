// How messages name a node: `node 7 (conv)`, with the source name when the node has one.
#include "nnplan/ir/graph.hpp"

#include <gtest/gtest.h>

#include <string>

namespace nnplan::ir {
namespace {

struct DescribeCase {
  Node node;
  std::string text;
};

class GraphDescribeTest : public ::testing::TestWithParam<DescribeCase> {};

TEST_P(GraphDescribeTest, Describe) {
  EXPECT_EQ(describe(GetParam().node), GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GraphDescribeTest,
    ::testing::Values(DescribeCase{Node{.id = 7, .kind = OpKind::conv}, "node 7 (conv)"},
                      DescribeCase{Node{.id = 0, .kind = OpKind::input}, "node 0 (input)"},
                      DescribeCase{Node{.id = 3, .kind = OpKind::const_}, "node 3 (const)"},
                      DescribeCase{
                          Node{.id = 7, .kind = OpKind::conv, .source_name = "model/conv1"},
                          "node 7 (conv 'model/conv1')"},
                      DescribeCase{Node{.id = 4294967295u, .kind = OpKind::batch_norm_eval},
                                   "node 4294967295 (batch_norm_eval)"},
                      DescribeCase{Node{.id = 2, .kind = OpKind::scaled_dot_product_attention},
                                   "node 2 (scaled_dot_product_attention)"}));

TEST(GraphTest, ValueEquality) {
  const Node a{.id = 1, .kind = OpKind::softmax, .parents = {0}, .params = AxisParams{.axis = 1}};
  Node b = a;
  EXPECT_EQ(a, b);
  b.params = AxisParams{.axis = 0};
  EXPECT_NE(a, b);
  EXPECT_EQ(Graph{}, Graph{});
  Graph g{.input_id = 0, .output_ids = {1, 1}};
  Graph h = g;
  EXPECT_EQ(g, h);
  h.output_ids = {1};
  EXPECT_NE(g, h);
}

}  // namespace
}  // namespace nnplan::ir
