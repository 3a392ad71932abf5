// The onednn normalization handlers (onednn.batch_norm, onednn.layer_norm) against the reference
// provider within each capsule's conformance tolerance (tests/oracles/conformance_table.cpp):
// batch norm on any channel axis with the
// payload's statistics and epsilon; layer norm over the axes from `axis` on, with and without
// gamma and beta; the guards' refusals.
#include <gtest/gtest.h>

#include "onednn_test_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;

Command batch_norm_case(ir::Shape x, std::uint32_t axis) {
  const ir::Dim c = x.dims[axis];
  Command cmd;
  cmd.chain.push_back(
      node(1, ir::OpKind::batch_norm_eval, {0}, x,
           ir::ChannelAxisParams{.channel_axis = axis, .channels = static_cast<std::uint32_t>(c)}));
  cmd.inputs.push_back(random_tensor(x, 31));
  cmd.store.tensors[{1, "scale"}] = payload(shape_of({c}), 32);
  cmd.store.tensors[{1, "bias"}] = payload(shape_of({c}), 33);
  cmd.store.tensors[{1, "mean"}] = payload(shape_of({c}), 34);
  cmd.store.tensors[{1, "var"}] = payload(shape_of({c}), 35, 0.1F, 2.0F);
  cmd.store.attributes[{1, "epsilon"}] = 1e-3;
  return cmd;
}

TEST(onednn_batch_norm_forward_tests, MatchesReference) {
  expect_matches_reference("onednn.batch_norm", batch_norm_case(shape_of({2, 3, 4, 5}), 1));
  expect_matches_reference("onednn.batch_norm", batch_norm_case(shape_of({4, 6}), 1));
  expect_matches_reference("onednn.batch_norm", batch_norm_case(shape_of({2, 3, 5}), 2));
}

// DenseNet's batch norms, in either layout, run on an optimized kernel where the CPU has one
// (AVX2 or later), never on oneDNN's reference implementation (bnorm_ref), which it picks for a
// tensor of three axes and which made every such launch about ten times slower.
TEST(onednn_batch_norm_forward_tests, RunsOnAnOptimizedKernel) {
  if (dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx2) GTEST_SKIP() << "no AVX2";
  for (const TensorLayout layout : {TensorLayout::flat, TensorLayout::channels_last}) {
    SCOPED_TRACE(std::string(to_string(layout)));
    for (const ir::Shape& x : {shape_of({1, 64, 56, 56}), shape_of({2, 96, 7, 7, 3})}) {
      auto state = prepare_onednn("onednn.batch_norm", batch_norm_case(x, 1), 1, layout, layout);
      ASSERT_TRUE(state.has_value()) << state.error().message;
      const std::string impl = implementation_of(**state);
      EXPECT_FALSE(impl.empty());
      EXPECT_EQ(impl.find("ref"), std::string::npos) << impl;
    }
  }
}

TEST(onednn_batch_norm_forward_tests, RefusesMissingEpsilon) {
  Command c = batch_norm_case(shape_of({2, 3, 4}), 1);
  c.store.attributes.clear();
  EXPECT_EQ(refusal("onednn.batch_norm", c), "batch_norm_eval needs the attribute epsilon");
}

Command layer_norm_case(ir::Shape x, std::uint32_t axis, bool affine) {
  Command cmd;
  cmd.chain.push_back(node(1, ir::OpKind::layernorm, {0}, x, ir::AxisParams{.axis = axis}));
  cmd.inputs.push_back(random_tensor(x, 41));
  if (affine) {
    ir::Shape normalized;
    for (std::size_t i = axis; i < x.rank(); ++i)
      normalized.dims.push_back(x.dims[i]);
    cmd.store.tensors[{1, "gamma"}] = payload(normalized, 42);
    cmd.store.tensors[{1, "beta"}] = payload(normalized, 43);
  }
  return cmd;
}

TEST(onednn_layer_norm_forward_tests, MatchesReference) {
  expect_matches_reference("onednn.layer_norm", layer_norm_case(shape_of({4, 16}), 1, true));
  expect_matches_reference("onednn.layer_norm", layer_norm_case(shape_of({2, 3, 4, 5}), 2, true));
  expect_matches_reference("onednn.layer_norm", layer_norm_case(shape_of({3, 7}), 1, false));
  Command eps = layer_norm_case(shape_of({3, 8}), 1, true);
  eps.store.attributes[{1, "epsilon"}] = 0.5;
  expect_matches_reference("onednn.layer_norm", eps);
}

TEST(onednn_layer_norm_forward_tests, ShapeGuardRefusesWrongGamma) {
  Command c = layer_norm_case(shape_of({4, 16}), 1, true);
  c.store.tensors[{1, "gamma"}] = payload(shape_of({8}), 1);
  const std::string m = refusal("onednn.layer_norm", c);
  EXPECT_NE(m.find("[8]"), std::string::npos) << m;
}

}  // namespace
}  // namespace nnplan::runtime::onednn
