// Gemm (onnx/operators/gemm.cpp): linear by a constant B with its bias folded, matmul otherwise,
// and the attribute values it rejects.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

struct GemmCase {
  std::string name;
  std::int64_t trans_b;
  std::vector<std::int64_t> c_dims;  // {-1}: no C
  Lines expected;
  std::vector<float> bias;  // empty: no bias payload
};

class GemmVariant : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmVariant, Imports) {
  const GemmCase& c = GetParam();
  Model m;
  m.input("a", {2, 3}).output("y");
  // B holds the [out=2, in=3] weight {1..6} in whichever layout transB asks for.
  if (c.trans_b != 0) {
    m.init("b", {2, 3}, {1, 2, 3, 4, 5, 6});
  } else {
    m.init("b", {3, 2}, {1, 4, 2, 5, 3, 6});
  }
  std::vector<std::string> ins = {"a", "b"};
  if (c.c_dims != std::vector<std::int64_t>{-1}) {
    std::size_t count = 1;
    for (const auto d : c.c_dims)
      count *= static_cast<std::size_t>(d);
    m.init("c", c.c_dims, iota(count, 10.0f));
    ins.push_back("c");
  }
  auto& n = m.node("Gemm", ins, {"y"}, "fc");
  attr_i(n, "transB", c.trans_b);
  attr_f(n, "alpha", 1.0f);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), c.expected);
  const ir::WeightTensor& w = tensor_of(r, 1, "weight");
  EXPECT_EQ(dims(w.shape()), "[2,3]");
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  const ir::WeightTensor* bias = r.payloads.find_tensor(1, "bias");
  if (c.bias.empty()) {
    EXPECT_EQ(bias, nullptr);
  } else {
    ASSERT_NE(bias, nullptr);
    EXPECT_EQ(bias->to_vector<float>(), c.bias);
  }
}

const Lines kLinearOnly = {"0 input -> [2,3] 'a'", "1 linear [0] -> [2,2] 'fc'"};

INSTANTIATE_TEST_SUITE_P(
    Gemm, GemmVariant,
    ::testing::Values(GemmCase{"TransB0NoBias", 0, {-1}, kLinearOnly, {}},
                      GemmCase{"TransB1NoBias", 1, {-1}, kLinearOnly, {}},
                      GemmCase{"TransB1BiasN", 1, {2}, kLinearOnly, {10, 11}},
                      GemmCase{"TransB0Bias1xN", 0, {1, 2}, kLinearOnly, {10, 11}},
                      GemmCase{"ScalarBias", 1, {}, kLinearOnly, {10, 10}},
                      GemmCase{"SingleElementBias", 1, {1}, kLinearOnly, {10, 10}},
                      GemmCase{"MatrixBiasIsAnAdd",
                               1,
                               {2, 2},
                               Lines{"0 input -> [2,3] 'a'", "1 linear [0] -> [2,2] 'fc'",
                                     "2 const -> [2,2] 'c'", "3 add [1,2] -> [2,2] 'fc'"},
                               {}},
                      GemmCase{"ColumnBiasIsBroadcastAdd",
                               1,
                               {2, 1},
                               Lines{"0 input -> [2,3] 'a'", "1 linear [0] -> [2,2] 'fc'",
                                     "2 const -> [2,1] 'c'",
                                     "3 broadcast_to([2,1]->[2,2]) [2] -> [2,2] 'fc'",
                                     "4 add [1,3] -> [2,2] 'fc'"},
                               {}}),
    [](const auto& info) { return info.param.name; });

TEST(OnnxImport, GemmWithVariableBUsesMatmul) {
  Model m;
  m.input("a", {2, 3}).input("b", {4, 3}).output("y");
  attr_i(m.node("Gemm", {"a", "b"}, {"y"}, "g"), "transB", 1);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3] 'a'", "1 input -> [4,3] 'b'",
                   "2 permute(perm=1,0) [1] -> [3,4] 'g'", "3 matmul [0,2] -> [2,4] 'g'"}));
}

// alpha scales the product and beta scales C (no longer folded into linear's bias); transA
// permutes A first.
TEST(OnnxImport, GemmWithAlphaBetaAndTransA) {
  Model m;
  m.input("a", {3, 2}).output("y").init("b", {3, 2}, iota(6)).init("c", {2}, {1, 2});
  auto& n = m.node("Gemm", {"a", "b", "c"}, {"y"}, "fc");
  attr_i(n, "transA", 1);
  attr_f(n, "alpha", 0.5f);
  attr_f(n, "beta", 2.0f);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [3,2] 'a'", "1 permute(perm=1,0) [0] -> [2,3] 'fc'",
                   "2 linear [1] -> [2,2] 'fc'", "3 scale(factor=0.5) [2] -> [2,2] 'fc'",
                   "4 const -> [2] 'c'", "5 scale(factor=2) [4] -> [2] 'fc'",
                   "6 broadcast_to([2]->[2,2]) [5] -> [2,2] 'fc'", "7 add [3,6] -> [2,2] 'fc'"}));
  // alpha and beta of 1 keep C as linear's bias.
  Model plain;
  plain.input("a", {2, 3}).output("y").init("b", {3, 2}, iota(6)).init("c", {2}, {1, 2});
  plain.node("Gemm", {"a", "b", "c"}, {"y"}, "fc");
  EXPECT_EQ(lines(ok(plain).graph()),
            (Lines{"0 input -> [2,3] 'a'", "1 linear [0] -> [2,2] 'fc'"}));
}

TEST(OnnxImport, GemmTransposeFlagsAreZeroOrOne) {
  Model m;
  m.input("a", {2, 3}).output("y").init("b", {3, 2}, iota(6));
  attr_i(m.node("Gemm", {"a", "b"}, {"y"}, "fc"), "transA", 2);
  EXPECT_EQ(unsupported_of(m),
            "node 0 'fc' (Gemm): attribute transA = 2 is not supported; supported: 0, 1");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
