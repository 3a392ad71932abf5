// Reference kernel: max_unpool (ONNX's MaxUnpool). The output starts as zeros of its declared
// shape; each element of X, in row-major order, is written at the flat output position its index
// in I names (as ONNX's MaxPool gives them: N and C offsets included), so of two elements with
// one index the later stands. An index outside [0, output size) is refused by the guard naming
// it, never written. The VJP gives each element of X that stands in the output the output
// gradient at its index (one overwritten by a later element gets none); the indices take none.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {
namespace {

Expected<void> max_unpool_guard(const KernelCall& call) {
  if (auto ok = ir_shape_guard(call, backend::BackendOp::max_unpool); !ok) return ok;
  if (call.inputs[1].dtype != ir::DType::int64) {
    return std::unexpected(
        make_error(ErrorKind::invalid_input, "input 1 has dtype " +
                                                 std::string(ir::to_string(call.inputs[1].dtype)) +
                                                 "; max_unpool takes int64 indices"));
  }
  const std::int64_t* indices = call.inputs[1].data<std::int64_t>();
  const auto size = static_cast<std::int64_t>(call.output.size());
  for (std::size_t i = 0; i < call.inputs[1].size(); ++i) {
    if (indices[i] < 0 || indices[i] >= size) {
      return std::unexpected(
          make_error(ErrorKind::invalid_input,
                     "index " + std::to_string(indices[i]) + " (element " + std::to_string(i) +
                         " of the indices) is outside the output's " + std::to_string(size) +
                         " elements; indices lie in [0, " + std::to_string(size - 1) + "]"));
    }
  }
  return {};
}

template <typename T>
void unpool(const KernelCall& call) {
  const T* x = call.inputs[0].data<T>();
  const std::int64_t* indices = call.inputs[1].data<std::int64_t>();
  T* y = call.output.data<T>();
  std::fill_n(y, call.output.size(), T{});
  for (std::size_t i = 0; i < call.inputs[0].size(); ++i)
    y[indices[i]] = x[i];
}

void max_unpool_forward(const KernelCall& call) {
  switch (call.inputs[0].dtype) {
    case ir::DType::float32:
      unpool<float>(call);
      return;
    case ir::DType::int64:
      unpool<std::int64_t>(call);
      return;
    case ir::DType::boolean:
      unpool<std::uint8_t>(call);
      return;
  }
}

// dx[i] += g[indices[i]] for the last element written at each index, walking X backwards
// (float32 only; int64 and bool values carry no gradient).
void max_unpool_vjp(const VjpCall& call) {
  if (call.inputs[0].dtype != ir::DType::float32) return;
  const std::int64_t* indices = call.inputs[1].data<std::int64_t>();
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  std::vector<bool> taken(call.output.size(), false);
  for (std::size_t i = call.inputs[1].size(); i-- > 0;) {
    const auto at = static_cast<std::size_t>(indices[i]);
    if (taken[at]) continue;
    taken[at] = true;
    dx[i] += g[at];
  }
}

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/max_unpool_test.cpp"};

constexpr ReferenceHandler kHandlers[] = {
    {backend::BackendOp::max_unpool,
     {.symbol = "nnplan::runtime::reference::max_unpool_forward",
      .forward = max_unpool_forward,
      .vjp = max_unpool_vjp,
      .shape_guard = max_unpool_guard,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
};

}  // namespace

std::span<const ReferenceHandler> max_unpool_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::reference
