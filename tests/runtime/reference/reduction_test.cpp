// The reference reduction kernels reduce_sum (kinds reduce_sum and sum), reduce_mean, reduce_max,
// reduce_min, reduce_prod, argmax, argmin and top_k (int64 indices, no VJP), cum_sum (running
// sums, float32 and int64) and mse_loss: hand cases, the
// order of accumulation (float32, left to right, compared bit for bit with a float32 loop written
// here), a float64 oracle, the shape guards, and the VJPs by finite differences and by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
// A namespace of this file's own: the unity build puts several test files in one translation
// unit, and their file-local helpers must not meet.
namespace reduction_test {
namespace {

using backend::BackendOp;
using ir::OpKind;
using namespace testing;

ir::Shape without_axis(ir::Shape s, std::uint32_t axis) {
  s.dims.erase(s.dims.begin() + axis);
  return s;
}

ir::Node reduced_axis_node(OpKind kind, const ir::Shape& in, std::uint32_t axis) {
  return {.id = 1,
          .kind = kind,
          .parents = {0},
          .shape = without_axis(in, axis),
          .params = ir::AxisParams{.axis = axis}};
}

ir::Node sum_node() {
  return {.id = 1, .kind = OpKind::sum, .parents = {0}, .shape = shape_of({})};
}

ir::Node mse_node() {
  return {.id = 2, .kind = OpKind::mse_loss, .parents = {0, 1}, .shape = shape_of({})};
}

// Along `axis` of `x`: the float32 left-to-right sum from 0 (divided by the extent when `mean`),
// and the float64 one.
struct AxisOracle {
  std::vector<float> f32;
  std::vector<double> f64;
};
AxisOracle oracle_along(const Tensor& x, std::uint32_t axis, bool mean) {
  std::size_t outer = 1;
  std::size_t inner = 1;
  for (std::size_t i = 0; i < axis; ++i)
    outer *= x.shape.dims[i];
  for (std::size_t i = axis + 1; i < x.shape.rank(); ++i)
    inner *= x.shape.dims[i];
  const std::size_t n = x.shape.dims[axis];
  AxisOracle out;
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::size_t j = 0; j < inner; ++j) {
      float f = 0.0F;
      double d = 0.0;
      for (std::size_t k = 0; k < n; ++k) {
        f += x.floats()[(o * n + k) * inner + j];
        d += x.floats()[(o * n + k) * inner + j];
      }
      out.f32.push_back(mean ? f / static_cast<float>(n) : f);
      out.f64.push_back(mean ? d / static_cast<double>(n) : d);
    }
  }
  return out;
}

const std::vector<ir::Shape>& shapes() {
  static const std::vector<ir::Shape> s = {shape_of({7}), shape_of({3, 4}), shape_of({3, 4, 5}),
                                           shape_of({2, 1, 3, 2})};
  return s;
}

// Every axis of every shape: bit-identical to the float32 left-to-right loop, near the float64
// sum, and bit-identical on a second run.
void expect_axis_oracle(BackendOp op, OpKind kind, bool mean) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    for (std::uint32_t axis = 0; axis < shapes()[s].rank(); ++axis) {
      SCOPED_TRACE(ir::to_string(shapes()[s]) + " axis " + std::to_string(axis));
      const Tensor x = random_tensor(shapes()[s], 800 + static_cast<std::uint32_t>(s));
      const ir::Node node = reduced_axis_node(kind, x.shape, axis);
      const auto y = run_forward(handler(op), node, {x});
      ASSERT_TRUE(y.has_value()) << y.error().message;
      const AxisOracle want = oracle_along(x, axis, mean);
      EXPECT_TRUE(same_bits(y->floats(), want.f32));
      EXPECT_TRUE(near_all(y->floats(), want.f64, 1e-5, 1e-6));
      EXPECT_TRUE(same_on_rerun(handler(op), node, {x}, *y));
    }
  }
}

// The cotangent's gradient for one input, added onto ones.
std::vector<std::vector<float>> grads_plus_one(BackendOp op, const ir::Node& node,
                                               const std::vector<Tensor>& inputs, const Tensor& g) {
  return input_grads(handler(op), node, inputs, g, {}, 1.0F);
}

const Tensor& two_by_three() {
  static const Tensor x = tensor({2, 3}, {1.0F, 2.0F, 3.0F, 4.0F, 5.0F, 6.0F});
  return x;
}

TEST(reference_reduce_sum_forward_tests, hand_cases) {
  const HandlerDefinition& h = handler(BackendOp::reduce_sum);
  const Tensor& x = two_by_three();
  EXPECT_EQ(run_forward(h, reduced_axis_node(OpKind::reduce_sum, x.shape, 0), {x})->floats(),
            (std::vector<float>{5.0F, 7.0F, 9.0F}));
  EXPECT_EQ(run_forward(h, reduced_axis_node(OpKind::reduce_sum, x.shape, 1), {x})->floats(),
            (std::vector<float>{6.0F, 15.0F}));
  EXPECT_EQ(run_forward(h, sum_node(), {x})->floats(), (std::vector<float>{21.0F}));
  EXPECT_EQ(run_forward(h, sum_node(), {tensor({}, {2.5F})})->floats(), (std::vector<float>{2.5F}));
  // An empty axis sums to 0.
  EXPECT_EQ(run_forward(h, reduced_axis_node(OpKind::reduce_sum, shape_of({2, 0}), 1),
                        {tensor({2, 0}, {})})
                ->floats(),
            (std::vector<float>{0.0F, 0.0F}));
}

// Left to right in float32: ((1e8 + 1) - 1e8) + 1 = 1; a pairwise or reversed order gives 0.
TEST(reference_reduce_sum_forward_tests, left_to_right_order) {
  const HandlerDefinition& h = handler(BackendOp::reduce_sum);
  const Tensor x = tensor({4}, {1e8F, 1.0F, -1e8F, 1.0F});
  EXPECT_EQ(run_forward(h, sum_node(), {x})->floats(), (std::vector<float>{1.0F}));
  EXPECT_EQ(run_forward(h, reduced_axis_node(OpKind::reduce_sum, x.shape, 0), {x})->floats(),
            (std::vector<float>{1.0F}));
  const Tensor columns = tensor({4, 2}, {1e8F, 1.0F, 1.0F, 1e8F, -1e8F, 1.0F, 1.0F, -1e8F});
  EXPECT_EQ(
      run_forward(h, reduced_axis_node(OpKind::reduce_sum, columns.shape, 0), {columns})->floats(),
      (std::vector<float>{1.0F, 0.0F}));
}

