// The reference attention kernel (scaled_dot_product_attention, capsule reference.attention):
// hand-computed cases for the default and explicit scales and the causal mask, a float64 oracle
// with leading batch axes and L != S, the shape guard's messages, and finite-difference checks
// of the VJP for q, k and v.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace {

using namespace testing;

const HandlerDefinition& attention() {
  return handler_for(attention_handlers(), backend::BackendOp::scaled_dot_product_attention);
}

ir::Node attention_node(const ir::Shape& q, const ir::Shape& v, bool causal,
                        std::optional<float> scale) {
  ir::Shape out = q;
  out.dims.back() = v.dims.back();
  return {.id = 3,
          .kind = ir::OpKind::scaled_dot_product_attention,
          .parents = {0, 1, 2},
          .shape = out,
          .params = ir::AttentionParams{.causal = causal, .scale = scale}};
}

// Attention in float64: per leading index and query row, the scaled scores of the allowed keys
// (j <= i when causal), their softmax, and the weighted sum of v's rows.
std::vector<double> oracle_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                     bool causal, std::optional<float> scale) {
  const std::size_t r = q.shape.rank();
  const std::size_t l = q.shape.dims[r - 2], e = q.shape.dims[r - 1];
  const std::size_t s = k.shape.dims[r - 2], ev = v.shape.dims[r - 1];
  std::size_t batch = 1;
  for (std::size_t i = 0; i + 2 < r; ++i) batch *= q.shape.dims[i];
  const double sc = scale ? double(*scale) : 1.0 / std::sqrt(double(e));
  std::vector<double> out(batch * l * ev, 0.0);
  std::vector<double> w(s);
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t i = 0; i < l; ++i) {
      double m = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < s; ++j) {
        double dot = 0;
        for (std::size_t c = 0; c < e; ++c) {
          dot += double(q.floats()[(b * l + i) * e + c]) * k.floats()[(b * s + j) * e + c];
        }
        w[j] = dot * sc;
        if (!causal || j <= i) m = std::max(m, w[j]);
      }
      double total = 0;
      for (std::size_t j = 0; j < s; ++j) {
        w[j] = (!causal || j <= i) ? std::exp(w[j] - m) : 0.0;
        total += w[j];
      }
      for (std::size_t j = 0; j < s; ++j) {
        for (std::size_t c = 0; c < ev; ++c) {
          out[(b * l + i) * ev + c] += w[j] / total * v.floats()[(b * s + j) * ev + c];
        }
      }
    }
  }
  return out;
}

struct AttentionCase {
  ir::Shape q, k, v;
  bool causal = false;
  std::optional<float> scale;
};

const std::vector<AttentionCase>& attention_cases() {
  static const std::vector<AttentionCase> cases = {
      {shape_of({3, 4}), shape_of({5, 4}), shape_of({5, 2})},
      {shape_of({2, 3, 4, 5}), shape_of({2, 3, 6, 5}), shape_of({2, 3, 6, 3}), true},
      {shape_of({2, 5, 3}), shape_of({2, 3, 3}), shape_of({2, 3, 4}), true},
      {shape_of({2, 3, 3}), shape_of({2, 5, 3}), shape_of({2, 5, 2}), true, 0.3F},
      {shape_of({4, 2, 6}), shape_of({4, 4, 6}), shape_of({4, 4, 6}), false, 1.5F},
  };
  return cases;
}

TEST(reference_attention_forward_tests, HandComputedDefaultScale) {
  // E = 4, so the scale is 1/2: scores {0, 2}.
  const Tensor q = tensor({1, 4}, {1, 1, 1, 1});
  const Tensor k = tensor({2, 4}, {0, 0, 0, 0, 1, 1, 1, 1});
  const Tensor v = tensor({2, 1}, {0, 1});
  auto y = run_forward(attention(), attention_node(q.shape, v.shape, false, std::nullopt),
                       {q, k, v});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_TRUE(
      near_all(y->floats(), std::vector<double>{std::exp(2.0) / (1 + std::exp(2.0))}, 1e-6, 0));
  const Tensor flat_k = tensor({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0});
  const Tensor two_v = tensor({2, 1}, {2, 4});
  auto even = run_forward(attention(), attention_node(q.shape, v.shape, false, std::nullopt),
                          {q, flat_k, two_v});
  ASSERT_TRUE(even.has_value()) << even.error().message;
  EXPECT_EQ(even->floats(), (std::vector<float>{3}));
}

TEST(reference_attention_forward_tests, HandComputedExplicitScale) {
  // scale 2 and k = log(3) / 2: scores {0, log 3}, weights {1/4, 3/4}.
  const Tensor q = tensor({1, 1}, {1});
  const Tensor k = tensor({2, 1}, {0, std::log(3.0F) / 2});
  const Tensor v = tensor({2, 1}, {0, 4});
  auto y = run_forward(attention(), attention_node(q.shape, v.shape, false, 2.0F), {q, k, v});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_TRUE(near_all(y->floats(), std::vector<double>{3}, 1e-6, 0));
}

