// RNN, GRU and LSTM (`layout` from opset 14; before 7, `output_sequence` changes nothing here), as
// ONNX defines them.
//
// A node that keeps to what the rnn, gru and lstm kinds run (ONNX's default activations, no
// clip, no peepholes or input_forget, and LSTM's Y_c unused) becomes one node of that kind over X
// (permuted to [seq, batch, input] when batch-first), with W, R and B as its payloads and the
// initial states as parents; Y_h is sliced out of Y (the last step of a forward direction, the
// first of a reverse one). Any other node is unrolled over the sequence into existing kinds, so
// that each step runs on whatever provider runs `linear`, the activations and the elementwise
// products, and has their VJPs.
//
// Unrolled, per direction, the input projection of every step is one `linear` node over X
// (weight W's rows of that direction, bias Wb + Rb), and each step slices its rows out. The
// recurrence is one `linear` of the previous hidden state by R's rows per step (GRU: its z and r
// rows, then the h rows over r ⊙ H, or all rows at once with bias Rbh when linear_before_reset),
// added to the projection, sliced into gates and run through the activations:
//   RNN:  H = f(x + H R^T)
//   GRU:  z, r = f(..), h = g(x_h + (r ⊙ H) R_h^T) or g(x_h + r ⊙ (H R_h^T + Rb_h)),
//         H' = (1 - z) ⊙ h + z ⊙ H
//   LSTM: i, f = f(.. + P ⊙ C), c~ = g(..), C' = f ⊙ C + i ⊙ c~, o = f(.. + P_o ⊙ C'),
//         H' = o ⊙ h(C'); input_forget makes the forget gate 1 - i.
// Y stacks every step's H (the reverse direction's at the time it belongs to), Y_h is the last
// step's H and Y_c the last C; absent initial states are zero. `clip` bounds the inputs of f and
// g (the gate pre-activations). activation_alpha and activation_beta are taken in the order of
// the activations that have such a parameter, each missing one its operator's default.
//
// W, R, B and P must be initializers (every exported model has them so); sequence_lens may be
// given only as a constant whose every entry is the sequence length. The unrolled graph grows
// with the sequence, so an unrolled node's sequence times directions is bounded by
// kMaxUnrolledSteps.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

// The most steps (sequence length times directions) one node is unrolled into.
constexpr Dim kMaxUnrolledSteps = 4096;

enum class Cell { rnn, gru, lstm };

struct Activation {
  std::string name;
  float alpha = 0.0F;
  float beta = 0.0F;
};

// The defaults of an activation's parameters (those of the ONNX operator of that name), and
// how many it takes.
struct ActivationDefaults {
  std::string_view name;
  int parameters;
  float alpha;
  float beta;
};
constexpr std::array kActivations = {
    ActivationDefaults{"Relu", 0, 0, 0},
    ActivationDefaults{"Tanh", 0, 0, 0},
    ActivationDefaults{"Sigmoid", 0, 0, 0},
    ActivationDefaults{"Softsign", 0, 0, 0},
    ActivationDefaults{"Softplus", 0, 0, 0},
    ActivationDefaults{"LeakyRelu", 1, 0.01F, 0},
    ActivationDefaults{"Elu", 1, 1.0F, 0},
    ActivationDefaults{"ThresholdedRelu", 1, 1.0F, 0},
    ActivationDefaults{"HardSigmoid", 2, 0.2F, 0.5F},
    ActivationDefaults{"Affine", 2, 1.0F, 0},
    ActivationDefaults{"ScaledTanh", 2, 1.0F, 1.0F},
};

std::string supported_activations() {
  std::string out;
  for (const ActivationDefaults& a : kActivations)
    out += (out.empty() ? "" : ", ") + std::string(a.name);
  return out;
}

class Recurrence {
 public:
  Recurrence(ImportContext& cx, Cell cell) : cx_(cx), cell_(cell) {}