TEST(reference_reduce_sum_forward_tests, float64_oracle) {
  expect_axis_oracle(BackendOp::reduce_sum, OpKind::reduce_sum, false);
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    SCOPED_TRACE(ir::to_string(shapes()[s]));
    const Tensor x = random_tensor(shapes()[s], 900 + static_cast<std::uint32_t>(s));
    const auto y = run_forward(handler(BackendOp::reduce_sum), sum_node(), {x});
    ASSERT_TRUE(y.has_value());
    float f = 0.0F;
    double d = 0.0;
    for (float v : x.floats()) {
      f += v;
      d += v;
    }
    EXPECT_TRUE(same_bits(y->floats(), std::vector<float>{f}));
    EXPECT_TRUE(near_all(y->floats(), std::vector<double>{d}, 1e-5, 1e-6));
  }
}

TEST(reference_reduce_sum_forward_tests, shape_guard) {
  const HandlerDefinition& h = handler(BackendOp::reduce_sum);
  const Tensor& x = two_by_three();
  ir::Node beyond = reduced_axis_node(OpKind::reduce_sum, x.shape, 1);
  beyond.params = ir::AxisParams{.axis = 2};
  EXPECT_EQ(guard_message(h, beyond, {x}),
            "input 0 has shape [2,3]; reduce_sum over axis 2 needs rank at least 3");
  ir::Node wrong = reduced_axis_node(OpKind::reduce_sum, x.shape, 0);
  wrong.shape = shape_of({2});
  EXPECT_EQ(guard_message(h, wrong, {x}),
            "input 0 has shape [2,3]; reduce_sum over axis 0 gives [3], not the node's shape [2]");
  ir::Node not_scalar = sum_node();
  not_scalar.shape = shape_of({1});
  EXPECT_EQ(guard_message(h, not_scalar, {x}),
            "the output has shape [1]; sum gives a scalar (shape [])");
  EXPECT_EQ(guard_message(h, sum_node(), {x, x}), "2 inputs given; sum takes 1");
  EXPECT_EQ(guard_message(h, reduced_axis_node(OpKind::reduce_mean, x.shape, 0), {x}),
            "node kind reduce_mean does not run on the reduce_sum kernel");
}

TEST(reference_reduce_sum_vjp_tests, finite_differences) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    const Tensor x = random_tensor(shapes()[s], 1000 + static_cast<std::uint32_t>(s));
    for (std::uint32_t axis = 0; axis < x.shape.rank(); ++axis) {
      SCOPED_TRACE(ir::to_string(x.shape) + " axis " + std::to_string(axis));
      EXPECT_TRUE(check_vjp(handler(BackendOp::reduce_sum),
                            reduced_axis_node(OpKind::reduce_sum, x.shape, axis), {x}));
    }
    EXPECT_TRUE(check_vjp(handler(BackendOp::reduce_sum), sum_node(), {x}));
  }
}

// The cotangent spreads back over the reduced axis, added onto the gradient given.
TEST(reference_reduce_sum_vjp_tests, hand_cases) {
  const Tensor& x = two_by_three();
  EXPECT_EQ(grads_plus_one(BackendOp::reduce_sum, reduced_axis_node(OpKind::reduce_sum, x.shape, 1),
                           {x}, tensor({2}, {10.0F, 20.0F})),
            (std::vector<std::vector<float>>{{11.0F, 11.0F, 11.0F, 21.0F, 21.0F, 21.0F}}));
  EXPECT_EQ(grads_plus_one(BackendOp::reduce_sum, reduced_axis_node(OpKind::reduce_sum, x.shape, 0),
                           {x}, tensor({3}, {1.0F, 2.0F, 3.0F})),
            (std::vector<std::vector<float>>{{2.0F, 3.0F, 4.0F, 2.0F, 3.0F, 4.0F}}));
  EXPECT_EQ(grads_plus_one(BackendOp::reduce_sum, sum_node(), {x}, tensor({}, {-2.0F})),
            (std::vector<std::vector<float>>{{-1.0F, -1.0F, -1.0F, -1.0F, -1.0F, -1.0F}}));
}

TEST(reference_reduce_mean_forward_tests, hand_cases) {
  const HandlerDefinition& h = handler(BackendOp::reduce_mean);
  const Tensor& x = two_by_three();
  EXPECT_EQ(run_forward(h, reduced_axis_node(OpKind::reduce_mean, x.shape, 0), {x})->floats(),
            (std::vector<float>{2.5F, 3.5F, 4.5F}));
  EXPECT_EQ(run_forward(h, reduced_axis_node(OpKind::reduce_mean, x.shape, 1), {x})->floats(),
            (std::vector<float>{2.0F, 5.0F}));
  // The sum first, then one division: (1 + 1 + 2) / 3 rounded once.
  EXPECT_EQ(run_forward(h, reduced_axis_node(OpKind::reduce_mean, shape_of({3}), 0),
                        {tensor({3}, {1.0F, 1.0F, 2.0F})})
                ->floats(),
            (std::vector<float>{4.0F / 3.0F}));
  // An empty axis: 0 / 0.
  const auto empty = run_forward(h, reduced_axis_node(OpKind::reduce_mean, shape_of({2, 0}), 1),
                                 {tensor({2, 0}, {})});
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(std::isnan(empty->floats()[0]) && std::isnan(empty->floats()[1]));
}

TEST(reference_reduce_mean_forward_tests, float64_oracle) {
  expect_axis_oracle(BackendOp::reduce_mean, OpKind::reduce_mean, true);
}

TEST(reference_reduce_mean_forward_tests, shape_guard) {
  const HandlerDefinition& h = handler(BackendOp::reduce_mean);
  const Tensor& x = two_by_three();
  ir::Node beyond = reduced_axis_node(OpKind::reduce_mean, x.shape, 0);
  beyond.params = ir::AxisParams{.axis = 5};
  EXPECT_EQ(guard_message(h, beyond, {x}),
            "input 0 has shape [2,3]; reduce_mean over axis 5 needs rank at least 6");
  ir::Node wrong = reduced_axis_node(OpKind::reduce_mean, x.shape, 1);
  wrong.shape = shape_of({3});
  EXPECT_EQ(guard_message(h, wrong, {x}),
            "input 0 has shape [2,3]; reduce_mean over axis 1 gives [2], not the node's shape [3]");
  EXPECT_EQ(guard_message(h, reduced_axis_node(OpKind::reduce_mean, x.shape, 1), {}),
            "0 inputs given; reduce_mean takes 1");
  EXPECT_EQ(guard_message(h, sum_node(), {x}),
            "node kind sum does not run on the reduce_mean kernel");
}

