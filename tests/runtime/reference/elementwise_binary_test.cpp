// The reference binary element-wise kernels (add, sub, mul, max, min) and safe_log: one table of
// cases for the five binary ops, per op the suites reference_<op>_forward_tests and
// reference_<op>_vjp_tests running the table's checks, and safe_log's own suites.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace {

using backend::BackendOp;
using ir::OpKind;
using namespace testing;

struct BinaryCase {
  BackendOp op;
  OpKind kind;
  // (a, b, f(a, b)) with f exact in float32; NaN wants NaN.
  std::vector<std::array<float, 3>> hand;
  double (*oracle)(double a, double b);
};

// Every op here is exact: the float32 result is the float64 one correctly rounded.
const std::vector<BinaryCase>& binary_cases() {
  static const std::vector<BinaryCase> cases = {
      {BackendOp::add,
       OpKind::add,
       {{{1.0F, 2.0F, 3.0F}},
        {{-1.5F, 0.25F, -1.25F}},
        {{1e8F, 1.0F, 1e8F}},
        {{kInf, -kInf, kNaN}},
        {{kNaN, 1.0F, kNaN}}},
       [](double a, double b) { return a + b; }},
      {BackendOp::sub,
       OpKind::sub,
       {{{1.0F, 2.0F, -1.0F}},
        {{-1.5F, 0.25F, -1.75F}},
        {{kInf, kInf, kNaN}},
        {{0.0F, kNaN, kNaN}}},
       [](double a, double b) { return a - b; }},
      {BackendOp::mul,
       OpKind::mul_elem,
       {{{3.0F, -2.0F, -6.0F}},
        {{0.5F, 0.5F, 0.25F}},
        {{0.0F, kInf, kNaN}},
        {{1e30F, 1e30F, kInf}}},
       [](double a, double b) { return a * b; }},
      {BackendOp::max,
       OpKind::max_elem,
       {{{1.0F, 2.0F, 2.0F}},
        {{-1.0F, -3.0F, -1.0F}},
        {{5.0F, 5.0F, 5.0F}},
        {{kNaN, 1.0F, kNaN}},
        {{1.0F, kNaN, kNaN}},
        {{-kInf, 0.0F, 0.0F}}},
       [](double a, double b) { return std::max(a, b); }},
      {BackendOp::min,
       OpKind::min_elem,
       {{{1.0F, 2.0F, 1.0F}},
        {{-1.0F, -3.0F, -3.0F}},
        {{5.0F, 5.0F, 5.0F}},
        {{kNaN, 1.0F, kNaN}},
        {{1.0F, kNaN, kNaN}},
        {{kInf, 0.0F, 0.0F}}},
       [](double a, double b) { return std::min(a, b); }},
  };
  return cases;
}

const BinaryCase& case_of(BackendOp op) {
  for (const BinaryCase& c : binary_cases()) {
    if (c.op == op) return c;
  }
  ADD_FAILURE() << "no case for " << backend::to_string(op);
  return binary_cases().front();
}

ir::Node node_of(OpKind kind, ir::Shape shape) {
  return {.id = 2, .kind = kind, .parents = {0, 1}, .shape = std::move(shape)};
}

const std::vector<ir::Shape>& shapes() {
  static const std::vector<ir::Shape> s = {shape_of({}), shape_of({13}), shape_of({3, 4, 5}),
                                           shape_of({2, 1, 3, 2})};
  return s;
}

void expect_hand_cases(BackendOp op) {
  const BinaryCase& c = case_of(op);
  std::vector<float> a;
  std::vector<float> b;
  std::vector<double> want;
  for (const auto& [x, y, z] : c.hand) {
    a.push_back(x);
    b.push_back(y);
    want.push_back(z);
  }
  const auto n = static_cast<ir::Dim>(a.size());
  const auto y =
      run_forward(handler(op), node_of(c.kind, shape_of({n})), {tensor({n}, a), tensor({n}, b)});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_TRUE(near_all(y->floats(), want, 0, 0));
}

