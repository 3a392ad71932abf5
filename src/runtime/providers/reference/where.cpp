// Reference kernel: where(condition, x, y), ONNX's Where: for each output element, in row-major
// order, x's element where the bool condition's is true, else y's, the three operands read with
// numpy broadcasting (broadcast_walk.hpp); x and y share a dtype (float32, int64 or bool), the
// output's. The VJP sends each output gradient to the operand the forward took, summed over the
// elements that read it in row-major order (a float32 sum, left to right); the condition gets no
// gradient.
#include <array>
#include <cstdint>
#include <string>

#include "runtime/providers/reference/broadcast_walk.hpp"
#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {
namespace {

using ir::DType;

using Offsets = std::array<std::size_t, 3>;

std::array<const ir::Shape*, 3> operand_shapes(std::span<const TensorRef> inputs) {
  return {inputs[0].shape, inputs[1].shape, inputs[2].shape};
}

// The IR's shape rule, then the dtypes: a bool condition; x, y and the output of one dtype.
Expected<void> where_guard(const KernelCall& call) {
  if (auto ok = ir_shape_guard(call, backend::BackendOp::where); !ok) return ok;
  const auto bad = [](std::string what) {
    return std::unexpected(make_error(ErrorKind::invalid_input, std::move(what)));
  };
  if (call.inputs[0].dtype != DType::boolean) {
    return bad("input 0 has dtype " + std::string(ir::to_string(call.inputs[0].dtype)) +
               "; where takes a bool condition");
  }
  for (std::size_t i : {1U, 2U}) {
    if (call.inputs[i].dtype != call.output.dtype) {
      return bad("input " + std::to_string(i) + " has dtype " +
                 std::string(ir::to_string(call.inputs[i].dtype)) + "; where writes " +
                 std::string(ir::to_string(call.output.dtype)) + " and takes its values so");
    }
  }
  return {};
}

template <typename T>
void select_as(const KernelCall& call) {
  const std::uint8_t* c = call.inputs[0].data<std::uint8_t>();
  const T* x = call.inputs[1].data<T>();
  const T* y = call.inputs[2].data<T>();
  T* out = call.output.data<T>();
  for_each_broadcast<3>(
      *call.output.shape, operand_shapes(call.inputs),
      [&](std::size_t i, const Offsets& at) { out[i] = c[at[0]] != 0 ? x[at[1]] : y[at[2]]; });
}

}  // namespace

// x where the condition holds, else y, element by element (NaN and infinities pass unchanged).
void where_forward(const KernelCall& call) {
  switch (call.output.dtype) {
    case DType::float32:
      select_as<float>(call);
      return;
    case DType::int64:
      select_as<std::int64_t>(call);
      return;
    case DType::boolean:
      select_as<std::uint8_t>(call);
      return;
  }
}

// dx[at[1]] += g[i] where the condition holds, dy[at[2]] += g[i] where it does not (float32
// values only: the tape differentiates float32 values).
void where_vjp(const VjpCall& call) {
  const std::uint8_t* c = call.inputs[0].data<std::uint8_t>();
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[1].bytes == nullptr ? nullptr : call.input_grads[1].data<float>();
  float* dy = call.input_grads[2].bytes == nullptr ? nullptr : call.input_grads[2].data<float>();
  for_each_broadcast<3>(*call.output.shape, operand_shapes(call.inputs),
                        [&](std::size_t i, const Offsets& at) {
                          float* d = c[at[0]] != 0 ? dx : dy;
                          if (d != nullptr) d[c[at[0]] != 0 ? at[1] : at[2]] += g[i];
                        });
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/where_test.cpp"};

const ReferenceHandler kWhereHandlers[] = {
    {backend::BackendOp::where,
     {.symbol = "nnplan::runtime::reference::where_forward",
      .forward = where_forward,
      .vjp = where_vjp,
      .shape_guard = where_guard,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
};

}  // namespace

std::span<const ReferenceHandler> where_handlers() {
  return kWhereHandlers;
}

}  // namespace nnplan::runtime::reference
