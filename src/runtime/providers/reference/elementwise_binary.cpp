// Reference kernels: the binary element-wise ops (add, sub, mul, max, min, pow over two operands of
// one shape) and safe_log (x and a scalar epsilon). Each output element is a float32 function of
// the operands' elements at the same index, computed in index order; the VJPs add into the operand
// gradients in index order, and safe_log's epsilon gradient is one float32 sum, left to right.
#include <cmath>
#include <string>

#include "runtime/providers/reference/elementwise_support.hpp"
#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {
namespace {

// Input 0 has the node's shape (the output's, checked by check_arity_and_output).
Expected<void> check_input0(const KernelCall& call) {
  if (*call.inputs[0].shape == call.node.shape) return {};
  return std::unexpected(operand_error("input 0", *call.inputs[0].shape,
                                       std::string(ir::to_string(call.node.kind)) +
                                           " needs the node's shape " +
                                           ir::to_string(call.node.shape)));
}

// The kind, two inputs, both of the node's shape.
Expected<void> binary_shape_guard(const KernelCall& call, ir::OpKind kind) {
  if (auto ok = check_kind(call, kind); !ok) return ok;
  if (auto ok = check_arity_and_output(call, 2); !ok) return ok;
  if (auto ok = check_input0(call); !ok) return ok;
  if (*call.inputs[1].shape != *call.inputs[0].shape) {
    return std::unexpected(operand_error("input 1", *call.inputs[1].shape,
                                         std::string(ir::to_string(kind)) +
                                             " needs the shape of input 0, " +
                                             ir::to_string(*call.inputs[0].shape)));
  }
  return {};
}

template <ir::OpKind Kind>
Expected<void> binary_guard(const KernelCall& call) {
  return binary_shape_guard(call, Kind);
}

// safe_log: x of the node's shape and a scalar epsilon.
Expected<void> safe_log_guard(const KernelCall& call) {
  if (auto ok = check_kind(call, ir::OpKind::safe_log); !ok) return ok;
  if (auto ok = check_arity_and_output(call, 2); !ok) return ok;
  if (auto ok = check_input0(call); !ok) return ok;
  if (call.inputs[1].rank() != 0) {
    return std::unexpected(operand_error("input 1", *call.inputs[1].shape,
                                         "safe_log needs a scalar epsilon (shape [])"));
  }
  return {};
}

// y[i] = f(a[i], b[i]) for i = 0, 1, ...; a[i] and b[i] are read before y[i] is written, so y
// may be a's buffer.
template <typename F>
void map_binary(const KernelCall& call, F f) {
  const float* a = call.inputs[0].data<float>();
  const float* b = call.inputs[1].data<float>();
  float* y = call.output.data<float>();
  const std::size_t n = call.output.size();
  for (std::size_t i = 0; i < n; ++i)
    y[i] = f(a[i], b[i]);
}

// da[i] += fa(a[i], b[i], g[i]) and db[i] += fb(a[i], b[i], g[i]) for i = 0, 1, ...
template <typename FA, typename FB>
void binary_vjp(const VjpCall& call, FA fa, FB fb) {
  const float* a = call.inputs[0].data<float>();
  const float* b = call.inputs[1].data<float>();
  const float* g = call.output_grad.data<float>();
  float* da = call.input_grads[0].data<float>();
  float* db = call.input_grads[1].data<float>();
  const std::size_t n = call.output.size();
  for (std::size_t i = 0; i < n; ++i) {
    da[i] += fa(a[i], b[i], g[i]);
    db[i] += fb(a[i], b[i], g[i]);
  }
}

// Which operand max (min) takes: input 1 exactly when it is strictly larger (smaller); a tie, or a
// NaN operand, takes input 0. The forward returns a NaN operand itself (ONNX Max/Min).
bool max_takes_b(float a, float b) {
  return b > a;
}
bool min_takes_b(float a, float b) {
  return b < a;
}

}  // namespace

// a + b.
void add_forward(const KernelCall& call) {
  map_binary(call, [](float a, float b) { return a + b; });
}
// da += g, db += g.
void add_vjp(const VjpCall& call) {
  binary_vjp(
      call, [](float, float, float g) { return g; }, [](float, float, float g) { return g; });
}

// a - b.
void sub_forward(const KernelCall& call) {
  map_binary(call, [](float a, float b) { return a - b; });
}
// da += g, db += -g.
void sub_vjp(const VjpCall& call) {
  binary_vjp(
      call, [](float, float, float g) { return g; }, [](float, float, float g) { return -g; });
}

// a * b.
void mul_forward(const KernelCall& call) {
  map_binary(call, [](float a, float b) { return a * b; });
}
// da += g * b, db += g * a.
void mul_vjp(const VjpCall& call) {
  binary_vjp(
      call, [](float, float b, float g) { return g * b; },
      [](float a, float, float g) { return g * a; });
}

