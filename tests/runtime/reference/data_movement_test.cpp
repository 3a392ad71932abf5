// The reference data movement kernels (reshape, permute, broadcast, concat, slice, gather):
// hand-computed cases, a float64 oracle that maps every output coordinate to its input
// coordinate by division and remainder, bit-identical reruns, every shape-guard message, and
// the VJPs against finite differences and against exact hand-computed sums.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace {

using backend::BackendOp;
using namespace testing;

ir::Node node_of(ir::OpKind kind, ir::Shape shape, ir::OpParams params, ir::Parents parents = {0}) {
  return {.id = 1,
          .kind = kind,
          .parents = std::move(parents),
          .shape = std::move(shape),
          .params = std::move(params)};
}

// The coordinates of flat index `flat` in `shape`, and back.
std::vector<std::size_t> coords_of(std::size_t flat, const ir::Shape& shape) {
  std::vector<std::size_t> c(shape.rank());
  for (std::size_t i = shape.rank(); i-- > 0;) {
    c[i] = flat % shape.dims[i];
    flat /= shape.dims[i];
  }
  return c;
}
std::size_t flat_of(const std::vector<std::size_t>& c, const ir::Shape& shape) {
  std::size_t flat = 0;
  for (std::size_t i = 0; i < shape.rank(); ++i)
    flat = flat * shape.dims[i] + c[i];
  return flat;
}

// Exact comparison: these kernels only move values.
::testing::AssertionResult exactly(const Tensor& got, const std::vector<double>& want) {
  return near_all(got.floats(), want, 0.0, 0.0);
}

std::vector<double> as_double(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

TEST(reference_data_movement_table, NamesEachForwardKernelAndItsSuites) {
  const HandlerDefinition& h = handler(BackendOp::gather);
  EXPECT_EQ(h.symbol, "nnplan::runtime::reference::gather_forward");
  EXPECT_EQ(h.forward_tests.source, "tests/runtime/reference/data_movement_test.cpp");
  EXPECT_EQ(h.vjp_tests.source, "tests/runtime/reference/data_movement_test.cpp");
  EXPECT_TRUE(handler(BackendOp::reshape).in_place_safe);
  EXPECT_FALSE(handler(BackendOp::permute).in_place_safe);
  EXPECT_EQ(data_movement_handlers().size(), 6U);
}

// ---- reshape ---------------------------------------------------------------------------------

ir::Node reshape_node(ir::Shape in, ir::Shape out) {
  return node_of(ir::OpKind::reshape, out, ir::ReshapeParams{.in = in, .out = out});
}
ir::Node flatten_node(ir::Shape in) {
  const std::size_t n = element_count_of(in);
  return node_of(ir::OpKind::flatten, shape_of({n}), ir::FlattenParams{.in = in});
}

TEST(reference_reshape_forward_tests, CopiesTheValuesInRowMajorOrder) {
  const Tensor x = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  auto y =
      run_forward(handler(BackendOp::reshape), reshape_node(x.shape, shape_of({3, 1, 2})), {x});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->shape, shape_of({3, 1, 2}));
  EXPECT_TRUE(exactly(*y, {1, 2, 3, 4, 5, 6}));

  const Tensor s = tensor({}, {7.5F});
  auto z = run_forward(handler(BackendOp::reshape), reshape_node(s.shape, shape_of({1, 1})), {s});
  ASSERT_TRUE(z.has_value());
  EXPECT_TRUE(exactly(*z, {7.5}));
}

TEST(reference_reshape_forward_tests, FlattenGivesRankOne) {
  const Tensor x = tensor({2, 1, 2}, {-1, 0.5F, 3, 4});
  auto y = run_forward(handler(BackendOp::reshape), flatten_node(x.shape), {x});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->shape, shape_of({4}));
  EXPECT_TRUE(exactly(*y, {-1, 0.5, 3, 4}));
}

TEST(reference_reshape_forward_tests, InPlaceLeavesTheBufferAsItIs) {
  const HandlerDefinition& h = handler(BackendOp::reshape);
  const ir::Node node = reshape_node(shape_of({4}), shape_of({2, 2}));
  Tensor x = tensor({4}, {1, 2, 3, 4});
  const TensorRef inputs[] = {view(x)};
  const KernelCall call{.node = node,
                        .inputs = inputs,
                        .weights = {},
                        .output = float_view(x.floats().data(), &node.shape)};
  ASSERT_TRUE(h.shape_guard(call).has_value());
  ASSERT_TRUE(h.layout_guard(call).has_value());
  h.forward(call);
  EXPECT_EQ(x.floats(), (std::vector<float>{1, 2, 3, 4}));
}

TEST(reference_reshape_forward_tests, MatchesTheOracleAndReruns) {
  const std::vector<std::pair<ir::Shape, ir::Shape>> cases = {
      {shape_of({2, 3, 4}), shape_of({4, 6})},
      {shape_of({24}), shape_of({2, 2, 2, 3})},
      {shape_of({1, 2, 3, 1, 2}), shape_of({12})},
      {shape_of({0, 3}), shape_of({3, 0})}};
  std::uint32_t seed = 11;
  for (const auto& [in, out] : cases) {
    const Tensor x = random_tensor(in, seed++);
    const ir::Node node = reshape_node(in, out);
    auto y = run_forward(handler(BackendOp::reshape), node, {x});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(exactly(*y, as_double(x.floats()))) << ir::to_string(in);
    EXPECT_TRUE(deterministic(handler(BackendOp::reshape), node, {x}));
  }
}

