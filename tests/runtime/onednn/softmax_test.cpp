// The onednn softmax handlers (onednn.softmax, onednn.log_softmax, onednn.hard_masked_softmax)
// against the reference provider along every axis (the masked one with causal, drawn and
// broadcast masks) on inputs in [-4, 4), within each capsule's conformance tolerance
// (tests/oracles/conformance_table.cpp), and the guards' refusals.
#include <gtest/gtest.h>

#include "onednn_test_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;

Command softmax_case(ir::OpKind kind, ir::Shape x, std::uint32_t axis) {
  Command c;
  c.chain.push_back(node(1, kind, {0}, x, ir::AxisParams{.axis = axis}));
  c.inputs.push_back(random_tensor(x, 51, -4.0F, 4.0F));
  return c;
}

TEST(onednn_softmax_forward_tests, MatchesReferenceAlongEveryAxis) {
  for (std::uint32_t axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE(axis);
    expect_matches_reference("onednn.softmax",
                             softmax_case(ir::OpKind::softmax, shape_of({3, 5, 4}), axis));
  }
}

TEST(onednn_log_softmax_forward_tests, MatchesReferenceAlongEveryAxis) {
  for (std::uint32_t axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE(axis);
    expect_matches_reference("onednn.log_softmax",
                             softmax_case(ir::OpKind::log_softmax, shape_of({3, 5, 4}), axis));
  }
}

TEST(onednn_softmax_forward_tests, ShapeGuardRefusesAxisOutsideRank) {
  const std::string m =
      refusal("onednn.softmax", softmax_case(ir::OpKind::softmax, shape_of({3, 5}), 2));
  EXPECT_EQ(m, "node 1 (softmax): axis 2 is out of range for [3,5] (rank 2)");
}

// A masked softmax of `x` whose mask is its trailing axes `mask_shape`, allowed where `allow`.
template <class Allow>
Command masked_case(ir::Shape x, ir::Shape mask_shape, Allow allow) {
  ir::MaskParams mask{.shape = mask_shape, .allowed = {}};
  const auto length = static_cast<std::size_t>(mask_shape.dims.back());
  const std::size_t rows = element_count_of(mask_shape) / length;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t k = 0; k < length; ++k)
      mask.allowed.push_back(allow(r, k));
  }
  Command c;
  c.chain.push_back(node(1, ir::OpKind::hard_masked_softmax, {0}, x, std::move(mask)));
  c.inputs.push_back(random_tensor(x, 52, -4.0F, 4.0F));
  return c;
}

TEST(onednn_hard_masked_softmax_forward_tests, CausalAndDrawnMasksMatchTheReference) {
  const auto causal = [](std::size_t r, std::size_t k) { return k <= r; };
  const auto drawn = [](std::size_t r, std::size_t k) { return (r * 7 + k * 3) % 5 != 0; };
  // The mask's leading axes broadcast over the input's: [5, 5] under [2, 3, 5, 5].
  expect_matches_reference("onednn.hard_masked_softmax",
                           masked_case(shape_of({2, 3, 5, 5}), shape_of({5, 5}), causal));
  expect_matches_reference("onednn.hard_masked_softmax",
                           masked_case(shape_of({2, 3, 4, 6}), shape_of({3, 4, 6}), drawn));
  expect_matches_reference("onednn.hard_masked_softmax",
                           masked_case(shape_of({4, 7}), shape_of({7}), drawn));
}

// Forbidden positions are exactly 0, and a row the mask blocks everywhere is all zeros (the
// softmax alone would make it NaN), in every batch slice.
TEST(onednn_hard_masked_softmax_forward_tests, ForbiddenPositionsAndBlockedRowsAreZero) {
  const auto allow = [](std::size_t r, std::size_t k) { return r != 1 && k <= r; };
  const Command c = masked_case(shape_of({2, 3, 4}), shape_of({3, 4}), allow);
  expect_matches_reference("onednn.hard_masked_softmax", c);
  auto got = run_onednn("onednn.hard_masked_softmax", c);
  ASSERT_TRUE(got.has_value()) << got.error().message;
  const auto& y = got->floats();
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::size_t r = 0; r < 3; ++r) {
      float sum = 0.0F;
      for (std::size_t k = 0; k < 4; ++k) {
        const float v = y[(b * 3 + r) * 4 + k];
        if (!allow(r, k)) {
          EXPECT_EQ(v, 0.0F) << b << " " << r << " " << k;
        }
        sum += v;
      }
      EXPECT_NEAR(sum, r == 1 ? 0.0F : 1.0F, 1e-6F) << b << " " << r;
    }
  }
}

}  // namespace
}  // namespace nnplan::runtime::onednn
