// The onednn data movement handlers (oneDNN reorders from strided views of the input) against the
// reference provider, exactly, since they copy: broadcast (added leading axes, stretched size-1
// axes, both, nothing stretched), permute and transpose, slice (steps, bounds past the extent,
// an empty slice; channels-last), concat (inputs empty along the axis), reshape, and the
// reshape, permute, reshape chain (flat, and a channel shuffle channels-last). Also the guards'
// and prepares' refusals.
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
      {shape_of({5}), shape_of({3, 5})},                 // an added leading axis
      {shape_of({1, 6, 1, 1}), shape_of({2, 6, 4, 3})},  // squeeze-excite's scale
      {shape_of({4, 1}), shape_of({2, 3, 4, 7})},        // both
      {shape_of({2, 3}), shape_of({2, 3})},              // nothing to stretch
      {shape_of({1}), shape_of({9, 2})},                 // a scalar-like value
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
            "node 1 (broadcast_to): cannot broadcast [3] to [2,4]: source dimension 0 is 3, target "
            "has 4 (must be equal or 1)");
}

TEST(onednn_broadcast_forward_tests, PrepareRefusesLayoutsItDoesNotRunOn) {
  using enum TensorLayout;
  const Command c = broadcast_case(shape_of({4, 1}), shape_of({2, 3, 4, 5}));
  auto state = prepare_onednn("onednn.broadcast", c, 0, channels_last, channels_last);
  ASSERT_FALSE(state.has_value());
  EXPECT_EQ(state.error().message,
            "the broadcast was asked to run with its input channels-last and its output "
            "channels-last; it runs on one layout, channels-last only from an input of the "
            "output's rank");
  EXPECT_TRUE(prepare_onednn("onednn.broadcast", c, 0, flat, flat).has_value());
}

TEST(onednn_broadcast_forward_tests, GuardRefusesARankPastOnednnsLimit) {
  const ir::Shape wide = shape_of({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3});
  EXPECT_EQ(refusal("onednn.broadcast", broadcast_case(shape_of({3}), wide)),
            "the output has shape [1,1,1,1,1,1,1,1,1,1,1,2,3]; onednn broadcast_to needs rank at "
            "most 12");
}

Command one_node(ir::OpKind kind, const ir::Shape& in, const ir::Shape& out, ir::OpParams params) {
  Command c;
  c.chain.push_back(node(1, kind, {0}, out, std::move(params)));
  c.inputs.push_back(random_tensor(in, 23));
  return c;
}

void expect_exact(std::string_view capsule, const Command& c) {
  auto got = run_onednn(capsule, c);
  ASSERT_TRUE(got.has_value()) << got.error().message;
  expect_close(*got, run_reference(c), 0.0, 0.0);
}

TEST(onednn_permute_forward_tests, MatchesReferenceExactly) {
  expect_exact("onednn.permute",
               one_node(ir::OpKind::permute, shape_of({2, 3, 4, 5}), shape_of({4, 2, 5, 3}),
                        ir::PermuteParams{.perm = {2, 0, 3, 1}}));
  // BERT's heads: [B, S, H, D] to [B, H, S, D].
  expect_exact("onednn.permute",
               one_node(ir::OpKind::permute, shape_of({1, 16, 4, 8}), shape_of({1, 4, 16, 8}),
                        ir::PermuteParams{.perm = {0, 2, 1, 3}}));
  expect_exact("onednn.permute", one_node(ir::OpKind::transpose, shape_of({6, 7}), shape_of({7, 6}),
                                          ir::TransposeParams{.axis1 = 0, .axis2 = 1}));
  expect_exact("onednn.permute", one_node(ir::OpKind::permute, shape_of({9}), shape_of({9}),
                                          ir::PermuteParams{.perm = {0}}));
}

