// The onednn fused capsules against the reference provider run node by node: conv with relu,
// with a residual add then relu (the conv output as either operand of the add; and on a layout
// oneDNN stages through scratch), with clamp; linear with relu and gelu; matmul with a residual
// add; batch_norm then relu; sigmoid then mul (SiLU and a gate); broadcast then mul; each within
// its capsule's conformance tolerance (tests/oracles/conformance_table.cpp). Also the guard's
// refusals: a chain that is not the capsule's pattern, a residual or operand of the wrong shape, a
// missing residual input.
#include <gtest/gtest.h>

#include <algorithm>
#include <typeinfo>
#include <utility>

#include "nnplan/backend/builtin_modules.hpp"
#include "onednn_test_support.hpp"
#include "runtime/providers/onednn/onednn_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;
using Ints = std::vector<std::uint32_t>;

// conv of x [2,4,7,6] to [2,6,7,3]: 6 output channels, groups 2, stride 1x2, asymmetric padding:
// node 1.
Command conv_root() {
  const ir::ConvParams p{.spatial_rank = 2,
                         .kernel = {3, 3},
                         .stride = {1, 2},
                         .padding = {1, 0},
                         .dilation = {1, 1},
                         .padding_after = {1, 2},
                         .groups = 2,
                         .channel_axis = 1,
                         .in_channels = 4,
                         .out_channels = 6};
  Command c;
  c.chain.push_back(node(1, ir::OpKind::conv, {0}, shape_of({2, 6, 7, 3}), p));
  c.inputs.push_back(random_tensor(shape_of({2, 4, 7, 6}), 81));
  c.store.tensors[{1, "weight"}] = payload(shape_of({6, 2, 3, 3}), 82);
  c.store.tensors[{1, "bias"}] = payload(shape_of({6}), 83);
  return c;
}

TEST(onednn_conv_relu_forward_tests, MatchesReference) {
  Command c = conv_root();
  c.chain.push_back(node(2, ir::OpKind::relu, {1}, c.chain[0].shape));
  expect_matches_reference("onednn.conv_relu", c);
}

TEST(onednn_conv_add_relu_forward_tests, MatchesReferenceWithResidualOnEitherSide) {
  for (bool conv_first : {true, false}) {
    SCOPED_TRACE(conv_first);
    Command c = conv_root();
    const ir::Shape s = c.chain[0].shape;
    c.chain.push_back(
        node(3, ir::OpKind::add,
             conv_first ? std::vector<ir::NodeId>{1, 2} : std::vector<ir::NodeId>{2, 1}, s));
    c.chain.push_back(node(4, ir::OpKind::relu, {3}, s));
    c.inputs.push_back(random_tensor(s, 84));
    expect_matches_reference("onednn.conv_add_relu", c);
  }
}

// 32 input and 24 output channels: oneDNN runs the conv on a blocked or channels-last layout, so
// the residual is reordered into the scratch destination the sum post-op accumulates into.
TEST(onednn_conv_add_relu_forward_tests, StagedLayoutMatchesReference) {
  const ir::ConvParams p{.spatial_rank = 2,
                         .kernel = {3, 3},
                         .stride = {1, 1},
                         .padding = {1, 1},
                         .dilation = {1, 1},
                         .padding_after = {1, 1},
                         .groups = 1,
                         .channel_axis = 1,
                         .in_channels = 32,
                         .out_channels = 24};
  const ir::Shape s = shape_of({1, 24, 10, 9});
  Command c;
  c.chain.push_back(node(1, ir::OpKind::conv, {0}, s, p));
  c.chain.push_back(node(3, ir::OpKind::add, {2, 1}, s));
  c.chain.push_back(node(4, ir::OpKind::relu, {3}, s));
  c.inputs.push_back(random_tensor(shape_of({1, 32, 10, 9}), 91));
  c.inputs.push_back(random_tensor(s, 92));
  c.store.tensors[{1, "weight"}] = payload(shape_of({24, 32, 3, 3}), 93);
  c.store.tensors[{1, "bias"}] = payload(shape_of({24}), 94);
  auto state = prepare_onednn("onednn.conv_add_relu", c);
  ASSERT_TRUE(state.has_value()) << state.error().message;
  bool staged = false;
  for (const Binding& b : static_cast<const PrimitiveState&>(**state).bindings) {
    staged = staged || (b.arg == DNNL_ARG_DST && !b.staged.is_zero() && b.seed == 1);
  }
  EXPECT_TRUE(staged) << "the destination is not staged with the residual as its seed";
  expect_matches_reference("onednn.conv_add_relu", c);
}

