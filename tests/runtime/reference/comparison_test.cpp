// The reference comparison and logic kernels (equal, less, less_or_equal, greater,
// greater_or_equal over float32, int64 and bool; and, or, xor, not over bool): hand cases with NaN,
// infinities and -0, numpy broadcasting checked against an index computation written here, a
// float64 oracle, the guards' messages, and no VJP (bool values carry no derivative).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace comparison_test {
namespace {

using backend::BackendOp;
using namespace testing;
using ir::DType;
using ir::OpKind;

ir::Node node_of(OpKind kind, const ir::Shape& out, std::size_t parents = 2) {
  ir::Node n{.id = 2, .kind = kind, .shape = out, .dtype = DType::boolean};
  n.parents = parents == 2 ? ir::Parents{0, 1} : ir::Parents{0};
  return n;
}

// Runs op's guards and kernel into a bool output of the node's shape.
Expected<std::vector<std::uint8_t>> run(BackendOp op, const ir::Node& node,
                                        const std::vector<Tensor>& inputs) {
  std::vector<TensorRef> refs;
  for (const Tensor& t : inputs)
    refs.push_back(view(t));
  Tensor out = zeros(node.shape, node.dtype);
  const KernelCall call{.node = node, .inputs = refs, .weights = {}, .output = mutable_view(out)};
  const HandlerDefinition& h = handler(op);
  if (auto ok = h.shape_guard(call); !ok) return std::unexpected(ok.error());
  if (auto ok = h.layout_guard(call); !ok) return std::unexpected(ok.error());
  h.forward(call);
  return out.bools();
}

std::vector<std::uint8_t> ok(BackendOp op, OpKind kind, const Tensor& a, const Tensor& b,
                             const ir::Shape& out) {
  auto y = run(op, node_of(kind, out), {a, b});
  EXPECT_TRUE(y.has_value()) << y.error().message;
  return y.value_or(std::vector<std::uint8_t>{});
}

std::string refusal(BackendOp op, const ir::Node& node, const std::vector<Tensor>& inputs) {
  auto y = run(op, node, inputs);
  return y.has_value() ? std::string("accepted") : y.error().message;
}

Tensor ints(std::initializer_list<ir::Dim> dims, std::vector<std::int64_t> v) {
  return Tensor::of(shape_of(dims), std::move(v));
}
Tensor bools(std::initializer_list<ir::Dim> dims, std::vector<std::uint8_t> v) {
  return Tensor::of(shape_of(dims), std::move(v));
}

using Bools = std::vector<std::uint8_t>;

// NaN compares false (and unequal to itself), -0 equals +0, infinities order.
const Tensor& specials_a() {
  static const Tensor t = tensor({5}, {kNaN, -0.0F, 1.0F, -kInf, 2.0F});
  return t;
}
const Tensor& specials_b() {
  static const Tensor t = tensor({5}, {kNaN, 0.0F, 2.0F, -kInf, 1.0F});
  return t;
}

TEST(reference_equal_forward_tests, hand_cases) {
  EXPECT_EQ(ok(BackendOp::equal, OpKind::equal, specials_a(), specials_b(), shape_of({5})),
            (Bools{0, 1, 0, 1, 0}));
  EXPECT_EQ(ok(BackendOp::equal, OpKind::equal, ints({3}, {-5, 7, 9}), ints({3}, {-5, 8, 9}),
               shape_of({3})),
            (Bools{1, 0, 1}));
  EXPECT_EQ(
      ok(BackendOp::equal, OpKind::equal, bools({2}, {1, 0}), bools({2}, {1, 1}), shape_of({2})),
      (Bools{1, 0}));
}
// A [2,1] against a [3]: numpy broadcasting to [2,3], element (i, j) compares a[i] with b[j].
TEST(reference_equal_forward_tests, broadcasts_as_numpy) {
  EXPECT_EQ(ok(BackendOp::equal, OpKind::equal, ints({2, 1}, {1, 2}), ints({3}, {1, 2, 1}),
               shape_of({2, 3})),
            (Bools{1, 0, 1, 0, 1, 0}));
  // A scalar against anything, and an empty result.
  EXPECT_EQ(ok(BackendOp::equal, OpKind::equal, tensor({}, {2.0F}), tensor({2, 2}, {2, 1, 2, 3}),
               shape_of({2, 2})),
            (Bools{1, 0, 1, 0}));
  EXPECT_EQ(ok(BackendOp::equal, OpKind::equal, tensor({0, 3}, {}), tensor({1, 3}, {1, 2, 3}),
               shape_of({0, 3})),
            Bools{});
}
// Random [3,1,4] and [2,1] operands: each output element against the float64 comparison of the
// elements an index computation written here picks.
TEST(reference_equal_forward_tests, float64_oracle) {
  const Tensor a = random_tensor(shape_of({3, 1, 4}), 11);
  Tensor b = random_tensor(shape_of({2, 1}), 12);
  b.floats()[1] = a.floats()[5];  // one equal pair
  const struct {
    BackendOp op;
    OpKind kind;
    bool (*f)(double, double);
  } ops[] = {
      {BackendOp::equal, OpKind::equal, [](double x, double y) { return x == y; }},
      {BackendOp::less, OpKind::less, [](double x, double y) { return x < y; }},
      {BackendOp::less_or_equal, OpKind::less_or_equal, [](double x, double y) { return x <= y; }},
      {BackendOp::greater, OpKind::greater, [](double x, double y) { return x > y; }},
      {BackendOp::greater_or_equal, OpKind::greater_or_equal,
       [](double x, double y) { return x >= y; }},
  };
  for (const auto& o : ops) {
    SCOPED_TRACE(std::string(backend::to_string(o.op)));
    const Bools y = ok(o.op, o.kind, a, b, shape_of({3, 2, 4}));
    ASSERT_EQ(y.size(), 24U);
    for (std::size_t i = 0; i < 3; ++i) {
      for (std::size_t j = 0; j < 2; ++j) {
        for (std::size_t k = 0; k < 4; ++k) {
          const bool want = o.f(a.floats()[i * 4 + k], b.floats()[j]);
          EXPECT_EQ(y[(i * 2 + j) * 4 + k], want ? 1 : 0) << i << "," << j << "," << k;
        }
      }
    }
  }
}
TEST(reference_equal_forward_tests, shape_guard) {
  EXPECT_EQ(refusal(BackendOp::equal, node_of(OpKind::equal, shape_of({2})),
                    {tensor({2}, {1, 2}), ints({2}, {1, 2})}),
            "input 1 has dtype int64; equal takes inputs of one dtype");
  EXPECT_EQ(refusal(BackendOp::equal, node_of(OpKind::equal, shape_of({2})),
                    {tensor({2}, {1, 2}), tensor({3}, {1, 2, 3})}),
            "node 2 (equal): parent 1 [3] does not broadcast with the other parents: its dimension "
            "0 is 3 where another has 2 (each must be equal or 1)");
  ir::Node floats = node_of(OpKind::equal, shape_of({2}));
  floats.dtype = DType::float32;
  EXPECT_EQ(refusal(BackendOp::equal, floats, {tensor({2}, {1, 2}), tensor({2}, {1, 2})}),
            "the output has dtype float32; equal writes bool");
  EXPECT_EQ(refusal(BackendOp::equal, node_of(OpKind::less, shape_of({2})),
                    {tensor({2}, {1, 2}), tensor({2}, {1, 2})}),
            "node kind less does not run on the equal kernel");
}
// Comparisons and logic give bool values, which carry no derivative: no VJP.
TEST(reference_equal_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::equal).vjp, nullptr);
  EXPECT_FALSE(backend::requires_vjp(BackendOp::equal));
}