TEST(onednn_slice_forward_tests, MatchesReferenceExactly) {
  // BERT's QKV split: thirds of the last axis.
  expect_exact("onednn.slice",
               one_node(ir::OpKind::slice, shape_of({8, 24}), shape_of({8, 8}),
                        ir::SliceParams{.axis = 1, .start = 8, .end = 16, .step = 1}));
  expect_exact("onednn.slice",
               one_node(ir::OpKind::slice, shape_of({3, 10, 2}), shape_of({3, 3, 2}),
                        ir::SliceParams{.axis = 1, .start = 1, .end = 8, .step = 3}));
  // A step whose last plane is closer than a step to the axis's end: no single view of the input
  // has strides oneDNN accepts, so the handler copies plane by plane (oracle seed 100).
  expect_exact("onednn.slice",
               one_node(ir::OpKind::slice, shape_of({4, 12, 2, 11}), shape_of({4, 12, 2, 4}),
                        ir::SliceParams{.axis = 3, .start = 0, .end = 11, .step = 3}));
  // An end past the extent takes up to the end.
  expect_exact("onednn.slice",
               one_node(ir::OpKind::slice, shape_of({5, 4}), shape_of({2, 4}),
                        ir::SliceParams{.axis = 0, .start = 3, .end = 100, .step = 1}));
  // An empty slice writes nothing and succeeds.
  expect_exact("onednn.slice",
               one_node(ir::OpKind::slice, shape_of({5, 4}), shape_of({5, 0}),
                        ir::SliceParams{.axis = 1, .start = 2, .end = 2, .step = 1}));
  // Empty along the first axis too (oneDNN's simple reorder divides by zero there: the launch
  // must not reach it; oracle seed 24).
  expect_exact("onednn.slice",
               one_node(ir::OpKind::slice, shape_of({4, 3, 4}), shape_of({0, 3, 4}),
                        ir::SliceParams{.axis = 0, .start = 4, .end = 9, .step = 1}));
}

TEST(onednn_slice_forward_tests, GuardRefusesAStepOfZero) {
  const Command c = one_node(ir::OpKind::slice, shape_of({5, 4}), shape_of({5, 4}),
                             ir::SliceParams{.axis = 1, .start = 0, .end = 4, .step = 0});
  EXPECT_EQ(refusal("onednn.slice", c),
            "node 1 (slice): step 0 is not allowed (must be at least 1)");
}

Command concat_case(const std::vector<ir::Shape>& parts, std::uint32_t axis) {
  Command c;
  std::vector<ir::NodeId> ids;
  std::vector<const ir::Shape*> shapes;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    ids.push_back(static_cast<ir::NodeId>(i));
    shapes.push_back(&parts[i]);
    c.inputs.push_back(random_tensor(parts[i], 31 + static_cast<unsigned>(i)));
  }
  ir::Node n = node(static_cast<ir::NodeId>(parts.size()), ir::OpKind::concat, ids, ir::Shape{},
                    ir::AxisParams{.axis = axis});
  n.shape = *ir::infer_shape(n, shapes);
  c.chain.push_back(std::move(n));
  return c;
}

TEST(onednn_reshape_forward_tests, MatchesReferenceExactly) {
  const auto reshape = [](const ir::Shape& in, const ir::Shape& out) {
    return one_node(ir::OpKind::reshape, in, out, ir::ReshapeParams{.in = in, .out = out});
  };
  expect_exact("onednn.reshape", reshape(shape_of({2, 3, 4}), shape_of({6, 4})));
  expect_exact("onednn.reshape", reshape(shape_of({1, 512, 1, 1}), shape_of({1, 512})));
  expect_exact("onednn.reshape", reshape(shape_of({0, 3}), shape_of({3, 0})));
}

// Its claim is any dtype: int64 and bool values come out as they went in; an output of another
// dtype is refused, never written.
TEST(onednn_reshape_forward_tests, CopiesInt64AndBoolUnchanged) {
  const HandlerDefinition& h = handler_named("onednn.reshape");
  const ir::Shape in = shape_of({3, 4});
  const ir::Shape out = shape_of({2, 6});
  for (const DType dtype : {DType::int64, DType::boolean}) {
    SCOPED_TRACE(std::string(ir::to_string(dtype)));
    const ir::Node n =
        node(1, ir::OpKind::reshape, {0}, out, ir::ReshapeParams{.in = in, .out = out});
    Tensor x = zeros(in, dtype);
    for (std::size_t i = 0; i < 12; ++i) {
      if (dtype == DType::int64) x.ints()[i] = static_cast<std::int64_t>(i) * -7 - 1;
      if (dtype == DType::boolean) x.as<std::uint8_t>()[i] = i % 3 == 0 ? 1 : 0;
    }
    Tensor y = zeros(out, dtype);
    const std::vector<TensorRef> inputs = {view(x)};
    h.forward({.node = n, .inputs = inputs, .weights = {}, .output = mutable_view(y)});
    EXPECT_EQ(y.elements, x.elements);
    Tensor wrong = zeros(out, DType::float32);
    EXPECT_THROW(
        h.forward({.node = n, .inputs = inputs, .weights = {}, .output = mutable_view(wrong)}),
        std::logic_error);
  }
}

