// The reference normalization kernels: batch_norm (batch_norm_eval with its payload statistics)
// and layer_norm (layernorm over the trailing axes, with and without gamma and beta): hand-computed
// cases, float64 oracles, the shape guards' messages, and finite-difference checks of the VJPs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace {

using namespace testing;

const HandlerDefinition& batch_norm() {
  return handler_for(normalization_handlers(), backend::BackendOp::batch_norm);
}
const HandlerDefinition& layer_norm() {
  return handler_for(normalization_handlers(), backend::BackendOp::layer_norm);
}

void put(ir::WeightStore& store, std::string name, const Tensor& t) {
  store.tensors[{.node_id = 1, .name = std::move(name)}] =
      ir::WeightTensor::adopt<float>(t.shape, t.floats());
}

// ---- batch_norm ----

ir::Node batch_norm_node(const ir::Shape& in, std::uint32_t axis) {
  return {.id = 1,
          .kind = ir::OpKind::batch_norm_eval,
          .parents = {0},
          .shape = in,
          .params = ir::ChannelAxisParams{.channel_axis = axis,
                                          .channels = static_cast<std::uint32_t>(in.dims[axis])}};
}

ir::WeightStore batch_norm_store(std::size_t channels, std::uint32_t seed, double eps) {
  const ir::Shape c = shape_of({channels});
  ir::WeightStore store;
  put(store, "scale", random_tensor(c, seed, 0.5F, 2.0F));
  put(store, "bias", random_tensor(c, seed + 1));
  put(store, "mean", random_tensor(c, seed + 2));
  put(store, "var", random_tensor(c, seed + 3, 0.5F, 1.5F));
  store.attributes[{.node_id = 1, .name = "epsilon"}] = eps;
  return store;
}

std::vector<double> values(const ir::WeightStore& store, const char* name) {
  const std::vector<float>& data =
      store.tensors.at({.node_id = 1, .name = name}).to_vector<float>();
  return {data.begin(), data.end()};
}

// y = (x - mean) / sqrt(var + eps) * scale + bias in float64, the channel found by decomposing
// each flat index.
std::vector<double> oracle_batch_norm(const Tensor& x, std::uint32_t axis,
                                      const ir::WeightStore& store) {
  const std::vector<double> scale = values(store, "scale");
  const std::vector<double> bias = values(store, "bias");
  const std::vector<double> mean = values(store, "mean");
  const std::vector<double> var = values(store, "var");
  const double eps = store.attributes.at({.node_id = 1, .name = "epsilon"});
  std::size_t inner = 1;
  for (std::size_t i = axis + 1; i < x.shape.rank(); ++i) inner *= x.shape.dims[i];
  std::vector<double> y(x.floats().size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    const std::size_t c = (i / inner) % x.shape.dims[axis];
    y[i] = (x.floats()[i] - mean[c]) / std::sqrt(var[c] + eps) * scale[c] + bias[c];
  }
  return y;
}

TEST(reference_batch_norm_forward_tests, HandComputed) {
  const Tensor x = tensor({2, 2}, {1, 2, 3, 4});
  ir::WeightStore store;
  put(store, "scale", tensor({2}, {2, 0.5F}));
  put(store, "bias", tensor({2}, {1, -1}));
  put(store, "mean", tensor({2}, {1, 2}));
  put(store, "var", tensor({2}, {3, 0}));
  store.attributes[{.node_id = 1, .name = "epsilon"}] = 1.0;
  auto y = run_forward(batch_norm(), batch_norm_node(x.shape, 1), {x}, store);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{1, -1, 3, 0}));
}

TEST(reference_batch_norm_forward_tests, MatchesFloat64Oracle) {
  const std::vector<std::pair<ir::Shape, std::uint32_t>> cases = {
      {shape_of({3, 4}), 1},       {shape_of({2, 3, 5}), 1}, {shape_of({2, 4, 3, 3}), 1},
      {shape_of({2, 3, 4}), 2},    {shape_of({5, 2}), 0},    {shape_of({1, 3, 2, 2, 2}), 1},
  };
  std::uint32_t seed = 10;
  for (const auto& [shape, axis] : cases) {
    const Tensor x = random_tensor(shape, seed);
    const ir::WeightStore store = batch_norm_store(shape.dims[axis], seed + 50, 1e-5);
    seed += 1;
    auto y = run_forward(batch_norm(), batch_norm_node(shape, axis), {x}, store);
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(near_all(y->floats(), oracle_batch_norm(x, axis, store), 1e-5, 1e-6))
        << ir::to_string(shape) << " axis " << axis;
  }
}