// A padding of 4 rows with a 3-row kernel: the first output row's window reads only padding.
// oneDNN 2.6's brgconv kernel crashes at launch with a sum post-op there, so the residual goes
// through a binary add post-op (no destination seed), and the result still matches.
TEST(onednn_conv_add_relu_forward_tests, WindowInPaddingTakesTheBinaryAdd) {
  const ir::ConvParams p{.spatial_rank = 2,
                         .kernel = {3, 3},
                         .stride = {1, 1},
                         .padding = {4, 1},
                         .dilation = {1, 1},
                         .padding_after = {4, 1},
                         .groups = 1,
                         .channel_axis = 1,
                         .in_channels = 16,
                         .out_channels = 16};
  const ir::Shape s = shape_of({1, 16, 12, 6});
  Command c;
  c.chain.push_back(node(1, ir::OpKind::conv, {0}, s, p));
  c.chain.push_back(node(3, ir::OpKind::add, {2, 1}, s));
  c.chain.push_back(node(4, ir::OpKind::relu, {3}, s));
  c.inputs.push_back(random_tensor(shape_of({1, 16, 6, 6}), 95));
  c.inputs.push_back(random_tensor(s, 96));
  c.store.tensors[{1, "weight"}] = payload(shape_of({16, 16, 3, 3}), 97);
  auto state = prepare_onednn("onednn.conv_add_relu", c);
  ASSERT_TRUE(state.has_value()) << state.error().message;
  for (const Binding& b : static_cast<const PrimitiveState&>(**state).bindings) {
    EXPECT_EQ(b.seed, Binding::kNoSeed) << "argument " << b.arg << " is seeded with the residual";
  }
  expect_matches_reference("onednn.conv_add_relu", c);
}

TEST(onednn_conv_clamp_forward_tests, MatchesReferenceWithEitherBoundAbsent) {
  for (const ir::ClampParams& bounds :
       {ir::ClampParams{.min = 0.0F, .max = 0.6F}, ir::ClampParams{.min = -0.2F},
        ir::ClampParams{.max = 0.1F}}) {
    Command c = conv_root();
    c.chain.push_back(node(2, ir::OpKind::clamp, {1}, c.chain[0].shape, bounds));
    expect_matches_reference("onednn.conv_clamp", c);
  }
}

Command linear_root() {
  Command c;
  c.chain.push_back(node(1, ir::OpKind::linear, {0}, shape_of({3, 4, 9})));
  c.inputs.push_back(random_tensor(shape_of({3, 4, 10}), 91));
  c.store.tensors[{1, "weight"}] = payload(shape_of({9, 10}), 92);
  c.store.tensors[{1, "bias"}] = payload(shape_of({9}), 93);
  return c;
}

TEST(onednn_linear_relu_forward_tests, MatchesReference) {
  Command c = linear_root();
  c.chain.push_back(node(2, ir::OpKind::relu, {1}, c.chain[0].shape));
  expect_matches_reference("onednn.linear_relu", c);
}

TEST(onednn_linear_gelu_forward_tests, MatchesReferenceForBothApproximations) {
  for (ir::GeluApproximation a : {ir::GeluApproximation::none, ir::GeluApproximation::tanh}) {
    Command c = linear_root();
    c.chain.push_back(
        node(2, ir::OpKind::gelu, {1}, c.chain[0].shape, ir::GeluParams{.approximate = a}));
    expect_matches_reference("onednn.linear_gelu", c);
  }
}

TEST(onednn_matmul_add_forward_tests, MatchesReference) {
  Command c;
  c.chain.push_back(node(2, ir::OpKind::matmul, {0, 1}, shape_of({2, 3, 5})));
  c.chain.push_back(node(4, ir::OpKind::add, {3, 2}, shape_of({2, 3, 5})));
  c.inputs.push_back(random_tensor(shape_of({2, 3, 8}), 101));
  c.inputs.push_back(random_tensor(shape_of({8, 5}), 102));
  c.inputs.push_back(random_tensor(shape_of({2, 3, 5}), 103));
  expect_matches_reference("onednn.matmul_add", c);
}