TEST(reference_reshape_forward_tests, GuardsNameTheMismatch) {
  const HandlerDefinition& h = handler(BackendOp::reshape);
  const Tensor x = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(guard_message(h, reshape_node(shape_of({3, 2}), shape_of({6})), {x}),
            "input 0 has shape [2,3]; reshape needs its params' input shape [3,2]");
  EXPECT_EQ(guard_message(h, flatten_node(shape_of({6})), {x}),
            "input 0 has shape [2,3]; flatten needs its params' input shape [6]");
  EXPECT_EQ(guard_message(h, reshape_node(shape_of({2, 3}), shape_of({6})), {x, x}),
            "2 inputs given; reshape takes 1");
  // A node whose declared shape disagrees with its params' element count.
  EXPECT_EQ(guard_message(h, reshape_node(shape_of({2, 3}), shape_of({5})), {x}),
            "input 0 has shape [2,3]; reshape needs the element count of the output [5]");
  EXPECT_EQ(guard_message(h, node_of(ir::OpKind::relu, shape_of({2, 3}), std::monostate{}), {x}),
            "node kind relu is not run by the reshape handler (it runs reshape, flatten)");
  EXPECT_EQ(guard_message(h, node_of(ir::OpKind::reshape, shape_of({6}), ir::FlattenParams{}), {x}),
            "the reshape node carries parameters of another kind");
  ir::Node other_out = reshape_node(shape_of({2, 3}), shape_of({3, 2}));
  other_out.shape = shape_of({6});
  EXPECT_EQ(guard_message(h, other_out, {x}),
            "the output has shape [6]; reshape needs its params' output shape [3,2]");
}

TEST(reference_reshape_vjp_tests, CopiesTheGradientBack) {
  const HandlerDefinition& h = handler(BackendOp::reshape);
  EXPECT_TRUE(check_vjp(h, reshape_node(shape_of({2, 3}), shape_of({3, 2})),
                        {random_tensor(shape_of({2, 3}), 3)}));
  EXPECT_TRUE(
      check_vjp(h, flatten_node(shape_of({2, 2, 3})), {random_tensor(shape_of({2, 2, 3}), 4)}));
  const Tensor g = tensor({2, 2}, {1, -2, 3, 0.25F});
  const auto grads =
      input_grads(h, reshape_node(shape_of({4}), shape_of({2, 2})), {tensor({4}, {0, 0, 0, 0})}, g);
  EXPECT_EQ(grads[0], (std::vector<float>{1, -2, 3, 0.25F}));
}

// ---- permute -----------------------------------------------------------------------------------

ir::Node permute_node(const ir::Shape& in, std::vector<std::uint32_t> perm) {
  ir::Shape out;
  for (const std::uint32_t a : perm)
    out.dims.push_back(in.dims[a]);
  return node_of(ir::OpKind::permute, out, ir::PermuteParams{.perm = std::move(perm)});
}
ir::Node transpose_node(const ir::Shape& in, std::uint32_t a, std::uint32_t b) {
  ir::Shape out = in;
  std::swap(out.dims[a], out.dims[b]);
  return node_of(ir::OpKind::transpose, out, ir::TransposeParams{.axis1 = a, .axis2 = b});
}

// y[c] = x[c'] with c'[perm[i]] = c[i].
std::vector<double> permute_oracle(const Tensor& x, const std::vector<std::uint32_t>& perm,
                                   const ir::Shape& out) {
  std::vector<double> y(element_count_of(out));
  for (std::size_t o = 0; o < y.size(); ++o) {
    const std::vector<std::size_t> c = coords_of(o, out);
    std::vector<std::size_t> src(c.size());
    for (std::size_t i = 0; i < c.size(); ++i)
      src[perm[i]] = c[i];
    y[o] = x.floats()[flat_of(src, x.shape)];
  }
  return y;
}

