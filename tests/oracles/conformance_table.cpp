// The conformance table (SPEC §12): one row per capsule of a fast provider, saying how its cases
// are drawn (a small graph around the op or fused chain, its weights and input values), the
// tolerance its outputs must meet against the reference provider, stated once with the reason, and
// what the draws cover. Two runners read it: the parameterized GoogleTest conformance_test.cpp (a
// fixed number of seeded cases per row, in CI) and the nnplan_oracles program (main.cpp: any
// number of cases from any seed). A capsule's fuzz-oracle evidence `<capsule>.oracle` resolves to
// its row (the top-level CMakeLists.txt lists the rows' capsules for runtime/evidence.cpp, and
// registration_problems checks the table against the registry). To add a row: a draw function
// below (draws.hpp holds the shared ones) and an entry in kRows.
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "draws.hpp"
#include "oracle.hpp"

namespace nnplan::oracles {
namespace {

// Tolerances several rows share: exact agreement, and the bound for long sums in another order
// (the norm term, oracle.hpp).
constexpr Tolerance kExact{};
constexpr Tolerance kSums{.abs = 1e-05, .rel = 0.0001, .norm = 2e-05};

// Reasons several rows share.
constexpr std::string_view kLongSums =
    "oneDNN sums in its own order and may contract multiply-adds; the reference sums left to "
    "right in float32 without contraction, so long sums differ by rounding that scales with the "
    "summed terms (the norm term).";
constexpr std::string_view kRoundsOnce =
    "the operation rounds at most once, so both must agree exactly.";
constexpr std::string_view kCopies = "a copy, so both must agree exactly.";
// The recurrent rows (rnn, gru, lstm): 2000 draws each stay within half of it.
constexpr Tolerance kRecurrent{.abs = 5e-06, .rel = 2e-05, .norm = 5e-06};
constexpr std::string_view kRecurrentReason =
    "oneDNN sums each gate's products in its own order and evaluates sigmoid and tanh with its own "
    "approximations; the reference sums left to right and calls the C library; each step's "
    "rounding carries into the next through the state.";

void abs_cases(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::abs, b.draw().signed_values());
}

void add_cases(CaseBuilder& b) {
  draw_binary(b, ir::OpKind::add);
}

void attention_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  std::vector<ir::Dim> lead;
  const std::uint32_t leading = d.between(0, 2);
  for (std::uint32_t i = 0; i < leading; ++i)
    lead.push_back(d.between(1, 4));
  const auto with = [&](ir::Dim rows, ir::Dim cols) {
    ir::Shape s;
    s.dims = lead;
    s.dims.push_back(rows);
    s.dims.push_back(cols);
    return s;
  };
  const ir::Dim l = d.between(1, 32);
  const ir::Dim s = d.chance(0.5) ? l : d.between(1, 32);
  const ir::Dim e = d.between(1, 48);
  const ir::Dim ev = d.chance(0.5) ? e : d.between(1, 48);
  ir::AttentionParams params{.causal = d.chance(0.5), .scale = std::nullopt};
  if (d.chance(0.3)) params.scale = d.pick({0.05F, 0.125F, 0.5F, 1.0F});
  const Values values{.lo = -3.0F, .hi = 3.0F, .zeros = 0.05};
  const ir::NodeId q = b.input(with(l, e), values);
  const ir::NodeId k = b.input(with(s, e), values);
  const ir::NodeId v = b.input(with(s, ev), values);
  b.note(std::string(params.causal ? "causal" : "not causal") + ", scale " +
         (params.scale ? std::to_string(*params.scale) : std::string("1/sqrt(E)")));
  b.target(ir::OpKind::scaled_dot_product_attention, {q, k, v}, params);
}

void avg_pool_cases(CaseBuilder& b) {
  draw_pool(b, false);
}

// A batch_norm over a drawn (N, C, ...) input with drawn statistics (some variances 0).
ir::NodeId draw_batch_norm(CaseBuilder& b) {
  Draw& d = b.draw();
  ir::Shape shape = d.shape(0, 3, 6, 512);
  const ir::Dim channels = d.between(1, 8);
  shape.dims.insert(shape.dims.begin(), {d.between(1, 2), channels});
  const ir::NodeId x = b.input(shape, d.signed_values());
  const ir::NodeId bn = b.target(
      ir::OpKind::batch_norm_eval, {x},
      ir::ChannelAxisParams{.channel_axis = 1, .channels = static_cast<std::uint32_t>(channels)});
  const ir::Shape per_channel{{channels}};
  b.weight(bn, "scale", per_channel, d.signed_values());
  b.weight(bn, "bias", per_channel, d.signed_values());
  b.weight(bn, "mean", per_channel, d.signed_values());
  b.weight(bn, "var", per_channel, Values{.lo = 0.0F, .hi = 4.0F, .zeros = 0.2});
  const double epsilon = d.pick({1e-5, 1e-3, 1e-2});
  b.attribute(bn, "epsilon", epsilon);
  b.note("batch_norm channels " + std::to_string(channels) + " epsilon " + std::to_string(epsilon) +
         ", some variances 0");
  return bn;
}

void batch_norm_cases(CaseBuilder& b) {
  draw_batch_norm(b);
}

void batch_norm_relu_cases(CaseBuilder& b) {
  const ir::NodeId bn = draw_batch_norm(b);
  b.target(ir::OpKind::relu, {bn});
}

void broadcast_mul_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 16);
  const Values values = d.signed_values();
  const ir::NodeId broadcast = draw_broadcast_to(b, shape, values, true);
  const ir::NodeId other = b.input(shape, values);
  const bool swapped = d.chance(0.5);
  if (swapped) b.note("mul(other, broadcast)");
  b.target(ir::OpKind::mul_elem,
           swapped ? std::vector{other, broadcast} : std::vector{broadcast, other});
}

void broadcast_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape to = d.shape(1, 4, 12);
  draw_broadcast_to(b, to, d.signed_values(), true);
}

void clamp_cases(CaseBuilder& b) {
  const Values values = b.draw().signed_values();
  draw_unary(b, ir::OpKind::clamp, values, draw_clamp(b, values));
}

void conv_add_relu_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::NodeId conv = draw_conv(b, false);
  const ir::Shape out = b.shape_of(conv);
  const ir::NodeId x = b.parents_of(conv).front();
  ir::NodeId residual = 0;
  if (b.shape_of(x) == out && d.chance(0.4)) {
    residual = x;
    b.note("residual: the conv's input");
  } else {
    residual = draw_operand(b, out, d.signed_values());
  }
  const bool swapped = d.chance(0.5);
  if (swapped) b.note("add(residual, conv)");
  const ir::NodeId sum = b.target(
      ir::OpKind::add, swapped ? std::vector{residual, conv} : std::vector{conv, residual});
  b.target(ir::OpKind::relu, {sum});
}

