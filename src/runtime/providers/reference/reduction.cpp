// Reference kernels: the reduction family, reduce_sum (IR kinds reduce_sum over one axis and sum
// over everything), reduce_mean, reduce_max, reduce_min, reduce_prod, argmax and argmin (one axis),
// top_k (the indices of the k extremes along one axis), cum_sum (running sums along one axis) and
// mse_loss (two operands to a scalar).
// Every sum is one float32 accumulator that starts at 0 and adds the reduced elements in increasing
// index order; a mean divides that sum by the element count converted to float32; a product starts
// at 1 and multiplies in increasing index order; max and min keep the first NaN they meet (NaN
// propagates, as numpy's and PyTorch's do).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

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

// A node of `kind` reducing one axis: one input, the node's shape without the axis.
template <ir::OpKind kind>
Expected<void> one_axis_guard(const KernelCall& call) {
  if (call.node.kind != kind) return wrong_kind(call, ir::to_string(kind));
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  return check_axis_reduction(call);
}

// argmax and argmin: a one-axis reduction over a non-empty axis (an empty one has no index).
template <ir::OpKind kind>
Expected<void> arg_guard(const KernelCall& call) {
  if (auto ok = one_axis_guard<kind>(call); !ok) return ok;
  const ir::Shape& in = *call.inputs[0].shape;
  const std::uint32_t axis = std::get<ir::AxisParams>(call.node.params).axis;
  if (in.dims[axis] == 0) {
    return std::unexpected(operand_error("input 0", in,
                                         std::string(ir::to_string(kind)) + " over axis " +
                                             std::to_string(axis) + " needs a non-empty axis"));
  }
  return {};
}

// top_k: one float32 input; the output is int64 of the input's shape with `axis` cut to k, at
// most the axis' extent.
Expected<void> top_k_guard(const KernelCall& call) {
  if (call.node.kind != ir::OpKind::top_k) return wrong_kind(call, "top_k");
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  if (call.inputs[0].dtype != ir::DType::float32 || call.output.dtype != ir::DType::int64) {
    return std::unexpected(operand_error("input 0", *call.inputs[0].shape,
                                         "top_k takes float32 and makes int64 indices, not " +
                                             std::string(ir::to_string(call.inputs[0].dtype)) +
                                             " to " +
                                             std::string(ir::to_string(call.output.dtype))));
  }
  const ir::Shape& in = *call.inputs[0].shape;
  const std::uint32_t axis = std::get<ir::TopKParams>(call.node.params).axis;
  if (axis >= in.rank()) {
    return std::unexpected(operand_error("input 0", in,
                                         "top_k over axis " + std::to_string(axis) +
                                             " needs rank at least " + std::to_string(axis + 1)));
  }
  const ir::Shape& out = *call.output.shape;
  bool fits = out.rank() == in.rank() && out.dims[axis] <= in.dims[axis];
  for (std::size_t d = 0; fits && d < in.rank(); ++d)
    fits = d == axis || out.dims[d] == in.dims[d];
  if (!fits) {
    return std::unexpected(operand_error("the output", out,
                                         "top_k over axis " + std::to_string(axis) + " of " +
                                             ir::to_string(in) +
                                             " gives that shape with the axis cut to k"));
  }
  return {};
}

