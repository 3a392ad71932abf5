// The reference softmax kernels: softmax and log_softmax along any axis, and hard_masked_softmax
// with its mask broadcast over the leading axes (fully blocked rows too): hand-computed cases,
// float64 oracles, the shape guards' messages, and finite-difference checks of the VJPs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace {

using namespace testing;

const HandlerDefinition& softmax() {
  return handler_for(softmax_handlers(), backend::BackendOp::softmax);
}
const HandlerDefinition& log_softmax() {
  return handler_for(softmax_handlers(), backend::BackendOp::log_softmax);
}
const HandlerDefinition& masked_softmax() {
  return handler_for(softmax_handlers(), backend::BackendOp::hard_masked_softmax);
}

ir::Node softmax_axis_node(ir::OpKind kind, const ir::Shape& in, std::uint32_t axis) {
  return {.id = 1, .kind = kind, .parents = {0}, .shape = in, .params = ir::AxisParams{.axis = axis}};
}

// Softmax (or log_softmax) in float64 along `axis`: each slice's elements are found by their
// coordinates, the maximum subtracted before exp.
std::vector<double> oracle_softmax(const Tensor& x, std::size_t axis, bool log) {
  std::size_t inner = 1;
  for (std::size_t i = axis + 1; i < x.shape.rank(); ++i) inner *= x.shape.dims[i];
  const std::size_t len = x.shape.dims[axis];
  std::vector<double> y(x.floats().size());
  for (std::size_t e = 0; e < y.size(); ++e) {
    const std::size_t k0 = (e / inner) % len;
    const std::size_t first = e - k0 * inner;
    double m = -std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < len; ++k)
      m = std::max(m, double(x.floats()[first + k * inner]));
    double s = 0;
    for (std::size_t k = 0; k < len; ++k)
      s += std::exp(x.floats()[first + k * inner] - m);
    y[e] = log ? (x.floats()[e] - m) - std::log(s) : std::exp(x.floats()[e] - m) / s;
  }
  return y;
}

// The exact VJP of softmax (or log_softmax) along `axis` in float64, from the oracle's output:
// y * (g - sum(g * y)), or g - softmax * sum(g).
std::vector<double> oracle_softmax_vjp(const Tensor& x, std::size_t axis, bool log,
                                       const Tensor& g) {
  const std::vector<double> y = oracle_softmax(x, axis, false);
  std::size_t inner = 1;
  for (std::size_t i = axis + 1; i < x.shape.rank(); ++i) inner *= x.shape.dims[i];
  const std::size_t len = x.shape.dims[axis];
  std::vector<double> dx(y.size());
  for (std::size_t e = 0; e < y.size(); ++e) {
    const std::size_t first = e - ((e / inner) % len) * inner;
    double gy = 0, gs = 0;
    for (std::size_t k = 0; k < len; ++k) {
      gy += g.floats()[first + k * inner] * y[first + k * inner];
      gs += g.floats()[first + k * inner];
    }
    dx[e] = log ? g.floats()[e] - y[e] * gs : y[e] * (g.floats()[e] - gy);
  }
  return dx;
}

const std::vector<std::pair<ir::Shape, std::uint32_t>>& axis_cases() {
  static const std::vector<std::pair<ir::Shape, std::uint32_t>> cases = {
      {shape_of({2, 3, 4}), 2}, {shape_of({2, 3, 4}), 1}, {shape_of({2, 3, 4}), 0},
      {shape_of({7}), 0},       {shape_of({3, 1, 4}), 1}, {shape_of({2, 5, 2, 3}), 1},
  };
  return cases;
}

// ---- softmax ----

