// The closed vocabularies of SPEC §1: devices, providers, backend operations, trust levels and
// VJP modes. Each is an enum class with one spelling table that drives both `to_string` and
// `parse_*`; the spellings are part of nnplan's contract (reports, JSON, command line).
// Everything later in the flow (capsules, registry, planner) speaks only these types.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "nnplan/enum_table.hpp"
#include "nnplan/error.hpp"

namespace nnplan::backend {

// Where a kernel runs.
enum class Device : std::uint8_t { cpu, cuda, rocm, metal, wasm, tpu, trainium, custom, external };
inline constexpr auto kDeviceNames = enum_names<Device::external>(
    {"cpu", "cuda", "rocm", "metal", "wasm", "tpu", "trainium", "custom", "external"});

// Who implements a kernel.
enum class Provider : std::uint8_t {
  reference,
  torchlean,
  native_cuda,
  libtorch,
  aten,
  mps,
  webgpu,
  cublas,
  cudnn,
  cufft,
  xla,
  neuron,
  custom_chip,
  external,
  onednn,  // nnplan's fast CPU provider (SPEC §12), added after the seed's providers
};
inline constexpr auto kProviderNames = enum_names<Provider::onednn>(
    {"reference", "torchlean", "native-cuda", "libtorch", "aten", "mps", "webgpu", "cublas",
     "cudnn", "cufft", "xla", "neuron", "custom-chip", "external", "onednn"});

// The closed operation vocabulary; the planner never accepts free-form op strings.
enum class BackendOp : std::uint8_t {
  rand_uniform,
  bernoulli_mask,
  add,
  sub,
  mul,
  scale,
  abs,
  sqrt,
  clamp,
  max,
  min,
  relu,
  gelu,
  sigmoid,
  tanh,
  softplus,
  exp,
  log,
  sin,
  cos,
  inv,
  safe_log,
  log_softmax,
  softmax,
  reduce_sum,
  reduce_mean,
  reshape,
  permute,
  broadcast,
  concat,
  slice,
  gather,
  scatter_add,
  matmul,
  linear,
  mse_loss,
  layer_norm,
  batch_norm,
  conv,
  conv_transpose,
  max_pool,
  smooth_max_pool,
  avg_pool,
  fft_fno,
  selective_scan,
  scaled_dot_product_attention,
  hard_masked_softmax,
};
inline constexpr auto kBackendOpNames = enum_names<BackendOp::hard_masked_softmax>({
    "rand_uniform",
    "bernoulli_mask",
    "add",
    "sub",
    "mul",
    "scale",
    "abs",
    "sqrt",
    "clamp",
    "max",
    "min",
    "relu",
    "gelu",
    "sigmoid",
    "tanh",
    "softplus",
    "exp",
    "log",
    "sin",
    "cos",
    "inv",
    "safe_log",
    "log_softmax",
    "softmax",
    "reduce_sum",
    "reduce_mean",
    "reshape",
    "permute",
    "broadcast",
    "concat",
    "slice",
    "gather",
    "scatter_add",
    "matmul",
    "linear",
    "mse_loss",
    "layer_norm",
    "batch_norm",
    "conv",
    "conv_transpose",
    "max_pool",
    "smooth_max_pool",
    "avg_pool",
    "fft_fno",
    "selective_scan",
    "scaled_dot_product_attention",
    "hard_masked_softmax",
});
inline constexpr std::size_t kBackendOpCount = kBackendOpNames.size();

// How much is known about an implementation.
enum class TrustLevel : std::uint8_t { verified, checked, fuzzed, trusted_external };
inline constexpr auto kTrustLevelNames =
    enum_names<TrustLevel::trusted_external>({"verified", "checked", "fuzzed", "trusted-external"});

// How a capsule handles the backward pass.
enum class VjpMode : std::uint8_t { none, torchlean_tape, backend_vjp };
inline constexpr auto kVjpModeNames =
    enum_names<VjpMode::backend_vjp>({"none", "torchlean-tape", "backend-vjp"});

[[nodiscard]] constexpr std::string_view to_string(Device v) {
  return enum_name(kDeviceNames, v);
}
[[nodiscard]] constexpr std::string_view to_string(Provider v) {
  return enum_name(kProviderNames, v);
}
[[nodiscard]] constexpr std::string_view to_string(BackendOp v) {
  return enum_name(kBackendOpNames, v);
}
[[nodiscard]] constexpr std::string_view to_string(TrustLevel v) {
  return enum_name(kTrustLevelNames, v);
}
[[nodiscard]] constexpr std::string_view to_string(VjpMode v) {
  return enum_name(kVjpModeNames, v);
}

[[nodiscard]] inline Expected<Device> parse_device(std::string_view s) {
  return parse_enum<Device>(kDeviceNames, s, "device");
}
[[nodiscard]] inline Expected<Provider> parse_provider(std::string_view s) {
  return parse_enum<Provider>(kProviderNames, s, "provider");
}
[[nodiscard]] inline Expected<BackendOp> parse_backend_op(std::string_view s) {
  return parse_enum<BackendOp>(kBackendOpNames, s, "backend op");
}
[[nodiscard]] inline Expected<TrustLevel> parse_trust_level(std::string_view s) {
  return parse_enum<TrustLevel>(kTrustLevelNames, s, "trust level");
}
[[nodiscard]] inline Expected<VjpMode> parse_vjp_mode(std::string_view s) {
  return parse_enum<VjpMode>(kVjpModeNames, s, "vjp mode");
}

// False only for the two random sources, which have no derivative to carry.
[[nodiscard]] constexpr bool requires_vjp(BackendOp op) {
  return op != BackendOp::rand_uniform && op != BackendOp::bernoulli_mask;
}

}  // namespace nnplan::backend
