// The reference unary element-wise kernels (abs ... softsign, floor ... atanh, erf, hard_sigmoid,
// hard_swish, silu): one table of
// cases (the op, its node parameters, hand-computed values, a float64 oracle and its input domain),
// and per op the suites reference_<op>_forward_tests and reference_<op>_vjp_tests running the
// table's checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
// A namespace of this file's own: the unity build puts several test files in one translation
// unit, and their file-local helpers must not meet.
namespace elementwise_unary_test {
namespace {

using backend::BackendOp;
using ir::OpKind;
using namespace testing;

struct UnaryCase {
  std::string name;
  BackendOp op;
  OpKind kind;
  ir::OpParams params;
  // (x, f(x)) with f(x) exact in float32; NaN wants NaN.
  std::vector<std::pair<float, float>> hand;
  double (*oracle)(double x, const ir::OpParams& params);
  float lo;  // the random inputs' domain [lo, hi)
  float hi;
  // Whether the float32 result is the oracle's value correctly rounded (compared exactly), else
  // the tolerance.
  bool exact;
  double rtol;
  double atol;
  // Points the VJP check keeps its inputs away from (non-differentiable points).
  std::vector<float> kinks;
};

constexpr float kHalfPi = std::numbers::pi_v<float> / 2;
constexpr float kPi = std::numbers::pi_v<float>;

ir::OpParams gelu_params(ir::GeluApproximation a) {
  return ir::GeluParams{.approximate = a};
}
ir::OpParams clamp_params(std::optional<float> lo, std::optional<float> hi) {
  return ir::ClampParams{.min = lo, .max = hi};
}
ir::OpParams scale_params(float factor) {
  return ir::ScaleParams{.factor = factor};
}

double gelu_erf64(double x, const ir::OpParams&) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}
double gelu_tanh64(double x, const ir::OpParams&) {
  const double k = std::sqrt(2.0 / std::numbers::pi);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}
double clamp64(double x, const ir::OpParams& p) {
  const auto& c = std::get<ir::ClampParams>(p);
  if (c.min && x < *c.min) x = *c.min;
  if (c.max && x > *c.max) x = *c.max;
  return x;
}
double scale64(double x, const ir::OpParams& p) {
  return x * static_cast<double>(std::get<ir::ScaleParams>(p).factor);
}
ir::OpParams hard_sigmoid_params(float alpha, float beta) {
  return ir::HardSigmoidParams{.alpha = alpha, .beta = beta};
}
double hard_sigmoid64(double x, const ir::OpParams& p) {
  const auto& h = std::get<ir::HardSigmoidParams>(p);
  return std::clamp(double{h.alpha} * x + double{h.beta}, 0.0, 1.0);
}
double hard_swish64(double x, const ir::OpParams&) {
  return x * std::clamp(double{1.0F / 6.0F} * x + 0.5, 0.0, 1.0);
}
ir::OpParams alpha_params(float alpha) {
  return ir::AlphaParams{.alpha = alpha};
}
double alpha64(const ir::OpParams& p) {
  return static_cast<double>(std::get<ir::AlphaParams>(p).alpha);
}
double leaky_relu64(double x, const ir::OpParams& p) {
  return x < 0 ? alpha64(p) * x : x;
}
double elu64(double x, const ir::OpParams& p) {
  return x < 0 ? alpha64(p) * std::expm1(x) : x;
}

// Every unary case; an op may have several (its parameter values).
const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases = {
      {"abs",
       BackendOp::abs,
       OpKind::abs,
       {},
       {{-2.0F, 2.0F}, {0.0F, 0.0F}, {3.5F, 3.5F}, {-kInf, kInf}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::fabs(x); },
       -2.0F,
       2.0F,
       true,
       0,
       0,
       {0.0F}},
      {"sqrt",
       BackendOp::sqrt,
       OpKind::sqrt,
       {},
       {{4.0F, 2.0F}, {0.0F, 0.0F}, {2.25F, 1.5F}, {-1.0F, kNaN}, {kInf, kInf}},
       [](double x, const ir::OpParams&) { return std::sqrt(x); },
       0.05F,
       4.0F,
       true,
       0,
       0,
       {}},
      {"inv",
       BackendOp::inv,
       OpKind::inv,
       {},
       {{2.0F, 0.5F}, {-4.0F, -0.25F}, {8.0F, 0.125F}, {0.0F, kInf}, {kInf, 0.0F}},
       [](double x, const ir::OpParams&) { return 1.0 / x; },
       0.25F,
       4.0F,
       true,
       0,
       0,
       {}},
      {"relu",
       BackendOp::relu,
       OpKind::relu,
       {},
       {{-1.0F, 0.0F}, {0.0F, 0.0F}, {2.5F, 2.5F}, {-kInf, 0.0F}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return x > 0 ? x : 0.0; },
       -2.0F,
       2.0F,
       true,
       0,
       0,
       {0.0F}},
      {"tanh",
       BackendOp::tanh,
       OpKind::tanh,
       {},
       {{0.0F, 0.0F}, {20.0F, 1.0F}, {-20.0F, -1.0F}, {kInf, 1.0F}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::tanh(x); },
       -3.0F,
       3.0F,
       false,
       5e-7,
       0,
       {}},
      {"sigmoid",
       BackendOp::sigmoid,
       OpKind::sigmoid,
       {},
       {{0.0F, 0.5F}, {100.0F, 1.0F}, {-200.0F, 0.0F}, {kInf, 1.0F}, {-kInf, 0.0F}},
       [](double x, const ir::OpParams&) { return 1.0 / (1.0 + std::exp(-x)); },
       -6.0F,
       6.0F,
       false,
       5e-7,
       0,
       {}},
      {"exp",
       BackendOp::exp,
       OpKind::exp,
       {},
       {{0.0F, 1.0F}, {100.0F, kInf}, {-200.0F, 0.0F}, {-kInf, 0.0F}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::exp(x); },
       -5.0F,
       5.0F,
       false,
       5e-7,
       0,
       {}},
      {"log",
       BackendOp::log,
       OpKind::log,
       {},
       {{1.0F, 0.0F}, {0.0F, -kInf}, {-1.0F, kNaN}, {kInf, kInf}},
       [](double x, const ir::OpParams&) { return std::log(x); },
       0.05F,
       5.0F,
       false,
       5e-7,
       0,
       {}},
      {"sin",
       BackendOp::sin,
       OpKind::sin,
       {},
       {{0.0F, 0.0F}, {kInf, kNaN}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::sin(x); },
       -4.0F,
       4.0F,
       false,
       5e-7,
       0,
       {}},
      {"cos",
       BackendOp::cos,
       OpKind::cos,
       {},
       {{0.0F, 1.0F}, {kInf, kNaN}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::cos(x); },
       -4.0F,
       4.0F,
       false,
       5e-7,
       0,
       {}},
      // softplus(1000) is 1000 where the naive log(1 + exp(x)) would give inf.
      {"softplus",
       BackendOp::softplus,
       OpKind::softplus,
       {},
       {{100.0F, 100.0F}, {1000.0F, 1000.0F}, {-200.0F, 0.0F}, {kInf, kInf}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::log1p(std::exp(x)); },
       -10.0F,
       10.0F,
       false,
       5e-7,
       0,
       {}},
      // gelu's 1 + erf cancels for negative x: its absolute error is a few ulps of |x|/2.
      {"gelu_none",
       BackendOp::gelu,
       OpKind::gelu,
       gelu_params(ir::GeluApproximation::none),
       {{0.0F, 0.0F}, {10.0F, 10.0F}, {-10.0F, 0.0F}, {kInf, kInf}, {kNaN, kNaN}},
       gelu_erf64,
       -3.0F,
       3.0F,
       false,
       5e-7,
       3e-7,
       {}},
      {"gelu_tanh",
       BackendOp::gelu,
       OpKind::gelu,
       gelu_params(ir::GeluApproximation::tanh),
       {{0.0F, 0.0F}, {10.0F, 10.0F}, {-10.0F, 0.0F}, {kNaN, kNaN}},
       gelu_tanh64,
       -3.0F,
       3.0F,
       false,
       5e-7,
       3e-7,
       {}},
      {"clamp_both",
       BackendOp::clamp,
       OpKind::clamp,
       clamp_params(-1.0F, 2.0F),
       {{-3.0F, -1.0F}, {0.5F, 0.5F}, {5.0F, 2.0F}, {-1.0F, -1.0F}, {2.0F, 2.0F}, {kNaN, kNaN}},
       clamp64,
       -3.0F,
       3.0F,
       true,
       0,
       0,
       {-1.0F, 2.0F}},
      {"clamp_min",
       BackendOp::clamp,
       OpKind::clamp,
       clamp_params(0.0F, std::nullopt),
       {{-3.0F, 0.0F}, {7.0F, 7.0F}, {kInf, kInf}, {kNaN, kNaN}},
       clamp64,
       -3.0F,
       3.0F,
       true,
       0,
       0,
       {0.0F}},
      {"clamp_max",
       BackendOp::clamp,
       OpKind::clamp,
       clamp_params(std::nullopt, 1.0F),
       {{-3.0F, -3.0F}, {7.0F, 1.0F}, {-kInf, -kInf}, {kNaN, kNaN}},
       clamp64,
       -3.0F,
       3.0F,
       true,
       0,
       0,
       {1.0F}},
      {"clamp_none",
       BackendOp::clamp,
       OpKind::clamp,
       clamp_params(std::nullopt, std::nullopt),
       {{-3.0F, -3.0F}, {7.0F, 7.0F}, {kNaN, kNaN}},
       clamp64,
       -3.0F,
       3.0F,
       true,
       0,
       0,
       {}},
      // min above max: every value ends at max (ONNX Clip).
      {"clamp_crossed",
       BackendOp::clamp,
       OpKind::clamp,
       clamp_params(2.0F, 1.0F),
       {{0.0F, 1.0F}, {1.5F, 1.0F}, {5.0F, 1.0F}},
       clamp64,
       -3.0F,
       3.0F,
       true,
       0,
       0,
       {1.0F, 2.0F}},
      {"scale",
       BackendOp::scale,
       OpKind::scale,
       scale_params(2.5F),
       {{2.0F, 5.0F}, {-4.0F, -10.0F}, {0.0F, 0.0F}, {kNaN, kNaN}},
       scale64,
       -3.0F,
       3.0F,
       true,
       0,
       0,
       {}},
      // alpha * x is one rounding of the exact product: the float32 result is exact.
      {"leaky_relu",
       BackendOp::leaky_relu,
       OpKind::leaky_relu,
       alpha_params(0.01F),
       {{-2.0F, -0.02F}, {0.0F, 0.0F}, {3.5F, 3.5F}, {-kInf, -kInf}, {kNaN, kNaN}},
       leaky_relu64,
       -3.0F,
       3.0F,
       true,
       0,
       0,
       {0.0F}},
      {"leaky_relu_negative_slope",
       BackendOp::leaky_relu,
       OpKind::leaky_relu,
       alpha_params(-1.5F),
       {{-2.0F, 3.0F}, {4.0F, 4.0F}, {-kInf, kInf}},
       leaky_relu64,
       -3.0F,
       3.0F,
       true,
       0,
       0,
       {0.0F}},
      // expm1 keeps the digits of small negative inputs that exp(x) - 1 would cancel.
      {"elu",
       BackendOp::elu,
       OpKind::elu,
       alpha_params(1.0F),
       {{0.0F, 0.0F}, {2.5F, 2.5F}, {-kInf, -1.0F}, {kInf, kInf}, {kNaN, kNaN}},
       elu64,
       -6.0F,
       3.0F,
       false,
       4e-7,
       0,
       {0.0F}},
      {"elu_alpha",
       BackendOp::elu,
       OpKind::elu,
       alpha_params(0.25F),
       {{-kInf, -0.25F}, {1.0F, 1.0F}},
       elu64,
       -6.0F,
       3.0F,
       false,
       4e-7,
       0,
       {0.0F}},
      // max(0, min(1, alpha * x + beta)): alpha * x rounded, then + beta; exact at the flat ends.
      {"hard_sigmoid",
       BackendOp::hard_sigmoid,
       OpKind::hard_sigmoid,
       hard_sigmoid_params(0.2F, 0.5F),
       {{0.0F, 0.5F}, {-5.0F, 0.0F}, {10.0F, 1.0F}, {-kInf, 0.0F}, {kInf, 1.0F}, {kNaN, kNaN}},
       hard_sigmoid64,
       -4.0F,
       4.0F,
       false,
       3e-7,
       1e-7,
       {-2.5F, 2.5F}},
      {"hard_sigmoid_torch",
       BackendOp::hard_sigmoid,
       OpKind::hard_sigmoid,
       hard_sigmoid_params(1.0F / 6.0F, 0.5F),
       {{0.0F, 0.5F}, {-3.0F, 0.0F}, {3.0F, 1.0F}},
       hard_sigmoid64,
       -5.0F,
       5.0F,
       false,
       3e-7,
       1e-7,
       {-3.0F, 3.0F}},
      // x * hard_sigmoid(x) with alpha 1/6 and beta 1/2: 0 below -3, x above 3, -inf * 0 = NaN.
      {"hard_swish",
       BackendOp::hard_swish,
       OpKind::hard_swish,
       {},
       {{0.0F, 0.0F},
        {-3.0F, 0.0F},
        {3.0F, 3.0F},
        {-7.5F, 0.0F},
        {6.0F, 6.0F},
        {kInf, kInf},
        {-kInf, kNaN},
        {kNaN, kNaN}},
       hard_swish64,
       -5.0F,
       5.0F,
       false,
       3e-7,
       3e-7,
       {-3.0F, 3.0F}},
      // x * sigmoid(x): x where sigmoid rounds to 1, -0 where it underflows to 0, -inf * 0 = NaN.
      {"silu",
       BackendOp::silu,
       OpKind::silu,
       {},
       {{0.0F, 0.0F}, {100.0F, 100.0F}, {-200.0F, 0.0F}, {kInf, kInf}, {-kInf, kNaN}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return x / (1.0 + std::exp(-x)); },
       -8.0F,
       8.0F,
       false,
       8e-7,
       0,
       {}},
      // x / (1 + |x|): one rounding of 1 + |x|, then one of the division.
      {"softsign",
       BackendOp::softsign,
       OpKind::softsign,
       {},
       {{1.0F, 0.5F}, {-3.0F, -0.75F}, {0.0F, 0.0F}, {kInf, kNaN}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return x / (1.0 + std::fabs(x)); },
       -8.0F,
       8.0F,
       false,
       3e-7,
       0,
       {0.0F}},
      // Floor: the largest integer not above x.
      {"floor",
       BackendOp::floor,
       OpKind::floor,
       {},
       {{2.5F, 2.0F}, {-2.5F, -3.0F}, {3.0F, 3.0F}, {-kInf, -kInf}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::floor(x); },
       -4.0F,
       4.0F,
       true,
       0,
       0,
       {-3.0F, -2.0F, -1.0F, 0.0F, 1.0F, 2.0F, 3.0F}},
      {"ceil",
       BackendOp::ceil,
       OpKind::ceil,
       {},
       {{2.5F, 3.0F}, {-2.5F, -2.0F}, {3.0F, 3.0F}, {kInf, kInf}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::ceil(x); },
       -4.0F,
       4.0F,
       true,
       0,
       0,
       {-3.0F, -2.0F, -1.0F, 0.0F, 1.0F, 2.0F, 3.0F}},
      // Halves go to the even neighbour; the jumps are at the half-integers.
      {"round",
       BackendOp::round,
       OpKind::round,
       {},
       {{2.5F, 2.0F},
        {3.5F, 4.0F},
        {-2.5F, -2.0F},
        {0.49999997F, 0.0F},
        {1.4F, 1.0F},
        {kInf, kInf},
        {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::nearbyint(x); },
       -4.0F,
       4.0F,
       true,
       0,
       0,
       {-3.5F, -2.5F, -1.5F, -0.5F, 0.5F, 1.5F, 2.5F, 3.5F}},
      {"sign",
       BackendOp::sign,
       OpKind::sign,
       {},
       {{-3.0F, -1.0F}, {0.0F, 0.0F}, {2.5F, 1.0F}, {-kInf, -1.0F}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); },
       -4.0F,
       4.0F,
       true,
       0,
       0,
       {0.0F}},
      // Trigonometric and hyperbolic functions: the float32 libm, within 3e-7 of float64.
      {"tan",
       BackendOp::tan,
       OpKind::tan,
       {},
       {{0.0F, 0.0F}, {kInf, kNaN}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::tan(x); },
       -1.4F,
       1.4F,
       false,
       3e-7,
       0,
       {}},
      {"asin",
       BackendOp::asin,
       OpKind::asin,
       {},
       {{0.0F, 0.0F}, {1.0F, kHalfPi}, {2.0F, kNaN}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::asin(x); },
       -0.95F,
       0.95F,
       false,
       3e-7,
       0,
       {}},
      {"acos",
       BackendOp::acos,
       OpKind::acos,
       {},
       {{1.0F, 0.0F}, {-1.0F, kPi}, {-2.0F, kNaN}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::acos(x); },
       -0.95F,
       0.95F,
       false,
       3e-7,
       0,
       {}},
      {"atan",
       BackendOp::atan,
       OpKind::atan,
       {},
       {{0.0F, 0.0F}, {kInf, kHalfPi}, {-kInf, -kHalfPi}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::atan(x); },
       -4.0F,
       4.0F,
       false,
       3e-7,
       0,
       {}},
      {"sinh",
       BackendOp::sinh,
       OpKind::sinh,
       {},
       {{0.0F, 0.0F}, {100.0F, kInf}, {-kInf, -kInf}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::sinh(x); },
       -4.0F,
       4.0F,
       false,
       3e-7,
       0,
       {}},
      {"cosh",
       BackendOp::cosh,
       OpKind::cosh,
       {},
       {{0.0F, 1.0F}, {-100.0F, kInf}, {kInf, kInf}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::cosh(x); },
       -4.0F,
       4.0F,
       false,
       3e-7,
       0,
       {}},
      {"asinh",
       BackendOp::asinh,
       OpKind::asinh,
       {},
       {{0.0F, 0.0F}, {kInf, kInf}, {-kInf, -kInf}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::asinh(x); },
       -4.0F,
       4.0F,
       false,
       3e-7,
       0,
       {}},
      {"acosh",
       BackendOp::acosh,
       OpKind::acosh,
       {},
       {{1.0F, 0.0F}, {0.5F, kNaN}, {kInf, kInf}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::acosh(x); },
       1.05F,
       4.0F,
       false,
       3e-7,
       0,
       {}},
      {"atanh",
       BackendOp::atanh,
       OpKind::atanh,
       {},
       {{0.0F, 0.0F}, {1.0F, kInf}, {-1.0F, -kInf}, {2.0F, kNaN}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::atanh(x); },
       -0.95F,
       0.95F,
       false,
       3e-7,
       0,
       {}},
      {"erf",
       BackendOp::erf,
       OpKind::erf,
       {},
       {{0.0F, 0.0F}, {kInf, 1.0F}, {-kInf, -1.0F}, {kNaN, kNaN}},
       [](double x, const ir::OpParams&) { return std::erf(x); },
       -3.0F,
       3.0F,
       false,
       3e-7,
       0,
       {}},
      {"scale_negative",
       BackendOp::scale,
       OpKind::scale,
       scale_params(-0.5F),
       {{2.0F, -1.0F}, {-3.0F, 1.5F}, {kInf, -kInf}},
       scale64,
       -3.0F,
       3.0F,
       true,
       0,
       0,
       {}},
  };
  return cases;
}