TEST(reference_less_forward_tests, hand_cases) {
  EXPECT_EQ(ok(BackendOp::less, OpKind::less, specials_a(), specials_b(), shape_of({5})),
            (Bools{0, 0, 1, 0, 0}));
  EXPECT_EQ(ok(BackendOp::less, OpKind::less, ints({2}, {INT64_MIN, 4}), ints({2}, {0, 4}),
               shape_of({2})),
            (Bools{1, 0}));
}
TEST(reference_less_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::less).vjp, nullptr);
}

TEST(reference_less_or_equal_forward_tests, hand_cases) {
  EXPECT_EQ(ok(BackendOp::less_or_equal, OpKind::less_or_equal, specials_a(), specials_b(),
               shape_of({5})),
            (Bools{0, 1, 1, 1, 0}));
}
TEST(reference_less_or_equal_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::less_or_equal).vjp, nullptr);
}

TEST(reference_greater_forward_tests, hand_cases) {
  EXPECT_EQ(ok(BackendOp::greater, OpKind::greater, specials_a(), specials_b(), shape_of({5})),
            (Bools{0, 0, 0, 0, 1}));
  EXPECT_EQ(
      ok(BackendOp::greater, OpKind::greater, ints({1}, {3}), ints({3}, {2, 3, 4}), shape_of({3})),
      (Bools{1, 0, 0}));
}
TEST(reference_greater_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::greater).vjp, nullptr);
}

