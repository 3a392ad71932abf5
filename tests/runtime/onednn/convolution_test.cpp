// The onednn convolution handlers (onednn.conv, onednn.conv_transpose) against the reference
// provider within each capsule's conformance tolerance (tests/oracles/conformance_table.cpp):
// 1 to 3 spatial axes, groups, dilation, strides, asymmetric padding, leading axes before
// the channel axis, output padding, layers oneDNN runs on a blocked layout (staged through
// scratch), one prepared state run from two threads at once, and the guards' refusals.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <thread>

#include "onednn_test_support.hpp"
#include "runtime/providers/onednn/onednn_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;
using Ints = std::vector<std::uint32_t>;

ir::ConvParams params(std::uint32_t rank, Ints kernel, Ints stride, Ints pad, Ints pad_after,
                      Ints dilation, std::uint32_t in, std::uint32_t out, std::uint32_t groups,
                      std::uint32_t channel_axis = 1) {
  return {.spatial_rank = rank,
          .kernel = std::move(kernel),
          .stride = std::move(stride),
          .padding = std::move(pad),
          .dilation = std::move(dilation),
          .padding_after = std::move(pad_after),
          .groups = groups,
          .channel_axis = channel_axis,
          .in_channels = in,
          .out_channels = out};
}

// The output extent of one conv axis.
ir::Dim conv_extent(ir::Dim in, const ir::ConvParams& p, std::size_t d, bool transposed) {
  const ir::Dim window = ir::Dim{p.dilation[d]} * (p.kernel[d] - 1) + 1;
  if (!transposed) return (in + p.padding[d] + p.padding_after[d] - window) / p.stride[d] + 1;
  return (in - 1) * p.stride[d] + window + p.output_padding[d] - p.padding[d] - p.padding_after[d];
}

Command conv_case(ir::Shape x, ir::ConvParams p, bool transposed, bool bias) {
  if (transposed && p.output_padding.empty()) p.output_padding.assign(p.spatial_rank, 0);
  ir::Shape y = x;
  y.dims[p.channel_axis] = p.out_channels;
  for (std::size_t d = 0; d < p.spatial_rank; ++d) {
    y.dims[p.channel_axis + 1 + d] = conv_extent(x.dims[p.channel_axis + 1 + d], p, d, transposed);
  }
  Command c;
  c.chain.push_back(node(1, transposed ? ir::OpKind::conv_transpose : ir::OpKind::conv, {0}, y, p));
  c.inputs.push_back(random_tensor(x, 11));
  ir::Shape w;
  w.dims.push_back(transposed ? p.in_channels : p.out_channels);
  w.dims.push_back(transposed ? p.out_channels / p.groups : p.in_channels / p.groups);
  for (std::uint32_t k : p.kernel)
    w.dims.push_back(k);
  c.store.tensors[{1, "weight"}] = payload(w, 12);
  if (bias) c.store.tensors[{1, "bias"}] = payload(shape_of({p.out_channels}), 13);
  return c;
}

TEST(onednn_conv_forward_tests, Conv2dMatchesReference) {
  expect_matches_reference(
      "onednn.conv",
      conv_case(shape_of({2, 3, 9, 8}), params(2, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 3, 4, 1),
                false, true));
}

TEST(onednn_conv_forward_tests, GroupsDilationStrideAsymmetricPadding) {
  expect_matches_reference(
      "onednn.conv",
      conv_case(shape_of({2, 6, 11, 10}),
                params(2, {3, 2}, {2, 3}, {2, 0}, {0, 1}, {2, 1}, 6, 4, 2), false, true));
  // Depthwise, no bias.
  expect_matches_reference(
      "onednn.conv",
      conv_case(shape_of({1, 4, 7, 7}), params(2, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 4, 4, 4),
                false, false));
}

TEST(onednn_conv_forward_tests, OneAndThreeSpatialAxesAndLeadingAxes) {
  expect_matches_reference(
      "onednn.conv",
      conv_case(shape_of({2, 3, 12}), params(1, {4}, {2}, {1}, {2}, {2}, 3, 5, 1), false, true));
  expect_matches_reference("onednn.conv", conv_case(shape_of({1, 2, 5, 6, 4}),
                                                    params(3, {2, 3, 2}, {1, 2, 1}, {1, 0, 1},
                                                           {0, 1, 0}, {1, 1, 2}, 2, 3, 1),
                                                    false, true));
  // Two batch-like axes before the channel axis (channel_axis 2), and none (channel_axis 0).
  expect_matches_reference(
      "onednn.conv",
      conv_case(shape_of({2, 3, 2, 6, 6}),
                params(2, {3, 3}, {1, 1}, {0, 0}, {0, 0}, {1, 1}, 2, 3, 1, 2), false, true));
  expect_matches_reference(
      "onednn.conv",
      conv_case(shape_of({2, 6, 6}), params(2, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 2, 3, 1, 0),
                false, true));
}

