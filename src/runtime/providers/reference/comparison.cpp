// Reference kernels: the comparisons (equal, less, less_or_equal, greater, greater_or_equal) of
// two operands of one dtype (float32, int64 or bool), and the logic ops (and, or, xor over two
// bool operands, not over one). Each writes one bool (a byte, 0 or 1) per output element, in
// row-major order; two-operand ops read their operands with numpy broadcasting
// (broadcast_walk.hpp). None has a derivative: no VJP.
#include <array>
#include <cstdint>
#include <string>

#include "runtime/providers/reference/broadcast_walk.hpp"
#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {
namespace {

using backend::BackendOp;
using ir::DType;

Expected<void> dtype_error(std::string what) {
  return std::unexpected(make_error(ErrorKind::invalid_input, std::move(what)));
}

// The IR's shape rule over the inputs, then the dtypes: the output bool, the inputs bool (logic
// ops) or of one dtype (comparisons).
template <BackendOp Op>
Expected<void> bool_result_guard(const KernelCall& call) {
  if (auto ok = ir_shape_guard(call, Op); !ok) return ok;
  const std::string kind(ir::to_string(call.node.kind));
  if (call.output.dtype != DType::boolean) {
    return dtype_error("the output has dtype " + std::string(ir::to_string(call.output.dtype)) +
                       "; " + kind + " writes bool");
  }
  const bool logic = Op == BackendOp::and_ || Op == BackendOp::or_ || Op == BackendOp::xor_ ||
                     Op == BackendOp::not_;
  const DType want = logic ? DType::boolean : call.inputs[0].dtype;
  for (std::size_t i = 0; i < call.inputs.size(); ++i) {
    if (call.inputs[i].dtype != want) {
      return dtype_error("input " + std::to_string(i) + " has dtype " +
                         std::string(ir::to_string(call.inputs[i].dtype)) + "; " + kind +
                         " takes " + (logic ? "bool inputs" : "inputs of one dtype"));
    }
  }
  return {};
}

// y[i] = f(a[at[0]], b[at[1]]) over the broadcast operands, as 0 or 1.
template <typename T, typename F>
void compare_as(const KernelCall& call, F f) {
  const T* a = call.inputs[0].data<T>();
  const T* b = call.inputs[1].data<T>();
  std::uint8_t* y = call.output.data<std::uint8_t>();
  for_each_broadcast<2>(*call.output.shape, std::array{call.inputs[0].shape, call.inputs[1].shape},
                        [&](std::size_t i, const std::array<std::size_t, 2>& at) {
                          y[i] = f(a[at[0]], b[at[1]]) ? 1 : 0;
                        });
}

// The comparison `f` at the inputs' dtype (the guard checked they share one).
template <typename F>
void compare(const KernelCall& call, F f) {
  switch (call.inputs[0].dtype) {
    case DType::float32:
      compare_as<float>(call, f);
      return;
    case DType::int64:
      compare_as<std::int64_t>(call, f);
      return;
    case DType::boolean:
      compare_as<std::uint8_t>(call, f);
      return;
  }
}

}  // namespace

// a == b; false where either is NaN (IEEE comparison), true for -0 == +0.
void equal_forward(const KernelCall& call) {
  compare(call, [](auto a, auto b) { return a == b; });
}
// a < b; false where either is NaN. bool compares false < true.
void less_forward(const KernelCall& call) {
  compare(call, [](auto a, auto b) { return a < b; });
}
// a <= b; false where either is NaN.
void less_or_equal_forward(const KernelCall& call) {
  compare(call, [](auto a, auto b) { return a <= b; });
}
// a > b; false where either is NaN.
void greater_forward(const KernelCall& call) {
  compare(call, [](auto a, auto b) { return a > b; });
}
// a >= b; false where either is NaN.
void greater_or_equal_forward(const KernelCall& call) {
  compare(call, [](auto a, auto b) { return a >= b; });
}
// a and b.
void and_forward(const KernelCall& call) {
  compare_as<std::uint8_t>(call, [](std::uint8_t a, std::uint8_t b) { return a != 0 && b != 0; });
}
// a or b.
void or_forward(const KernelCall& call) {
  compare_as<std::uint8_t>(call, [](std::uint8_t a, std::uint8_t b) { return a != 0 || b != 0; });
}
// a xor b.
void xor_forward(const KernelCall& call) {
  compare_as<std::uint8_t>(call,
                           [](std::uint8_t a, std::uint8_t b) { return (a != 0) != (b != 0); });
}
// not x, element by element (the input's shape).
void not_forward(const KernelCall& call) {
  const std::uint8_t* x = call.inputs[0].data<std::uint8_t>();
  std::uint8_t* y = call.output.data<std::uint8_t>();
  const std::size_t n = call.output.size();
  for (std::size_t i = 0; i < n; ++i)
    y[i] = x[i] != 0 ? 0 : 1;
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/comparison_test.cpp"};

template <BackendOp Op>
constexpr ReferenceHandler row(std::string_view symbol, ForwardFn forward) {
  return {Op,
          {.symbol = symbol,
           .forward = forward,
           .vjp = nullptr,
           .shape_guard = bool_result_guard<Op>,
           .layout_guard = canonical_layout_guard,
           .in_place_safe = false,
           .forward_tests = kTests,
           .vjp_tests = kTests}};
}

const ReferenceHandler kComparisonHandlers[] = {
    row<BackendOp::equal>("nnplan::runtime::reference::equal_forward", equal_forward),
    row<BackendOp::less>("nnplan::runtime::reference::less_forward", less_forward),
    row<BackendOp::less_or_equal>("nnplan::runtime::reference::less_or_equal_forward",
                                  less_or_equal_forward),
    row<BackendOp::greater>("nnplan::runtime::reference::greater_forward", greater_forward),
    row<BackendOp::greater_or_equal>("nnplan::runtime::reference::greater_or_equal_forward",
                                     greater_or_equal_forward),
    row<BackendOp::and_>("nnplan::runtime::reference::and_forward", and_forward),
    row<BackendOp::or_>("nnplan::runtime::reference::or_forward", or_forward),
    row<BackendOp::xor_>("nnplan::runtime::reference::xor_forward", xor_forward),
    row<BackendOp::not_>("nnplan::runtime::reference::not_forward", not_forward),
};

}  // namespace

std::span<const ReferenceHandler> comparison_handlers() {
  return kComparisonHandlers;
}

}  // namespace nnplan::runtime::reference