TEST(reference_reduce_mean_vjp_tests, finite_differences) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    const Tensor x = random_tensor(shapes()[s], 1100 + static_cast<std::uint32_t>(s));
    for (std::uint32_t axis = 0; axis < x.shape.rank(); ++axis) {
      SCOPED_TRACE(ir::to_string(x.shape) + " axis " + std::to_string(axis));
      EXPECT_TRUE(check_vjp(handler(BackendOp::reduce_mean),
                            reduced_axis_node(OpKind::reduce_mean, x.shape, axis), {x}));
    }
  }
}

TEST(reference_reduce_mean_vjp_tests, hand_cases) {
  const Tensor& x = two_by_three();
  EXPECT_EQ(
      grads_plus_one(BackendOp::reduce_mean, reduced_axis_node(OpKind::reduce_mean, x.shape, 0),
                     {x}, tensor({3}, {2.0F, 4.0F, -6.0F})),
      (std::vector<std::vector<float>>{{2.0F, 3.0F, -2.0F, 2.0F, 3.0F, -2.0F}}));
}

TEST(reference_mse_loss_forward_tests, hand_cases) {
  const HandlerDefinition& h = handler(BackendOp::mse_loss);
  // (0 + 4 + 4) / 3.
  EXPECT_EQ(
      run_forward(h, mse_node(), {tensor({3}, {1.0F, 2.0F, 3.0F}), tensor({3}, {1.0F, 0.0F, 5.0F})})
          ->floats(),
      (std::vector<float>{8.0F / 3.0F}));
  EXPECT_EQ(run_forward(h, mse_node(), {tensor({}, {3.0F}), tensor({}, {-1.0F})})->floats(),
            (std::vector<float>{16.0F}));
  // The squares 1e16, 1, 1: left to right in float32 the ones vanish.
  EXPECT_EQ(run_forward(h, mse_node(), {tensor({3}, {1e8F, 1.0F, 1.0F}), tensor({3}, {0, 0, 0})})
                ->floats(),
            (std::vector<float>{1e16F / 3.0F}));
}

TEST(reference_mse_loss_forward_tests, float64_oracle) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    SCOPED_TRACE(ir::to_string(shapes()[s]));
    const Tensor a = random_tensor(shapes()[s], 1200 + static_cast<std::uint32_t>(s));
    const Tensor b = random_tensor(shapes()[s], 1300 + static_cast<std::uint32_t>(s));
    const auto y = run_forward(handler(BackendOp::mse_loss), mse_node(), {a, b});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    float f = 0.0F;
    double d = 0.0;
    for (std::size_t i = 0; i < a.floats().size(); ++i) {
      const float df = a.floats()[i] - b.floats()[i];
      f += df * df;
      const double dd = static_cast<double>(a.floats()[i]) - b.floats()[i];
      d += dd * dd;
    }
    const auto n = static_cast<float>(a.floats().size());
    EXPECT_TRUE(same_bits(y->floats(), std::vector<float>{f / n}));
    EXPECT_TRUE(near_all(y->floats(), std::vector<double>{d / n}, 1e-5, 1e-6));
    EXPECT_TRUE(same_on_rerun(handler(BackendOp::mse_loss), mse_node(), {a, b}, *y));
  }
}

TEST(reference_mse_loss_forward_tests, shape_guard) {
  const HandlerDefinition& h = handler(BackendOp::mse_loss);
  const Tensor& x = two_by_three();
  EXPECT_EQ(guard_message(h, mse_node(), {x, tensor({3}, {1, 2, 3})}),
            "input 1 has shape [3]; mse_loss needs the shape of input 0, [2,3]");
  EXPECT_EQ(guard_message(h, mse_node(), {x}), "1 inputs given; mse_loss takes 2");
  ir::Node not_scalar = mse_node();
  not_scalar.shape = shape_of({1});
  EXPECT_EQ(guard_message(h, not_scalar, {x, x}),
            "the output has shape [1]; mse_loss gives a scalar (shape [])");
  ir::Node other = mse_node();
  other.kind = OpKind::add;
  EXPECT_EQ(guard_message(h, other, {x, x}), "node kind add does not run on the mse_loss kernel");
}

TEST(reference_mse_loss_vjp_tests, finite_differences) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    SCOPED_TRACE(ir::to_string(shapes()[s]));
    const Tensor a = random_tensor(shapes()[s], 1400 + static_cast<std::uint32_t>(s));
    const Tensor b = random_tensor(shapes()[s], 1500 + static_cast<std::uint32_t>(s));
    EXPECT_TRUE(check_vjp(handler(BackendOp::mse_loss), mse_node(), {a, b}));
  }
  EXPECT_TRUE(check_vjp(handler(BackendOp::mse_loss), mse_node(),
                        {tensor({}, {0.5F}), tensor({}, {-0.25F})}));
}

// d/da = 2 (a - b) / n * g and d/db its negative: here n = 2, g = 3, added onto ones.
TEST(reference_mse_loss_vjp_tests, hand_cases) {
  EXPECT_EQ(
      grads_plus_one(BackendOp::mse_loss, mse_node(),
                     {tensor({2}, {1.0F, 2.0F}), tensor({2}, {0.0F, 4.0F})}, tensor({}, {3.0F})),
      (std::vector<std::vector<float>>{{4.0F, -5.0F}, {-2.0F, 7.0F}}));
}

// Along `axis` of `x`, the float32 fold of `f` from `init`, left to right.
template <typename F>
std::vector<float> fold_along(const Tensor& x, std::uint32_t axis, float init, F f) {
  std::size_t outer = 1;
  std::size_t inner = 1;
  for (std::size_t i = 0; i < axis; ++i)
    outer *= x.shape.dims[i];
  for (std::size_t i = axis + 1; i < x.shape.rank(); ++i)
    inner *= x.shape.dims[i];
  const std::size_t n = x.shape.dims[axis];
  std::vector<float> out;
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::size_t j = 0; j < inner; ++j) {
      float acc = init;
      for (std::size_t k = 0; k < n; ++k)
        acc = f(acc, x.floats()[(o * n + k) * inner + j]);
      out.push_back(acc);
    }
  }
  return out;
}

