// Reference kernels: the softmax family. softmax and log_softmax work along any one axis;
// hard_masked_softmax along the last axis over the positions its mask allows. Each slice along
// the axis is reduced on its own: m = its maximum, s = the sum of exp(x - m), both left to right
// in index order.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "runtime/providers/reference/reference_handlers.hpp"
#include "runtime/providers/reference/row_major.hpp"

namespace nnplan::runtime::reference {
namespace {

Expected<void> fail(std::string message) {
  return std::unexpected(make_error(ErrorKind::invalid_input, std::move(message)));
}

// softmax and log_softmax: one input, an axis inside its rank, the shape kept.
Expected<void> along_axis_guard(const KernelCall& call, ir::OpKind kind) {
  const std::string op(ir::to_string(kind));
  if (call.node.kind != kind || !std::holds_alternative<ir::AxisParams>(call.node.params)) {
    return fail("node kind " + std::string(ir::to_string(call.node.kind)) + " is not " + op);
  }
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  const std::uint32_t axis = std::get<ir::AxisParams>(call.node.params).axis;
  const ir::Shape& in = *call.inputs[0].shape;
  if (axis >= in.rank()) {
    return std::unexpected(operand_error(
        "input 0", in, op + " along axis " + std::to_string(axis) + " needs rank at least " +
                           std::to_string(axis + 1)));
  }
  if (call.node.shape != in) {
    return std::unexpected(operand_error(
        "input 0", in, op + " keeps the shape, the node declares " + ir::to_string(call.node.shape)));
  }
  return {};
}

Expected<void> softmax_shape_guard(const KernelCall& call) {
  return along_axis_guard(call, ir::OpKind::softmax);
}
Expected<void> log_softmax_shape_guard(const KernelCall& call) {
  return along_axis_guard(call, ir::OpKind::log_softmax);
}

// The slices along an axis: `outer` blocks of `length` x `inner` elements; slice (o, i) holds
// the elements o * length * inner + k * inner + i for k in [0, length).
struct AxisSlices {
  std::size_t outer = 1;
  std::size_t length = 1;
  std::size_t inner = 1;