std::vector<const UnaryCase*> cases_of(BackendOp op) {
  std::vector<const UnaryCase*> out;
  for (const UnaryCase& c : unary_cases()) {
    if (c.op == op) out.push_back(&c);
  }
  EXPECT_FALSE(out.empty()) << "no case for " << backend::to_string(op);
  return out;
}

ir::Node node_of(const UnaryCase& c, ir::Shape shape) {
  return {.id = 1, .kind = c.kind, .parents = {0}, .shape = std::move(shape), .params = c.params};
}

void expect_hand_cases(BackendOp op) {
  for (const UnaryCase* c : cases_of(op)) {
    SCOPED_TRACE(c->name);
    std::vector<float> xs;
    std::vector<double> want;
    for (auto [x, y] : c->hand) {
      xs.push_back(x);
      want.push_back(y);
    }
    const auto n = static_cast<ir::Dim>(xs.size());
    const auto y = run_forward(handler(op), node_of(*c, shape_of({n})), {tensor({n}, xs)});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(near_all(y->floats(), want, 0, 0));
  }
}

// The float64 oracle on seeded random inputs of several shapes, a second run bit-identical, and
// the in-place form (output in input 0's buffer) equal to the out-of-place one.
void expect_oracle(BackendOp op) {
  const std::vector<ir::Shape> shapes = {shape_of({}), shape_of({17}), shape_of({3, 4, 5}),
                                         shape_of({2, 1, 3, 2})};
  for (const UnaryCase* c : cases_of(op)) {
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      SCOPED_TRACE(c->name + " " + ir::to_string(shapes[s]));
      const ir::Node node = node_of(*c, shapes[s]);
      const Tensor x = random_tensor(shapes[s], 100 + static_cast<std::uint32_t>(s), c->lo, c->hi);
      const auto y = run_forward(handler(op), node, {x});
      ASSERT_TRUE(y.has_value()) << y.error().message;
      std::vector<double> want;
      for (float v : x.floats()) {
        const double w = c->oracle(v, c->params);
        want.push_back(c->exact ? static_cast<double>(static_cast<float>(w)) : w);
      }
      EXPECT_TRUE(near_all(y->floats(), want, c->exact ? 0 : c->rtol, c->exact ? 0 : c->atol));

      EXPECT_TRUE(same_on_rerun(handler(op), node, {x}, *y));

      EXPECT_TRUE(same_in_place(handler(op), node, {x}, *y));
    }
  }
}

