// Reference kernels: the unary element-wise ops (abs, sqrt, inv, relu, tanh, sigmoid, exp, log,
// sin, cos, softplus, gelu, clamp, scale, leaky_relu, elu, softsign, floor, ceil, round, sign, tan,
// asin, acos, atan, sinh, cosh, asinh, acosh, atanh, erf, hard_sigmoid, hard_swish, silu). Each
// output element is a float32 function of the input element at the same index, computed in index
// order, and each VJP adds g[i] * f'(x[i]) into the input gradient in index order. No reductions:
// the order of the elements changes no value.
#include <cmath>
#include <string>
#include <variant>

#include "runtime/providers/reference/elementwise_support.hpp"
#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {
namespace {

// The kind that runs on the kernel, one input of the node's shape (the output's shape, checked by
// check_arity_and_output).
Expected<void> unary_shape_guard(const KernelCall& call, ir::OpKind kind) {
  if (auto ok = check_kind(call, kind); !ok) return ok;
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  if (*call.inputs[0].shape != call.node.shape) {
    return std::unexpected(operand_error("input 0", *call.inputs[0].shape,
                                         std::string(ir::to_string(kind)) +
                                             " needs the node's shape " +
                                             ir::to_string(call.node.shape)));
  }
  return {};
}

template <ir::OpKind Kind>
Expected<void> shape_guard(const KernelCall& call) {
  return unary_shape_guard(call, Kind);
}

// y[i] = f(x[i]) for i = 0, 1, ...; x[i] is read before y[i] is written, so y may be x's buffer.
template <typename F>
void map_unary(const KernelCall& call, F f) {
  const float* x = call.inputs[0].data<float>();
  float* y = call.output.data<float>();
  const std::size_t n = call.output.size();
  for (std::size_t i = 0; i < n; ++i)
    y[i] = f(x[i]);
}

// dx[i] += d(x[i], y[i], g[i]) for i = 0, 1, ..., with y the forward output.
template <typename D>
void unary_vjp(const VjpCall& call, D d) {
  const float* x = call.inputs[0].data<float>();
  const float* y = call.output.data<float>();
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  const std::size_t n = call.output.size();
  for (std::size_t i = 0; i < n; ++i)
    dx[i] += d(x[i], y[i], g[i]);
}

float sigmoid_of(float x) {
  return 1.0F / (1.0F + std::exp(-x));
}

constexpr float kInvSqrt2 = 0.70710678118654752440F;     // 1/sqrt(2)
constexpr float kInvSqrt2Pi = 0.39894228040143267794F;   // 1/sqrt(2 pi)
constexpr float kSqrt2OverPi = 0.79788456080286535588F;  // sqrt(2/pi)
constexpr float kGeluCubic = 0.044715F;

// gelu, exact: 0.5 * x * (1 + erf(x * (1/sqrt(2)))), left to right.
float gelu_erf(float x) {
  return 0.5F * x * (1.0F + std::erf(x * kInvSqrt2));
}
// d/dx = 0.5 * (1 + erf(x/sqrt(2))) + x * exp(-x*x/2) / sqrt(2 pi).
float gelu_erf_derivative(float x) {
  return 0.5F * (1.0F + std::erf(x * kInvSqrt2)) + x * std::exp(-0.5F * x * x) * kInvSqrt2Pi;
}
// gelu, tanh approximation: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x*x*x))).
float gelu_tanh(float x) {
  const float u = kSqrt2OverPi * (x + kGeluCubic * x * x * x);
  return 0.5F * x * (1.0F + std::tanh(u));
}
// d/dx = 0.5 * (1 + t) + 0.5 * x * (1 - t*t) * sqrt(2/pi) * (1 + 3 * 0.044715 * x*x), t = tanh(u).
float gelu_tanh_derivative(float x) {
  const float u = kSqrt2OverPi * (x + kGeluCubic * x * x * x);
  const float t = std::tanh(u);
  const float du = kSqrt2OverPi * (1.0F + 3.0F * kGeluCubic * x * x);
  return 0.5F * (1.0F + t) + 0.5F * x * (1.0F - t * t) * du;
}

}  // namespace