  void import() {
    read_attributes();
    read_operands();
    if (fits_kind()) {
      import_as_kind();
      return;
    }
    if (seq_ * static_cast<Dim>(dirs_) > kMaxUnrolledSteps) {
      cx_.unsupported("a sequence of " + str(seq_) + " steps in " + str(dirs_) +
                      " direction(s) unrolls into more than " + str(kMaxUnrolledSteps) +
                      " steps; supported: up to that many");
    }
    std::vector<NodeId> last_h;
    std::vector<NodeId> last_c;
    std::vector<std::vector<NodeId>> steps;  // per direction, H at each time
    for (Dim d = 0; d < dirs_; ++d) {
      const bool reverse = direction_ == "reverse" || (direction_ == "bidirectional" && d == 1);
      steps.push_back(run_direction(d, reverse, last_h, last_c));
    }
    if (wanted(0)) cx_.define(cx_.out_name(0), stack_outputs(steps));
    if (wanted(1)) cx_.define(cx_.out_name(1), stack_states(last_h));
    if (cell_ == Cell::lstm && wanted(2)) {
      cx_.define(cx_.out_name(2), stack_states(last_c));
    }
  }

 private:
  // The default activations of one direction.
  std::vector<std::string_view> default_activations() const {
    if (cell_ == Cell::rnn) return {"Tanh"};
    if (cell_ == Cell::gru) return {"Sigmoid", "Tanh"};
    return {"Sigmoid", "Tanh", "Tanh"};
  }

  // Whether the node is one the rnn, gru and lstm kinds run: the default activations, no clip,
  // no peepholes, no input_forget and no use of LSTM's Y_c.
  bool fits_kind() const {
    const std::vector<std::string_view> defaults = default_activations();
    for (std::size_t i = 0; i < activations_.size(); ++i) {
      if (activations_[i].name != defaults[i % defaults.size()]) return false;
    }
    return !clip_ && !input_forget_ && p_ == nullptr && !(cell_ == Cell::lstm && wanted(2));
  }

  // The whole of constant `c` as a payload: a view of the file's bytes where they lie undecoded,
  // else a copy.
  ir::WeightTensor whole(const ConstPtr& c) {
    if (!cx_.keep_payloads()) return {};
    Shape shape{ir::Dims(c->dims.begin(), c->dims.end())};
    if (!c->raw_floats.empty()) {
      return ir::WeightTensor::view(std::move(shape), ir::DType::float32,
                                    reinterpret_cast<const std::byte*>(c->raw_floats.data()),
                                    c->raw_floats.size() / sizeof(float), c->raw_owner);
    }
    return ir::WeightTensor::of_floats(std::move(shape), std::span(c->floats));
  }

  // X [seq, batch, input], or a state [dirs, batch, hidden], from its batch-first layout.
  NodeId seq_major(NodeId id) {
    if (!batch_first_) return id;
    return cx_.add(OpKind::permute, {id}, ir::PermuteParams{.perm = {1, 0, 2}});
  }

  void import_as_kind() {
    const OpKind kind = cell_ == Cell::rnn   ? OpKind::rnn
                        : cell_ == Cell::gru ? OpKind::gru
                                             : OpKind::lstm;
    const ir::RecurrentDirection direction =
        direction_ == "forward"   ? ir::RecurrentDirection::forward
        : direction_ == "reverse" ? ir::RecurrentDirection::reverse
                                  : ir::RecurrentDirection::bidirectional;
    ir::Parents parents = {seq_major(x_)};
    if (initial_h_ || initial_c_) {
      parents.push_back(initial_h_ ? seq_major(*initial_h_)
                                   : zeros(Shape{{dirs_, batch_, hidden_}}));
    }
    if (initial_c_) parents.push_back(seq_major(*initial_c_));
    const NodeId y = cx_.add(kind, std::move(parents),
                             ir::RecurrentParams{.hidden_size = hidden_,
                                                 .direction = direction,
                                                 .linear_before_reset = linear_before_reset_},
                             Shape{{seq_, dirs_, batch_, hidden_}});
    cx_.set_payload(y, "weight", whole(w_));
    cx_.set_payload(y, "recurrence", whole(r_));
    if (b_) cx_.set_payload(y, "bias", whole(b_));
    if (wanted(0)) {
      // [seq, dirs, batch, hidden] to batch-first [batch, seq, dirs, hidden].
      const NodeId out =
          batch_first_ ? cx_.add(OpKind::permute, {y}, ir::PermuteParams{.perm = {2, 0, 1, 3}}) : y;
      cx_.define(cx_.out_name(0), out);
    }
    if (wanted(1)) {
      std::vector<NodeId> last;
      for (Dim d = 0; d < dirs_; ++d) {
        const bool reverse = direction_ == "reverse" || d == 1;
        const Dim t = reverse ? 0 : seq_ - 1;
        const NodeId at_t = slice(slice(y, 0, t, t + 1), 1, d, d + 1);
        last.push_back(cx_.reshape(at_t, Shape{{batch_, hidden_}}));
      }
      cx_.define(cx_.out_name(1), stack_states(last));
    }
  }

