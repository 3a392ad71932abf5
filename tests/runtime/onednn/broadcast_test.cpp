// The onednn broadcast handler (a oneDNN reorder from a stride-0 view of the input) against the
// reference provider: added leading axes, stretched size-1 axes, both, and nothing stretched;
// exact, since it copies. Also the guard's refusal of a source shape that does not broadcast.
#include <gtest/gtest.h>

#include "onednn_test_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;

Command broadcast_case(const ir::Shape& from, const ir::Shape& to) {
  Command c;
  c.chain.push_back(
      node(1, ir::OpKind::broadcast_to, {0}, to, ir::BroadcastParams{.from = from, .to = to}));
  c.inputs.push_back(random_tensor(from, 17));
  return c;
}

TEST(onednn_broadcast_forward_tests, MatchesReferenceExactly) {
  const std::vector<std::pair<ir::Shape, ir::Shape>> cases = {
      {shape_of({5}), shape_of({3, 5})},                   // an added leading axis
      {shape_of({1, 6, 1, 1}), shape_of({2, 6, 4, 3})},    // squeeze-excite's scale
      {shape_of({4, 1}), shape_of({2, 3, 4, 7})},          // both
      {shape_of({2, 3}), shape_of({2, 3})},                // nothing to stretch
      {shape_of({1}), shape_of({9, 2})},                   // a scalar-like value
  };
  for (const auto& [from, to] : cases) {
    SCOPED_TRACE(ir::to_string(from) + " to " + ir::to_string(to));
    const Command c = broadcast_case(from, to);
    auto got = run_onednn("onednn.broadcast", c);
    ASSERT_TRUE(got.has_value()) << got.error().message;
    expect_close(*got, run_reference(c), 0.0, 0.0);
  }
}

TEST(onednn_broadcast_forward_tests, GuardRefusesASourceThatDoesNotBroadcast) {
  Command c = broadcast_case(shape_of({3}), shape_of({2, 3}));
  c.chain[0].params = ir::BroadcastParams{.from = shape_of({3}), .to = shape_of({2, 4})};
  c.chain[0].shape = shape_of({2, 4});
  EXPECT_EQ(refusal("onednn.broadcast", c),
            "input 0 has shape [3]; broadcast_to [2,4] needs axis 0 to be 1 or 4");
}

}  // namespace
}  // namespace nnplan::runtime::onednn
