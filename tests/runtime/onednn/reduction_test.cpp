// The onednn reduction handlers (onednn.reduce_sum, _mean, _max, _min, _prod) against the
// reference provider within each capsule's conformance tolerance: every axis of a rank-3 input,
// a rank-1 input, `sum` over every element, an axis of one element (a copy), and the refusal of
// an empty reduced axis.
#include <gtest/gtest.h>

#include <string>

#include "onednn_test_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;

Command reduction_case(ir::OpKind kind, const ir::Shape& in, std::uint32_t axis, float lo = -1.0F,
                       float hi = 1.0F) {
  Command cmd;
  cmd.inputs.push_back(random_tensor(in, 71, lo, hi));
  ir::Shape out = in;
  out.dims.erase(out.dims.begin() + axis);
  cmd.chain.push_back(node(1, kind, {0}, out, ir::AxisParams{.axis = axis}));
  return cmd;
}

void expect_every_axis(ir::OpKind kind, const std::string& capsule, float lo = -1.0F,
                       float hi = 1.0F) {
  const ir::Shape in = shape_of({3, 5, 7});
  for (std::uint32_t axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    expect_matches_reference(capsule, reduction_case(kind, in, axis, lo, hi));
  }
  expect_matches_reference(capsule, reduction_case(kind, shape_of({9}), 0, lo, hi));
}

TEST(onednn_reduce_sum_forward_tests, MatchesReference) {
  expect_every_axis(ir::OpKind::reduce_sum, "onednn.reduce_sum");
  // `sum`: every element at once.
  Command all;
  all.inputs.push_back(random_tensor(shape_of({4, 6}), 72));
  all.chain.push_back(node(1, ir::OpKind::sum, {0}, ir::Shape{}));
  expect_matches_reference("onednn.reduce_sum", all);
}
TEST(onednn_reduce_mean_forward_tests, MatchesReference) {
  expect_every_axis(ir::OpKind::reduce_mean, "onednn.reduce_mean");
}
TEST(onednn_reduce_max_forward_tests, MatchesReference) {
  expect_every_axis(ir::OpKind::reduce_max, "onednn.reduce_max");
}
TEST(onednn_reduce_min_forward_tests, MatchesReference) {
  expect_every_axis(ir::OpKind::reduce_min, "onednn.reduce_min");
}
TEST(onednn_reduce_prod_forward_tests, MatchesReference) {
  expect_every_axis(ir::OpKind::reduce_prod, "onednn.reduce_prod", 0.5F, 1.5F);
}

// Over an axis of one element the reduction is a copy (oneDNN's reduction takes no such case).
// A reduction over the last axis that is not 1 (ReduceMean over H then W before a classifier,
// [1, C, H, 1] after the first) runs on an optimized kernel where the CPU has one; the trailing 1
// once sent it to oneDNN's reference kernel (ref:any), 9 times slower on ShuffleNet's head.
TEST(onednn_reduce_mean_forward_tests, TrailingAxesOfOneRunOnAnOptimizedKernel) {
  if (dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx2) GTEST_SKIP() << "no AVX2";
  for (const auto& [shape, axis] :
       {std::pair{shape_of({1, 1024, 7, 7}), 3U}, std::pair{shape_of({1, 1024, 7, 1}), 2U},
        std::pair{shape_of({6, 40}), 1U}}) {
    SCOPED_TRACE(ir::to_string(shape));
    const Command c = reduction_case(ir::OpKind::reduce_mean, shape, axis);
    auto state = prepare_onednn("onednn.reduce_mean", c, 1);
    ASSERT_TRUE(state.has_value()) << state.error().message;
    const std::string impl = implementation_of(**state);
    EXPECT_FALSE(impl.empty());
    EXPECT_EQ(impl.find("ref"), std::string::npos) << impl;
    expect_matches_reference("onednn.reduce_mean", c);
  }
}

TEST(onednn_reduce_max_forward_tests, OneElementAxisIsACopy) {
  const Command cmd = reduction_case(ir::OpKind::reduce_max, shape_of({4, 1, 3}), 1);
  auto got = run_onednn("onednn.reduce_max", cmd);
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_EQ(got->floats(), cmd.inputs[0].floats());
}

TEST(onednn_reduce_sum_forward_tests, EmptyAxisIsRefused) {
  EXPECT_EQ(
      refusal("onednn.reduce_sum", reduction_case(ir::OpKind::reduce_sum, shape_of({3, 0, 2}), 1)),
      "the reduction reads an empty tensor; oneDNN's reduction needs at least one element "
      "in each axis (run it under checked_cpu)");
}

}  // namespace
}  // namespace nnplan::runtime::onednn
