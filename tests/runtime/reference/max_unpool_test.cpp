// The reference max_unpool kernel (ONNX's MaxUnpool): a hand case with ONNX's flat indices over
// the whole output, int64 data, a repeated index (the later element stands), the guard's
// refusal of an index outside the output naming it, and the VJP by finite differences.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace max_unpool_test {
namespace {

using backend::BackendOp;
using namespace testing;

ir::Node unpool_node(const ir::Shape& out, ir::DType dtype = ir::DType::float32) {
  return {.id = 2, .kind = ir::OpKind::max_unpool, .parents = {0, 1}, .shape = out, .dtype = dtype};
}

Tensor indices(const ir::Shape& shape, std::vector<std::int64_t> v) {
  return Tensor::of(shape, std::move(v));
}

// x [1, 2, 1, 2] into [1, 2, 2, 2]: channel 1's indices are offset by its plane (4).
TEST(reference_max_unpool_forward_tests, HandComputed) {
  const ir::Shape xs = shape_of({1, 2, 1, 2});
  const ir::Shape out = shape_of({1, 2, 2, 2});
  const auto y = run_forward(handler(BackendOp::max_unpool), unpool_node(out),
                             {tensor({1, 2, 1, 2}, {5, 6, 7, 8}), indices(xs, {1, 2, 4, 7})});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{0, 5, 6, 0, 7, 0, 0, 8}));
  // int64 data; a repeated index keeps the later element.
  const auto ints = run_forward(
      handler(BackendOp::max_unpool), unpool_node(out, ir::DType::int64),
      {Tensor::of(xs, std::vector<std::int64_t>{-1, 2, 3, 4}), indices(xs, {0, 0, 5, 6})});
  ASSERT_TRUE(ints.has_value()) << ints.error().message;
  EXPECT_EQ(ints->ints(), (std::vector<std::int64_t>{2, 0, 0, 0, 0, 3, 4, 0}));
}

TEST(reference_max_unpool_forward_tests, AnIndexOutsideTheOutputIsRefused) {
  const ir::Shape xs = shape_of({1, 1, 1, 2});
  const ir::Shape out = shape_of({1, 1, 2, 2});
  EXPECT_EQ(guard_message(handler(BackendOp::max_unpool), unpool_node(out),
                          {tensor({1, 1, 1, 2}, {1, 2}), indices(xs, {3, 4})}),
            "index 4 (element 1 of the indices) is outside the output's 4 elements; indices lie "
            "in [0, 3]");
  EXPECT_EQ(guard_message(handler(BackendOp::max_unpool), unpool_node(out),
                          {tensor({1, 1, 1, 2}, {1, 2}), indices(xs, {-1, 0})}),
            "index -1 (element 0 of the indices) is outside the output's 4 elements; indices lie "
            "in [0, 3]");
}

// Of two elements with one index only the later, which the output shows, gets its gradient.
TEST(reference_max_unpool_vjp_tests, AnOverwrittenElementGetsNoGradient) {
  const ir::Shape xs = shape_of({1, 1, 1, 3});
  const ir::Shape out = shape_of({1, 1, 2, 2});
  const Tensor x = tensor({1, 1, 1, 3}, {1, 2, 3});
  const auto y =
      run_forward(handler(BackendOp::max_unpool), unpool_node(out), {x, indices(xs, {2, 0, 2})});
  ASSERT_TRUE(y.has_value());
  const VjpGradients grads =
      run_vjp(handler(BackendOp::max_unpool), unpool_node(out), {x, indices(xs, {2, 0, 2})}, *y,
              tensor({1, 1, 2, 2}, {10, 20, 30, 40}));
  EXPECT_EQ(grads.inputs[0].floats(), (std::vector<float>{0, 10, 30}));
}

TEST(reference_max_unpool_vjp_tests, MatchesFiniteDifferences) {
  const ir::Shape xs = shape_of({2, 2, 2, 2});
  const ir::Shape out = shape_of({2, 2, 4, 4});
  std::vector<std::int64_t> idx;
  for (std::int64_t p = 0; p < 4; ++p) {  // each plane of 16 takes 4 distinct positions
    for (const std::int64_t at : {1, 6, 8, 15})
      idx.push_back(p * 16 + at);
  }
  EXPECT_TRUE(check_vjp(handler(BackendOp::max_unpool), unpool_node(out),
                        {random_tensor(xs, 5), indices(xs, idx)}));
}

}  // namespace
}  // namespace max_unpool_test
}  // namespace nnplan::runtime::reference
