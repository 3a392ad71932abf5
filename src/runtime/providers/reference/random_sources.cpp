// Reference kernels: the random sources rand_uniform and bernoulli_mask. Both are counter-based:
// element i of the output is a function of the node's seed and i alone,
//   u_i = (splitmix64(seed + (i + 1) * 0x9E3779B97F4A7C15) >> 40) * 2^-24,
// a float32 in [0, 1) with 24 random bits (exact: the integer is below 2^24), with all integer
// arithmetic modulo 2^64. Forward only: the capsules offer no VJP (a tape treats the draws as
// constants), and the output never depends on the buffer's previous contents.
#include <cstdint>
#include <string>
#include <variant>

#include "runtime/providers/reference/elementwise_support.hpp"
#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {
namespace {

// The splitmix64 output finalizer.
std::uint64_t splitmix64(std::uint64_t z) {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ULL;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return z;
}

float uniform_at(std::uint64_t seed, std::size_t i) {
  const std::uint64_t counter = static_cast<std::uint64_t>(i) + 1;
  const std::uint64_t bits = splitmix64(seed + counter * 0x9E3779B97F4A7C15ULL) >> 40;
  return static_cast<float>(bits) * 0x1p-24F;
}

// No inputs; the output has the declared shape.
Expected<void> rand_uniform_guard(const KernelCall& call) {
  if (auto ok = check_kind(call, ir::OpKind::rand_uniform); !ok) return ok;
  return check_arity_and_output(call, 0);
}

// One scalar input, the keep probability; the output has the declared shape.
Expected<void> bernoulli_mask_guard(const KernelCall& call) {
  if (auto ok = check_kind(call, ir::OpKind::bernoulli_mask); !ok) return ok;
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  if (call.inputs[0].rank() != 0) {
    return std::unexpected(operand_error("input 0", *call.inputs[0].shape,
                                         "bernoulli_mask needs a scalar keep probability "
                                         "(shape [])"));
  }
  return {};
}

}  // namespace

// y[i] = u_i for i = 0, 1, ...
void rand_uniform_forward(const KernelCall& call) {
  const std::uint64_t seed = std::get<ir::SeedParams>(call.node.params).seed;
  float* y = call.output.data<float>();
  const std::size_t n = call.output.size();
  for (std::size_t i = 0; i < n; ++i)
    y[i] = uniform_at(seed, i);
}

// y[i] = 1 where u_i < p, else 0, with p the scalar input: p >= 1 keeps everything, p <= 0 and a
// NaN p keep nothing.
void bernoulli_mask_forward(const KernelCall& call) {
  const std::uint64_t seed = std::get<ir::SeedParams>(call.node.params).seed;
  const float p = call.inputs[0].data<float>()[0];
  float* y = call.output.data<float>();
  const std::size_t n = call.output.size();
  for (std::size_t i = 0; i < n; ++i)
    y[i] = uniform_at(seed, i) < p ? 1.0F : 0.0F;
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/random_sources_test.cpp"};

const ReferenceHandler kRandomHandlers[] = {
    {backend::BackendOp::rand_uniform,
     {.symbol = "nnplan::runtime::reference::rand_uniform_forward",
      .forward = rand_uniform_forward,
      .vjp = nullptr,
      .shape_guard = rand_uniform_guard,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
    {backend::BackendOp::bernoulli_mask,
     {.symbol = "nnplan::runtime::reference::bernoulli_mask_forward",
      .forward = bernoulli_mask_forward,
      .vjp = nullptr,
      .shape_guard = bernoulli_mask_guard,
      .layout_guard = canonical_layout_guard,
      .in_place_safe = false,
      .forward_tests = kTests,
      .vjp_tests = kTests}},
};

}  // namespace

std::span<const ReferenceHandler> random_source_handlers() {
  return kRandomHandlers;
}

}  // namespace nnplan::runtime::reference
