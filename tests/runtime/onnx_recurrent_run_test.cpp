// RNN, GRU and LSTM (operators/recurrent.cpp) run end to end under checked_cpu and fast_cpu
// against a float64 oracle written here from ONNX's equations: every direction, both layouts,
// bias, initial states, peepholes, clip, linear_before_reset, input_forget, and activations with
// their alpha and beta; every output (Y, Y_h, Y_c). Each case also checks the form the import
// took: one rnn, gru or lstm node (run by onednn.<kind> under fast_cpu) when the node keeps to
// the defaults and LSTM's Y_c is unused, else the unrolled steps.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../format/onnx/onnx_test_models.hpp"
#include "nnplan/backend/op_mapping.hpp"
#include "nnplan/runtime/executor.hpp"
#include "onednn_graph_builders.hpp"
#include "runtime_test_support.hpp"

namespace nnplan::runtime {
namespace onnx_recurrent_run_test {
namespace {

using format::onnx_test::attr_f;
using format::onnx_test::attr_i;
using format::onnx_test::attr_s;
using format::onnx_test::Model;
using format::onnx_test::new_attr;

struct Case {
  std::string op;  // RNN, GRU or LSTM
  std::string direction = "forward";
  int layout = 0;
  std::int64_t seq = 3;
  std::int64_t batch = 2;
  std::int64_t input = 4;
  std::int64_t hidden = 3;
  bool bias = true;
  bool initial_h = true;
  bool initial_c = true;
  bool peepholes = false;
  bool linear_before_reset = false;
  bool input_forget = false;
  std::optional<float> clip;
  std::vector<std::string> activations;  // empty: the defaults
  std::vector<float> alphas;
  std::vector<float> betas;
  bool y_c = true;  // LSTM: Y_c is a graph output

