// What the onednn capsules whose notes say so do with NaN: oneDNN's relu (and leaky_relu with
// alpha 0), clip, exp and binary max/min do not propagate NaN as the reference provider does, and each capsule's notes state the
// value it gives instead. These tests hold the notes to the code: each runs the handler on a NaN
// and checks the documented value, and the notes carry the sentence.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nnplan/backend/builtin_modules.hpp"
#include "onednn_test_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::string notes_of(std::string_view capsule) {
  for (const backend::KernelCapsule& c : backend::onednn_module().capsules) {
    if (c.name == capsule) return c.notes;
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
  EXPECT_NE(notes_of("onednn.relu").find("NaN becomes 0"), std::string::npos);
}

TEST(OnednnNan, ClampMapsNanToTheLowerBound) {
  EXPECT_EQ(first_output("onednn.clamp", ir::OpKind::clamp, {kNan},
                         ir::ClampParams{.min = -0.25F, .max = 0.25F}),
            -0.25F);
  EXPECT_EQ(first_output("onednn.clamp", ir::OpKind::clamp, {kNan},
                         ir::ClampParams{.min = std::nullopt, .max = 0.25F}),
            -kInf);
  EXPECT_NE(notes_of("onednn.clamp").find("NaN becomes the lower bound"), std::string::npos);
}

TEST(OnednnNan, ExpMapsNanToInfinity) {
  EXPECT_EQ(first_output("onednn.exp", ir::OpKind::exp, {kNan}), kInf);
  EXPECT_NE(notes_of("onednn.exp").find("NaN becomes +inf"), std::string::npos);
}

TEST(OnednnNan, MaxAndMinGiveTheOtherOperandForANanFirstOne) {
  EXPECT_EQ(first_output("onednn.max", ir::OpKind::max_elem, {kNan, 0.25F}), 0.25F);
  EXPECT_EQ(first_output("onednn.min", ir::OpKind::min_elem, {kNan, 0.25F}), 0.25F);
  EXPECT_TRUE(std::isnan(first_output("onednn.max", ir::OpKind::max_elem, {0.25F, kNan})));
  for (std::string_view c : {"onednn.max", "onednn.min"}) {
    EXPECT_NE(notes_of(c).find("a NaN first operand gives the second operand"), std::string::npos)
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
  EXPECT_NE(notes_of("onednn.leaky_relu").find("NaN becomes 0 where alpha is 0"),
            std::string::npos);
}

TEST(OnednnNan, EluKeepsNan) {
  EXPECT_TRUE(std::isnan(
      first_output("onednn.elu", ir::OpKind::elu, {kNan}, ir::AlphaParams{.alpha = 1.0F})));
  EXPECT_EQ(notes_of("onednn.elu").find("NaN"), std::string::npos);
}

TEST(OnednnNan, FusedReluAndClipNotesSayTheSame) {
  for (std::string_view c : {"onednn.conv_relu", "onednn.conv_add_relu", "onednn.linear_relu"}) {
    EXPECT_NE(notes_of(c).find("NaN becomes 0"), std::string::npos) << c;
  }
  EXPECT_NE(notes_of("onednn.conv_clamp").find("NaN becomes the lower bound"), std::string::npos);
}

TEST(OnednnNan, ValueSummariesSpeakForFiniteInputs) {
  for (const backend::KernelCapsule& c : backend::onednn_module().capsules) {
    EXPECT_NE(c.value.summary.find("on finite inputs"), std::string::npos) << c.name;
  }
}

}  // namespace
}  // namespace nnplan::runtime::onednn