void expect_guard_errors(BackendOp op) {
  const UnaryCase& c = *cases_of(op).front();
  const std::string spelling(ir::to_string(c.kind));
  const ir::Node node = node_of(c, shape_of({3, 2}));
  const Tensor good = random_tensor(shape_of({3, 2}), 1, c.lo, c.hi);

  const auto arity = run_forward(handler(op), node, {good, good});
  ASSERT_FALSE(arity.has_value());
  EXPECT_EQ(arity.error().message, "2 inputs given; " + spelling + " takes 1");

  const auto shape = run_forward(handler(op), node, {random_tensor(shape_of({2, 3}), 1)});
  ASSERT_FALSE(shape.has_value());
  EXPECT_EQ(shape.error().message,
            "input 0 has shape [2,3]; " + spelling + " needs the node's shape [3,2]");

  ir::Node other = node;
  other.kind = c.kind == OpKind::abs ? OpKind::relu : OpKind::abs;
  other.params = std::monostate{};
  const auto kind = run_forward(handler(op), other, {good});
  ASSERT_FALSE(kind.has_value());
  EXPECT_EQ(kind.error().message, "node kind " + std::string(ir::to_string(other.kind)) +
                                      " does not run on the " + spelling + " kernel");
}

// Inputs in the case's domain, each moved 0.05 up when it lies within 0.02 of a kink.
Tensor vjp_input(const UnaryCase& c, const ir::Shape& shape, std::uint32_t seed) {
  Tensor x = random_tensor(shape, seed, c.lo, c.hi);
  for (float& v : x.floats()) {
    for (float k : c.kinks) {
      if (std::abs(v - k) < 0.02F) v = k + 0.05F;
    }
  }
  return x;
}

