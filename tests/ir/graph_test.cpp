// How messages name a node: `node 7 (conv2d)`, with the source name when the node has one.
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
    ::testing::Values(DescribeCase{Node{.id = 7, .kind = OpKind::conv2d}, "node 7 (conv2d)"},
                      DescribeCase{Node{.id = 0, .kind = OpKind::input}, "node 0 (input)"},
                      DescribeCase{Node{.id = 3, .kind = OpKind::const_}, "node 3 (const)"},
                      DescribeCase{
                          Node{.id = 7, .kind = OpKind::conv2d, .source_name = "model/conv1"},
                          "node 7 (conv2d 'model/conv1')"},
                      DescribeCase{Node{.id = 4294967295u, .kind = OpKind::batch_norm2d_nchw_eval},
                                   "node 4294967295 (batch_norm2d_nchw_eval)"}));

TEST(GraphTest, ValueEquality) {
  const Node a{.id = 1, .kind = OpKind::softmax, .parents = {0}, .params = AxisParams{.axis = 1}};
  Node b = a;
  EXPECT_EQ(a, b);
  b.params = AxisParams{.axis = 0};
  EXPECT_NE(a, b);
  EXPECT_EQ(Graph{}, Graph{});
}

}  // namespace
}  // namespace nnplan::ir