  int gates() const { return op == "RNN" ? 1 : op == "GRU" ? 3 : 4; }
  std::int64_t dirs() const { return direction == "bidirectional" ? 2 : 1; }
  int functions() const { return op == "RNN" ? 1 : op == "GRU" ? 2 : 3; }
  // Whether `activations` names ONNX's defaults for each direction (or is empty).
  bool activations_are_defaults() const {
    const std::vector<std::string> defaults =
        op == "RNN"   ? std::vector<std::string>{"Tanh"}
        : op == "GRU" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                      : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (std::size_t i = 0; i < activations.size(); ++i) {
      if (activations[i] != defaults[i % defaults.size()]) return false;
    }
    return true;
  }
};

// Deterministic values in [-scale, scale].
std::vector<float> values(std::size_t n, float seed, float scale) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = scale * static_cast<float>(std::sin(seed + 0.731 * static_cast<double>(i)));
  return v;
}

struct Data {
  std::vector<float> x, w, r, b, p, h0, c0;
};

Data data_of(const Case& c) {
  const auto g = static_cast<std::size_t>(c.gates());
  const auto d = static_cast<std::size_t>(c.dirs());
  const auto h = static_cast<std::size_t>(c.hidden);
  const auto state = d * static_cast<std::size_t>(c.batch) * h;
  return {.x = values(static_cast<std::size_t>(c.seq * c.batch * c.input), 0.1F, 1.5F),
          .w = values(d * g * h * static_cast<std::size_t>(c.input), 1.3F, 0.8F),
          .r = values(d * g * h * h, 2.7F, 0.8F),
          .b = values(d * 2 * g * h, 3.9F, 0.5F),
          .p = values(d * 3 * h, 5.1F, 0.6F),
          .h0 = values(state, 6.2F, 0.7F),
          .c0 = values(state, 7.4F, 0.9F)};
}

struct Activation {
  std::string name;
  double alpha;
  double beta;
};

// The activations of the case per direction, parameters taken as the importer documents.
std::vector<Activation> activations_of(const Case& c) {
  std::vector<std::string> names = c.activations;
  if (names.empty()) {
    for (std::int64_t d = 0; d < c.dirs(); ++d) {
      if (c.op == "RNN") names.insert(names.end(), {"Tanh"});
      if (c.op == "GRU") names.insert(names.end(), {"Sigmoid", "Tanh"});
      if (c.op == "LSTM") names.insert(names.end(), {"Sigmoid", "Tanh", "Tanh"});
    }
  }
  const std::map<std::string, std::pair<int, std::pair<double, double>>> defaults = {
      {"LeakyRelu", {1, {0.01, 0}}},    {"Elu", {1, {1, 0}}},    {"ThresholdedRelu", {1, {1, 0}}},
      {"HardSigmoid", {2, {0.2, 0.5}}}, {"Affine", {2, {1, 0}}}, {"ScaledTanh", {2, {1, 1}}}};
  std::size_t a = 0;
  std::size_t b = 0;
  std::vector<Activation> out;
  for (const std::string& n : names) {
    Activation act{n, 0, 0};
    if (const auto f = defaults.find(n); f != defaults.end()) {
      act.alpha = a < c.alphas.size() ? c.alphas[a++] : f->second.second.first;
      if (f->second.first == 2)
        act.beta = b < c.betas.size() ? c.betas[b++] : f->second.second.second;
    }
    out.push_back(act);
  }
  return out;
}

double apply(const Activation& a, double x) {
  if (a.name == "Relu") return x > 0 ? x : 0;
  if (a.name == "Tanh") return std::tanh(x);
  if (a.name == "Sigmoid") return 1 / (1 + std::exp(-x));
  if (a.name == "Softsign") return x / (1 + std::abs(x));
  if (a.name == "Softplus") return std::log1p(std::exp(x));
  if (a.name == "LeakyRelu") return x >= 0 ? x : a.alpha * x;
  if (a.name == "Elu") return x >= 0 ? x : a.alpha * (std::exp(x) - 1);
  if (a.name == "ThresholdedRelu") return x > a.alpha ? x : 0;
  if (a.name == "HardSigmoid") return std::min(1.0, std::max(0.0, a.alpha * x + a.beta));
  if (a.name == "Affine") return a.alpha * x + a.beta;
  if (a.name == "ScaledTanh") return a.alpha * std::tanh(a.beta * x);
  ADD_FAILURE() << "no activation " << a.name;
  return 0;
}

struct Expected3 {
  std::vector<double> y, y_h, y_c;
};

// ONNX's equations in float64.
Expected3 oracle(const Case& c, const Data& v) {
  const std::int64_t S = c.seq, B = c.batch, I = c.input, H = c.hidden, D = c.dirs();
  const std::int64_t G = c.gates();
  const std::vector<Activation> acts = activations_of(c);
  Expected3 out;
  out.y.assign(static_cast<std::size_t>(S * D * B * H), 0);
  out.y_h.assign(static_cast<std::size_t>(D * B * H), 0);
  out.y_c.assign(static_cast<std::size_t>(D * B * H), 0);
  const auto xi = [&](std::int64_t t, std::int64_t b, std::int64_t i) {
    return static_cast<double>(
        v.x[static_cast<std::size_t>(c.layout == 0 ? (t * B + b) * I + i : (b * S + t) * I + i)]);
  };
  const auto state_at = [&](std::int64_t d, std::int64_t b, std::int64_t k) {
    return static_cast<std::size_t>(c.layout == 0 ? (d * B + b) * H + k : (b * D + d) * H + k);
  };
  const auto clip = [&](double x) {
    return c.clip ? std::min<double>(*c.clip, std::max<double>(-*c.clip, x)) : x;
  };
  for (std::int64_t d = 0; d < D; ++d) {
    const Activation* act = &acts[static_cast<std::size_t>(d * c.functions())];
    const bool reverse = c.direction == "reverse" || d == 1;
    const auto W = [&](std::int64_t row, std::int64_t i) {
      return static_cast<double>(v.w[static_cast<std::size_t>((d * G * H + row) * I + i)]);
    };
    const auto R = [&](std::int64_t row, std::int64_t k) {
      return static_cast<double>(v.r[static_cast<std::size_t>((d * G * H + row) * H + k)]);
    };
    const auto Wb = [&](std::int64_t row) {
      return c.bias ? static_cast<double>(v.b[static_cast<std::size_t>(d * 2 * G * H + row)]) : 0;
    };
    const auto Rb = [&](std::int64_t row) {
      return c.bias
                 ? static_cast<double>(v.b[static_cast<std::size_t>(d * 2 * G * H + G * H + row)])
                 : 0;
    };
    const auto P = [&](int gate, std::int64_t k) {
      return c.peepholes
                 ? static_cast<double>(v.p[static_cast<std::size_t>(d * 3 * H + gate * H + k)])
                 : 0;
    };
    std::vector<std::vector<double>> h(B, std::vector<double>(H, 0));
    std::vector<std::vector<double>> cs(B, std::vector<double>(H, 0));
    for (std::int64_t b = 0; b < B; ++b) {
      for (std::int64_t k = 0; k < H; ++k) {
        if (c.initial_h) h[b][k] = v.h0[state_at(d, b, k)];
        if (c.initial_c && c.op == "LSTM") cs[b][k] = v.c0[state_at(d, b, k)];
      }
    }
    for (std::int64_t step = 0; step < S; ++step) {
      const std::int64_t t = reverse ? S - 1 - step : step;
      auto next_h = h;
      auto next_c = cs;
      for (std::int64_t b = 0; b < B; ++b) {
        // x W^T + Wb and H R^T + Rb per gate row.
        std::vector<double> xw(G * H), hr(G * H);
        for (std::int64_t row = 0; row < G * H; ++row) {
          double sx = Wb(row);
          for (std::int64_t i = 0; i < I; ++i)
            sx += xi(t, b, i) * W(row, i);
          double sh = Rb(row);
          for (std::int64_t k = 0; k < H; ++k)
            sh += h[b][k] * R(row, k);
          xw[row] = sx;
          hr[row] = sh;
        }
        for (std::int64_t k = 0; k < H; ++k) {
          if (c.op == "RNN") {
            next_h[b][k] = apply(act[0], clip(xw[k] + hr[k]));
          } else if (c.op == "GRU") {
            const double z = apply(act[0], clip(xw[k] + hr[k]));
            const double r = apply(act[0], clip(xw[H + k] + hr[H + k]));
            double pre = xw[2 * H + k];
            if (c.linear_before_reset) {
              pre += r * hr[2 * H + k];
            } else {
              double s = Rb(2 * H + k);
              for (std::int64_t j = 0; j < H; ++j) {
                const double rj = apply(act[0], clip(xw[H + j] + hr[H + j]));
                s += rj * h[b][j] * R(2 * H + k, j);
              }
              pre += s;
            }
            const double hh = apply(act[1], clip(pre));
            next_h[b][k] = (1 - z) * hh + z * h[b][k];
          } else {
            const double i = apply(act[0], clip(xw[k] + hr[k] + P(0, k) * cs[b][k]));
            const double f =
                c.input_forget
                    ? 1 - i
                    : apply(act[0], clip(xw[2 * H + k] + hr[2 * H + k] + P(2, k) * cs[b][k]));
            const double cc = apply(act[1], clip(xw[3 * H + k] + hr[3 * H + k]));
            const double cn = f * cs[b][k] + i * cc;
            const double o = apply(act[0], clip(xw[H + k] + hr[H + k] + P(1, k) * cn));
            next_c[b][k] = cn;
            next_h[b][k] = o * apply(act[2], cn);
          }
        }
      }
      h = next_h;
      cs = next_c;
      for (std::int64_t b = 0; b < B; ++b) {
        for (std::int64_t k = 0; k < H; ++k) {
          const std::int64_t at =
              c.layout == 0 ? ((t * D + d) * B + b) * H + k : ((b * S + t) * D + d) * H + k;
          out.y[static_cast<std::size_t>(at)] = h[b][k];
        }
      }
    }
    for (std::int64_t b = 0; b < B; ++b) {
      for (std::int64_t k = 0; k < H; ++k) {
        out.y_h[state_at(d, b, k)] = h[b][k];
        out.y_c[state_at(d, b, k)] = cs[b][k];
      }
    }
  }
  return out;
}

Model model_of(const Case& c, const Data& v) {
  Model m(14);
  const std::int64_t G = c.gates(), H = c.hidden, D = c.dirs();
  m.input("x", c.layout == 0 ? std::vector<std::int64_t>{c.seq, c.batch, c.input}
                             : std::vector<std::int64_t>{c.batch, c.seq, c.input});
  const std::vector<std::int64_t> state = c.layout == 0 ? std::vector<std::int64_t>{D, c.batch, H}
                                                        : std::vector<std::int64_t>{c.batch, D, H};
  if (c.initial_h) m.input("h0", state);
  const bool lstm = c.op == "LSTM";
  if (lstm && c.initial_c) m.input("c0", state);
  m.init("W", {D, G * H, c.input}, v.w).init("R", {D, G * H, H}, v.r);
  std::vector<std::string> ins = {"x", "W", "R", c.bias ? "B" : "", "", c.initial_h ? "h0" : ""};
  if (c.bias) m.init("B", {D, 2 * G * H}, v.b);
  if (lstm) {
    ins.push_back(c.initial_c ? "c0" : "");
    ins.push_back(c.peepholes ? "P" : "");
    if (c.peepholes) m.init("P", {D, 3 * H}, v.p);
  }
  while (!ins.empty() && ins.back().empty())
    ins.pop_back();
  std::vector<std::string> outs = {"y", "y_h"};
  if (lstm && c.y_c) outs.push_back("y_c");
  for (const std::string& o : outs)
    m.output(o);
  auto& n = m.node(c.op, ins, outs, "rec");
  attr_s(n, "direction", c.direction);
  attr_i(n, "hidden_size", H);
  if (c.layout != 0) attr_i(n, "layout", c.layout);
  if (c.linear_before_reset) attr_i(n, "linear_before_reset", 1);
  if (c.input_forget) attr_i(n, "input_forget", 1);
  if (c.clip) attr_f(n, "clip", *c.clip);
  if (!c.activations.empty()) {
    auto& a = new_attr(n, "activations", onnx::AttributeProto_AttributeType_STRINGS);
    for (const std::string& s : c.activations)
      a.add_strings(s);
  }
  if (!c.alphas.empty()) {
    auto& a = new_attr(n, "activation_alpha", onnx::AttributeProto_AttributeType_FLOATS);
    for (const float f : c.alphas)
      a.add_floats(f);
  }
  if (!c.betas.empty()) {
    auto& a = new_attr(n, "activation_beta", onnx::AttributeProto_AttributeType_FLOATS);
    for (const float f : c.betas)
      a.add_floats(f);
  }
  return m;
}

void check_case(const Case& c) {
  const Data v = data_of(c);
  const Expected3 want = oracle(c, v);
  const Model m = model_of(c, v);
  const ir::Shape state =
      c.layout == 0 ? ir::Shape{{static_cast<ir::Dim>(c.dirs()), static_cast<ir::Dim>(c.batch),
                                 static_cast<ir::Dim>(c.hidden)}}
                    : ir::Shape{{static_cast<ir::Dim>(c.batch), static_cast<ir::Dim>(c.dirs()),
                                 static_cast<ir::Dim>(c.hidden)}};
  const ir::Shape xs = c.layout == 0
                           ? ir::Shape{{static_cast<ir::Dim>(c.seq), static_cast<ir::Dim>(c.batch),
                                        static_cast<ir::Dim>(c.input)}}
                           : ir::Shape{{static_cast<ir::Dim>(c.batch), static_cast<ir::Dim>(c.seq),
                                        static_cast<ir::Dim>(c.input)}};
  std::vector<NamedTensor> inputs = {{"x", Tensor::of(xs, v.x)}};
  if (c.initial_h) inputs.push_back({"h0", Tensor::of(state, v.h0)});
  if (c.initial_c && c.op == "LSTM") inputs.push_back({"c0", Tensor::of(state, v.c0)});
  for (const auto profile :
       {backend::MaintainedProfile::checked_cpu, backend::MaintainedProfile::fast_cpu}) {
    SCOPED_TRACE(std::string(backend::to_string(profile)));
    auto imported = m.import();
    ASSERT_TRUE(imported.has_value()) << imported.error().message;
    auto model =
        testing::planned(backend::make_profile(profile),
                         std::make_shared<const ir::CheckedGraph>(std::move(imported->checked)),
                         std::make_shared<const ir::WeightStore>(std::move(imported->payloads)));
    ASSERT_NE(model, nullptr);
    auto buffer = testing::compiled(model);
    ASSERT_TRUE(buffer.has_value());
    Executor exec(std::move(*buffer));
    auto out = exec.run(inputs);
    ASSERT_TRUE(out.has_value()) << out.error().message;
    const std::vector<const std::vector<double>*> wanted = {&want.y, &want.y_h, &want.y_c};
    ASSERT_EQ(out->size(), c.op == "LSTM" && c.y_c ? 3U : 2U);
    // The import's form: one node of the op's kind exactly when the node keeps to the kind.
    const ir::OpKind kind = c.op == "RNN"   ? ir::OpKind::rnn
                            : c.op == "GRU" ? ir::OpKind::gru
                                            : ir::OpKind::lstm;
    const bool as_kind = c.activations_are_defaults() && !c.clip && !c.peepholes &&
                         !c.input_forget && !(c.op == "LSTM" && c.y_c);
    std::size_t kind_nodes = 0;
    std::size_t kind_groups_on_onednn = 0;
    for (const ir::Node& n : model->graph().nodes)
      kind_nodes += n.kind == kind ? 1 : 0;
    for (const backend::LoweredKernelGroup& g : model->lowering().groups) {
      const backend::KernelCapsule& capsule = model->lowering().capsule(g);
      kind_groups_on_onednn += capsule.provider == backend::Provider::onednn &&
                                       capsule.op == backend::backend_op_of(kind)
                                   ? 1
                                   : 0;
    }
    EXPECT_EQ(kind_nodes, as_kind ? 1U : 0U);
    if (profile == backend::MaintainedProfile::fast_cpu && testing::onednn_built()) {
      EXPECT_EQ(kind_groups_on_onednn, as_kind ? 1U : 0U);
    }
    const double tolerance = profile == backend::MaintainedProfile::checked_cpu ? 2e-6 : 2e-5;
    for (std::size_t o = 0; o < out->size(); ++o) {
      const std::vector<float>& got = (*out)[o].floats();
      ASSERT_EQ(got.size(), wanted[o]->size()) << "output " << o;
      for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_NEAR(got[i], (*wanted[o])[i], tolerance * (1 + std::abs((*wanted[o])[i])))
            << "output " << o << " element " << i;
      }
    }
  }
}

TEST(OnnxRecurrentRun, RnnMatchesOnnxEquations) {
  check_case({.op = "RNN"});
  check_case({.op = "RNN", .direction = "reverse", .layout = 1, .initial_h = false});
  check_case({.op = "RNN",
              .direction = "bidirectional",
              .activations = {"LeakyRelu", "Affine"},
              .alphas = {0.2F, 0.5F},
              .betas = {0.25F}});
  check_case({.op = "RNN",
              .direction = "bidirectional",
              .bias = false,
              .activations = {"HardSigmoid", "ScaledTanh"},
              .alphas = {0.3F, 1.5F},
              .betas = {0.4F, 0.7F}});
  check_case({.op = "RNN", .direction = "bidirectional", .activations = {"Elu", "Softsign"}});
  check_case({.op = "RNN", .activations = {"ThresholdedRelu"}, .alphas = {0.1F}});
  check_case({.op = "RNN", .clip = 0.5F, .activations = {"Softplus"}});
  check_case({.op = "RNN", .activations = {"Relu"}});
}

TEST(OnnxRecurrentRun, GruMatchesOnnxEquations) {
  check_case({.op = "GRU"});
  check_case({.op = "GRU", .direction = "bidirectional", .batch = 3, .linear_before_reset = true});
  check_case({.op = "GRU", .direction = "bidirectional", .batch = 1, .bias = false});
  check_case({.op = "GRU", .linear_before_reset = true});
  check_case({.op = "GRU", .direction = "reverse", .layout = 1, .linear_before_reset = true});
  check_case({.op = "GRU", .direction = "bidirectional", .bias = false, .initial_h = false});
  check_case({.op = "GRU",
              .direction = "bidirectional",
              .clip = 0.4F,
              .activations = {"HardSigmoid", "Relu", "Sigmoid", "Softsign"},
              .alphas = {0.25F},
              .betas = {0.45F}});
}

TEST(OnnxRecurrentRun, LstmMatchesOnnxEquations) {
  check_case({.op = "LSTM"});
  check_case({.op = "LSTM", .y_c = false});
  check_case({.op = "LSTM", .direction = "bidirectional", .layout = 1, .y_c = false});
  check_case({.op = "LSTM",
              .direction = "reverse",
              .batch = 1,
              .initial_h = false,
              .initial_c = true,
              .y_c = false});
  check_case({.op = "LSTM",
              .direction = "bidirectional",
              .seq = 4,
              .batch = 3,
              .initial_h = true,
              .initial_c = false,
              .activations = {"Sigmoid", "Tanh", "Tanh", "Sigmoid", "Tanh", "Tanh"},
              .y_c = false});
  check_case({.op = "LSTM", .peepholes = true});
  check_case(
      {.op = "LSTM", .direction = "bidirectional", .layout = 1, .peepholes = true, .clip = 0.6F});
  check_case({.op = "LSTM",
              .direction = "reverse",
              .initial_h = false,
              .initial_c = false,
              .input_forget = true});
  check_case({.op = "LSTM",
              .seq = 5,
              .batch = 1,
              .input = 2,
              .hidden = 4,
              .activations = {"HardSigmoid", "Tanh", "Softsign"}});
}

}  // namespace
}  // namespace onnx_recurrent_run_test
}  // namespace nnplan::runtime