TEST(reference_permute_forward_tests, HandComputed) {
  const Tensor x = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  auto t = run_forward(handler(BackendOp::permute), transpose_node(x.shape, 0, 1), {x});
  ASSERT_TRUE(t.has_value()) << t.error().message;
  EXPECT_EQ(t->shape, shape_of({3, 2}));
  EXPECT_TRUE(exactly(*t, {1, 4, 2, 5, 3, 6}));

  // [2,2,2] with perm [2,0,1]: y[a][b][c] = x[b][c][a].
  const Tensor z = tensor({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto p = run_forward(handler(BackendOp::permute), permute_node(z.shape, {2, 0, 1}), {z});
  ASSERT_TRUE(p.has_value()) << p.error().message;
  EXPECT_TRUE(exactly(*p, {0, 2, 4, 6, 1, 3, 5, 7}));

  // Swapping an axis with itself and permuting a scalar change nothing.
  auto same = run_forward(handler(BackendOp::permute), transpose_node(x.shape, 1, 1), {x});
  ASSERT_TRUE(same.has_value());
  EXPECT_TRUE(exactly(*same, {1, 2, 3, 4, 5, 6}));
  const Tensor s = tensor({}, {-3});
  auto scalar = run_forward(handler(BackendOp::permute), permute_node(s.shape, {}), {s});
  ASSERT_TRUE(scalar.has_value()) << scalar.error().message;
  EXPECT_TRUE(exactly(*scalar, {-3}));
}

TEST(reference_permute_forward_tests, MatchesTheOracleAndReruns) {
  struct Case {
    ir::Shape in;
    std::vector<std::uint32_t> perm;
  };
  const std::vector<Case> cases = {{shape_of({5}), {0}},
                                   {shape_of({3, 4}), {1, 0}},
                                   {shape_of({2, 3, 4}), {1, 2, 0}},
                                   {shape_of({2, 3, 4, 5}), {3, 1, 0, 2}},
                                   {shape_of({2, 1, 3, 2, 2}), {4, 2, 0, 3, 1}},
                                   {shape_of({2, 0, 3}), {2, 1, 0}}};
  std::uint32_t seed = 21;
  for (const Case& c : cases) {
    const Tensor x = random_tensor(c.in, seed++);
    const ir::Node node = permute_node(c.in, c.perm);
    auto y = run_forward(handler(BackendOp::permute), node, {x});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(exactly(*y, permute_oracle(x, c.perm, node.shape))) << ir::to_string(c.in);
    EXPECT_TRUE(deterministic(handler(BackendOp::permute), node, {x}));
  }
  const Tensor x = random_tensor(shape_of({2, 3, 4, 5}), 29);
  const ir::Node t = transpose_node(x.shape, 3, 1);
  auto y = run_forward(handler(BackendOp::permute), t, {x});
  ASSERT_TRUE(y.has_value());
  EXPECT_TRUE(exactly(*y, permute_oracle(x, {0, 3, 2, 1}, t.shape)));
}

TEST(reference_permute_forward_tests, GuardsNameTheMismatch) {
  const HandlerDefinition& h = handler(BackendOp::permute);
  const Tensor x = random_tensor(shape_of({2, 3}), 1);
  EXPECT_EQ(
      guard_message(
          h, node_of(ir::OpKind::permute, shape_of({3, 2}), ir::PermuteParams{.perm = {1, 0, 2}}),
          {x}),
      "input 0 has shape [2,3]; permute with 3 perm entries needs rank 3");
  EXPECT_EQ(
      guard_message(
          h, node_of(ir::OpKind::permute, shape_of({3, 2}), ir::PermuteParams{.perm = {1, 1}}),
          {x}),
      "perm entry 1 is repeated; permute needs a permutation of the axes of [2,3]");
  EXPECT_EQ(
      guard_message(
          h, node_of(ir::OpKind::permute, shape_of({3, 2}), ir::PermuteParams{.perm = {2, 0}}),
          {x}),
      "perm entry 2 is out of range; permute needs a permutation of the axes of [2,3]");
  EXPECT_EQ(guard_message(h,
                          node_of(ir::OpKind::transpose, shape_of({3, 2}),
                                  ir::TransposeParams{.axis1 = 0, .axis2 = 2}),
                          {x}),
            "input 0 has shape [2,3]; transpose of axes 0 and 2 needs rank at least 3");
  EXPECT_EQ(
      guard_message(
          h, node_of(ir::OpKind::permute, shape_of({2, 3}), ir::PermuteParams{.perm = {1, 0}}),
          {x}),
      "the output has shape [2,3]; the permuted input 0 has shape [3,2]");
  EXPECT_EQ(
      guard_message(
          h, node_of(ir::OpKind::reshape, shape_of({3, 2}), ir::PermuteParams{.perm = {1, 0}}),
          {x}),
      "node kind reshape is not run by the permute handler (it runs permute, transpose)");
}

TEST(reference_permute_vjp_tests, InversePermutation) {
  const HandlerDefinition& h = handler(BackendOp::permute);
  EXPECT_TRUE(check_vjp(h, permute_node(shape_of({2, 3, 4}), {2, 0, 1}),
                        {random_tensor(shape_of({2, 3, 4}), 5)}));
  EXPECT_TRUE(check_vjp(h, permute_node(shape_of({2, 3, 2, 2}), {3, 2, 1, 0}),
                        {random_tensor(shape_of({2, 3, 2, 2}), 6)}));
  EXPECT_TRUE(check_vjp(h, transpose_node(shape_of({3, 2, 4}), 0, 2),
                        {random_tensor(shape_of({3, 2, 4}), 7)}));
  const Tensor g = tensor({3, 2}, {1, 4, 2, 5, 3, 6});
  const auto grads =
      input_grads(h, transpose_node(shape_of({2, 3}), 0, 1), {zeros(shape_of({2, 3}))}, g);
  EXPECT_EQ(grads[0], (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

// ---- broadcast ---------------------------------------------------------------------------------

ir::Node broadcast_node(ir::Shape from, ir::Shape to) {
  return node_of(ir::OpKind::broadcast_to, to, ir::BroadcastParams{.from = from, .to = to});
}

// y[c] = x[c aligned right, size-1 axes at 0].
std::vector<double> broadcast_oracle(const Tensor& x, const ir::Shape& out) {
  std::vector<double> y(element_count_of(out));
  const std::size_t lead = out.rank() - x.shape.rank();
  for (std::size_t o = 0; o < y.size(); ++o) {
    const std::vector<std::size_t> c = coords_of(o, out);
    std::vector<std::size_t> src(x.shape.rank());
    for (std::size_t i = 0; i < src.size(); ++i)
      src[i] = x.shape.dims[i] == 1 ? 0 : c[lead + i];
    y[o] = x.floats()[flat_of(src, x.shape)];
  }
  return y;
}

TEST(reference_broadcast_forward_tests, HandComputed) {
  const HandlerDefinition& h = handler(BackendOp::broadcast);
  const Tensor row = tensor({3}, {1, 2, 3});
  auto a = run_forward(h, broadcast_node(row.shape, shape_of({2, 3})), {row});
  ASSERT_TRUE(a.has_value()) << a.error().message;
  EXPECT_TRUE(exactly(*a, {1, 2, 3, 1, 2, 3}));
  const Tensor col = tensor({2, 1}, {4, 5});
  auto b = run_forward(h, broadcast_node(col.shape, shape_of({2, 3})), {col});
  ASSERT_TRUE(b.has_value());
  EXPECT_TRUE(exactly(*b, {4, 4, 4, 5, 5, 5}));
  const Tensor s = tensor({}, {9});
  auto c = run_forward(h, broadcast_node(s.shape, shape_of({2, 2})), {s});
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(exactly(*c, {9, 9, 9, 9}));
  auto d = run_forward(h, broadcast_node(shape_of({1}), shape_of({0})), {tensor({1}, {1})});
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->floats().empty());
}

TEST(reference_broadcast_forward_tests, MatchesTheOracleAndReruns) {
  const std::vector<std::pair<ir::Shape, ir::Shape>> cases = {
      {shape_of({}), shape_of({3})},
      {shape_of({4}), shape_of({2, 3, 4})},
      {shape_of({3, 1}), shape_of({2, 3, 5})},
      {shape_of({1, 3, 1, 2}), shape_of({2, 3, 4, 2})},
      {shape_of({2, 1, 3, 1, 1}), shape_of({2, 2, 3, 2, 3})},
      {shape_of({2, 3}), shape_of({2, 3})}};
  std::uint32_t seed = 31;
  for (const auto& [from, to] : cases) {
    const Tensor x = random_tensor(from, seed++);
    const ir::Node node = broadcast_node(from, to);
    auto y = run_forward(handler(BackendOp::broadcast), node, {x});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(exactly(*y, broadcast_oracle(x, to))) << ir::to_string(from);
    EXPECT_TRUE(deterministic(handler(BackendOp::broadcast), node, {x}));
  }
}

TEST(reference_broadcast_forward_tests, GuardsNameTheMismatch) {
  const HandlerDefinition& h = handler(BackendOp::broadcast);
  const Tensor x = random_tensor(shape_of({2, 3}), 1);
  EXPECT_EQ(guard_message(h, broadcast_node(shape_of({3}), shape_of({2, 3})), {x}),
            "input 0 has shape [2,3]; broadcast_to needs its params' source shape [3]");
  EXPECT_EQ(guard_message(h, broadcast_node(shape_of({2, 3}), shape_of({3})), {x}),
            "input 0 has shape [2,3]; broadcast_to needs rank at most the output's [3] rank 1");
  EXPECT_EQ(guard_message(h, broadcast_node(shape_of({2, 3}), shape_of({4, 2, 4})), {x}),
            "input 0 has shape [2,3]; broadcast_to [4,2,4] needs axis 1 to be 1 or 4");
  ir::Node wrong_out = broadcast_node(shape_of({2, 3}), shape_of({2, 2, 3}));
  wrong_out.shape = shape_of({2, 3});
  EXPECT_EQ(guard_message(h, wrong_out, {x}),
            "the output has shape [2,3]; broadcast_to needs its params' target shape [2,2,3]");
  EXPECT_EQ(
      guard_message(h, node_of(ir::OpKind::broadcast_to, shape_of({2, 3}), ir::AxisParams{}), {x}),
      "the broadcast_to node carries parameters of another kind");
}

TEST(reference_broadcast_vjp_tests, SumsOverTheBroadcastAxes) {
  const HandlerDefinition& h = handler(BackendOp::broadcast);
  EXPECT_TRUE(check_vjp(h, broadcast_node(shape_of({3, 1}), shape_of({2, 3, 4})),
                        {random_tensor(shape_of({3, 1}), 8)}));
  EXPECT_TRUE(check_vjp(h, broadcast_node(shape_of({}), shape_of({2, 3})),
                        {random_tensor(shape_of({}), 9)}));
  EXPECT_TRUE(check_vjp(h, broadcast_node(shape_of({1, 2, 1}), shape_of({3, 2, 2})),
                        {random_tensor(shape_of({1, 2, 1}), 10)}));
}

TEST(reference_broadcast_vjp_tests, SumsLeftToRightInOutputOrder) {
  // In float32, (1e8 + -1e8) + 1 is 1 while (1 + -1e8) + 1e8 is 0: the sum runs in output
  // order.
  const HandlerDefinition& h = handler(BackendOp::broadcast);
  const Tensor g = tensor({3, 2}, {1e8F, 1, -1e8F, 2, 1, 3});
  const auto grads = input_grads(h, broadcast_node(shape_of({1, 2}), shape_of({3, 2})),
                                 {zeros(shape_of({1, 2}))}, g);
  EXPECT_EQ(grads[0], (std::vector<float>{1, 6}));
}

// ---- concat ------------------------------------------------------------------------------------

ir::Node concat_node(const std::vector<Tensor>& inputs, std::uint32_t axis) {
  ir::Shape out = inputs[0].shape;
  ir::Parents parents;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (k > 0) out.dims[axis] += inputs[k].shape.dims[axis];
    parents.push_back(static_cast<ir::NodeId>(k));
  }
  ir::Node n = node_of(ir::OpKind::concat, out, ir::AxisParams{.axis = axis}, parents);
  n.id = static_cast<ir::NodeId>(inputs.size());
  return n;
}

// y[c] = input k's x[c with c[axis] - start_k], k the input whose block holds c[axis].
std::vector<double> concat_oracle(const std::vector<Tensor>& inputs, std::uint32_t axis,
                                  const ir::Shape& out) {
  std::vector<double> y(element_count_of(out));
  for (std::size_t o = 0; o < y.size(); ++o) {
    std::vector<std::size_t> c = coords_of(o, out);
    std::size_t k = 0;
    while (c[axis] >= inputs[k].shape.dims[axis])
      c[axis] -= inputs[k++].shape.dims[axis];
    y[o] = inputs[k].floats()[flat_of(c, inputs[k].shape)];
  }
  return y;
}

TEST(reference_concat_forward_tests, HandComputed) {
  const HandlerDefinition& h = handler(BackendOp::concat);
  const std::vector<Tensor> xs = {tensor({2, 2}, {1, 2, 3, 4}), tensor({2, 1}, {5, 6})};
  auto a = run_forward(h, concat_node(xs, 1), xs);
  ASSERT_TRUE(a.has_value()) << a.error().message;
  EXPECT_EQ(a->shape, shape_of({2, 3}));
  EXPECT_TRUE(exactly(*a, {1, 2, 5, 3, 4, 6}));
  const std::vector<Tensor> rows = {tensor({1, 2}, {1, 2}), tensor({0, 2}, {}),
                                    tensor({2, 2}, {3, 4, 5, 6})};
  auto b = run_forward(h, concat_node(rows, 0), rows);
  ASSERT_TRUE(b.has_value()) << b.error().message;
  EXPECT_TRUE(exactly(*b, {1, 2, 3, 4, 5, 6}));
}

TEST(reference_concat_forward_tests, MatchesTheOracleAndReruns) {
  struct Case {
    std::vector<ir::Shape> shapes;
    std::uint32_t axis;
  };
  const std::vector<Case> cases = {
      {{shape_of({3}), shape_of({4})}, 0},
      {{shape_of({2, 3, 4}), shape_of({2, 1, 4}), shape_of({2, 2, 4})}, 1},
      {{shape_of({2, 3, 1}), shape_of({2, 3, 5})}, 2},
      {{shape_of({1, 2, 2, 3}), shape_of({3, 2, 2, 3}), shape_of({2, 2, 2, 3}),
        shape_of({1, 2, 2, 3})},
       0},
      {{shape_of({2, 2, 3, 1, 2}), shape_of({2, 2, 3, 2, 2})}, 3}};
  std::uint32_t seed = 41;
  for (const Case& c : cases) {
    std::vector<Tensor> xs;
    for (const ir::Shape& s : c.shapes)
      xs.push_back(random_tensor(s, seed++));
    const ir::Node node = concat_node(xs, c.axis);
    auto y = run_forward(handler(BackendOp::concat), node, xs);
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(exactly(*y, concat_oracle(xs, c.axis, node.shape))) << ir::to_string(node.shape);
    EXPECT_TRUE(deterministic(handler(BackendOp::concat), node, xs));
  }
}

TEST(reference_concat_forward_tests, GuardsNameTheMismatch) {
  const HandlerDefinition& h = handler(BackendOp::concat);
  const Tensor a = random_tensor(shape_of({2, 3}), 1);
  const Tensor b = random_tensor(shape_of({2, 2}), 2);
  const ir::Node node = concat_node({a, b}, 1);  // [2,5]
  EXPECT_EQ(guard_message(h, node, {a}), "1 inputs given; concat takes at least 2");
  EXPECT_EQ(guard_message(h, node, {a, b, b}), "3 inputs given; concat takes 2");
  EXPECT_EQ(guard_message(h, node, {a, random_tensor(shape_of({3, 2}), 3)}),
            "input 1 has shape [3,2]; concat along axis 1 needs the output's shape [2,5] outside "
            "that axis");
  EXPECT_EQ(guard_message(h, node, {a, random_tensor(shape_of({2}), 3)}),
            "input 1 has shape [2]; concat along axis 1 needs the output's shape [2,5] outside "
            "that axis");
  EXPECT_EQ(guard_message(h, node, {a, a}),
            "the output has shape [2,5]; concat along axis 1 needs the inputs' extents there to "
            "sum to 5");
  EXPECT_EQ(guard_message(h, node, {b, b}),
            "the output has shape [2,5]; concat along axis 1 needs the inputs' extents there to "
            "sum to 5");
  ir::Node far = node;
  far.params = ir::AxisParams{.axis = 2};
  EXPECT_EQ(guard_message(h, far, {a, b}),
            "the output has shape [2,5]; concat along axis 2 needs rank at least 3");
}

TEST(reference_concat_vjp_tests, SplitsTheGradient) {
  const HandlerDefinition& h = handler(BackendOp::concat);
  const std::vector<Tensor> xs = {random_tensor(shape_of({2, 3, 2}), 11),
                                  random_tensor(shape_of({2, 1, 2}), 12),
                                  random_tensor(shape_of({2, 2, 2}), 13)};
  EXPECT_TRUE(check_vjp(h, concat_node(xs, 1), xs));
  const std::vector<Tensor> ys = {random_tensor(shape_of({3, 2}), 14),
                                  random_tensor(shape_of({3, 4}), 15)};
  EXPECT_TRUE(check_vjp(h, concat_node(ys, 1), ys));
  const std::vector<Tensor> zs = {random_tensor(shape_of({1, 3}), 16),
                                  random_tensor(shape_of({2, 3}), 17)};
  EXPECT_TRUE(check_vjp(h, concat_node(zs, 0), zs));
  const Tensor g = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto grads =
      input_grads(h, concat_node({zeros(shape_of({2, 1})), zeros(shape_of({2, 2}))}, 1),
                  {zeros(shape_of({2, 1})), zeros(shape_of({2, 2}))}, g);
  EXPECT_EQ(grads[0], (std::vector<float>{1, 4}));
  EXPECT_EQ(grads[1], (std::vector<float>{2, 3, 5, 6}));
}

// ---- slice -------------------------------------------------------------------------------------

ir::Node slice_node(const ir::Shape& in, std::uint32_t axis, std::uint64_t start, std::uint64_t end,
                    std::uint64_t step) {
  ir::Shape out = in;
  const std::uint64_t e = in.dims[axis];
  const std::uint64_t s = std::min(start, e);
  const std::uint64_t t = std::min(end, e);
  out.dims[axis] = t > s ? (t - s - 1) / step + 1 : 0;
  return node_of(ir::OpKind::slice, out,
                 ir::SliceParams{.axis = axis, .start = start, .end = end, .step = step});
}

// y[c] = x[c with c[axis] * step + start].
std::vector<double> slice_oracle(const Tensor& x, std::uint32_t axis, std::uint64_t start,
                                 std::uint64_t step, const ir::Shape& out) {
  std::vector<double> y(element_count_of(out));
  for (std::size_t o = 0; o < y.size(); ++o) {
    std::vector<std::size_t> c = coords_of(o, out);
    c[axis] = start + c[axis] * step;
    y[o] = x.floats()[flat_of(c, x.shape)];
  }
  return y;
}

TEST(reference_slice_forward_tests, HandComputed) {
  const HandlerDefinition& h = handler(BackendOp::slice);
  const Tensor x = tensor({5}, {10, 11, 12, 13, 14});
  auto a = run_forward(h, slice_node(x.shape, 0, 1, 4, 2), {x});
  ASSERT_TRUE(a.has_value()) << a.error().message;
  EXPECT_EQ(a->shape, shape_of({2}));
  EXPECT_TRUE(exactly(*a, {11, 13}));
  auto clamped = run_forward(h, slice_node(x.shape, 0, 3, 1000, 1), {x});
  ASSERT_TRUE(clamped.has_value());
  EXPECT_TRUE(exactly(*clamped, {13, 14}));
  auto empty = run_forward(h, slice_node(x.shape, 0, 7, 9, 1), {x});
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->shape, shape_of({0}));
  auto reversed = run_forward(h, slice_node(x.shape, 0, 4, 2, 1), {x});
  ASSERT_TRUE(reversed.has_value());
  EXPECT_EQ(reversed->shape, shape_of({0}));
  const Tensor m = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  auto cols = run_forward(h, slice_node(m.shape, 1, 0, 3, 2), {m});
  ASSERT_TRUE(cols.has_value());
  EXPECT_TRUE(exactly(*cols, {1, 3, 4, 6}));
}

TEST(reference_slice_forward_tests, MatchesTheOracleAndReruns) {
  struct Case {
    ir::Shape in;
    std::uint32_t axis;
    std::uint64_t start, end, step;
  };
  const std::vector<Case> cases = {{shape_of({9}), 0, 2, 9, 3},
                                   {shape_of({3, 7}), 1, 1, 6, 2},
                                   {shape_of({5, 2, 3}), 0, 0, 100, 4},
                                   {shape_of({2, 3, 8, 2}), 2, 3, 7, 1},
                                   {shape_of({2, 2, 2, 6, 2}), 3, 5, 6, 7},
                                   {shape_of({4, 3}), 0, 4, 10, 1}};
  std::uint32_t seed = 51;
  for (const Case& c : cases) {
    const Tensor x = random_tensor(c.in, seed++);
    const ir::Node node = slice_node(c.in, c.axis, c.start, c.end, c.step);
    auto y = run_forward(handler(BackendOp::slice), node, {x});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(exactly(*y, slice_oracle(x, c.axis, c.start, c.step, node.shape)))
        << ir::to_string(c.in);
    EXPECT_TRUE(deterministic(handler(BackendOp::slice), node, {x}));
  }
}

TEST(reference_slice_forward_tests, GuardsNameTheMismatch) {
  const HandlerDefinition& h = handler(BackendOp::slice);
  const Tensor x = random_tensor(shape_of({2, 5}), 1);
  ir::Node node = slice_node(x.shape, 1, 1, 4, 1);  // [2,3]
  node.params = ir::SliceParams{.axis = 1, .start = 0, .end = 4, .step = 2};
  EXPECT_EQ(guard_message(h, node, {x}),
            "the output has shape [2,3]; slice 0:4:2 of input 0 [2,5] along axis 1 gives [2,2]");
  node.params = ir::SliceParams{.axis = 2, .start = 0, .end = 4, .step = 1};
  EXPECT_EQ(guard_message(h, node, {x}),
            "input 0 has shape [2,5]; slice along axis 2 needs rank at least 3");
  node.params = ir::SliceParams{.axis = 1, .start = 0, .end = 4, .step = 0};
  EXPECT_EQ(guard_message(h, node, {x}), "slice step 0 is not allowed (must be at least 1)");
  EXPECT_EQ(guard_message(h, slice_node(x.shape, 1, 1, 4, 1), {}), "0 inputs given; slice takes 1");
}

TEST(reference_slice_vjp_tests, ScattersIntoTheGradient) {
  const HandlerDefinition& h = handler(BackendOp::slice);
  EXPECT_TRUE(check_vjp(h, slice_node(shape_of({3, 7}), 1, 1, 6, 2),
                        {random_tensor(shape_of({3, 7}), 18)}));
  EXPECT_TRUE(check_vjp(h, slice_node(shape_of({6, 2, 3}), 0, 2, 100, 1),
                        {random_tensor(shape_of({6, 2, 3}), 19)}));
  const Tensor g = tensor({2}, {7, 8});
  const auto grads =
      input_grads(h, slice_node(shape_of({5}), 0, 1, 5, 3), {zeros(shape_of({5}))}, g);
  EXPECT_EQ(grads[0], (std::vector<float>{0, 7, 0, 0, 8}));
}

// ---- gather ------------------------------------------------------------------------------------

ir::WeightStore indices_store(ir::Shape shape, std::vector<std::int64_t> ints) {
  ir::WeightStore store;
  store.tensors[{1, "indices"}] =
      ir::WeightTensor::adopt<std::int64_t>(std::move(shape), std::move(ints));
  return store;
}

ir::Node gather_node(const ir::Shape& in, std::uint32_t axis, const ir::Shape& indices) {
  ir::Shape out;
  for (std::size_t d = 0; d < axis; ++d)
    out.dims.push_back(in.dims[d]);
  for (const ir::Dim d : indices.dims)
    out.dims.push_back(d);
  for (std::size_t d = axis + 1; d < in.rank(); ++d)
    out.dims.push_back(in.dims[d]);
  return node_of(ir::OpKind::gather, out, ir::AxisParams{.axis = axis});
}

// y[a, j..., b] = x[a, indices[j...], b].
std::vector<double> gather_oracle(const Tensor& x, std::uint32_t axis, const ir::Shape& ishape,
                                  const std::vector<std::int64_t>& ints, const ir::Shape& out) {
  std::vector<double> y(element_count_of(out));
  for (std::size_t o = 0; o < y.size(); ++o) {
    const std::vector<std::size_t> c = coords_of(o, out);
    std::vector<std::size_t> src;
    std::vector<std::size_t> ic;
    for (std::size_t d = 0; d < axis; ++d)
      src.push_back(c[d]);
    for (std::size_t d = 0; d < ishape.rank(); ++d)
      ic.push_back(c[axis + d]);
    src.push_back(static_cast<std::size_t>(ints[flat_of(ic, ishape)]));
    for (std::size_t d = axis + ishape.rank(); d < c.size(); ++d)
      src.push_back(c[d]);
    y[o] = x.floats()[flat_of(src, x.shape)];
  }
  return y;
}

TEST(reference_gather_forward_tests, HandComputed) {
  const HandlerDefinition& h = handler(BackendOp::gather);
  const Tensor x = tensor({3, 2}, {1, 2, 3, 4, 5, 6});
  auto rows = run_forward(h, gather_node(x.shape, 0, shape_of({3})), {x},
                          indices_store(shape_of({3}), {2, 0, 2}));
  ASSERT_TRUE(rows.has_value()) << rows.error().message;
  EXPECT_EQ(rows->shape, shape_of({3, 2}));
  EXPECT_TRUE(exactly(*rows, {5, 6, 1, 2, 5, 6}));
  auto one =
      run_forward(h, gather_node(x.shape, 1, shape_of({})), {x}, indices_store(shape_of({}), {1}));
  ASSERT_TRUE(one.has_value()) << one.error().message;
  EXPECT_EQ(one->shape, shape_of({3}));
  EXPECT_TRUE(exactly(*one, {2, 4, 6}));
  auto grid = run_forward(h, gather_node(x.shape, 1, shape_of({2, 2})), {x},
                          indices_store(shape_of({2, 2}), {1, 0, 0, 0}));
  ASSERT_TRUE(grid.has_value()) << grid.error().message;
  EXPECT_EQ(grid->shape, shape_of({3, 2, 2}));
  EXPECT_TRUE(exactly(*grid, {2, 1, 1, 1, 4, 3, 3, 3, 6, 5, 5, 5}));
  auto none =
      run_forward(h, gather_node(x.shape, 0, shape_of({0})), {x}, indices_store(shape_of({0}), {}));
  ASSERT_TRUE(none.has_value()) << none.error().message;
  EXPECT_EQ(none->shape, shape_of({0, 2}));
}

TEST(reference_gather_forward_tests, MatchesTheOracleAndReruns) {
  struct Case {
    ir::Shape in;
    std::uint32_t axis;
    ir::Shape indices;
  };
  const std::vector<Case> cases = {{shape_of({7}), 0, shape_of({4})},
                                   {shape_of({3, 5}), 1, shape_of({2, 3})},
                                   {shape_of({4, 3, 2}), 0, shape_of({})},
                                   {shape_of({2, 6, 3, 2}), 1, shape_of({5})},
                                   {shape_of({2, 2, 3, 2, 4}), 4, shape_of({2, 1, 3})}};
  std::uint32_t seed = 61;
  for (const Case& c : cases) {
    const Tensor x = random_tensor(c.in, seed);
    std::mt19937 gen(seed++);
    std::uniform_int_distribution<std::int64_t> pick(
        0, static_cast<std::int64_t>(c.in.dims[c.axis]) - 1);
    std::vector<std::int64_t> ints(element_count_of(c.indices));
    for (std::int64_t& v : ints)
      v = pick(gen);
    const ir::WeightStore store = indices_store(c.indices, ints);
    const ir::Node node = gather_node(c.in, c.axis, c.indices);
    auto y = run_forward(handler(BackendOp::gather), node, {x}, store);
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(exactly(*y, gather_oracle(x, c.axis, c.indices, ints, node.shape)))
        << ir::to_string(c.in);
    EXPECT_TRUE(deterministic(handler(BackendOp::gather), node, {x}, store));
  }
}

TEST(reference_gather_forward_tests, GuardsNameTheMismatch) {
  const HandlerDefinition& h = handler(BackendOp::gather);
  const Tensor x = random_tensor(shape_of({3, 2}), 1);
  const ir::Node node = gather_node(x.shape, 0, shape_of({2}));
  EXPECT_EQ(guard_message(h, node, {x}),
            "payload indices is missing; gather needs an int64 tensor of indices");
  EXPECT_EQ(guard_message(h, node, {x}, indices_store(shape_of({2}), {0, 3})),
            "payload indices has shape [2]; gather needs values in [0, 3) (axis 0 of input 0 "
            "[3,2]), element 1 is 3");
  EXPECT_EQ(guard_message(h, node, {x}, indices_store(shape_of({2}), {-1, 0})),
            "payload indices has shape [2]; gather needs values in [0, 3) (axis 0 of input 0 "
            "[3,2]), element 0 is -1");
  EXPECT_EQ(guard_message(h, node, {x}, indices_store(shape_of({3}), {0, 1, 2})),
            "the output has shape [2,2]; gather along axis 0 of input 0 [3,2] with indices [3] "
            "gives [3,2]");
  EXPECT_EQ(guard_message(h, node, {x}, indices_store(shape_of({2}), {0})),
            "payload indices has shape [2]; gather needs one value per element, it holds 1");
  ir::WeightStore floats;
  floats.tensors[{1, "indices"}] = ir::WeightTensor::adopt<float>(shape_of({2}), {0, 1});
  EXPECT_EQ(guard_message(h, node, {x}, floats),
            "payload indices has shape [2]; gather needs int64 values, not float32");
  ir::WeightStore bools;
  bools.tensors[{1, "indices"}] = ir::WeightTensor::adopt<std::uint8_t>(shape_of({2}), {0, 1});
  EXPECT_EQ(guard_message(h, node, {x}, bools),
            "payload indices has shape [2]; gather needs int64 values, not bool");
  ir::Node far = node;
  far.params = ir::AxisParams{.axis = 2};
  EXPECT_EQ(guard_message(h, far, {x}, indices_store(shape_of({2}), {0, 1})),
            "input 0 has shape [3,2]; gather along axis 2 needs rank at least 3");
}

TEST(reference_gather_vjp_tests, ScatterAddsTheGradient) {
  const HandlerDefinition& h = handler(BackendOp::gather);
  EXPECT_TRUE(check_vjp(h, gather_node(shape_of({4, 3}), 0, shape_of({5})),
                        {random_tensor(shape_of({4, 3}), 20)},
                        indices_store(shape_of({5}), {3, 0, 3, 1, 3})));
  EXPECT_TRUE(check_vjp(h, gather_node(shape_of({2, 5, 2}), 1, shape_of({2, 2})),
                        {random_tensor(shape_of({2, 5, 2}), 21)},
                        indices_store(shape_of({2, 2}), {4, 4, 0, 2})));
  EXPECT_TRUE(check_vjp(h, gather_node(shape_of({3, 4}), 1, shape_of({})),
                        {random_tensor(shape_of({3, 4}), 22)}, indices_store(shape_of({}), {2})));
}

TEST(reference_gather_vjp_tests, RepeatedIndicesSumLeftToRight) {
  // Index 1 is read at output positions 0, 2 and 3: (1e8 + -1e8) + 1 is 1 in float32, the
  // reverse order (1 + -1e8) + 1e8 would give 0.
  const HandlerDefinition& h = handler(BackendOp::gather);
  const ir::WeightStore store = indices_store(shape_of({4}), {1, 0, 1, 1});
  const Tensor g = tensor({4}, {1e8F, 5, -1e8F, 1});
  const auto grads = input_grads(h, gather_node(shape_of({3}), 0, shape_of({4})),
                                 {zeros(shape_of({3}))}, g, store);
  EXPECT_EQ(grads[0], (std::vector<float>{5, 1, 0}));
}

}  // namespace
}  // namespace nnplan::runtime::reference
