// The onednn eltwise handlers against the reference provider, each within its capsule's row of
// the conformance table (tests/oracles/conformance_table.cpp: the tolerance and its reason; the
// test prints the worst share of it each case used), on directed cases: every parameter form,
// clamp with absent bounds, hard_sigmoid's alpha and beta. Also in-place runs and the guards'
// refusals.
#include <gtest/gtest.h>

#include <cstdio>

#include "onednn_test_support.hpp"
#include "runtime/providers/onednn/onednn_roots.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;

Command unary_case(ir::OpKind kind, ir::OpParams params = {}, float lo = -6.0F, float hi = 6.0F) {
  Command c;
  const ir::Shape s = shape_of({7, 33});
  c.chain.push_back(node(1, kind, {0}, s, std::move(params)));
  c.inputs.push_back(random_tensor(s, 61, lo, hi));
  return c;
}

void expect_unary(std::string_view capsule, const Command& c) {
  const double share = expect_matches_reference(capsule, c);
  std::printf("%s: worst share of the allowed error %.3g\n", std::string(capsule).c_str(), share);
}

TEST(onednn_eltwise_forward_tests, ExactOps) {
  expect_unary("onednn.relu", unary_case(ir::OpKind::relu));
  expect_unary("onednn.abs", unary_case(ir::OpKind::abs));
  expect_unary("onednn.clamp",
               unary_case(ir::OpKind::clamp, ir::ClampParams{.min = -1.5F, .max = 2.0F}));
  expect_unary("onednn.clamp", unary_case(ir::OpKind::clamp, ir::ClampParams{.min = 0.5F}));
  expect_unary("onednn.clamp", unary_case(ir::OpKind::clamp, ir::ClampParams{.max = -0.5F}));
  for (const float alpha : {0.01F, 0.0F, -0.5F, 3.0F}) {
    expect_unary("onednn.leaky_relu",
                 unary_case(ir::OpKind::leaky_relu, ir::AlphaParams{.alpha = alpha}));
  }
}

TEST(onednn_eltwise_forward_tests, ApproximatedOps) {
  expect_unary("onednn.sqrt", unary_case(ir::OpKind::sqrt, {}, 0.0F, 10.0F));
  // log near 1 (values near 0) is off by up to 1.5e-6 absolute.
  expect_unary("onednn.log", unary_case(ir::OpKind::log, {}, 0.01F, 10.0F));
  expect_unary("onednn.exp", unary_case(ir::OpKind::exp));
  expect_unary("onednn.sigmoid", unary_case(ir::OpKind::sigmoid));
  expect_unary("onednn.tanh", unary_case(ir::OpKind::tanh));
  expect_unary("onednn.softplus", unary_case(ir::OpKind::softplus));
  for (const float alpha : {1.0F, 0.5F, 2.0F}) {
    expect_unary("onednn.elu", unary_case(ir::OpKind::elu, ir::AlphaParams{.alpha = alpha}));
  }
  expect_unary("onednn.gelu", unary_case(ir::OpKind::gelu, ir::GeluParams{}));
  expect_unary("onednn.hard_swish", unary_case(ir::OpKind::hard_swish));
  expect_unary("onednn.silu", unary_case(ir::OpKind::silu));
  // ONNX's default, PyTorch's (1/6, 1/2), a negative slope.
  for (const auto& [alpha, beta] :
       {std::pair{0.2F, 0.5F}, std::pair{1.0F / 6.0F, 0.5F}, std::pair{-0.3F, 0.25F}}) {
    expect_unary(
        "onednn.hard_sigmoid",
        unary_case(ir::OpKind::hard_sigmoid, ir::HardSigmoidParams{.alpha = alpha, .beta = beta}));
  }
  expect_unary(
      "onednn.gelu",
      unary_case(ir::OpKind::gelu, ir::GeluParams{.approximate = ir::GeluApproximation::tanh}));
}

// A node whose parameters are another kind's gets no algorithm, never one built from defaults.
TEST(onednn_eltwise_forward_tests, ParametersOfAnotherKindGetNoAlgorithm) {
  const ir::Node clamp = node(1, ir::OpKind::clamp, {0}, shape_of({4}), ir::ScaleParams{});
  const auto op = eltwise_of(clamp);
  ASSERT_FALSE(op.has_value());
  EXPECT_EQ(op.error().message, "node kind clamp carries parameters of another kind");
  EXPECT_TRUE(eltwise_of(node(1, ir::OpKind::leaky_relu, {0}, shape_of({4}),
                              ir::AlphaParams{.alpha = 0.1F}))
                  .has_value());
}

void expect_runs_in_place(std::string_view capsule, const Command& c) {
  SCOPED_TRACE(std::string(capsule));
  const Tensor want = run_reference(c);
  const HandlerDefinition& h = handler_named(capsule);
  EXPECT_TRUE(h.in_place_safe);
  std::vector<const ir::Shape*> shapes{&c.inputs[0].shape};
  auto state = h.prepare({.node = c.chain[0],
                          .chain = {},
                          .input_shapes = shapes,
                          .weights = {},
                          .output_shape = c.chain[0].shape,
                          .settings = {}});
  ASSERT_TRUE(state.has_value());
  Tensor buffer = c.inputs[0];
  const TensorRef in[] = {view(buffer)};
  const KernelCall call{.node = c.chain[0],
                        .inputs = in,
                        .weights = {},
                        .output = mutable_view(buffer),
                        .chain = {},
                        .state = state->get()};
  ASSERT_TRUE(h.layout_guard(call).has_value());
  ASSERT_TRUE(h.shape_guard(call).has_value());
  h.forward(call);
  expect_close(buffer, want, 1e-5, 1e-6);
}

TEST(onednn_eltwise_forward_tests, RunsInPlace) {
  expect_runs_in_place("onednn.tanh", unary_case(ir::OpKind::tanh));
  expect_runs_in_place("onednn.hard_sigmoid",
                       unary_case(ir::OpKind::hard_sigmoid, ir::HardSigmoidParams{}));
}

// A command that touches few elements runs on one thread whatever the bound (a second thread's
// wake-up costs more than it saves: a GPT block at two threads took twice its one-thread time);
// a larger one keeps the bound.
TEST(onednn_eltwise_forward_tests, SmallCommandsRunOnOneThread) {
  const auto threads_of = [](const ir::Shape& s, int bound) {
    Command c;
    c.chain.push_back(node(1, ir::OpKind::relu, {0}, s));
    c.inputs.push_back(random_tensor(s, 5));
    auto state = prepare_onednn("onednn.relu", c, bound);
    EXPECT_TRUE(state.has_value());
    return state ? static_cast<const PrimitiveState&>(**state).threads : -1;
  };
  // Input and output together: 2 x 8192 elements, half of kOneThreadElements.
  EXPECT_EQ(threads_of(shape_of({32, 256}), 2), 1);
  EXPECT_EQ(threads_of(shape_of({32, 256}), 0), 1);
  // 2 x 16384: at the bound.
  EXPECT_EQ(threads_of(shape_of({64, 256}), 2), 2);
  EXPECT_EQ(threads_of(shape_of({64, 256}), 0), 0);
  EXPECT_EQ(threads_of(shape_of({64, 256}), 1), 1);
}

TEST(onednn_eltwise_forward_tests, ShapeGuardRefusesWrongKind) {
  const std::string m = refusal("onednn.relu", unary_case(ir::OpKind::tanh));
  EXPECT_EQ(m, "node kind tanh does not run on the relu kernel");
}

}  // namespace
}  // namespace nnplan::runtime::onednn