TEST(reference_batch_norm_forward_tests, SecondRunIsBitIdentical) {
  const Tensor x = random_tensor(shape_of({2, 4, 3, 3}), 3);
  const ir::WeightStore store = batch_norm_store(4, 4, 1e-3);
  const ir::Node node = batch_norm_node(x.shape, 1);
  EXPECT_TRUE(deterministic(batch_norm(), node, {x}, store));
}

TEST(reference_batch_norm_forward_tests, ShapeGuardMessages) {
  const Tensor x = random_tensor(shape_of({2, 3}), 1);
  const ir::WeightStore store = batch_norm_store(3, 2, 1e-5);
  ir::Node wrong_kind = batch_norm_node(x.shape, 1);
  wrong_kind.kind = ir::OpKind::layernorm;
  EXPECT_EQ(guard_message(batch_norm(), wrong_kind, {x}, store),
            "node kind layernorm is not batch_norm_eval");
  ir::Node channels = batch_norm_node(x.shape, 1);
  std::get<ir::ChannelAxisParams>(channels.params).channels = 4;
  EXPECT_EQ(guard_message(batch_norm(), channels, {x}, store),
            "input 0 has shape [2,3]; batch_norm needs 4 channels on axis 1");
  ir::Node axis = batch_norm_node(x.shape, 1);
  std::get<ir::ChannelAxisParams>(axis.params).channel_axis = 2;
  EXPECT_EQ(guard_message(batch_norm(), axis, {x}, store),
            "input 0 has shape [2,3]; batch_norm needs 3 channels on axis 2");
  ir::Node declared = batch_norm_node(x.shape, 1);
  declared.shape = shape_of({3, 2});
  EXPECT_EQ(guard_message(batch_norm(), declared, {x}, store),
            "input 0 has shape [2,3]; batch_norm keeps the shape, the node declares [3,2]");
  ir::WeightStore missing = store;
  missing.tensors.erase({.node_id = 1, .name = "mean"});
  EXPECT_EQ(guard_message(batch_norm(), batch_norm_node(x.shape, 1), {x}, missing),
            "batch_norm needs the weight mean of shape [3]");
  ir::WeightStore short_var = store;
  put(short_var, "var", tensor({2}, {1, 1}));
  EXPECT_EQ(guard_message(batch_norm(), batch_norm_node(x.shape, 1), {x}, short_var),
            "weight var has shape [2]; batch_norm needs float32 [3]");
  ir::WeightStore no_eps = store;
  no_eps.attributes.clear();
  EXPECT_EQ(guard_message(batch_norm(), batch_norm_node(x.shape, 1), {x}, no_eps),
            "batch_norm needs the attribute epsilon");
  EXPECT_EQ(guard_message(batch_norm(), batch_norm_node(x.shape, 1), {x, x}, store),
            "2 inputs given; batch_norm_eval takes 1");
}

TEST(reference_batch_norm_vjp_tests, MatchesFiniteDifferences) {
  const std::vector<ir::Shape> shapes = {shape_of({3, 4}), shape_of({2, 3, 5}),
                                         shape_of({2, 4, 3, 3})};
  std::uint32_t seed = 60;
  for (const ir::Shape& shape : shapes) {
    const ir::WeightStore store = batch_norm_store(shape.dims[1], seed + 10, 1e-3);
    EXPECT_TRUE(check_vjp(batch_norm(), batch_norm_node(shape, 1), {random_tensor(shape, seed)},
                          store))
        << ir::to_string(shape);
    ++seed;
  }
}

TEST(reference_batch_norm_vjp_tests, ChannelAxisTwo) {
  const ir::Shape shape = shape_of({2, 3, 4});
  EXPECT_TRUE(check_vjp(batch_norm(), batch_norm_node(shape, 2), {random_tensor(shape, 70)},
                        batch_norm_store(4, 71, 1e-2)));
}

// Weights as values: scale, bias, mean and var as inputs 1 to 4 (the epsilon still a payload
// attribute) give the payloads' bits, and the VJP adds their gradients into those inputs'.
TEST(reference_batch_norm_vjp_tests, StatisticsAsValues) {
  const ir::Shape shape = shape_of({2, 3, 4});
  const ir::WeightStore payloads = batch_norm_store(3, 80, 1e-3);
  ir::Node node = batch_norm_node(shape, 1);
  std::vector<Tensor> inputs = {random_tensor(shape, 81)};
  const ir::Node with_payloads = node;
  node.parents = {0, 2, 3, 4, 5};  // the id stays 1: the store's epsilon is keyed by it
  for (const char* name : {"scale", "bias", "mean", "var"}) {
    const ir::WeightTensor& t = payloads.tensors.at({.node_id = 1, .name = name});
    inputs.push_back(Tensor::of(t.shape(), t.to_vector<float>()));
  }
  ir::WeightStore epsilon_only;
  epsilon_only.attributes[{.node_id = 1, .name = "epsilon"}] = 1e-3;
  const auto want = run_forward(batch_norm(), with_payloads, {inputs[0]}, payloads);
  const auto got = run_forward(batch_norm(), node, inputs, epsilon_only);
  ASSERT_TRUE(want.has_value() && got.has_value()) << (got ? "" : got.error().message);
  EXPECT_TRUE(same_bits(*got, *want));
  EXPECT_TRUE(check_vjp(batch_norm(), node, inputs, epsilon_only));
}