// Every axis of every shape: bit-identical to the fold written here, and on a second run.
template <typename F>
void expect_fold_oracle(BackendOp op, OpKind kind, float init, F f) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    for (std::uint32_t axis = 0; axis < shapes()[s].rank(); ++axis) {
      SCOPED_TRACE(ir::to_string(shapes()[s]) + " axis " + std::to_string(axis));
      const Tensor x = random_tensor(shapes()[s], 1200 + static_cast<std::uint32_t>(s));
      const ir::Node node = reduced_axis_node(kind, x.shape, axis);
      const auto y = run_forward(handler(op), node, {x});
      ASSERT_TRUE(y.has_value()) << y.error().message;
      EXPECT_TRUE(same_bits(y->floats(), fold_along(x, axis, init, f)));
      EXPECT_TRUE(same_on_rerun(handler(op), node, {x}, *y));
    }
  }
}

// Seeded random values in [-1, 1) spread apart to at least 2/n of each other (their ranks kept),
// so that finite differences never swap the largest or smallest element with another.
Tensor spread_tensor(const ir::Shape& shape, std::uint32_t seed) {
  Tensor x = random_tensor(shape, seed);
  std::vector<float>& v = x.floats();
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  for (std::size_t r = 0; r < order.size(); ++r)
    v[order[r]] = -1.0F + 2.0F * static_cast<float>(r) / static_cast<float>(order.size());
  return x;
}

void expect_vjp_every_axis(BackendOp op, OpKind kind, std::uint32_t seed) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    const Tensor x = spread_tensor(shapes()[s], seed + static_cast<std::uint32_t>(s));
    for (std::uint32_t axis = 0; axis < x.shape.rank(); ++axis) {
      SCOPED_TRACE(ir::to_string(x.shape) + " axis " + std::to_string(axis));
      EXPECT_TRUE(check_vjp(handler(op), reduced_axis_node(kind, x.shape, axis), {x}));
    }
  }
}

// The guard of a one-axis reduction: the axis within the rank, the node's shape, one input, its
// own kind.
void expect_one_axis_guard(BackendOp op, OpKind kind) {
  const HandlerDefinition& h = handler(op);
  const Tensor& x = two_by_three();
  const std::string name(ir::to_string(kind));
  ir::Node beyond = reduced_axis_node(kind, x.shape, 0);
  beyond.params = ir::AxisParams{.axis = 2};
  EXPECT_EQ(guard_message(h, beyond, {x}),
            "input 0 has shape [2,3]; " + name + " over axis 2 needs rank at least 3");
  ir::Node wrong = reduced_axis_node(kind, x.shape, 1);
  wrong.shape = shape_of({3});
  EXPECT_EQ(guard_message(h, wrong, {x}), "input 0 has shape [2,3]; " + name +
                                              " over axis 1 gives [2], not the node's shape [3]");
  EXPECT_EQ(guard_message(h, reduced_axis_node(kind, x.shape, 1), {x, x}),
            "2 inputs given; " + name + " takes 1");
  EXPECT_EQ(guard_message(h, reduced_axis_node(OpKind::reduce_sum, x.shape, 0), {x}),
            "node kind reduce_sum does not run on the " + name + " kernel");
}

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<float> forward(BackendOp op, OpKind kind, const Tensor& x, std::uint32_t axis) {
  const auto y = run_forward(handler(op), reduced_axis_node(kind, x.shape, axis), {x});
  EXPECT_TRUE(y.has_value()) << y.error().message;
  return y ? y->floats() : std::vector<float>{};
}

TEST(reference_reduce_max_forward_tests, hand_cases) {
  const Tensor& x = two_by_three();
  EXPECT_EQ(forward(BackendOp::reduce_max, OpKind::reduce_max, x, 0),
            (std::vector<float>{4.0F, 5.0F, 6.0F}));
  EXPECT_EQ(forward(BackendOp::reduce_max, OpKind::reduce_max, x, 1),
            (std::vector<float>{3.0F, 6.0F}));
  // -inf is a value like any other; a NaN anywhere along the axis gives NaN; an empty axis -inf.
  const auto y = forward(BackendOp::reduce_max, OpKind::reduce_max,
                         tensor({3, 2}, {-kInf, 1.0F, -kInf, kNaN, -kInf, 2.0F}), 0);
  ASSERT_EQ(y.size(), 2U);
  EXPECT_EQ(y[0], -kInf);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(forward(BackendOp::reduce_max, OpKind::reduce_max, tensor({2, 0}, {}), 1),
            (std::vector<float>{-kInf, -kInf}));
}
TEST(reference_reduce_max_forward_tests, float64_oracle) {
  // The maximum is one of the inputs: exact, so the float32 fold is the float64 answer.
  expect_fold_oracle(BackendOp::reduce_max, OpKind::reduce_max, -kInf,
                     [](float a, float b) { return b > a ? b : a; });
}
TEST(reference_reduce_max_forward_tests, shape_guard) {
  expect_one_axis_guard(BackendOp::reduce_max, OpKind::reduce_max);
}
TEST(reference_reduce_max_vjp_tests, finite_differences) {
  expect_vjp_every_axis(BackendOp::reduce_max, OpKind::reduce_max, 1300);
}
// g to the first largest element only (ties included), added onto ones.
TEST(reference_reduce_max_vjp_tests, hand_cases) {
  const Tensor x = tensor({2, 3}, {1.0F, 5.0F, 5.0F, 7.0F, 2.0F, 3.0F});
  EXPECT_EQ(grads_plus_one(BackendOp::reduce_max, reduced_axis_node(OpKind::reduce_max, x.shape, 1),
                           {x}, tensor({2}, {10.0F, 20.0F})),
            (std::vector<std::vector<float>>{{1.0F, 11.0F, 1.0F, 21.0F, 1.0F, 1.0F}}));
  EXPECT_EQ(grads_plus_one(BackendOp::reduce_max, reduced_axis_node(OpKind::reduce_max, x.shape, 0),
                           {x}, tensor({3}, {1.0F, 2.0F, 3.0F})),
            (std::vector<std::vector<float>>{{1.0F, 3.0F, 4.0F, 2.0F, 1.0F, 1.0F}}));
}

