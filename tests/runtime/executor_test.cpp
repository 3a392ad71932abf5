// Executor (runtime/executor.hpp): the examples run on seeded inputs and agree with float64
// forwards written here (the MLP, and a small graph mixing element-wise ops, in-place takeovers
// and a detach); runs are bit-identical across runs and executors; bad inputs and refused guards
// stop the run with their full messages; the trace holds one event per command per run; four
// threads running one executor at once get what serial runs get.
#include "nnplan/runtime/executor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../ir/graph_fixtures.hpp"
#include "nnplan/runtime/handler_registry.hpp"
#include "runtime_test_support.hpp"

namespace nnplan::runtime {
namespace {

using ir::fixtures::GraphBuilder;
using ir::fixtures::shape;
using K = ir::OpKind;
using testing::checked_graph;
using testing::compiled;
using testing::example_path;
using testing::load;
using testing::planned_cpu;
using testing::seeded_tensor;

// Every value within 1e-5 (absolute, plus 1e-5 relative) of the float64 reference.
void expect_close(const Tensor& actual, const ir::Shape& expected_shape,
                  const std::vector<double>& expected) {
  ASSERT_EQ(actual.shape, expected_shape);
  ASSERT_EQ(actual.floats().size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual.floats()[i], expected[i], 1e-5 + 1e-5 * std::abs(expected[i]))
        << "element " << i;
  }
}

bool bit_identical(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k].shape != b[k].shape || a[k].floats().size() != b[k].floats().size()) return false;
    if (!a[k].floats().empty() && std::memcmp(a[k].floats().data(), b[k].floats().data(),
                                              a[k].floats().size() * sizeof(float)) != 0) {
      return false;
    }
  }
  return true;
}

// y = x W^T + b in float64, for x [rows, in], W [out, in], b [out].
std::vector<double> linear64(const std::vector<double>& x, std::size_t rows,
                             const ir::WeightTensor& w, const ir::WeightTensor& b) {
  const std::size_t out = w.shape().dims[0];
  const std::size_t in = w.shape().dims[1];
  std::vector<double> y(rows * out);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t o = 0; o < out; ++o) {
      double s = b.floats()[o];
      for (std::size_t i = 0; i < in; ++i)
        s += x[r * in + i] * double{w.floats()[o * in + i]};
      y[r * out + o] = s;
    }
  }
  return y;
}

TEST(Executor, MlpMatchesFloat64Forward) {
  auto loaded = load(example_path("mlp.json"));
  ASSERT_TRUE(loaded.has_value());
  auto buffer = compiled(planned_cpu(loaded->graph, loaded->payloads));
  ASSERT_TRUE(buffer.has_value());
  Executor exec(std::move(*buffer));
  const ir::WeightStore& p = *loaded->payloads;
  for (std::uint64_t seed : {1U, 2U, 3U}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Tensor image = seeded_tensor(shape({1, 784}), seed);
    auto outputs = exec.run(std::vector<NamedTensor>{{"image", image}});
    ASSERT_TRUE(outputs.has_value()) << render(outputs.error());
    ASSERT_EQ(outputs->size(), 1U);

    std::vector<double> x(image.floats().begin(), image.floats().end());
    std::vector<double> h = linear64(x, 1, *p.find_tensor(1, "weight"), *p.find_tensor(1, "bias"));
    for (double& v : h) v = std::max(v, 0.0);
    std::vector<double> z = linear64(h, 1, *p.find_tensor(3, "weight"), *p.find_tensor(3, "bias"));
    const double m = *std::ranges::max_element(z);
    double sum = 0.0;
    for (double& v : z) {
      v = std::exp(v - m);
      sum += v;
    }
    for (double& v : z) v /= sum;
    expect_close((*outputs)[0], shape({1, 10}), z);
  }
}

