// MaxPool, AveragePool and the global pools (onnx/operators/pooling.cpp).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

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
  EXPECT_EQ(unsupported_of(m),
            "node 0 'pool' (" + GetParam().op + "): " + GetParam().message);
}
INSTANTIATE_TEST_SUITE_P(
    Pool, PoolRejected,
    ::testing::Values(
        PoolReject{"ExcludePad", "AveragePool",
                   [](auto& n) {
                     attr_ints(n, "pads", {1, 1, 1, 1});
                   },
                   "attribute count_include_pad = 0 with padding 1 is not supported "
                   "(avg_pool2d_pad counts the padding); supported: count_include_pad = 1, or "
                   "no padding"},
        PoolReject{"CeilMode", "AveragePool",
                   [](auto& n) {
                     attr_ints(n, "strides", {2, 2});
                     attr_i(n, "ceil_mode", 1);
                   },
                   "attribute ceil_mode = 1 is not supported; supported: 0, or 1 where it gives "
                   "the same output size as 0 (here it does not)"},
        PoolReject{"StorageOrder", "MaxPool", [](auto& n) { attr_i(n, "storage_order", 1); },
                   "attribute storage_order = 1 is not supported; supported: 0"},
        PoolReject{"Dilations", "MaxPool",
                   [](auto& n) {
                     attr_ints(n, "dilations", {2, 2});
                   },
                   "attribute dilations = [2,2] is not supported; supported: [1,1]"},
        PoolReject{"Indices", "MaxPool", [](auto& n) { n.add_output("idx"); },
                   "has a second output Indices ('idx'); only the first output is supported"},
        PoolReject{"UnequalStrides", "MaxPool",
                   [](auto& n) {
                     attr_ints(n, "strides", {1, 2});
                   },
                   "attribute strides = [1,2] is not supported; supported: equal positive "
                   "strides on H and W"}),
    [](const auto& info) { return info.param.name; });

TEST(OnnxImport, MaxPoolIndicesUsedAsGraphOutputIsRejected) {
  Model m = pool_model("MaxPool");
  m.g().mutable_node(0)->add_output("idx");
  m.g().mutable_output(0)->set_name("idx");
  EXPECT_NE(unsupported_of(m).find("second output Indices ('idx')"), std::string::npos);
}

TEST(OnnxImport, Pool3dIsRejected) {
  Model m(11);
  m.input("x", {1, 2, 4, 4, 4}).output("y");
  attr_ints(m.node("MaxPool", {"x"}, {"y"}, "p"), "kernel_shape", {2, 2, 2});
  EXPECT_EQ(unsupported_of(m),
            "node 0 'p' (MaxPool): input [1,2,4,4,4] is not (N,C,H,W); only 2-D "
            "max pooling is supported");
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
            "the pooling window H x W is 65536 x 1, the limit is 65535 on each side");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