TEST(reference_reduce_min_forward_tests, hand_cases) {
  const Tensor& x = two_by_three();
  EXPECT_EQ(forward(BackendOp::reduce_min, OpKind::reduce_min, x, 0),
            (std::vector<float>{1.0F, 2.0F, 3.0F}));
  EXPECT_EQ(forward(BackendOp::reduce_min, OpKind::reduce_min, x, 1),
            (std::vector<float>{1.0F, 4.0F}));
  const auto y = forward(BackendOp::reduce_min, OpKind::reduce_min,
                         tensor({2, 2}, {kInf, kNaN, kInf, -1.0F}), 0);
  ASSERT_EQ(y.size(), 2U);
  EXPECT_EQ(y[0], kInf);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(forward(BackendOp::reduce_min, OpKind::reduce_min, tensor({0}, {}), 0),
            (std::vector<float>{kInf}));
}
TEST(reference_reduce_min_forward_tests, float64_oracle) {
  expect_fold_oracle(BackendOp::reduce_min, OpKind::reduce_min, kInf,
                     [](float a, float b) { return b < a ? b : a; });
}
TEST(reference_reduce_min_forward_tests, shape_guard) {
  expect_one_axis_guard(BackendOp::reduce_min, OpKind::reduce_min);
}
TEST(reference_reduce_min_vjp_tests, finite_differences) {
  expect_vjp_every_axis(BackendOp::reduce_min, OpKind::reduce_min, 1400);
}
// g to the first smallest element only, or to the first NaN.
TEST(reference_reduce_min_vjp_tests, hand_cases) {
  const Tensor x = tensor({2, 3}, {4.0F, 2.0F, 2.0F, 7.0F, kNaN, kNaN});
  EXPECT_EQ(grads_plus_one(BackendOp::reduce_min, reduced_axis_node(OpKind::reduce_min, x.shape, 1),
                           {x}, tensor({2}, {10.0F, 20.0F})),
            (std::vector<std::vector<float>>{{1.0F, 11.0F, 1.0F, 1.0F, 21.0F, 1.0F}}));
}

TEST(reference_reduce_prod_forward_tests, hand_cases) {
  const Tensor& x = two_by_three();
  EXPECT_EQ(forward(BackendOp::reduce_prod, OpKind::reduce_prod, x, 0),
            (std::vector<float>{4.0F, 10.0F, 18.0F}));
  EXPECT_EQ(forward(BackendOp::reduce_prod, OpKind::reduce_prod, x, 1),
            (std::vector<float>{6.0F, 120.0F}));
  // An empty axis multiplies to 1; 0 * inf is NaN.
  EXPECT_EQ(forward(BackendOp::reduce_prod, OpKind::reduce_prod, tensor({2, 0}, {}), 1),
            (std::vector<float>{1.0F, 1.0F}));
  EXPECT_TRUE(std::isnan(
      forward(BackendOp::reduce_prod, OpKind::reduce_prod, tensor({2}, {0.0F, kInf}), 0)[0]));
}
// Left to right in float32: (1e30 * 1e30) * 1e-30 overflows to inf; another order gives 1e30.
TEST(reference_reduce_prod_forward_tests, left_to_right_order) {
  EXPECT_EQ(
      forward(BackendOp::reduce_prod, OpKind::reduce_prod, tensor({3}, {1e30F, 1e30F, 1e-30F}), 0),
      (std::vector<float>{kInf}));
}
TEST(reference_reduce_prod_forward_tests, float64_oracle) {
  expect_fold_oracle(BackendOp::reduce_prod, OpKind::reduce_prod, 1.0F,
                     [](float a, float b) { return a * b; });
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    const Tensor x = random_tensor(shapes()[s], 1500 + static_cast<std::uint32_t>(s));
    const auto y = forward(BackendOp::reduce_prod, OpKind::reduce_prod, x, 0);
    std::vector<double> want(y.size(), 1.0);
    const std::size_t inner = y.size();
    for (std::size_t i = 0; i < x.floats().size(); ++i)
      want[i % inner] *= x.floats()[i];
    EXPECT_TRUE(near_all(y, want, 1e-5, 1e-30));
  }
}
TEST(reference_reduce_prod_forward_tests, shape_guard) {
  expect_one_axis_guard(BackendOp::reduce_prod, OpKind::reduce_prod);
}
TEST(reference_reduce_prod_vjp_tests, finite_differences) {
  expect_vjp_every_axis(BackendOp::reduce_prod, OpKind::reduce_prod, 1600);
}
// The product of the others, without a division: exact where an element is 0.
TEST(reference_reduce_prod_vjp_tests, hand_cases) {
  const Tensor x = tensor({2, 3}, {2.0F, 3.0F, 4.0F, 0.0F, 5.0F, 6.0F});
  EXPECT_EQ(
      grads_plus_one(BackendOp::reduce_prod, reduced_axis_node(OpKind::reduce_prod, x.shape, 1),
                     {x}, tensor({2}, {1.0F, 2.0F})),
      (std::vector<std::vector<float>>{{13.0F, 9.0F, 7.0F, 61.0F, 1.0F, 1.0F}}));
}

// The int64 indices argmax (argmin) writes along `axis` of x.
std::vector<std::int64_t> indices(BackendOp op, OpKind kind, const Tensor& x, std::uint32_t axis) {
  ir::Node node = reduced_axis_node(kind, x.shape, axis);
  node.dtype = ir::DType::int64;
  std::vector<std::int64_t> out(element_count_of(node.shape), -1);
  const TensorRef in[] = {view(x)};
  handler(op).forward({.node = node,
                       .inputs = in,
                       .weights = {},
                       .output = {.bytes = reinterpret_cast<std::byte*>(out.data()),
                                  .shape = &node.shape,
                                  .dtype = ir::DType::int64}});
  return out;
}