// x, y [3,4] -> t = tanh x; m = t * y (in place over t); s = sigmoid m (m is read again: not in
// place); d = m - detach(s) (in place over m); a = d + s (in place over d); relu a. Outputs:
// relu a, and detach(s) (copied from the arena after the last command).
std::shared_ptr<const ir::CheckedGraph> mixed_graph() {
  GraphBuilder b;
  const ir::NodeId x = b.add(K::input, {}, shape({3, 4}), {}, "x");
  const ir::NodeId y = b.add(K::input, {}, shape({3, 4}), {}, "y");
  const ir::NodeId t = b.add(K::tanh, {x}, shape({3, 4}));
  const ir::NodeId m = b.add(K::mul_elem, {t, y}, shape({3, 4}));
  const ir::NodeId s = b.add(K::sigmoid, {m}, shape({3, 4}));
  const ir::NodeId ds = b.add(K::detach, {s}, shape({3, 4}));
  const ir::NodeId d = b.add(K::sub, {m, ds}, shape({3, 4}));
  const ir::NodeId a = b.add(K::add, {d, s}, shape({3, 4}));
  const ir::NodeId r = b.add(K::relu, {a}, shape({3, 4}));
  b.graph().output_ids = {r, ds};
  return checked_graph(std::move(b).build());
}

TEST(Executor, MixedGraphMatchesFloat64ForwardWithInPlaceValues) {
  auto buffer = compiled(planned_cpu(mixed_graph()), {.output_names = {"r", "s"}});
  ASSERT_TRUE(buffer.has_value());
  // tanh, mul, sigmoid, sub, add in the arena; mul, sub and add take their first input over.
  EXPECT_EQ(buffer->memory().in_place_count, 3U);
  EXPECT_EQ(buffer->memory().offsets, (std::vector<std::size_t>{0, 0, 64, 0, 0}));
  EXPECT_EQ(buffer->peak_arena_bytes(), 128U);
  EXPECT_EQ(buffer->no_reuse_bytes(), 320U);
  Executor exec(std::move(*buffer));
  for (std::uint64_t seed : {11U, 12U}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Tensor x = seeded_tensor(shape({3, 4}), seed, -2.0F, 2.0F);
    const Tensor y = seeded_tensor(shape({3, 4}), seed + 100, -2.0F, 2.0F);
    auto outputs = exec.run(std::vector<NamedTensor>{{"y", y}, {"x", x}});
    ASSERT_TRUE(outputs.has_value()) << render(outputs.error());
    ASSERT_EQ(outputs->size(), 2U);
    std::vector<double> r(12);
    std::vector<double> s(12);
    for (std::size_t i = 0; i < 12; ++i) {
      const double m = std::tanh(double{x.floats()[i]}) * double{y.floats()[i]};
      s[i] = 1.0 / (1.0 + std::exp(-m));
      r[i] = std::max(m - s[i] + s[i], 0.0);
    }
    expect_close((*outputs)[0], shape({3, 4}), r);
    expect_close((*outputs)[1], shape({3, 4}), s);
  }
}

