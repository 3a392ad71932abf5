// The reference pooling kernels (max_pool, avg_pool): hand-computed cases, a float64 oracle over
// 1-D, 2-D and 3-D windows with strides and padding (padding at or past the kernel too), NaN and
// tie handling, the shape guard's messages, and finite-difference checks of both VJPs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace {

using namespace testing;

const HandlerDefinition& max_pool() {
  return handler_for(pooling_handlers(), backend::BackendOp::max_pool);
}
const HandlerDefinition& avg_pool() {
  return handler_for(pooling_handlers(), backend::BackendOp::avg_pool);
}

struct Pool {
  std::vector<std::uint32_t> kernel, stride, padding;
};

ir::Shape pooled_shape(const ir::Shape& in, const Pool& p) {
  ir::Shape out = in;
  const std::size_t first = in.rank() - p.kernel.size();
  for (std::size_t i = 0; i < p.kernel.size(); ++i) {
    out.dims[first + i] = (in.dims[first + i] + 2 * p.padding[i] - p.kernel[i]) / p.stride[i] + 1;
  }
  return out;
}

ir::Node pool_node(ir::OpKind kind, const ir::Shape& in, const Pool& p) {
  return {.id = 1,
          .kind = kind,
          .parents = {0},
          .shape = pooled_shape(in, p),
          .params = ir::PoolParams{.spatial_rank = static_cast<std::uint32_t>(p.kernel.size()),
                                   .kernel = p.kernel,
                                   .stride = p.stride,
                                   .padding = p.padding}};
}

// A naive float64 pool: each output's window taps enumerated by decomposing a flat tap index;
// max over taps with padding as -inf (NaN wins), or the sum over real taps / kernel volume.
std::vector<double> oracle_pool(bool is_max, const Tensor& x, const Pool& p) {
  const ir::Shape out = pooled_shape(x.shape, p);
  const std::size_t r = p.kernel.size();
  const std::size_t first = x.shape.rank() - r;
  std::size_t outer = 1, in_block = 1, out_block = 1, volume = 1;
  for (std::size_t i = 0; i < first; ++i) outer *= x.shape.dims[i];
  for (std::size_t i = 0; i < r; ++i) {
    in_block *= x.shape.dims[first + i];
    out_block *= out.dims[first + i];
    volume *= p.kernel[i];
  }
  std::vector<double> y(outer * out_block);
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::size_t w = 0; w < out_block; ++w) {
      std::vector<std::size_t> opos(r);
      std::size_t rest = w;
      for (std::size_t i = r; i-- > 0;) {
        opos[i] = rest % out.dims[first + i];
        rest /= out.dims[first + i];
      }
      double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
      for (std::size_t t = 0; t < volume; ++t) {
        std::size_t trest = t;
        bool inside = true;
        std::size_t offset = 0;
        std::vector<long long> coord(r);
        for (std::size_t i = r; i-- > 0;) {
          const long long k = static_cast<long long>(trest % p.kernel[i]);
          trest /= p.kernel[i];
          coord[i] = static_cast<long long>(opos[i] * p.stride[i]) - p.padding[i] + k;
          if (coord[i] < 0 || coord[i] >= static_cast<long long>(x.shape.dims[first + i])) {
            inside = false;
          }
        }
        if (inside) {
          for (std::size_t i = 0; i < r; ++i) {
            offset = offset * x.shape.dims[first + i] + static_cast<std::size_t>(coord[i]);
          }
        }
        const double v = inside ? x.floats()[o * in_block + offset]
                                : (is_max ? -std::numeric_limits<double>::infinity() : 0.0);
        if (is_max) {
          if (std::isnan(v) || std::isnan(acc)) {
            acc = std::numeric_limits<double>::quiet_NaN();
          } else {
            acc = std::max(acc, v);
          }
        } else {
          acc += v;
        }
      }
      y[o * out_block + w] = is_max ? acc : acc / static_cast<double>(volume);
    }
  }
  return y;
}