TEST(reference_argmax_forward_tests, hand_cases) {
  const Tensor x = tensor({2, 3}, {1.0F, 5.0F, 5.0F, 7.0F, -2.0F, 3.0F});
  // The first largest along the axis; ties to the lower index.
  EXPECT_EQ(indices(BackendOp::argmax, OpKind::argmax, x, 1), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(indices(BackendOp::argmax, OpKind::argmax, x, 0), (std::vector<std::int64_t>{1, 0, 0}));
  // A NaN is taken first, wherever it is; -inf loses to everything else.
  const Tensor nan = tensor({4}, {-kInf, 2.0F, kNaN, 9.0F});
  EXPECT_EQ(indices(BackendOp::argmax, OpKind::argmax, nan, 0), (std::vector<std::int64_t>{2}));
}
TEST(reference_argmax_forward_tests, float64_oracle) {
  // Every axis of every shape against the index of the fold's maximum.
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    const Tensor x = random_tensor(shapes()[s], 1700 + static_cast<std::uint32_t>(s));
    for (std::uint32_t axis = 0; axis < x.shape.rank(); ++axis) {
      SCOPED_TRACE(ir::to_string(x.shape) + " axis " + std::to_string(axis));
      const std::vector<float> max =
          fold_along(x, axis, -kInf, [](float a, float b) { return b > a ? b : a; });
      const std::vector<std::int64_t> at = indices(BackendOp::argmax, OpKind::argmax, x, axis);
      std::size_t inner = 1;
      for (std::size_t i = axis + 1; i < x.shape.rank(); ++i)
        inner *= x.shape.dims[i];
      const std::size_t n = x.shape.dims[axis];
      for (std::size_t i = 0; i < at.size(); ++i) {
        const std::size_t o = i / inner;
        const std::size_t j = i % inner;
        ASSERT_GE(at[i], 0);
        ASSERT_LT(static_cast<std::size_t>(at[i]), n);
        EXPECT_EQ(x.floats()[(o * n + static_cast<std::size_t>(at[i])) * inner + j], max[i]);
      }
    }
  }
}
TEST(reference_argmax_forward_tests, shape_guard) {
  const HandlerDefinition& h = handler(BackendOp::argmax);
  const Tensor& x = two_by_three();
  ir::Node beyond = reduced_axis_node(OpKind::argmax, x.shape, 0);
  beyond.params = ir::AxisParams{.axis = 2};
  EXPECT_EQ(guard_message(h, beyond, {x}),
            "input 0 has shape [2,3]; argmax over axis 2 needs rank at least 3");
  EXPECT_EQ(guard_message(h, reduced_axis_node(OpKind::argmax, shape_of({2, 0}), 1),
                          {tensor({2, 0}, {})}),
            "input 0 has shape [2,0]; argmax over axis 1 needs a non-empty axis");
  EXPECT_EQ(guard_message(h, reduced_axis_node(OpKind::argmin, x.shape, 0), {x}),
            "node kind argmin does not run on the argmax kernel");
}
// Indices carry no derivative: the kernel has no VJP and the capsule's VJP mode is none.
TEST(reference_argmax_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::argmax).vjp, nullptr);
  EXPECT_FALSE(backend::requires_vjp(BackendOp::argmax));
}

TEST(reference_argmin_forward_tests, hand_cases) {
  const Tensor x = tensor({2, 3}, {4.0F, 2.0F, 2.0F, 7.0F, -2.0F, -2.0F});
  EXPECT_EQ(indices(BackendOp::argmin, OpKind::argmin, x, 1), (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(indices(BackendOp::argmin, OpKind::argmin, x, 0), (std::vector<std::int64_t>{0, 1, 1}));
  const Tensor nan = tensor({3}, {kInf, kNaN, -1.0F});
  EXPECT_EQ(indices(BackendOp::argmin, OpKind::argmin, nan, 0), (std::vector<std::int64_t>{1}));
}
TEST(reference_argmin_forward_tests, float64_oracle) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    const Tensor x = random_tensor(shapes()[s], 1800 + static_cast<std::uint32_t>(s));
    const std::uint32_t axis = static_cast<std::uint32_t>(x.shape.rank() - 1);
    const std::vector<float> min =
        fold_along(x, axis, kInf, [](float a, float b) { return b < a ? b : a; });
    const std::vector<std::int64_t> at = indices(BackendOp::argmin, OpKind::argmin, x, axis);
    const std::size_t n = x.shape.dims[axis];
    for (std::size_t i = 0; i < at.size(); ++i)
      EXPECT_EQ(x.floats()[i * n + static_cast<std::size_t>(at[i])], min[i]);
  }
}
TEST(reference_argmin_forward_tests, shape_guard) {
  const Tensor& x = two_by_three();
  EXPECT_EQ(guard_message(handler(BackendOp::argmin), reduced_axis_node(OpKind::argmin, x.shape, 1),
                          {x, x}),
            "2 inputs given; argmin takes 1");
}
TEST(reference_argmin_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::argmin).vjp, nullptr);
  EXPECT_FALSE(backend::requires_vjp(BackendOp::argmin));
}

TEST(ReferenceReductionHandlers, RowsNameTheirForward) {
  ASSERT_EQ(reduction_handlers().size(), 10U);
  for (const ReferenceHandler& row : reduction_handlers()) {
    EXPECT_EQ(row.handler.symbol, "nnplan::runtime::reference::" +
                                      std::string(backend::to_string(row.op)) + "_forward");
    EXPECT_FALSE(row.handler.in_place_safe);
    EXPECT_EQ(row.handler.vjp != nullptr, backend::requires_vjp(row.op));
    EXPECT_EQ(row.handler.forward_tests.source, "tests/runtime/reference/reduction_test.cpp");
  }
}

// ---- top_k ----

ir::Node top_k_node(const ir::Shape& in, std::uint32_t axis, ir::Dim k, bool largest = true) {
  ir::Shape out = in;
  out.dims[axis] = k;
  return {.id = 1,
          .kind = OpKind::top_k,
          .parents = {0},
          .shape = out,
          .params = ir::TopKParams{.axis = axis, .largest = largest},
          .dtype = ir::DType::int64};
}

// Runs top_k's guards and kernel into int64 indices; the guard's message on refusal.
Expected<std::vector<std::int64_t>> top_k(const ir::Node& node, const Tensor& x,
                                          DType out_dtype = DType::int64) {
  const HandlerDefinition& h = handler(BackendOp::top_k);
  const TensorRef in[] = {view(x)};
  Tensor out = zeros(node.shape, out_dtype);
  const KernelCall call{.node = node, .inputs = in, .weights = {}, .output = mutable_view(out)};
  if (auto ok = h.shape_guard(call); !ok) return std::unexpected(ok.error());
  if (auto ok = h.layout_guard(call); !ok) return std::unexpected(ok.error());
  h.forward(call);
  return out.ints();
}

