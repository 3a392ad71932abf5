// MaxPool, AveragePool and the global pools (onnx/operators/pooling.cpp).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <limits>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

Model pool_model(const std::string& op, std::vector<std::int64_t> kernel = {2, 2}) {
  Model m(11);
  m.input("x", {1, 2, 6, 6}).output("y");
  attr_ints(m.node(op, {"x"}, {"y"}, "pool"), "kernel_shape", std::move(kernel));
  return m;
}

TEST(OnnxImport, MaxPoolPlainAndPadded) {
  Model m = pool_model("MaxPool");
  attr_ints(*m.g().mutable_node(0), "strides", {2, 2});
  EXPECT_EQ(lines(ok(m).graph())[1], "1 max_pool(k=2x2,s=2x2,p=0x0) [0] -> [1,2,3,3] 'pool'");
  Model p = pool_model("MaxPool", {3, 3});
  attr_ints(*p.g().mutable_node(0), "pads", {1, 1, 1, 1});
  EXPECT_EQ(lines(ok(p).graph())[1], "1 max_pool(k=3x3,s=1x1,p=1x1) [0] -> [1,2,6,6] 'pool'");
}

TEST(OnnxImport, AveragePoolCountIncludePad) {
  Model m = pool_model("AveragePool", {3, 3});
  attr_ints(*m.g().mutable_node(0), "pads", {1, 1, 1, 1});
  attr_i(*m.g().mutable_node(0), "count_include_pad", 1);
  EXPECT_EQ(lines(ok(m).graph())[1], "1 avg_pool(k=3x3,s=1x1,p=1x1) [0] -> [1,2,6,6] 'pool'");
  Model plain = pool_model("AveragePool", {2, 3});
  EXPECT_EQ(lines(ok(plain).graph())[1], "1 avg_pool(k=2x3,s=1x1,p=0x0) [0] -> [1,2,5,4] 'pool'");
}

TEST(OnnxImport, CeilModeAcceptedWhenSameSize) {
  Model m = pool_model("MaxPool");
  attr_ints(*m.g().mutable_node(0), "strides", {2, 2});
  attr_i(*m.g().mutable_node(0), "ceil_mode", 1);
  EXPECT_EQ(lines(ok(m).graph())[1], "1 max_pool(k=2x2,s=2x2,p=0x0) [0] -> [1,2,3,3] 'pool'");
}

struct PoolReject {
  std::string name;
  std::string op;
  std::function<void(onnx::NodeProto&)> edit;
  std::string message;
};

class PoolRejected : public ::testing::TestWithParam<PoolReject> {};

TEST_P(PoolRejected, NamesTheReason) {
  Model m = pool_model(GetParam().op, {3, 3});
  GetParam().edit(*m.g().mutable_node(0));
  EXPECT_EQ(unsupported_of(m), "node 0 'pool' (" + GetParam().op + "): " + GetParam().message);
}
INSTANTIATE_TEST_SUITE_P(
    Pool, PoolRejected,
    ::testing::Values(PoolReject{
        "DilationsWithCeilMode", "MaxPool",
        [](auto& n) {
          attr_ints(n, "dilations", {2, 2});
          attr_i(n, "ceil_mode", 1);
        },
        "attribute dilations = [2,2] is not supported; supported: 1 on every axis "
        "with ceil_mode 1 or after a folded Pad"}),
    [](const auto& info) { return info.param.name; });

// ceil_mode on AveragePool: the overhang is zeros after the axis, and the last window's average
// is scaled by window size / the part of it over the input (3x3 over 6x6 by stride 2: the last
// row and column of windows cover 2 of 3, so 9 / 6 at the edges and 9 / 4 in the corner).
TEST(OnnxImport, AveragePoolWithCeilModeDividesByWhatTheWindowCovers) {
  Model m = pool_model("AveragePool", {3, 3});
  attr_ints(*m.g().mutable_node(0), "strides", {2, 2});
  attr_i(*m.g().mutable_node(0), "ceil_mode", 1);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()).back(), "8 mul_elem [5,7] -> [1,2,3,3] 'pool'");
  const auto factors = tensor_of(r, 6, "value").floats();
  ASSERT_EQ(factors.size(), 9U);
  EXPECT_EQ(factors[0], 1.0F);
  EXPECT_EQ(factors[2], 9.0F / 6.0F);
  EXPECT_EQ(factors[6], 9.0F / 6.0F);
  EXPECT_EQ(factors[8], 9.0F / 4.0F);
}

