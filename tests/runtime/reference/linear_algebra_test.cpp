// The reference provider's linear algebra family: matmul (torch.matmul broadcasting and rank-1
// promotion) and linear (x W^T + b), against hand-computed values, a float64 oracle, the
// float32 left-to-right order the kernels document, their shape guards, and finite differences.
#include <gtest/gtest.h>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace {

using namespace testing;

const HandlerDefinition& matmul_handler() {
  return handler_for(linear_algebra_handlers(), backend::BackendOp::matmul);
}
const HandlerDefinition& linear_handler() {
  return handler_for(linear_algebra_handlers(), backend::BackendOp::linear);
}

ir::Node matmul_node(ir::Shape out) {
  return {.id = 2, .kind = ir::OpKind::matmul, .parents = {0, 1}, .shape = std::move(out)};
}

ir::Node linear_node(ir::Shape out) {
  return {.id = 1, .kind = ir::OpKind::linear, .parents = {0}, .shape = std::move(out)};
}

// torch.matmul written out per output element, with accumulator type T: each operand promoted
// to at least rank 2, batch coordinates aligned from the right, a batch axis of extent 1 read at
// coordinate 0, and the dot product summed over p ascending from 0.
template <class T>
std::vector<T> naive_matmul(const Tensor& a, const Tensor& b) {
  std::vector<ir::Dim> ad(a.shape.dims.begin(), a.shape.dims.end());
  std::vector<ir::Dim> bd(b.shape.dims.begin(), b.shape.dims.end());
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  const std::size_t nb = std::max(ad.size(), bd.size()) - 2;
  while (ad.size() < nb + 2)
    ad.insert(ad.begin(), 1);
  while (bd.size() < nb + 2)
    bd.insert(bd.begin(), 1);
  const std::size_t m = ad[nb];
  const std::size_t k = ad[nb + 1];
  const std::size_t n = bd[nb + 1];
  std::vector<std::size_t> out_batch(nb);
  std::size_t batches = 1;
  for (std::size_t i = 0; i < nb; ++i) {
    out_batch[i] = std::max(ad[i], bd[i]);
    batches *= out_batch[i];
  }
  std::vector<T> out;
  for (std::size_t t = 0; t < batches; ++t) {
    std::size_t rest = t;
    std::size_t a_index = 0;
    std::size_t b_index = 0;
    std::size_t a_scale = m * k;
    std::size_t b_scale = k * n;
    for (std::size_t i = nb; i-- > 0;) {
      const std::size_t coord = rest % out_batch[i];
      rest /= out_batch[i];
      a_index += (ad[i] == 1 ? 0 : coord) * a_scale;
      b_index += (bd[i] == 1 ? 0 : coord) * b_scale;
      a_scale *= ad[i];
      b_scale *= bd[i];
    }
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        T acc = 0;
        for (std::size_t p = 0; p < k; ++p) {
          acc = acc + static_cast<T>(a.floats()[a_index + i * k + p]) *
                          static_cast<T>(b.floats()[b_index + p * n + j]);
        }
        out.push_back(acc);
      }
    }
  }
  return out;
}

TEST(reference_matmul_forward_tests, HandComputedMatrixProduct) {
  const Tensor a = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = tensor({3, 2}, {7, 8, 9, 10, 11, 12});
  auto y = run_forward(matmul_handler(), matmul_node(shape_of({2, 2})), {a, b});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{58, 64, 139, 154}));
}

TEST(reference_matmul_forward_tests, RankOneOperandsArePromotedAndDropped) {
  const Tensor a = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = tensor({3, 2}, {7, 8, 9, 10, 11, 12});
  const Tensor row = tensor({3}, {1, 2, 3});
  const Tensor col = tensor({3}, {1, 0, -1});
  auto left = run_forward(matmul_handler(), matmul_node(shape_of({2})), {row, b});
  ASSERT_TRUE(left.has_value()) << left.error().message;
  EXPECT_EQ(left->floats(), (std::vector<float>{58, 64}));
  auto right = run_forward(matmul_handler(), matmul_node(shape_of({2})), {a, col});
  ASSERT_TRUE(right.has_value()) << right.error().message;
  EXPECT_EQ(right->floats(), (std::vector<float>{-2, -2}));
  auto dot = run_forward(matmul_handler(), matmul_node(shape_of({})), {row, col});
  ASSERT_TRUE(dot.has_value()) << dot.error().message;
  EXPECT_EQ(dot->floats(), (std::vector<float>{-2}));
}

