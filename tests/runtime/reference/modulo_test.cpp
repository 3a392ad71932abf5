// The reference mod and fmod kernels: ONNX's Mod examples for both signs, broadcasting, NaN and
// infinities, int64 extremes (INT64_MIN % -1), the guard's refusal of a zero divisor and of other
// dtypes, and fmod's VJP by finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace modulo_test {
namespace {

using backend::BackendOp;
using namespace testing;
using ir::DType;
using ir::OpKind;

ir::Node remainder_node(OpKind kind, const ir::Shape& out, DType dtype) {
  return {.id = 2, .kind = kind, .parents = {0, 1}, .shape = out, .dtype = dtype};
}

Tensor ints(std::initializer_list<ir::Dim> dims, std::vector<std::int64_t> v) {
  return Tensor::of(shape_of(dims), std::move(v));
}

Expected<Tensor> run(const ir::Node& node, const Tensor& a, const Tensor& b) {
  const TensorRef refs[] = {view(a), view(b)};
  Tensor out = zeros(node.shape, node.dtype);
  const KernelCall call{.node = node, .inputs = refs, .weights = {}, .output = mutable_view(out)};
  const HandlerDefinition& h = handler(node.kind == OpKind::mod ? BackendOp::mod : BackendOp::fmod);
  if (auto ok = h.shape_guard(call); !ok) return std::unexpected(ok.error());
  if (auto ok = h.layout_guard(call); !ok) return std::unexpected(ok.error());
  h.forward(call);
  return out;
}

std::string refusal(const ir::Node& node, const Tensor& a, const Tensor& b) {
  const auto r = run(node, a, b);
  return r.has_value() ? std::string("accepted") : r.error().message;
}

// ONNX's mixed-sign examples: mod takes the divisor's sign, fmod the dividend's.
TEST(reference_mod_forward_tests, hand_cases) {
  const Tensor a = ints({6}, {-4, 7, 5, 4, -7, 8});
  const Tensor b = ints({6}, {2, -3, 8, -2, 3, 5});
  EXPECT_EQ(run(remainder_node(OpKind::mod, a.shape, DType::int64), a, b)->ints(),
            (std::vector<std::int64_t>{0, -2, 5, 0, 2, 3}));
  // Broadcasting a column against a row; the extremes.
  const Tensor col = ints({2, 1}, {INT64_MIN, INT64_MAX});
  const Tensor row = ints({3}, {-1, 3, -7});
  EXPECT_EQ(run(remainder_node(OpKind::mod, shape_of({2, 3}), DType::int64), col, row)->ints(),
            (std::vector<std::int64_t>{0, 1, -1, 0, 1, 0}));  // 2^63 - 1 = 7 * 1317624576693539401
}
TEST(reference_mod_forward_tests, guards) {
  const Tensor a = ints({2}, {1, 2});
  EXPECT_EQ(refusal(remainder_node(OpKind::mod, a.shape, DType::int64), a, ints({2}, {3, 0})),
            "element 1 of input 1 (the divisor) is 0; mod of int64 values needs a divisor other "
            "than 0");
  const Tensor f = tensor({2}, {1, 2});
  EXPECT_EQ(refusal(remainder_node(OpKind::mod, f.shape, DType::float32), f, f),
            "inputs of dtype float32 and float32, output float32; mod takes int64 inputs of one "
            "dtype and writes it");
}
TEST(reference_mod_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::mod).vjp, nullptr);
  EXPECT_FALSE(backend::requires_vjp(BackendOp::mod));
}

TEST(reference_fmod_forward_tests, hand_cases) {
  const Tensor a = tensor({6}, {-4.3F, 7.2F, 5.0F, 4.3F, -7.2F, 8.0F});
  const Tensor b = tensor({6}, {2.1F, -3.4F, 8.0F, -2.1F, 3.4F, 5.0F});
  const auto y = run(remainder_node(OpKind::fmod, a.shape, DType::float32), a, b);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(y->floats()[i], std::fmod(a.floats()[i], b.floats()[i])) << i;
  EXPECT_NEAR(y->floats()[0], -0.1, 1e-6);  // the dividend's sign
  EXPECT_NEAR(y->floats()[1], 0.4, 1e-6);
  // NaN for a zero divisor or an infinite dividend; a finite dividend over inf is itself.
  const Tensor n = tensor({3}, {1.0F, kInf, 2.5F});
  const Tensor d = tensor({3}, {0.0F, 2.0F, kInf});
  const auto z = run(remainder_node(OpKind::fmod, n.shape, DType::float32), n, d);
  EXPECT_TRUE(std::isnan(z->floats()[0]) && std::isnan(z->floats()[1]));
  EXPECT_EQ(z->floats()[2], 2.5F);
  const Tensor ia = ints({6}, {-4, 7, 5, 4, -7, 8});
  const Tensor ib = ints({6}, {2, -3, 8, -2, 3, 5});
  EXPECT_EQ(run(remainder_node(OpKind::fmod, ia.shape, DType::int64), ia, ib)->ints(),
            (std::vector<std::int64_t>{0, 1, 5, 0, -1, 3}));
}
TEST(reference_fmod_forward_tests, guards) {
  const Tensor a = ints({2}, {1, 2});
  EXPECT_EQ(refusal(remainder_node(OpKind::fmod, a.shape, DType::int64), a, ints({2}, {0, 1})),
            "element 0 of input 1 (the divisor) is 0; fmod of int64 values needs a divisor other "
            "than 0");
  EXPECT_EQ(refusal(remainder_node(OpKind::fmod, a.shape, DType::int64), a, tensor({2}, {1, 1})),
            "inputs of dtype int64 and float32, output int64; fmod takes float32 or int64 inputs "
            "of one dtype and writes it");
}

// da = g, db = -g * trunc(a / b), broadcast operands summed; by finite differences away from the
// jumps of trunc.
TEST(reference_fmod_vjp_tests, finite_differences) {
  const Tensor a = tensor({2, 3}, {5.3F, -7.7F, 2.2F, 9.1F, -3.4F, 0.6F});
  const Tensor b = tensor({3}, {1.7F, -2.9F, 0.7F});
  EXPECT_TRUE(check_vjp(handler(BackendOp::fmod),
                        remainder_node(OpKind::fmod, shape_of({2, 3}), DType::float32), {a, b}));
}

}  // namespace
}  // namespace modulo_test
}  // namespace nnplan::runtime::reference