  NodeId zeros(const Shape& shape) {
    const NodeId z = cx_.add(OpKind::const_, {}, ir::ConstParams{.value_shape = shape}, shape);
    cx_.set_payload(z, "value", ir::WeightTensor::zeros(shape, ir::DType::float32));
    return z;
  }

  // Whether output `i` is named and used (an unused one adds no nodes).
  bool wanted(int i) const { return !cx_.out_name(i).empty() && cx_.used(cx_.out_name(i)); }

  int gates() const { return cell_ == Cell::rnn ? 1 : cell_ == Cell::gru ? 3 : 4; }

  void read_attributes() {
    std::vector<std::string_view> names = {
        "activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size"};
    if (cx_.opset() >= 14) names.push_back("layout");
    // Before opset 7, output_sequence says only whether Y may be left out: Y is built when used.
    if (cx_.opset() < 7) names.push_back("output_sequence");
    if (cell_ == Cell::gru && cx_.opset() >= 3) names.push_back("linear_before_reset");
    if (cell_ == Cell::lstm) names.push_back("input_forget");
    for (const auto& a : cx_.node().attribute()) {
      if (std::find(names.begin(), names.end(), a.name()) == names.end()) {
        cx_.unsupported("attribute " + quoted_name(a.name()) + " is not supported for " +
                        std::string(cx_.op_type()));
      }
    }
    direction_ = cx_.attr_string("direction", "forward");
    if (direction_ != "forward" && direction_ != "reverse" && direction_ != "bidirectional") {
      cx_.fail("direction is '" + direction_ + "'; it is forward, reverse or bidirectional");
    }
    dirs_ = direction_ == "bidirectional" ? 2 : 1;
    const std::int64_t layout = cx_.attr_int("layout", 0);
    if (layout != 0 && layout != 1) cx_.fail("layout is " + str(layout) + "; it is 0 or 1");
    batch_first_ = layout == 1;
    const std::int64_t lbr = cx_.attr_int("linear_before_reset", 0);
    linear_before_reset_ = lbr != 0;
    const std::int64_t coupled = cx_.attr_int("input_forget", 0);
    input_forget_ = coupled != 0;
    if (cx_.attr("clip") != nullptr) {
      const float clip = cx_.attr_float("clip", 0);
      if (!(clip > 0) || !std::isfinite(clip)) {
        cx_.unsupported("clip is " + str(clip) + "; supported: a positive finite number");
      }
      clip_ = clip;
    }
    read_activations();
  }

