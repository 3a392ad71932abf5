// What the onednn capsules whose value claims say so do with NaN: oneDNN's relu (and leaky_relu
// with alpha 0), clip, exp and binary max/min do not propagate NaN as the reference provider does,
// and each capsule's value summary states the value it gives instead after "NaN and infinity
// differ from the reference: " (backend::special_value_caveat), which the report lists as a
// caveat. These tests hold the claims to the code: each runs the handler on a NaN and checks the
// stated value, and the claim carries the sentence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "nnplan/backend/builtin_modules.hpp"
#include "onednn_test_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::string claim_of(std::string_view capsule) {
  for (const backend::KernelCapsule& c : backend::onednn_module().capsules) {
    if (c.name == capsule) return std::string(backend::special_value_caveat(c.value));
  }
  ADD_FAILURE() << "no capsule " << capsule;
  return {};
}

// The first output element of `capsule` on a one-node command of `kind` whose inputs' first
// elements are `first` (the rest 0.5).
float first_output(std::string_view capsule, ir::OpKind kind, std::vector<float> first,
                   ir::OpParams params = {}) {
  const ir::Shape s = shape_of({16});
  Command c;
  std::vector<ir::NodeId> parents;
  for (std::size_t i = 0; i < first.size(); ++i) {
    parents.push_back(static_cast<ir::NodeId>(i));
    Tensor t = zeros(s);
    std::fill(t.floats().begin(), t.floats().end(), 0.5F);
    t.floats()[0] = first[i];
    c.inputs.push_back(std::move(t));
  }
  c.chain.push_back(node(static_cast<ir::NodeId>(first.size()), kind, parents, s, params));
  auto got = run_onednn(capsule, c);
  EXPECT_TRUE(got.has_value()) << (got ? "" : got.error().message);
  return got ? got->floats()[0] : 0.0F;
}

TEST(OnednnNan, ReluMapsNanToZero) {
  EXPECT_EQ(first_output("onednn.relu", ir::OpKind::relu, {kNan}), 0.0F);
  EXPECT_NE(claim_of("onednn.relu").find("NaN becomes 0"), std::string::npos);
}

TEST(OnednnNan, ClampMapsNanToTheLowerBound) {
  EXPECT_EQ(first_output("onednn.clamp", ir::OpKind::clamp, {kNan},
                         ir::ClampParams{.min = -0.25F, .max = 0.25F}),
            -0.25F);
  EXPECT_EQ(first_output("onednn.clamp", ir::OpKind::clamp, {kNan},
                         ir::ClampParams{.min = std::nullopt, .max = 0.25F}),
            -kInf);
  EXPECT_NE(claim_of("onednn.clamp").find("NaN becomes the lower bound"), std::string::npos);
}

TEST(OnednnNan, ExpMapsNanToInfinity) {
  EXPECT_EQ(first_output("onednn.exp", ir::OpKind::exp, {kNan}), kInf);
  EXPECT_NE(claim_of("onednn.exp").find("NaN becomes +inf"), std::string::npos);
}

TEST(OnednnNan, MaxAndMinGiveTheOtherOperandForANanFirstOne) {
  EXPECT_EQ(first_output("onednn.max", ir::OpKind::max_elem, {kNan, 0.25F}), 0.25F);
  EXPECT_EQ(first_output("onednn.min", ir::OpKind::min_elem, {kNan, 0.25F}), 0.25F);
  EXPECT_TRUE(std::isnan(first_output("onednn.max", ir::OpKind::max_elem, {0.25F, kNan})));
  for (std::string_view c : {"onednn.max", "onednn.min"}) {
    EXPECT_NE(claim_of(c).find("a NaN first operand gives the second operand"), std::string::npos)
        << c;
  }
}

