// Test support for the reference provider's kernels: one call of a handler on owned tensors
// (guards first, as the command buffer runs them), the guard's message, one VJP call and its
// gradients, bitwise and rerun comparisons, seeded random tensors, a float64 comparison helper,
// and the finite-difference check every `reference.<op>.vjp_tests` suite uses. Each family's
// test file builds its nodes by hand and compares against hand-computed values and a float64
// oracle written in the test.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nnplan/format/payload_file.hpp"
#include "nnplan/ir/graph.hpp"
#include "nnplan/runtime/kernel.hpp"
#include "nnplan/runtime/tensor.hpp"
#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference::testing {

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();

// The handler for `op` in `table`; fails the test when there is none.
inline const HandlerDefinition& handler_for(std::span<const ReferenceHandler> table,
                                            backend::BackendOp op) {
  for (const ReferenceHandler& row : table) {
    if (row.op == op) return row.handler;
  }
  ADD_FAILURE() << "no reference handler for " << backend::to_string(op);
  static const HandlerDefinition none{};
  return none;
}

// The reference handler for `op`, from whichever family table holds it; fails the test when none
// does.
inline const HandlerDefinition& handler(backend::BackendOp op) {
  for (std::span<const ReferenceHandler> table : handler_tables()) {
    for (const ReferenceHandler& row : table) {
      if (row.op == op) return row.handler;
    }
  }
  ADD_FAILURE() << "no reference handler for " << backend::to_string(op);
  static const HandlerDefinition none{};
  return none;
}

// Every row of an element-wise table: its symbol names its op's `<op>_forward` kernel, it runs
// in place, it has a VJP, and both its suites live in `source`; the table has `rows` rows.
inline void expect_in_place_rows(std::span<const ReferenceHandler> table, std::string_view source,
                                 std::size_t rows) {
  for (const ReferenceHandler& row : table) {
    SCOPED_TRACE(std::string(backend::to_string(row.op)));
    EXPECT_EQ(row.handler.symbol, "nnplan::runtime::reference::" +
                                      std::string(backend::to_string(row.op)) + "_forward");
    EXPECT_TRUE(row.handler.in_place_safe);
    EXPECT_NE(row.handler.vjp, nullptr);
    EXPECT_EQ(row.handler.forward_tests.source, source);
    EXPECT_EQ(row.handler.vjp_tests.source, source);
  }
  EXPECT_EQ(table.size(), rows);
}

inline ir::Shape shape_of(std::initializer_list<ir::Dim> dims) {
  ir::Shape s;
  for (ir::Dim d : dims) s.dims.push_back(d);
  return s;
}

inline Tensor tensor(std::initializer_list<ir::Dim> dims, std::vector<float> values) {
  Tensor t = Tensor::of(shape_of(dims), std::move(values));
  EXPECT_EQ(t.floats().size(), element_count_of(t.shape)) << "test tensor size";
  return t;
}

// Values uniform in [lo, hi), from a fixed seed.
inline Tensor random_tensor(const ir::Shape& shape, std::uint32_t seed, float lo = -1.0F,
                            float hi = 1.0F) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Tensor t = zeros(shape);
  for (float& v : t.floats())
    v = dist(gen);
  return t;
}

// A node's payloads in slot order, as the command buffer resolves them.
struct BoundWeights {
  std::vector<WeightRef> refs;
  NodeWeights view(const ir::WeightStore& store, ir::NodeId id) const {
    return {.tensors = refs, .store = &store, .node_id = id};
  }
};
inline BoundWeights bind_weights(const ir::Node& node, const ir::WeightStore& store) {
  BoundWeights b;
  for (const format::PayloadSlot& slot : format::payload_slots(node.kind)) {
    if (slot.attribute) continue;
    b.refs.push_back({.name = slot.name, .tensor = store.find_tensor(node.id, slot.name)});
  }
  return b;
}

// Runs the handler's shape guard, layout guard and forward kernel on `inputs`, into a fresh
// output of the node's declared shape. The guard's error comes back unchanged.
inline Expected<Tensor> run_forward(const HandlerDefinition& h, const ir::Node& node,
                                    const std::vector<Tensor>& inputs,
                                    const ir::WeightStore& store = {}) {
  std::vector<TensorRef> refs;
  for (const Tensor& t : inputs) refs.push_back(view(t));
  Tensor out = zeros(node.shape, node.dtype);
  const BoundWeights bound = bind_weights(node, store);
  const KernelCall call{.node = node,
                        .inputs = refs,
                        .weights = bound.view(store, node.id),
                        .output = mutable_view(out)};
  if (h.shape_guard == nullptr || h.layout_guard == nullptr || h.forward == nullptr) {
    return std::unexpected(make_error(ErrorKind::internal, "handler lacks a guard or kernel"));
  }
  if (auto ok = h.shape_guard(call); !ok) return std::unexpected(ok.error());
  if (auto ok = h.layout_guard(call); !ok) return std::unexpected(ok.error());
  h.forward(call);
  return out;
}