// The float64 oracle, exactly, on seeded random inputs; a second run bit-identical; the output in
// input 0's buffer equal to the out-of-place one.
void expect_oracle(BackendOp op) {
  const BinaryCase& c = case_of(op);
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    SCOPED_TRACE(ir::to_string(shapes()[s]));
    const ir::Node node = node_of(c.kind, shapes()[s]);
    const Tensor a = random_tensor(shapes()[s], 200 + static_cast<std::uint32_t>(s), -2.0F, 2.0F);
    const Tensor b = random_tensor(shapes()[s], 300 + static_cast<std::uint32_t>(s), -2.0F, 2.0F);
    const auto y = run_forward(handler(op), node, {a, b});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    std::vector<double> want;
    for (std::size_t i = 0; i < a.floats().size(); ++i) {
      want.push_back(static_cast<float>(c.oracle(a.floats()[i], b.floats()[i])));
    }
    EXPECT_TRUE(near_all(y->floats(), want, 0, 0));

    EXPECT_TRUE(same_on_rerun(handler(op), node, {a, b}, *y));

    EXPECT_TRUE(same_in_place(handler(op), node, {a, b}, *y));
  }
}

void expect_guard_errors(BackendOp op) {
  const BinaryCase& c = case_of(op);
  const std::string spelling(ir::to_string(c.kind));
  const ir::Node node = node_of(c.kind, shape_of({2, 3}));
  const Tensor good = random_tensor(shape_of({2, 3}), 1);

  const auto arity = run_forward(handler(op), node, {good});
  ASSERT_FALSE(arity.has_value());
  EXPECT_EQ(arity.error().message, "1 inputs given; " + spelling + " takes 2");

  const auto second = run_forward(handler(op), node, {good, random_tensor(shape_of({3}), 2)});
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().message,
            "input 1 has shape [3]; " + spelling + " needs the shape of input 0, [2,3]");

  const Tensor flat = random_tensor(shape_of({6}), 3);
  const auto first = run_forward(handler(op), node, {flat, flat});
  ASSERT_FALSE(first.has_value());
  EXPECT_EQ(first.error().message,
            "input 0 has shape [6]; " + spelling + " needs the node's shape [2,3]");

  const OpKind other = c.kind == OpKind::add ? OpKind::sub : OpKind::add;
  const auto kind = run_forward(handler(op), node_of(other, shape_of({2, 3})), {good, good});
  ASSERT_FALSE(kind.has_value());
  EXPECT_EQ(kind.error().message, "node kind " + std::string(ir::to_string(other)) +
                                      " does not run on the " + spelling + " kernel");
}

// Seeded operands with b moved 0.1 away from a wherever they are within 0.02 (max and min have
// a kink at a = b).
void expect_vjp(BackendOp op) {
  const BinaryCase& c = case_of(op);
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    SCOPED_TRACE(ir::to_string(shapes()[s]));
    const Tensor a = random_tensor(shapes()[s], 400 + static_cast<std::uint32_t>(s), -2.0F, 2.0F);
    Tensor b = random_tensor(shapes()[s], 500 + static_cast<std::uint32_t>(s), -2.0F, 2.0F);
    for (std::size_t i = 0; i < b.floats().size(); ++i) {
      if (std::abs(a.floats()[i] - b.floats()[i]) < 0.02F) b.floats()[i] = a.floats()[i] + 0.1F;
    }
    EXPECT_TRUE(check_vjp(handler(op), node_of(c.kind, shapes()[s]), {a, b}));
  }
}

// Both input gradients for cotangent `g`, added onto gradients that start at `start`.
std::vector<std::vector<float>> input_grads(BackendOp op, const ir::Node& node,
                                            const std::vector<Tensor>& inputs, const Tensor& g,
                                            float start) {
  return testing::input_grads(handler(op), node, inputs, g, {}, start);
}