// |x|.
void abs_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::fabs(x); });
}
// sign(x) * g, with 0 at x = 0.
void abs_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return x > 0.0F ? g : (x < 0.0F ? -g : 0.0F); });
}

// sqrt(x), correctly rounded (NaN below 0).
void sqrt_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::sqrt(x); });
}
// g / (2 * y).
void sqrt_vjp(const VjpCall& call) {
  unary_vjp(call, [](float, float y, float g) { return g / (2.0F * y); });
}

// 1 / x.
void inv_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return 1.0F / x; });
}
// -(g * y * y), left to right.
void inv_vjp(const VjpCall& call) {
  unary_vjp(call, [](float, float y, float g) { return -(g * y * y); });
}

// max(x, 0); NaN passes through.
void relu_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return x < 0.0F ? 0.0F : x; });
}
// g where x > 0, else 0 (0 at x = 0).
void relu_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return x > 0.0F ? g : 0.0F; });
}

// tanh(x).
void tanh_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::tanh(x); });
}
// g * (1 - y * y).
void tanh_vjp(const VjpCall& call) {
  unary_vjp(call, [](float, float y, float g) { return g * (1.0F - y * y); });
}

// 1 / (1 + exp(-x)): exp overflows to inf for x below about -88, giving exactly 0.
void sigmoid_forward(const KernelCall& call) {
  map_unary(call, sigmoid_of);
}
// g * y * (1 - y), left to right.
void sigmoid_vjp(const VjpCall& call) {
  unary_vjp(call, [](float, float y, float g) { return g * y * (1.0F - y); });
}

// exp(x).
void exp_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::exp(x); });
}
// g * y.
void exp_vjp(const VjpCall& call) {
  unary_vjp(call, [](float, float y, float g) { return g * y; });
}

// log(x) (-inf at 0, NaN below).
void log_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::log(x); });
}
// g / x.
void log_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return g / x; });
}

// sin(x).
void sin_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::sin(x); });
}
// g * cos(x).
void sin_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return g * std::cos(x); });
}

// cos(x).
void cos_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::cos(x); });
}
// -(g * sin(x)).
void cos_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return -(g * std::sin(x)); });
}

// log(1 + exp(x)) in the overflow-safe form max(x, 0) + log1p(exp(-|x|)): exp never sees a
// positive argument, so large x gives x (not inf) and large negative x gives exp(x) (not 0 - 0).
void softplus_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::fmax(x, 0.0F) + std::log1p(std::exp(-std::fabs(x))); });
}
// g * sigmoid(x), sigmoid as in sigmoid_forward.
void softplus_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return g * sigmoid_of(x); });
}

// gelu with the node's approximation (gelu_erf or gelu_tanh above).
void gelu_forward(const KernelCall& call) {
  if (std::get<ir::GeluParams>(call.node.params).approximate == ir::GeluApproximation::tanh) {
    map_unary(call, gelu_tanh);
  } else {
    map_unary(call, gelu_erf);
  }
}
// g * gelu'(x), the derivative of the same approximation.
void gelu_vjp(const VjpCall& call) {
  if (std::get<ir::GeluParams>(call.node.params).approximate == ir::GeluApproximation::tanh) {
    unary_vjp(call, [](float x, float, float g) { return g * gelu_tanh_derivative(x); });
  } else {
    unary_vjp(call, [](float x, float, float g) { return g * gelu_erf_derivative(x); });
  }
}

// x raised to `min` where x < min, then lowered to `max` where above (so max wins when min > max,
// as in ONNX Clip); an absent bound does nothing, and NaN passes through (every comparison fails).
void clamp_forward(const KernelCall& call) {
  const auto& p = std::get<ir::ClampParams>(call.node.params);
  map_unary(call, [&p](float x) {
    float y = x;
    if (p.min && y < *p.min) y = *p.min;
    if (p.max && y > *p.max) y = *p.max;
    return y;
  });
}
// g where min <= x <= max (bounds inclusive, an absent bound always holds), else 0; NaN gets 0.
void clamp_vjp(const VjpCall& call) {
  const auto& p = std::get<ir::ClampParams>(call.node.params);
  unary_vjp(call, [&p](float x, float, float g) {
    const bool inside = (!p.min || x >= *p.min) && (!p.max || x <= *p.max);
    return inside ? g : 0.0F;
  });
}