TEST(reference_matmul_forward_tests, HandComputedBatchBroadcast) {
  // [2,1,2,2] x [3,2,1]: each of the 2 left matrices times each of the 3 right columns.
  const Tensor a = tensor({2, 1, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 3});
  const Tensor b = tensor({3, 2, 1}, {1, 2, 3, 4, 5, 6});
  auto y = run_forward(matmul_handler(), matmul_node(shape_of({2, 3, 2, 1})), {a, b});
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{1, 2, 3, 4, 5, 6, 2, 6, 6, 12, 10, 18}));
}

struct MatmulCase {
  ir::Shape a;
  ir::Shape b;
  ir::Shape out;
};

std::vector<MatmulCase> matmul_cases() {
  return {
      {shape_of({5, 7}), shape_of({7, 3}), shape_of({5, 3})},
      {shape_of({2, 1, 3, 4}), shape_of({5, 4, 2}), shape_of({2, 5, 3, 2})},
      {shape_of({4}), shape_of({2, 4, 3}), shape_of({2, 3})},
      {shape_of({3, 2, 6}), shape_of({6}), shape_of({3, 2})},
      {shape_of({9}), shape_of({9}), shape_of({})},
      {shape_of({3, 4}), shape_of({2, 1, 4, 5}), shape_of({2, 1, 3, 5})},
      {shape_of({1, 3, 2, 4}), shape_of({2, 1, 4, 3}), shape_of({2, 3, 2, 3})},
      {shape_of({1, 40}), shape_of({40, 1}), shape_of({1, 1})},
  };
}

TEST(reference_matmul_forward_tests, MatchesFloat64OracleAndFixedOrder) {
  std::uint32_t seed = 100;
  for (const MatmulCase& c : matmul_cases()) {
    SCOPED_TRACE(ir::to_string(c.a) + " x " + ir::to_string(c.b));
    const Tensor a = random_tensor(c.a, seed++);
    const Tensor b = random_tensor(c.b, seed++);
    auto y = run_forward(matmul_handler(), matmul_node(c.out), {a, b});
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(near_all(y->floats(), naive_matmul<double>(a, b), 1e-5, 1e-6));
    EXPECT_TRUE(same_bits(y->floats(), naive_matmul<float>(a, b)));
  }
}

TEST(reference_matmul_forward_tests, SecondRunIsBitIdentical) {
  const Tensor a = random_tensor(shape_of({2, 1, 3, 4}), 11);
  const Tensor b = random_tensor(shape_of({5, 4, 2}), 12);
  const ir::Node node = matmul_node(shape_of({2, 5, 3, 2}));
  EXPECT_TRUE(deterministic(matmul_handler(), node, {a, b}));
}

TEST(reference_matmul_forward_tests, ShapeGuardNamesTheOperand) {
  const HandlerDefinition& h = matmul_handler();
  const auto message = [&](const ir::Shape& a, const ir::Shape& b, const ir::Shape& out) {
    return guard_message(h, matmul_node(out), {zeros(a), zeros(b)});
  };
  EXPECT_EQ(message(shape_of({2, 3}), shape_of({4, 2}), shape_of({2, 2})),
            "input 1 has shape [4,2]; matmul needs 3 (the last dimension of input 0 [2,3]) on "
            "axis 0");
  EXPECT_EQ(message(shape_of({2, 3}), shape_of({4}), shape_of({2})),
            "input 1 has shape [4]; matmul needs 3 (the last dimension of input 0 [2,3]) on "
            "axis 0");
  EXPECT_EQ(message(shape_of({2, 3, 4}), shape_of({3, 4, 5}), shape_of({2, 3, 5})),
            "input 1 has shape [3,4,5]; matmul needs batch axes that broadcast with those of "
            "input 0 [2,3,4]");
  EXPECT_EQ(message(shape_of({}), shape_of({3}), shape_of({})),
            "input 0 has shape []; matmul needs rank at least 1");
  EXPECT_EQ(message(shape_of({3}), shape_of({}), shape_of({})),
            "input 1 has shape []; matmul needs rank at least 1");
  EXPECT_EQ(message(shape_of({2, 3}), shape_of({3, 2}), shape_of({2, 3})),
            "the output has shape [2,3]; matmul of [2,3] x [3,2] gives [2,2]");
  auto one = run_forward(h, matmul_node(shape_of({2})), {zeros(shape_of({2}))});
  ASSERT_FALSE(one.has_value());
  EXPECT_EQ(one.error().message, "1 inputs given; matmul takes 2");
}

TEST(reference_matmul_vjp_tests, MatchesFiniteDifferences) {
  std::uint32_t seed = 200;
  for (const MatmulCase& c : matmul_cases()) {
    SCOPED_TRACE(ir::to_string(c.a) + " x " + ir::to_string(c.b));
    EXPECT_TRUE(check_vjp(matmul_handler(), matmul_node(c.out),
                          {random_tensor(c.a, seed), random_tensor(c.b, seed + 1)}));
    seed += 2;
  }
}

