// The onednn pooling handlers (onednn.max_pool, onednn.avg_pool) against the reference provider
// within each capsule's conformance tolerance (tests/oracles/conformance_table.cpp): 1 to 3
// spatial axes, strides,
// padding (avg counts the padding, as the reference does), leading axes, and the refusals.
// The IR's pools have no ceil mode: the output extent is always the floor formula.
#include <gtest/gtest.h>

#include "onednn_test_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;
using Ints = std::vector<std::uint32_t>;

Command pool_case(ir::OpKind kind, ir::Shape x, Ints kernel, Ints stride, Ints pad) {
  const std::size_t r = kernel.size();
  ir::Shape y = x;
  for (std::size_t i = 0; i < r; ++i) {
    const std::size_t a = x.rank() - r + i;
    y.dims[a] = (x.dims[a] + 2 * pad[i] - kernel[i]) / stride[i] + 1;
  }
  Command c;
  c.chain.push_back(node(1, kind, {0}, y,
                         ir::PoolParams{.spatial_rank = static_cast<std::uint32_t>(r),
                                        .kernel = kernel,
                                        .stride = stride,
                                        .padding = pad}));
  c.inputs.push_back(random_tensor(x, 21));
  return c;
}

TEST(onednn_max_pool_forward_tests, MatchesReference) {
  expect_matches_reference(
      "onednn.max_pool",
      pool_case(ir::OpKind::max_pool, shape_of({2, 3, 8, 7}), {2, 2}, {2, 2}, {0, 0}));
  expect_matches_reference(
      "onednn.max_pool",
      pool_case(ir::OpKind::max_pool, shape_of({2, 3, 9, 9}), {3, 3}, {2, 1}, {1, 1}));
  expect_matches_reference("onednn.max_pool",
                           pool_case(ir::OpKind::max_pool, shape_of({3, 10}), {3}, {2}, {1}));
  expect_matches_reference(
      "onednn.max_pool",
      pool_case(ir::OpKind::max_pool, shape_of({1, 2, 5, 6, 4}), {2, 3, 2}, {1, 2, 2}, {1, 1, 0}));
}

TEST(onednn_avg_pool_forward_tests, MatchesReferenceCountingPadding) {
  expect_matches_reference(
      "onednn.avg_pool",
      pool_case(ir::OpKind::avg_pool, shape_of({2, 3, 8, 7}), {3, 2}, {2, 2}, {1, 1}));
  expect_matches_reference("onednn.avg_pool",
                           pool_case(ir::OpKind::avg_pool, shape_of({4, 2, 3, 9}), {2}, {3}, {1}));
}

TEST(onednn_max_pool_forward_tests, RefusesPaddingAsWideAsTheKernel) {
  const Command c = pool_case(ir::OpKind::max_pool, shape_of({1, 1, 6, 6}), {2, 2}, {1, 1}, {2, 2});
  EXPECT_EQ(refusal("onednn.max_pool", c),
            "padding 2 on spatial axis 0 is not smaller than the kernel 2; onednn max_pool needs "
            "every window to reach the input");
}

TEST(onednn_avg_pool_forward_tests, ShapeGuardRefusesWrongOutput) {
  Command c = pool_case(ir::OpKind::avg_pool, shape_of({1, 1, 6, 6}), {2, 2}, {2, 2}, {0, 0});
  c.chain[0].shape = shape_of({1, 1, 2, 2});
  const std::string m = refusal("onednn.avg_pool", c);
  EXPECT_EQ(m,
            "node 1 (avg_pool): its inputs give the shape [1,1,3,3], the node declares [1,1,2,2]");
}

}  // namespace
}  // namespace nnplan::runtime::onednn
