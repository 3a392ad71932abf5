// Reference kernel: scaled_dot_product_attention (the capsule reference.attention). For each
// leading index and query row i: scores[j] = (q[i] . k[j]) * scale, a causal node allows only
// j <= i (top-left alignment, as ONNX and torch), the allowed scores go through a softmax over
// S, and the output row is the weighted sum of the rows of v.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "runtime/providers/reference/reference_handlers.hpp"
#include "runtime/providers/reference/row_major.hpp"

namespace nnplan::runtime::reference {
namespace {

Expected<void> fail(std::string message) {
  return std::unexpected(make_error(ErrorKind::invalid_input, std::move(message)));
}

// q (..., L, E), k (..., S, E), v (..., S, Ev) of one rank with equal leading axes; the output
// is (..., L, Ev).
Expected<void> attention_shape_guard(const KernelCall& call) {
  if (call.node.kind != ir::OpKind::scaled_dot_product_attention ||
      !std::holds_alternative<ir::AttentionParams>(call.node.params)) {
    return fail("node kind " + std::string(ir::to_string(call.node.kind)) +
                " is not scaled_dot_product_attention");
  }
  if (auto ok = check_arity_and_output(call, 3); !ok) return ok;
  const ir::Shape& q = *call.inputs[0].shape;
  const ir::Shape& k = *call.inputs[1].shape;
  const ir::Shape& v = *call.inputs[2].shape;
  if (q.rank() < 2) {
    return std::unexpected(
        operand_error("input 0", q, "attention needs q of rank at least 2 (..., L, E)"));
  }
  const std::size_t r = q.rank();
  ir::Shape want_k = q;
  want_k.dims[r - 2] = k.rank() == r ? k.dims[r - 2] : 0;
  if (k != want_k) {
    return std::unexpected(operand_error(
        "input 1", k, "attention needs k (..., S, E) with q's leading axes and E = " +
                          std::to_string(q.dims[r - 1])));
  }
  ir::Shape want_v = k;
  want_v.dims[r - 1] = v.rank() == r ? v.dims[r - 1] : 0;
  if (v != want_v) {
    return std::unexpected(operand_error(
        "input 2", v, "attention needs v (..., S, Ev) with q's leading axes and S = " +
                          std::to_string(k.dims[r - 2])));
  }
  ir::Shape want = q;
  want.dims[r - 1] = v.dims[r - 1];
  if (call.node.shape != want) {
    return std::unexpected(operand_error("input 0", q,
                                         "attention gives " + ir::to_string(want) +
                                             ", the node declares " +
                                             ir::to_string(call.node.shape)));
  }
  return {};
}

// The extents of one attention call: `batch` leading slices of L queries, S keys, E and Ev.
struct AttentionDims {
  std::size_t batch = 1;
  std::size_t l = 0;
  std::size_t s = 0;
  std::size_t e = 0;
  std::size_t ev = 0;
  float scale = 1.0F;
  bool causal = false;
};

AttentionDims dims_of(const ir::Node& node, const ir::Shape& q, const ir::Shape& v) {
  const auto& p = std::get<ir::AttentionParams>(node.params);
  const std::size_t r = q.rank();
  AttentionDims d;
  d.batch = extent_product(q, 0, r - 2);
  d.l = static_cast<std::size_t>(q.dims[r - 2]);
  d.e = static_cast<std::size_t>(q.dims[r - 1]);
  d.s = static_cast<std::size_t>(v.dims[r - 2]);
  d.ev = static_cast<std::size_t>(v.dims[r - 1]);
  d.scale = p.scale.value_or(1.0F / std::sqrt(static_cast<float>(d.e)));
  d.causal = p.causal;
  return d;
}

// Fills w[0..S) with query row i's attention weights: scores[j] = (sum over E of
// q[i][c] * k[j][c], left to right from 0) * scale for each allowed j, then m = their max (left
// to right), w[j] = exp(scores[j] - m) / (the sum of the exps, left to right from 0); masked
// positions are 0, and a row with nothing allowed is all 0.
void attention_weights(const AttentionDims& d, const float* q_row, const float* k, std::size_t i,
                       float* w) {
  const std::size_t allowed = d.causal ? std::min(d.s, i + 1) : d.s;
  for (std::size_t j = 0; j < d.s; ++j) w[j] = 0.0F;
  if (allowed == 0) return;
  for (std::size_t j = 0; j < allowed; ++j) {
    float dot = 0.0F;
    for (std::size_t c = 0; c < d.e; ++c) dot += q_row[c] * k[j * d.e + c];
    w[j] = dot * d.scale;
  }
  float m = w[0];
  for (std::size_t j = 1; j < allowed; ++j) {
    if (w[j] > m) m = w[j];
  }
  float sum = 0.0F;
  for (std::size_t j = 0; j < allowed; ++j) {
    w[j] = std::exp(w[j] - m);
    sum += w[j];
  }
  for (std::size_t j = 0; j < allowed; ++j) w[j] = w[j] / sum;
}

}  // namespace

// out[i][c] = w[0] * v[0][c] + w[1] * v[1][c] + ... (left to right over S from 0), with w the
// row's attention weights (attention_weights above).
void attention_forward(const KernelCall& call) {
  const AttentionDims d = dims_of(call.node, *call.inputs[0].shape, *call.inputs[2].shape);
  std::vector<float> w(d.s);
  for (std::size_t b = 0; b < d.batch; ++b) {
    const float* q = call.inputs[0].data<float>() + b * d.l * d.e;
    const float* k = call.inputs[1].data<float>() + b * d.s * d.e;
    const float* v = call.inputs[2].data<float>() + b * d.s * d.ev;
    float* out = call.output.data<float>() + b * d.l * d.ev;
    for (std::size_t i = 0; i < d.l; ++i) {
      attention_weights(d, q + i * d.e, k, i, w.data());
      float* o = out + i * d.ev;
      for (std::size_t c = 0; c < d.ev; ++c) o[c] = 0.0F;
      for (std::size_t j = 0; j < d.s; ++j) {
        for (std::size_t c = 0; c < d.ev; ++c) o[c] += w[j] * v[j * d.ev + c];
      }
    }
  }
}

// Per query row i, with w its attention weights recomputed as in the forward pass:
//   dw[j] = g[i] . v[j] (left to right over Ev), t = w[0] * dw[0] + ... (left to right over S),
//   ds[j] = (w[j] * (dw[j] - t)) * scale,
//   dq[i][c] += ds[j] * k[j][c], dk[j][c] += ds[j] * q[i][c], dv[j][c] += w[j] * g[i][c]
// for j in increasing order; rows i are visited in increasing order, so every gradient
// element accumulates left to right.
void attention_vjp(const VjpCall& call) {
  const AttentionDims d = dims_of(call.node, *call.inputs[0].shape, *call.inputs[2].shape);
  std::vector<float> w(d.s);
  std::vector<float> ds(d.s);
  for (std::size_t b = 0; b < d.batch; ++b) {
    const float* q = call.inputs[0].data<float>() + b * d.l * d.e;
    const float* k = call.inputs[1].data<float>() + b * d.s * d.e;
    const float* v = call.inputs[2].data<float>() + b * d.s * d.ev;
    const float* g = call.output_grad.data<float>() + b * d.l * d.ev;
    float* dq = call.input_grads[0].data<float>() + b * d.l * d.e;
    float* dk = call.input_grads[1].data<float>() + b * d.s * d.e;
    float* dv = call.input_grads[2].data<float>() + b * d.s * d.ev;
    for (std::size_t i = 0; i < d.l; ++i) {
      const float* q_row = q + i * d.e;
      const float* g_row = g + i * d.ev;
      attention_weights(d, q_row, k, i, w.data());
      float t = 0.0F;
      for (std::size_t j = 0; j < d.s; ++j) {
        float dw = 0.0F;
        for (std::size_t c = 0; c < d.ev; ++c) dw += g_row[c] * v[j * d.ev + c];
        ds[j] = dw;
        t += w[j] * dw;
      }
      for (std::size_t j = 0; j < d.s; ++j) ds[j] = w[j] * (ds[j] - t) * d.scale;
      for (std::size_t j = 0; j < d.s; ++j) {
        for (std::size_t c = 0; c < d.e; ++c) dq[i * d.e + c] += ds[j] * k[j * d.e + c];
        for (std::size_t c = 0; c < d.e; ++c) dk[j * d.e + c] += ds[j] * q_row[c];
        for (std::size_t c = 0; c < d.ev; ++c) dv[j * d.ev + c] += w[j] * g_row[c];
      }
    }
  }
}

std::span<const ReferenceHandler> attention_handlers() {
  static constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/attention_test.cpp"};
  static const ReferenceHandler kTable[] = {
      {.op = backend::BackendOp::scaled_dot_product_attention,
       .handler = {.symbol = "nnplan::runtime::reference::attention_forward",
                   .forward = attention_forward,
                   .vjp = attention_vjp,
                   .shape_guard = attention_shape_guard,
                   .layout_guard = canonical_layout_guard,
                   .forward_tests = kTests,
                   .vjp_tests = kTests}},
  };
  return kTable;
}

}  // namespace nnplan::runtime::reference