// cum_sum: one float32 or int64 input, the output of its shape and dtype, the axis in range.
Expected<void> cum_sum_guard(const KernelCall& call) {
  if (call.node.kind != ir::OpKind::cum_sum) return wrong_kind(call, "cum_sum");
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  const ir::Shape& in = *call.inputs[0].shape;
  const ir::DType dtype = call.inputs[0].dtype;
  if (dtype == ir::DType::boolean || call.output.dtype != dtype) {
    return std::unexpected(
        operand_error("input 0", in,
                      "cum_sum takes float32 or int64 and makes its dtype, not " +
                          std::string(ir::to_string(dtype)) + " to " +
                          std::string(ir::to_string(call.output.dtype))));
  }
  const std::uint32_t axis = std::get<ir::CumSumParams>(call.node.params).axis;
  if (axis >= in.rank()) {
    return std::unexpected(operand_error("input 0", in,
                                         "cum_sum over axis " + std::to_string(axis) +
                                             " needs rank at least " + std::to_string(axis + 1)));
  }
  if (*call.output.shape != in) {
    return std::unexpected(operand_error("the output", *call.output.shape,
                                         "cum_sum keeps input 0's shape, " + ir::to_string(in)));
  }
  return {};
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

// The index along the axis (o, ·, j) that max (min) takes: the first NaN, else the first element
// no other exceeds (undercuts); 0 for an empty axis (nothing to take).
template <bool is_max>
std::size_t extreme_index(const float* x, const ReductionExtents& e, std::size_t o, std::size_t j) {
  std::size_t best = 0;
  for (std::size_t k = 0; k < e.extent; ++k) {
    const float v = x[(o * e.extent + k) * e.inner + j];
    if (std::isnan(v)) return k;
    const float b = x[(o * e.extent + best) * e.inner + j];
    if (is_max ? v > b : v < b) best = k;
  }
  return best;
}

// y[o, j] = the max (min) of x[o, ·, j]: -inf (inf) over an empty axis.
template <bool is_max>
void extreme_along(const KernelCall& call) {
  const ReductionExtents e = extents_of(call.node, *call.inputs[0].shape);
  const float* x = call.inputs[0].data<float>();
  float* y = call.output.data<float>();
  constexpr float kEmpty = (is_max ? -1.0F : 1.0F) * std::numeric_limits<float>::infinity();
  for (std::size_t o = 0; o < e.outer; ++o) {
    for (std::size_t j = 0; j < e.inner; ++j) {
      y[o * e.inner + j] =
          e.extent == 0 ? kEmpty
                        : x[(o * e.extent + extreme_index<is_max>(x, e, o, j)) * e.inner + j];
    }
  }
}

// dx[o, k, j] += g[o, j] for the one k the forward took (extreme_index), nothing elsewhere.
template <bool is_max>
void extreme_vjp(const VjpCall& call) {
  const ReductionExtents e = extents_of(call.node, *call.inputs[0].shape);
  if (e.extent == 0) return;
  const float* x = call.inputs[0].data<float>();
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  for (std::size_t o = 0; o < e.outer; ++o) {
    for (std::size_t j = 0; j < e.inner; ++j) {
      const std::size_t k = extreme_index<is_max>(x, e, o, j);
      dx[(o * e.extent + k) * e.inner + j] += g[o * e.inner + j];
    }
  }
}

}  // namespace

// reduce_max: the largest element along the node's axis; NaN when the axis holds one; -inf over an
// empty axis.
void reduce_max_forward(const KernelCall& call) {
  extreme_along<true>(call);
}
// g to the element the forward took (the first largest, or the first NaN), 0 to the others
// (torch.max(x, dim)'s gradient).
void reduce_max_vjp(const VjpCall& call) {
  extreme_vjp<true>(call);
}

// reduce_min: the smallest element along the axis; NaN when the axis holds one; inf when empty.
void reduce_min_forward(const KernelCall& call) {
  extreme_along<false>(call);
}
// g to the element the forward took (the first smallest, or the first NaN).
void reduce_min_vjp(const VjpCall& call) {
  extreme_vjp<false>(call);
}

// argmax (argmin): the int64 index along the axis of the first largest (smallest) element, or of
// the first NaN (numpy's and PyTorch's choice); 0 over an empty axis is refused by the guard.
template <bool is_max>
void arg_extreme(const KernelCall& call) {
  const ReductionExtents e = extents_of(call.node, *call.inputs[0].shape);
  const float* x = call.inputs[0].data<float>();
  std::int64_t* y = call.output.data<std::int64_t>();
  for (std::size_t o = 0; o < e.outer; ++o) {
    for (std::size_t j = 0; j < e.inner; ++j)
      y[o * e.inner + j] = static_cast<std::int64_t>(extreme_index<is_max>(x, e, o, j));
  }
}

void argmax_forward(const KernelCall& call) {
  arg_extreme<true>(call);
}

void argmin_forward(const KernelCall& call) {
  arg_extreme<false>(call);
}