  void read_activations() {
    const int per_direction = cell_ == Cell::rnn ? 1 : cell_ == Cell::gru ? 2 : 3;
    std::vector<std::string> names;
    if (const onnx::AttributeProto* a = cx_.attr("activations")) {
      for (const std::string& s : a->strings())
        names.push_back(s);
      if (names.size() != static_cast<std::size_t>(per_direction * dirs_)) {
        cx_.fail("activations lists " + str(names.size()) + " functions; " +
                 std::string(cx_.op_type()) + " with direction " + direction_ + " takes " +
                 str(per_direction * dirs_));
      }
    } else {
      const std::vector<std::string> defaults =
          cell_ == Cell::rnn   ? std::vector<std::string>{"Tanh"}
          : cell_ == Cell::gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                               : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
      for (Dim d = 0; d < dirs_; ++d)
        names.insert(names.end(), defaults.begin(), defaults.end());
    }
    const std::vector<float> alphas =
        cx_.attr_floats("activation_alpha").value_or(std::vector<float>{});
    const std::vector<float> betas =
        cx_.attr_floats("activation_beta").value_or(std::vector<float>{});
    std::size_t next_alpha = 0;
    std::size_t next_beta = 0;
    for (const std::string& name : names) {
      const auto known = std::find_if(kActivations.begin(), kActivations.end(),
                                      [&](const ActivationDefaults& a) { return a.name == name; });
      if (known == kActivations.end()) {
        cx_.fail_attr("activations", "'" + name + "'", supported_activations());
      }
      Activation act{.name = name, .alpha = known->alpha, .beta = known->beta};
      if (known->parameters >= 1 && next_alpha < alphas.size()) act.alpha = alphas[next_alpha++];
      if (known->parameters >= 2 && next_beta < betas.size()) act.beta = betas[next_beta++];
      if (!std::isfinite(act.alpha) || !std::isfinite(act.beta)) {
        cx_.unsupported("activation " + name + " has alpha " + str(act.alpha) + " and beta " +
                        str(act.beta) + "; supported: finite numbers");
      }
      activations_.push_back(std::move(act));
    }
    activations_per_direction_ = per_direction;
  }

  // Checks that constant `c` named `role` has shape `dims`.
  void require_dims(const ConstTensor& c, std::string_view role, const std::vector<Dim>& dims) {
    if (c.dims != dims) {
      cx_.fail(std::string(role) + " " + quoted_name(c.source) + " has shape " +
               list_string(c.dims) + "; expected " + list_string(dims));
    }
  }

  void read_operands() {
    cx_.require_inputs(3, cell_ == Cell::lstm ? 8 : 6);
    x_ = cx_.tensor(cx_.in_name(0));
    const Shape xs = cx_.shape_of(x_);
    if (xs.rank() != 3) {
      cx_.fail("input X " + quoted_name(cx_.in_name(0)) + " has shape " + to_string(xs) +
               (batch_first_ ? "; it is [batch, seq_length, input_size]"
                             : "; it is [seq_length, batch, input_size]"));
    }
    seq_ = xs.dims[batch_first_ ? 1 : 0];
    batch_ = xs.dims[batch_first_ ? 0 : 1];
    input_ = xs.dims[2];
    w_ = cx_.float_constant(cx_.in_name(1), "W");
    r_ = cx_.float_constant(cx_.in_name(2), "R");
    if (r_->dims.size() != 3 || r_->dims[0] != dirs_ || r_->dims[2] == 0 ||
        r_->dims[1] != r_->dims[2] * static_cast<Dim>(gates())) {
      cx_.fail("R " + quoted_name(cx_.in_name(2)) + " has shape " + list_string(r_->dims) +
               "; it is [num_directions " + str(dirs_) + ", " + str(gates()) +
               " * hidden_size, hidden_size]");
    }
    hidden_ = r_->dims[2];
    if (cx_.attr("hidden_size") != nullptr &&
        cx_.attr_int("hidden_size", 0) != static_cast<std::int64_t>(hidden_)) {
      cx_.fail("hidden_size is " + str(cx_.attr_int("hidden_size", 0)) + " but R " +
               quoted_name(cx_.in_name(2)) + " has shape " + list_string(r_->dims));
    }
    const Dim rows = hidden_ * static_cast<Dim>(gates());
    require_dims(*w_, "W", {dirs_, rows, input_});
    if (cx_.has_in(3)) {
      b_ = cx_.float_constant(cx_.in_name(3), "B");
      require_dims(*b_, "B", {dirs_, 2 * rows});
    }
    if (cx_.has_in(4)) {
      const std::vector<std::int64_t> lens = cx_.int_constant(cx_.in_name(4), "sequence_lens");
      for (const std::int64_t len : lens) {
        if (len != static_cast<std::int64_t>(seq_)) {
          cx_.unsupported("sequence_lens " + quoted_name(cx_.in_name(4)) + " holds " + str(len) +
                          "; supported: every entry the sequence length " + str(seq_));
        }
      }
      if (lens.size() != batch_) {
        cx_.fail("sequence_lens " + quoted_name(cx_.in_name(4)) + " has " + str(lens.size()) +
                 " entries; expected batch_size " + str(batch_));
      }
    }
    if (seq_ == 0 || batch_ == 0) {
      cx_.unsupported("input X has shape " + to_string(xs) +
                      "; supported: a sequence and a batch of at least one");
    }
    const Shape state =
        batch_first_ ? Shape{{batch_, dirs_, hidden_}} : Shape{{dirs_, batch_, hidden_}};
    if (cx_.has_in(5)) initial_h_ = state_input(5, "initial_h", state);
    if (cell_ == Cell::lstm && cx_.has_in(6)) initial_c_ = state_input(6, "initial_c", state);
    if (cell_ == Cell::lstm && cx_.has_in(7)) {
      p_ = cx_.float_constant(cx_.in_name(7), "P");
      require_dims(*p_, "P", {dirs_, 3 * hidden_});
    }
  }