TEST(onednn_conv_transpose_forward_tests, MatchesReference) {
  expect_matches_reference(
      "onednn.conv_transpose",
      conv_case(shape_of({2, 4, 5, 6}), params(2, {3, 3}, {2, 2}, {1, 0}, {0, 1}, {1, 1}, 4, 6, 2),
                true, true));
  ir::ConvParams p = params(2, {3, 2}, {2, 3}, {1, 1}, {1, 1}, {2, 1}, 3, 2, 1);
  p.output_padding = {1, 2};
  expect_matches_reference("onednn.conv_transpose",
                           conv_case(shape_of({1, 3, 4, 5}), p, true, false));
}

// Whether the prepared conv state moves its output through a scratch buffer of a layout oneDNN
// chose (blocked or channels-last), the path the layers of real models take.
bool stages_output(const KernelState& state) {
  for (const Binding& b : static_cast<const PrimitiveState&>(state).bindings) {
    if (b.arg == DNNL_ARG_DST) return !b.staged.is_zero();
  }
  return false;
}

// 24 input and 40 output channels (not multiples of oneDNN's 16-channel blocks): oneDNN picks a
// layout other than plain nchw for src and dst, so the launch reorders through scratch.
TEST(onednn_conv_forward_tests, StagedLayoutMatchesReference) {
  for (bool transposed : {false, true}) {
    SCOPED_TRACE(transposed);
    const Command c =
        conv_case(shape_of({2, 24, 9, 8}),
                  params(2, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 24, 40, 1), transposed, true);
    const std::string capsule = transposed ? "onednn.conv_transpose" : "onednn.conv";
    auto state = prepare_onednn(capsule, c);
    ASSERT_TRUE(state.has_value()) << state.error().message;
    EXPECT_TRUE(stages_output(**state));
    expect_matches_reference(capsule, c);
  }
}

// One prepared state (what copies of a command buffer share) run from two threads at once, each
// on its own input: every result matches the reference for that input.
TEST(onednn_conv_forward_tests, OneStateRunsOnTwoThreadsAtOnce) {
  std::array<Command, 2> cases;
  for (std::size_t t = 0; t < cases.size(); ++t) {
    cases[t] = conv_case(shape_of({1, 32, 14, 14}),
                         params(2, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 32, 48, 1), false, true);
    cases[t].inputs[0] = random_tensor(cases[t].inputs[0].shape, 40 + static_cast<int>(t));
  }
  auto state = prepare_onednn("onednn.conv", cases[0], 1);
  ASSERT_TRUE(state.has_value()) << state.error().message;
  ASSERT_TRUE(stages_output(**state));
  std::array<Tensor, 2> want{run_reference(cases[0]), run_reference(cases[1])};
  const oracles::Tolerance tolerance = conformance_tolerance("onednn.conv");
  std::array<std::size_t, 2> mismatches{};
  std::array<std::thread, 2> threads;
  for (std::size_t t = 0; t < threads.size(); ++t) {
    threads[t] = std::thread([&, t] {
      for (int i = 0; i < 20; ++i) {
        auto got = run_onednn("onednn.conv", cases[t], 1, state->get());
        if (!got) {
          ++mismatches[t];
          continue;
        }
        const std::vector<Tensor> g{std::move(*got)};
        const std::vector<Tensor> w{want[t]};
        if (!oracles::compare(g, w, tolerance).passed) ++mismatches[t];
      }
    });
  }
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(mismatches[0], 0U);
  EXPECT_EQ(mismatches[1], 0U);
}

TEST(onednn_conv_forward_tests, ShapeGuardRefusesWrongChannels) {
  Command c = conv_case(shape_of({1, 3, 6, 6}),
                        params(2, {3, 3}, {1, 1}, {0, 0}, {0, 0}, {1, 1}, 3, 4, 1), false, true);
  c.inputs[0] = random_tensor(shape_of({1, 2, 6, 6}), 1);
  const std::string m = refusal("onednn.conv", c);
  EXPECT_EQ(m, "node 1 (conv): parent [1,2,6,6] has 2 channels on axis 1, expected in_channels 3");
}

TEST(onednn_conv_forward_tests, RefusesFourSpatialAxes) {
  const Command c = conv_case(
      shape_of({1, 1, 3, 3, 3, 3}),
      params(4, {1, 1, 1, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 1, 1, 1}, 1, 1, 1),
      false, false);
  EXPECT_EQ(refusal("onednn.conv", c), "spatial_rank 4; onednn conv needs 1 to 3 spatial axes");
}

}  // namespace
}  // namespace nnplan::runtime::onednn
