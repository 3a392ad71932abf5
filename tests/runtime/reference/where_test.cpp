// The reference where kernel: hand cases of every dtype (NaN and infinities pass unchanged), numpy
// broadcasting of the three operands checked against an index computation written here, the
// guards' messages, and the VJP by finite differences and by hand (the gradient of a broadcast
// operand summed over the elements that read it; none for the condition).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace where_test {
namespace {

using backend::BackendOp;
using namespace testing;
using ir::DType;
using ir::OpKind;

ir::Node where_node(const ir::Shape& out, DType dtype = DType::float32) {
  return {.id = 3, .kind = OpKind::where, .parents = {0, 1, 2}, .shape = out, .dtype = dtype};
}

Tensor bools(std::initializer_list<ir::Dim> dims, std::vector<std::uint8_t> v) {
  return Tensor::of(shape_of(dims), std::move(v));
}
Tensor ints(std::initializer_list<ir::Dim> dims, std::vector<std::int64_t> v) {
  return Tensor::of(shape_of(dims), std::move(v));
}

Expected<Tensor> run(const ir::Node& node, const std::vector<Tensor>& inputs) {
  std::vector<TensorRef> refs;
  for (const Tensor& t : inputs)
    refs.push_back(view(t));
  Tensor out = zeros(node.shape, node.dtype);
  const KernelCall call{.node = node, .inputs = refs, .weights = {}, .output = mutable_view(out)};
  const HandlerDefinition& h = handler(BackendOp::where);
  if (auto ok = h.shape_guard(call); !ok) return std::unexpected(ok.error());
  if (auto ok = h.layout_guard(call); !ok) return std::unexpected(ok.error());
  h.forward(call);
  return out;
}

std::string refusal(const ir::Node& node, const std::vector<Tensor>& inputs) {
  auto y = run(node, inputs);
  return y.has_value() ? std::string("accepted") : y.error().message;
}

TEST(reference_where_forward_tests, hand_cases) {
  auto f = run(where_node(shape_of({4})),
               {bools({4}, {1, 0, 1, 0}), tensor({4}, {kNaN, 1.0F, kInf, 2.0F}),
                tensor({4}, {5.0F, -kInf, 6.0F, kNaN})});
  ASSERT_TRUE(f.has_value()) << f.error().message;
  EXPECT_TRUE(std::isnan(f->floats()[0]));
  EXPECT_EQ(f->floats()[1], -kInf);
  EXPECT_EQ(f->floats()[2], kInf);
  EXPECT_TRUE(std::isnan(f->floats()[3]));
  auto i = run(where_node(shape_of({2}), DType::int64),
               {bools({2}, {0, 1}), ints({2}, {INT64_MIN, 2}), ints({2}, {7, INT64_MAX})});
  ASSERT_TRUE(i.has_value()) << i.error().message;
  EXPECT_EQ(i->ints(), (std::vector<std::int64_t>{7, 2}));
  auto b = run(where_node(shape_of({2}), DType::boolean),
               {bools({2}, {0, 1}), bools({2}, {1, 1}), bools({2}, {0, 0})});
  ASSERT_TRUE(b.has_value()) << b.error().message;
  EXPECT_EQ(b->bools(), (std::vector<std::uint8_t>{0, 1}));
}
// A [2,1,3] condition, a [4,1] x and a scalar y broadcast to [2,4,3]; each element against the
// operands an index computation written here picks.
TEST(reference_where_forward_tests, broadcasts_as_numpy) {
  const Tensor c = bools({2, 1, 3}, {1, 0, 1, 0, 1, 0});
  const Tensor x = random_tensor(shape_of({4, 1}), 21);
  const Tensor y = tensor({}, {-9.0F});
  auto out = run(where_node(shape_of({2, 4, 3})), {c, x, y});
  ASSERT_TRUE(out.has_value()) << out.error().message;
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < 4; ++j) {
      for (std::size_t k = 0; k < 3; ++k) {
        const float want = c.bools()[i * 3 + k] != 0 ? x.floats()[j] : -9.0F;
        EXPECT_EQ(out->floats()[(i * 4 + j) * 3 + k], want) << i << "," << j << "," << k;
      }
    }
  }
}
TEST(reference_where_forward_tests, shape_guard) {
  EXPECT_EQ(refusal(where_node(shape_of({2})),
                    {tensor({2}, {1, 0}), tensor({2}, {1, 2}), tensor({2}, {3, 4})}),
            "input 0 has dtype float32; where takes a bool condition");
  EXPECT_EQ(refusal(where_node(shape_of({2})),
                    {bools({2}, {1, 0}), tensor({2}, {1, 2}), ints({2}, {3, 4})}),
            "input 2 has dtype int64; where writes float32 and takes its values so");
  EXPECT_EQ(refusal(where_node(shape_of({2})),
                    {bools({3}, {1, 0, 1}), tensor({2}, {1, 2}), tensor({2}, {3, 4})}),
            "node 3 (where): parent 1 [2] does not broadcast with the other parents: its "
            "dimension 0 is 2 where another has 3 (each must be equal or 1)");
}