  NodeId state_input(int i, std::string_view role, const Shape& expected) {
    const NodeId id = cx_.tensor(cx_.in_name(i));
    if (cx_.shape_of(id) != expected) {
      cx_.fail(std::string(role) + " " + quoted_name(cx_.in_name(i)) + " has shape " +
               to_string(cx_.shape_of(id)) + "; expected " + to_string(expected));
    }
    return id;
  }

  // Rows [first, first + rows) of direction `d` of weight `c` ([dirs, total, cols]) as a
  // [rows, cols] payload: a view of the file's bytes where they lie undecoded, else a copy.
  ir::WeightTensor rows_of(const ConstPtr& c, Dim d, Dim first, Dim rows) {
    if (!cx_.keep_payloads()) return {};
    const Dim total = c->dims[1];
    const Dim cols = c->dims[2];
    const Dim offset = (d * total + first) * cols;
    Shape shape{{rows, cols}};
    if (!c->raw_floats.empty()) {
      return ir::WeightTensor::view(
          std::move(shape), ir::DType::float32,
          reinterpret_cast<const std::byte*>(c->raw_floats.data()) + offset * sizeof(float),
          rows * cols, c->raw_owner);
    }
    return ir::WeightTensor::of_floats(std::move(shape),
                                       std::span(c->floats).subspan(offset, rows * cols));
  }

  // B's values for direction `d`: Wb of rows [first, first + rows), plus Rb's where `with_r`.
  std::vector<float> bias_of(Dim d, Dim first, Dim rows, bool with_r) {
    std::vector<float> out(rows, 0.0F);
    if (b_ == nullptr || !cx_.keep_payloads()) return out;
    const std::vector<float>& b = floats_of(*b_);
    const Dim total = 2 * hidden_ * static_cast<Dim>(gates());
    for (Dim k = 0; k < rows; ++k) {
      const Dim w = d * total + first + k;
      out[k] = with_r ? b[w] + b[w + total / 2] : b[w];
    }
    return out;
  }

  // x · rows of `c` transposed, plus `bias` when given.
  NodeId project(NodeId x, const ConstPtr& c, Dim d, Dim first, Dim rows,
                 std::optional<std::vector<float>> bias) {
    Shape out = cx_.shape_of(x);
    out.dims.back() = rows;
    const NodeId id = cx_.add(OpKind::linear, {x}, {}, out);
    cx_.set_payload(id, "weight", rows_of(c, d, first, rows));
    if (bias) cx_.set_payload(id, "bias", cx_.payload_values(Shape{{rows}}, std::move(*bias)));
    return id;
  }