void conv_clamp_cases(CaseBuilder& b) {
  const ir::NodeId conv = draw_conv(b, false);
  b.target(ir::OpKind::clamp, {conv}, draw_clamp(b, b.draw().signed_values()));
}

void conv_hard_swish_cases(CaseBuilder& b) {
  const ir::NodeId conv = draw_conv(b, false);
  b.target(ir::OpKind::hard_swish, {conv});
}

// ONNX's default, PyTorch's (1/6, 1/2), or a drawn pair; noted.
ir::HardSigmoidParams draw_hard_sigmoid(CaseBuilder& b) {
  Draw& d = b.draw();
  ir::HardSigmoidParams p;
  if (d.chance(0.3)) {
    p = {.alpha = 1.0F / 6.0F, .beta = 0.5F};
  } else if (d.chance(0.5)) {
    p = {.alpha = 0.01F * static_cast<float>(d.between(1, 50)),
         .beta = 0.1F * static_cast<float>(d.between(0, 10)) - 0.5F};
  }
  b.note("hard_sigmoid alpha " + std::to_string(p.alpha) + " beta " + std::to_string(p.beta));
  return p;
}

void conv_hard_sigmoid_cases(CaseBuilder& b) {
  const ir::NodeId conv = draw_conv(b, false);
  b.target(ir::OpKind::hard_sigmoid, {conv}, draw_hard_sigmoid(b));
}

void hard_sigmoid_cases(CaseBuilder& b) {
  const ir::HardSigmoidParams p = draw_hard_sigmoid(b);
  draw_unary(b, ir::OpKind::hard_sigmoid, b.draw().signed_values(), p);
}

void hard_swish_cases(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::hard_swish, b.draw().signed_values());
}

void silu_cases(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::silu, b.draw().signed_values());
}

void conv_silu_cases(CaseBuilder& b) {
  const ir::NodeId conv = draw_conv(b, false);
  b.target(ir::OpKind::silu, {conv});
}

void conv_cases(CaseBuilder& b) {
  draw_conv(b, false);
}

void conv_relu_cases(CaseBuilder& b) {
  const ir::NodeId conv = draw_conv(b, false);
  b.target(ir::OpKind::relu, {conv});
}

void conv_transpose_cases(CaseBuilder& b) {
  draw_conv(b, true);
}

void elu_cases(CaseBuilder& b) {
  const float alpha = b.draw().pick({1.0F, 0.5F, 2.0F, 0.1F});
  draw_unary(b, ir::OpKind::elu, b.draw().signed_values(), ir::AlphaParams{.alpha = alpha});
}

void exp_cases(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::exp, b.draw().signed_values());
}

void gelu_cases(CaseBuilder& b) {
  const Values values = b.draw().signed_values();
  draw_unary(b, ir::OpKind::gelu, values, draw_gelu(b));
}

void layer_norm_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 12, 2048);
  const auto axis = d.between(0, static_cast<std::uint32_t>(shape.rank() - 1));
  const Values raw = d.signed_values();
  const float offset = d.pick({0.0F, 0.0F, 3.0F, -10.0F});
  const ir::NodeId x =
      b.input(shape, Values{.lo = raw.lo + offset, .hi = raw.hi + offset, .zeros = 0.05});
  const ir::NodeId ln = b.target(ir::OpKind::layernorm, {x}, ir::AxisParams{.axis = axis});
  const ir::Shape normalized{{shape.dims.begin() + axis, shape.dims.end()}};
  const bool gamma = d.chance(0.6);
  const bool beta = d.chance(0.6);
  if (gamma) b.weight(ln, "gamma", normalized, d.signed_values());
  if (beta) b.weight(ln, "beta", normalized, d.signed_values());
  const bool epsilon = d.chance(0.5);
  if (epsilon) b.attribute(ln, "epsilon", 1e-3);
  b.note("layernorm axis " + std::to_string(axis) + (gamma ? " gamma" : " no gamma") +
         (beta ? " beta" : " no beta") + (epsilon ? " epsilon 1e-3" : " epsilon default"));
}

void leaky_relu_cases(CaseBuilder& b) {
  const float alpha = b.draw().pick({0.01F, 0.2F, 0.0F, 1.0F, -0.5F, 3.0F});
  draw_unary(b, ir::OpKind::leaky_relu, b.draw().signed_values(), ir::AlphaParams{.alpha = alpha});
}

void linear_gelu_cases(CaseBuilder& b) {
  const ir::NodeId linear = draw_linear(b);
  b.target(ir::OpKind::gelu, {linear}, draw_gelu(b));
}

void linear_cases(CaseBuilder& b) {
  draw_linear(b);
}

// A graph input X [seq, batch, input] and one rnn, gru or lstm node over it, marked as a target:
// every direction, initial states given or zero, bias or none, gru with and without
// linear_before_reset; weights in [-0.5, 0.5) so that gates neither all saturate nor all vanish.
void draw_recurrent(CaseBuilder& b, ir::OpKind kind) {
  Draw& d = b.draw();
  const ir::Dim seq = d.between(1, 8);
  const ir::Dim batch = d.between(1, 4);
  const ir::Dim input = d.between(1, 32);
  const ir::Dim hidden = d.between(1, 32);
  const auto direction = d.pick({ir::RecurrentDirection::forward, ir::RecurrentDirection::reverse,
                                 ir::RecurrentDirection::bidirectional});
  const ir::Dim dirs = ir::direction_count(direction);
  const ir::Dim rows = ir::recurrent_gates(kind) * hidden;
  const bool lbr = kind == ir::OpKind::gru && d.chance(0.5);
  const Values weights{.lo = -0.5F, .hi = 0.5F, .zeros = 0.05};
  const Values values = d.signed_values();
  std::vector<ir::NodeId> parents = {b.input(ir::Shape{{seq, batch, input}}, values)};
  const std::size_t states = d.between(0, kind == ir::OpKind::lstm ? 2 : 1);
  for (std::size_t i = 0; i < states; ++i)
    parents.push_back(b.input(ir::Shape{{dirs, batch, hidden}}, Values{}));
  const ir::NodeId node =
      b.target(kind, parents,
               ir::RecurrentParams{
                   .hidden_size = hidden, .direction = direction, .linear_before_reset = lbr},
               ir::Shape{{seq, dirs, batch, hidden}});
  b.weight(node, "weight", ir::Shape{{dirs, rows, input}}, weights);
  b.weight(node, "recurrence", ir::Shape{{dirs, rows, hidden}}, weights);
  const bool bias = d.chance(0.8);
  if (bias) b.weight(node, "bias", ir::Shape{{dirs, 2 * rows}}, weights);
  b.note(std::string(ir::to_string(kind)) + " seq " + std::to_string(seq) + " batch " +
         std::to_string(batch) + " input " + std::to_string(input) + " hidden " +
         std::to_string(hidden) + " directions " + std::to_string(dirs) + ", " +
         std::to_string(states) + " initial state(s)" + (bias ? ", bias" : ", no bias") +
         (lbr ? ", linear_before_reset" : ""));
}