// The guard's message, or "accepted".
std::string top_k_refusal(const ir::Node& node, const Tensor& x, DType out_dtype = DType::int64) {
  const auto r = top_k(node, x, out_dtype);
  return r.has_value() ? std::string("accepted") : r.error().message;
}

TEST(reference_top_k_forward_tests, hand_cases) {
  const Tensor x = tensor({2, 4}, {1.0F, 5.0F, 3.0F, 5.0F, -1.0F, -7.0F, 0.0F, 2.0F});
  // Largest first; equal values by increasing index.
  EXPECT_EQ(*top_k(top_k_node(x.shape, 1, 3), x), (std::vector<std::int64_t>{1, 3, 2, 3, 2, 0}));
  EXPECT_EQ(*top_k(top_k_node(x.shape, 1, 2, false), x), (std::vector<std::int64_t>{0, 2, 1, 0}));
  EXPECT_EQ(*top_k(top_k_node(x.shape, 0, 1), x), (std::vector<std::int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(*top_k(top_k_node(x.shape, 0, 2, false), x),
            (std::vector<std::int64_t>{1, 1, 1, 1, 0, 0, 0, 0}));
  EXPECT_TRUE(top_k(top_k_node(x.shape, 1, 0), x)->empty());
  // NaN ranks above every number (first when largest, last when smallest); -0 equals 0; -inf
  // and inf are numbers.
  const Tensor n = tensor({6}, {2.0F, kNaN, -kInf, -0.0F, kInf, 0.0F});
  EXPECT_EQ(*top_k(top_k_node(n.shape, 0, 6), n), (std::vector<std::int64_t>{1, 4, 0, 3, 5, 2}));
  EXPECT_EQ(*top_k(top_k_node(n.shape, 0, 6, false), n),
            (std::vector<std::int64_t>{2, 3, 5, 0, 4, 1}));
  const Tensor nans = tensor({3}, {kNaN, 1.0F, kNaN});
  EXPECT_EQ(*top_k(top_k_node(nans.shape, 0, 2), nans), (std::vector<std::int64_t>{0, 2}));
}

// Random data with repeated values along every axis of a rank-3 tensor: each line's indices
// against a stable sort of (value, index) written here, both directions, every k.
TEST(reference_top_k_forward_tests, float64_oracle) {
  Tensor x = random_tensor(shape_of({3, 5, 4}), 1901);
  for (float& v : x.floats())
    v = std::round(v * 4.0F) / 4.0F;  // ties on purpose
  for (std::uint32_t axis = 0; axis < 3; ++axis) {
    const std::size_t n = x.shape.dims[axis];
    std::size_t inner = 1;
    for (std::size_t d = axis + 1; d < 3; ++d)
      inner *= x.shape.dims[d];
    const std::size_t outer = x.size() / (n * inner);
    for (const bool largest : {true, false}) {
      for (ir::Dim k = 0; k <= n; ++k) {
        SCOPED_TRACE("axis " + std::to_string(axis) + " k " + std::to_string(k) +
                     (largest ? " largest" : " smallest"));
        const auto got = top_k(top_k_node(x.shape, axis, k, largest), x);
        ASSERT_TRUE(got.has_value()) << got.error().message;
        for (std::size_t o = 0; o < outer; ++o) {
          for (std::size_t j = 0; j < inner; ++j) {
            std::vector<std::size_t> order(n);
            for (std::size_t i = 0; i < n; ++i)
              order[i] = i;
            const auto value = [&](std::size_t i) {
              return static_cast<double>(x.floats()[(o * n + i) * inner + j]);
            };
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
              return largest ? value(a) > value(b) : value(a) < value(b);
            });
            for (std::size_t r = 0; r < k; ++r) {
              EXPECT_EQ((*got)[(o * k + r) * inner + j], static_cast<std::int64_t>(order[r]));
            }
          }
        }
      }
    }
  }
}

TEST(reference_top_k_forward_tests, shape_guard) {
  const Tensor& x = two_by_three();
  EXPECT_EQ(top_k_refusal(top_k_node(x.shape, 1, 3), x), "accepted");
  EXPECT_EQ(top_k_refusal(top_k_node(shape_of({3, 4}), 1, 2), x),
            "the output has shape [3,2]; top_k over axis 1 of [2,3] gives that shape with the axis "
            "cut to k");
  ir::Node far = top_k_node(x.shape, 1, 2);
  far.params = ir::TopKParams{.axis = 2};
  EXPECT_EQ(top_k_refusal(far, x),
            "input 0 has shape [2,3]; top_k over axis 2 needs rank at least 3");
  EXPECT_EQ(top_k_refusal(top_k_node(x.shape, 1, 2), x, DType::float32),
            "input 0 has shape [2,3]; top_k takes float32 and makes int64 indices, not float32 to "
            "float32");
  ir::Node other = top_k_node(x.shape, 1, 2);
  other.kind = OpKind::argmax;
  EXPECT_EQ(top_k_refusal(other, x), "node kind argmax does not run on the top_k kernel");
}

// Indices carry no derivative: the kernel has no VJP and the capsule's VJP mode is none.
TEST(reference_top_k_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::top_k).vjp, nullptr);
  EXPECT_FALSE(backend::requires_vjp(BackendOp::top_k));
}

// ---- cum_sum ----

ir::Node cum_sum_node(const ir::Shape& in, std::uint32_t axis, bool exclusive, bool reverse,
                      DType dtype = DType::float32) {
  return {.id = 1,
          .kind = OpKind::cum_sum,
          .parents = {0},
          .shape = in,
          .params = ir::CumSumParams{.axis = axis, .exclusive = exclusive, .reverse = reverse},
          .dtype = dtype};
}

// Runs cum_sum's guards and kernel; the guard's error on refusal.
Expected<Tensor> cum_sum(const ir::Node& node, const Tensor& x) {
  const HandlerDefinition& h = handler(BackendOp::cum_sum);
  const TensorRef in[] = {view(x)};
  Tensor out = zeros(node.shape, node.dtype);
  const KernelCall call{.node = node, .inputs = in, .weights = {}, .output = mutable_view(out)};
  if (auto ok = h.shape_guard(call); !ok) return std::unexpected(ok.error());
  if (auto ok = h.layout_guard(call); !ok) return std::unexpected(ok.error());
  h.forward(call);
  return out;
}