  NodeId slice(NodeId x, std::uint32_t axis, Dim start, Dim end) {
    return cx_.add(OpKind::slice, {x}, ir::SliceParams{.axis = axis, .start = start, .end = end});
  }
  NodeId columns(NodeId x, int first_gate, int gate_count) {
    const Dim h = hidden_;
    return slice(x, 1, h * first_gate, h * (first_gate + gate_count));
  }

  // A [batch, hidden] state: direction `d` of `initial`, or zeros.
  NodeId initial_state(std::optional<NodeId> initial, Dim d) {
    const Shape state{{batch_, hidden_}};
    if (initial) {
      const NodeId one = slice(*initial, batch_first_ ? 1 : 0, d, d + 1);
      return cx_.reshape(one, state);
    }
    return zeros(state);
  }

  // Peephole weights of gate `k` (0 i, 1 o, 2 f) of direction `d`, broadcast to the state.
  NodeId peephole(Dim d, int k) {
    const Shape vec{{hidden_}};
    const NodeId c = cx_.add(OpKind::const_, {}, ir::ConstParams{.value_shape = vec}, vec);
    if (cx_.keep_payloads()) {
      const std::vector<float>& p = floats_of(*p_);
      const auto from = static_cast<std::ptrdiff_t>(d * 3 * hidden_ + k * hidden_);
      cx_.set_payload(c, "value",
                      cx_.payload_values(
                          vec, std::vector<float>(p.begin() + from, p.begin() + from + hidden_)));
    }
    return cx_.broadcast(c, Shape{{batch_, hidden_}});
  }

  NodeId scalar_like(float value, NodeId like) {
    const Shape shape = cx_.shape_of(like);  // a copy: adding nodes moves the graph's
    return cx_.broadcast(cx_.float_scalar(value), shape);
  }

  NodeId activate(const Activation& a, NodeId x, bool clipped) {
    if (clipped && clip_) {
      x = cx_.add(OpKind::clamp, {x}, ir::ClampParams{.min = -*clip_, .max = *clip_});
    }
    const std::string& n = a.name;
    if (n == "Relu") return cx_.add(OpKind::relu, {x});
    if (n == "Tanh") return cx_.add(OpKind::tanh, {x});
    if (n == "Sigmoid") return cx_.add(OpKind::sigmoid, {x});
    if (n == "Softsign") return cx_.add(OpKind::softsign, {x});
    if (n == "Softplus") return cx_.add(OpKind::softplus, {x});
    if (n == "LeakyRelu") return cx_.add(OpKind::leaky_relu, {x}, ir::AlphaParams{a.alpha});
    if (n == "Elu") return cx_.add(OpKind::elu, {x}, ir::AlphaParams{a.alpha});
    if (n == "HardSigmoid") return hard_sigmoid(cx_, x, a.alpha, a.beta);
    if (n == "ThresholdedRelu") {
      const Shape s = cx_.shape_of(x);
      const NodeId kept = cx_.add(OpKind::greater, {x, cx_.float_scalar(a.alpha)}, {}, s);
      return cx_.add(OpKind::where, {kept, x, cx_.float_scalar(0.0F)}, {}, s);
    }
    if (n == "Affine") {
      const NodeId ax = cx_.add(OpKind::scale, {x}, ir::ScaleParams{.factor = a.alpha});
      return cx_.add(OpKind::add, {ax, scalar_like(a.beta, ax)});
    }
    // ScaledTanh
    const NodeId bx = cx_.add(OpKind::scale, {x}, ir::ScaleParams{.factor = a.beta});
    return cx_.add(OpKind::scale, {cx_.add(OpKind::tanh, {bx})},
                   ir::ScaleParams{.factor = a.alpha});
  }