// leaky_relu keeps NaN unless its alpha is 0, where oneDNN runs plain relu; elu keeps NaN.
TEST(OnednnNan, LeakyReluMapsNanToZeroOnlyWithAlphaZero) {
  EXPECT_TRUE(std::isnan(first_output("onednn.leaky_relu", ir::OpKind::leaky_relu, {kNan},
                                      ir::AlphaParams{.alpha = 0.01F})));
  EXPECT_EQ(first_output("onednn.leaky_relu", ir::OpKind::leaky_relu, {kNan},
                         ir::AlphaParams{.alpha = 0.0F}),
            0.0F);
  EXPECT_NE(claim_of("onednn.leaky_relu").find("NaN becomes 0 where alpha is 0"),
            std::string::npos);
}

TEST(OnednnNan, EluKeepsNan) {
  EXPECT_TRUE(std::isnan(
      first_output("onednn.elu", ir::OpKind::elu, {kNan}, ir::AlphaParams{.alpha = 1.0F})));
  EXPECT_EQ(claim_of("onednn.elu").find("NaN"), std::string::npos);
}

// hard_swish keeps NaN and gives the reference's values at the infinities (+inf, and NaN for
// -inf * 0), so its notes say nothing of them.
TEST(OnednnNan, HardSwishKeepsNanAndTheInfinities) {
  EXPECT_TRUE(std::isnan(first_output("onednn.hard_swish", ir::OpKind::hard_swish, {kNan})));
  EXPECT_EQ(first_output("onednn.hard_swish", ir::OpKind::hard_swish, {kInf}), kInf);
  EXPECT_TRUE(std::isnan(first_output("onednn.hard_swish", ir::OpKind::hard_swish, {-kInf})));
  EXPECT_EQ(claim_of("onednn.hard_swish").find("NaN"), std::string::npos);
}

// silu (oneDNN's swish) keeps NaN and gives the reference's values at the infinities (+inf, and
// NaN for -inf * 0), so its notes say nothing of them.
TEST(OnednnNan, SiluKeepsNanAndTheInfinities) {
  EXPECT_TRUE(std::isnan(first_output("onednn.silu", ir::OpKind::silu, {kNan})));
  EXPECT_EQ(first_output("onednn.silu", ir::OpKind::silu, {kInf}), kInf);
  EXPECT_TRUE(std::isnan(first_output("onednn.silu", ir::OpKind::silu, {-kInf})));
  EXPECT_EQ(claim_of("onednn.silu").find("NaN"), std::string::npos);
}

TEST(OnednnNan, HardSigmoidMapsNanToZero) {
  EXPECT_EQ(first_output("onednn.hard_sigmoid", ir::OpKind::hard_sigmoid, {kNan},
                         ir::HardSigmoidParams{}),
            0.0F);
  EXPECT_NE(claim_of("onednn.hard_sigmoid").find("NaN becomes 0"), std::string::npos);
}

// A conv's hard_sigmoid runs as oneDNN's linear then clip post-ops: a NaN sum becomes 0.
TEST(OnednnNan, ConvHardSigmoidMapsNanToZero) {
  ir::ConvParams p{.spatial_rank = 1,
                   .kernel = {1},
                   .stride = {1},
                   .padding = {0},
                   .dilation = {1},
                   .padding_after = {0},
                   .groups = 1,
                   .channel_axis = 1,
                   .in_channels = 1,
                   .out_channels = 1};
  Command c;
  c.chain.push_back(node(1, ir::OpKind::conv, {0}, shape_of({1, 1, 4}), p));
  c.chain.push_back(node(2, ir::OpKind::hard_sigmoid, {1}, shape_of({1, 1, 4}),
                         ir::HardSigmoidParams{.alpha = 0.2F, .beta = 0.5F}));
  Tensor x = zeros(shape_of({1, 1, 4}));
  x.floats() = {kNan, 0.0F, 100.0F, -100.0F};
  c.inputs.push_back(std::move(x));
  Tensor w = zeros(shape_of({1, 1, 1}));
  w.floats() = {1.0F};
  c.store.tensors[{1, "weight"}] = ir::WeightTensor::adopt<float>(w.shape, std::move(w.floats()));
  auto got = run_onednn("onednn.conv_hard_sigmoid", c);
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_EQ(got->floats(), (std::vector<float>{0.0F, 0.5F, 1.0F, 0.0F}));
  EXPECT_NE(claim_of("onednn.conv_hard_sigmoid").find("NaN becomes 0"), std::string::npos);
}

