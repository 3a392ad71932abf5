// The onednn softmax handlers (onednn.softmax, onednn.log_softmax) against the reference
// provider along every axis on inputs in [-4, 4), within each capsule's conformance tolerance
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

}  // namespace
}  // namespace nnplan::runtime::onednn