// top_k: per line x[o, ·, j], the int64 indices of its k first elements in the order "a before b"
// when a is larger (smaller, with `largest` false) or, equal, of lower index; a NaN ranks above
// every number and equals another NaN (PyTorch's topk order: NaN first when largest, last when
// smallest), and -0 equals 0. A partial sort under that total order (value, then index).
void top_k_forward(const KernelCall& call) {
  const ir::Shape& in = *call.inputs[0].shape;
  const auto& p = std::get<ir::TopKParams>(call.node.params);
  const ReductionExtents e{.outer = extent_product(in, 0, p.axis),
                           .extent = static_cast<std::size_t>(in.dims[p.axis]),
                           .inner = extent_product(in, p.axis + 1, in.rank())};
  const std::size_t k = static_cast<std::size_t>(call.output.shape->dims[p.axis]);
  const float* x = call.inputs[0].data<float>();
  std::int64_t* y = call.output.data<std::int64_t>();
  std::vector<std::size_t> order(e.extent);
  std::vector<float> line(e.extent);
  // Whether a ranks strictly above b (NaN above every number).
  const auto above = [](float a, float b) {
    if (std::isnan(a)) return !std::isnan(b);
    return !std::isnan(b) && a > b;
  };
  for (std::size_t o = 0; o < e.outer; ++o) {
    for (std::size_t j = 0; j < e.inner; ++j) {
      for (std::size_t i = 0; i < e.extent; ++i) {
        order[i] = i;
        line[i] = x[(o * e.extent + i) * e.inner + j];
      }
      const auto before = [&](std::size_t a, std::size_t b) {
        const float va = line[a];
        const float vb = line[b];
        if (p.largest ? above(va, vb) : above(vb, va)) return true;
        if (p.largest ? above(vb, va) : above(va, vb)) return false;
        return a < b;
      };
      std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                        before);
      for (std::size_t r = 0; r < k; ++r)
        y[(o * k + r) * e.inner + j] = static_cast<std::int64_t>(order[r]);
    }
  }
}

// Running sums along a line of `e`: y[o, k, j] = x[o, 0, j] + ... + x[o, k, j] in that order,
// one accumulator that starts as the first element (`exclusive`: up to x[o, k-1, j], so
// y[o, 0, j] = +0; `reverse`: from the end, x[o, n-1, j] + ... + x[o, k, j]). int64 sums wrap
// modulo 2^64 (two's complement), as ONNX Runtime's do.
template <typename T>
void running_sums(const T* x, T* y, const ReductionExtents& e, bool exclusive, bool reverse) {
  using Acc = std::conditional_t<std::is_same_v<T, float>, float, std::uint64_t>;
  for (std::size_t o = 0; o < e.outer; ++o) {
    for (std::size_t j = 0; j < e.inner; ++j) {
      Acc acc = 0;
      for (std::size_t step = 0; step < e.extent; ++step) {
        const std::size_t k = reverse ? e.extent - 1 - step : step;
        const std::size_t at = (o * e.extent + k) * e.inner + j;
        const Acc v = static_cast<Acc>(x[at]);
        // The first element taken starts the sum as itself (a lone -0 stays -0).
        if (!exclusive) acc = step == 0 ? v : acc + v;
        y[at] = static_cast<T>(acc);
        if (exclusive) acc = step == 0 ? v : acc + v;
      }
    }
  }
}

ReductionExtents cum_sum_extents(const ir::Node& node, const ir::Shape& in) {
  const std::uint32_t axis = std::get<ir::CumSumParams>(node.params).axis;
  return {.outer = extent_product(in, 0, axis),
          .extent = static_cast<std::size_t>(in.dims[axis]),
          .inner = extent_product(in, axis + 1, in.rank())};
}

void cum_sum_forward(const KernelCall& call) {
  const auto& p = std::get<ir::CumSumParams>(call.node.params);
  const ReductionExtents e = cum_sum_extents(call.node, *call.inputs[0].shape);
  if (call.inputs[0].dtype == ir::DType::int64) {
    running_sums(call.inputs[0].data<std::int64_t>(), call.output.data<std::int64_t>(), e,
                 p.exclusive, p.reverse);
  } else {
    running_sums(call.inputs[0].data<float>(), call.output.data<float>(), e, p.exclusive,
                 p.reverse);
  }
}