void expect_vjp(BackendOp op) {
  for (const UnaryCase* c : cases_of(op)) {
    for (const ir::Shape& shape : {shape_of({}), shape_of({40}), shape_of({3, 4, 5})}) {
      SCOPED_TRACE(c->name + " " + ir::to_string(shape));
      EXPECT_TRUE(check_vjp(handler(op), node_of(*c, shape), {vjp_input(*c, shape, 11)}));
    }
  }
}

// The VJP at the points finite differences cannot probe (kinks, bounds), and that it adds to the
// gradient it is given rather than overwriting it.
void expect_vjp_hand(BackendOp op, ir::OpParams params, std::vector<float> xs,
                     std::vector<float> want) {
  const auto n = static_cast<ir::Dim>(xs.size());
  const ir::Node node{.id = 1,
                      .kind = cases_of(op).front()->kind,
                      .parents = {0},
                      .shape = shape_of({n}),
                      .params = std::move(params)};
  const Tensor g = tensor({n}, std::vector<float>(xs.size(), 2.0F));
  EXPECT_EQ(input_grad(handler(op), node, tensor({n}, xs), g, 0.0F), want);
  for (float& w : want)
    w += 1.0F;
  EXPECT_EQ(input_grad(handler(op), node, tensor({n}, xs), g, 1.0F), want);
}