TEST(reference_softmax_forward_tests, HandComputed) {
  const Tensor x = tensor({2, 2}, {0, 5, 0, 5});
  auto last = run_forward(softmax(), softmax_axis_node(ir::OpKind::softmax, x.shape, 0), {x});
  ASSERT_TRUE(last.has_value()) << last.error().message;
  EXPECT_EQ(last->floats(), (std::vector<float>{0.5F, 0.5F, 0.5F, 0.5F}));
  const Tensor y = tensor({1, 2}, {0, std::log(3.0F)});
  auto r = run_forward(softmax(), softmax_axis_node(ir::OpKind::softmax, y.shape, 1), {y});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(near_all(r->floats(), std::vector<double>{0.25, 0.75}, 1e-6, 0));
}

TEST(reference_softmax_forward_tests, MatchesFloat64OracleOnEveryAxis) {
  std::uint32_t seed = 1;
  for (const auto& [shape, axis] : axis_cases()) {
    const Tensor x = random_tensor(shape, seed++, -4.0F, 4.0F);
    auto y = run_forward(softmax(), softmax_axis_node(ir::OpKind::softmax, shape, axis), {x});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(near_all(y->floats(), oracle_softmax(x, axis, false), 1e-5, 1e-7))
        << ir::to_string(shape) << " axis " << axis;
  }
}

TEST(reference_softmax_forward_tests, SecondRunIsBitIdentical) {
  const Tensor x = random_tensor(shape_of({2, 5, 2, 3}), 2);
  const ir::Node node = softmax_axis_node(ir::OpKind::softmax, x.shape, 1);
  EXPECT_TRUE(deterministic(softmax(), node, {x}));
}

TEST(reference_softmax_forward_tests, ShapeGuardMessages) {
  const Tensor x = random_tensor(shape_of({2, 3}), 1);
  EXPECT_EQ(guard_message(softmax(), softmax_axis_node(ir::OpKind::log_softmax, x.shape, 1), {x}),
            "node kind log_softmax is not softmax");
  EXPECT_EQ(guard_message(softmax(), softmax_axis_node(ir::OpKind::softmax, x.shape, 2), {x}),
            "input 0 has shape [2,3]; softmax along axis 2 needs rank at least 3");
  EXPECT_EQ(
      guard_message(softmax(), softmax_axis_node(ir::OpKind::softmax, shape_of({3, 2}), 1), {x}),
      "input 0 has shape [2,3]; softmax keeps the shape, the node declares [3,2]");
  EXPECT_EQ(guard_message(softmax(), softmax_axis_node(ir::OpKind::softmax, x.shape, 1), {x, x}),
            "2 inputs given; softmax takes 1");
}

TEST(reference_softmax_vjp_tests, MatchesFiniteDifferencesOnEveryAxis) {
  std::uint32_t seed = 20;
  for (const auto& [shape, axis] : axis_cases()) {
    EXPECT_TRUE(check_vjp(softmax(), softmax_axis_node(ir::OpKind::softmax, shape, axis),
                          {random_tensor(shape, seed++, -2.0F, 2.0F)}))
        << ir::to_string(shape) << " axis " << axis;
  }
}

TEST(reference_softmax_vjp_tests, MatchesTheExactVjp) {
  std::uint32_t seed = 30;
  for (const auto& [shape, axis] : axis_cases()) {
    const Tensor x = random_tensor(shape, seed++, -2.0F, 2.0F);
    const Tensor g = random_tensor(shape, seed++);
    EXPECT_TRUE(
        near_all(input_grad(softmax(), softmax_axis_node(ir::OpKind::softmax, shape, axis), x, g),
                 oracle_softmax_vjp(x, axis, false, g), 1e-5, 1e-6))
        << ir::to_string(shape) << " axis " << axis;
  }
}

// ---- log_softmax ----