// x * factor.
void scale_forward(const KernelCall& call) {
  const float factor = std::get<ir::ScaleParams>(call.node.params).factor;
  map_unary(call, [factor](float x) { return x * factor; });
}
// g * factor.
void scale_vjp(const VjpCall& call) {
  const float factor = std::get<ir::ScaleParams>(call.node.params).factor;
  unary_vjp(call, [factor](float, float, float g) { return g * factor; });
}

// x where x >= 0, else alpha * x (ONNX LeakyRelu); NaN passes through.
void leaky_relu_forward(const KernelCall& call) {
  const float alpha = std::get<ir::AlphaParams>(call.node.params).alpha;
  map_unary(call, [alpha](float x) { return x < 0.0F ? alpha * x : x; });
}
// g where x > 0, else g * alpha (alpha at x = 0, as PyTorch's leaky_relu backward).
void leaky_relu_vjp(const VjpCall& call) {
  const float alpha = std::get<ir::AlphaParams>(call.node.params).alpha;
  unary_vjp(call, [alpha](float x, float, float g) { return x > 0.0F ? g : g * alpha; });
}

// x where x >= 0, else alpha * (exp(x) - 1) with exp(x) - 1 as expm1(x) (ONNX Elu; expm1 keeps
// the digits that exp(x) - 1 cancels near 0); NaN passes through.
void elu_forward(const KernelCall& call) {
  const float alpha = std::get<ir::AlphaParams>(call.node.params).alpha;
  map_unary(call, [alpha](float x) { return x < 0.0F ? alpha * std::expm1(x) : x; });
}
// g where x > 0, else g * alpha * exp(x), left to right.
void elu_vjp(const VjpCall& call) {
  const float alpha = std::get<ir::AlphaParams>(call.node.params).alpha;
  unary_vjp(call,
            [alpha](float x, float, float g) { return x > 0.0F ? g : g * alpha * std::exp(x); });
}

// x / (1 + |x|) (ONNX Softsign): +-inf gives NaN (inf / inf), as ONNX's and PyTorch's formula do.
void softsign_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return x / (1.0F + std::fabs(x)); });
}
// g / ((1 + |x|) * (1 + |x|)).
void softsign_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) {
    const float d = 1.0F + std::fabs(x);
    return g / (d * d);
  });
}

// max(0, min(1, alpha * x + beta)), alpha * x rounded, then + beta rounded, as ONNX's HardSigmoid
// writes it (no fused multiply-add); NaN passes through (neither bound replaces it).
float hard_sigmoid_of(float x, float alpha, float beta) {
  const float ax = alpha * x;
  const float t = ax + beta;
  if (std::isnan(t)) return t;
  return t < 0.0F ? 0.0F : (t > 1.0F ? 1.0F : t);
}
// ONNX's HardSwish: alpha the float 0.16666667 (1/6 as its function body writes it), beta 0.5.
constexpr float kHardSwishAlpha = 1.0F / 6.0F;
constexpr float kHardSwishBeta = 0.5F;

void hard_sigmoid_forward(const KernelCall& call) {
  const auto& p = std::get<ir::HardSigmoidParams>(call.node.params);
  map_unary(call, [&p](float x) { return hard_sigmoid_of(x, p.alpha, p.beta); });
}
// g * alpha where 0 < alpha * x + beta < 1 (the slope), else 0 (PyTorch's hardsigmoid backward
// takes the open interval too).
void hard_sigmoid_vjp(const VjpCall& call) {
  const auto& p = std::get<ir::HardSigmoidParams>(call.node.params);
  unary_vjp(call, [&p](float x, float, float g) {
    const float t = p.alpha * x + p.beta;
    return t > 0.0F && t < 1.0F ? g * p.alpha : 0.0F;
  });
}