  std::vector<NodeId> run_direction(Dim d, bool reverse, std::vector<NodeId>& last_h,
                                    std::vector<NodeId>& last_c) {
    const Dim g = static_cast<Dim>(gates());
    const Dim rows = g * hidden_;
    const auto* act = &activations_[d * activations_per_direction_];
    // The input projection of every step: X · W^T + Wb + Rb (GRU before reset: not Rb_h).
    std::vector<float> bias = bias_of(d, 0, rows, true);
    if (cell_ == Cell::gru && linear_before_reset_) {
      const std::vector<float> wb = bias_of(d, 2 * hidden_, hidden_, false);
      std::copy(wb.begin(), wb.end(), bias.begin() + static_cast<std::ptrdiff_t>(2 * hidden_));
    }
    const NodeId projected = project(x_, w_, d, 0, rows, b_ ? std::optional(bias) : std::nullopt);
    NodeId h = initial_state(initial_h_, d);
    NodeId c = cell_ == Cell::lstm ? initial_state(initial_c_, d) : h;
    std::vector<NodeId> hs(seq_);
    for (Dim k = 0; k < seq_; ++k) {
      const Dim t = reverse ? seq_ - 1 - k : k;
      const NodeId xt =
          cx_.reshape(slice(projected, batch_first_ ? 1 : 0, t, t + 1), Shape{{batch_, rows}});
      if (cell_ == Cell::rnn) {
        h = activate(act[0], cx_.add(OpKind::add, {xt, project(h, r_, d, 0, rows, {})}), true);
      } else if (cell_ == Cell::gru) {
        h = gru_step(d, act, xt, h);
      } else {
        std::tie(h, c) = lstm_step(d, act, xt, h, c);
      }
      hs[t] = h;
    }
    last_h.push_back(h);
    last_c.push_back(c);
    return hs;
  }

  NodeId gru_step(Dim d, const Activation* act, NodeId xt, NodeId h) {
    const Dim hid = hidden_;
    NodeId h_pre = 0;
    NodeId r = 0;
    NodeId z = 0;
    const auto gates_zr = [&](NodeId rec) {
      const NodeId zr = activate(act[0], cx_.add(OpKind::add, {columns(xt, 0, 2), rec}), true);
      z = columns(zr, 0, 1);
      r = columns(zr, 1, 1);
    };
    if (linear_before_reset_) {
      std::optional<std::vector<float>> rb;
      if (b_) {
        std::vector<float> v(3 * hid, 0.0F);
        const Dim total = 6 * hid;
        if (cx_.keep_payloads()) {
          const std::vector<float>& b = floats_of(*b_);
          for (Dim k = 0; k < hid; ++k)
            v[2 * hid + k] = b[d * total + 3 * hid + 2 * hid + k];
        }
        rb = std::move(v);
      }
      const NodeId rec = project(h, r_, d, 0, 3 * hid, rb);
      gates_zr(columns(rec, 0, 2));
      h_pre = cx_.add(OpKind::add,
                      {columns(xt, 2, 1), cx_.add(OpKind::mul_elem, {r, columns(rec, 2, 1)})});
    } else {
      gates_zr(project(h, r_, d, 0, 2 * hid, {}));
      const NodeId rh = cx_.add(OpKind::mul_elem, {r, h});
      h_pre = cx_.add(OpKind::add, {columns(xt, 2, 1), project(rh, r_, d, 2 * hid, hid, {})});
    }
    const NodeId candidate = activate(act[1], h_pre, true);
    const NodeId keep = cx_.add(OpKind::sub, {scalar_like(1.0F, z), z});
    return cx_.add(OpKind::add, {cx_.add(OpKind::mul_elem, {keep, candidate}),
                                 cx_.add(OpKind::mul_elem, {z, h})});
  }

