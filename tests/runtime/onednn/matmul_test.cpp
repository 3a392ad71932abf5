// The onednn linear algebra handlers (onednn.matmul, onednn.linear) against the reference
// provider within each capsule's conformance tolerance (tests/oracles/conformance_table.cpp):
// batch broadcasting, rank-1 promotion, linear with and without bias over leading axes, the thread
// bound, and the guards' refusals.
#include <gtest/gtest.h>

#include "onednn_test_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;

Command matmul_case(ir::Shape a, ir::Shape b, ir::Shape out) {
  Command c;
  c.chain.push_back(node(2, ir::OpKind::matmul, {0, 1}, std::move(out)));
  c.inputs.push_back(random_tensor(a, 1));
  c.inputs.push_back(random_tensor(b, 2));
  return c;
}

TEST(onednn_matmul_forward_tests, MatchesReferenceWithBroadcastAndPromotion) {
  expect_matches_reference("onednn.matmul",
                           matmul_case(shape_of({3, 5}), shape_of({5, 4}), shape_of({3, 4})));
  expect_matches_reference("onednn.matmul", matmul_case(shape_of({2, 1, 3, 7}), shape_of({4, 7, 5}),
                                                        shape_of({2, 4, 3, 5})));
  expect_matches_reference("onednn.matmul",
                           matmul_case(shape_of({7}), shape_of({2, 7, 3}), shape_of({2, 3})));
  expect_matches_reference("onednn.matmul",
                           matmul_case(shape_of({2, 3, 7}), shape_of({7}), shape_of({2, 3})));
  expect_matches_reference(
      "onednn.matmul", matmul_case(shape_of({64, 128}), shape_of({128, 96}), shape_of({64, 96})));
}

TEST(onednn_matmul_forward_tests, ShapeGuardRefusesMismatchedContraction) {
  const std::string m =
      refusal("onednn.matmul", matmul_case(shape_of({3, 5}), shape_of({4, 4}), shape_of({3, 4})));
  EXPECT_EQ(m, "node 2 (matmul): inner dimensions differ: [3,5] x [4,4]");
}

Command linear_case(ir::Shape x, ir::Dim out, bool bias) {
  Command c;
  ir::Shape y = x;
  y.dims.back() = out;
  c.chain.push_back(node(1, ir::OpKind::linear, {0}, y));
  c.inputs.push_back(random_tensor(x, 3));
  c.store.tensors[{1, "weight"}] = payload(shape_of({out, x.dims.back()}), 4);
  if (bias) c.store.tensors[{1, "bias"}] = payload(shape_of({out}), 5);
  return c;
}

TEST(onednn_linear_forward_tests, MatchesReferenceWithAndWithoutBias) {
  expect_matches_reference("onednn.linear", linear_case(shape_of({4, 6}), 3, true));
  expect_matches_reference("onednn.linear", linear_case(shape_of({2, 3, 6}), 5, false));
  expect_matches_reference("onednn.linear", linear_case(shape_of({6}), 2, true));
  expect_matches_reference("onednn.linear", linear_case(shape_of({32, 200}), 64, true));
}

TEST(onednn_linear_forward_tests, ThreadBoundGivesTheSameValues) {
  const Command c = linear_case(shape_of({16, 64}), 32, true);
  auto one = run_onednn("onednn.linear", c, 1);
  auto two = run_onednn("onednn.linear", c, 2);
  auto any = run_onednn("onednn.linear", c, 0);
  ASSERT_TRUE(one && two && any);
  expect_matches_reference("onednn.linear", c);
  // Another thread count may sum in another order: within rounding of one thread's values.
  expect_close(*two, *one, kLinearRel, 1e-5);
  expect_close(*any, *one, kLinearRel, 1e-5);
}

TEST(onednn_linear_forward_tests, ShapeGuardRefusesWrongWeight) {
  Command c = linear_case(shape_of({4, 6}), 3, true);
  c.store.tensors[{1, "weight"}] = payload(shape_of({3, 5}), 4);
  const std::string m = refusal("onednn.linear", c);
  EXPECT_EQ(m, "payload weight has shape [3,5]; linear needs float32 [3,6]");
}

TEST(onednn_linear_forward_tests, GuardRefusesShapesOtherThanPrepared) {
  // Prepared for [4,6]; launched on a [2,6] input (the guard sees the call's shapes).
  const Command c = linear_case(shape_of({4, 6}), 3, true);
  const HandlerDefinition& h = handler_named("onednn.linear");
  std::vector<const ir::Shape*> shapes{&c.inputs[0].shape};
  const auto weights = bind_weights(c.chain[0], c.store);
  const NodeWeights nw{.tensors = weights, .store = &c.store, .node_id = 1};
  auto state = h.prepare({.node = c.chain[0],
                          .chain = {},
                          .input_shapes = shapes,
                          .weights = nw,
                          .output_shape = c.chain[0].shape,
                          .settings = {}});
  ASSERT_TRUE(state.has_value());
  ir::Node other = node(1, ir::OpKind::linear, {0}, shape_of({2, 3}));
  Tensor x = random_tensor(shape_of({2, 6}), 1);
  Tensor y = zeros(other.shape);
  const TensorRef in[] = {view(x)};
  const KernelCall call{.node = other,
                        .inputs = in,
                        .weights = nw,
                        .output = mutable_view(y),
                        .chain = {},
                        .state = state->get()};
  auto ok = h.shape_guard(call);
  ASSERT_FALSE(ok.has_value());
  EXPECT_EQ(ok.error().message, "input 0 has shape [2,6]; the primitive was prepared for [4,6]");
  const KernelCall unprepared{
      .node = other, .inputs = in, .weights = nw, .output = mutable_view(y)};
  auto no_state = h.shape_guard(unprepared);
  ASSERT_FALSE(no_state.has_value());
  EXPECT_NE(no_state.error().message.find("the handler was not prepared"), std::string::npos);
}

TEST(onednn_matmul_forward_tests, LayoutGuardRefusesOverlappingOutput) {
  const Command c = matmul_case(shape_of({2, 2}), shape_of({2, 2}), shape_of({2, 2}));
  const HandlerDefinition& h = handler_named("onednn.matmul");
  Tensor a = c.inputs[0];
  const TensorRef in[] = {view(a), view(c.inputs[1])};
  const KernelCall call{.node = c.chain[0], .inputs = in, .weights = {}, .output = mutable_view(a)};
  auto ok = h.layout_guard(call);
  ASSERT_FALSE(ok.has_value());
  EXPECT_NE(ok.error().message.find("overlaps input 0"), std::string::npos) << ok.error().message;
}

}  // namespace
}  // namespace nnplan::runtime::onednn