TEST(Executor, Int64AndBoolValuesTravelByTheirOwnDtype) {
  // Graph inputs of each dtype, each also a graph output (copied after the last command), beside
  // a float32 relu; an int64 const as an output too.
  GraphBuilder b;
  const ir::NodeId x = b.add(K::input, {}, shape({2}), {}, "x");
  const ir::NodeId ids = b.add(K::input, {}, shape({3}), {}, "ids");
  const ir::NodeId mask = b.add(K::input, {}, shape({2, 2}), {}, "mask");
  const ir::NodeId r = b.add(K::relu, {x}, shape({2}));
  const ir::NodeId c = b.add(K::const_, {}, shape({2}), ir::ConstParams{shape({2})});
  b.graph().nodes[ids].dtype = DType::int64;
  b.graph().nodes[mask].dtype = DType::boolean;
  b.graph().nodes[c].dtype = DType::int64;
  b.graph().output_ids = {r, ids, mask, c};
  auto weights = std::make_shared<ir::WeightStore>();
  weights->tensors[{c, "value"}] =
      ir::WeightTensor::of_ints(shape({2}), std::vector<std::int64_t>{-7, 1LL << 45});
  auto buffer = compiled(planned_cpu(checked_graph(std::move(b).build()), weights));
  ASSERT_TRUE(buffer.has_value());
  ASSERT_EQ(buffer->inputs().size(), 3U);
  EXPECT_EQ(buffer->inputs()[1].dtype, DType::int64);
  EXPECT_EQ(buffer->inputs()[2].dtype, DType::boolean);
  EXPECT_EQ(buffer->outputs()[3].dtype, DType::int64);
  Executor exec(std::move(*buffer));
  const Tensor ids_in = Tensor::of(shape({3}), std::vector<std::int64_t>{5, -1, 1LL << 40});
  const Tensor mask_in = Tensor::of(shape({2, 2}), std::vector<std::uint8_t>{1, 0, 0, 1});
  auto outputs =
      exec.run(std::vector<NamedTensor>{{"x", Tensor::of(shape({2}), std::vector<float>{-1, 2})},
                                        {"ids", ids_in},
                                        {"mask", mask_in}});
  ASSERT_TRUE(outputs.has_value()) << render(outputs.error());
  ASSERT_EQ(outputs->size(), 4U);
  EXPECT_EQ((*outputs)[0].floats(), (std::vector<float>{0, 2}));
  EXPECT_EQ((*outputs)[1], ids_in);
  EXPECT_EQ((*outputs)[2], mask_in);
  EXPECT_EQ((*outputs)[3].ints(), (std::vector<std::int64_t>{-7, 1LL << 45}));
  // Each input keeps its dtype: floats where int64 is expected are refused, and the reverse.
  auto swapped = exec.run(
      std::vector<NamedTensor>{{"x", Tensor::of(shape({2}), std::vector<std::int64_t>{1, 2})},
                               {"ids", Tensor::of(shape({3}), std::vector<float>{1, 2, 3})},
                               {"mask", mask_in}});
  ASSERT_FALSE(swapped.has_value());
  EXPECT_EQ(swapped.error().message, "input 'x' has dtype int64; the model expects float32");
  auto floats_for_ids = exec.run(
      std::vector<NamedTensor>{{"x", Tensor::of(shape({2}), std::vector<float>{1, 2})},
                               {"ids", Tensor::of(shape({3}), std::vector<float>{1, 2, 3})},
                               {"mask", mask_in}});
  ASSERT_FALSE(floats_for_ids.has_value());
  EXPECT_EQ(floats_for_ids.error().message,
            "input 'ids' has dtype float32; the model expects int64");
}

TEST(Executor, DetachedOutputOutlivesALaterInPlaceCandidate) {
  // relu x is an output through a detach, so it is copied after the last command: tanh, its last
  // reader among the commands, may not overwrite it in place.
  GraphBuilder b;
  const ir::NodeId x = b.add(K::input, {}, shape({2, 8}), {}, "x");
  const ir::NodeId r = b.add(K::relu, {x}, shape({2, 8}));
  const ir::NodeId d = b.add(K::detach, {r}, shape({2, 8}));
  const ir::NodeId t = b.add(K::tanh, {r}, shape({2, 8}));
  b.add(K::sigmoid, {t}, shape({2, 8}));
  b.graph().output_ids = {4, d};
  auto buffer = compiled(planned_cpu(checked_graph(std::move(b).build())));
  ASSERT_TRUE(buffer.has_value());
  EXPECT_EQ(buffer->memory().in_place_count, 0U);
  EXPECT_EQ(buffer->memory().offsets, (std::vector<std::size_t>{0, 64}));
  Executor exec(std::move(*buffer));
  const Tensor input = seeded_tensor(shape({2, 8}), 21);
  auto outputs = exec.run(std::vector<NamedTensor>{{"x", input}});
  ASSERT_TRUE(outputs.has_value()) << render(outputs.error());
  std::vector<double> relu(16);
  std::vector<double> out(16);
  for (std::size_t i = 0; i < 16; ++i) {
    relu[i] = std::max(double{input.floats()[i]}, 0.0);
    out[i] = 1.0 / (1.0 + std::exp(-std::tanh(relu[i])));
  }
  expect_close((*outputs)[0], shape({2, 8}), out);
  expect_close((*outputs)[1], shape({2, 8}), relu);
}

struct ExampleRun {
  std::string file;
  std::string input;
  ir::Shape output_shape;
};