// A reshape, permute (or transpose), reshape chain on [1, G * W, H, W'] with the groups split
// off the channels: ShuffleNet's channel shuffle when `perm` swaps axes 1 and 2.
Command shuffle_case(ir::Dim groups, ir::Dim width, std::vector<std::uint32_t> perm,
                     bool transpose = false) {
  const ir::Shape in = shape_of({2, groups * width, 3, 5});
  const ir::Shape split = shape_of({2, groups, width, 3, 5});
  ir::Shape permuted;
  for (const std::uint32_t axis : perm)
    permuted.dims.push_back(split.dims[axis]);
  const ir::Shape out = perm[1] == 2 && perm[2] == 1 ? in : shape_of({2, groups * width * 15});
  Command c;
  c.chain.push_back(
      node(1, ir::OpKind::reshape, {0}, split, ir::ReshapeParams{.in = in, .out = split}));
  c.chain.push_back(transpose ? node(2, ir::OpKind::transpose, {1}, permuted,
                                     ir::TransposeParams{.axis1 = 1, .axis2 = 2})
                              : node(2, ir::OpKind::permute, {1}, permuted,
                                     ir::PermuteParams{.perm = std::move(perm)}));
  c.chain.push_back(
      node(3, ir::OpKind::reshape, {2}, out, ir::ReshapeParams{.in = permuted, .out = out}));
  c.inputs.push_back(random_tensor(in, 29));
  return c;
}

// [N, C, spatial...] row-major values rearranged into channels-last order (N, spatial..., C),
// or back.
Tensor to_channels_last(const Tensor& t, bool back = false) {
  const auto n = static_cast<std::size_t>(t.shape.dims[0]);
  const auto c = static_cast<std::size_t>(t.shape.dims[1]);
  const std::size_t spatial = t.floats().size() / std::max<std::size_t>(1, n * c);
  Tensor out = zeros(t.shape);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < c; ++k) {
      for (std::size_t p = 0; p < spatial; ++p) {
        const std::size_t flat = (i * c + k) * spatial + p;
        const std::size_t last = (i * spatial + p) * c + k;
        out.floats()[back ? flat : last] = t.floats()[back ? last : flat];
      }
    }
  }
  return out;
}

// Runs `capsule` on `flat`'s inputs rearranged channels-last (prepared for channels-last input and
// output) and returns its output rearranged back, to compare with the reference's flat result.
Expected<Tensor> run_channels_last(std::string_view capsule, const Command& flat) {
  auto state =
      prepare_onednn(capsule, flat, 0, TensorLayout::channels_last, TensorLayout::channels_last);
  if (!state) return std::unexpected(state.error());
  Command channels_last = flat;
  channels_last.inputs[0] = to_channels_last(flat.inputs[0]);
  auto got = run_onednn(capsule, channels_last, 0, state->get());
  if (!got) return got;
  return to_channels_last(*got, true);
}

TEST(onednn_reshape_permute_reshape_forward_tests, MatchesReferenceExactlyFlat) {
  expect_exact("onednn.reshape_permute_reshape", shuffle_case(2, 4, {0, 2, 1, 3, 4}));
  expect_exact("onednn.reshape_permute_reshape", shuffle_case(3, 2, {0, 2, 1, 3, 4}, true));
  // Any other permutation of the split shape, flattened after.
  expect_exact("onednn.reshape_permute_reshape", shuffle_case(2, 3, {4, 0, 3, 1, 2}));
}

// Channels-last, the channel shuffle interleaves the groups at each position: the same values
// as the reference's flat shuffle, in channels-last order.
TEST(onednn_reshape_permute_reshape_forward_tests, ShufflesChannelsLastValues) {
  for (const ir::Dim groups : {2, 3}) {
    SCOPED_TRACE(std::to_string(groups) + " groups");
    const Command flat = shuffle_case(groups, 4, {0, 2, 1, 3, 4});
    auto got = run_channels_last("onednn.reshape_permute_reshape", flat);
    ASSERT_TRUE(got.has_value()) << got.error().message;
    expect_close(*got, run_reference(flat), 0.0, 0.0);
  }
}

TEST(onednn_reshape_permute_reshape_forward_tests, PrepareRunsOnlyAChannelShuffleChannelsLast) {
  using enum TensorLayout;
  const Command other = shuffle_case(2, 3, {4, 0, 3, 1, 2});
  auto state =
      prepare_onednn("onednn.reshape_permute_reshape", other, 0, channels_last, channels_last);
  ASSERT_FALSE(state.has_value());
  EXPECT_EQ(state.error().message,
            "the reshape, permute, reshape chain was asked to run with its input channels-last "
            "and its output channels-last; it runs on one layout, channels-last only as a channel "
            "shuffle (the channel axis split in two, the two swapped, merged back)");
  EXPECT_FALSE(prepare_onednn("onednn.reshape_permute_reshape", shuffle_case(2, 3, {0, 2, 1, 3, 4}),
                              0, channels_last, flat));
  EXPECT_TRUE(prepare_onednn("onednn.reshape_permute_reshape", other, 0, flat, flat));
}

