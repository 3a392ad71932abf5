// int64 payload tensors (the indices of a `gather` node): written and read back bit for bit,
// refused where a float32 tensor belongs and the other way round, and checked against the axis
// they index.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../ir/graph_fixtures.hpp"
#include "nnplan/format/payload_file.hpp"
#include "nnplan/ir/check.hpp"

namespace nnplan::format {
namespace {

using ir::Graph;
using ir::Node;
using ir::OpKind;
using ir::Shape;
using ir::fixtures::shape;

ir::WeightTensor indices(Shape s, std::vector<std::int64_t> values) {
  return ir::WeightTensor::adopt<std::int64_t>(std::move(s), std::move(values));
}

// input [4,5] -> gather axis 0 with indices [2,3] -> [2,3,5].
Graph gather_graph() {
  Graph g;
  g.output_ids = {1};
  g.nodes = {
      Node{.id = 0, .kind = OpKind::input, .shape = shape({4, 5})},
      Node{.id = 1,
           .kind = OpKind::gather,
           .parents = {0},
           .shape = shape({2, 3, 5}),
           .params = ir::AxisParams{.axis = 0}},
  };
  return g;
}

TEST(Int64Payloads, RoundTripBitForBit) {
  ir::WeightStore store;
  store.tensors[{1, "indices"}] = indices(shape({2, 3}), {0, 3, -1, INT64_MAX, INT64_MIN, 7});
  store.tensors[{2, "weight"}] = ir::WeightTensor::adopt<float>(shape({2}), {1.5F, -2.0F});
  const auto bytes = write_payloads(store);
  ASSERT_TRUE(bytes.has_value()) << bytes.error().message;
  const std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  EXPECT_NE(text.find(R"("name": "indices", "dtype": "int64", "shape": [2, 3])"),
            std::string::npos);
  EXPECT_NE(text.find(R"("bytes": 48)"), std::string::npos);
  const auto back = parse_payloads(*bytes, "i.payloads");
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, store);
}

TEST(Int64Payloads, WriterRefusesAShortTensor) {
  ir::WeightStore store;
  store.tensors[{1, "indices"}] = indices(shape({3}), {0, 1});
  const auto bytes = write_payloads(store);
  ASSERT_FALSE(bytes.has_value());
  EXPECT_EQ(bytes.error().message,
            "payload node 1 'indices': 2 int64 values do not fill shape [3]");
}

TEST(Int64Payloads, ReaderRefusesAnUnknownDtype) {
  ir::WeightStore store;
  store.tensors[{1, "indices"}] = indices(shape({1}), {0});
  auto bytes = write_payloads(store);
  ASSERT_TRUE(bytes.has_value());
  std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  const std::size_t at = text.find("\"int64\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 7, "\"int32\"");
  const auto back = parse_payloads(std::as_bytes(std::span(text)), "i.payloads");
  ASSERT_FALSE(back.has_value());
  EXPECT_NE(
      back.error().message.find("field dtype: expected \"float32\" or \"int64\", found \"int32\""),
      std::string::npos)
      << back.error().message;
}

TEST(Int64Payloads, GatherIndicesCheckedAgainstTheGraph) {
  ASSERT_TRUE(ir::check(gather_graph()).has_value());
  ir::WeightStore store;
  store.tensors[{1, "indices"}] = indices(shape({2, 3}), {0, 1, 2, 3, 3, 0});
  const auto ok = ir::check_weights(gather_graph(), store, "g.payloads");
  EXPECT_TRUE(ok.has_value()) << ok.error().message;
}

// A gather whose indices are its second parent takes no payload; one given as well is refused.
TEST(Int64Payloads, GatherIndicesGivenBothWaysAreRefused) {
  Graph g = gather_graph();
  g.nodes.insert(
      g.nodes.begin() + 1,
      Node{.id = 1, .kind = OpKind::input, .shape = shape({2, 3}), .dtype = ir::DType::int64});
  g.nodes[2].id = 2;
  g.nodes[2].parents = {0, 1};
  g.output_ids = {2};
  ASSERT_TRUE(ir::check(g).has_value());
  EXPECT_TRUE(ir::check_weights(g, {}, "g.payloads").has_value());
  ir::WeightStore store;
  store.tensors[{2, "indices"}] = indices(shape({2, 3}), {0, 1, 2, 3, 3, 0});
  const auto both = ir::check_weights(g, store, "g.payloads");
  ASSERT_FALSE(both.has_value());
  EXPECT_EQ(both.error().message,
            "g.payloads: node 2 (gather): payload indices is given, but parent 1 already is the "
            "indices; give one of the two");
}

TEST(Int64Payloads, GatherIndexOutsideTheAxisIsRefused) {
  ir::WeightStore store;
  store.tensors[{1, "indices"}] = indices(shape({2, 3}), {0, 1, 2, 4, 3, 0});
  const auto ok = ir::check_weights(gather_graph(), store, "g.payloads");
  ASSERT_FALSE(ok.has_value());
  EXPECT_EQ(ok.error().message,
            "g.payloads: node 1 (gather): payload indices: entry 3 is 4, outside axis 0 of "
            "extent 4");
}

TEST(Int64Payloads, FloatIndicesAreRefused) {
  ir::WeightStore store;
  store.tensors[{1, "indices"}] = ir::WeightTensor::adopt<float>(shape({2, 3}), {0, 1, 2, 3, 3, 0});
  const auto ok = ir::check_weights(gather_graph(), store, "g.payloads");
  ASSERT_FALSE(ok.has_value());
  EXPECT_EQ(ok.error().message,
            "g.payloads: node 1 (gather): payload indices: dtype float32, expected int64");
}

TEST(Int64Payloads, IndicesOfTheWrongShapeAreRefused) {
  ir::WeightStore store;
  store.tensors[{1, "indices"}] = indices(shape({6}), {0, 1, 2, 3, 3, 0});
  const auto ok = ir::check_weights(gather_graph(), store, "g.payloads");
  ASSERT_FALSE(ok.has_value());
  EXPECT_EQ(ok.error().message,
            "g.payloads: node 1 (gather): payload indices: shape [6] does not match the "
            "expected [2,3]");
}

TEST(Int64Payloads, Int64WeightsAreRefused) {
  Graph g;
  g.output_ids = {1};
  g.nodes = {
      Node{.id = 0, .kind = OpKind::input, .shape = shape({2, 4})},
      Node{.id = 1, .kind = OpKind::linear, .parents = {0}, .shape = shape({2, 3})},
  };
  ir::WeightStore store;
  store.tensors[{1, "weight"}] = indices(shape({3, 4}), std::vector<std::int64_t>(12, 0));
  const auto ok = ir::check_weights(g, store, "w.payloads");
  ASSERT_FALSE(ok.has_value());
  EXPECT_EQ(ok.error().message,
            "w.payloads: node 1 (linear): payload weight: dtype int64, expected float32");
}

}  // namespace
}  // namespace nnplan::format