TEST(Executor, ExamplesRunBitIdenticallyAcrossRunsAndExecutors) {
  const std::vector<ExampleRun> cases = {
      {"mlp.json", "image", shape({1, 10})},
      {"cnn.json", "image", shape({10})},
      {"transformer_block.json", "tokens", shape({16, 64})},
  };
  for (const ExampleRun& c : cases) {
    SCOPED_TRACE(c.file);
    auto loaded = load(example_path(c.file));
    ASSERT_TRUE(loaded.has_value());
    const auto model = planned_cpu(loaded->graph, loaded->payloads);
    auto first = compiled(model);
    auto second = compiled(model);
    ASSERT_TRUE(first.has_value() && second.has_value());
    ASSERT_EQ(first->inputs().size(), 1U);
    EXPECT_EQ(first->inputs()[0].name, c.input);
    const Tensor input = seeded_tensor(*first->inputs()[0].shape, 42);
    const std::vector<NamedTensor> inputs = {{c.input, input}};

    Executor a(std::move(*first));
    Executor b(std::move(*second));
    auto a1 = a.run(inputs);
    auto a2 = a.run(inputs);
    auto b1 = b.run(inputs);
    ASSERT_TRUE(a1.has_value()) << render(a1.error());
    ASSERT_TRUE(a2.has_value() && b1.has_value());
    ASSERT_EQ(a1->size(), 1U);
    EXPECT_EQ((*a1)[0].shape, c.output_shape);
    for (float v : (*a1)[0].floats())
      EXPECT_TRUE(std::isfinite(v));
    EXPECT_TRUE(bit_identical(*a1, *a2));
    EXPECT_TRUE(bit_identical(*a1, *b1));
    // A different input gives a different output.
    auto other = a.run(std::vector<NamedTensor>{{c.input, seeded_tensor(input.shape, 43)}});
    ASSERT_TRUE(other.has_value());
    EXPECT_FALSE(bit_identical(*a1, *other));
    if (c.file != "transformer_block.json") {
      double sum = 0.0;
      for (float v : (*a1)[0].floats())
        sum += v;
      EXPECT_NEAR(sum, 1.0, 1e-5) << "softmax output";
    }
  }
}

// Four threads run one executor 100 times each, each on its own input, while the main thread
// checks nothing until they end: every output is bit-identical to the serial run of that input
// (each run takes an arena of its own).
TEST(Executor, ConcurrentRunsGiveTheSerialOutputs) {
  for (const char* file : {"cnn.json", "transformer_block.json"}) {
    SCOPED_TRACE(file);
    auto loaded = load(example_path(file));
    ASSERT_TRUE(loaded.has_value());
    auto buffer = compiled(planned_cpu(loaded->graph, loaded->payloads));
    ASSERT_TRUE(buffer.has_value());
    Executor exec(std::move(*buffer));
    EXPECT_EQ(testing::concurrent_mismatches(exec, 50), std::vector<int>(4, 0));
  }
}

struct BadInputCase {
  std::string name;
  std::vector<NamedTensor> inputs;
  std::string message;
};

TEST(Executor, BadInputsStopTheRunWithTheirMessages) {
  auto loaded = load(example_path("mlp.json"));
  ASSERT_TRUE(loaded.has_value());
  auto buffer = compiled(planned_cpu(loaded->graph, loaded->payloads));
  ASSERT_TRUE(buffer.has_value());
  Executor exec(std::move(*buffer));
  const Tensor good = seeded_tensor(shape({1, 784}), 5);
  Tensor short_values = good;
  short_values.floats().resize(10);
  const std::vector<BadInputCase> cases = {
      {"unknown_name",
       {{"pixels", good}},
       "input 'pixels' is not an input of the model; its inputs: 'image' [1,784]"},
      {"missing", {}, "input 'image' [1,784] is not given; the model's inputs: 'image' [1,784]"},
      {"given_twice", {{"image", good}, {"image", good}}, "input 'image' is given twice"},
      {"wrong_shape",
       {{"image", seeded_tensor(shape({784}), 5)}},
       "input 'image' has shape [784]; the model expects [1,784]"},
      {"wrong_value_count",
       {{"image", short_values}},
       "input 'image' holds 10 values; its shape [1,784] needs 784"},
      {"int64_elements",
       {{"image", Tensor::of(shape({1, 784}), std::vector<std::int64_t>(784, 1))}},
       "input 'image' has dtype int64; the model expects float32"},
      {"bool_elements",
       {{"image", zeros(shape({1, 784}), DType::boolean)}},
       "input 'image' has dtype bool; the model expects float32"},
  };
  for (const BadInputCase& c : cases) {
    SCOPED_TRACE(c.name);
    ExecutionTrace trace;
    auto outputs = exec.run(c.inputs, &trace);
    ASSERT_FALSE(outputs.has_value());
    EXPECT_EQ(outputs.error().kind, ErrorKind::bad_input);
    EXPECT_EQ(outputs.error().message, c.message);
    EXPECT_TRUE(trace.events.empty()) << "nothing runs";
  }
  // The executor still runs, and bad inputs did not count as runs.
  ExecutionTrace trace;
  ASSERT_TRUE(exec.run(std::vector<NamedTensor>{{"image", good}}, &trace).has_value());
  ASSERT_FALSE(trace.events.empty());
  EXPECT_EQ(trace.events[0].run, 0U);
}