// A batch_norm (node 1) of x over channel axis `axis`, then relu (node 2).
Command batch_norm_relu(ir::Shape x, std::uint32_t axis) {
  const ir::Dim c = x.dims[axis];
  Command cmd;
  cmd.chain.push_back(
      node(1, ir::OpKind::batch_norm_eval, {0}, x,
           ir::ChannelAxisParams{.channel_axis = axis, .channels = static_cast<std::uint32_t>(c)}));
  cmd.chain.push_back(node(2, ir::OpKind::relu, {1}, x));
  cmd.inputs.push_back(random_tensor(x, 41));
  cmd.store.tensors[{1, "scale"}] = payload(shape_of({c}), 42);
  cmd.store.tensors[{1, "bias"}] = payload(shape_of({c}), 43);
  cmd.store.tensors[{1, "mean"}] = payload(shape_of({c}), 44);
  cmd.store.tensors[{1, "var"}] = payload(shape_of({c}), 45, 0.1F, 2.0F);
  cmd.store.attributes[{1, "epsilon"}] = 1e-3;
  return cmd;
}

TEST(onednn_batch_norm_relu_forward_tests, MatchesReference) {
  for (const auto& [x, axis] :
       {std::pair{shape_of({2, 3, 4, 5}), 1U}, std::pair{shape_of({4, 6}), 1U},
        std::pair{shape_of({2, 3, 5}), 2U}}) {
    SCOPED_TRACE(ir::to_string(x));
    const Command c = batch_norm_relu(x, axis);
    expect_matches_reference("onednn.batch_norm_relu", c);
    // The ReLU ran: the normalized values were of both signs, the output has no negative one.
    auto got = run_onednn("onednn.batch_norm_relu", c);
    ASSERT_TRUE(got.has_value());
    EXPECT_GE(*std::min_element(got->floats().begin(), got->floats().end()), 0.0F);
    EXPECT_GT(std::count(got->floats().begin(), got->floats().end(), 0.0F), 0);
  }
}

// DenseNet's batch norm and ReLU before each dense layer, in either layout, run on an optimized
// kernel where the CPU has one (AVX2 or later), not on oneDNN's reference implementation.
TEST(onednn_batch_norm_relu_forward_tests, RunsOnAnOptimizedKernel) {
  if (dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx2) GTEST_SKIP() << "no AVX2";
  for (const TensorLayout layout : {TensorLayout::flat, TensorLayout::channels_last}) {
    SCOPED_TRACE(std::string(to_string(layout)));
    auto state = prepare_onednn("onednn.batch_norm_relu",
                                batch_norm_relu(shape_of({1, 64, 28, 28}), 1), 1, layout, layout);
    ASSERT_TRUE(state.has_value()) << state.error().message;
    const std::string impl = implementation_of(**state);
    EXPECT_FALSE(impl.empty());
    EXPECT_EQ(impl.find("ref"), std::string::npos) << impl;
  }
}

// sigmoid of x [2,3,5,4] (node 1), then mul (node 2) of it by `other`: node 0 (x itself: SiLU)
// or a second input, node 3; the sigmoid on `sigmoid_first` side of the mul.
Command sigmoid_mul(bool silu, bool sigmoid_first) {
  const ir::Shape s = shape_of({2, 3, 5, 4});
  const ir::NodeId other = silu ? 0 : 3;
  Command c;
  c.chain.push_back(node(1, ir::OpKind::sigmoid, {0}, s));
  c.chain.push_back(node(
      2, ir::OpKind::mul_elem,
      sigmoid_first ? std::vector<ir::NodeId>{1, other} : std::vector<ir::NodeId>{other, 1}, s));
  c.inputs.push_back(random_tensor(s, 111));
  c.inputs.push_back(silu ? c.inputs[0] : random_tensor(s, 112));
  return c;
}

// What the sigmoid, mul command was prepared as: a gate (the handler's own state type, with its
// mul step), or one swish (a plain one-primitive state).
bool prepared_as_gate(const Command& c) {
  auto state = prepare_onednn("onednn.sigmoid_mul", c);
  EXPECT_TRUE(state.has_value()) << state.error().message;
  return state && typeid(**state) != typeid(PrimitiveState);
}

TEST(onednn_sigmoid_mul_forward_tests, SiluIsOneSwishPassMatchingReference) {
  for (bool sigmoid_first : {true, false}) {
    SCOPED_TRACE(sigmoid_first);
    const Command c = sigmoid_mul(true, sigmoid_first);
    EXPECT_FALSE(prepared_as_gate(c));
    expect_matches_reference("onednn.sigmoid_mul", c);
  }
}

TEST(onednn_sigmoid_mul_forward_tests, GateByAnotherOperandMatchesReference) {
  for (bool sigmoid_first : {true, false}) {
    SCOPED_TRACE(sigmoid_first);
    const Command c = sigmoid_mul(false, sigmoid_first);
    EXPECT_TRUE(prepared_as_gate(c));
    expect_matches_reference("onednn.sigmoid_mul", c);
  }
}