// Distinct values spaced 0.05 apart in a seeded order: no ties, so max_pool has no kinks
// near the finite-difference steps.
Tensor distinct_tensor(const ir::Shape& shape, std::uint32_t seed) {
  Tensor t = zeros(shape);
  std::vector<std::size_t> order(t.floats().size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 gen(seed);
  std::shuffle(order.begin(), order.end(), gen);
  for (std::size_t i = 0; i < order.size(); ++i) {
    t.floats()[i] = static_cast<float>(order[i]) * 0.05F - 1.0F;
  }
  return t;
}

const std::vector<std::pair<ir::Shape, Pool>>& oracle_cases() {
  static const std::vector<std::pair<ir::Shape, Pool>> cases = {
      {shape_of({2, 3, 10}), {{3}, {2}, {1}}},
      {shape_of({7}), {{2}, {3}, {0}}},
      {shape_of({2, 3, 9, 8}), {{3, 2}, {2, 3}, {1, 0}}},
      {shape_of({5, 5}), {{2, 2}, {1, 1}, {1, 1}}},
      {shape_of({1, 2, 5, 6, 7}), {{2, 3, 2}, {1, 2, 3}, {1, 1, 0}}},
      {shape_of({1, 2, 4, 4}), {{2, 2}, {2, 1}, {2, 3}}},
      {shape_of({2, 2, 3, 4, 3}), {{1, 2, 3}, {2, 2, 1}, {1, 2, 3}}},
  };
  return cases;
}

TEST(reference_max_pool_forward_tests, HandComputed1dStridedAndPadded) {
  const Tensor x = tensor({1, 5}, {1, 3, 2, 5, 4});
  const ir::Node node = pool_node(ir::OpKind::max_pool, x.shape, {{2}, {2}, {1}});
  auto y = run_forward(max_pool(), node, {x});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->shape, shape_of({1, 3}));
  EXPECT_EQ(y->floats(), (std::vector<float>{1, 3, 5}));
}

TEST(reference_max_pool_forward_tests, HandComputed2d) {
  const Tensor x = tensor({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const ir::Node node = pool_node(ir::OpKind::max_pool, x.shape, {{2, 2}, {1, 1}, {0, 0}});
  auto y = run_forward(max_pool(), node, {x});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{5, 6, 8, 9}));
}

TEST(reference_max_pool_forward_tests, PaddingAtOrPastTheKernelGivesMinusInfinity) {
  const Tensor x = tensor({3}, {1, 2, 3});
  auto a = run_forward(max_pool(), pool_node(ir::OpKind::max_pool, x.shape, {{1}, {1}, {1}}), {x});
  ASSERT_TRUE(a.has_value()) << a.error().message;
  EXPECT_EQ(a->floats(), (std::vector<float>{-kInf, 1, 2, 3, -kInf}));
  auto b = run_forward(max_pool(), pool_node(ir::OpKind::max_pool, x.shape, {{2}, {1}, {2}}), {x});
  ASSERT_TRUE(b.has_value()) << b.error().message;
  EXPECT_EQ(b->floats(), (std::vector<float>{-kInf, 1, 2, 3, 3, -kInf}));
}

TEST(reference_max_pool_forward_tests, NanPropagates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = tensor({6}, {1, nan, 3, nan, 0, 2});
  const ir::Node node = pool_node(ir::OpKind::max_pool, x.shape, {{2}, {2}, {0}});
  auto y = run_forward(max_pool(), node, {x});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_TRUE(std::isnan(y->floats()[0]));
  EXPECT_TRUE(std::isnan(y->floats()[1]));
  EXPECT_EQ(y->floats()[2], 2.0F);
}

TEST(reference_max_pool_forward_tests, MatchesFloat64Oracle) {
  std::uint32_t seed = 100;
  for (const auto& [shape, p] : oracle_cases()) {
    const Tensor x = random_tensor(shape, seed++);
    auto y = run_forward(max_pool(), pool_node(ir::OpKind::max_pool, shape, p), {x});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(near_all(y->floats(), oracle_pool(true, x, p), 0, 0)) << ir::to_string(shape);
  }
}

TEST(reference_max_pool_forward_tests, SecondRunIsBitIdentical) {
  const auto& [shape, p] = oracle_cases()[4];
  const Tensor x = random_tensor(shape, 5);
  const ir::Node node = pool_node(ir::OpKind::max_pool, shape, p);
  EXPECT_TRUE(deterministic(max_pool(), node, {x}));
}