TEST(reference_log_softmax_forward_tests, HandComputed) {
  const Tensor x = tensor({2, 2}, {3, 1, 3, 1});
  auto y = run_forward(log_softmax(), softmax_axis_node(ir::OpKind::log_softmax, x.shape, 0), {x});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  const float l2 = -std::log(2.0F);
  EXPECT_EQ(y->floats(), (std::vector<float>{l2, l2, l2, l2}));
  const Tensor z = tensor({3}, {0, 0, std::log(2.0F)});
  auto w = run_forward(log_softmax(), softmax_axis_node(ir::OpKind::log_softmax, z.shape, 0), {z});
  ASSERT_TRUE(w.has_value()) << w.error().message;
  EXPECT_TRUE(near_all(
      w->floats(), std::vector<double>{std::log(0.25), std::log(0.25), std::log(0.5)}, 1e-6, 0));
}

TEST(reference_log_softmax_forward_tests, MatchesFloat64OracleOnEveryAxis) {
  std::uint32_t seed = 40;
  for (const auto& [shape, axis] : axis_cases()) {
    const Tensor x = random_tensor(shape, seed++, -4.0F, 4.0F);
    auto y =
        run_forward(log_softmax(), softmax_axis_node(ir::OpKind::log_softmax, shape, axis), {x});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(near_all(y->floats(), oracle_softmax(x, axis, true), 1e-5, 1e-6))
        << ir::to_string(shape) << " axis " << axis;
  }
}

TEST(reference_log_softmax_forward_tests, SecondRunIsBitIdentical) {
  const Tensor x = random_tensor(shape_of({2, 5, 2, 3}), 3);
  const ir::Node node = softmax_axis_node(ir::OpKind::log_softmax, x.shape, 2);
  EXPECT_TRUE(deterministic(log_softmax(), node, {x}));
}

TEST(reference_log_softmax_forward_tests, ShapeGuardMessages) {
  const Tensor x = random_tensor(shape_of({4}), 1);
  EXPECT_EQ(guard_message(log_softmax(), softmax_axis_node(ir::OpKind::softmax, x.shape, 0), {x}),
            "node kind softmax is not log_softmax");
  EXPECT_EQ(
      guard_message(log_softmax(), softmax_axis_node(ir::OpKind::log_softmax, x.shape, 1), {x}),
      "input 0 has shape [4]; log_softmax along axis 1 needs rank at least 2");
  EXPECT_EQ(guard_message(log_softmax(),
                          softmax_axis_node(ir::OpKind::log_softmax, shape_of({2, 2}), 0), {x}),
            "input 0 has shape [4]; log_softmax keeps the shape, the node declares [2,2]");
}

TEST(reference_log_softmax_vjp_tests, MatchesFiniteDifferencesOnEveryAxis) {
  std::uint32_t seed = 60;
  for (const auto& [shape, axis] : axis_cases()) {
    EXPECT_TRUE(check_vjp(log_softmax(), softmax_axis_node(ir::OpKind::log_softmax, shape, axis),
                          {random_tensor(shape, seed++, -2.0F, 2.0F)}))
        << ir::to_string(shape) << " axis " << axis;
  }
}

TEST(reference_log_softmax_vjp_tests, MatchesTheExactVjp) {
  std::uint32_t seed = 50;
  for (const auto& [shape, axis] : axis_cases()) {
    const Tensor x = random_tensor(shape, seed++, -2.0F, 2.0F);
    const Tensor g = random_tensor(shape, seed++);
    EXPECT_TRUE(near_all(
        input_grad(log_softmax(), softmax_axis_node(ir::OpKind::log_softmax, shape, axis), x, g),
        oracle_softmax_vjp(x, axis, true, g), 1e-5, 1e-6))
        << ir::to_string(shape) << " axis " << axis;
  }
}

// ---- hard_masked_softmax ----

ir::Node masked_node(const ir::Shape& in, const ir::Shape& mask, std::vector<bool> allowed) {
  return {.id = 1,
          .kind = ir::OpKind::hard_masked_softmax,
          .parents = {0},
          .shape = in,
          .params = ir::MaskParams{.shape = mask, .allowed = std::move(allowed)}};
}