void rnn_cases(CaseBuilder& b) {
  draw_recurrent(b, ir::OpKind::rnn);
}
void gru_cases(CaseBuilder& b) {
  draw_recurrent(b, ir::OpKind::gru);
}
void lstm_cases(CaseBuilder& b) {
  draw_recurrent(b, ir::OpKind::lstm);
}

void linear_relu_cases(CaseBuilder& b) {
  const ir::NodeId linear = draw_linear(b);
  b.target(ir::OpKind::relu, {linear});
}

void log_cases(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::log,
             Values{.lo = 0.0F, .hi = b.draw().pick({1.0F, 4.0F, 32.0F}), .zeros = 0.05});
}

void log_softmax_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 16, 2048);
  const auto axis = d.between(0, static_cast<std::uint32_t>(shape.rank() - 1));
  const float m = d.pick({1.0F, 8.0F, 60.0F});
  const ir::NodeId x = b.input(shape, Values{.lo = -m, .hi = m, .zeros = 0.1});
  b.note("axis " + std::to_string(axis));
  b.target(ir::OpKind::log_softmax, {x}, ir::AxisParams{.axis = axis});
}

void matmul_add_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::NodeId mm = draw_matmul(b);
  const ir::NodeId addend = draw_operand(b, b.shape_of(mm), d.signed_values());
  const bool swapped = d.chance(0.5);
  if (swapped) b.note("add(addend, matmul)");
  b.target(ir::OpKind::add, swapped ? std::vector{addend, mm} : std::vector{mm, addend});
}

void matmul_cases(CaseBuilder& b) {
  draw_matmul(b);
}

void max_cases(CaseBuilder& b) {
  draw_binary(b, ir::OpKind::max_elem);
}

void max_pool_cases(CaseBuilder& b) {
  draw_pool(b, true);
}

void min_cases(CaseBuilder& b) {
  draw_binary(b, ir::OpKind::min_elem);
}

void mul_cases(CaseBuilder& b) {
  draw_binary(b, ir::OpKind::mul_elem, Operand::same_shape);
}

void permute_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 12);
  const ir::NodeId x = b.input(shape, d.signed_values());
  const auto rank = static_cast<std::uint32_t>(shape.rank());
  if (rank >= 2 && d.chance(0.3)) {
    const std::uint32_t a = d.between(0, rank - 1);
    std::uint32_t c = d.between(0, rank - 2);
    if (c >= a) ++c;
    b.note("transpose of axes " + std::to_string(a) + " and " + std::to_string(c));
    b.target(ir::OpKind::transpose, {x}, ir::TransposeParams{.axis1 = a, .axis2 = c});
    return;
  }
  std::vector<std::uint32_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0U);
  for (std::uint32_t i = rank; i > 1; --i)
    std::swap(perm[i - 1], perm[d.between(0, i - 1)]);
  std::string text;
  for (std::uint32_t axis : perm)
    text += (text.empty() ? "" : ",") + std::to_string(axis);
  b.note("perm [" + text + "]");
  b.target(ir::OpKind::permute, {x}, ir::PermuteParams{.perm = perm});
}

// A graph input reshaped to another shape of its element count: flattened, its axes reversed, a
// leading 1 added, or an axis split in two where its extent allows.
void reshape_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 12);
  const ir::NodeId x = b.input(shape, d.signed_values());
  ir::Shape out;
  switch (d.between(0, 3)) {
    case 0:
      out.dims = {*ir::element_count(shape)};
      break;
    case 1:
      out.dims.assign(shape.dims.rbegin(), shape.dims.rend());
      break;
    case 2:
      out = shape;
      out.dims.insert(out.dims.begin(), 1);
      break;
    default: {
      out = shape;
      const auto axis = d.between(0, static_cast<std::uint32_t>(shape.rank() - 1));
      const ir::Dim extent = shape.dims[axis];
      const ir::Dim part = extent % 2 == 0 ? 2 : 1;
      out.dims[axis] = extent / part;
      out.dims.insert(out.dims.begin() + axis, part);
      break;
    }
  }
  b.note("reshape " + ir::to_string(shape) + " to " + ir::to_string(out));
  b.target(ir::OpKind::reshape, {x}, ir::ReshapeParams{.in = shape, .out = out});
}