// count_include_pad = 0: the pool's average scaled by window size / the elements of each window
// inside the input; a corner window of a 3x3 kernel with one padding sees 4 elements (9 / 4), an
// edge one 6, an inner one 9. Asymmetric pads are zeros concatenated before the pool.
TEST(OnnxImport, AveragePoolWithoutThePaddingInItsDivisor) {
  Model m = pool_model("AveragePool", {3, 3});
  attr_ints(*m.g().mutable_node(0), "pads", {1, 1, 1, 1});
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [1,2,6,6] 'x'",
                                     "1 avg_pool(k=3x3,s=1x1,p=1x1) [0] -> [1,2,6,6] 'pool'",
                                     "2 const -> [1,1,6,6] 'pool'",
                                     "3 broadcast_to([1,1,6,6]->[1,2,6,6]) [2] -> [1,2,6,6] 'pool'",
                                     "4 mul_elem [1,3] -> [1,2,6,6] 'pool'"}));
  const auto factors = tensor_of(r, 2, "value").floats();
  ASSERT_EQ(factors.size(), 36U);
  EXPECT_EQ(factors[0], 9.0F / 4.0F);
  EXPECT_EQ(factors[1], 9.0F / 6.0F);
  EXPECT_EQ(factors[7], 1.0F);
  Model asymmetric = pool_model("AveragePool", {2, 2});
  attr_ints(*asymmetric.g().mutable_node(0), "pads", {0, 0, 1, 1});
  attr_i(*asymmetric.g().mutable_node(0), "count_include_pad", 1);
  const ImportedModel a = ok(asymmetric);
  EXPECT_EQ(lines(a.graph()).back(), "5 avg_pool(k=2x2,s=1x1,p=0x0) [4] -> [1,2,6,6] 'pool'");
}

// A dilated max pool: per axis, one gather per tap (o * stride + j * dilation) and their maximum.
TEST(OnnxImport, DilatedMaxPoolIsAMaximumOfGatheredTaps) {
  Model m = pool_model("MaxPool", {2, 2});
  attr_ints(*m.g().mutable_node(0), "dilations", {2, 1});
  const ImportedModel r = ok(m);
  EXPECT_EQ(
      lines(r.graph()),
      (Lines{"0 input -> [1,2,6,6] 'x'", "1 gather(axis=2) [0] -> [1,2,4,6] 'pool'",
             "2 gather(axis=2) [0] -> [1,2,4,6] 'pool'", "3 max_elem [1,2] -> [1,2,4,6] 'pool'",
             "4 gather(axis=3) [3] -> [1,2,4,5] 'pool'", "5 gather(axis=3) [3] -> [1,2,4,5] 'pool'",
             "6 max_elem [4,5] -> [1,2,4,5] 'pool'"}));
  const auto ints = [](std::span<const std::int64_t> v) {
    return std::vector<std::int64_t>(v.begin(), v.end());
  };
  EXPECT_EQ(ints(tensor_of(r, 2, "indices").ints()), (std::vector<std::int64_t>{2, 3, 4, 5}));
}