// x * hard_sigmoid(x) with ONNX's HardSwish alpha and beta: the product rounded once; 0 for
// x <= -3, x for x >= 3, NaN for NaN; -inf gives -inf * 0 = NaN, as ONNX's function body does.
void hard_swish_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return x * hard_sigmoid_of(x, kHardSwishAlpha, kHardSwishBeta); });
}
// g * (hard_sigmoid(x) + x * alpha) inside the ramp, g * hard_sigmoid(x) outside it (0 below, g
// above), left to right.
void hard_swish_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) {
    const float t = kHardSwishAlpha * x + kHardSwishBeta;
    if (t <= 0.0F) return 0.0F;
    if (t >= 1.0F) return g;
    return g * (t + x * kHardSwishAlpha);
  });
}

// x * sigmoid(x), sigmoid as in sigmoid_forward, the product rounded once: the same bits as a
// sigmoid node followed by a mul of x by its value. -inf gives -inf * 0 = NaN, +inf gives +inf.
void silu_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return x * sigmoid_of(x); });
}
// g * (s + x * s * (1 - s)), s = sigmoid(x), left to right.
void silu_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) {
    const float s = sigmoid_of(x);
    return g * (s + x * s * (1.0F - s));
  });
}

// The largest integer not above x (ONNX Floor); infinities and NaN pass through.
void floor_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::floor(x); });
}
// 0: floor is constant between integers (PyTorch's gradient, the jumps included).
void floor_vjp(const VjpCall& call) {
  unary_vjp(call, [](float, float, float) { return 0.0F; });
}

// The smallest integer not below x (ONNX Ceil); infinities and NaN pass through.
void ceil_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::ceil(x); });
}
// 0, as floor's.
void ceil_vjp(const VjpCall& call) {
  unary_vjp(call, [](float, float, float) { return 0.0F; });
}

// x rounded to the nearest integer, halves to the even one (ONNX Round: 2.5 -> 2, -0.5 -> -0);
// std::nearbyint under the default rounding mode, which nothing in nnplan changes.
void round_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::nearbyint(x); });
}
// 0, as floor's.
void round_vjp(const VjpCall& call) {
  unary_vjp(call, [](float, float, float) { return 0.0F; });
}

// -1, 0 or 1 by the sign of x (ONNX Sign; -0 gives 0, NaN gives NaN).
void sign_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return x > 0.0F ? 1.0F : (x < 0.0F ? -1.0F : x * 0.0F); });
}
// 0, as floor's.
void sign_vjp(const VjpCall& call) {
  unary_vjp(call, [](float, float, float) { return 0.0F; });
}

// tan(x).
void tan_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::tan(x); });
}
// g * (1 + y * y), left to right.
void tan_vjp(const VjpCall& call) {
  unary_vjp(call, [](float, float y, float g) { return g * (1.0F + y * y); });
}

// asin(x): NaN outside [-1, 1].
void asin_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::asin(x); });
}
// g / sqrt(1 - x * x): inf at +-1.
void asin_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return g / std::sqrt(1.0F - x * x); });
}

// acos(x): NaN outside [-1, 1].
void acos_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::acos(x); });
}
// -(g / sqrt(1 - x * x)).
void acos_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return -(g / std::sqrt(1.0F - x * x)); });
}

// atan(x): +-pi/2 at +-inf.
void atan_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::atan(x); });
}
// g / (1 + x * x).
void atan_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return g / (1.0F + x * x); });
}

// sinh(x): +-inf past about +-89.4.
void sinh_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::sinh(x); });
}
// g * cosh(x).
void sinh_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return g * std::cosh(x); });
}

// cosh(x): inf past about +-89.4.
void cosh_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::cosh(x); });
}
// g * sinh(x).
void cosh_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return g * std::sinh(x); });
}

