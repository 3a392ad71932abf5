// The reference random sources rand_uniform and bernoulli_mask: the counter-based draws checked
// against splitmix64's published first outputs and a second implementation written here,
// determinism, that each draw depends only on the seed and its index, the means of many draws,
// the shape guards, and that neither handler offers a VJP.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace {

using backend::BackendOp;
using ir::OpKind;
using namespace testing;

ir::Node uniform_node(std::uint64_t seed, ir::Shape shape) {
  return {.id = 0,
          .kind = OpKind::rand_uniform,
          .parents = {},
          .shape = std::move(shape),
          .params = ir::SeedParams{.seed = seed}};
}

ir::Node mask_node(std::uint64_t seed, ir::Shape shape) {
  return {.id = 1,
          .kind = OpKind::bernoulli_mask,
          .parents = {0},
          .shape = std::move(shape),
          .params = ir::SeedParams{.seed = seed}};
}

// The draw of element i, written out again: splitmix64 of seed + (i+1) * golden, the top 24 bits
// scaled to [0, 1) in double (exact, then converted).
float expected_draw(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z = z ^ (z >> 31);
  return static_cast<float>(static_cast<double>(z >> 40) / 16777216.0);
}

std::vector<float> uniform(std::uint64_t seed, ir::Shape shape) {
  auto y = run_forward(handler(BackendOp::rand_uniform), uniform_node(seed, std::move(shape)), {});
  EXPECT_TRUE(y.has_value()) << y.error().message;
  return y ? y->floats() : std::vector<float>{};
}

std::vector<float> mask(std::uint64_t seed, ir::Shape shape, float p) {
  auto y = run_forward(handler(BackendOp::bernoulli_mask), mask_node(seed, std::move(shape)),
                       {tensor({}, {p})});
  EXPECT_TRUE(y.has_value()) << y.error().message;
  return y ? y->floats() : std::vector<float>{};
}

double mean_of(const std::vector<float>& v) {
  double acc = 0;
  for (float x : v)
    acc += x;
  return acc / static_cast<double>(v.size());
}

TEST(reference_rand_uniform_forward_tests, splitmix64_first_outputs) {
  // splitmix64 from state 0 gives 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F:
  // with seed 0, u_i is the top 24 bits of output i over 2^24.
  EXPECT_EQ(
      uniform(0, shape_of({3})),
      (std::vector<float>{0xE220A8 / 16777216.0F, 0x6E789E / 16777216.0F, 0x06C45D / 16777216.0F}));
  std::vector<float> want;
  for (std::uint64_t i = 0; i < 64; ++i)
    want.push_back(expected_draw(12345, i));
  EXPECT_EQ(uniform(12345, shape_of({4, 16})), want);
  EXPECT_EQ(uniform(12345, shape_of({}))[0], want[0]);
}

TEST(reference_rand_uniform_forward_tests, deterministic_and_seeded) {
  const std::vector<float> a = uniform(7, shape_of({5, 7}));
  EXPECT_TRUE(same_bits(a, uniform(7, shape_of({5, 7}))));
  const std::vector<float> b = uniform(8, shape_of({5, 7}));
  std::size_t equal = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    equal += a[i] == b[i] ? 1 : 0;
  EXPECT_LT(equal, 2U);
  // The full 64-bit seed counts: seeds that differ only above bit 32 differ.
  EXPECT_NE(uniform(1, shape_of({4})), uniform(1 + (std::uint64_t{1} << 40), shape_of({4})));
}

TEST(reference_rand_uniform_forward_tests, mean_of_many_draws) {
  const std::vector<float> u = uniform(2024, shape_of({100000}));
  for (float v : u) {
    ASSERT_GE(v, 0.0F);
    ASSERT_LT(v, 1.0F);
  }
  EXPECT_NEAR(mean_of(u), 0.5, 0.01);
}

TEST(reference_rand_uniform_forward_tests, shape_guard) {
  const auto arity = run_forward(handler(BackendOp::rand_uniform), uniform_node(1, shape_of({2})),
                                 {tensor({}, {0.5F})});
  ASSERT_FALSE(arity.has_value());
  EXPECT_EQ(arity.error().message, "1 inputs given; rand_uniform takes 0");
  const auto kind = run_forward(handler(BackendOp::rand_uniform), mask_node(1, shape_of({2})), {});
  ASSERT_FALSE(kind.has_value());
  EXPECT_EQ(kind.error().message,
            "node kind bernoulli_mask does not run on the rand_uniform kernel");
}

TEST(reference_bernoulli_mask_forward_tests, draws_below_p) {
  const std::vector<float> u = uniform(99, shape_of({3, 50}));
  for (float p : {0.1F, 0.5F, 0.9F}) {
    const std::vector<float> m = mask(99, shape_of({3, 50}), p);
    ASSERT_EQ(m.size(), u.size());
    for (std::size_t i = 0; i < m.size(); ++i) {
      EXPECT_EQ(m[i], expected_draw(99, i) < p ? 1.0F : 0.0F) << "element " << i << ", p " << p;
      EXPECT_EQ(m[i], u[i] < p ? 1.0F : 0.0F);
    }
  }
}