// A seeded mask with roughly a third of the positions forbidden.
std::vector<bool> random_mask(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<bool> allowed(n);
  for (std::size_t i = 0; i < n; ++i) allowed[i] = gen() % 3 != 0;
  return allowed;
}

// The masked softmax in float64: the mask element of input element e is e modulo the mask's
// size; a row with nothing allowed is all zeros.
std::vector<double> oracle_masked(const Tensor& x, const ir::MaskParams& p) {
  const std::size_t n = x.shape.dims.back();
  const std::size_t mask_size = p.allowed.size();
  std::vector<double> y(x.floats().size(), 0.0);
  for (std::size_t row = 0; row * n < y.size(); ++row) {
    double m = -std::numeric_limits<double>::infinity();
    bool any = false;
    for (std::size_t k = 0; k < n; ++k) {
      if (p.allowed[(row * n + k) % mask_size]) {
        m = std::max(m, double(x.floats()[row * n + k]));
        any = true;
      }
    }
    if (!any) continue;
    double s = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (p.allowed[(row * n + k) % mask_size]) s += std::exp(x.floats()[row * n + k] - m);
    }
    for (std::size_t k = 0; k < n; ++k) {
      if (p.allowed[(row * n + k) % mask_size])
        y[row * n + k] = std::exp(x.floats()[row * n + k] - m) / s;
    }
  }
  return y;
}

struct MaskCase {
  ir::Shape in;
  ir::Shape mask;
  std::vector<bool> allowed;
};

std::vector<MaskCase> mask_cases() {
  std::vector<bool> blocked = random_mask(12, 3);
  for (std::size_t k = 4; k < 8; ++k) blocked[k] = false;  // mask row 1 fully blocked
  return {
      {shape_of({2, 3, 4}), shape_of({4}), {true, false, true, true}},
      {shape_of({2, 3, 4}), shape_of({3, 4}), blocked},
      {shape_of({5, 6}), shape_of({5, 6}), random_mask(30, 4)},
      {shape_of({2, 2, 3, 5}), shape_of({3, 5}), random_mask(15, 5)},
      {shape_of({7}), shape_of({7}), random_mask(7, 6)},
  };
}

TEST(reference_hard_masked_softmax_forward_tests, HandComputed) {
  const Tensor x = tensor({2, 3}, {0, 100, 0, 1, 2, 3});
  auto y = run_forward(masked_softmax(), masked_node(x.shape, shape_of({3}), {true, false, true}),
                       {x});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats()[0], 0.5F);
  EXPECT_EQ(y->floats()[1], 0.0F);
  EXPECT_EQ(y->floats()[2], 0.5F);
  EXPECT_EQ(y->floats()[4], 0.0F);
  EXPECT_TRUE(near_all({y->floats().data() + 3, 3},
                       std::vector<double>{1 / (1 + std::exp(2.0)), 0, 1 / (1 + std::exp(-2.0))},
                       1e-6, 0));
}

TEST(reference_hard_masked_softmax_forward_tests, FullyBlockedRowIsZeros) {
  const Tensor x = tensor({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto y = run_forward(masked_softmax(),
                       masked_node(x.shape, shape_of({2, 2}), {false, false, true, true}), {x});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats()[0], 0.0F);
  EXPECT_EQ(y->floats()[1], 0.0F);
  EXPECT_EQ(y->floats()[4], 0.0F);
  EXPECT_EQ(y->floats()[5], 0.0F);
  EXPECT_TRUE(
      near_all(y->floats(),
               oracle_masked(x, {.shape = shape_of({2, 2}), .allowed = {false, false, true, true}}),
               1e-6, 0));
}

TEST(reference_hard_masked_softmax_forward_tests, MatchesFloat64OracleWithBroadcastMasks) {
  std::uint32_t seed = 70;
  for (const MaskCase& c : mask_cases()) {
    const Tensor x = random_tensor(c.in, seed++, -4.0F, 4.0F);
    const ir::Node node = masked_node(c.in, c.mask, c.allowed);
    auto y = run_forward(masked_softmax(), node, {x});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    const std::vector<double> want = oracle_masked(x, std::get<ir::MaskParams>(node.params));
    EXPECT_TRUE(near_all(y->floats(), want, 1e-5, 1e-7)) << ir::to_string(c.in);
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (want[i] == 0.0) {
        EXPECT_EQ(y->floats()[i], 0.0F) << "element " << i;
      }
    }
  }
}