TEST(reference_abs_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::abs);
}
TEST(reference_abs_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::abs);
}
TEST(reference_abs_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::abs);
}
TEST(reference_abs_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::abs);
}
TEST(reference_abs_vjp_tests, zero_at_zero) {
  expect_vjp_hand(BackendOp::abs, {}, {-1.0F, 0.0F, 3.0F}, {-2.0F, 0.0F, 2.0F});
}

TEST(reference_sqrt_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::sqrt);
}
TEST(reference_sqrt_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::sqrt);
}
TEST(reference_sqrt_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::sqrt);
}
TEST(reference_sqrt_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::sqrt);
}
TEST(reference_sqrt_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::sqrt, {}, {4.0F, 0.25F}, {0.5F, 2.0F});
}

TEST(reference_inv_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::inv);
}
TEST(reference_inv_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::inv);
}
TEST(reference_inv_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::inv);
}
TEST(reference_inv_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::inv);
}
TEST(reference_inv_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::inv, {}, {2.0F, -0.5F}, {-0.5F, -8.0F});
}

TEST(reference_relu_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::relu);
}
TEST(reference_relu_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::relu);
}
TEST(reference_relu_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::relu);
}
TEST(reference_relu_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::relu);
}
TEST(reference_relu_vjp_tests, zero_at_zero) {
  expect_vjp_hand(BackendOp::relu, {}, {-1.0F, 0.0F, 3.0F}, {0.0F, 0.0F, 2.0F});
}

