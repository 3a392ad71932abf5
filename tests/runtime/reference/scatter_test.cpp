// The reference scatter_elements and scatter_nd kernels: ONNX's examples, every reduction,
// duplicate and negative indices, int64 and bool data, the guard's refusals naming the index, and
// the VJPs by hand (which update stood) and by finite differences for every reduction.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace scatter_test {
namespace {

using backend::BackendOp;
using namespace testing;
using ir::DType;
using ir::OpKind;
using ir::ScatterReduction;

ir::Node scatter_node(OpKind kind, const ir::Shape& data, std::uint32_t axis,
                      ScatterReduction reduction, DType dtype = DType::float32) {
  return {.id = 3,
          .kind = kind,
          .parents = {0, 1, 2},
          .shape = data,
          .params = ir::ScatterParams{.axis = axis, .reduction = reduction},
          .dtype = dtype};
}

Tensor ints(std::initializer_list<ir::Dim> dims, std::vector<std::int64_t> v) {
  return Tensor::of(shape_of(dims), std::move(v));
}

BackendOp op_of(const ir::Node& node) {
  return node.kind == OpKind::scatter_nd ? BackendOp::scatter_nd : BackendOp::scatter_elements;
}

Expected<Tensor> run(const ir::Node& node, const Tensor& data, const Tensor& indices,
                     const Tensor& updates) {
  const TensorRef refs[] = {view(data), view(indices), view(updates)};
  Tensor out = zeros(node.shape, node.dtype);
  const KernelCall call{.node = node, .inputs = refs, .weights = {}, .output = mutable_view(out)};
  const HandlerDefinition& h = handler(op_of(node));
  if (auto ok = h.shape_guard(call); !ok) return std::unexpected(ok.error());
  if (auto ok = h.layout_guard(call); !ok) return std::unexpected(ok.error());
  h.forward(call);
  return out;
}

std::string refusal(const ir::Node& node, const Tensor& data, const Tensor& indices,
                    const Tensor& updates) {
  const auto r = run(node, data, indices, updates);
  return r.has_value() ? std::string("accepted") : r.error().message;
}

// ONNX's ScatterElements examples: along axis 1, duplicates (the later stands; add adds both),
// negative indices; mul; int64 and bool data.
TEST(reference_scatter_elements_forward_tests, hand_cases) {
  const Tensor x = tensor({1, 5}, {1, 2, 3, 4, 5});
  const ir::Node along = scatter_node(OpKind::scatter_elements, x.shape, 1, ScatterReduction::none);
  EXPECT_EQ(run(along, x, ints({1, 2}, {1, 3}), tensor({1, 2}, {1.1F, 2.1F}))->floats(),
            (std::vector<float>{1, 1.1F, 3, 2.1F, 5}));
  EXPECT_EQ(run(along, x, ints({1, 2}, {1, -1}), tensor({1, 2}, {1.1F, 2.1F}))->floats(),
            (std::vector<float>{1, 1.1F, 3, 4, 2.1F}));
  EXPECT_EQ(run(along, x, ints({1, 2}, {1, 1}), tensor({1, 2}, {1.1F, 2.1F}))->floats(),
            (std::vector<float>{1, 2.1F, 3, 4, 5}));
  const ir::Node add = scatter_node(OpKind::scatter_elements, x.shape, 1, ScatterReduction::add);
  EXPECT_EQ(run(add, x, ints({1, 2}, {1, 1}), tensor({1, 2}, {1.5F, 2.5F}))->floats(),
            (std::vector<float>{1, 6, 3, 4, 5}));
  const ir::Node mul = scatter_node(OpKind::scatter_elements, x.shape, 1, ScatterReduction::mul);
  EXPECT_EQ(run(mul, x, ints({1, 2}, {4, 4}), tensor({1, 2}, {2, 3}))->floats(),
            (std::vector<float>{1, 2, 3, 4, 30}));
  // Axis 0 of a 3x3 (ONNX's "without axis" example).
  const Tensor z = tensor({3, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(run(scatter_node(OpKind::scatter_elements, z.shape, 0, ScatterReduction::none), z,
                ints({2, 3}, {1, 0, 2, 0, 2, 1}), tensor({2, 3}, {1, 1.1F, 1.2F, 2, 2.1F, 2.2F}))
                ->floats(),
            (std::vector<float>{2, 1.1F, 0, 1, 0, 2.2F, 0, 2.1F, 1.2F}));
  const Tensor big = ints({3}, {INT64_MAX, 7, 8});
  EXPECT_EQ(
      run(scatter_node(OpKind::scatter_elements, big.shape, 0, ScatterReduction::add, DType::int64),
          big, ints({2}, {0, 2}), ints({2}, {1, -8}))
          ->ints(),
      (std::vector<std::int64_t>{INT64_MIN, 7, 0}));
  const Tensor flags = Tensor::of(shape_of({3}), std::vector<std::uint8_t>{0, 0, 0});
  EXPECT_EQ(run(scatter_node(OpKind::scatter_elements, flags.shape, 0, ScatterReduction::none,
                             DType::boolean),
                flags, ints({1}, {1}), Tensor::of(shape_of({1}), std::vector<std::uint8_t>{1}))
                ->bools(),
            (std::vector<std::uint8_t>{0, 1, 0}));
}

TEST(reference_scatter_elements_forward_tests, guards_name_the_index) {
  const Tensor x = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  const ir::Node node = scatter_node(OpKind::scatter_elements, x.shape, 1, ScatterReduction::none);
  EXPECT_EQ(refusal(node, x, ints({2, 1}, {0, 3}), tensor({2, 1}, {9, 9})),
            "index 3 (element 1 of the indices) is out of range for axis 1 of extent 3; indices "
            "lie in [-3, 2]");
  EXPECT_EQ(refusal(node, x, ints({2, 1}, {-4, 0}), tensor({2, 1}, {9, 9})),
            "index -4 (element 0 of the indices) is out of range for axis 1 of extent 3; indices "
            "lie in [-3, 2]");
  EXPECT_EQ(refusal(node, x, tensor({2, 1}, {0, 1}), tensor({2, 1}, {9, 9})),
            "input 1 has dtype float32; scatter_elements takes int64 indices");
  const Tensor flags = Tensor::of(shape_of({2}), std::vector<std::uint8_t>{0, 1});
  EXPECT_EQ(refusal(scatter_node(OpKind::scatter_elements, flags.shape, 0, ScatterReduction::add,
                                 DType::boolean),
                    flags, ints({1}, {0}), Tensor::of(shape_of({1}), std::vector<std::uint8_t>{1})),
            "scatter_elements adds or multiplies float32 or int64 values, not bool");
}

// ONNX's ScatterND examples: rows of a 4x4x4 replaced, added and multiplied; single elements.
TEST(reference_scatter_nd_forward_tests, hand_cases) {
  std::vector<float> cube;
  for (int s = 0; s < 4; ++s) {
    for (const float v : {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1})
      cube.push_back(v);
  }
  const Tensor x = tensor({4, 4, 4}, cube);
  std::vector<float> u(32, 5.0F);
  for (std::size_t i = 16; i < 32; ++i)
    u[i] = 1.0F;
  const Tensor updates = tensor({2, 4, 4}, u);
  const Tensor indices = ints({2, 1}, {0, 2});
  const auto y = run(scatter_node(OpKind::scatter_nd, x.shape, 0, ScatterReduction::none), x,
                     indices, updates);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats()[0], 5.0F);
  EXPECT_EQ(y->floats()[16], 1.0F);  // slice 1 untouched
  EXPECT_EQ(y->floats()[32], 1.0F);  // slice 2 replaced by ones
  EXPECT_EQ(y->floats()[63], 1.0F);
  const auto added = run(scatter_node(OpKind::scatter_nd, x.shape, 0, ScatterReduction::add), x,
                         ints({2, 1}, {0, 0}), updates);
  EXPECT_EQ(added->floats()[0], 1.0F + 5.0F + 1.0F);
  const auto times = run(scatter_node(OpKind::scatter_nd, x.shape, 0, ScatterReduction::mul), x,
                         ints({2, 1}, {0, 0}), updates);
  EXPECT_EQ(times->floats()[1], 2.0F * 5.0F * 1.0F);
  const Tensor v = tensor({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(run(scatter_node(OpKind::scatter_nd, v.shape, 0, ScatterReduction::none), v,
                ints({4, 1}, {4, 3, 1, -1}), tensor({4}, {9, 10, 11, 12}))
                ->floats(),
            (std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12}));
}

TEST(reference_scatter_nd_forward_tests, guards_name_the_index) {
  const Tensor x = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  const ir::Node node = scatter_node(OpKind::scatter_nd, x.shape, 0, ScatterReduction::none);
  EXPECT_EQ(refusal(node, x, ints({2, 2}, {0, 2, 1, 3}), tensor({2}, {9, 9})),
            "index 3 (element 3 of the indices) is out of range for axis 1 of extent 3; indices "
            "lie in [-3, 2]");
  EXPECT_EQ(refusal(node, x, ints({1, 1}, {2}), tensor({1, 3}, {9, 9, 9})),
            "index 2 (element 0 of the indices) is out of range for axis 0 of extent 2; indices "
            "lie in [-2, 1]");
}

// Central differences of <g, scatter(x, u)> in x and u, for one kind and reduction.
void expect_vjp_matches_differences(const ir::Node& node, const Tensor& x, const Tensor& indices,
                                    const Tensor& u) {
  const Tensor g = random_tensor(node.shape, 77);
  const auto y = run(node, x, indices, u);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  const VjpGradients grads = run_vjp(handler(op_of(node)), node, {x, indices, u}, *y, g);
  const auto loss = [&](const Tensor& xs, const Tensor& us) {
    const Tensor out = *run(node, xs, indices, us);
    double acc = 0.0;
    for (std::size_t i = 0; i < out.size(); ++i)
      acc += static_cast<double>(g.floats()[i]) * out.floats()[i];
    return acc;
  };
  const float h = 1e-2F;
  Tensor px = x;
  for (std::size_t e = 0; e < x.size(); ++e) {
    const float v = px.floats()[e];
    px.floats()[e] = v + h;
    const double up = loss(px, u);
    px.floats()[e] = v - h;
    const double down = loss(px, u);
    px.floats()[e] = v;
    EXPECT_NEAR(grads.inputs[0].floats()[e], (up - down) / (2 * h), 2e-3) << "data " << e;
  }
  Tensor pu = u;
  for (std::size_t e = 0; e < u.size(); ++e) {
    const float v = pu.floats()[e];
    pu.floats()[e] = v + h;
    const double up = loss(x, pu);
    pu.floats()[e] = v - h;
    const double down = loss(x, pu);
    pu.floats()[e] = v;
    EXPECT_NEAR(grads.inputs[2].floats()[e], (up - down) / (2 * h), 2e-3) << "update " << e;
  }
}

TEST(reference_scatter_elements_vjp_tests, finite_differences) {
  const Tensor x = random_tensor(shape_of({3, 4}), 81);
  const Tensor indices = ints({2, 3}, {1, -1, 0, 2, 2, 0});  // element (1, 0) gets no update
  const Tensor u = random_tensor(shape_of({2, 3}), 82);
  for (const ScatterReduction r :
       {ScatterReduction::none, ScatterReduction::add, ScatterReduction::mul}) {
    SCOPED_TRACE(static_cast<int>(r));
    expect_vjp_matches_differences(scatter_node(OpKind::scatter_elements, x.shape, 0, r), x,
                                   indices, u);
  }
}

// Of two updates of one element under none, only the later stood and gets the gradient.
TEST(reference_scatter_elements_vjp_tests, the_update_that_stood) {
  const Tensor x = tensor({3}, {1, 2, 3});
  const ir::Node node = scatter_node(OpKind::scatter_elements, x.shape, 0, ScatterReduction::none);
  const Tensor indices = ints({2}, {1, 1});
  const Tensor u = tensor({2}, {7, 8});
  const Tensor g = tensor({3}, {10, 20, 30});
  const VjpGradients grads = run_vjp(handler(BackendOp::scatter_elements), node, {x, indices, u},
                                     *run(node, x, indices, u), g);
  EXPECT_EQ(grads.inputs[0].floats(), (std::vector<float>{10, 0, 30}));
  EXPECT_EQ(grads.inputs[2].floats(), (std::vector<float>{0, 20}));
}

TEST(reference_scatter_nd_vjp_tests, finite_differences) {
  const Tensor x = random_tensor(shape_of({4, 3}), 91);
  const Tensor indices = ints({3, 1}, {2, 0, -2});  // rows 2 twice, row 0; rows 1 and 3 kept
  const Tensor u = random_tensor(shape_of({3, 3}), 92);
  for (const ScatterReduction r :
       {ScatterReduction::none, ScatterReduction::add, ScatterReduction::mul}) {
    SCOPED_TRACE(static_cast<int>(r));
    expect_vjp_matches_differences(scatter_node(OpKind::scatter_nd, x.shape, 0, r), x, indices, u);
  }
}

}  // namespace
}  // namespace scatter_test
}  // namespace nnplan::runtime::reference