// MaxPool's Indices: a max_pool_indices node over the pool's input with the same windows
// (ceil_mode's overhang as padding after), storage_order kept; 2 is refused.
TEST(OnnxImport, MaxPoolIndicesAreANodeOfTheirOwn) {
  Model m = pool_model("MaxPool", {2, 2});
  attr_ints(*m.g().mutable_node(0), "strides", {2, 2});
  attr_ints(*m.g().mutable_node(0), "pads", {1, 0, 0, 0});
  attr_i(*m.g().mutable_node(0), "ceil_mode", 1);
  attr_i(*m.g().mutable_node(0), "storage_order", 1);
  m.g().mutable_node(0)->add_output("idx");
  m.g().mutable_output(0)->set_name("idx");
  const ImportedModel r = ok(m);
  const ir::Node& n = r.graph().nodes.back();
  EXPECT_EQ(n.kind, ir::OpKind::max_pool_indices);
  EXPECT_EQ(n.dtype, ir::DType::int64);
  EXPECT_EQ(n.parents, (ir::Parents{0}));
  EXPECT_EQ(dims(n.shape), "[1,2,4,3]");
  EXPECT_EQ(n.params, (ir::OpParams{ir::MaxPoolIndicesParams{.spatial_rank = 2,
                                                             .kernel = {2, 2},
                                                             .stride = {2, 2},
                                                             .padding = {1, 0},
                                                             .padding_after = {1, 0},
                                                             .dilation = {1, 1},
                                                             .storage_order = 1}}));
  Model bad = pool_model("MaxPool");
  attr_i(*bad.g().mutable_node(0), "storage_order", 2);
  EXPECT_NE(error_of(bad).find("attribute storage_order = 2 is neither 0 (row-major) nor 1 "
                               "(column-major)"),
            std::string::npos);
}

TEST(OnnxImport, Pool1dAnd3dAndUnequalStrides) {
  Model m(11);
  m.input("x", {1, 2, 4, 4, 4}).output("y");
  attr_ints(m.node("MaxPool", {"x"}, {"y"}, "p"), "kernel_shape", {2, 2, 2});
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [1,2,4,4,4] 'x'",
                   "1 max_pool(k=2x2x2,s=1x1x1,p=0x0x0) [0] -> [1,2,3,3,3] 'p'"}));
  Model one(11);
  one.input("x", {1, 2, 7}).output("y");
  auto& n = one.node("AveragePool", {"x"}, {"y"}, "p");
  attr_ints(n, "kernel_shape", {3});
  attr_ints(n, "strides", {2});
  EXPECT_EQ(lines(ok(one).graph())[1], "1 avg_pool(k=3,s=2,p=0) [0] -> [1,2,3] 'p'");
  Model strided = pool_model("MaxPool", {3, 3});
  attr_ints(*strided.g().mutable_node(0), "strides", {1, 2});
  EXPECT_EQ(lines(ok(strided).graph())[1], "1 max_pool(k=3x3,s=1x2,p=0x0) [0] -> [1,2,4,2] 'pool'");
}

TEST(OnnxImport, MaxPoolCeilModeThatChangesTheSizePadsWithNegativeInfinity) {
  // 6 wide, kernel 3, stride 2: floor gives 2, ceil 3; the last window overhangs by 1, which
  // becomes a -inf column (and row) concatenated after the input.
  Model m = pool_model("MaxPool", {3, 3});
  attr_ints(*m.g().mutable_node(0), "strides", {2, 2});
  attr_i(*m.g().mutable_node(0), "ceil_mode", 1);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [1,2,6,6] 'x'", "1 const -> [1,2,1,6] 'pool'",
                   "2 concat(axis=2) [0,1] -> [1,2,7,6] 'pool'", "3 const -> [1,2,7,1] 'pool'",
                   "4 concat(axis=3) [2,3] -> [1,2,7,7] 'pool'",
                   "5 max_pool(k=3x3,s=2x2,p=0x0) [4] -> [1,2,3,3] 'pool'"}));
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{5u}));
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(tensor_of(r, 1, "value").to_vector<float>(), std::vector<float>(12, -inf));
  EXPECT_EQ(tensor_of(r, 3, "value").to_vector<float>(), std::vector<float>(14, -inf));
}

TEST(OnnxImport, GlobalAveragePool) {
  Model m;
  m.input("x", {2, 3, 7, 5}).output("y");
  m.node("GlobalAveragePool", {"x"}, {"y"}, "gap");
  EXPECT_EQ(lines(ok(m).graph())[1], "1 avg_pool(k=7x5,s=1x1,p=0x0) [0] -> [2,3,1,1] 'gap'");
}

TEST(OnnxImport, GlobalPoolWindowPastTheLimitIsRejected) {
  Model m;
  m.input("x", {1, 1, 65536, 1}).output("y");
  m.node("GlobalMaxPool", {"x"}, {"y"}, "gmp");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'gmp' (GlobalMaxPool, opset 17): input [1,1,65536,1] is too large: "
            "the pooling window is the whole of each spatial axis, the limit is 65535 on each");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