// The two float32 sequences are the same bits (NaN payloads included).
inline bool same_bits(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}
inline bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape == b.shape && same_bits(a.floats(), b.floats());
}

// The message of the guard that refuses `inputs`, or "accepted" when the guards pass and the
// forward kernel runs.
inline std::string guard_message(const HandlerDefinition& h, const ir::Node& node,
                                 const std::vector<Tensor>& inputs,
                                 const ir::WeightStore& store = {}) {
  auto y = run_forward(h, node, inputs, store);
  return y.has_value() ? std::string("accepted") : y.error().message;
}

// Runs the forward pass again and compares its output with `first` bit for bit.
inline ::testing::AssertionResult same_on_rerun(const HandlerDefinition& h, const ir::Node& node,
                                                const std::vector<Tensor>& inputs,
                                                const Tensor& first,
                                                const ir::WeightStore& store = {}) {
  auto again = run_forward(h, node, inputs, store);
  if (!again) return ::testing::AssertionFailure() << "rerun failed: " << again.error().message;
  if (!same_bits(first, *again)) {
    return ::testing::AssertionFailure() << "the rerun's output differs from the first run's";
  }
  return ::testing::AssertionSuccess();
}

// Runs the forward kernel with its output in input 0's buffer (the layout guard of an
// in-place-safe handler must accept that) and compares the result with `want` bit for bit.
inline ::testing::AssertionResult same_in_place(const HandlerDefinition& h, const ir::Node& node,
                                                const std::vector<Tensor>& inputs,
                                                const Tensor& want) {
  Tensor buffer = inputs.at(0);
  std::vector<TensorRef> refs{view(buffer)};
  for (std::size_t i = 1; i < inputs.size(); ++i)
    refs.push_back(view(inputs[i]));
  const KernelCall call{
      .node = node, .inputs = refs, .weights = {}, .output = mutable_view(buffer)};
  if (auto ok = h.layout_guard(call); !ok) {
    return ::testing::AssertionFailure() << "the layout guard refuses: " << ok.error().message;
  }
  h.forward(call);
  if (!same_bits(buffer, want)) {
    return ::testing::AssertionFailure() << "the in-place output differs from the out-of-place one";
  }
  return ::testing::AssertionSuccess();
}

// Two forward runs give bit-identical outputs.
inline ::testing::AssertionResult deterministic(const HandlerDefinition& h, const ir::Node& node,
                                                const std::vector<Tensor>& inputs,
                                                const ir::WeightStore& store = {}) {
  auto first = run_forward(h, node, inputs, store);
  if (!first) return ::testing::AssertionFailure() << "run failed: " << first.error().message;
  return same_on_rerun(h, node, inputs, *first, store);
}

// The gradients one VJP call writes: one per input, one per payload slot (empty, and not
// wanted, unless the payload is float32).
struct VjpGradients {
  std::vector<Tensor> inputs;
  std::vector<Tensor> weights;
};

// Runs the handler's VJP once for output `y` and cotangent `g`: the input gradients start at
// `start` (the VJP adds onto them), each float32 payload's gradient at 0.
inline VjpGradients run_vjp(const HandlerDefinition& h, const ir::Node& node,
                            const std::vector<Tensor>& inputs, const Tensor& y, const Tensor& g,
                            const ir::WeightStore& store = {}, float start = 0.0F) {
  VjpGradients grads;
  std::vector<TensorRef> refs;
  for (const Tensor& t : inputs)
    refs.push_back(view(t));
  for (const Tensor& t : inputs) {
    grads.inputs.push_back(zeros(t.shape));
    std::fill(grads.inputs.back().floats().begin(), grads.inputs.back().floats().end(), start);
  }
  std::vector<MutableTensorRef> input_grad_refs;
  for (Tensor& t : grads.inputs)
    input_grad_refs.push_back(mutable_view(t));
  const BoundWeights bound = bind_weights(node, store);
  std::vector<MutableTensorRef> weight_grad_refs;
  grads.weights.reserve(bound.refs.size());
  for (const WeightRef& w : bound.refs) {
    const bool wanted = w.tensor != nullptr && w.tensor->dtype() == ir::DType::float32;
    grads.weights.push_back(wanted ? zeros(w.tensor->shape()) : Tensor{});
    weight_grad_refs.push_back(wanted ? mutable_view(grads.weights.back())
                                      : MutableTensorRef{nullptr, &grads.weights.back().shape});
  }
  h.vjp({.node = node,
         .inputs = refs,
         .weights = bound.view(store, node.id),
         .output = view(y),
         .output_grad = view(g),
         .input_grads = input_grad_refs,
         .weight_grads = weight_grad_refs});
  return grads;
}