TEST(reference_tanh_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::tanh);
}
TEST(reference_tanh_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::tanh);
}
TEST(reference_tanh_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::tanh);
}
TEST(reference_tanh_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::tanh);
}
TEST(reference_tanh_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::tanh, {}, {0.0F, 30.0F}, {2.0F, 0.0F});
}

TEST(reference_sigmoid_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::sigmoid);
}
TEST(reference_sigmoid_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::sigmoid);
}
TEST(reference_sigmoid_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::sigmoid);
}
TEST(reference_sigmoid_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::sigmoid);
}
TEST(reference_sigmoid_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::sigmoid, {}, {0.0F, -200.0F}, {0.5F, 0.0F});
}

TEST(reference_exp_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::exp);
}
TEST(reference_exp_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::exp);
}
TEST(reference_exp_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::exp);
}
TEST(reference_exp_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::exp);
}
TEST(reference_exp_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::exp, {}, {0.0F, -200.0F}, {2.0F, 0.0F});
}

TEST(reference_log_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::log);
}
TEST(reference_log_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::log);
}
TEST(reference_log_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::log);
}
TEST(reference_log_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::log);
}
TEST(reference_log_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::log, {}, {4.0F, 0.5F}, {0.5F, 4.0F});
}

TEST(reference_sin_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::sin);
}
TEST(reference_sin_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::sin);
}
TEST(reference_sin_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::sin);
}
TEST(reference_sin_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::sin);
}
TEST(reference_sin_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::sin, {}, {0.0F}, {2.0F});
}

TEST(reference_cos_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::cos);
}
TEST(reference_cos_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::cos);
}
TEST(reference_cos_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::cos);
}
TEST(reference_cos_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::cos);
}
TEST(reference_cos_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::cos, {}, {0.0F}, {0.0F});
}

TEST(reference_softplus_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::softplus);
}
TEST(reference_softplus_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::softplus);
}
TEST(reference_softplus_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::softplus);
}
TEST(reference_softplus_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::softplus);
}
TEST(reference_softplus_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::softplus, {}, {0.0F, 1000.0F, -200.0F}, {1.0F, 2.0F, 0.0F});
}

TEST(reference_gelu_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::gelu);
}
TEST(reference_gelu_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::gelu);
}
TEST(reference_gelu_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::gelu);
}
TEST(reference_gelu_forward_tests, approximations_differ) {
  const Tensor x = tensor({1}, {1.0F});
  const auto node = [](ir::GeluApproximation a) {
    return ir::Node{.id = 1,
                    .kind = OpKind::gelu,
                    .parents = {0},
                    .shape = shape_of({1}),
                    .params = gelu_params(a)};
  };
  const auto exact = run_forward(handler(BackendOp::gelu), node(ir::GeluApproximation::none), {x});
  const auto approx = run_forward(handler(BackendOp::gelu), node(ir::GeluApproximation::tanh), {x});
  ASSERT_TRUE(exact.has_value() && approx.has_value());
  // gelu(1) = 0.841345, its tanh approximation 0.841192.
  EXPECT_NEAR(exact->floats()[0], 0.8413447, 1e-6);
  EXPECT_NEAR(approx->floats()[0], 0.8411920, 1e-6);
}
TEST(reference_gelu_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::gelu);
}
TEST(reference_gelu_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::gelu, gelu_params(ir::GeluApproximation::none), {0.0F, 10.0F},
                  {1.0F, 2.0F});
  expect_vjp_hand(BackendOp::gelu, gelu_params(ir::GeluApproximation::tanh), {0.0F, 10.0F},
                  {1.0F, 2.0F});
}

TEST(reference_clamp_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::clamp);
}
TEST(reference_clamp_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::clamp);
}
TEST(reference_clamp_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::clamp);
}
TEST(reference_clamp_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::clamp);
}
// The bounds themselves pass the gradient; NaN and the clamped values get none.
TEST(reference_clamp_vjp_tests, inclusive_bounds) {
  expect_vjp_hand(BackendOp::clamp, clamp_params(-1.0F, 2.0F),
                  {-3.0F, -1.0F, 0.5F, 2.0F, 5.0F, kNaN}, {0.0F, 2.0F, 2.0F, 2.0F, 0.0F, 0.0F});
}

TEST(reference_scale_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::scale);
}
TEST(reference_scale_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::scale);
}
TEST(reference_scale_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::scale);
}
TEST(reference_scale_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::scale);
}
TEST(reference_scale_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::scale, scale_params(-0.5F), {3.0F, -7.0F}, {-1.0F, -1.0F});
}