TEST(reference_matmul_vjp_tests, BroadcastGradientSumsOverBatches) {
  // [1,2] x [2,2,1] broadcasts the left row over 2 batches: dA sums both batches' B^T g.
  const Tensor a = tensor({1, 2}, {1, 2});
  const Tensor b = tensor({2, 2, 1}, {3, 4, 5, 6});
  const ir::Node node = matmul_node(shape_of({2, 1, 1}));
  const Tensor y = tensor({2, 1, 1}, {11, 17});
  const Tensor g = tensor({2, 1, 1}, {1, 10});
  const VjpGradients grads = run_vjp(matmul_handler(), node, {a, b}, y, g);
  EXPECT_EQ(grads.inputs[0].floats(), (std::vector<float>{3 + 50, 4 + 60}));
  EXPECT_EQ(grads.inputs[1].floats(), (std::vector<float>{1, 2, 10, 20}));
}

// linear per output element, with accumulator type T: the dot product over i ascending from 0,
// then the bias.
template <class T>
std::vector<T> naive_linear(const Tensor& x, const std::vector<float>& w, const float* bias,
                            std::size_t out) {
  const std::size_t in = x.shape.dims.back();
  const std::size_t rows = x.floats().size() / in;
  std::vector<T> y;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t o = 0; o < out; ++o) {
      T acc = 0;
      for (std::size_t i = 0; i < in; ++i) {
        acc = acc + static_cast<T>(x.floats()[r * in + i]) * static_cast<T>(w[o * in + i]);
      }
      if (bias != nullptr) acc = acc + static_cast<T>(bias[o]);
      y.push_back(acc);
    }
  }
  return y;
}

ir::WeightStore linear_store(ir::NodeId id, const Tensor& w, const Tensor* bias) {
  ir::WeightStore store;
  store.tensors[{id, "weight"}] = ir::WeightTensor::adopt<float>(w.shape, w.floats());
  if (bias != nullptr) {
    store.tensors[{id, "bias"}] = ir::WeightTensor::adopt<float>(bias->shape, bias->floats());
  }
  return store;
}

TEST(reference_linear_forward_tests, HandComputedWithAndWithoutBias) {
  const Tensor x = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor w = tensor({2, 3}, {1, 0, -1, 0.5F, 0.5F, 0.5F});
  const Tensor b = tensor({2}, {10, -1});
  const ir::Node node = linear_node(shape_of({2, 2}));
  auto biased = run_forward(linear_handler(), node, {x}, linear_store(node.id, w, &b));
  ASSERT_TRUE(biased.has_value()) << biased.error().message;
  EXPECT_EQ(biased->floats(), (std::vector<float>{8, 2, 8, 6.5F}));
  auto plain = run_forward(linear_handler(), node, {x}, linear_store(node.id, w, nullptr));
  ASSERT_TRUE(plain.has_value()) << plain.error().message;
  EXPECT_EQ(plain->floats(), (std::vector<float>{-2, 3, -2, 7.5F}));
}

TEST(reference_linear_forward_tests, HandComputedRankOneInput) {
  const Tensor x = tensor({3}, {1, 2, 3});
  const Tensor w = tensor({2, 3}, {1, 0, -1, 0.5F, 0.5F, 0.5F});
  const Tensor b = tensor({2}, {10, -1});
  const ir::Node node = linear_node(shape_of({2}));
  auto y = run_forward(linear_handler(), node, {x}, linear_store(node.id, w, &b));
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{8, 2}));
}

struct LinearCase {
  ir::Shape x;
  std::size_t out;
  bool bias;
};

std::vector<LinearCase> linear_cases() {
  return {{shape_of({7}), 5, true},
          {shape_of({4, 6}), 3, false},
          {shape_of({2, 3, 4}), 5, true},
          {shape_of({2, 1, 2, 33}), 2, true},
          {shape_of({3, 1}), 4, false}};
}

ir::Shape linear_out(const LinearCase& c) {
  ir::Shape out = c.x;
  out.dims.back() = c.out;
  return out;
}

TEST(reference_linear_forward_tests, MatchesFloat64OracleAndFixedOrder) {
  std::uint32_t seed = 300;
  for (const LinearCase& c : linear_cases()) {
    SCOPED_TRACE(ir::to_string(c.x));
    const Tensor x = random_tensor(c.x, seed++);
    const Tensor w = random_tensor(shape_of({c.out, c.x.dims.back()}), seed++);
    const Tensor b = random_tensor(shape_of({c.out}), seed++);
    const ir::Node node = linear_node(linear_out(c));
    auto y =
        run_forward(linear_handler(), node, {x}, linear_store(node.id, w, c.bias ? &b : nullptr));
    ASSERT_TRUE(y.has_value()) << y.error().message;
    const float* bias = c.bias ? b.floats().data() : nullptr;
    EXPECT_TRUE(
        near_all(y->floats(), naive_linear<double>(x, w.floats(), bias, c.out), 1e-5, 1e-6));
    EXPECT_TRUE(same_bits(y->floats(), naive_linear<float>(x, w.floats(), bias, c.out)));
  }
}