// A reshape, permute (or transpose), reshape chain. Half the cases are ShuffleNet's channel
// shuffle: [N, G * W, spatial...] split into [N, G, W, spatial...], groups and width swapped,
// merged back; half of those read the input through a 1x1 convolution by the identity (not
// under test, exact: each output is its input times 1 plus zeros), so under fast_cpu the chain
// reads a channels-last value where oneDNN's convolution writes one. The other half: an axis of
// a drawn shape split in two, a random permutation, then the whole flattened or merged back to
// the permuted extents.
void reshape_permute_reshape_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const auto chain = [&](ir::NodeId x, const ir::Shape& in, const ir::Shape& split,
                         std::vector<std::uint32_t> perm, const ir::Shape& out) {
    const ir::NodeId grouped = b.target(ir::OpKind::reshape, {x}, ir::ReshapeParams{in, split});
    ir::Shape permuted;
    for (const std::uint32_t axis : perm)
      permuted.dims.push_back(split.dims[axis]);
    // A permutation that swaps axes 1 and 2 only is drawn as a transpose half the time.
    bool swaps_one_two = perm.size() >= 3;
    for (std::size_t i = 0; swaps_one_two && i < perm.size(); ++i)
      swaps_one_two = perm[i] == (i == 1 ? 2 : i == 2 ? 1 : i);
    const ir::NodeId swapped =
        swaps_one_two && d.chance(0.5)
            ? b.target(ir::OpKind::transpose, {grouped},
                       ir::TransposeParams{.axis1 = 1, .axis2 = 2})
            : b.target(ir::OpKind::permute, {grouped}, ir::PermuteParams{.perm = std::move(perm)});
    b.target(ir::OpKind::reshape, {swapped}, ir::ReshapeParams{permuted, out});
  };
  if (d.chance(0.5)) {
    const ir::Dim groups = d.between(2, 4);
    const ir::Dim width = d.between(1, 8);
    ir::Shape in{{d.between(1, 2), groups * width}};
    const std::uint32_t spatial = d.between(1, 2);
    for (std::uint32_t i = 0; i < spatial; ++i)
      in.dims.push_back(d.between(1, 7));
    ir::NodeId x = b.input(in, d.signed_values());
    const bool through_conv = d.chance(0.5);
    if (through_conv) {
      const auto channels = static_cast<std::uint32_t>(in.dims[1]);
      ir::ConvParams p{
          .spatial_rank = spatial, .groups = 1, .in_channels = channels, .out_channels = channels};
      p.kernel.assign(spatial, 1);
      p.stride.assign(spatial, 1);
      p.dilation.assign(spatial, 1);
      p.padding.assign(spatial, 0);
      p.padding_after.assign(spatial, 0);
      x = b.add(ir::OpKind::conv, {x}, std::move(p));
      ir::Shape weight{{channels, channels}};
      weight.dims.insert(weight.dims.end(), spatial, 1);
      std::vector<float> identity(std::size_t{channels} * channels, 0.0F);
      for (std::size_t c = 0; c < channels; ++c)
        identity[c * channels + c] = 1.0F;
      b.weight(x, "weight", weight, std::move(identity));
    }
    ir::Shape split = in;
    split.dims[1] = width;
    split.dims.insert(split.dims.begin() + 1, groups);
    std::vector<std::uint32_t> perm(split.rank());
    std::iota(perm.begin(), perm.end(), 0U);
    std::swap(perm[1], perm[2]);
    b.note("channel shuffle of " + ir::to_string(in) + " in " + std::to_string(groups) + " groups" +
           (through_conv ? " after an identity 1x1 conv" : ""));
    chain(x, in, split, std::move(perm), in);
    return;
  }
  const ir::Shape in = d.shape(1, 4, 12);
  const ir::NodeId x = b.input(in, d.signed_values());
  const auto axis = d.between(0, static_cast<std::uint32_t>(in.rank() - 1));
  ir::Shape split = in;
  const ir::Dim part = in.dims[axis] % 2 == 0 ? 2 : 1;
  split.dims[axis] = in.dims[axis] / part;
  split.dims.insert(split.dims.begin() + axis, part);
  std::vector<std::uint32_t> perm(split.rank());
  std::iota(perm.begin(), perm.end(), 0U);
  for (auto i = static_cast<std::uint32_t>(perm.size()); i > 1; --i)
    std::swap(perm[i - 1], perm[d.between(0, i - 1)]);
  ir::Shape out;
  if (d.chance(0.5)) {
    out.dims = {*ir::element_count(in)};
  } else {
    for (const std::uint32_t a : perm)
      out.dims.push_back(split.dims[a]);
  }
  std::string text;
  for (const std::uint32_t a : perm)
    text += (text.empty() ? "" : ",") + std::to_string(a);
  b.note("reshape " + ir::to_string(in) + " to " + ir::to_string(split) + ", perm [" + text +
         "], reshape to " + ir::to_string(out));
  chain(x, in, split, std::move(perm), out);
}

// A graph input [N, C, spatial...] (1 to 3 spatial axes) and one resize over its spatial axes:
// every mode, coordinate mapping and nearest mode, cubic with either coefficient and
// exclude_outside; by scales (whole and fractional, up and down) or by sizes. Half of the linear
// cases are half_pixel by whole or half factors, the form oneDNN's resampling runs.
void resize_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const std::uint32_t spatial = d.between(1, 3);
  ir::Shape in{{d.between(1, 2), d.between(1, 4)}};
  for (std::uint32_t i = 0; i < spatial; ++i)
    in.dims.push_back(d.between(1, spatial == 3 ? 6 : 12));
  ir::ResizeParams p{
      .mode = d.pick({ir::SampleMode::nearest, ir::SampleMode::linear, ir::SampleMode::cubic}),
      .coordinate_transformation_mode = d.pick(
          {ir::CoordinateTransformation::half_pixel,
           ir::CoordinateTransformation::pytorch_half_pixel,
           ir::CoordinateTransformation::align_corners, ir::CoordinateTransformation::asymmetric,
           ir::CoordinateTransformation::tf_half_pixel_for_nn}),
      .nearest_mode =
          d.pick({ir::ResizeNearest::round_prefer_floor, ir::ResizeNearest::round_prefer_ceil,
                  ir::ResizeNearest::floor, ir::ResizeNearest::ceil}),
      .cubic_coeff_a = d.pick({-0.75F, -0.5F}),
      .exclude_outside = d.chance(0.3),
      .scales = {}};
  const bool resampling = p.mode == ir::SampleMode::linear && d.chance(0.5);
  if (resampling) p.coordinate_transformation_mode = ir::CoordinateTransformation::half_pixel;
  const bool by_sizes = !resampling && d.chance(0.3);
  ir::Shape out = in;
  if (!by_sizes) p.scales = {1.0F, 1.0F};
  for (std::size_t i = 2; i < in.rank(); ++i) {
    if (by_sizes) {
      out.dims[i] = d.between(1, static_cast<std::uint32_t>(2 * in.dims[i] + 1));
      continue;
    }
    float scale = resampling ? d.pick({0.5F, 1.0F, 1.5F, 2.0F, 3.0F})
                             : d.pick({0.5F, 0.6F, 0.75F, 1.0F, 1.5F, 1.75F, 2.0F, 3.0F});
    if (resampling && scale != std::floor(scale) && in.dims[i] % 2 != 0) scale = 2.0F;
    if (std::floor(static_cast<double>(in.dims[i]) * scale) == 0) scale = 2.0F;
    p.scales.push_back(scale);
    out.dims[i] = static_cast<ir::Dim>(std::floor(static_cast<double>(in.dims[i]) * scale));
  }
  const ir::NodeId x = b.input(in, d.signed_values());
  b.target(ir::OpKind::resize, {x}, p, out);
  b.note("resize mode " + std::to_string(static_cast<int>(p.mode)) + " coordinates " +
         std::to_string(static_cast<int>(p.coordinate_transformation_mode)) + " nearest " +
         std::to_string(static_cast<int>(p.nearest_mode)) + (p.exclude_outside ? " exclude" : "") +
         (by_sizes ? " by sizes" : " by scales"));
}

// A graph input of rank 1-4 and one reduction over a drawn axis (reduce_sum also as `sum`, every
// axis at once); products over short axes of values near 1 in magnitude, so that they neither
// overflow nor vanish.
void draw_reduction(CaseBuilder& b, ir::OpKind kind) {
  Draw& d = b.draw();
  const bool prod = kind == ir::OpKind::reduce_prod;
  const ir::Shape shape = d.shape(1, 4, prod ? 12 : 32, 2048);
  const Values values = prod ? Values{.lo = 0.5F, .hi = 1.5F, .zeros = 0.0} : d.signed_values();
  const ir::NodeId x = b.input(shape, values);
  if (kind == ir::OpKind::reduce_sum && d.chance(0.2)) {
    b.note("sum of every element");
    b.target(ir::OpKind::sum, {x});
    return;
  }
  const auto axis = d.between(0, static_cast<std::uint32_t>(shape.rank() - 1));
  b.note("axis " + std::to_string(axis));
  b.target(kind, {x}, ir::AxisParams{.axis = axis});
}

