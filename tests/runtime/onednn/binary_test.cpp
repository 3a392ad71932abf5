// The onednn binary handlers (add, sub, mul, max, min) against the reference provider within
// each capsule's conformance tolerance (tests/oracles/conformance_table.cpp: exact, one rounding
// per element), in place on input 0, and the guards' refusals.
#include <gtest/gtest.h>

#include "onednn_test_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;

Command binary_case(ir::OpKind kind, ir::Shape a, ir::Shape b) {
  Command c;
  c.chain.push_back(node(2, kind, {0, 1}, a));
  c.inputs.push_back(random_tensor(a, 71));
  c.inputs.push_back(random_tensor(b, 72));
  return c;
}

TEST(onednn_binary_forward_tests, MatchesReference) {
  const std::pair<const char*, ir::OpKind> ops[] = {{"onednn.add", ir::OpKind::add},
                                                    {"onednn.sub", ir::OpKind::sub},
                                                    {"onednn.mul", ir::OpKind::mul_elem},
                                                    {"onednn.max", ir::OpKind::max_elem},
                                                    {"onednn.min", ir::OpKind::min_elem}};
  for (const auto& [capsule, kind] : ops) {
    SCOPED_TRACE(capsule);
    expect_matches_reference(capsule, binary_case(kind, shape_of({5, 3, 7}), shape_of({5, 3, 7})));
    EXPECT_TRUE(handler_named(capsule).in_place_safe);
  }
}

TEST(onednn_binary_forward_tests, ShapeGuardRefusesDifferentShapes) {
  const std::string m =
      refusal("onednn.add", binary_case(ir::OpKind::add, shape_of({2, 3}), shape_of({3})));
  EXPECT_EQ(m, "node 2 (add): parent shapes differ: [2,3] and [3] (broadcasting must be explicit)");
}

}  // namespace
}  // namespace nnplan::runtime::onednn
