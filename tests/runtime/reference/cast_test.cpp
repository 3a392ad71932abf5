// The reference cast kernel between float32, int64 and bool: every pair of dtypes by hand,
// truncation toward zero, NaN and out-of-range floats (-2^63, x86-64's answer), rounding of large
// int64 values to float32 (ties to even), the guard's message, and no VJP.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace cast_test {
namespace {

using backend::BackendOp;
using namespace testing;
using ir::DType;
using ir::OpKind;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

Expected<Tensor> cast_to(DType to, const Tensor& x) {
  const ir::Node node{.id = 1, .kind = OpKind::cast, .parents = {0}, .shape = x.shape, .dtype = to};
  const TensorRef in[] = {view(x)};
  Tensor out = zeros(node.shape, to);
  const KernelCall call{.node = node, .inputs = in, .weights = {}, .output = mutable_view(out)};
  const HandlerDefinition& h = handler(BackendOp::cast);
  if (auto ok = h.shape_guard(call); !ok) return std::unexpected(ok.error());
  if (auto ok = h.layout_guard(call); !ok) return std::unexpected(ok.error());
  h.forward(call);
  return out;
}

TEST(reference_cast_forward_tests, float32_to_int64) {
  const Tensor x =
      tensor({9}, {2.9F, -2.9F, -0.0F, kNaN, kInf, -kInf, 9.3e18F, -9.223372e18F, 1e30F});
  const auto y = cast_to(DType::int64, x);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->ints(), (std::vector<std::int64_t>{2, -2, 0, kMin, kMin, kMin, kMin,
                                                  -9223372036854775807LL - 1, kMin}));
}
TEST(reference_cast_forward_tests, float32_to_bool) {
  const auto y = cast_to(DType::boolean, tensor({5}, {0.0F, -0.0F, 0.5F, kNaN, -kInf}));
  ASSERT_TRUE(y.has_value());
  EXPECT_EQ(y->bools(), (std::vector<std::uint8_t>{0, 0, 1, 1, 1}));
}
TEST(reference_cast_forward_tests, int64_to_float32_and_bool) {
  const Tensor x = Tensor::of(shape_of({4}), std::vector<std::int64_t>{-3, 0, 16777217, kMin});
  const auto f = cast_to(DType::float32, x);
  ASSERT_TRUE(f.has_value());
  // 2^24 + 1 is a tie between 2^24 and 2^24 + 2: to even, 2^24.
  EXPECT_EQ(f->floats(), (std::vector<float>{-3.0F, 0.0F, 16777216.0F, -9.223372036854775808e18F}));
  const auto b = cast_to(DType::boolean, x);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->bools(), (std::vector<std::uint8_t>{1, 0, 1, 1}));
}
TEST(reference_cast_forward_tests, bool_to_float32_and_int64) {
  const Tensor x = Tensor::of(shape_of({2}), std::vector<std::uint8_t>{1, 0});
  EXPECT_EQ(cast_to(DType::float32, x)->floats(), (std::vector<float>{1.0F, 0.0F}));
  EXPECT_EQ(cast_to(DType::int64, x)->ints(), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(cast_to(DType::boolean, x)->bools(), (std::vector<std::uint8_t>{1, 0}));
}
TEST(reference_cast_forward_tests, shape_guard) {
  const Tensor x = tensor({2}, {1.0F, 2.0F});
  const ir::Node node{
      .id = 1, .kind = OpKind::cast, .parents = {0}, .shape = x.shape, .dtype = DType::int64};
  const TensorRef in[] = {view(x)};
  Tensor out = zeros(x.shape, DType::float32);
  const KernelCall call{.node = node, .inputs = in, .weights = {}, .output = mutable_view(out)};
  const auto refused = handler(BackendOp::cast).shape_guard(call);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().message, "the output has dtype float32; the node casts to int64");
}
// What crosses an int64 or bool value carries no gradient: no VJP.
TEST(reference_cast_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::cast).vjp, nullptr);
  EXPECT_FALSE(backend::requires_vjp(BackendOp::cast));
}

}  // namespace
}  // namespace cast_test
}  // namespace nnplan::runtime::reference