  std::pair<NodeId, NodeId> lstm_step(Dim d, const Activation* act, NodeId xt, NodeId h, NodeId c) {
    const NodeId pre = cx_.add(OpKind::add, {xt, project(h, r_, d, 0, 4 * hidden_, {})});
    NodeId i = 0;
    NodeId f = 0;
    NodeId o_pre = columns(pre, 1, 1);
    if (p_ == nullptr) {
      // i, o and f are adjacent and share f: one activation over the three.
      const NodeId iof = activate(act[0], columns(pre, 0, 3), true);
      i = columns(iof, 0, 1);
      f = columns(iof, 2, 1);
      o_pre = columns(iof, 1, 1);  // already activated
    } else {
      const auto peep = [&](NodeId gate, int k, NodeId state) {
        return cx_.add(OpKind::add, {gate, cx_.add(OpKind::mul_elem, {peephole(d, k), state})});
      };
      i = activate(act[0], peep(columns(pre, 0, 1), 0, c), true);
      f = activate(act[0], peep(columns(pre, 2, 1), 2, c), true);
    }
    if (input_forget_) f = cx_.add(OpKind::sub, {scalar_like(1.0F, i), i});
    const NodeId candidate = activate(act[1], columns(pre, 3, 1), true);
    const NodeId c_next = cx_.add(OpKind::add, {cx_.add(OpKind::mul_elem, {f, c}),
                                                cx_.add(OpKind::mul_elem, {i, candidate})});
    const NodeId o =
        p_ == nullptr
            ? o_pre
            : activate(act[0],
                       cx_.add(OpKind::add,
                               {o_pre, cx_.add(OpKind::mul_elem, {peephole(d, 1), c_next})}),
                       true);
    const NodeId h_next = cx_.add(OpKind::mul_elem, {o, activate(act[2], c_next, false)});
    return {h_next, c_next};
  }

  // Y: [seq, dirs, batch, hidden], or [batch, seq, dirs, hidden] batch-first.
  NodeId stack_outputs(const std::vector<std::vector<NodeId>>& steps) {
    const Shape one =
        batch_first_ ? Shape{{batch_, 1, 1, hidden_}} : Shape{{1, 1, batch_, hidden_}};
    const std::uint32_t time_axis = batch_first_ ? 1 : 0;
    const std::uint32_t dir_axis = batch_first_ ? 2 : 1;
    ir::Parents per_direction;
    for (const std::vector<NodeId>& hs : steps) {
      ir::Parents parts;
      for (const NodeId h : hs)
        parts.push_back(cx_.reshape(h, one));
      per_direction.push_back(concat(std::move(parts), time_axis));
    }
    return concat(std::move(per_direction), dir_axis);
  }

  // Y_h or Y_c: [dirs, batch, hidden], or [batch, dirs, hidden] batch-first.
  NodeId stack_states(const std::vector<NodeId>& states) {
    const Shape one = batch_first_ ? Shape{{batch_, 1, hidden_}} : Shape{{1, batch_, hidden_}};
    ir::Parents parts;
    for (const NodeId s : states)
      parts.push_back(cx_.reshape(s, one));
    return concat(std::move(parts), batch_first_ ? 1 : 0);
  }

  NodeId concat(ir::Parents parts, std::uint32_t axis) {
    if (parts.size() == 1) return parts[0];
    return cx_.add(OpKind::concat, std::move(parts), ir::AxisParams{.axis = axis});
  }

  ImportContext& cx_;
  Cell cell_;
  std::string direction_;
  Dim dirs_ = 1;
  bool batch_first_ = false;
  bool linear_before_reset_ = false;
  bool input_forget_ = false;
  std::optional<float> clip_;
  std::vector<Activation> activations_;
  int activations_per_direction_ = 1;
  NodeId x_ = 0;
  Dim seq_ = 0;
  Dim batch_ = 0;
  Dim input_ = 0;
  Dim hidden_ = 0;
  ConstPtr w_;
  ConstPtr r_;
  ConstPtr b_;
  ConstPtr p_;
  std::optional<NodeId> initial_h_;
  std::optional<NodeId> initial_c_;
};

}  // namespace

void import_rnn(ImportContext& cx) {
  Recurrence(cx, Cell::rnn).import();
}
void import_gru(ImportContext& cx) {
  Recurrence(cx, Cell::gru).import();
}
void import_lstm(ImportContext& cx) {
  Recurrence(cx, Cell::lstm).import();
}

}  // namespace nnplan::format::onnx_import