  [[nodiscard]] std::size_t base(std::size_t o, std::size_t i) const {
    return o * length * inner + i;
  }
};

AxisSlices slices_of(const ir::Shape& shape, std::size_t axis) {
  return {.outer = extent_product(shape, 0, axis),
          .length = static_cast<std::size_t>(shape.dims[axis]),
          .inner = extent_product(shape, axis + 1, shape.rank())};
}

// Calls f(first, step) for every slice along the node's axis: its elements are
// first + k * step for k in [0, length).
template <class F>
void for_each_slice(const AxisSlices& s, F&& f) {
  for (std::size_t o = 0; o < s.outer; ++o) {
    for (std::size_t i = 0; i < s.inner; ++i) f(s.base(o, i), s.inner);
  }
}

// The maximum of a slice, compared left to right from its first element.
float slice_max(const float* x, std::size_t length, std::size_t step) {
  float m = x[0];
  for (std::size_t k = 1; k < length; ++k) {
    if (x[k * step] > m) m = x[k * step];
  }
  return m;
}

}  // namespace

// Per slice: m = max (left to right), e[k] = exp(x[k] - m), s = e[0] + e[1] + ... (left to
// right from 0), y[k] = e[k] / s.
void softmax_forward(const KernelCall& call) {
  const AxisSlices s =
      slices_of(*call.inputs[0].shape, std::get<ir::AxisParams>(call.node.params).axis);
  if (s.length == 0) return;
  for_each_slice(s, [&](std::size_t first, std::size_t step) {
    const float* x = call.inputs[0].data<float>() + first;
    float* y = call.output.data<float>() + first;
    const float m = slice_max(x, s.length, step);
    float sum = 0.0F;
    for (std::size_t k = 0; k < s.length; ++k) {
      y[k * step] = std::exp(x[k * step] - m);
      sum += y[k * step];
    }
    for (std::size_t k = 0; k < s.length; ++k)
      y[k * step] = y[k * step] / sum;
  });
}

// Per slice, from the forward output y: d = g[0] * y[0] + g[1] * y[1] + ... (left to right
// from 0), dx[k] += y[k] * (g[k] - d).
void softmax_vjp(const VjpCall& call) {
  const AxisSlices s =
      slices_of(*call.inputs[0].shape, std::get<ir::AxisParams>(call.node.params).axis);
  if (s.length == 0) return;
  for_each_slice(s, [&](std::size_t first, std::size_t step) {
    const float* y = call.output.data<float>() + first;
    const float* g = call.output_grad.data<float>() + first;
    float* dx = call.input_grads[0].data<float>() + first;
    float dot = 0.0F;
    for (std::size_t k = 0; k < s.length; ++k)
      dot += g[k * step] * y[k * step];
    for (std::size_t k = 0; k < s.length; ++k)
      dx[k * step] += y[k * step] * (g[k * step] - dot);
  });
}

// Per slice: m = max (left to right), s = exp(x[0] - m) + exp(x[1] - m) + ... (left to right
// from 0), y[k] = (x[k] - m) - log(s).
void log_softmax_forward(const KernelCall& call) {
  const AxisSlices s =
      slices_of(*call.inputs[0].shape, std::get<ir::AxisParams>(call.node.params).axis);
  if (s.length == 0) return;
  for_each_slice(s, [&](std::size_t first, std::size_t step) {
    const float* x = call.inputs[0].data<float>() + first;
    float* y = call.output.data<float>() + first;
    const float m = slice_max(x, s.length, step);
    float sum = 0.0F;
    for (std::size_t k = 0; k < s.length; ++k)
      sum += std::exp(x[k * step] - m);
    const float log_sum = std::log(sum);
    for (std::size_t k = 0; k < s.length; ++k)
      y[k * step] = (x[k * step] - m) - log_sum;
  });
}

// Per slice, from the forward output y: t = g[0] + g[1] + ... (left to right from 0),
// dx[k] += g[k] - exp(y[k]) * t.
void log_softmax_vjp(const VjpCall& call) {
  const AxisSlices s =
      slices_of(*call.inputs[0].shape, std::get<ir::AxisParams>(call.node.params).axis);
  if (s.length == 0) return;
  for_each_slice(s, [&](std::size_t first, std::size_t step) {
    const float* y = call.output.data<float>() + first;
    const float* g = call.output_grad.data<float>() + first;
    float* dx = call.input_grads[0].data<float>() + first;
    float total = 0.0F;
    for (std::size_t k = 0; k < s.length; ++k)
      total += g[k * step];
    for (std::size_t k = 0; k < s.length; ++k) {
      dx[k * step] += g[k * step] - std::exp(y[k * step]) * total;
    }
  });
}

namespace {

// hard_masked_softmax: one input of rank at least 1 whose trailing axes are the mask's shape,
// one mask flag per mask element, the shape kept.
Expected<void> hard_masked_softmax_shape_guard(const KernelCall& call) {
  if (call.node.kind != ir::OpKind::hard_masked_softmax ||
      !std::holds_alternative<ir::MaskParams>(call.node.params)) {
    return fail("node kind " + std::string(ir::to_string(call.node.kind)) +
                " is not hard_masked_softmax");
  }
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  const auto& p = std::get<ir::MaskParams>(call.node.params);
  const ir::Shape& in = *call.inputs[0].shape;
  const ir::Shape& m = p.shape;
  bool trailing = m.rank() >= 1 && m.rank() <= in.rank();
  for (std::size_t i = 0; trailing && i < m.rank(); ++i) {
    trailing = m.dims[i] == in.dims[in.rank() - m.rank() + i];
  }
  if (!trailing) {
    return std::unexpected(operand_error(
        "input 0", in, "hard_masked_softmax needs its trailing axes to be the mask's shape " +
                           ir::to_string(m)));
  }
  if (p.allowed.size() != element_count_of(m)) {
    return fail("the mask of shape " + ir::to_string(m) + " holds " +
                std::to_string(p.allowed.size()) + " flags; hard_masked_softmax needs " +
                std::to_string(element_count_of(m)));
  }
  if (call.node.shape != in) {
    return std::unexpected(operand_error("input 0", in,
                                         "hard_masked_softmax keeps the shape, the node declares " +
                                             ir::to_string(call.node.shape)));
  }
  return {};
}

// The last-axis rows of a masked softmax: `rows` rows of `length`; row r uses mask row
// r % mask_rows (the mask's leading axes broadcast).
struct MaskedRows {
  std::size_t rows = 0;
  std::size_t length = 0;
  std::size_t mask_rows = 0;
};

MaskedRows masked_rows_of(const ir::Shape& in, const ir::MaskParams& p) {
  MaskedRows r;
  r.length = static_cast<std::size_t>(in.dims[in.rank() - 1]);
  if (r.length == 0) return r;
  r.rows = element_count_of(in) / r.length;
  r.mask_rows = p.allowed.size() / r.length;
  return r;
}

}  // namespace

// Per row, over the allowed positions only: m = their max (left to right from the first
// allowed one), e[k] = exp(x[k] - m), s = the sum of the e[k] (left to right from 0),
// y[k] = e[k] / s; forbidden positions are exactly 0, and a row with none allowed is all 0.
void hard_masked_softmax_forward(const KernelCall& call) {
  const auto& p = std::get<ir::MaskParams>(call.node.params);
  const MaskedRows r = masked_rows_of(*call.inputs[0].shape, p);
  for (std::size_t row = 0; row < r.rows; ++row) {
    const float* x = call.inputs[0].data<float>() + row * r.length;
    float* y = call.output.data<float>() + row * r.length;
    const std::size_t mask_base = (row % r.mask_rows) * r.length;
    bool any = false;
    float m = 0.0F;
    for (std::size_t k = 0; k < r.length; ++k) {
      if (!p.allowed[mask_base + k]) continue;
      if (!any || x[k] > m) m = x[k];
      any = true;
    }
    float sum = 0.0F;
    for (std::size_t k = 0; k < r.length; ++k) {
      y[k] = p.allowed[mask_base + k] ? std::exp(x[k] - m) : 0.0F;
      if (p.allowed[mask_base + k]) sum += y[k];
    }
    if (!any) continue;
    for (std::size_t k = 0; k < r.length; ++k) {
      if (p.allowed[mask_base + k]) y[k] = y[k] / sum;
    }
  }
}

// Per row, from the forward output y, over the allowed positions: d = the sum of g[k] * y[k]
// (left to right from 0), dx[k] += y[k] * (g[k] - d); forbidden positions get nothing.
void hard_masked_softmax_vjp(const VjpCall& call) {
  const auto& p = std::get<ir::MaskParams>(call.node.params);
  const MaskedRows r = masked_rows_of(*call.inputs[0].shape, p);
  for (std::size_t row = 0; row < r.rows; ++row) {
    const float* y = call.output.data<float>() + row * r.length;
    const float* g = call.output_grad.data<float>() + row * r.length;
    float* dx = call.input_grads[0].data<float>() + row * r.length;
    const std::size_t mask_base = (row % r.mask_rows) * r.length;
    float dot = 0.0F;
    for (std::size_t k = 0; k < r.length; ++k) {
      if (p.allowed[mask_base + k]) dot += g[k] * y[k];
    }
    for (std::size_t k = 0; k < r.length; ++k) {
      if (p.allowed[mask_base + k]) dx[k] += y[k] * (g[k] - dot);
    }
  }
}

std::span<const ReferenceHandler> softmax_handlers() {
  static constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/softmax_test.cpp"};
  static const ReferenceHandler kTable[] = {
      {.op = backend::BackendOp::softmax,
       .handler = {.symbol = "nnplan::runtime::reference::softmax_forward",
                   .forward = softmax_forward,
                   .vjp = softmax_vjp,
                   .shape_guard = softmax_shape_guard,
                   .layout_guard = canonical_layout_guard,
                   .forward_tests = kTests,
                   .vjp_tests = kTests}},
      {.op = backend::BackendOp::log_softmax,
       .handler = {.symbol = "nnplan::runtime::reference::log_softmax_forward",
                   .forward = log_softmax_forward,
                   .vjp = log_softmax_vjp,
                   .shape_guard = log_softmax_shape_guard,
                   .layout_guard = canonical_layout_guard,
                   .forward_tests = kTests,
                   .vjp_tests = kTests}},
      {.op = backend::BackendOp::hard_masked_softmax,
       .handler = {.symbol = "nnplan::runtime::reference::hard_masked_softmax_forward",
                   .forward = hard_masked_softmax_forward,
                   .vjp = hard_masked_softmax_vjp,
                   .shape_guard = hard_masked_softmax_shape_guard,
                   .layout_guard = canonical_layout_guard,
                   .forward_tests = kTests,
                   .vjp_tests = kTests}},
  };
  return kTable;
}

}  // namespace nnplan::runtime::reference
