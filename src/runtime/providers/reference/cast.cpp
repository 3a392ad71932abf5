// Reference kernel: cast, ONNX's Cast between float32, int64 and bool, element by element in
// row-major order, to the node's declared dtype. float32 to int64 truncates toward zero; NaN and
// values outside int64's range become -2^63 (what x86-64's conversion instruction gives, and with
// it ONNX Runtime, NumPy and PyTorch there). int64 to float32 rounds to the nearest float32 (ties
// to even). To bool: whether the value is not zero (NaN is true). From bool: 0 or 1. No derivative:
// what crosses an int64 or bool value carries no gradient (SPEC §6).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {
namespace {

using ir::DType;

// The IR's shape rule (the input's shape), then the output's dtype is the node's.
Expected<void> cast_guard(const KernelCall& call) {
  if (auto ok = ir_shape_guard(call, backend::BackendOp::cast); !ok) return ok;
  if (call.output.dtype != call.node.dtype) {
    return std::unexpected(
        make_error(ErrorKind::invalid_input,
                   "the output has dtype " + std::string(ir::to_string(call.output.dtype)) +
                       "; the node casts to " + std::string(ir::to_string(call.node.dtype))));
  }
  return {};
}

// float32 to int64: toward zero, -2^63 for NaN and for values outside [-2^63, 2^63).
std::int64_t to_int64(float x) {
  constexpr float kTwo63 = 9223372036854775808.0F;
  if (!(x >= -kTwo63 && x < kTwo63)) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(x);
}

template <typename From, typename To>
To convert(From x) {
  if constexpr (std::is_same_v<To, std::uint8_t>) {
    return x != 0 ? 1 : 0;  // NaN != 0
  } else if constexpr (std::is_same_v<From, float> && std::is_same_v<To, std::int64_t>) {
    return to_int64(x);
  } else {
    return static_cast<To>(x);
  }
}

template <typename From, typename To>
void cast_as(const KernelCall& call) {
  const From* x = call.inputs[0].data<From>();
  To* y = call.output.data<To>();
  const std::size_t n = call.output.size();
  for (std::size_t i = 0; i < n; ++i)
    y[i] = convert<From, To>(x[i]);
}

template <typename From>
void cast_from(const KernelCall& call) {
  switch (call.output.dtype) {
    case DType::float32:
      cast_as<From, float>(call);
      return;
    case DType::int64:
      cast_as<From, std::int64_t>(call);
      return;
    case DType::boolean:
      cast_as<From, std::uint8_t>(call);
      return;
  }
}

}  // namespace

// The input's elements converted to the node's dtype (see the top of this file).
void cast_forward(const KernelCall& call) {
  switch (call.inputs[0].dtype) {
    case DType::float32:
      cast_from<float>(call);
      return;
    case DType::int64:
      cast_from<std::int64_t>(call);
      return;
    case DType::boolean:
      cast_from<std::uint8_t>(call);
      return;
  }
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/cast_test.cpp"};

const ReferenceHandler kCastHandlers[] = {
    {backend::BackendOp::cast,
     {.symbol = "nnplan::runtime::reference::cast_forward",
      .forward = cast_forward,
      .vjp = nullptr,
      .shape_guard = cast_guard,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
};

}  // namespace

std::span<const ReferenceHandler> cast_handlers() {
  return kCastHandlers;
}

}  // namespace nnplan::runtime::reference