TEST(reference_bernoulli_mask_forward_tests, probability_bounds) {
  const auto count = [](const std::vector<float>& v, float value) {
    std::size_t n = 0;
    for (float x : v)
      n += x == value ? 1 : 0;
    return n;
  };
  EXPECT_EQ(count(mask(5, shape_of({1000}), 1.0F), 1.0F), 1000U);
  EXPECT_EQ(count(mask(5, shape_of({1000}), 1.5F), 1.0F), 1000U);
  EXPECT_EQ(count(mask(5, shape_of({1000}), 0.0F), 0.0F), 1000U);
  EXPECT_EQ(count(mask(5, shape_of({1000}), -0.5F), 0.0F), 1000U);
  EXPECT_EQ(count(mask(5, shape_of({1000}), std::numeric_limits<float>::quiet_NaN()), 0.0F), 1000U);
}

TEST(reference_bernoulli_mask_forward_tests, deterministic_and_mean_of_many_draws) {
  const std::vector<float> m = mask(31337, shape_of({100, 1000}), 0.3F);
  EXPECT_TRUE(same_bits(m, mask(31337, shape_of({100, 1000}), 0.3F)));
  for (float v : m)
    ASSERT_TRUE(v == 0.0F || v == 1.0F);
  EXPECT_NEAR(mean_of(m), 0.3, 0.01);
  EXPECT_NEAR(mean_of(mask(4, shape_of({100000}), 0.8F)), 0.8, 0.01);
}

TEST(reference_bernoulli_mask_forward_tests, shape_guard) {
  const HandlerDefinition& h = handler(BackendOp::bernoulli_mask);
  const auto vector_p = run_forward(h, mask_node(1, shape_of({4})), {tensor({2}, {0.5F, 0.5F})});
  ASSERT_FALSE(vector_p.has_value());
  EXPECT_EQ(vector_p.error().message,
            "input 0 has shape [2]; bernoulli_mask needs a scalar keep probability (shape [])");
  const auto arity = run_forward(h, mask_node(1, shape_of({4})), {});
  ASSERT_FALSE(arity.has_value());
  EXPECT_EQ(arity.error().message, "0 inputs given; bernoulli_mask takes 1");
  const auto kind = run_forward(h, uniform_node(1, shape_of({4})), {tensor({}, {0.5F})});
  ASSERT_FALSE(kind.has_value());
  EXPECT_EQ(kind.error().message,
            "node kind rand_uniform does not run on the bernoulli_mask kernel");
}

// No VJP; draw i is the same whatever the output's shape, its size, and what the buffer held
// before, so a tape treats the draws as constants.
TEST(reference_rand_uniform_vjp_tests, forward_only_and_index_only) {
  const HandlerDefinition& h = handler(BackendOp::rand_uniform);
  EXPECT_EQ(h.vjp, nullptr);
  EXPECT_FALSE(h.in_place_safe);
  const std::vector<float> flat = uniform(77, shape_of({6}));
  EXPECT_TRUE(same_bits(uniform(77, shape_of({2, 3})), flat));
  const std::vector<float> longer = uniform(77, shape_of({100}));
  EXPECT_TRUE(same_bits(std::vector<float>(longer.begin(), longer.begin() + 6), flat));

  const ir::Node node = uniform_node(77, shape_of({6}));
  std::vector<float> buffer(6, std::numeric_limits<float>::quiet_NaN());
  h.forward({.node = node,
             .inputs = {},
             .weights = {},
             .output = float_view(buffer.data(), &node.shape)});
  EXPECT_TRUE(same_bits(buffer, flat));
}

TEST(reference_bernoulli_mask_vjp_tests, forward_only_and_index_only) {
  const HandlerDefinition& h = handler(BackendOp::bernoulli_mask);
  EXPECT_EQ(h.vjp, nullptr);
  EXPECT_FALSE(h.in_place_safe);
  const std::vector<float> flat = mask(78, shape_of({6}), 0.5F);
  EXPECT_TRUE(same_bits(mask(78, shape_of({3, 2}), 0.5F), flat));
  const std::vector<float> longer = mask(78, shape_of({100}), 0.5F);
  EXPECT_TRUE(same_bits(std::vector<float>(longer.begin(), longer.begin() + 6), flat));

  const ir::Node node = mask_node(78, shape_of({6}));
  const Tensor p = tensor({}, {0.5F});
  const TensorRef in[] = {view(p)};
  std::vector<float> buffer(6, 7.0F);
  h.forward({.node = node,
             .inputs = in,
             .weights = {},
             .output = float_view(buffer.data(), &node.shape)});
  EXPECT_TRUE(same_bits(buffer, flat));
}

TEST(ReferenceRandomSourceHandlers, RowsNameTheirForward) {
  ASSERT_EQ(random_source_handlers().size(), 2U);
  for (const ReferenceHandler& row : random_source_handlers()) {
    EXPECT_EQ(row.handler.symbol, "nnplan::runtime::reference::" +
                                      std::string(backend::to_string(row.op)) + "_forward");
    EXPECT_EQ(row.handler.forward_tests.source, "tests/runtime/reference/random_sources_test.cpp");
  }
}

}  // namespace
}  // namespace nnplan::runtime::reference
