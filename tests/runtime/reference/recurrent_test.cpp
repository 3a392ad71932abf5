// The reference rnn, gru and lstm kernels (ONNX's RNN, GRU and LSTM with default activations):
// a hand case, a float64 oracle written here from ONNX's equations over every direction, initial
// states given or zero, bias or none and gru's linear_before_reset, the Y layout of a
// bidirectional node, the shape guard's messages, and the VJPs (X, the initial states, weight,
// recurrence and bias) by finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace recurrent_test {
namespace {

using backend::BackendOp;
using ir::OpKind;
using namespace testing;

struct Case {
  OpKind kind = OpKind::rnn;
  ir::RecurrentDirection direction = ir::RecurrentDirection::forward;
  ir::Dim seq = 3, batch = 2, input = 3, hidden = 2;
  std::size_t states = 0;  // initial states given as parents
  bool bias = true;
  bool linear_before_reset = false;
  std::uint32_t seed = 11;

  ir::Dim dirs() const { return ir::direction_count(direction); }
  ir::Dim rows() const { return ir::recurrent_gates(kind) * hidden; }
  BackendOp op() const {
    return kind == OpKind::rnn   ? BackendOp::rnn
           : kind == OpKind::gru ? BackendOp::gru
                                 : BackendOp::lstm;
  }
  std::string name() const {
    return std::string(ir::to_string(kind)) + " dirs " + std::to_string(dirs()) + " states " +
           std::to_string(states) + (bias ? " bias" : "") + (linear_before_reset ? " lbr" : "");
  }
};

ir::Node node_of(const Case& c) {
  ir::Parents parents = {0};
  for (std::size_t i = 0; i < c.states; ++i)
    parents.push_back(static_cast<ir::NodeId>(i + 1));
  return {.id = static_cast<ir::NodeId>(c.states + 1),
          .kind = c.kind,
          .parents = parents,
          .shape = shape_of({c.seq, c.dirs(), c.batch, c.hidden}),
          .params = ir::RecurrentParams{.hidden_size = c.hidden,
                                        .direction = c.direction,
                                        .linear_before_reset = c.linear_before_reset}};
}

struct Operands {
  std::vector<Tensor> inputs;
  ir::WeightStore store;
};

Operands operands_of(const Case& c, float weight_scale = 0.6F) {
  Operands o;
  o.inputs.push_back(random_tensor(shape_of({c.seq, c.batch, c.input}), c.seed, -1.5F, 1.5F));
  for (std::size_t i = 0; i < c.states; ++i) {
    o.inputs.push_back(
        random_tensor(shape_of({c.dirs(), c.batch, c.hidden}), c.seed + 1 + i, -0.8F, 0.8F));
  }
  const ir::NodeId id = node_of(c).id;
  const auto put = [&](const char* name, const ir::Shape& shape, std::uint32_t seed) {
    o.store.tensors[{id, name}] = ir::WeightTensor::of_floats(
        shape, random_tensor(shape, seed, -weight_scale, weight_scale).floats());
  };
  put("weight", shape_of({c.dirs(), c.rows(), c.input}), c.seed + 10);
  put("recurrence", shape_of({c.dirs(), c.rows(), c.hidden}), c.seed + 11);
  if (c.bias) put("bias", shape_of({c.dirs(), 2 * c.rows()}), c.seed + 12);
  return o;
}

double sigmoid(double v) {
  return 1.0 / (1.0 + std::exp(-v));
}

// ONNX's equations in float64: Y [seq, dirs, batch, hidden].
std::vector<double> oracle(const Case& c, const Operands& o) {
  const ir::NodeId id = node_of(c).id;
  const auto floats = [&](const char* name) {
    auto it = o.store.tensors.find({id, name});
    return it == o.store.tensors.end() ? std::vector<float>() : it->second.to_vector<float>();
  };
  const std::vector<float> w = floats("weight"), r = floats("recurrence"), b = floats("bias");
  const std::vector<float>& x = o.inputs[0].floats();
  const std::size_t S = c.seq, N = c.batch, I = c.input, H = c.hidden, D = c.dirs(), G = c.rows();
  std::vector<double> y(S * D * N * H);
  for (std::size_t d = 0; d < D; ++d) {
    const bool reverse = c.direction == ir::RecurrentDirection::reverse || d == 1;
    for (std::size_t n = 0; n < N; ++n) {
      std::vector<double> h(H, 0.0), cell(H, 0.0);
      for (std::size_t j = 0; j < H; ++j) {
        if (c.states >= 1) h[j] = o.inputs[1].floats()[(d * N + n) * H + j];
        if (c.states >= 2) cell[j] = o.inputs[2].floats()[(d * N + n) * H + j];
      }
      for (std::size_t step = 0; step < S; ++step) {
        const std::size_t t = reverse ? S - 1 - step : step;
        // xw[row] = W x + Wb, hr[row] = R h + Rb
        std::vector<double> xw(G), hr(G);
        for (std::size_t row = 0; row < G; ++row) {
          double a = b.empty() ? 0.0 : b[d * 2 * G + row];
          for (std::size_t i = 0; i < I; ++i)
            a += static_cast<double>(w[(d * G + row) * I + i]) * x[(t * N + n) * I + i];
          xw[row] = a;
          double e = b.empty() ? 0.0 : b[d * 2 * G + G + row];
          for (std::size_t m = 0; m < H; ++m)
            e += static_cast<double>(r[(d * G + row) * H + m]) * h[m];
          hr[row] = e;
        }
        std::vector<double> next(H);
        for (std::size_t j = 0; j < H; ++j) {
          if (c.kind == OpKind::rnn) {
            next[j] = std::tanh(xw[j] + hr[j]);
          } else if (c.kind == OpKind::lstm) {
            const double i = sigmoid(xw[j] + hr[j]);
            const double og = sigmoid(xw[H + j] + hr[H + j]);
            const double f = sigmoid(xw[2 * H + j] + hr[2 * H + j]);
            const double g = std::tanh(xw[3 * H + j] + hr[3 * H + j]);
            cell[j] = f * cell[j] + i * g;
            next[j] = og * std::tanh(cell[j]);
          }
        }
        if (c.kind == OpKind::gru) {
          std::vector<double> z(H), rg(H);
          for (std::size_t j = 0; j < H; ++j) {
            z[j] = sigmoid(xw[j] + hr[j]);
            rg[j] = sigmoid(xw[H + j] + hr[H + j]);
          }
          for (std::size_t j = 0; j < H; ++j) {
            double hh = 0;
            if (c.linear_before_reset) {
              hh = std::tanh(xw[2 * H + j] + rg[j] * hr[2 * H + j]);
            } else {
              double e = b.empty() ? 0.0 : b[d * 2 * G + G + 2 * H + j];
              for (std::size_t m = 0; m < H; ++m)
                e += static_cast<double>(r[(d * G + 2 * H + j) * H + m]) * rg[m] * h[m];
              hh = std::tanh(xw[2 * H + j] + e);
            }
            next[j] = (1 - z[j]) * hh + z[j] * h[j];
          }
        }
        h = next;
        for (std::size_t j = 0; j < H; ++j)
          y[((t * D + d) * N + n) * H + j] = h[j];
      }
    }
  }
  return y;
}

std::vector<Case> every_case() {
  std::vector<Case> cases;
  std::uint32_t seed = 100;
  for (const OpKind kind : {OpKind::rnn, OpKind::gru, OpKind::lstm}) {
    for (const auto direction : {ir::RecurrentDirection::forward, ir::RecurrentDirection::reverse,
                                 ir::RecurrentDirection::bidirectional}) {
      const std::size_t most_states = kind == OpKind::lstm ? 2 : 1;
      for (std::size_t states = 0; states <= most_states; ++states) {
        for (const bool lbr : {false, true}) {
          if (lbr && kind != OpKind::gru) continue;
          cases.push_back({.kind = kind,
                           .direction = direction,
                           .states = states,
                           .bias = states != 1,
                           .linear_before_reset = lbr,
                           .seed = seed});
          seed += 20;
        }
      }
    }
  }
  return cases;
}

void expect_matches_oracle(const Case& c) {
  SCOPED_TRACE(c.name());
  const Operands o = operands_of(c);
  const auto y = run_forward(handler(c.op()), node_of(c), o.inputs, o.store);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  const std::vector<double> want = oracle(c, o);
  ASSERT_EQ(y->floats().size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(y->floats()[i], want[i], 2e-6 * (1 + std::abs(want[i]))) << "element " << i;
  EXPECT_TRUE(deterministic(handler(c.op()), node_of(c), o.inputs, o.store));
}

// Two steps of an rnn with hidden size 1, written out.
TEST(reference_rnn_forward_tests, hand_case) {
  const Case c{.kind = OpKind::rnn, .seq = 2, .batch = 1, .input = 1, .hidden = 1};
  Operands o;
  o.inputs = {tensor({2, 1, 1}, {1.0F, 2.0F})};
  const ir::NodeId id = node_of(c).id;
  o.store.tensors[{id, "weight"}] = ir::WeightTensor::of_floats(shape_of({1, 1, 1}), {{0.5F}});
  o.store.tensors[{id, "recurrence"}] = ir::WeightTensor::of_floats(shape_of({1, 1, 1}), {{0.25F}});
  o.store.tensors[{id, "bias"}] = ir::WeightTensor::of_floats(shape_of({1, 2}), {{0.1F, 0.2F}});
  const auto y = run_forward(handler(BackendOp::rnn), node_of(c), o.inputs, o.store);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  // h1 = tanh((0.5 * 1 + 0.1) + (0.25 * 0 + 0.2)); h2 = tanh((0.5 * 2 + 0.1) + (0.25 * h1 + 0.2))
  const float h1 = std::tanh((0.5F * 1.0F + 0.1F) + (0.25F * 0.0F + 0.2F));
  const float h2 = std::tanh((0.5F * 2.0F + 0.1F) + (0.25F * h1 + 0.2F));
  EXPECT_EQ(y->floats(), (std::vector<float>{h1, h2}));
}

TEST(reference_rnn_forward_tests, float64_oracle) {
  for (const Case& c : every_case())
    if (c.kind == OpKind::rnn) expect_matches_oracle(c);
}
TEST(reference_gru_forward_tests, float64_oracle) {
  for (const Case& c : every_case())
    if (c.kind == OpKind::gru) expect_matches_oracle(c);
}
TEST(reference_lstm_forward_tests, float64_oracle) {
  for (const Case& c : every_case())
    if (c.kind == OpKind::lstm) expect_matches_oracle(c);
}

// A bidirectional node writes the forward direction's states at [t, 0] and the reverse one's at
// [t, 1], each at the time it belongs to: the reverse direction's state at t = seq - 1 is its
// first step, which equals a reverse node's.
TEST(reference_lstm_forward_tests, bidirectional_layout) {
  Case both{.kind = OpKind::lstm, .direction = ir::RecurrentDirection::bidirectional};
  const Operands o = operands_of(both);
  const auto y = run_forward(handler(BackendOp::lstm), node_of(both), o.inputs, o.store);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  // The reverse direction alone, with direction 1's weights.
  Case rev = both;
  rev.direction = ir::RecurrentDirection::reverse;
  Operands one;
  one.inputs = o.inputs;
  const ir::NodeId id = node_of(both).id;
  for (const char* name : {"weight", "recurrence", "bias"}) {
    const ir::WeightTensor& t = o.store.tensors.at({id, name});
    const std::vector<float> all = t.to_vector<float>();
    ir::Shape half = t.shape();
    half.dims[0] = 1;
    const std::size_t n = all.size() / 2;
    one.store.tensors[{id, name}] = ir::WeightTensor::of_floats(
        half, std::vector<float>(all.begin() + static_cast<std::ptrdiff_t>(n), all.end()));
  }
  const auto r = run_forward(handler(BackendOp::lstm), node_of(rev), one.inputs, one.store);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  const std::size_t H = both.hidden, N = both.batch;
  for (std::size_t t = 0; t < both.seq; ++t) {
    for (std::size_t k = 0; k < N * H; ++k)
      EXPECT_EQ(y->floats()[(t * 2 + 1) * N * H + k], r->floats()[t * N * H + k]);
  }
}

TEST(reference_gru_forward_tests, shape_guard) {
  const Case c{.kind = OpKind::gru, .states = 1};
  Operands o = operands_of(c);
  o.inputs[1] = zeros(shape_of({1, 3, 2}));
  EXPECT_EQ(guard_message(handler(BackendOp::gru), node_of(c), o.inputs, o.store),
            "node 2 (gru): parent 1 (initial h) has shape [1,3,2]; expected [1,2,2]");
  Operands missing = operands_of(c);
  missing.store.tensors.erase({node_of(c).id, "recurrence"});
  EXPECT_NE(guard_message(handler(BackendOp::gru), node_of(c), missing.inputs, missing.store)
                .find("recurrence"),
            std::string::npos);
}

void expect_vjp(OpKind kind) {
  for (const Case& c : every_case()) {
    if (c.kind != kind) continue;
    SCOPED_TRACE(c.name());
    const Operands o = operands_of(c);
    EXPECT_TRUE(check_vjp(handler(c.op()), node_of(c), o.inputs, o.store));
  }
}

TEST(reference_rnn_vjp_tests, finite_differences) {
  expect_vjp(OpKind::rnn);
}
TEST(reference_gru_vjp_tests, finite_differences) {
  expect_vjp(OpKind::gru);
}
TEST(reference_lstm_vjp_tests, finite_differences) {
  expect_vjp(OpKind::lstm);
}

}  // namespace
}  // namespace recurrent_test
}  // namespace nnplan::runtime::reference