TEST(reference_leaky_relu_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::leaky_relu);
}
TEST(reference_leaky_relu_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::leaky_relu);
}
TEST(reference_leaky_relu_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::leaky_relu);
}
TEST(reference_leaky_relu_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::leaky_relu);
}
// alpha at 0 (PyTorch's choice), 1 above, alpha below.
TEST(reference_leaky_relu_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::leaky_relu, alpha_params(0.25F), {0.0F, 3.0F, -3.0F},
                  {0.5F, 2.0F, 0.5F});
}

TEST(reference_elu_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::elu);
}
TEST(reference_elu_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::elu);
}
TEST(reference_elu_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::elu);
}
TEST(reference_elu_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::elu);
}
// alpha * exp(0) = alpha at 0, 1 above, 0 at -inf.
TEST(reference_elu_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::elu, alpha_params(0.5F), {0.0F, 3.0F, -kInf}, {1.0F, 2.0F, 0.0F});
}

TEST(reference_hard_sigmoid_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::hard_sigmoid);
}
TEST(reference_hard_sigmoid_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::hard_sigmoid);
}
TEST(reference_hard_sigmoid_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::hard_sigmoid);
}
TEST(reference_hard_sigmoid_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::hard_sigmoid);
}
// alpha inside the ramp, 0 on the flat ends and at their edges (x = -2.5 and 2.5 for 0.2, 0.5).
TEST(reference_hard_sigmoid_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::hard_sigmoid, hard_sigmoid_params(0.25F, 0.5F),
                  {0.0F, -2.0F, 2.0F, -5.0F, 5.0F, kInf}, {0.5F, 0.0F, 0.0F, 0.0F, 0.0F, 0.0F});
}

TEST(reference_hard_swish_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::hard_swish);
}
TEST(reference_hard_swish_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::hard_swish);
}
TEST(reference_hard_swish_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::hard_swish);
}
TEST(reference_hard_swish_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::hard_swish);
}
// x / 3 + 1/2 inside (-3, 3): 1/2 at 0; 0 at and below -3; 1 at and above 3 (g = 2).
TEST(reference_hard_swish_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::hard_swish, {}, {0.0F, -3.0F, -4.0F, 3.0F, 4.0F},
                  {1.0F, 0.0F, 0.0F, 2.0F, 2.0F});
}

TEST(reference_silu_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::silu);
}
TEST(reference_silu_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::silu);
}
// The same bits as the sigmoid kernel's value times x, rounded once: the two nodes the ONNX
// importer makes one silu node of.
TEST(reference_silu_forward_tests, equals_sigmoid_then_mul) {
  std::vector<float> xs;
  for (int i = -4000; i <= 4000; ++i)
    xs.push_back(static_cast<float>(i) * 0.0037F);
  const auto n = static_cast<ir::Dim>(xs.size());
  const auto run = [&](BackendOp op, OpKind kind) {
    const ir::Node node{.id = 1, .kind = kind, .parents = {0}, .shape = shape_of({n})};
    auto y = run_forward(handler(op), node, {tensor({n}, xs)});
    EXPECT_TRUE(y.has_value()) << y.error().message;
    return y.has_value() ? std::vector<float>(y->floats().begin(), y->floats().end())
                         : std::vector<float>(xs.size());
  };
  const std::vector<float> s = run(BackendOp::sigmoid, OpKind::sigmoid);
  const std::vector<float> y = run(BackendOp::silu, OpKind::silu);
  for (std::size_t i = 0; i < xs.size(); ++i)
    ASSERT_EQ(y[i], xs[i] * s[i]) << "x = " << xs[i];
}
TEST(reference_silu_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::silu);
}
TEST(reference_silu_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::silu);
}
// s + x s (1 - s) with g = 2: 1/2 at 0, 1 where sigmoid rounds to 1, 0 where it is 0.
TEST(reference_silu_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::silu, {}, {0.0F, 100.0F, -200.0F}, {1.0F, 2.0F, 0.0F});
}

TEST(reference_softsign_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::softsign);
}
TEST(reference_softsign_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::softsign);
}
TEST(reference_softsign_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::softsign);
}
TEST(reference_softsign_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::softsign);
}
// 1 / (1 + |x|)^2: 1 at 0, 1/4 at +-1, 0 at +-inf.
TEST(reference_softsign_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::softsign, {}, {0.0F, 1.0F, -1.0F, kInf}, {2.0F, 0.5F, 0.5F, 0.0F});
}

TEST(reference_floor_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::floor);
}
TEST(reference_floor_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::floor);
}
TEST(reference_floor_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::floor);
}
TEST(reference_floor_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::floor);
}
// 0 everywhere, at the integers too (PyTorch's choice).
TEST(reference_floor_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::floor, {}, {0.5F, -3.0F, 2.0F}, {0.0F, 0.0F, 0.0F});
}

TEST(reference_ceil_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::ceil);
}
TEST(reference_ceil_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::ceil);
}
TEST(reference_ceil_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::ceil);
}
TEST(reference_ceil_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::ceil);
}
// 0 everywhere, at the integers too.
TEST(reference_ceil_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::ceil, {}, {0.5F, -3.0F, 2.0F}, {0.0F, 0.0F, 0.0F});
}