void reduce_sum_cases(CaseBuilder& b) {
  draw_reduction(b, ir::OpKind::reduce_sum);
}
void reduce_mean_cases(CaseBuilder& b) {
  draw_reduction(b, ir::OpKind::reduce_mean);
}
void reduce_max_cases(CaseBuilder& b) {
  draw_reduction(b, ir::OpKind::reduce_max);
}
void reduce_min_cases(CaseBuilder& b) {
  draw_reduction(b, ir::OpKind::reduce_min);
}
void reduce_prod_cases(CaseBuilder& b) {
  draw_reduction(b, ir::OpKind::reduce_prod);
}

void relu_cases(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::relu, b.draw().signed_values());
}

void sigmoid_mul_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 16);
  const Values values = d.signed_values();
  const ir::NodeId x = b.input(shape, values);
  const ir::NodeId sigmoid = b.target(ir::OpKind::sigmoid, {x});
  ir::NodeId other = x;
  if (d.chance(0.4)) {
    other = b.input(shape, values);
    b.note("gate: sigmoid(x) times another input");
  } else {
    b.note("SiLU: x times sigmoid(x)");
  }
  const bool swapped = d.chance(0.5);
  if (swapped) b.note("mul(other, sigmoid)");
  b.target(ir::OpKind::mul_elem,
           swapped ? std::vector{other, sigmoid} : std::vector{sigmoid, other});
}

void sigmoid_cases(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::sigmoid, b.draw().signed_values());
}

void concat_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 8);
  const auto axis = d.between(0, static_cast<std::uint32_t>(shape.rank() - 1));
  const std::uint32_t count = d.between(2, 5);
  std::vector<ir::NodeId> parts;
  std::string extents;
  for (std::uint32_t i = 0; i < count; ++i) {
    ir::Shape part = shape;
    part.dims[axis] = d.chance(0.1) ? 0 : d.between(1, 6);
    extents += (extents.empty() ? "" : ",") + std::to_string(part.dims[axis]);
    parts.push_back(b.input(part, d.signed_values()));
  }
  b.note("concat axis " + std::to_string(axis) + " of extents " + extents);
  b.target(ir::OpKind::concat, parts, ir::AxisParams{.axis = axis});
}

void slice_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 12);
  const ir::NodeId x = b.input(shape, d.signed_values());
  const auto axis = d.between(0, static_cast<std::uint32_t>(shape.rank() - 1));
  const std::uint32_t extent = static_cast<std::uint32_t>(shape.dims[axis]);
  ir::SliceParams p{.axis = axis, .start = d.between(0, extent), .end = 0, .step = 1};
  p.end = d.chance(0.1) ? p.start : d.between(static_cast<std::uint32_t>(p.start), extent + 2);
  if (d.chance(0.3)) p.step = d.between(2, 3);
  b.note("slice axis " + std::to_string(p.axis) + " " + std::to_string(p.start) + ":" +
         std::to_string(p.end) + ":" + std::to_string(p.step));
  b.target(ir::OpKind::slice, {x}, p);
}

// A hard_masked_softmax over the last axis: the mask is the input's last one or two axes, causal
// (position k of row r allowed when k <= r) or drawn (about 70% allowed), and now and then with a
// row it blocks everywhere (written as zeros).
void hard_masked_softmax_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 24, 2048);
  const std::size_t mask_rank = shape.rank() >= 2 && d.chance(0.7) ? 2 : 1;
  ir::MaskParams mask;
  mask.shape.dims.assign(shape.dims.end() - static_cast<std::ptrdiff_t>(mask_rank),
                         shape.dims.end());
  const auto length = static_cast<std::size_t>(shape.dims.back());
  const std::size_t rows = mask_rank == 2 ? static_cast<std::size_t>(mask.shape.dims[0]) : 1;
  const bool causal = mask_rank == 2 && d.chance(0.5);
  const std::size_t blocked_row =
      d.chance(0.2) ? d.between(0, static_cast<std::uint32_t>(rows - 1)) : rows;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t k = 0; k < length; ++k) {
      const bool allowed = causal ? k <= r : d.chance(0.7);
      mask.allowed.push_back(r != blocked_row && allowed);
    }
  }
  b.note(std::string(causal ? "causal" : "drawn") + " mask " + ir::to_string(mask.shape) +
         (blocked_row < rows ? ", row " + std::to_string(blocked_row) + " blocked" : ""));
  const float m = d.pick({1.0F, 8.0F, 60.0F});
  const ir::NodeId x = b.input(shape, Values{.lo = -m, .hi = m, .zeros = 0.1});
  b.target(ir::OpKind::hard_masked_softmax, {x}, std::move(mask));
}

void softmax_cases(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 16, 2048);
  const auto axis = d.between(0, static_cast<std::uint32_t>(shape.rank() - 1));
  const float m = d.pick({1.0F, 8.0F, 60.0F});
  const ir::NodeId x = b.input(shape, Values{.lo = -m, .hi = m, .zeros = 0.1});
  b.note("axis " + std::to_string(axis));
  b.target(ir::OpKind::softmax, {x}, ir::AxisParams{.axis = axis});
}

void softplus_cases(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::softplus, b.draw().signed_values());
}

void sqrt_cases(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::sqrt,
             Values{.lo = 0.0F, .hi = b.draw().pick({1.0F, 4.0F, 32.0F}), .zeros = 0.05});
}

void sub_cases(CaseBuilder& b) {
  draw_binary(b, ir::OpKind::sub);
}

void tanh_cases(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::tanh, b.draw().signed_values());
}