// max(a, b); NaN if either is NaN (the NaN operand, a's when both are).
void max_forward(const KernelCall& call) {
  map_binary(call, [](float a, float b) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
    return max_takes_b(a, b) ? b : a;
  });
}
// g to the larger operand; at a tie (or a NaN) all of it to input 0.
void max_vjp(const VjpCall& call) {
  binary_vjp(
      call, [](float a, float b, float g) { return max_takes_b(a, b) ? 0.0F : g; },
      [](float a, float b, float g) { return max_takes_b(a, b) ? g : 0.0F; });
}

// min(a, b); NaN if either is NaN (the NaN operand, a's when both are).
void min_forward(const KernelCall& call) {
  map_binary(call, [](float a, float b) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
    return min_takes_b(a, b) ? b : a;
  });
}
// g to the smaller operand; at a tie (or a NaN) all of it to input 0.
void min_vjp(const VjpCall& call) {
  binary_vjp(
      call, [](float a, float b, float g) { return min_takes_b(a, b) ? 0.0F : g; },
      [](float a, float b, float g) { return min_takes_b(a, b) ? g : 0.0F; });
}

// log(max(x, eps)) with the scalar eps read once before the loop: log(eps) where x <= eps, else
// log(x); a NaN x gives NaN.
void safe_log_forward(const KernelCall& call) {
  const float eps = call.inputs[1].data<float>()[0];
  const float* x = call.inputs[0].data<float>();
  float* y = call.output.data<float>();
  const std::size_t n = call.output.size();
  for (std::size_t i = 0; i < n; ++i)
    y[i] = std::log(x[i] <= eps ? eps : x[i]);
}
// dx[i] += g[i] / x[i] where x[i] > eps (else nothing); d eps += the float32 sum, from 0 left
// to right over i with x[i] <= eps, of g[i] / eps. A NaN x[i] contributes to neither.
void safe_log_vjp(const VjpCall& call) {
  const float eps = call.inputs[1].data<float>()[0];
  const float* x = call.inputs[0].data<float>();
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  float eps_sum = 0.0F;
  const std::size_t n = call.output.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (x[i] > eps) {
      dx[i] += g[i] / x[i];
    } else if (x[i] <= eps) {
      eps_sum += g[i] / eps;
    }
  }
  call.input_grads[1].data<float>()[0] += eps_sum;
}

// pow(a, b), std::pow in float32 (NaN and infinities as C's powf: pow(x, 0) is 1 even for NaN,
// pow(1, y) is 1, a negative base with a non-integer exponent NaN).
void pow_forward(const KernelCall& call) {
  map_binary(call, [](float a, float b) { return std::pow(a, b); });
}
// da += g * b * pow(a, b - 1); db += g * pow(a, b) * log(a), and 0 where a is 0 (PyTorch's rule:
// the limit along a positive base), NaN where a is negative.
void pow_vjp(const VjpCall& call) {
  binary_vjp(
      call, [](float a, float b, float g) { return g * b * std::pow(a, b - 1.0F); },
      [](float a, float b, float g) {
        return a == 0.0F ? 0.0F : g * std::pow(a, b) * std::log(a);
      });
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/elementwise_binary_test.cpp"};

constexpr HandlerDefinition binary(std::string_view symbol, ForwardFn forward, VjpFn vjp,
                                   GuardFn shape_guard) {
  return in_place_handler(symbol, forward, vjp, shape_guard, kTests);
}

using backend::BackendOp;
using ir::OpKind;

const ReferenceHandler kBinaryHandlers[] = {
    {BackendOp::add, binary("nnplan::runtime::reference::add_forward", add_forward, add_vjp,
                            binary_guard<OpKind::add>)},
    {BackendOp::sub, binary("nnplan::runtime::reference::sub_forward", sub_forward, sub_vjp,
                            binary_guard<OpKind::sub>)},
    {BackendOp::mul, binary("nnplan::runtime::reference::mul_forward", mul_forward, mul_vjp,
                            binary_guard<OpKind::mul_elem>)},
    {BackendOp::max, binary("nnplan::runtime::reference::max_forward", max_forward, max_vjp,
                            binary_guard<OpKind::max_elem>)},
    {BackendOp::min, binary("nnplan::runtime::reference::min_forward", min_forward, min_vjp,
                            binary_guard<OpKind::min_elem>)},
    {BackendOp::safe_log, binary("nnplan::runtime::reference::safe_log_forward", safe_log_forward,
                                 safe_log_vjp, safe_log_guard)},
    {BackendOp::pow, binary("nnplan::runtime::reference::pow_forward", pow_forward, pow_vjp,
                            binary_guard<OpKind::pow>)},
};

}  // namespace

std::span<const ReferenceHandler> elementwise_binary_handlers() {
  return kBinaryHandlers;
}

}  // namespace nnplan::runtime::reference