TEST(reference_round_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::round);
}
TEST(reference_round_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::round);
}
TEST(reference_round_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::round);
}
TEST(reference_round_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::round);
}
// 0 everywhere, at the half-integers too.
TEST(reference_round_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::round, {}, {0.5F, -3.0F, 1.2F}, {0.0F, 0.0F, 0.0F});
}

TEST(reference_sign_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::sign);
}
TEST(reference_sign_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::sign);
}
TEST(reference_sign_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::sign);
}
TEST(reference_sign_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::sign);
}
// 0 everywhere, at 0 too.
TEST(reference_sign_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::sign, {}, {0.0F, -3.0F, 2.0F}, {0.0F, 0.0F, 0.0F});
}

TEST(reference_tan_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::tan);
}
TEST(reference_tan_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::tan);
}
TEST(reference_tan_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::tan);
}
TEST(reference_tan_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::tan);
}
// 1 + tan(x)^2: 1 at 0.
TEST(reference_tan_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::tan, {}, {0.0F}, {2.0F});
}

TEST(reference_asin_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::asin);
}
TEST(reference_asin_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::asin);
}
TEST(reference_asin_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::asin);
}
TEST(reference_asin_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::asin);
}
// 1 / sqrt(1 - x^2): 1 at 0, inf at 1.
TEST(reference_asin_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::asin, {}, {0.0F, 1.0F}, {2.0F, kInf});
}

TEST(reference_acos_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::acos);
}
TEST(reference_acos_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::acos);
}
TEST(reference_acos_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::acos);
}
TEST(reference_acos_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::acos);
}
// -1 / sqrt(1 - x^2): -1 at 0, -inf at 1.
TEST(reference_acos_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::acos, {}, {0.0F, 1.0F}, {-2.0F, -kInf});
}

TEST(reference_atan_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::atan);
}
TEST(reference_atan_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::atan);
}
TEST(reference_atan_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::atan);
}
TEST(reference_atan_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::atan);
}
// 1 / (1 + x^2): 1 at 0, 1/2 at 1, 0 at inf.
TEST(reference_atan_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::atan, {}, {0.0F, 1.0F, kInf}, {2.0F, 1.0F, 0.0F});
}

TEST(reference_sinh_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::sinh);
}
TEST(reference_sinh_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::sinh);
}
TEST(reference_sinh_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::sinh);
}
TEST(reference_sinh_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::sinh);
}
// cosh(x): 1 at 0.
TEST(reference_sinh_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::sinh, {}, {0.0F}, {2.0F});
}

TEST(reference_cosh_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::cosh);
}
TEST(reference_cosh_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::cosh);
}
TEST(reference_cosh_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::cosh);
}
TEST(reference_cosh_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::cosh);
}
// sinh(x): 0 at 0.
TEST(reference_cosh_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::cosh, {}, {0.0F}, {0.0F});
}

TEST(reference_asinh_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::asinh);
}
TEST(reference_asinh_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::asinh);
}
TEST(reference_asinh_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::asinh);
}
TEST(reference_asinh_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::asinh);
}
// 1 / sqrt(x^2 + 1): 1 at 0.
TEST(reference_asinh_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::asinh, {}, {0.0F}, {2.0F});
}

TEST(reference_acosh_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::acosh);
}
TEST(reference_acosh_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::acosh);
}
TEST(reference_acosh_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::acosh);
}
TEST(reference_acosh_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::acosh);
}
// 1 / sqrt(x^2 - 1): inf at 1, 1/0.75 at 1.25.
TEST(reference_acosh_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::acosh, {}, {1.0F, 1.25F}, {kInf, 2.0F / 0.75F});
}

TEST(reference_atanh_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::atanh);
}
TEST(reference_atanh_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::atanh);
}
TEST(reference_atanh_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::atanh);
}
TEST(reference_atanh_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::atanh);
}
// 1 / (1 - x^2): 1 at 0, 1/0.75 at 0.5, inf at 1.
TEST(reference_atanh_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::atanh, {}, {0.0F, 0.5F, 1.0F}, {2.0F, 2.0F / 0.75F, kInf});
}

TEST(reference_erf_forward_tests, hand_cases) {
  expect_hand_cases(BackendOp::erf);
}
TEST(reference_erf_forward_tests, float64_oracle) {
  expect_oracle(BackendOp::erf);
}
TEST(reference_erf_forward_tests, shape_guard) {
  expect_guard_errors(BackendOp::erf);
}
TEST(reference_erf_vjp_tests, finite_differences) {
  expect_vjp(BackendOp::erf);
}
// 2 / sqrt(pi) * exp(-x^2): 2 / sqrt(pi) at 0, 0 at inf.
TEST(reference_erf_vjp_tests, hand_cases) {
  expect_vjp_hand(BackendOp::erf, {}, {0.0F, kInf}, {2.0F * 1.1283791670955126F, 0.0F});
}

TEST(ReferenceUnaryHandlers, EveryRowNamesItsForwardAndRunsInPlace) {
  expect_in_place_rows(elementwise_unary_handlers(),
                       "tests/runtime/reference/elementwise_unary_test.cpp", 34U);
}

}  // namespace
}  // namespace elementwise_unary_test
}  // namespace nnplan::runtime::reference