Expected<void> refusing_guard(const KernelCall& call) {
  return std::unexpected(make_error(ErrorKind::invalid_input,
                                    "input 0 has shape " + ir::to_string(*call.inputs[0].shape) +
                                        "; this test's guard refuses every launch"));
}

TEST(Executor, RefusedGuardStopsTheRun) {
  // The built-in handlers, with relu's shape guard refusing.
  HandlerRegistry handlers;
  for (const auto& [identity, definition] : builtin_handlers().handlers()) {
    HandlerDefinition d = definition;
    if (identity.name == "reference.relu") d.shape_guard = refusing_guard;
    ASSERT_TRUE(handlers.add(identity, d).has_value());
  }
  GraphBuilder b;
  const ir::NodeId x = b.input(shape({4, 4}));
  const ir::NodeId t = b.add(K::tanh, {x}, shape({4, 4}));
  const ir::NodeId r = b.add(K::relu, {t}, shape({4, 4}), {}, "act");
  b.add(K::sigmoid, {r}, shape({4, 4}));
  auto buffer = compile(planned_cpu(checked_graph(std::move(b).build())), handlers);
  ASSERT_TRUE(buffer.has_value()) << render(buffer.error());
  Executor exec(std::move(*buffer));
  ExecutionTrace trace;
  auto outputs =
      exec.run(std::vector<NamedTensor>{{"input", seeded_tensor(shape({4, 4}), 9)}}, &trace);
  ASSERT_FALSE(outputs.has_value());
  EXPECT_EQ(outputs.error().kind, ErrorKind::guard_failed);
  EXPECT_EQ(outputs.error().message,
            "node 2 (relu 'act'): capsule 'reference.relu': guard 'reference.relu.shape_guard' "
            "refused the launch: input 0 has shape [4,4]; this test's guard refuses every launch");
  // tanh ran; relu and sigmoid did not.
  ASSERT_EQ(trace.events.size(), 1U);
  EXPECT_EQ(trace.events[0].command, 0U);
}

TEST(Executor, TraceHoldsOneEventPerCommandPerRun) {
  auto loaded = load(example_path("transformer_block.json"));
  ASSERT_TRUE(loaded.has_value());
  auto buffer = compiled(planned_cpu(loaded->graph, loaded->payloads));
  ASSERT_TRUE(buffer.has_value());
  const std::size_t n = buffer->commands().size();
  ASSERT_EQ(n, 17U);
  Executor exec(std::move(*buffer));
  const std::vector<NamedTensor> inputs = {{"tokens", seeded_tensor(shape({16, 64}), 3)}};
  ExecutionTrace trace;
  ASSERT_TRUE(exec.run(inputs, &trace).has_value());
  ASSERT_TRUE(exec.run(inputs).has_value());  // an untraced run still counts
  ASSERT_TRUE(exec.run(inputs, &trace).has_value());
  ASSERT_EQ(trace.events.size(), 2 * n);
  for (std::size_t k = 0; k < trace.events.size(); ++k) {
    SCOPED_TRACE("event " + std::to_string(k));
    const CommandTiming& e = trace.events[k];
    EXPECT_EQ(e.command, k % n);
    EXPECT_EQ(e.run, k < n ? 0U : 2U);
    EXPECT_GE(e.start_ns, 0);
    EXPECT_GE(e.duration_ns, 0);
    if (k > 0) {
      const CommandTiming& before = trace.events[k - 1];
      EXPECT_GE(e.start_ns, before.start_ns);
      EXPECT_GE(e.start_ns, before.start_ns + before.duration_ns) << "commands do not overlap";
    }
  }
}

}  // namespace
}  // namespace nnplan::runtime