// The VJP on hand cases of node kind `kind`: gradients for cotangent 2, and the same again added
// onto gradients of ones.
void expect_vjp_hand(BackendOp op, OpKind kind, const Tensor& a, const Tensor& b,
                     std::vector<float> want_a, std::vector<float> want_b) {
  const ir::Node node = node_of(kind, a.shape);
  const Tensor g = tensor({static_cast<ir::Dim>(a.floats().size())},
                          std::vector<float>(a.floats().size(), 2.0F));
  EXPECT_EQ(input_grads(op, node, {a, b}, g, 0.0F),
            (std::vector<std::vector<float>>{want_a, want_b}));
  for (float& w : want_a)
    w += 1.0F;
  for (float& w : want_b)
    w += 1.0F;
  EXPECT_EQ(input_grads(op, node, {a, b}, g, 1.0F),
            (std::vector<std::vector<float>>{want_a, want_b}));
}
void expect_vjp_hand(BackendOp op, std::vector<float> a, std::vector<float> b,
                     std::vector<float> want_a, std::vector<float> want_b) {
  const auto n = static_cast<ir::Dim>(a.size());
  expect_vjp_hand(op, case_of(op).kind, tensor({n}, std::move(a)), tensor({n}, std::move(b)),
                  std::move(want_a), std::move(want_b));
}

TEST(reference_add_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::add);
}
TEST(reference_add_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::add);
}
TEST(reference_add_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::add);
}
TEST(reference_add_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::add);
}
TEST(reference_add_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::add, {1.0F, -3.0F}, {5.0F, 0.5F}, {2.0F, 2.0F}, {2.0F, 2.0F});
}

TEST(reference_sub_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::sub);
}
TEST(reference_sub_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::sub);
}
TEST(reference_sub_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::sub);
}
TEST(reference_sub_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::sub);
}
TEST(reference_sub_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::sub, {1.0F, -3.0F}, {5.0F, 0.5F}, {2.0F, 2.0F}, {-2.0F, -2.0F});
}

TEST(reference_mul_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::mul);
}
TEST(reference_mul_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::mul);
}
TEST(reference_mul_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::mul);
}
TEST(reference_mul_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::mul);
}
TEST(reference_mul_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::mul, {1.0F, -3.0F}, {5.0F, 0.5F}, {10.0F, 1.0F}, {2.0F, -6.0F});
}

TEST(reference_max_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::max);
}
TEST(reference_max_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::max);
}
TEST(reference_max_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::max);
}
TEST(reference_max_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::max);
}
// The larger operand takes the gradient; a tie and a NaN give all of it to input 0.
TEST(reference_max_vjp_tests, ties_go_to_input_0) {
  expect_vjp_hand(BackendOp::max, {1.0F, -3.0F, 4.0F, kNaN, 1.0F}, {5.0F, -4.0F, 4.0F, 1.0F, kNaN},
                  {0.0F, 2.0F, 2.0F, 2.0F, 2.0F}, {2.0F, 0.0F, 0.0F, 0.0F, 0.0F});
}

TEST(reference_min_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::min);
}
TEST(reference_min_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::min);
}
TEST(reference_min_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::min);
}
TEST(reference_min_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::min);
}
// The smaller operand takes the gradient; a tie and a NaN give all of it to input 0.
TEST(reference_min_vjp_tests, ties_go_to_input_0) {
  expect_vjp_hand(BackendOp::min, {1.0F, -3.0F, 4.0F, kNaN, 1.0F}, {5.0F, -4.0F, 4.0F, 1.0F, kNaN},
                  {2.0F, 0.0F, 2.0F, 2.0F, 2.0F}, {0.0F, 2.0F, 0.0F, 0.0F, 0.0F});
}

ir::Node safe_log_node(ir::Shape shape) {
  return node_of(OpKind::safe_log, std::move(shape));
}