TEST(onednn_sigmoid_mul_forward_tests, GuardRefusesAnOperandOfAnotherShape) {
  Command c = sigmoid_mul(false, true);
  c.inputs[1] = random_tensor(shape_of({2, 3, 5, 1}), 113);
  EXPECT_EQ(refusal("onednn.sigmoid_mul", c),
            "node 2 (mul_elem): parent shapes differ: [2,3,5,4] and [2,3,5,1] (broadcasting must "
            "be explicit)");
}

// broadcast (node 1) of input 0 from `from` to `to`, then mul (node 3) by input 1 of shape `to`
// (node 2), the broadcast on `broadcast_first` side.
Command broadcast_mul(const ir::Shape& from, const ir::Shape& to, bool broadcast_first) {
  Command c;
  c.chain.push_back(
      node(1, ir::OpKind::broadcast_to, {0}, to, ir::BroadcastParams{.from = from, .to = to}));
  c.chain.push_back(
      node(3, ir::OpKind::mul_elem,
           broadcast_first ? std::vector<ir::NodeId>{1, 2} : std::vector<ir::NodeId>{2, 1}, to));
  c.inputs.push_back(random_tensor(from, 121));
  c.inputs.push_back(random_tensor(to, 122));
  return c;
}

TEST(onednn_broadcast_mul_forward_tests, MatchesReferenceExactly) {
  const struct {
    ir::Shape from, to;
  } cases[] = {
      {shape_of({1, 6, 1, 1}), shape_of({2, 6, 5, 4})},  // squeeze-excite's channel scale
      {shape_of({4}), shape_of({2, 3, 4})},              // leading axes added
      {shape_of({3, 1}), shape_of({2, 3, 5})},           // a middle axis kept, the last stretched
      {shape_of({}), shape_of({3, 2})},                  // a scalar
      {shape_of({2, 5}), shape_of({2, 5})},              // nothing to broadcast
  };
  for (const auto& k : cases) {
    for (bool broadcast_first : {true, false}) {
      SCOPED_TRACE(ir::to_string(k.from) + " to " + ir::to_string(k.to) +
                   (broadcast_first ? ", broadcast first" : ", broadcast second"));
      expect_matches_reference("onednn.broadcast_mul",
                               broadcast_mul(k.from, k.to, broadcast_first));
    }
  }
}

TEST(onednn_broadcast_mul_forward_tests, GuardRefusesAnOperandOfAnotherShape) {
  Command c = broadcast_mul(shape_of({1, 6, 1, 1}), shape_of({2, 6, 5, 4}), true);
  c.inputs[1] = random_tensor(shape_of({2, 6, 5, 3}), 123);
  EXPECT_EQ(refusal("onednn.broadcast_mul", c),
            "node 3 (mul_elem): parent shapes differ: [2,6,5,4] and [2,6,5,3] (broadcasting must "
            "be explicit)");
}

// The command buffer asks for channels-last only where broadcast_takes_channels_last allows and
// never for two layouts; prepare refuses anything else, saying what it runs on.
TEST(onednn_broadcast_mul_forward_tests, PrepareRefusesLayoutsItDoesNotRunOn) {
  using enum TensorLayout;
  const std::string runs_on =
      "; it runs on one layout, channels-last only from an input of the output's rank";
  const auto refusal_on = [](const Command& c, TensorLayout in, TensorLayout out) {
    auto state = prepare_onednn("onednn.broadcast_mul", c, 0, in, out);
    return state ? std::string() : state.error().message;
  };
  const Command same_rank = broadcast_mul(shape_of({1, 6, 1, 1}), shape_of({2, 6, 5, 4}), true);
  EXPECT_EQ(refusal_on(same_rank, channels_last, flat),
            "the broadcast, mul was asked to run with its input channels-last and its output "
            "flat" +
                runs_on);
  EXPECT_EQ(refusal_on(same_rank, channels_last, channels_last), "");
  const Command lower_rank = broadcast_mul(shape_of({5, 4}), shape_of({2, 6, 5, 4}), true);
  EXPECT_EQ(refusal_on(lower_rank, channels_last, channels_last),
            "the broadcast, mul was asked to run with its input channels-last and its output "
            "channels-last" +
                runs_on);
  EXPECT_EQ(refusal_on(lower_rank, flat, flat), "");
}

TEST(onednn_broadcast_mul_forward_tests, PrepareRefusesARankPastOnednnsLimit) {
  const ir::Shape wide = shape_of({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3});
  EXPECT_EQ(refusal("onednn.broadcast_mul", broadcast_mul(shape_of({3}), wide, true)),
            "the output has shape [1,1,1,1,1,1,1,1,1,1,1,2,3]; onednn broadcast_to needs rank at "
            "most 12");
}