TEST(reference_attention_forward_tests, HandComputedCausalIsTopLeftAligned) {
  // L = 3, S = 2: row 0 sees key 0 only; rows 1 and 2 see both keys (equal scores).
  const Tensor q = tensor({3, 1}, {1, 1, 1});
  const Tensor k = tensor({2, 1}, {0, 0});
  const Tensor v = tensor({2, 2}, {2, 10, 4, 20});
  auto y = run_forward(attention(), attention_node(q.shape, v.shape, true, std::nullopt),
                       {q, k, v});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{2, 10, 3, 15, 3, 15}));
  // L = 2, S = 3: row 1 sees keys 0 and 1, never key 2.
  const Tensor q2 = tensor({2, 1}, {1, 1});
  const Tensor k2 = tensor({3, 1}, {0, 0, 0});
  const Tensor v2 = tensor({3, 1}, {2, 4, 1000});
  auto y2 = run_forward(attention(), attention_node(q2.shape, v2.shape, true, std::nullopt),
                        {q2, k2, v2});
  ASSERT_TRUE(y2.has_value()) << y2.error().message;
  EXPECT_EQ(y2->floats(), (std::vector<float>{2, 3}));
}

TEST(reference_attention_forward_tests, NoKeysGiveZeros) {
  const Tensor q = random_tensor(shape_of({2, 3}), 1);
  const Tensor k = zeros(shape_of({0, 3}));
  const Tensor v = zeros(shape_of({0, 2}));
  auto y = run_forward(attention(), attention_node(q.shape, v.shape, false, std::nullopt),
                       {q, k, v});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{0, 0, 0, 0}));
}

TEST(reference_attention_forward_tests, MatchesFloat64Oracle) {
  std::uint32_t seed = 10;
  for (const AttentionCase& c : attention_cases()) {
    const Tensor q = random_tensor(c.q, seed++, -2.0F, 2.0F);
    const Tensor k = random_tensor(c.k, seed++, -2.0F, 2.0F);
    const Tensor v = random_tensor(c.v, seed++);
    auto y = run_forward(attention(), attention_node(c.q, c.v, c.causal, c.scale), {q, k, v});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(near_all(y->floats(), oracle_attention(q, k, v, c.causal, c.scale), 1e-5, 1e-6))
        << ir::to_string(c.q) << (c.causal ? " causal" : "");
  }
}

TEST(reference_attention_forward_tests, SecondRunIsBitIdentical) {
  const AttentionCase& c = attention_cases()[1];
  const Tensor q = random_tensor(c.q, 1);
  const Tensor k = random_tensor(c.k, 2);
  const Tensor v = random_tensor(c.v, 3);
  const ir::Node node = attention_node(c.q, c.v, c.causal, c.scale);
  EXPECT_TRUE(deterministic(attention(), node, {q, k, v}));
}

TEST(reference_attention_forward_tests, ShapeGuardMessages) {
  const Tensor q = zeros(shape_of({2, 3, 4}));
  const Tensor k = zeros(shape_of({2, 5, 4}));
  const Tensor v = zeros(shape_of({2, 5, 2}));
  const auto message = [](const ir::Node& node, const std::vector<Tensor>& inputs) {
    return guard_message(attention(), node, inputs);
  };
  const ir::Node node = attention_node(q.shape, v.shape, false, std::nullopt);
  EXPECT_EQ(message(node, {q, k, v}), "accepted");
  ir::Node wrong_kind = node;
  wrong_kind.kind = ir::OpKind::softmax;
  EXPECT_EQ(message(wrong_kind, {q, k, v}), "node kind softmax is not scaled_dot_product_attention");
  EXPECT_EQ(message(node, {q, k}), "2 inputs given; scaled_dot_product_attention takes 3");
  const Tensor q1 = zeros(shape_of({4}));
  EXPECT_EQ(message(attention_node(q1.shape, shape_of({2}), false, std::nullopt), {q1, k, v}),
            "input 0 has shape [4]; attention needs q of rank at least 2 (..., L, E)");
  EXPECT_EQ(message(node, {q, zeros(shape_of({2, 5, 3})), v}),
            "input 1 has shape [2,5,3]; attention needs k (..., S, E) with q's leading axes and "
            "E = 4");
  EXPECT_EQ(message(node, {q, zeros(shape_of({3, 5, 4})), v}),
            "input 1 has shape [3,5,4]; attention needs k (..., S, E) with q's leading axes and "
            "E = 4");
  EXPECT_EQ(message(node, {q, zeros(shape_of({5, 4})), v}),
            "input 1 has shape [5,4]; attention needs k (..., S, E) with q's leading axes and "
            "E = 4");
  EXPECT_EQ(message(node, {q, k, zeros(shape_of({2, 6, 2}))}),
            "input 2 has shape [2,6,2]; attention needs v (..., S, Ev) with q's leading axes and "
            "S = 5");
  ir::Node declared = node;
  declared.shape = shape_of({2, 3, 4});
  EXPECT_EQ(message(declared, {q, k, v}),
            "input 0 has shape [2,3,4]; attention gives [2,3,2], the node declares [2,3,4]");
}

TEST(reference_attention_vjp_tests, MatchesFiniteDifferences) {
  std::uint32_t seed = 50;
  for (const AttentionCase& c : attention_cases()) {
    std::vector<Tensor> inputs = {random_tensor(c.q, seed, -1.5F, 1.5F),
                                  random_tensor(c.k, seed + 1, -1.5F, 1.5F),
                                  random_tensor(c.v, seed + 2)};
    seed += 3;
    EXPECT_TRUE(check_vjp(attention(), attention_node(c.q, c.v, c.causal, c.scale), inputs))
        << ir::to_string(c.q) << (c.causal ? " causal" : "");
  }
}

}  // namespace
}  // namespace nnplan::runtime::reference