// The guard's message, or "accepted".
std::string cum_sum_refusal(const ir::Node& node, const Tensor& x) {
  const auto r = cum_sum(node, x);
  return r.has_value() ? std::string("accepted") : r.error().message;
}

// ONNX's own examples (inclusive, exclusive, reverse, both), along each axis.
TEST(reference_cum_sum_forward_tests, hand_cases) {
  const Tensor x = tensor({5}, {1, 2, 3, 4, 5});
  EXPECT_EQ(cum_sum(cum_sum_node(x.shape, 0, false, false), x)->floats(),
            (std::vector<float>{1, 3, 6, 10, 15}));
  EXPECT_EQ(cum_sum(cum_sum_node(x.shape, 0, true, false), x)->floats(),
            (std::vector<float>{0, 1, 3, 6, 10}));
  EXPECT_EQ(cum_sum(cum_sum_node(x.shape, 0, false, true), x)->floats(),
            (std::vector<float>{15, 14, 12, 9, 5}));
  EXPECT_EQ(cum_sum(cum_sum_node(x.shape, 0, true, true), x)->floats(),
            (std::vector<float>{14, 12, 9, 5, 0}));
  const Tensor m = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(cum_sum(cum_sum_node(m.shape, 0, false, false), m)->floats(),
            (std::vector<float>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(cum_sum(cum_sum_node(m.shape, 1, false, false), m)->floats(),
            (std::vector<float>{1, 3, 6, 4, 9, 15}));
  // NaN and inf carry forward from where they enter; -0 stays -0 when inclusive.
  const Tensor n = tensor({4}, {-0.0F, kNaN, kInf, 1});
  const Tensor y = *cum_sum(cum_sum_node(n.shape, 0, false, false), n);
  EXPECT_TRUE(std::signbit(y.floats()[0]));
  EXPECT_TRUE(std::isnan(y.floats()[1]) && std::isnan(y.floats()[3]));
  // int64 sums, wrapping past the largest value as two's complement does.
  const Tensor i = Tensor::of(shape_of({3}), std::vector<std::int64_t>{INT64_MAX, 1, -5});
  EXPECT_EQ(cum_sum(cum_sum_node(i.shape, 0, false, false, DType::int64), i)->ints(),
            (std::vector<std::int64_t>{INT64_MAX, INT64_MIN, INT64_MAX - 4}));
  EXPECT_EQ(cum_sum(cum_sum_node(i.shape, 0, true, true, DType::int64), i)->ints(),
            (std::vector<std::int64_t>{-4, -5, 0}));
}

// Every axis of a rank-3 tensor, each flag pair, against float32 running sums written here in
// the same order (bit for bit).
TEST(reference_cum_sum_forward_tests, float32_program_order) {
  const Tensor x = random_tensor(shape_of({3, 4, 5}), 1951);
  const std::size_t dims[3] = {3, 4, 5};
  for (std::uint32_t axis = 0; axis < 3; ++axis) {
    for (const bool exclusive : {false, true}) {
      for (const bool reverse : {false, true}) {
        SCOPED_TRACE("axis " + std::to_string(axis) + (exclusive ? " exclusive" : "") +
                     (reverse ? " reverse" : ""));
        const auto y = cum_sum(cum_sum_node(x.shape, axis, exclusive, reverse), x);
        ASSERT_TRUE(y.has_value()) << y.error().message;
        for (std::size_t a = 0; a < 3; ++a) {
          for (std::size_t b = 0; b < 4; ++b) {
            for (std::size_t c = 0; c < 5; ++c) {
              std::size_t at[3] = {a, b, c};
              const std::size_t k = at[axis];
              float want = 0.0F;
              bool first = true;
              for (std::size_t s = 0; s < dims[axis]; ++s) {
                const std::size_t i = reverse ? dims[axis] - 1 - s : s;
                const bool taken =
                    reverse ? (exclusive ? i > k : i >= k) : (exclusive ? i < k : i <= k);
                if (!taken) continue;
                std::size_t src[3] = {a, b, c};
                src[axis] = i;
                const float v = x.floats()[(src[0] * 4 + src[1]) * 5 + src[2]];
                want = first ? v : want + v;
                first = false;
              }
              EXPECT_EQ(y->floats()[(a * 4 + b) * 5 + c], want);
            }
          }
        }
      }
    }
  }
}

TEST(reference_cum_sum_forward_tests, shape_guard) {
  const Tensor& x = two_by_three();
  ir::Node far = cum_sum_node(x.shape, 0, false, false);
  far.params = ir::CumSumParams{.axis = 2};
  EXPECT_EQ(cum_sum_refusal(far, x),
            "input 0 has shape [2,3]; cum_sum over axis 2 needs rank at least 3");
  const Tensor b = Tensor::of(shape_of({2}), std::vector<std::uint8_t>{1, 0});
  EXPECT_EQ(cum_sum_refusal(cum_sum_node(b.shape, 0, false, false, DType::boolean), b),
            "input 0 has shape [2]; cum_sum takes float32 or int64 and makes its dtype, not bool "
            "to bool");
  EXPECT_EQ(cum_sum_refusal(cum_sum_node(shape_of({3, 2}), 0, false, false), x),
            "the output has shape [3,2]; cum_sum keeps input 0's shape, [2,3]");
}

// The VJP is the running sum of the cotangent in the other direction, checked by finite
// differences for every flag pair.
TEST(reference_cum_sum_vjp_tests, finite_differences) {
  for (const bool exclusive : {false, true}) {
    for (const bool reverse : {false, true}) {
      for (std::uint32_t axis = 0; axis < 2; ++axis) {
        EXPECT_TRUE(check_vjp(handler(BackendOp::cum_sum),
                              cum_sum_node(shape_of({3, 4}), axis, exclusive, reverse),
                              {random_tensor(shape_of({3, 4}), 1960 + axis)}))
            << exclusive << reverse << axis;
      }
    }
  }
  // By hand: inclusive forward, dx[i] = g[i] + ... + g[n-1].
  EXPECT_EQ(input_grad(handler(BackendOp::cum_sum), cum_sum_node(shape_of({3}), 0, false, false),
                       tensor({3}, {1, 2, 3}), tensor({3}, {1, 10, 100})),
            (std::vector<float>{111, 110, 100}));
}

}  // namespace
}  // namespace reduction_test
}  // namespace nnplan::runtime::reference