TEST(onednn_sigmoid_mul_forward_tests, GuardRefusesAMulOfTheSigmoidBySelf) {
  const ir::Shape s = shape_of({2, 3});
  Command c;
  c.chain.push_back(node(1, ir::OpKind::sigmoid, {0}, s));
  c.chain.push_back(node(2, ir::OpKind::mul_elem, {1, 1}, s));
  c.inputs.push_back(random_tensor(s, 114));
  EXPECT_EQ(refusal("onednn.sigmoid_mul", c),
            "node 2 (mul_elem) reads the previous node's value 2 times; onednn.sigmoid_mul needs "
            "it once");
}

// Zero-size outputs prepare and launch nothing (execute's rule for every onednn command).
TEST(onednn_sigmoid_mul_forward_tests, EmptyTensorsRun) {
  for (bool silu : {true, false}) {
    Command c = sigmoid_mul(silu, true);
    const ir::Shape empty = shape_of({2, 0, 5, 4});
    for (ir::Node& n : c.chain)
      n.shape = empty;
    for (Tensor& t : c.inputs)
      t = random_tensor(empty, 115);
    auto got = run_onednn("onednn.sigmoid_mul", c);
    ASSERT_TRUE(got.has_value()) << got.error().message;
    EXPECT_EQ(got->shape, empty);
    EXPECT_TRUE(got->floats().empty());
  }
}

TEST(onednn_broadcast_mul_forward_tests, EmptyTensorsRun) {
  const ir::Shape empty = shape_of({2, 0, 5});
  auto got = run_onednn("onednn.broadcast_mul", broadcast_mul(shape_of({1, 0, 1}), empty, true));
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_EQ(got->shape, empty);
  EXPECT_TRUE(got->floats().empty());
}

TEST(onednn_conv_relu_forward_tests, GuardRefusesAnotherChain) {
  Command c = conv_root();
  c.chain.push_back(node(2, ir::OpKind::tanh, {1}, c.chain[0].shape));
  EXPECT_EQ(refusal("onednn.conv_relu", c),
            "the command's chain is [conv, tanh]; onednn.conv_relu runs [conv, relu]");
}

// The chain a fused handler accepts is its capsule's declared pattern, spelled as backend ops:
// the sigmoid gate's mul_elem node runs the pattern's `mul`.
TEST(onednn_sigmoid_mul_forward_tests, GuardNamesTheDeclaredPattern) {
  Command c;
  const ir::Shape s = shape_of({4, 5});
  c.inputs.push_back(random_tensor(s, 3, -2.0F, 2.0F));
  c.chain.push_back(node(1, ir::OpKind::sigmoid, {0}, s));
  c.chain.push_back(node(2, ir::OpKind::add, {1, 0}, s));
  EXPECT_EQ(refusal("onednn.sigmoid_mul", c),
            "the command's chain is [sigmoid, add]; onednn.sigmoid_mul runs [sigmoid, mul]");
}

// Every fused capsule of the onednn module has a handler in this build, registered under the
// capsule's root op.
TEST(onednn_fused_forward_tests, EveryDeclaredPatternHasItsHandler) {
  for (const backend::KernelCapsule& capsule : backend::onednn_module().capsules) {
    if (!capsule.is_fused()) continue;
    SCOPED_TRACE(capsule.name);
    const HandlerDefinition* h = builtin_handlers().find(capsule);
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(capsule.op, capsule.pattern.front());
    EXPECT_NE(h->prepare, nullptr);
  }
}

TEST(onednn_conv_add_relu_forward_tests, GuardRefusesWrongResidual) {
  Command c = conv_root();
  const ir::Shape s = c.chain[0].shape;
  c.chain.push_back(node(3, ir::OpKind::add, {1, 2}, s));
  c.chain.push_back(node(4, ir::OpKind::relu, {3}, s));
  c.inputs.push_back(random_tensor(shape_of({2, 6, 7, 4}), 84));
  EXPECT_EQ(refusal("onednn.conv_add_relu", c),
            "node 3 (add): parent shapes differ: [2,6,7,3] and [2,6,7,4] (broadcasting must be "
            "explicit)");
  c.inputs.pop_back();
  EXPECT_EQ(refusal("onednn.conv_add_relu", c),
            "1 inputs given; onednn.conv_add_relu needs one for the operand of node 3 (add)");
}

}  // namespace
}  // namespace nnplan::runtime::onednn