TEST(onednn_reshape_permute_reshape_forward_tests, GuardRefusesAnotherChain) {
  Command c = shuffle_case(2, 4, {0, 2, 1, 3, 4});
  c.chain[1].kind = ir::OpKind::relu;
  c.chain[1].params = {};
  EXPECT_EQ(refusal("onednn.reshape_permute_reshape", c),
            "the command's chain is [reshape, relu, reshape]; onednn.reshape_permute_reshape runs "
            "[reshape, permute, reshape]");
}

// Channels-last, a slice along the channels (ShuffleNet's split) or a spatial axis, with step 1
// or 2, reads the input's channels-last strides and writes a channels-last output.
TEST(onednn_slice_forward_tests, SlicesChannelsLastValues) {
  const ir::Shape in = shape_of({2, 8, 5, 4});
  for (const auto& p : {ir::SliceParams{.axis = 1, .start = 4, .end = 8, .step = 1},
                        ir::SliceParams{.axis = 1, .start = 1, .end = 8, .step = 2},
                        ir::SliceParams{.axis = 2, .start = 1, .end = 4, .step = 1},
                        ir::SliceParams{.axis = 3, .start = 0, .end = 4, .step = 3}}) {
    SCOPED_TRACE("axis " + std::to_string(p.axis) + " step " + std::to_string(p.step));
    ir::Shape out = in;
    out.dims[p.axis] = (p.end - p.start + p.step - 1) / p.step;
    const Command flat = one_node(ir::OpKind::slice, in, out, p);
    auto got = run_channels_last("onednn.slice", flat);
    ASSERT_TRUE(got.has_value()) << got.error().message;
    expect_close(*got, run_reference(flat), 0.0, 0.0);
  }
  const Command matrix = one_node(ir::OpKind::slice, shape_of({4, 6}), shape_of({4, 2}),
                                  ir::SliceParams{.axis = 1, .start = 0, .end = 2, .step = 1});
  auto refused = prepare_onednn("onednn.slice", matrix, 0, TensorLayout::channels_last,
                                TensorLayout::channels_last);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().message,
            "the slice was asked to run with its input channels-last and its output "
            "channels-last; it runs on one layout, channels-last only for values of rank 3 or "
            "more");
}

TEST(onednn_concat_forward_tests, MatchesReferenceExactly) {
  // DenseNet's: the block's features and a layer's new ones along the channels.
  expect_exact("onednn.concat", concat_case({shape_of({1, 8, 5, 5}), shape_of({1, 4, 5, 5})}, 1));
  // SqueezeNet's fire module, ShuffleNet's halves: three and two parts, other axes.
  expect_exact("onednn.concat",
               concat_case({shape_of({2, 3, 4}), shape_of({2, 3, 1}), shape_of({2, 3, 6})}, 2));
  expect_exact("onednn.concat", concat_case({shape_of({3, 5}), shape_of({2, 5})}, 0));
  // An input empty along the axis is left out; an output with no elements writes nothing.
  expect_exact("onednn.concat",
               concat_case({shape_of({2, 0, 3}), shape_of({2, 4, 3}), shape_of({2, 0, 3})}, 1));
  expect_exact("onednn.concat", concat_case({shape_of({0, 2}), shape_of({0, 3})}, 1));
  // Every input empty along the axis: an empty output, nothing to run.
  expect_exact("onednn.concat", concat_case({shape_of({6, 0}), shape_of({6, 0})}, 1));
  expect_exact("onednn.concat", concat_case({shape_of({0}), shape_of({0})}, 0));
}

TEST(onednn_concat_forward_tests, PrepareRefusesLayoutsItDoesNotRunOn) {
  using enum TensorLayout;
  const Command mixed = concat_case({shape_of({1, 2, 3, 3}), shape_of({1, 5, 3, 3})}, 1);
  auto state = prepare_onednn("onednn.concat", mixed, 0, channels_last, flat);
  ASSERT_FALSE(state.has_value());
  EXPECT_EQ(state.error().message,
            "the concat was asked to run with its inputs channels-last and its output flat; it "
            "runs on one layout, channels-last only for values of rank 3 or more");
  const Command matrix = concat_case({shape_of({2, 3}), shape_of({2, 1})}, 1);
  EXPECT_FALSE(prepare_onednn("onednn.concat", matrix, 0, channels_last, channels_last));
  EXPECT_TRUE(prepare_onednn("onednn.concat", mixed, 0, channels_last, channels_last));
}

}  // namespace
}  // namespace nnplan::runtime::onednn