// asinh(x).
void asinh_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::asinh(x); });
}
// g / sqrt(x * x + 1).
void asinh_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return g / std::sqrt(x * x + 1.0F); });
}

// acosh(x): NaN below 1.
void acosh_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::acosh(x); });
}
// g / sqrt(x * x - 1): inf at 1.
void acosh_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return g / std::sqrt(x * x - 1.0F); });
}

// atanh(x): +-inf at +-1, NaN outside [-1, 1].
void atanh_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::atanh(x); });
}
// g / (1 - x * x).
void atanh_vjp(const VjpCall& call) {
  unary_vjp(call, [](float x, float, float g) { return g / (1.0F - x * x); });
}

// erf(x): +-1 at +-inf, NaN stays NaN.
void erf_forward(const KernelCall& call) {
  map_unary(call, [](float x) { return std::erf(x); });
}
// g * 2 / sqrt(pi) * exp(-x * x), the constant the float nearest 2 / sqrt(pi).
void erf_vjp(const VjpCall& call) {
  constexpr float kTwoOverSqrtPi = 1.1283791670955126F;
  unary_vjp(call, [](float x, float, float g) { return g * kTwoOverSqrtPi * std::exp(-x * x); });
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/elementwise_unary_test.cpp"};

template <ir::OpKind Kind>
constexpr HandlerDefinition unary(std::string_view symbol, ForwardFn forward, VjpFn vjp) {
  return in_place_handler(symbol, forward, vjp, shape_guard<Kind>, kTests);
}

using backend::BackendOp;
using ir::OpKind;

// The row of op `op` (its BackendOp, OpKind and kernels share the name): the handler symbol is
// the forward kernel's qualified name, spelled by the preprocessor from the same token.
#define NNPLAN_UNARY_ROW(op)                                                                     \
  ReferenceHandler {                                                                             \
    BackendOp::op,                                                                               \
        unary<OpKind::op>("nnplan::runtime::reference::" #op "_forward", op##_forward, op##_vjp) \
  }

const ReferenceHandler kUnaryHandlers[] = {
    NNPLAN_UNARY_ROW(abs),   NNPLAN_UNARY_ROW(sqrt),         NNPLAN_UNARY_ROW(inv),
    NNPLAN_UNARY_ROW(relu),  NNPLAN_UNARY_ROW(tanh),         NNPLAN_UNARY_ROW(sigmoid),
    NNPLAN_UNARY_ROW(exp),   NNPLAN_UNARY_ROW(log),          NNPLAN_UNARY_ROW(sin),
    NNPLAN_UNARY_ROW(cos),   NNPLAN_UNARY_ROW(softplus),     NNPLAN_UNARY_ROW(gelu),
    NNPLAN_UNARY_ROW(clamp), NNPLAN_UNARY_ROW(scale),        NNPLAN_UNARY_ROW(leaky_relu),
    NNPLAN_UNARY_ROW(elu),   NNPLAN_UNARY_ROW(softsign),     NNPLAN_UNARY_ROW(floor),
    NNPLAN_UNARY_ROW(ceil),  NNPLAN_UNARY_ROW(round),        NNPLAN_UNARY_ROW(sign),
    NNPLAN_UNARY_ROW(tan),   NNPLAN_UNARY_ROW(asin),         NNPLAN_UNARY_ROW(acos),
    NNPLAN_UNARY_ROW(atan),  NNPLAN_UNARY_ROW(sinh),         NNPLAN_UNARY_ROW(cosh),
    NNPLAN_UNARY_ROW(asinh), NNPLAN_UNARY_ROW(acosh),        NNPLAN_UNARY_ROW(atanh),
    NNPLAN_UNARY_ROW(erf),   NNPLAN_UNARY_ROW(hard_sigmoid), NNPLAN_UNARY_ROW(hard_swish),
    NNPLAN_UNARY_ROW(silu),
};

#undef NNPLAN_UNARY_ROW

}  // namespace

std::span<const ReferenceHandler> elementwise_unary_handlers() {
  return kUnaryHandlers;
}

}  // namespace nnplan::runtime::reference
