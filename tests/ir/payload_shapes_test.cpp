// ir::payload_shape (ir/payload_shapes.hpp): the shape of each payload slot rule from a node's
// parameters, declared shape and parents' shapes, and the refusals naming the node.
#include "nnplan/ir/payload_shapes.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "graph_fixtures.hpp"

namespace nnplan::ir {
namespace {

using fixtures::shape;

struct Case {
  std::string name;
  Node node;
  PayloadShape rule;
  std::vector<std::optional<Shape>> parents;  // nullopt: unknown to the caller
  std::optional<Shape> want;                  // nullopt: an error
  std::string error;                          // its message, when one
};

Node node_of(OpKind kind, std::vector<NodeId> parents, Shape declared, OpParams params = {}) {
  return Node{.id = 5,
              .kind = kind,
              .parents = Parents(parents.begin(), parents.end()),
              .shape = std::move(declared),
              .params = std::move(params)};
}

ConvParams conv_params(std::uint32_t groups) {
  return ConvParams{.spatial_rank = 2,
                    .kernel = {3, 1},
                    .stride = {1, 1},
                    .padding = {0, 0},
                    .dilation = {1, 1},
                    .padding_after = {0, 0},
                    .groups = groups,
                    .channel_axis = 1,
                    .in_channels = 4,
                    .out_channels = 6};
}

std::vector<Case> cases() {
  const Node conv = node_of(OpKind::conv, {0}, shape({1, 6, 3, 5}), conv_params(2));
  const Node linear = node_of(OpKind::linear, {0}, shape({2, 7}));
  const Node layernorm = node_of(OpKind::layernorm, {0}, shape({2, 3, 4}), AxisParams{.axis = 1});
  const Node gather = node_of(OpKind::gather, {0}, shape({2, 5, 6, 4}), AxisParams{.axis = 1});
  return {
      {"const_value",
       node_of(OpKind::const_, {}, shape({3}), ConstParams{shape({3})}),
       PayloadShape::value_shape,
       {},
       shape({3}),
       ""},
      {"linear_weight", linear, PayloadShape::linear_weight, {shape({2, 9})}, shape({7, 9}), ""},
      {"linear_bias", linear, PayloadShape::linear_bias, {shape({2, 9})}, shape({7}), ""},
      {"conv_weight",
       conv,
       PayloadShape::conv_weight,
       {shape({1, 4, 5, 5})},
       shape({6, 2, 3, 1}),
       ""},
      {"conv_transpose_weight",
       conv,
       PayloadShape::conv_transpose_weight,
       {shape({1, 4, 5, 5})},
       shape({4, 3, 3, 1}),
       ""},
      {"conv_bias", conv, PayloadShape::conv_bias, {shape({1, 4, 5, 5})}, shape({6}), ""},
      {"channels",
       node_of(OpKind::batch_norm_eval, {0}, shape({2, 8}),
               ChannelAxisParams{.channel_axis = 1, .channels = 8}),
       PayloadShape::channels,
       {shape({2, 8})},
       shape({8}),
       ""},
      {"normalized", layernorm, PayloadShape::normalized, {shape({2, 3, 4})}, shape({3, 4}), ""},
      {"gather_indices",
       gather,
       PayloadShape::gather_indices,
       {shape({2, 3, 4})},
       shape({5, 6}),
       ""},
      {"conv_groups_zero",
       node_of(OpKind::conv, {0}, shape({1, 6, 3, 5}), conv_params(0)),
       PayloadShape::conv_weight,
       {shape({1, 4, 5, 5})},
       std::nullopt,
       "node 5 (conv): groups is 0"},
      {"linear_parent_unknown",
       linear,
       PayloadShape::linear_weight,
       {std::nullopt},
       std::nullopt,
       "node 5 (linear): parent 0 does not exist"},
      {"linear_rank_zero_parent",
       linear,
       PayloadShape::linear_weight,
       {shape({})},
       std::nullopt,
       "node 5 (linear): linear needs a parent and a result of rank 1 or more"},
      {"normalized_axis_out_of_range",
       layernorm,
       PayloadShape::normalized,
       {shape({2})},
       std::nullopt,
       "node 5 (layernorm): axis is out of range for its parent"},
      {"channels_of_axis_params",
       layernorm,
       PayloadShape::channels,
       {shape({2, 3, 4})},
       std::nullopt,
       "node 5 (layernorm): parameters are not batch_norm_eval parameters"},
      {"none",
       linear,
       PayloadShape::none,
       {shape({2, 9})},
       std::nullopt,
       "node 5 (linear): takes no payloads"},
  };
}

class PayloadShapeTest : public ::testing::TestWithParam<Case> {};

TEST_P(PayloadShapeTest, GivesTheShapeOrNamesTheNode) {
  const Case& c = GetParam();
  std::vector<const Shape*> parents;
  for (const std::optional<Shape>& p : c.parents)
    parents.push_back(p ? &*p : nullptr);
  const Expected<Shape> got = payload_shape(c.node, c.rule, parents);
  if (c.want) {
    ASSERT_TRUE(got.has_value()) << got.error().message;
    EXPECT_EQ(*got, *c.want) << to_string(*got);
  } else {
    ASSERT_FALSE(got.has_value()) << to_string(*got);
    EXPECT_EQ(got.error().kind, ErrorKind::invalid_input);
    EXPECT_EQ(got.error().message, c.error);
  }
}

INSTANTIATE_TEST_SUITE_P(Rules, PayloadShapeTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nnplan::ir