// The gradient goes to the operand the forward took; a broadcast operand's sums over the
// elements that read it, in row-major order.
TEST(reference_where_vjp_tests, by_hand) {
  const Tensor c = bools({2, 2}, {1, 0, 0, 1});
  const Tensor x = tensor({2}, {1.0F, 2.0F});  // broadcast over the rows
  const Tensor y = tensor({2, 2}, {3.0F, 4.0F, 5.0F, 6.0F});
  const Tensor g = tensor({2, 2}, {10.0F, 20.0F, 30.0F, 40.0F});
  const ir::Node node = where_node(shape_of({2, 2}));
  auto out = run(node, {c, x, y});
  ASSERT_TRUE(out.has_value());
  const VjpGradients grads = run_vjp(handler(BackendOp::where), node, {c, x, y}, *out, g);
  EXPECT_EQ(grads.inputs[1].floats(), (std::vector<float>{10.0F, 40.0F}));
  EXPECT_EQ(grads.inputs[2].floats(), (std::vector<float>{0.0F, 20.0F, 30.0F, 0.0F}));
}
// Finite differences on x and y (where is piecewise linear: exact away from nothing).
TEST(reference_where_vjp_tests, finite_differences) {
  const Tensor c = bools({3, 1}, {1, 0, 1});
  const Tensor x = random_tensor(shape_of({3, 4}), 31);
  const Tensor y = random_tensor(shape_of({4}), 32);
  const ir::Node node = where_node(shape_of({3, 4}));
  const Tensor g = random_tensor(shape_of({3, 4}), 33);
  auto out = run(node, {c, x, y});
  ASSERT_TRUE(out.has_value());
  const VjpGradients grads = run_vjp(handler(BackendOp::where), node, {c, x, y}, *out, g);
  // <g, d out / d v> by a central difference of the forward, for each element v of x and y.
  for (std::size_t operand : {1U, 2U}) {
    std::vector<Tensor> in{c, x, y};
    for (std::size_t e = 0; e < in[operand].size(); ++e) {
      const float h = 1e-2F;
      const float v = in[operand].floats()[e];
      in[operand].floats()[e] = v + h;
      const Tensor up = *run(node, in);
      in[operand].floats()[e] = v - h;
      const Tensor down = *run(node, in);
      in[operand].floats()[e] = v;
      double dot = 0.0;
      for (std::size_t i = 0; i < g.size(); ++i)
        dot += static_cast<double>(g.floats()[i]) * (up.floats()[i] - down.floats()[i]) / (2 * h);
      EXPECT_NEAR(grads.inputs[operand].floats()[e], dot, 1e-4) << operand << " " << e;
    }
  }
}

}  // namespace
}  // namespace where_test
}  // namespace nnplan::runtime::reference