TEST(reference_safe_log_forward_tests, hand_cases) {
  // eps = 1: log(max(x, 1)); x at eps, below it and negative give log(1) = 0; NaN stays NaN.
  const auto y =
      run_forward(handler(BackendOp::safe_log), safe_log_node(shape_of({2, 3})),
                  {tensor({2, 3}, {0.5F, 1.0F, 4.0F, -2.0F, kNaN, kInf}), tensor({}, {1.0F})});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_TRUE(near_all(y->floats(),
                       std::vector<double>{0.0, 0.0, static_cast<double>(std::log(4.0F)), 0.0,
                                           std::nan(""), std::numeric_limits<double>::infinity()},
                       0, 0));
  const auto tiny = run_forward(handler(BackendOp::safe_log), safe_log_node(shape_of({2})),
                                {tensor({2}, {0.0F, 1.0F}), tensor({}, {0.0F})});
  ASSERT_TRUE(tiny.has_value());
  EXPECT_TRUE(near_all(tiny->floats(),
                       std::vector<double>{-std::numeric_limits<double>::infinity(), 0.0}, 0, 0));
}

TEST(reference_safe_log_forward_tests, float64_oracle) {
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    SCOPED_TRACE(ir::to_string(shapes()[s]));
    const ir::Node node = safe_log_node(shapes()[s]);
    const Tensor x = random_tensor(shapes()[s], 600 + static_cast<std::uint32_t>(s), -0.5F, 3.0F);
    const Tensor eps = tensor({}, {0.25F});
    const auto y = run_forward(handler(BackendOp::safe_log), node, {x, eps});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    std::vector<double> want;
    for (float v : x.floats())
      want.push_back(std::log(std::max<double>(v, 0.25)));
    EXPECT_TRUE(near_all(y->floats(), want, 5e-7, 0));

    EXPECT_TRUE(same_on_rerun(handler(BackendOp::safe_log), node, {x, eps}, *y));

    EXPECT_TRUE(same_in_place(handler(BackendOp::safe_log), node, {x, eps}, *y));
  }
}

TEST(reference_safe_log_forward_tests, shape_guard) {
  const HandlerDefinition& h = handler(BackendOp::safe_log);
  const ir::Node node = safe_log_node(shape_of({2, 3}));
  const Tensor x = random_tensor(shape_of({2, 3}), 1, 0.5F, 1.0F);

  const auto arity = run_forward(h, node, {x});
  ASSERT_FALSE(arity.has_value());
  EXPECT_EQ(arity.error().message, "1 inputs given; safe_log takes 2");

  const auto eps = run_forward(h, node, {x, tensor({1}, {0.1F})});
  ASSERT_FALSE(eps.has_value());
  EXPECT_EQ(eps.error().message,
            "input 1 has shape [1]; safe_log needs a scalar epsilon (shape [])");

  const auto first = run_forward(h, node, {random_tensor(shape_of({3, 2}), 2), tensor({}, {0.1F})});
  ASSERT_FALSE(first.has_value());
  EXPECT_EQ(first.error().message,
            "input 0 has shape [3,2]; safe_log needs the node's shape [2,3]");

  const auto kind = run_forward(h, node_of(OpKind::add, shape_of({2, 3})), {x, x});
  ASSERT_FALSE(kind.has_value());
  EXPECT_EQ(kind.error().message, "node kind add does not run on the safe_log kernel");
}

// x on both sides of eps, kept 0.02 away from it (the kink).
TEST(reference_safe_log_vjp_tests, finite_differences) {
  for (float eps_value : {0.25F, 1.0F}) {
    for (std::size_t s = 0; s < shapes().size(); ++s) {
      SCOPED_TRACE(ir::to_string(shapes()[s]));
      Tensor x = random_tensor(shapes()[s], 700 + static_cast<std::uint32_t>(s), -0.5F, 3.0F);
      for (float& v : x.floats()) {
        if (std::abs(v - eps_value) < 0.02F) v = eps_value + 0.1F;
      }
      EXPECT_TRUE(check_vjp(handler(BackendOp::safe_log), safe_log_node(shapes()[s]),
                            {x, tensor({}, {eps_value})}));
    }
  }
}

