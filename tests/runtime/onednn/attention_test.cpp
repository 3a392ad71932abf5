// The onednn attention handler (onednn.attention) against the reference provider: batched and
// unbatched, causal or not, with the default scale 1/sqrt(E) and an explicit one, S different
// from L and Ev from E, within the capsule's conformance tolerance
// (tests/oracles/conformance_table.cpp); and the guard's refusal of a k whose last axis is not
// q's.
#include <gtest/gtest.h>

#include "onednn_test_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;

Command attention_case(ir::Shape q, ir::Shape k, ir::Shape v, ir::AttentionParams params) {
  ir::Shape out = q;
  out.dims.back() = v.dims.back();
  Command c;
  c.chain.push_back(
      node(3, ir::OpKind::scaled_dot_product_attention, {0, 1, 2}, out, params));
  c.inputs.push_back(random_tensor(q, 61, -2.0F, 2.0F));
  c.inputs.push_back(random_tensor(k, 62, -2.0F, 2.0F));
  c.inputs.push_back(random_tensor(v, 63, -2.0F, 2.0F));
  return c;
}

TEST(onednn_attention_forward_tests, MatchesReference) {
  struct Case {
    ir::Shape q, k, v;
    ir::AttentionParams params;
  };
  const Case cases[] = {
      {shape_of({5, 8}), shape_of({7, 8}), shape_of({7, 3}), {}},
      {shape_of({2, 3, 6, 4}), shape_of({2, 3, 6, 4}), shape_of({2, 3, 6, 4}), {.causal = true}},
      {shape_of({4, 9, 16}), shape_of({4, 5, 16}), shape_of({4, 5, 8}),
       {.causal = true, .scale = 0.5F}},
      {shape_of({1, 12, 16, 64}), shape_of({1, 12, 16, 64}), shape_of({1, 12, 16, 64}),
       {.causal = false, .scale = 0.125F}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(ir::to_string(c.q) + (c.params.causal ? " causal" : ""));
    expect_matches_reference("onednn.attention", attention_case(c.q, c.k, c.v, c.params));
  }
}

TEST(onednn_attention_forward_tests, ShapeGuardRefusesMismatchedKeys) {
  const std::string m = refusal(
      "onednn.attention", attention_case(shape_of({5, 8}), shape_of({7, 6}), shape_of({7, 3}), {}));
  EXPECT_EQ(m,
            "node 3 (scaled_dot_product_attention): q and k differ in their last axis (E): [5,8], "
            "[7,6], [7,3]");
}

}  // namespace
}  // namespace nnplan::runtime::onednn