TEST(reference_max_pool_forward_tests, ShapeGuardMessages) {
  const Tensor x = tensor({1, 4}, {1, 2, 3, 4});
  const auto message = [&](const ir::Node& node, const std::vector<Tensor>& inputs) {
    return guard_message(max_pool(), node, inputs);
  };
  ir::Node wrong_kind = pool_node(ir::OpKind::avg_pool, x.shape, {{2}, {1}, {0}});
  EXPECT_EQ(message(wrong_kind, {x}), "node kind avg_pool is not max_pool");
  const ir::Node ok = pool_node(ir::OpKind::max_pool, x.shape, {{2}, {1}, {0}});
  EXPECT_EQ(message(ok, {x, x}), "2 inputs given; max_pool takes 1");
  ir::Node lists = ok;
  std::get<ir::PoolParams>(lists.params).spatial_rank = 2;
  EXPECT_EQ(message(lists, {x}),
            "max_pool with spatial_rank 2 needs one kernel, stride and padding entry per spatial "
            "axis (kernel [2], stride [1], padding [0])");
  const Tensor flat = tensor({4}, {1, 2, 3, 4});
  ir::Node two_d = pool_node(ir::OpKind::max_pool, shape_of({1, 4}), {{1, 2}, {1, 1}, {0, 0}});
  EXPECT_EQ(message(two_d, {flat}),
            "input 0 has shape [4]; max_pool needs rank at least 2 (spatial_rank 2)");
  ir::Node too_wide = ok;
  std::get<ir::PoolParams>(too_wide.params).kernel = {5};
  EXPECT_EQ(message(too_wide, {x}),
            "input 0 has shape [1,4]; max_pool needs a window of kernel [5] and stride [1] (each "
            "at least 1) to fit every axis padded by [0]");
  ir::Node declared = ok;
  declared.shape = shape_of({1, 2});
  EXPECT_EQ(message(declared, {x}),
            "input 0 has shape [1,4]; max_pool with kernel [2], stride [1], padding [0] gives "
            "[1,3], the node declares [1,2]");
}

TEST(reference_max_pool_vjp_tests, FirstMaximalTapTakesTheGradient) {
  const Tensor x = tensor({4}, {2, 2, 1, 1});
  const ir::Node node = pool_node(ir::OpKind::max_pool, x.shape, {{2}, {1}, {0}});
  const Tensor g = tensor({3}, {1, 10, 100});
  EXPECT_EQ(input_grad(max_pool(), node, x, g), (std::vector<float>{1, 10, 100, 0}));
}

TEST(reference_max_pool_vjp_tests, PaddingTakesNoGradient) {
  const Tensor x = tensor({2}, {-kInf, 5});
  const ir::Node node = pool_node(ir::OpKind::max_pool, x.shape, {{2}, {1}, {1}});
  // Windows: [pad, -inf] (the pad tap comes first), [-inf, 5], [5, pad].
  const Tensor g = tensor({3}, {1, 10, 100});
  EXPECT_EQ(input_grad(max_pool(), node, x, g), (std::vector<float>{0, 110}));
}

TEST(reference_max_pool_vjp_tests, MatchesFiniteDifferences) {
  const std::vector<std::pair<ir::Shape, Pool>> cases = {
      {shape_of({2, 3, 10}), {{3}, {2}, {1}}},
      {shape_of({2, 2, 7, 6}), {{3, 2}, {2, 3}, {1, 1}}},
      {shape_of({1, 2, 4, 5, 5}), {{2, 3, 2}, {1, 2, 2}, {1, 1, 0}}},
  };
  std::uint32_t seed = 30;
  for (const auto& [shape, p] : cases) {
    EXPECT_TRUE(check_vjp(max_pool(), pool_node(ir::OpKind::max_pool, shape, p),
                          {distinct_tensor(shape, seed++)}))
        << ir::to_string(shape);
  }
}

TEST(reference_avg_pool_forward_tests, HandComputed1dStridedAndPadded) {
  const Tensor x = tensor({1, 5}, {1, 3, 2, 5, 4});
  const ir::Node node = pool_node(ir::OpKind::avg_pool, x.shape, {{2}, {2}, {1}});
  auto y = run_forward(avg_pool(), node, {x});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{0.5F, 2.5F, 4.5F}));
}

TEST(reference_avg_pool_forward_tests, HandComputed2d) {
  const Tensor x = tensor({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const ir::Node node = pool_node(ir::OpKind::avg_pool, x.shape, {{2, 2}, {1, 1}, {0, 0}});
  auto y = run_forward(avg_pool(), node, {x});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{3, 4, 6, 7}));
}