// The VJP's input gradients for cotangent `g`, the output from the forward pass, each added onto
// gradients that start at `start` (0, as the tape gives them, unless told).
inline std::vector<std::vector<float>> input_grads(const HandlerDefinition& h, const ir::Node& node,
                                                   const std::vector<Tensor>& inputs,
                                                   const Tensor& g,
                                                   const ir::WeightStore& store = {},
                                                   float start = 0.0F) {
  auto y = run_forward(h, node, inputs, store);
  EXPECT_TRUE(y.has_value()) << y.error().message;
  if (!y) return {};
  std::vector<std::vector<float>> out;
  for (Tensor& t : run_vjp(h, node, inputs, *y, g, store, start).inputs)
    out.push_back(std::move(t.floats()));
  return out;
}
inline std::vector<float> input_grad(const HandlerDefinition& h, const ir::Node& node,
                                     const Tensor& x, const Tensor& g, float start = 0.0F) {
  std::vector<std::vector<float>> grads = input_grads(h, node, {x}, g, {}, start);
  return grads.empty() ? std::vector<float>{} : std::move(grads[0]);
}

// Element-wise comparison: |got - want| <= atol + rtol * |want| for every element, NaN only
// where NaN is wanted.
inline ::testing::AssertionResult near_all(std::span<const float> got,
                                           std::span<const double> want, double rtol,
                                           double atol) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << "size " << got.size() << " != " << want.size();
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = got[i];
    const double w = want[i];
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) && g == w) continue;
    if (!(std::abs(g - w) <= atol + rtol * std::abs(w))) {
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << g << ", want " << w << " (rtol " << rtol
             << ", atol " << atol << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

struct VjpCheckOptions {
  double step = 1e-3;   // central-difference step, relative to max(1, |x|)
  double rtol = 2e-2;
  double atol = 2e-3;
  std::size_t max_probes = 48;  // elements probed per tensor (spread evenly)
  std::uint32_t seed = 7;       // for the output cotangent
};

// Checks the handler's VJP against central finite differences of L = <g, f(x)> in float64, for
// every float32 input and weight (int64 and bool inputs are left as they are), g a seeded random
// cotangent. Inputs must avoid the kernel's
// kinks (ties of max, relu at 0).
inline ::testing::AssertionResult check_vjp(const HandlerDefinition& h, const ir::Node& node,
                                            std::vector<Tensor> inputs, ir::WeightStore store = {},
                                            VjpCheckOptions opt = {}) {
  if (h.vjp == nullptr) return ::testing::AssertionFailure() << "handler has no VJP";
  auto y = run_forward(h, node, inputs, store);
  if (!y) return ::testing::AssertionFailure() << "forward failed: " << y.error().message;
  const Tensor g = random_tensor(node.shape, opt.seed);
  const auto loss = [&](const std::vector<Tensor>& xs, const ir::WeightStore& s) {
    auto out = run_forward(h, node, xs, s);
    double acc = 0;
    for (std::size_t i = 0; i < out->floats().size(); ++i) {
      acc += static_cast<double>(out->floats()[i]) * g.floats()[i];
    }
    return acc;
  };

  const VjpGradients grads = run_vjp(h, node, inputs, *y, g, store);

  const auto probe = [&](std::vector<float>& values, const std::vector<float>& analytic,
                         const std::string& what,
                         const auto& eval) -> ::testing::AssertionResult {
    const std::size_t n = values.size();
    const std::size_t stride = std::max<std::size_t>(1, n / opt.max_probes);
    for (std::size_t i = 0; i < n; i += stride) {
      const float x0 = values[i];
      const double hstep = opt.step * std::max(1.0, std::abs(static_cast<double>(x0)));
      values[i] = static_cast<float>(x0 + hstep);
      const double up = eval();
      values[i] = static_cast<float>(x0 - hstep);
      const double down = eval();
      values[i] = x0;
      const double actual_step =
          static_cast<double>(static_cast<float>(x0 + hstep)) - static_cast<float>(x0 - hstep);
      const double fd = (up - down) / actual_step;
      const double an = analytic[i];
      if (!(std::abs(fd - an) <= opt.atol + opt.rtol * std::max(std::abs(fd), std::abs(an)))) {
        return ::testing::AssertionFailure() << what << " element " << i << ": VJP gives " << an
                                             << ", finite differences " << fd;
      }
    }
    return ::testing::AssertionSuccess();
  };
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].dtype() != ir::DType::float32) continue;  // int64 and bool carry no gradient
    auto r = probe(inputs[k].floats(), grads.inputs[k].floats(), "input " + std::to_string(k),
                   [&] { return loss(inputs, store); });
    if (!r) return r;
  }
  const BoundWeights bound = bind_weights(node, store);
  for (std::size_t k = 0; k < bound.refs.size(); ++k) {
    if (grads.weights[k].floats().empty()) continue;
    const ir::WeightKey key{node.id, std::string(bound.refs[k].name)};
    const ir::Shape shape = store.tensors.at(key).shape();
    std::vector<float> values = store.tensors.at(key).to_vector<float>();
    auto r = probe(values, grads.weights[k].floats(), "weight " + key.name, [&] {
      store.tensors[key] = ir::WeightTensor::of_floats(shape, values);
      return loss(inputs, store);
    });
    store.tensors[key] = ir::WeightTensor::of_floats(shape, values);
    if (!r) return r;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace nnplan::runtime::reference::testing