TEST(reference_linear_forward_tests, SecondRunIsBitIdentical) {
  const Tensor x = random_tensor(shape_of({2, 3, 8}), 21);
  const Tensor w = random_tensor(shape_of({4, 8}), 22);
  const Tensor b = random_tensor(shape_of({4}), 23);
  const ir::Node node = linear_node(shape_of({2, 3, 4}));
  const ir::WeightStore store = linear_store(node.id, w, &b);
  EXPECT_TRUE(deterministic(linear_handler(), node, {x}, store));
}

TEST(reference_linear_forward_tests, ShapeGuardNamesTheOperand) {
  const HandlerDefinition& h = linear_handler();
  const auto message = [&](const ir::Shape& x, const ir::Shape& out, const ir::WeightStore& store) {
    return guard_message(h, linear_node(out), {zeros(x)}, store);
  };
  const Tensor w23 = zeros(shape_of({2, 3}));
  const Tensor w24 = zeros(shape_of({2, 4}));
  const Tensor b3 = zeros(shape_of({3}));
  EXPECT_EQ(message(shape_of({2, 3}), shape_of({2, 2}), linear_store(1, w24, nullptr)),
            "the weight has shape [2,4]; linear needs float32 [2,3] (out, in) for input [2,3] "
            "and output [2,2]");
  EXPECT_EQ(message(shape_of({2, 3}), shape_of({2, 2}), linear_store(1, w23, &b3)),
            "the bias has shape [3]; linear needs float32 [2] (out)");
  EXPECT_EQ(message(shape_of({2, 3}), shape_of({2, 2}), {}),
            "the weight is missing; linear needs one of shape [2,3]");
  EXPECT_EQ(message(shape_of({}), shape_of({}), linear_store(1, w23, nullptr)),
            "input 0 has shape []; linear needs rank at least 1");
  EXPECT_EQ(message(shape_of({2, 3}), shape_of({3, 2}), linear_store(1, w23, nullptr)),
            "the output has shape [3,2]; linear needs the leading axes of input 0 [2,3]");
  EXPECT_EQ(message(shape_of({2, 3}), shape_of({2}), linear_store(1, w23, nullptr)),
            "the output has shape [2]; linear needs the rank of input 0 [2,3]");
  EXPECT_EQ(message(shape_of({2, 3}), shape_of({2, 2}), linear_store(1, w23, nullptr)), "accepted");
}

TEST(reference_linear_vjp_tests, MatchesFiniteDifferences) {
  std::uint32_t seed = 400;
  for (const LinearCase& c : linear_cases()) {
    SCOPED_TRACE(ir::to_string(c.x));
    const Tensor w = random_tensor(shape_of({c.out, c.x.dims.back()}), seed++);
    const Tensor b = random_tensor(shape_of({c.out}), seed++);
    const ir::Node node = linear_node(linear_out(c));
    EXPECT_TRUE(check_vjp(linear_handler(), node, {random_tensor(c.x, seed++)},
                          linear_store(node.id, w, c.bias ? &b : nullptr)));
  }
}

TEST(reference_linear_vjp_tests, HandComputedGradients) {
  // x [2,2], W [1,2], b [1]: dx = g W, dW = g^T x, db = sum of g.
  const Tensor x = tensor({2, 2}, {1, 2, 3, 4});
  const Tensor w = tensor({1, 2}, {5, 6});
  const Tensor b = tensor({1}, {0});
  const ir::Node node = linear_node(shape_of({2, 1}));
  const ir::WeightStore store = linear_store(node.id, w, &b);
  const Tensor y = tensor({2, 1}, {17, 39});
  const Tensor g = tensor({2, 1}, {1, -2});
  const VjpGradients grads = run_vjp(linear_handler(), node, {x}, y, g, store);
  ASSERT_EQ(grads.weights.size(), 2U);
  EXPECT_EQ(grads.inputs[0].floats(), (std::vector<float>{5, 6, -10, -12}));
  EXPECT_EQ(grads.weights[0].floats(), (std::vector<float>{1 - 6, 2 - 8}));
  EXPECT_EQ(grads.weights[1].floats(), (std::vector<float>{-1}));
}

}  // namespace
}  // namespace nnplan::runtime::reference
