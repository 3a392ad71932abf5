// Reference kernels: rnn, gru and lstm (ONNX's RNN, GRU and LSTM with their default activations),
// forward and VJP (back-propagation through time).
//
// Per direction d and batch row n, from h = initial_h[d, n] (or zeros), c likewise, each step t
// (0 up to seq - 1 forward, down from seq - 1 in reverse) computes every gate row's
// pre-activation as
//   a[row] = (W[row] . x_t + Wb[row]) + (R[row] . s + Rb[row])
// with each dot product summed left to right from 0 in float32 and s = h, except gru's h rows
// without linear_before_reset, where s = r * h; then, with sigmoid(v) = 1 / (1 + exp(-v)) and
// the C library's tanh:
//   rnn:  h' = tanh(a)
//   gru:  z = sigmoid(a_z), r = sigmoid(a_r),
//         hh = tanh(a_h), or with linear_before_reset tanh((W_h . x + Wb_h) + r * (R_h . h +
//         Rb_h)), h' = (1 - z) * hh + z * h
//   lstm: i = sigmoid(a_i), o = sigmoid(a_o), f = sigmoid(a_f), g = tanh(a_c),
//         c' = f * c + i * g, h' = o * tanh(c')
// and writes h' to Y[t, d, n]. A missing bias is zeros. The VJP runs the steps again, keeping
// each step's gates, then walks them back, adding into dX, the initial states' gradients and the
// weight, recurrence and bias gradients.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {
namespace {

float sigmoid(float v) {
  return 1.0F / (1.0F + std::exp(-v));
}

// The extents of one call and its payloads' data.
struct Recurrence {
  ir::OpKind kind = ir::OpKind::rnn;
  bool reset_after = false;  // gru's linear_before_reset
  std::size_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1, gates = 1;
  bool reverse_only = false;  // direction reverse (a bidirectional node's second direction is too)
  const float* w = nullptr;   // [dirs, gates * hidden, input]
  const float* r = nullptr;   // [dirs, gates * hidden, hidden]
  const float* b = nullptr;   // [dirs, 2 * gates * hidden], or null