// ---- layer_norm ----

ir::Node layer_norm_node(const ir::Shape& in, std::uint32_t axis) {
  return {.id = 1,
          .kind = ir::OpKind::layernorm,
          .parents = {0},
          .shape = in,
          .params = ir::AxisParams{.axis = axis}};
}

ir::Shape normalized_shape(const ir::Shape& in, std::uint32_t axis) {
  ir::Shape s;
  for (std::size_t i = axis; i < in.rank(); ++i) s.dims.push_back(in.dims[i]);
  return s;
}

struct LayerNormCase {
  ir::Shape shape;
  std::uint32_t axis = 0;
  bool gamma = false;
  bool beta = false;
  std::optional<double> eps;
};

ir::WeightStore layer_norm_store(const LayerNormCase& c, std::uint32_t seed) {
  ir::WeightStore store;
  const ir::Shape n = normalized_shape(c.shape, c.axis);
  if (c.gamma) put(store, "gamma", random_tensor(n, seed, 0.5F, 2.0F));
  if (c.beta) put(store, "beta", random_tensor(n, seed + 1));
  if (c.eps) store.attributes[{.node_id = 1, .name = "epsilon"}] = *c.eps;
  return store;
}

// Per slice in float64: the mean, the population variance, then (x - mean) / sqrt(var + eps)
// times gamma plus beta.
std::vector<double> oracle_layer_norm(const Tensor& x, const LayerNormCase& c,
                                      const ir::WeightStore& store) {
  std::size_t n = 1;
  for (std::size_t i = c.axis; i < x.shape.rank(); ++i) n *= x.shape.dims[i];
  const double eps = c.eps.value_or(1e-5);
  std::vector<double> y(x.floats().size());
  for (std::size_t o = 0; o * n < y.size(); ++o) {
    double mean = 0;
    for (std::size_t j = 0; j < n; ++j)
      mean += x.floats()[o * n + j];
    mean /= static_cast<double>(n);
    double var = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double d = x.floats()[o * n + j] - mean;
      var += d * d;
    }
    var /= static_cast<double>(n);
    for (std::size_t j = 0; j < n; ++j) {
      double v = (x.floats()[o * n + j] - mean) / std::sqrt(var + eps);
      if (c.gamma) v *= store.tensors.at({.node_id = 1, .name = "gamma"}).floats()[j];
      if (c.beta) v += store.tensors.at({.node_id = 1, .name = "beta"}).floats()[j];
      y[o * n + j] = v;
    }
  }
  return y;
}

const std::vector<LayerNormCase>& layer_norm_cases() {
  static const std::vector<LayerNormCase> cases = {
      {.shape = shape_of({2, 3, 4}), .axis = 1, .gamma = true, .beta = true},
      {.shape = shape_of({2, 3, 4}), .axis = 0, .gamma = true, .beta = true, .eps = 1e-3},
      {.shape = shape_of({4, 5}), .axis = 1},
      {.shape = shape_of({2, 2, 3, 2}), .axis = 2, .gamma = true, .eps = 1e-2},
      {.shape = shape_of({3, 2, 5}), .axis = 2, .beta = true},
      {.shape = shape_of({2, 2, 3, 2}), .axis = 1, .eps = 0.5},
  };
  return cases;
}

TEST(reference_layer_norm_forward_tests, HandComputed) {
  const Tensor x = tensor({2, 2}, {0, 2, 5, 1});
  ir::WeightStore store;
  store.attributes[{.node_id = 1, .name = "epsilon"}] = 0.0;
  auto plain = run_forward(layer_norm(), layer_norm_node(x.shape, 1), {x}, store);
  ASSERT_TRUE(plain.has_value()) << plain.error().message;
  EXPECT_EQ(plain->floats(), (std::vector<float>{-1, 1, 1, -1}));
  put(store, "gamma", tensor({2}, {2, 3}));
  put(store, "beta", tensor({2}, {1, 1}));
  auto affine = run_forward(layer_norm(), layer_norm_node(x.shape, 1), {x}, store);
  ASSERT_TRUE(affine.has_value()) << affine.error().message;
  EXPECT_EQ(affine->floats(), (std::vector<float>{-1, 4, 3, -2}));
}