// The ReLU that oneDNN's batch normalization fuses: its jit kernels (bnorm_jit, channels-last
// values among them) take the maximum with 0, which gives 0 for NaN; its plain kernel for small
// flat values (ncsp_bnorm) keeps NaN. The notes say both.
TEST(OnednnNan, BatchNormReluMapsNanToZeroInItsJitKernels) {
  const ir::Shape s = shape_of({1, 16, 4, 4});
  Command c;
  c.chain.push_back(node(1, ir::OpKind::batch_norm_eval, {0}, s,
                         ir::ChannelAxisParams{.channel_axis = 1, .channels = 16}));
  c.chain.push_back(node(2, ir::OpKind::relu, {1}, s));
  Tensor x = zeros(s);
  std::fill(x.floats().begin(), x.floats().end(), 0.5F);
  x.floats()[0] = kNan;
  c.inputs.push_back(std::move(x));
  for (const auto& [slot, value] : {std::pair{"scale", 1.0F}, std::pair{"bias", 0.0F},
                                    std::pair{"mean", 0.0F}, std::pair{"var", 1.0F}}) {
    c.store.tensors[{1, slot}] =
        ir::WeightTensor::adopt<float>(shape_of({16}), std::vector<float>(16, value));
  }
  c.store.attributes[{1, "epsilon"}] = 0.0;
  int jit = 0;
  for (const TensorLayout layout : {TensorLayout::flat, TensorLayout::channels_last}) {
    SCOPED_TRACE(std::string(to_string(layout)));
    auto state = prepare_onednn("onednn.batch_norm_relu", c, 1, layout, layout);
    ASSERT_TRUE(state.has_value()) << state.error().message;
    const std::string impl = implementation_of(**state);
    auto got = run_onednn("onednn.batch_norm_relu", c, 1, state->get());
    ASSERT_TRUE(got.has_value()) << got.error().message;
    if (impl.find("jit") != std::string::npos) {
      ++jit;
      EXPECT_EQ(got->floats()[0], 0.0F) << impl;
    } else {
      EXPECT_TRUE(std::isnan(got->floats()[0])) << impl;
    }
    EXPECT_EQ(got->floats()[1], 0.5F);
  }
  if (dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx2) {
    EXPECT_GT(jit, 0);
  }
  const std::string notes = claim_of("onednn.batch_norm_relu");
  EXPECT_NE(notes.find("NaN becomes 0 in its jit kernels"), std::string::npos) << notes;
  EXPECT_NE(notes.find("its plain kernel keeps NaN"), std::string::npos) << notes;
}

TEST(OnednnNan, FusedReluAndClipNotesSayTheSame) {
  for (std::string_view c : {"onednn.conv_relu", "onednn.conv_add_relu", "onednn.linear_relu"}) {
    EXPECT_NE(claim_of(c).find("NaN becomes 0"), std::string::npos) << c;
  }
  EXPECT_NE(claim_of("onednn.conv_clamp").find("NaN becomes the lower bound"), std::string::npos);
}

// Every value claim says what it covers: NaN and infinity included, or finite inputs with how
// NaN and infinity differ.
TEST(OnednnNan, ValueSummariesSayWhatTheyCover) {
  for (const backend::KernelCapsule& c : backend::onednn_module().capsules) {
    const bool caveat = !backend::special_value_caveat(c.value).empty();
    EXPECT_EQ(c.value.summary.find(", NaN and infinity included") != std::string::npos, !caveat)
        << c.value.summary;
    EXPECT_EQ(c.value.summary.find(" on finite inputs; ") != std::string::npos, caveat)
        << c.value.summary;
  }
}

}  // namespace
}  // namespace nnplan::runtime::onednn