TEST(reference_avg_pool_forward_tests, PaddingCountsInTheDivisor) {
  const Tensor x = tensor({3}, {1, 2, 3});
  auto a = run_forward(avg_pool(), pool_node(ir::OpKind::avg_pool, x.shape, {{1}, {1}, {1}}), {x});
  ASSERT_TRUE(a.has_value()) << a.error().message;
  EXPECT_EQ(a->floats(), (std::vector<float>{0, 1, 2, 3, 0}));
  auto b = run_forward(avg_pool(), pool_node(ir::OpKind::avg_pool, x.shape, {{2}, {1}, {2}}), {x});
  ASSERT_TRUE(b.has_value()) << b.error().message;
  EXPECT_EQ(b->floats(), (std::vector<float>{0, 0.5F, 1.5F, 2.5F, 1.5F, 0}));
}

TEST(reference_avg_pool_forward_tests, MatchesFloat64Oracle) {
  std::uint32_t seed = 200;
  for (const auto& [shape, p] : oracle_cases()) {
    const Tensor x = random_tensor(shape, seed++);
    auto y = run_forward(avg_pool(), pool_node(ir::OpKind::avg_pool, shape, p), {x});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(near_all(y->floats(), oracle_pool(false, x, p), 1e-5, 1e-6))
        << ir::to_string(shape);
  }
}

TEST(reference_avg_pool_forward_tests, SecondRunIsBitIdentical) {
  const auto& [shape, p] = oracle_cases()[4];
  const Tensor x = random_tensor(shape, 6);
  const ir::Node node = pool_node(ir::OpKind::avg_pool, shape, p);
  EXPECT_TRUE(deterministic(avg_pool(), node, {x}));
}

TEST(reference_avg_pool_forward_tests, ShapeGuardMessages) {
  const Tensor x = tensor({1, 4}, {1, 2, 3, 4});
  const auto message = [&](const ir::Node& node, const std::vector<Tensor>& inputs) {
    return guard_message(avg_pool(), node, inputs);
  };
  EXPECT_EQ(message(pool_node(ir::OpKind::max_pool, x.shape, {{2}, {1}, {0}}), {x}),
            "node kind max_pool is not avg_pool");
  ir::Node zero_stride = pool_node(ir::OpKind::avg_pool, x.shape, {{2}, {1}, {0}});
  std::get<ir::PoolParams>(zero_stride.params).stride = {0};
  EXPECT_EQ(message(zero_stride, {x}),
            "input 0 has shape [1,4]; avg_pool needs a window of kernel [2] and stride [0] (each "
            "at least 1) to fit every axis padded by [0]");
  ir::Node declared = pool_node(ir::OpKind::avg_pool, x.shape, {{2}, {2}, {1}});
  declared.shape = shape_of({1, 4});
  EXPECT_EQ(message(declared, {x}),
            "input 0 has shape [1,4]; avg_pool with kernel [2], stride [2], padding [1] gives "
            "[1,3], the node declares [1,4]");
}

TEST(reference_avg_pool_vjp_tests, SpreadsOverRealTapsOnly) {
  const Tensor x = tensor({3}, {1, 2, 3});
  const ir::Node node = pool_node(ir::OpKind::avg_pool, x.shape, {{2}, {2}, {1}});
  // Windows: [pad, x0], [x1, x2].
  const Tensor g = tensor({2}, {4, 8});
  EXPECT_EQ(input_grad(avg_pool(), node, x, g), (std::vector<float>{2, 4, 4}));
}

TEST(reference_avg_pool_vjp_tests, MatchesFiniteDifferences) {
  const std::vector<std::pair<ir::Shape, Pool>> cases = {
      {shape_of({2, 3, 10}), {{3}, {2}, {1}}},
      {shape_of({2, 2, 7, 6}), {{3, 2}, {2, 3}, {1, 1}}},
      {shape_of({1, 2, 4, 4}), {{2, 2}, {2, 1}, {2, 3}}},
      {shape_of({1, 2, 4, 5, 5}), {{2, 3, 2}, {1, 2, 2}, {1, 1, 0}}},
  };
  std::uint32_t seed = 40;
  for (const auto& [shape, p] : cases) {
    EXPECT_TRUE(check_vjp(avg_pool(), pool_node(ir::OpKind::avg_pool, shape, p),
                          {random_tensor(shape, seed++)}))
        << ir::to_string(shape);
  }
}

}  // namespace
}  // namespace nnplan::runtime::reference