TEST(reference_layer_norm_forward_tests, DefaultEpsilonIsOneEMinusFive) {
  // A constant slice has variance 0: y = 0 / sqrt(1e-5) + beta exactly.
  const Tensor x = tensor({1, 3}, {4, 4, 4});
  ir::WeightStore store;
  put(store, "beta", tensor({3}, {1, 2, 3}));
  auto y = run_forward(layer_norm(), layer_norm_node(x.shape, 1), {x}, store);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{1, 2, 3}));
  // With x = {0, 2}: var 1, so y = +-1 / sqrt(1 + 1e-5) in float32.
  const Tensor x2 = tensor({2}, {0, 2});
  auto y2 = run_forward(layer_norm(), layer_norm_node(x2.shape, 0), {x2});
  ASSERT_TRUE(y2.has_value()) << y2.error().message;
  const float d = std::sqrt(1.0F + static_cast<float>(1e-5));
  EXPECT_EQ(y2->floats(), (std::vector<float>{-1.0F / d, 1.0F / d}));
}

TEST(reference_layer_norm_forward_tests, MatchesFloat64Oracle) {
  std::uint32_t seed = 80;
  for (const LayerNormCase& c : layer_norm_cases()) {
    const Tensor x = random_tensor(c.shape, seed, -2.0F, 2.0F);
    const ir::WeightStore store = layer_norm_store(c, seed + 100);
    ++seed;
    auto y = run_forward(layer_norm(), layer_norm_node(c.shape, c.axis), {x}, store);
    ASSERT_TRUE(y.has_value()) << y.error().message;
    EXPECT_TRUE(near_all(y->floats(), oracle_layer_norm(x, c, store), 1e-5, 1e-6))
        << ir::to_string(c.shape) << " axis " << c.axis;
  }
}

TEST(reference_layer_norm_forward_tests, SecondRunIsBitIdentical) {
  const LayerNormCase& c = layer_norm_cases()[0];
  const Tensor x = random_tensor(c.shape, 9);
  const ir::WeightStore store = layer_norm_store(c, 10);
  const ir::Node node = layer_norm_node(c.shape, c.axis);
  EXPECT_TRUE(deterministic(layer_norm(), node, {x}, store));
}

TEST(reference_layer_norm_forward_tests, ShapeGuardMessages) {
  const Tensor x = random_tensor(shape_of({2, 3}), 1);
  ir::Node wrong_kind = layer_norm_node(x.shape, 1);
  wrong_kind.kind = ir::OpKind::softmax;
  EXPECT_EQ(guard_message(layer_norm(), wrong_kind, {x}, {}), "node kind softmax is not layernorm");
  EXPECT_EQ(guard_message(layer_norm(), layer_norm_node(x.shape, 2), {x}, {}),
            "input 0 has shape [2,3]; layer_norm over the axes from 2 on needs rank at least 3");
  ir::Node declared = layer_norm_node(x.shape, 1);
  declared.shape = shape_of({6});
  EXPECT_EQ(guard_message(layer_norm(), declared, {x}, {}),
            "input 0 has shape [2,3]; layer_norm keeps the shape, the node declares [6]");
  ir::WeightStore store;
  put(store, "gamma", tensor({2}, {1, 1}));
  EXPECT_EQ(guard_message(layer_norm(), layer_norm_node(x.shape, 1), {x}, store),
            "weight gamma has shape [2]; layer_norm needs float32 [3]");
  ir::WeightStore beta;
  put(beta, "beta", tensor({3}, {1, 1, 1}));
  EXPECT_EQ(guard_message(layer_norm(), layer_norm_node(x.shape, 0), {x}, beta),
            "weight beta has shape [3]; layer_norm needs float32 [2,3]");
  EXPECT_EQ(guard_message(layer_norm(), layer_norm_node(x.shape, 1), {x, x}, {}),
            "2 inputs given; layernorm takes 1");
}

TEST(reference_layer_norm_vjp_tests, MatchesFiniteDifferences) {
  std::uint32_t seed = 90;
  for (const LayerNormCase& c : layer_norm_cases()) {
    EXPECT_TRUE(check_vjp(layer_norm(), layer_norm_node(c.shape, c.axis),
                          {random_tensor(c.shape, seed)}, layer_norm_store(c, seed + 100)))
        << ir::to_string(c.shape) << " axis " << c.axis;
    ++seed;
  }
}

}  // namespace
}  // namespace nnplan::runtime::reference