// dx[o, i, j] += the sum of g[o, k, j] over the k whose sum took x[o, i, j]: the running sums of g
// in the other direction, with the same exclusivity (float32 only; int64 values carry no gradient).
void cum_sum_vjp(const VjpCall& call) {
  if (call.inputs[0].dtype != ir::DType::float32) return;
  const auto& p = std::get<ir::CumSumParams>(call.node.params);
  const ReductionExtents e = cum_sum_extents(call.node, *call.inputs[0].shape);
  const std::size_t n = e.outer * e.extent * e.inner;
  std::vector<float> sums(n);
  running_sums(call.output_grad.data<float>(), sums.data(), e, p.exclusive, !p.reverse);
  float* dx = call.input_grads[0].data<float>();
  for (std::size_t i = 0; i < n; ++i)
    dx[i] += sums[i];
}

// reduce_prod: x[o, 0, j] * x[o, 1, j] * ..., one float32 accumulator from 1, left to right.
void reduce_prod_forward(const KernelCall& call) {
  const ReductionExtents e = extents_of(call.node, *call.inputs[0].shape);
  const float* x = call.inputs[0].data<float>();
  float* y = call.output.data<float>();
  for (std::size_t o = 0; o < e.outer; ++o) {
    for (std::size_t j = 0; j < e.inner; ++j) {
      float acc = 1.0F;
      for (std::size_t k = 0; k < e.extent; ++k)
        acc *= x[(o * e.extent + k) * e.inner + j];
      y[o * e.inner + j] = acc;
    }
  }
}
// dx[o, k, j] += g[o, j] * (the product of the other elements, left to right), computed without
// dividing, so that zeros give the exact gradient (one zero: the product of the rest at it, 0
// elsewhere).
void reduce_prod_vjp(const VjpCall& call) {
  const ReductionExtents e = extents_of(call.node, *call.inputs[0].shape);
  const float* x = call.inputs[0].data<float>();
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  for (std::size_t o = 0; o < e.outer; ++o) {
    for (std::size_t j = 0; j < e.inner; ++j) {
      for (std::size_t k = 0; k < e.extent; ++k) {
        float others = 1.0F;
        for (std::size_t m = 0; m < e.extent; ++m) {
          if (m != k) others *= x[(o * e.extent + m) * e.inner + j];
        }
        dx[(o * e.extent + k) * e.inner + j] += g[o * e.inner + j] * others;
      }
    }
  }
}

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
    {backend::BackendOp::reduce_max,
     reduction("nnplan::runtime::reference::reduce_max_forward", reduce_max_forward, reduce_max_vjp,
               one_axis_guard<ir::OpKind::reduce_max>)},
    {backend::BackendOp::reduce_min,
     reduction("nnplan::runtime::reference::reduce_min_forward", reduce_min_forward, reduce_min_vjp,
               one_axis_guard<ir::OpKind::reduce_min>)},
    {backend::BackendOp::reduce_prod,
     reduction("nnplan::runtime::reference::reduce_prod_forward", reduce_prod_forward,
               reduce_prod_vjp, one_axis_guard<ir::OpKind::reduce_prod>)},
    {backend::BackendOp::argmax,
     {.symbol = "nnplan::runtime::reference::argmax_forward",
      .forward = argmax_forward,
      .vjp = nullptr,
      .shape_guard = arg_guard<ir::OpKind::argmax>,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
    {backend::BackendOp::argmin,
     {.symbol = "nnplan::runtime::reference::argmin_forward",
      .forward = argmin_forward,
      .vjp = nullptr,
      .shape_guard = arg_guard<ir::OpKind::argmin>,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
    {backend::BackendOp::top_k,
     {.symbol = "nnplan::runtime::reference::top_k_forward",
      .forward = top_k_forward,
      .vjp = nullptr,
      .shape_guard = top_k_guard,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
    {backend::BackendOp::cum_sum, reduction("nnplan::runtime::reference::cum_sum_forward",
                                            cum_sum_forward, cum_sum_vjp, cum_sum_guard)},
    {backend::BackendOp::mse_loss, reduction("nnplan::runtime::reference::mse_loss_forward",
                                             mse_loss_forward, mse_loss_vjp, mse_loss_guard)},
};

}  // namespace

std::span<const ReferenceHandler> reduction_handlers() {
  return kReductionHandlers;
}

}  // namespace nnplan::runtime::reference