TEST(reference_hard_masked_softmax_forward_tests, SecondRunIsBitIdentical) {
  const MaskCase c = mask_cases()[3];
  const Tensor x = random_tensor(c.in, 4);
  const ir::Node node = masked_node(c.in, c.mask, c.allowed);
  EXPECT_TRUE(deterministic(masked_softmax(), node, {x}));
}

TEST(reference_hard_masked_softmax_forward_tests, ShapeGuardMessages) {
  const Tensor x = random_tensor(shape_of({2, 3}), 1);
  ir::Node wrong_kind = masked_node(x.shape, shape_of({3}), {true, true, true});
  wrong_kind.kind = ir::OpKind::softmax;
  EXPECT_EQ(guard_message(masked_softmax(), wrong_kind, {x}),
            "node kind softmax is not hard_masked_softmax");
  EXPECT_EQ(guard_message(masked_softmax(), masked_node(x.shape, shape_of({4}), {}), {x}),
            "input 0 has shape [2,3]; hard_masked_softmax needs its trailing axes to be the "
            "mask's shape [4]");
  EXPECT_EQ(guard_message(masked_softmax(), masked_node(x.shape, shape_of({1, 2, 3}), {}), {x}),
            "input 0 has shape [2,3]; hard_masked_softmax needs its trailing axes to be the "
            "mask's shape [1,2,3]");
  EXPECT_EQ(
      guard_message(masked_softmax(), masked_node(x.shape, shape_of({3}), {true, false}), {x}),
      "the mask of shape [3] holds 2 flags; hard_masked_softmax needs 3");
  EXPECT_EQ(guard_message(masked_softmax(),
                          masked_node(shape_of({3, 2}), shape_of({3}), {true, true, true}), {x}),
            "input 0 has shape [2,3]; hard_masked_softmax keeps the shape, the node declares "
            "[3,2]");
}

TEST(reference_hard_masked_softmax_vjp_tests, ForbiddenPositionsGetNoGradient) {
  const Tensor x = tensor({2, 3}, {0.5F, -1, 2, 1, 0, 3});
  const ir::Node node = masked_node(x.shape, shape_of({2, 3}), {true, false, true, false, false, false});
  auto y = run_forward(masked_softmax(), node, {x});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  const Tensor g = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  const std::vector<float> dx = input_grad(masked_softmax(), node, x, g);
  EXPECT_EQ(dx[1], 0.0F);
  for (std::size_t i = 3; i < 6; ++i) EXPECT_EQ(dx[i], 0.0F);
  // Allowed: dx = y * (g - (g . y)), with y0 + y2 = 1 the two are opposite.
  const double y0 = y->floats()[0];
  const double y2 = y->floats()[2];
  const double dot = 1 * y0 + 3 * y2;
  EXPECT_NEAR(dx[0], y0 * (1 - dot), 1e-6);
  EXPECT_NEAR(dx[2], y2 * (3 - dot), 1e-6);
  EXPECT_LT(dx[0], 0.0F);
}

TEST(reference_hard_masked_softmax_vjp_tests, MatchesFiniteDifferences) {
  std::uint32_t seed = 90;
  for (const MaskCase& c : mask_cases()) {
    EXPECT_TRUE(check_vjp(masked_softmax(), masked_node(c.in, c.mask, c.allowed),
                          {random_tensor(c.in, seed++, -2.0F, 2.0F)}))
        << ir::to_string(c.in);
  }
}

}  // namespace
}  // namespace nnplan::runtime::reference
