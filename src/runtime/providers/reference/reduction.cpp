// Reference kernels: the reduction family, reduce_sum (IR kinds reduce_sum over one axis and sum
// over everything), reduce_mean (one axis) and mse_loss (two operands to a scalar). Every sum is
// one float32 accumulator that starts at 0 and adds the reduced elements in increasing index
// order; a mean divides that sum by the element count converted to float32.
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "runtime/providers/reference/reference_handlers.hpp"
#include "runtime/providers/reference/row_major.hpp"

namespace nnplan::runtime::reference {
namespace {

// The reduced input seen as [outer, extent, inner]: the output element (o, j) reduces the input
// elements (o, k, j) for k = 0 .. extent-1. Reducing everything is outer = inner = 1.
struct ReductionExtents {
  std::size_t outer = 1;
  std::size_t extent = 1;
  std::size_t inner = 1;
};

ReductionExtents extents_of(const ir::Node& node, const ir::Shape& in) {
  if (node.kind == ir::OpKind::sum) return {.outer = 1, .extent = element_count_of(in), .inner = 1};
  const std::size_t axis = std::get<ir::AxisParams>(node.params).axis;
  return {.outer = extent_product(in, 0, axis),
          .extent = static_cast<std::size_t>(in.dims[axis]),
          .inner = extent_product(in, axis + 1, in.rank())};
}

Expected<void> wrong_kind(const KernelCall& call, std::string_view kernel) {
  return std::unexpected(make_error(ErrorKind::invalid_input,
                                    "node kind " + std::string(ir::to_string(call.node.kind)) +
                                        " does not run on the " + std::string(kernel) + " kernel"));
}

// reduce_sum / reduce_mean over `axis`: the axis is below input 0's rank and the node's shape is
// input 0's with the axis removed.
Expected<void> check_axis_reduction(const KernelCall& call) {
  const ir::Shape& in = *call.inputs[0].shape;
  const std::uint32_t axis = std::get<ir::AxisParams>(call.node.params).axis;
  const std::string kind(ir::to_string(call.node.kind));
  if (axis >= in.rank()) {
    return std::unexpected(operand_error("input 0", in,
                                         kind + " over axis " + std::to_string(axis) +
                                             " needs rank at least " + std::to_string(axis + 1)));
  }
  ir::Shape reduced = in;
  reduced.dims.erase(reduced.dims.begin() + axis);
  if (reduced != call.node.shape) {
    return std::unexpected(operand_error("input 0", in,
                                         kind + " over axis " + std::to_string(axis) + " gives " +
                                             ir::to_string(reduced) + ", not the node's shape " +
                                             ir::to_string(call.node.shape)));
  }
  return {};
}

// The node's shape is a scalar.
Expected<void> check_scalar_output(const KernelCall& call) {
  if (call.node.shape.rank() == 0) return {};
  return std::unexpected(
      operand_error("the output", *call.output.shape,
                    std::string(ir::to_string(call.node.kind)) + " gives a scalar (shape [])"));
}

Expected<void> reduce_sum_guard(const KernelCall& call) {
  if (call.node.kind != ir::OpKind::reduce_sum && call.node.kind != ir::OpKind::sum) {
    return wrong_kind(call, "reduce_sum");
  }
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  if (call.node.kind == ir::OpKind::sum) return check_scalar_output(call);
  return check_axis_reduction(call);
}

Expected<void> reduce_mean_guard(const KernelCall& call) {
  if (call.node.kind != ir::OpKind::reduce_mean) return wrong_kind(call, "reduce_mean");
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  return check_axis_reduction(call);
}

// Two inputs of one shape, a scalar output.
Expected<void> mse_loss_guard(const KernelCall& call) {
  if (call.node.kind != ir::OpKind::mse_loss) return wrong_kind(call, "mse_loss");
  if (auto ok = check_arity_and_output(call, 2); !ok) return ok;
  if (*call.inputs[1].shape != *call.inputs[0].shape) {
    return std::unexpected(operand_error(
        "input 1", *call.inputs[1].shape,
        "mse_loss needs the shape of input 0, " + ir::to_string(*call.inputs[0].shape)));
  }
  return check_scalar_output(call);
}

// y[o, j] = x[o, 0, j] + x[o, 1, j] + ..., from 0 left to right, then divided by the extent
// when `mean`.
void sum_along(const KernelCall& call, bool mean) {
  const ReductionExtents e = extents_of(call.node, *call.inputs[0].shape);
  const float count = static_cast<float>(e.extent);
  const float* x = call.inputs[0].data<float>();
  float* y = call.output.data<float>();
  for (std::size_t o = 0; o < e.outer; ++o) {
    for (std::size_t j = 0; j < e.inner; ++j) {
      float acc = 0.0F;
      for (std::size_t k = 0; k < e.extent; ++k)
        acc += x[(o * e.extent + k) * e.inner + j];
      y[o * e.inner + j] = mean ? acc / count : acc;
    }
  }
}

// dx[o, k, j] += g[o, j] (divided by the count first for reduce_mean), in input index order.
void spread_along(const VjpCall& call, bool mean) {
  const ReductionExtents e = extents_of(call.node, *call.inputs[0].shape);
  const float count = static_cast<float>(e.extent);
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  for (std::size_t o = 0; o < e.outer; ++o) {
    for (std::size_t k = 0; k < e.extent; ++k) {
      for (std::size_t j = 0; j < e.inner; ++j) {
        const float gj = g[o * e.inner + j];
        dx[(o * e.extent + k) * e.inner + j] += mean ? gj / count : gj;
      }
    }
  }
}

}  // namespace

// reduce_sum: the sum over the node's axis (reduce_sum) or over every element in index order
// (sum), one float32 accumulator from 0, left to right.
void reduce_sum_forward(const KernelCall& call) {
  sum_along(call, false);
}
// dx += g broadcast back over the reduced axis.
void reduce_sum_vjp(const VjpCall& call) {
  spread_along(call, false);
}

// reduce_mean: the reduce_sum sum over the axis, then divided by the axis extent as float32.
void reduce_mean_forward(const KernelCall& call) {
  sum_along(call, true);
}
// dx += g / extent broadcast back over the reduced axis.
void reduce_mean_vjp(const VjpCall& call) {
  spread_along(call, true);
}

// mse_loss: ((a0-b0)^2 + (a1-b1)^2 + ...) / n, each square d*d with d = a-b, summed from 0 left
// to right in one float32 accumulator, then divided by n as float32.
void mse_loss_forward(const KernelCall& call) {
  const float* a = call.inputs[0].data<float>();
  const float* b = call.inputs[1].data<float>();
  const std::size_t n = call.inputs[0].size();
  float acc = 0.0F;
  for (std::size_t i = 0; i < n; ++i) {
    const float d = a[i] - b[i];
    acc += d * d;
  }
  call.output.data<float>()[0] = acc / static_cast<float>(n);
}
// da[i] += t, db[i] += -t, with t = ((2 * (a[i] - b[i])) / n) * g.
void mse_loss_vjp(const VjpCall& call) {
  const float* a = call.inputs[0].data<float>();
  const float* b = call.inputs[1].data<float>();
  const float g = call.output_grad.data<float>()[0];
  float* da = call.input_grads[0].data<float>();
  float* db = call.input_grads[1].data<float>();
  const std::size_t n = call.inputs[0].size();
  const float count = static_cast<float>(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float t = 2.0F * (a[i] - b[i]) / count * g;
    da[i] += t;
    db[i] += -t;
  }
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/reduction_test.cpp"};

constexpr HandlerDefinition reduction(std::string_view symbol, ForwardFn forward, VjpFn vjp,
                                      GuardFn shape_guard) {
  return {.symbol = symbol,
          .forward = forward,
          .vjp = vjp,
          .shape_guard = shape_guard,
          .layout_guard = canonical_layout_guard,
          .in_place_safe = false,
          .forward_tests = kTests,
          .vjp_tests = kTests};
}

const ReferenceHandler kReductionHandlers[] = {
    {backend::BackendOp::reduce_sum,
     reduction("nnplan::runtime::reference::reduce_sum_forward", reduce_sum_forward, reduce_sum_vjp,
               reduce_sum_guard)},
    {backend::BackendOp::reduce_mean,
     reduction("nnplan::runtime::reference::reduce_mean_forward", reduce_mean_forward,
               reduce_mean_vjp, reduce_mean_guard)},
    {backend::BackendOp::mse_loss, reduction("nnplan::runtime::reference::mse_loss_forward",
                                             mse_loss_forward, mse_loss_vjp, mse_loss_guard)},
};

}  // namespace

std::span<const ReferenceHandler> reduction_handlers() {
  return kReductionHandlers;
}

}  // namespace nnplan::runtime::reference