  std::size_t rows() const { return gates * hidden; }
  bool reversed(std::size_t d) const { return reverse_only || d == 1; }
  const float* w_of(std::size_t d) const { return w + d * rows() * input; }
  const float* r_of(std::size_t d) const { return r + d * rows() * hidden; }
  float wb(std::size_t d, std::size_t row) const {
    return b == nullptr ? 0.0F : b[d * 2 * rows() + row];
  }
  float rb(std::size_t d, std::size_t row) const {
    return b == nullptr ? 0.0F : b[d * 2 * rows() + rows() + row];
  }
  // The row where gate `g` starts (ONNX's order: gru z, r, h; lstm i, o, f, c).
  std::size_t gate(std::size_t g) const { return g * hidden; }
};

Recurrence recurrence_of(const ir::Node& node, const ir::Shape& x, const NodeWeights& weights) {
  const auto& p = std::get<ir::RecurrentParams>(node.params);
  return {.kind = node.kind,
          .reset_after = p.linear_before_reset,
          .seq = static_cast<std::size_t>(x.dims[0]),
          .batch = static_cast<std::size_t>(x.dims[1]),
          .input = static_cast<std::size_t>(x.dims[2]),
          .hidden = static_cast<std::size_t>(p.hidden_size),
          .dirs = static_cast<std::size_t>(ir::direction_count(p.direction)),
          .gates = static_cast<std::size_t>(ir::recurrent_gates(node.kind)),
          .reverse_only = p.direction == ir::RecurrentDirection::reverse,
          .w = weight_data(weights, "weight"),
          .r = weight_data(weights, "recurrence"),
          .b = weight_data(weights, "bias")};
}

float dot(const float* a, const float* b, std::size_t n) {
  float acc = 0.0F;
  for (std::size_t i = 0; i < n; ++i)
    acc += a[i] * b[i];
  return acc;
}

// What one step of one batch row computed, kept for the VJP.
struct StepRecord {
  std::vector<float> h_prev, c_prev;  // the states it started from
  std::vector<float> act;             // every gate's activation, [rows]
  std::vector<float> c, tanh_c;       // lstm: the new cell and its tanh
  std::vector<float> rh;              // gru: r * h_prev (s of the h rows), or R_h . h + Rb_h
};

// Runs direction `d` for batch row `n` from states `h` and `c` (updated in place), writing each
// step's h into Y and, when `records` is given, what the VJP needs ([seq], in step order).
void run_row(const Recurrence& k, std::size_t d, std::size_t n, const float* x, float* y,
             std::vector<float>& h, std::vector<float>& c, std::vector<StepRecord>* records) {
  const std::size_t hid = k.hidden;
  const std::size_t rows = k.rows();
  const float* w = k.w_of(d);
  const float* r = k.r_of(d);
  std::vector<float> xa(rows), ra(rows), act(rows), rh(hid), next_h(hid);
  for (std::size_t step = 0; step < k.seq; ++step) {
    const std::size_t t = k.reversed(d) ? k.seq - 1 - step : step;
    const float* xt = x + (t * k.batch + n) * k.input;
    StepRecord* rec = records != nullptr ? &(*records)[step] : nullptr;
    if (rec != nullptr) {
      rec->h_prev = h;
      rec->c_prev = c;
    }
    for (std::size_t row = 0; row < rows; ++row) {
      xa[row] = dot(w + row * k.input, xt, k.input) + k.wb(d, row);
    }
    // gru without linear_before_reset: the h rows' recurrence reads r * h, so z and r first.
    const bool gru_reset_before = k.kind == ir::OpKind::gru && !k.reset_after;
    const std::size_t first_rows = gru_reset_before ? k.gate(2) : rows;
    for (std::size_t row = 0; row < first_rows; ++row) {
      ra[row] = dot(r + row * hid, h.data(), hid) + k.rb(d, row);
    }
    if (k.kind == ir::OpKind::rnn) {
      for (std::size_t j = 0; j < hid; ++j) {
        act[j] = std::tanh(xa[j] + ra[j]);
        next_h[j] = act[j];
      }
    } else if (k.kind == ir::OpKind::gru) {
      for (std::size_t row = 0; row < k.gate(2); ++row)
        act[row] = sigmoid(xa[row] + ra[row]);
      const float* z = act.data();
      const float* rg = act.data() + k.gate(1);
      for (std::size_t j = 0; j < hid; ++j) {
        const std::size_t row = k.gate(2) + j;
        if (gru_reset_before) {
          rh[j] = rg[j] * h[j];
        } else {
          rh[j] = ra[row];  // R_h . h + Rb_h
        }
      }
      for (std::size_t j = 0; j < hid; ++j) {
        const std::size_t row = k.gate(2) + j;
        const float pre = gru_reset_before
                              ? xa[row] + (dot(r + row * hid, rh.data(), hid) + k.rb(d, row))
                              : xa[row] + rg[j] * rh[j];
        act[row] = std::tanh(pre);
        next_h[j] = (1.0F - z[j]) * act[row] + z[j] * h[j];
      }
    } else {
      for (std::size_t row = 0; row < rows; ++row) {
        const float a = xa[row] + ra[row];
        act[row] = row < k.gate(3) ? sigmoid(a) : std::tanh(a);
      }
      if (rec != nullptr) {
        rec->c.resize(hid);
        rec->tanh_c.resize(hid);
      }
      for (std::size_t j = 0; j < hid; ++j) {
        const float i = act[k.gate(0) + j];
        const float o = act[k.gate(1) + j];
        const float f = act[k.gate(2) + j];
        const float g = act[k.gate(3) + j];
        c[j] = f * c[j] + i * g;
        const float tc = std::tanh(c[j]);
        next_h[j] = o * tc;
        if (rec != nullptr) {
          rec->c[j] = c[j];
          rec->tanh_c[j] = tc;
        }
      }
    }
    h = next_h;
    float* yt = y + ((t * k.dirs + d) * k.batch + n) * hid;
    for (std::size_t j = 0; j < hid; ++j)
      yt[j] = h[j];
    if (rec != nullptr) {
      rec->act = act;
      if (k.kind == ir::OpKind::gru) rec->rh = rh;
    }
  }
}

// Direction d's initial state of batch row n from input `which` (1 h, 2 c), or zeros.
std::vector<float> initial_state(std::span<const TensorRef> inputs, std::size_t which,
                                 const Recurrence& k, std::size_t d, std::size_t n) {
  std::vector<float> s(k.hidden, 0.0F);
  if (inputs.size() > which) {
    const float* from = inputs[which].data<float>() + (d * k.batch + n) * k.hidden;
    s.assign(from, from + k.hidden);
  }
  return s;
}

void recurrent_forward(const KernelCall& call) {
  const Recurrence k = recurrence_of(call.node, *call.inputs[0].shape, call.weights);
  const float* x = call.inputs[0].data<float>();
  float* y = call.output.data<float>();
  for (std::size_t d = 0; d < k.dirs; ++d) {
    for (std::size_t n = 0; n < k.batch; ++n) {
      std::vector<float> h = initial_state(call.inputs, 1, k, d, n);
      std::vector<float> c = initial_state(call.inputs, 2, k, d, n);
      run_row(k, d, n, x, y, h, c, nullptr);
    }
  }
}

// The gradients one VJP adds into (null where not wanted).
struct Grads {
  float* dx = nullptr;
  float* dh0 = nullptr;
  float* dc0 = nullptr;
  float* dw = nullptr;
  float* dr = nullptr;
  float* db = nullptr;
};

// Walks direction d of batch row n back through its recorded steps.
void backprop_row(const Recurrence& k, std::size_t d, std::size_t n, const float* x,
                  const float* gy, const std::vector<StepRecord>& records, const Grads& g) {
  const std::size_t hid = k.hidden;
  const std::size_t rows = k.rows();
  const float* w = k.w_of(d);
  const float* r = k.r_of(d);
  float* dw = g.dw == nullptr ? nullptr : g.dw + d * rows * k.input;
  float* dr = g.dr == nullptr ? nullptr : g.dr + d * rows * hid;
  float* dwb = g.db == nullptr ? nullptr : g.db + d * 2 * rows;
  float* drb = g.db == nullptr ? nullptr : dwb + rows;
  std::vector<float> dh(hid, 0.0F), dc(hid, 0.0F);
  std::vector<float> dx_pre(rows), dr_pre(rows), dh_prev(hid), d_rh(hid);
  for (std::size_t step = k.seq; step-- > 0;) {
    const std::size_t t = k.reversed(d) ? k.seq - 1 - step : step;
    const StepRecord& rec = records[step];
    const float* act = rec.act.data();
    const float* gyt = gy + ((t * k.dirs + d) * k.batch + n) * hid;
    for (std::size_t j = 0; j < hid; ++j)
      dh[j] += gyt[j];
    std::fill(dh_prev.begin(), dh_prev.end(), 0.0F);
    // The recurrence's source s of the h rows (gru reset before: r * h) and whether all rows
    // read h_prev.
    bool h_rows_read_rh = false;
    if (k.kind == ir::OpKind::rnn) {
      for (std::size_t j = 0; j < hid; ++j)
        dx_pre[j] = dh[j] * (1.0F - act[j] * act[j]);
      dr_pre = dx_pre;
    } else if (k.kind == ir::OpKind::lstm) {
      for (std::size_t j = 0; j < hid; ++j) {
        const float i = act[k.gate(0) + j];
        const float o = act[k.gate(1) + j];
        const float f = act[k.gate(2) + j];
        const float gg = act[k.gate(3) + j];
        const float tc = rec.tanh_c[j];
        const float dct = dc[j] + dh[j] * o * (1.0F - tc * tc);
        dx_pre[k.gate(0) + j] = dct * gg * i * (1.0F - i);
        dx_pre[k.gate(1) + j] = dh[j] * tc * o * (1.0F - o);
        dx_pre[k.gate(2) + j] = dct * rec.c_prev[j] * f * (1.0F - f);
        dx_pre[k.gate(3) + j] = dct * i * (1.0F - gg * gg);
        dc[j] = dct * f;
      }
      dr_pre = dx_pre;
    } else {
      const float* z = act;
      const float* rg = act + k.gate(1);
      const float* hh = act + k.gate(2);
      std::vector<float> dr_gate(hid, 0.0F);
      for (std::size_t j = 0; j < hid; ++j) {
        const float dph = dh[j] * (1.0F - z[j]) * (1.0F - hh[j] * hh[j]);
        dx_pre[k.gate(2) + j] = dph;
        dx_pre[k.gate(0) + j] = dh[j] * (rec.h_prev[j] - hh[j]) * z[j] * (1.0F - z[j]);
        dh_prev[j] += dh[j] * z[j];
        if (k.reset_after) {
          dr_gate[j] = dph * rec.rh[j];  // rh holds R_h . h + Rb_h
          dr_pre[k.gate(2) + j] = dph * rg[j];
        } else {
          dr_pre[k.gate(2) + j] = dph;
        }
      }
      if (!k.reset_after) {
        // d(r * h) = R_h^T dph; then r's and h's shares.
        h_rows_read_rh = true;
        std::fill(d_rh.begin(), d_rh.end(), 0.0F);
        for (std::size_t j = 0; j < hid; ++j) {
          const float* rrow = r + (k.gate(2) + j) * hid;
          for (std::size_t m = 0; m < hid; ++m)
            d_rh[m] += dr_pre[k.gate(2) + j] * rrow[m];
        }
        for (std::size_t m = 0; m < hid; ++m) {
          dr_gate[m] = d_rh[m] * rec.h_prev[m];
          dh_prev[m] += d_rh[m] * rg[m];
        }
      }
      for (std::size_t j = 0; j < hid; ++j)
        dx_pre[k.gate(1) + j] = dr_gate[j] * rg[j] * (1.0F - rg[j]);
      for (std::size_t row = 0; row < k.gate(2); ++row)
        dr_pre[row] = dx_pre[row];
    }
    // The input projection's share: dX, dW, dWb.
    const float* xt = x + (t * k.batch + n) * k.input;
    float* dxt = g.dx == nullptr ? nullptr : g.dx + (t * k.batch + n) * k.input;
    for (std::size_t row = 0; row < rows; ++row) {
      const float gv = dx_pre[row];
      const float* wrow = w + row * k.input;
      if (dxt != nullptr) {
        for (std::size_t i = 0; i < k.input; ++i)
          dxt[i] += gv * wrow[i];
      }
      if (dw != nullptr) {
        float* dwrow = dw + row * k.input;
        for (std::size_t i = 0; i < k.input; ++i)
          dwrow[i] += gv * xt[i];
      }
      if (dwb != nullptr) dwb[row] += gv;
    }
    // The recurrence's share: dR, dRb and h_prev's (the h rows of a gru resetting before read
    // r * h, whose share was taken above).
    std::vector<float> rh_src(hid);
    for (std::size_t row = 0; row < rows; ++row) {
      const float gv = dr_pre[row];
      const bool reads_rh = h_rows_read_rh && row >= k.gate(2);
      const float* src = rec.h_prev.data();
      if (reads_rh) {
        for (std::size_t m = 0; m < hid; ++m)
          rh_src[m] = act[k.gate(1) + m] * rec.h_prev[m];
        src = rh_src.data();
      }
      if (dr != nullptr) {
        float* drrow = dr + row * hid;
        for (std::size_t m = 0; m < hid; ++m)
          drrow[m] += gv * src[m];
      }
      if (drb != nullptr) drb[row] += gv;
      if (!reads_rh) {
        const float* rrow = r + row * hid;
        for (std::size_t m = 0; m < hid; ++m)
          dh_prev[m] += gv * rrow[m];
      }
    }
    dh = dh_prev;
  }
  if (g.dh0 != nullptr) {
    float* to = g.dh0 + (d * k.batch + n) * hid;
    for (std::size_t j = 0; j < hid; ++j)
      to[j] += dh[j];
  }
  if (g.dc0 != nullptr) {
    float* to = g.dc0 + (d * k.batch + n) * hid;
    for (std::size_t j = 0; j < hid; ++j)
      to[j] += dc[j];
  }
}

void recurrent_vjp(const VjpCall& call) {
  const Recurrence k = recurrence_of(call.node, *call.inputs[0].shape, call.weights);
  const float* x = call.inputs[0].data<float>();
  const Grads g{.dx = call.input_grads[0].data<float>(),
                .dh0 = call.input_grads.size() > 1 ? call.input_grads[1].data<float>() : nullptr,
                .dc0 = call.input_grads.size() > 2 ? call.input_grads[2].data<float>() : nullptr,
                .dw = weight_grad(call, "weight"),
                .dr = weight_grad(call, "recurrence"),
                .db = weight_grad(call, "bias")};
  std::vector<float> y(call.output.size());
  std::vector<StepRecord> records(k.seq);
  for (std::size_t d = 0; d < k.dirs; ++d) {
    for (std::size_t n = 0; n < k.batch; ++n) {
      std::vector<float> h = initial_state(call.inputs, 1, k, d, n);
      std::vector<float> c = initial_state(call.inputs, 2, k, d, n);
      run_row(k, d, n, x, y.data(), h, c, &records);
      backprop_row(k, d, n, x, call.output_grad.data<float>(), records, g);
    }
  }
}

template <backend::BackendOp Op>
Expected<void> recurrent_guard(const KernelCall& call) {
  return ir_shape_guard(call, Op);
}

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/recurrent_test.cpp"};

constexpr HandlerDefinition recurrent(std::string_view symbol, GuardFn guard) {
  return {.symbol = symbol,
          .forward = recurrent_forward,
          .vjp = recurrent_vjp,
          .shape_guard = guard,
          .layout_guard = canonical_layout_guard,
          .in_place_safe = false,
          .forward_tests = kTests,
          .vjp_tests = kTests};
}

constexpr ReferenceHandler kHandlers[] = {
    {backend::BackendOp::rnn, recurrent("nnplan::runtime::reference::recurrent_forward",
                                        recurrent_guard<backend::BackendOp::rnn>)},
    {backend::BackendOp::gru, recurrent("nnplan::runtime::reference::recurrent_forward",
                                        recurrent_guard<backend::BackendOp::gru>)},
    {backend::BackendOp::lstm, recurrent("nnplan::runtime::reference::recurrent_forward",
                                         recurrent_guard<backend::BackendOp::lstm>)},
};

}  // namespace

std::span<const ReferenceHandler> recurrent_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::reference