TEST(reference_greater_or_equal_forward_tests, hand_cases) {
  EXPECT_EQ(ok(BackendOp::greater_or_equal, OpKind::greater_or_equal, specials_a(), specials_b(),
               shape_of({5})),
            (Bools{0, 1, 0, 1, 1}));
}
TEST(reference_greater_or_equal_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::greater_or_equal).vjp, nullptr);
}

// The truth tables, with [2,1] against [2] broadcasting to the four pairs.
const Tensor& column() {
  static const Tensor t = bools({2, 1}, {0, 1});
  return t;
}
const Tensor& row() {
  static const Tensor t = bools({2}, {0, 1});
  return t;
}

TEST(reference_and_forward_tests, truth_table) {
  EXPECT_EQ(ok(BackendOp::and_, OpKind::and_, column(), row(), shape_of({2, 2})),
            (Bools{0, 0, 0, 1}));
}
TEST(reference_and_forward_tests, shape_guard) {
  EXPECT_EQ(refusal(BackendOp::and_, node_of(OpKind::and_, shape_of({2})),
                    {tensor({2}, {1, 0}), tensor({2}, {1, 0})}),
            "input 0 has dtype float32; and takes bool inputs");
}
TEST(reference_and_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::and_).vjp, nullptr);
}

TEST(reference_or_forward_tests, truth_table) {
  EXPECT_EQ(ok(BackendOp::or_, OpKind::or_, column(), row(), shape_of({2, 2})),
            (Bools{0, 1, 1, 1}));
}
TEST(reference_or_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::or_).vjp, nullptr);
}

TEST(reference_xor_forward_tests, truth_table) {
  EXPECT_EQ(ok(BackendOp::xor_, OpKind::xor_, column(), row(), shape_of({2, 2})),
            (Bools{0, 1, 1, 0}));
}
TEST(reference_xor_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::xor_).vjp, nullptr);
}

TEST(reference_not_forward_tests, truth_table) {
  auto y = run(BackendOp::not_, node_of(OpKind::not_, shape_of({3}), 1), {bools({3}, {0, 1, 0})});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(*y, (Bools{1, 0, 1}));
}
TEST(reference_not_forward_tests, shape_guard) {
  EXPECT_EQ(
      refusal(BackendOp::not_, node_of(OpKind::not_, shape_of({3}), 1), {ints({3}, {0, 1, 0})}),
      "input 0 has dtype int64; not takes bool inputs");
  EXPECT_EQ(refusal(BackendOp::not_, node_of(OpKind::not_, shape_of({3}), 1), {bools({2}, {0, 1})}),
            "node 2 (not): its inputs give the shape [2], the node declares [3]");
}
TEST(reference_not_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::not_).vjp, nullptr);
}

TEST(ReferenceComparisonHandlers, RowsNameTheirForward) {
  ASSERT_EQ(comparison_handlers().size(), 9U);
  for (const ReferenceHandler& row : comparison_handlers()) {
    EXPECT_EQ(row.handler.symbol, "nnplan::runtime::reference::" +
                                      std::string(backend::to_string(row.op)) + "_forward");
    EXPECT_FALSE(row.handler.in_place_safe);
  }
}

}  // namespace
}  // namespace comparison_test
}  // namespace nnplan::runtime::reference
