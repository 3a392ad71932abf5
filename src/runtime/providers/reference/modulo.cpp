// Reference kernels: mod and fmod, ONNX's Mod (fmod 0 and 1), over two operands of one dtype read
// with numpy broadcasting (broadcast_walk.hpp), one output element per position in row-major
// order. fmod is C's: a - trunc(a / b) * b computed exactly (std::fmod for float32: the sign of
// a, NaN for b = 0 or an infinite a; an infinite b leaves a finite a unchanged), and for int64 the
// truncating remainder a % b. mod (int64) is Python's: the remainder with the sign of b. An int64
// divisor of 0 is refused by the guard, naming the element, before the launch; a % -1 is 0 (the
// quotient INT64_MIN / -1 would overflow, the remainder does not). fmod's VJP (float32): da = g,
// db = -g * trunc(a / b), summed over the positions a broadcast operand fed.
#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "runtime/providers/reference/broadcast_walk.hpp"
#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {
namespace {

using backend::BackendOp;
using ir::DType;

// The IR's shape rule, the dtypes (one, int64 for mod, float32 or int64 for fmod, the output
// theirs), then every int64 divisor.
template <BackendOp Op>
Expected<void> remainder_guard(const KernelCall& call) {
  if (auto ok = ir_shape_guard(call, Op); !ok) return ok;
  const auto bad = [](std::string what) {
    return std::unexpected(make_error(ErrorKind::invalid_input, std::move(what)));
  };
  const std::string kind(ir::to_string(call.node.kind));
  const DType d = call.inputs[0].dtype;
  const bool taken =
      Op == BackendOp::mod ? d == DType::int64 : d == DType::int64 || d == DType::float32;
  if (!taken || call.inputs[1].dtype != d || call.output.dtype != d) {
    return bad("inputs of dtype " + std::string(ir::to_string(d)) + " and " +
               std::string(ir::to_string(call.inputs[1].dtype)) + ", output " +
               std::string(ir::to_string(call.output.dtype)) + "; " + kind + " takes " +
               (Op == BackendOp::mod ? "int64" : "float32 or int64") +
               " inputs of one dtype and writes it");
  }
  if (d == DType::int64) {
    const std::int64_t* b = call.inputs[1].data<std::int64_t>();
    for (std::size_t i = 0; i < call.inputs[1].size(); ++i) {
      if (b[i] == 0) {
        return bad("element " + std::to_string(i) + " of input 1 (the divisor) is 0; " + kind +
                   " of int64 values needs a divisor other than 0");
      }
    }
  }
  return {};
}

// The truncating remainder of int64 a by b != 0 (0 for b = -1, where a / b may overflow).
std::int64_t truncated(std::int64_t a, std::int64_t b) {
  return b == -1 ? 0 : a % b;
}
// The remainder with b's sign (Python's %).
std::int64_t floored(std::int64_t a, std::int64_t b) {
  const std::int64_t r = truncated(a, b);
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

template <typename T, typename F>
void remainder_as(const KernelCall& call, F f) {
  const T* a = call.inputs[0].data<T>();
  const T* b = call.inputs[1].data<T>();
  T* y = call.output.data<T>();
  for_each_broadcast<2>(
      *call.output.shape, std::array{call.inputs[0].shape, call.inputs[1].shape},
      [&](std::size_t i, const std::array<std::size_t, 2>& at) { y[i] = f(a[at[0]], b[at[1]]); });
}

}  // namespace

// y = a mod b, the sign of b (int64).
void mod_forward(const KernelCall& call) {
  remainder_as<std::int64_t>(call, floored);
}

// y = fmod(a, b), the sign of a.
void fmod_forward(const KernelCall& call) {
  if (call.inputs[0].dtype == DType::int64) {
    remainder_as<std::int64_t>(call, truncated);
  } else {
    remainder_as<float>(call, [](float a, float b) { return std::fmod(a, b); });
  }
}

// da += g, db += -g * trunc(a / b) (float32; int64 values carry no gradient).
void fmod_vjp(const VjpCall& call) {
  if (call.inputs[0].dtype != DType::float32) return;
  const float* a = call.inputs[0].data<float>();
  const float* b = call.inputs[1].data<float>();
  const float* g = call.output_grad.data<float>();
  float* da = call.input_grads[0].data<float>();
  float* db = call.input_grads[1].data<float>();
  for_each_broadcast<2>(*call.output_grad.shape,
                        std::array{call.inputs[0].shape, call.inputs[1].shape},
                        [&](std::size_t i, const std::array<std::size_t, 2>& at) {
                          da[at[0]] += g[i];
                          db[at[1]] -= g[i] * std::trunc(a[at[0]] / b[at[1]]);
                        });
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/modulo_test.cpp"};

const ReferenceHandler kModuloHandlers[] = {
    {BackendOp::mod,
     {.symbol = "nnplan::runtime::reference::mod_forward",
      .forward = mod_forward,
      .vjp = nullptr,
      .shape_guard = remainder_guard<BackendOp::mod>,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
    {BackendOp::fmod,
     {.symbol = "nnplan::runtime::reference::fmod_forward",
      .forward = fmod_forward,
      .vjp = fmod_vjp,
      .shape_guard = remainder_guard<BackendOp::fmod>,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
};

}  // namespace

std::span<const ReferenceHandler> modulo_handlers() {
  return kModuloHandlers;
}

}  // namespace nnplan::runtime::reference