// d/dx = g / x above eps, else 0; d/deps sums g / eps over x <= eps (here x = 0.5, 1 and -3 with
// eps = 1 and g = 2: 2 + 2 + 2).
TEST(reference_safe_log_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::safe_log, OpKind::safe_log, tensor({4}, {0.5F, 1.0F, 4.0F, -3.0F}),
                  tensor({}, {1.0F}), {0.0F, 0.0F, 0.5F, 0.0F}, {6.0F});
}

// pow: std::pow in float32, within one unit in the last place of the float64 power (C's powf is
// not always correctly rounded), NaN and infinities as C defines them.
TEST(reference_pow_forward_tests, hand_cases) {
  const auto y = run_forward(handler(BackendOp::pow), node_of(OpKind::pow, shape_of({7})),
                             {tensor({7}, {2.0F, 9.0F, -2.0F, -2.0F, kNaN, 1.0F, 0.0F}),
                              tensor({7}, {10.0F, 0.5F, 3.0F, 0.5F, 0.0F, kNaN, -1.0F})});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats()[0], 1024.0F);
  EXPECT_EQ(y->floats()[1], 3.0F);
  EXPECT_EQ(y->floats()[2], -8.0F);
  EXPECT_TRUE(std::isnan(y->floats()[3]));  // a negative base, a non-integer exponent
  EXPECT_EQ(y->floats()[4], 1.0F);          // pow(NaN, 0) is 1
  EXPECT_EQ(y->floats()[5], 1.0F);          // pow(1, NaN) is 1
  EXPECT_EQ(y->floats()[6], kInf);
}
TEST(reference_pow_forward_tests, float64_oracle) {
  const Tensor a = random_tensor(shape_of({3, 4, 5}), 601, 0.1F, 3.0F);
  const Tensor b = random_tensor(shape_of({3, 4, 5}), 602, -3.0F, 3.0F);
  const ir::Node node = node_of(OpKind::pow, a.shape);
  const auto y = run_forward(handler(BackendOp::pow), node, {a, b});
  ASSERT_TRUE(y.has_value());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double want = std::pow(static_cast<double>(a.floats()[i]), b.floats()[i]);
    EXPECT_NEAR(y->floats()[i], want, std::abs(want) * 1.2e-7) << i;
  }
  EXPECT_TRUE(same_on_rerun(handler(BackendOp::pow), node, {a, b}, *y));
  EXPECT_TRUE(same_in_place(handler(BackendOp::pow), node, {a, b}, *y));
}
TEST(reference_pow_forward_tests, shape_guard) {
  const Tensor good = random_tensor(shape_of({2, 3}), 1);
  const auto second = run_forward(handler(BackendOp::pow), node_of(OpKind::pow, shape_of({2, 3})),
                                  {good, random_tensor(shape_of({3}), 2)});
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().message, "input 1 has shape [3]; pow needs the shape of input 0, [2,3]");
}
TEST(reference_pow_vjp_tests, finite_differences) {
  const Tensor a = random_tensor(shape_of({13}), 611, 0.5F, 2.0F);
  const Tensor b = random_tensor(shape_of({13}), 612, -2.0F, 2.0F);
  EXPECT_TRUE(check_vjp(handler(BackendOp::pow), node_of(OpKind::pow, a.shape), {a, b}));
}
// At a zero base the exponent's gradient is 0 (PyTorch's rule), the base's b * 0^(b-1).
TEST(reference_pow_vjp_tests, zero_base) {
  expect_vjp_hand(BackendOp::pow, OpKind::pow, tensor({2}, {0.0F, 2.0F}), tensor({2}, {2.0F, 3.0F}),
                  {0.0F, 24.0F}, {0.0F, 2.0F * 8.0F * std::log(2.0F)});
}

TEST(ReferenceBinaryHandlers, EveryRowNamesItsForwardAndRunsInPlace) {
  expect_in_place_rows(elementwise_binary_handlers(),
                       "tests/runtime/reference/elementwise_binary_test.cpp", 7U);
}

}  // namespace
}  // namespace nnplan::runtime::reference