// In capsule order.
constexpr Oracle kRows[] = {
    {.capsule = "onednn.abs",
     .tolerance = kExact,
     .reason = kRoundsOnce,
     .build = abs_cases,
     .covers = "rank 1-4, signed inputs up to +-32, zeros"},
    {.capsule = "onednn.add",
     .tolerance = kExact,
     .reason = kRoundsOnce,
     .build = add_cases,
     .covers = "rank 1-4, same shapes, an operand broadcast from a smaller shape (broadcast_to, as "
               "the importer writes numpy broadcasting), both operands one value, either order"},
    {.capsule = "onednn.attention",
     .tolerance = kSums,
     .reason = "oneDNN sums the dot products and the exponentials in its own order with its own "
               "exp.",
     .build = attention_cases,
     .covers = "0-2 leading axes, L and S 1-32, E and Ev 1-48, causal or not, default or drawn "
               "scale",
     .special = SpecialValues::may_make_nan},
    {.capsule = "onednn.avg_pool",
     .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 1e-06},
     .reason = "oneDNN sums each window in its own order and may divide once or multiply by the "
               "reciprocal.",
     .build = avg_pool_cases,
     .covers =
         "1-D to 3-D; kernel 1-3 or global; stride 1-3; symmetric pads counted in the divisor "
         "(count_include_pad = 1)"},
    {.capsule = "onednn.batch_norm",
     .tolerance = {.abs = 1e-05, .rel = 1e-05, .norm = 1e-06},
     .reason = "oneDNN may fold scale / sqrt(var + epsilon) into one factor before applying it; "
               "the reference applies the formula in its order.",
     .build = batch_norm_cases,
     .covers = "input (N, C, ...) of rank 2-5, channel axis 1, epsilon 1e-5 to 1e-2"},
    {.capsule = "onednn.batch_norm_relu",
     .tolerance = {.abs = 1e-05, .rel = 1e-05, .norm = 1e-06},
     .reason = "as onednn.batch_norm; the ReLU after it is exact.",
     .build = batch_norm_relu_cases,
     .covers = "onednn.batch_norm's draws, then relu",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.broadcast",
     .tolerance = kExact,
     .reason = kCopies,
     .build = broadcast_cases,
     .covers = "a target shape of rank 1-4, the input its trailing axes (leading axes dropped), "
               "each 1 or the target's extent"},
    {.capsule = "onednn.broadcast_mul",
     .tolerance = kExact,
     .reason = "each output is one product, rounded once, so both must agree exactly.",
     .build = broadcast_mul_cases,
     .covers = "an output of rank 1-4; the broadcast's input its trailing axes, each 1 or the "
               "output's extent; the other operand a full input; either order"},
    {.capsule = "onednn.clamp",
     .tolerance = kExact,
     .reason = "clamping rounds nothing, so both must agree exactly.",
     .build = clamp_cases,
     .covers = "both bounds, min only, max only, equal bounds, ReLU6; rank 1-4; signed inputs",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.concat",
     .tolerance = kExact,
     .reason = kCopies,
     .build = concat_cases,
     .covers = "rank 1-4, any axis, 2-5 inputs of extent 1-6 along it, sometimes 0"},
    {.capsule = "onednn.conv",
     .tolerance = kSums,
     .reason = kLongSums,
     .build = conv_cases,
     .covers = "1-D to 3-D; groups 1, 2-3 or depthwise; stride 1-3; dilation 1-2; asymmetric pads; "
               "bias or none",
     .special = SpecialValues::may_make_nan},
    {.capsule = "onednn.conv_add_relu",
     .tolerance = kSums,
     .reason = kLongSums,
     .build = conv_add_relu_cases,
     .covers = "draw_conv's geometry; residual a full input, a broadcast one ([1,C,1,1]-like), or "
               "the conv's own input (identity shortcut); either operand order; relu",
     .special = SpecialValues::may_make_nan},
    {.capsule = "onednn.conv_clamp",
     .tolerance = {.abs = 0.0001, .rel = 0.0001, .norm = 2e-05},
     .reason = "oneDNN sums in its own order and may contract multiply-adds; the reference sums "
               "left to right in float32 without contraction, so long sums differ by rounding "
               "that scales with the summed terms. The clamp bounds max|want| to its range while "
               "the sums before it are up to ten times larger, so the absolute term carries what "
               "the norm term carries for onednn.conv.",
     .build = conv_clamp_cases,
     .covers = "draw_conv's geometry, then clamp with both, one or equal bounds (ReLU6)",
     .special = SpecialValues::may_lose_special,
     // An infinite weight meeting the padding gives NaN, which the clip makes its lower
     // bound: the claim says so, onednn.conv's row draws it.
     .special_weights = false},
    {.capsule = "onednn.conv_hard_sigmoid",
     .tolerance = {.abs = 0.0001, .rel = 0.0001, .norm = 2e-05},
     .reason = "oneDNN sums in its own order and may contract multiply-adds (alpha x + beta "
               "too); the gate bounds max|want| to [0, 1] while the sums before it are larger, so "
               "the absolute term carries what the norm term carries for onednn.conv, as for "
               "onednn.conv_clamp.",
     .build = conv_hard_sigmoid_cases,
     .covers = "draw_conv's geometry, then hard_sigmoid with ONNX's, PyTorch's or drawn alpha and "
               "beta",
     .special = SpecialValues::may_lose_special,
     // An infinite weight meeting the padding gives NaN, which the clip makes its lower
     // bound: the claim says so, onednn.conv's row draws it.
     .special_weights = false},
    {.capsule = "onednn.conv_hard_swish",
     .tolerance = kSums,
     .reason = kLongSums,
     .build = conv_hard_swish_cases,
     .covers = "draw_conv's geometry, then hard_swish",
     .special = SpecialValues::may_make_nan},
    {.capsule = "onednn.conv_relu",
     .tolerance = kSums,
     .reason = kLongSums,
     .build = conv_relu_cases,
     .covers = "draw_conv's geometry, then relu",
     .special = SpecialValues::may_make_nan},
    {.capsule = "onednn.conv_silu",
     .tolerance = kSums,
     .reason = kLongSums,
     .build = conv_silu_cases,
     .covers = "draw_conv's geometry, then silu",
     .special = SpecialValues::may_make_nan},
    {.capsule = "onednn.conv_transpose",
     .tolerance = kSums,
     .reason = kLongSums,
     .build = conv_transpose_cases,
     .covers = "1-D to 3-D; groups 1, 2-3 or depthwise; stride 1-3; dilation 1-2; asymmetric pads; "
               "output_padding below the stride or the dilation (as ONNX allows); bias or none"},
    {.capsule = "onednn.elu",
     .tolerance = {.abs = 3e-07, .rel = 2e-06, .norm = 0},
     .reason = "oneDNN computes exp(x) - 1 with its own exp approximation, which cancels for "
               "small negative x (-1e-7 gives -1.19e-7: about one ulp of 1 times alpha, absolute, "
               "so the bound holds for the alphas drawn, up to 2); the reference uses expm1.",
     .build = elu_cases,
     .covers = "alpha 1, 0.5, 2, 0.1; rank 1-4; signed inputs"},
    {.capsule = "onednn.exp",
     .tolerance = {.abs = 1e-30, .rel = 1e-05, .norm = 0},
     .reason = "oneDNN evaluates exp with its own vectorised approximation; the reference calls "
               "the C library.",
     .build = exp_cases,
     .covers = "rank 1-4, signed inputs up to +-32 (results from 1e-14 to 1e14)",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.gelu",
     .tolerance = {.abs = 1e-05, .rel = 1e-05, .norm = 0},
     .reason = "oneDNN evaluates gelu with its own vectorised approximation; the reference calls "
               "the C library.",
     .build = gelu_cases,
     .covers = "erf and tanh forms, rank 1-4, signed inputs up to +-32"},
    {.capsule = "onednn.gru",
     .tolerance = kRecurrent,
     .reason = kRecurrentReason,
     .build = gru_cases,
     .covers = "seq 1-8, batch 1-4, input and hidden 1-32, forward, reverse and bidirectional, "
               "initial states given or zero, bias or none, linear_before_reset 0 and 1"},
    {.capsule = "onednn.hard_sigmoid",
     .tolerance = {.abs = 1e-07, .rel = 1e-06, .norm = 0},
     .reason = "oneDNN's linear may contract alpha x + beta into one multiply-add, which the "
               "reference rounds twice; near the lower edge the result is a difference of nearly "
               "equal terms, so the bound is absolute there.",
     .build = hard_sigmoid_cases,
     .covers = "ONNX's, PyTorch's or drawn alpha and beta; rank 1-4; signed inputs up to +-32",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.hard_swish",
     .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 0},
     .reason = "oneDNN computes x * relu6(x + 3) / 6, the reference ONNX's x * clamp(x * "
               "0.16666667 + 0.5, 0, 1): one function, rounded in different orders; near x = -3 "
               "the gate is a difference of nearly equal terms, so the bound is absolute there.",
     .build = hard_swish_cases,
     .covers = "rank 1-4, signed inputs up to +-32 (both flat ends and the ramp)"},
    {.capsule = "onednn.layer_norm",
     .tolerance = {.abs = 1e-05, .rel = 0.0001, .norm = 1e-05},
     .reason = "oneDNN computes the mean and variance in its own order (and may use one pass); "
               "the reference uses two passes left to right.",
     .build = layer_norm_cases,
     .covers = "rank 1-4, every axis, gamma and beta each present or not, epsilon default or 1e-3, "
               "inputs offset from zero"},
    {.capsule = "onednn.leaky_relu",
     .tolerance = kExact,
     .reason = "both compute alpha * x rounded once, or x itself, so both must agree exactly (0 "
               "and -0 compare equal).",
     .build = leaky_relu_cases,
     .covers = "alpha 0.01, 0.2, 0, 1, -0.5, 3; rank 1-4; signed inputs",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.linear",
     .tolerance = kSums,
     .reason = kLongSums,
     .build = linear_cases,
     .covers = "input rank 2-4, in 1-64, out 1-48, bias or none"},
    {.capsule = "onednn.linear_gelu",
     .tolerance = kSums,
     .reason = "oneDNN sums in its own order and may contract multiply-adds; the reference sums "
               "left to right in float32 without contraction, so long sums differ by rounding "
               "that scales with the summed terms (the norm term); oneDNN's gelu is its own "
               "approximation.",
     .build = linear_gelu_cases,
     .covers = "draw_linear's shapes, then gelu (erf or tanh)"},
    {.capsule = "onednn.linear_relu",
     .tolerance = kSums,
     .reason = kLongSums,
     .build = linear_relu_cases,
     .covers = "draw_linear's shapes, then relu",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.log",
     .tolerance = {.abs = 5e-06, .rel = 1e-05, .norm = 0},
     .reason = "oneDNN evaluates log with its own vectorised approximation; the reference calls "
               "the C library, whose absolute error near x = 1 (results near 0) reaches 3.4e-6 "
               "(the largest seen over 2000 cases); log is defined for non-negative inputs only, "
               "so none are drawn.",
     .build = log_cases,
     .covers = "rank 1-4, inputs in [0, 1), [0, 4) or [0, 32), zeros (-inf)"},
    {.capsule = "onednn.log_softmax",
     .tolerance = {.abs = 1e-05, .rel = 1e-05, .norm = 0},
     .reason = "oneDNN sums the exponentials in its own order with its own exp and log.",
     .build = log_softmax_cases,
     .covers = "rank 1-4, every axis, inputs up to +-60 (large exponents)",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.lstm",
     .tolerance = kRecurrent,
     .reason = kRecurrentReason,
     .build = lstm_cases,
     .covers = "seq 1-8, batch 1-4, input and hidden 1-32, forward, reverse and bidirectional, "
               "initial states given or zero, bias or none, initial h and c"},
    {.capsule = "onednn.matmul",
     .tolerance = kSums,
     .reason = kLongSums,
     .build = matmul_cases,
     .covers = "2-D, equal 3-D batch, ranks 1-4 with broadcast batch axes and rank-1 operands"},
    {.capsule = "onednn.matmul_add",
     .tolerance = kSums,
     .reason = kLongSums,
     .build = matmul_add_cases,
     .covers =
         "draw_matmul's shapes; addend a full input or a broadcast one (Gemm's C row); either "
         "operand order"},
    {.capsule = "onednn.max",
     .tolerance = kExact,
     .reason = kRoundsOnce,
     .build = max_cases,
     .covers = "rank 1-4, same shapes, an operand broadcast from a smaller shape (broadcast_to, as "
               "the importer writes numpy broadcasting), both operands one value, either order",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.max_pool",
     .tolerance = kExact,
     .reason = "a maximum rounds nothing, so both must agree exactly. Not drawn: a window whose "
               "every element is -inf, which the importer never produces from ONNX pads below the "
               "kernel; there oneDNN returns -FLT_MAX where the reference returns -inf.",
     .build = max_pool_cases,
     .covers = "1-D to 3-D; kernel 1-3 or global; stride 1-3; symmetric pads; ONNX asymmetric pads "
               "and ceil_mode as the importer lowers them (-inf borders)",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.min",
     .tolerance = kExact,
     .reason = kRoundsOnce,
     .build = min_cases,
     .covers = "rank 1-4, same shapes, an operand broadcast from a smaller shape (broadcast_to, as "
               "the importer writes numpy broadcasting), both operands one value, either order",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.mul",
     .tolerance = kExact,
     .reason = kRoundsOnce,
     .build = mul_cases,
     .covers = "rank 1-4, same shapes, both operands one value, either order (a broadcast operand "
               "is fused with the mul under fast_cpu: onednn.broadcast_mul.oracle draws it)"},
    {.capsule = "onednn.permute",
     .tolerance = kExact,
     .reason = kCopies,
     .build = permute_cases,
     .covers = "rank 1-4; a random permutation of the axes, or a transpose of two axes"},
    {.capsule = "onednn.reshape",
     .tolerance = kExact,
     .reason = kCopies,
     .build = reshape_cases,
     .covers = "rank 1-4 to a flattened, reversed, extended or split shape"},
    {.capsule = "onednn.reshape_permute_reshape",
     .tolerance = kExact,
     .reason = kCopies,
     .build = reshape_permute_reshape_cases,
     .covers = "channel shuffles (2-4 groups, 1-2 spatial axes; half read channels-last after an "
               "identity 1x1 convolution), and any permutation of a rank 1-4 shape with one axis "
               "split, flattened or merged back",
     .special_weights = false},
    {.capsule = "onednn.reduce_max",
     .tolerance = kExact,
     .reason = "a maximum rounds nothing, so both must agree exactly.",
     .build = reduce_max_cases,
     .covers = "rank 1-4, every axis, signed inputs up to +-32, zeros",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.reduce_mean",
     .tolerance = kSums,
     .reason = kLongSums,
     .build = reduce_mean_cases,
     .covers = "rank 1-4, every axis, up to 2048 elements, signed inputs up to +-32"},
    {.capsule = "onednn.reduce_min",
     .tolerance = kExact,
     .reason = "a minimum rounds nothing, so both must agree exactly.",
     .build = reduce_min_cases,
     .covers = "rank 1-4, every axis, signed inputs up to +-32, zeros",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.reduce_prod",
     .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 0},
     .reason = "oneDNN multiplies in its own order; the reference left to right; each product "
               "rounds, and the orders' roundings differ by a few units in the last place.",
     .build = reduce_prod_cases,
     .covers = "rank 1-4, every axis, axes up to 12, inputs in [0.5, 1.5)"},
    {.capsule = "onednn.reduce_sum",
     .tolerance = kSums,
     .reason = kLongSums,
     .build = reduce_sum_cases,
     .covers = "rank 1-4, every axis, up to 2048 elements, signed inputs up to +-32; `sum` of "
               "every element"},
    {.capsule = "onednn.relu",
     .tolerance = kExact,
     .reason = kRoundsOnce,
     .build = relu_cases,
     .covers = "rank 1-4, signed inputs up to +-32, zeros",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.resize",
     .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 4e-06},
     .reason = "oneDNN's resampling computes the coordinates and weights in float32 and the "
               "matmuls multiply by float32 weights in their own order; the reference computes "
               "in float64 and rounds once.",
     .build = resize_cases,
     .covers = "N 1-2, C 1-4, 1-3 spatial axes up to 12, every mode, coordinate mapping and "
               "nearest mode, cubic_coeff_a -0.75 and -0.5, exclude_outside, scales 0.5-3 or "
               "sizes; half of the linear cases half_pixel by whole or half factors "
               "(resampling)",
     .special = SpecialValues::may_make_nan},
    {.capsule = "onednn.rnn",
     .tolerance = kRecurrent,
     .reason = kRecurrentReason,
     .build = rnn_cases,
     .covers = "seq 1-8, batch 1-4, input and hidden 1-32, forward, reverse and bidirectional, "
               "initial states given or zero, bias or none"},
    {.capsule = "onednn.sigmoid",
     .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 0},
     .reason = "oneDNN evaluates the logistic function with its own vectorised approximation; the "
               "reference calls the C library.",
     .build = sigmoid_cases,
     .covers = "rank 1-4, signed inputs up to +-32 (saturation)"},
    {.capsule = "onednn.sigmoid_mul",
     .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 0},
     .reason = "oneDNN evaluates the logistic function with its own vectorised approximation, "
               "whose error is relative (the sigmoid oracle's tolerance); the product by the "
               "other operand keeps it relative.",
     .build = sigmoid_mul_cases,
     .covers =
         "rank 1-4, signed inputs up to +-32; the mul's other operand the sigmoid's own input "
         "(SiLU) or another input of that shape (a gate); either order"},
    {.capsule = "onednn.silu",
     .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 0},
     .reason = "oneDNN computes x / (1 + exp(-x)) with its own vectorised exp, the reference x * "
               "(1 / (1 + exp(-x))) with the C library's: one function, an error relative to it.",
     .build = silu_cases,
     .covers = "rank 1-4, signed inputs up to +-32 (both saturated ends)"},
    {.capsule = "onednn.slice",
     .tolerance = kExact,
     .reason = kCopies,
     .build = slice_cases,
     .covers = "rank 1-4, any axis, start and end within or past the extent, step 1 to 3, "
               "sometimes empty"},
    {.capsule = "onednn.hard_masked_softmax",
     .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 0},
     .reason = "oneDNN sums the exponentials in its own order with its own exp.",
     .build = hard_masked_softmax_cases,
     .covers = "rank 1-4; a mask of the last one or two axes, causal or drawn, some with a row "
               "blocked everywhere; inputs up to +-60",
     .special = SpecialValues::may_make_nan},
    {.capsule = "onednn.softmax",
     .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 0},
     .reason = "oneDNN sums the exponentials in its own order with its own exp.",
     .build = softmax_cases,
     .covers = "rank 1-4, every axis, inputs up to +-60 (large exponents)",
     .special = SpecialValues::may_lose_special},
    {.capsule = "onednn.softplus",
     .tolerance = {.abs = 4e-06, .rel = 1e-05, .norm = 0},
     .reason = "oneDNN evaluates log(1 + exp(x)) with its own vectorised approximation; the "
               "reference calls the C library, whose absolute error reaches the ulp of the "
               "input's magnitude (it returns -2^-19 for inputs near -18, where the value is "
               "about 2e-8).",
     .build = softplus_cases,
     .covers = "rank 1-4, signed inputs up to +-32"},
    {.capsule = "onednn.sqrt",
     .tolerance = {.abs = 0, .rel = 1e-06, .norm = 0},
     .reason = "a correctly rounded square root agrees exactly; a few ulp are allowed for a "
               "vectorised one; no negative inputs (outside the domain).",
     .build = sqrt_cases,
     .covers = "rank 1-4, inputs in [0, 1), [0, 4) or [0, 32), zeros"},
    {.capsule = "onednn.sub",
     .tolerance = kExact,
     .reason = kRoundsOnce,
     .build = sub_cases,
     .covers = "rank 1-4, same shapes, an operand broadcast from a smaller shape (broadcast_to, as "
               "the importer writes numpy broadcasting), both operands one value, either order"},
    {.capsule = "onednn.tanh",
     .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 0},
     .reason = "oneDNN evaluates tanh with its own vectorised approximation; the reference calls "
               "the C library.",
     .build = tanh_cases,
     .covers = "rank 1-4, signed inputs up to +-32 (saturation)"},
};

}  // namespace

std::span<const Oracle> registered_oracles() {
  return kRows;
}

}  // namespace nnplan::oracles
