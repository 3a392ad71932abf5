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

// The closed operation vocabulary; the planner never accepts free-form op strings. One row per
// op, in enumerator order: the enumerator and its spelling are the same word. TorchLean's ops
// (SPEC §1) come first and keep their spelling; nnplan's extension ops for ONNX operators (SPEC
// §6, "Extension kinds for ONNX operators") follow, each spelled as its IR kind.
#define NNPLAN_TORCHLEAN_BACKEND_OPS(X) \
  X(rand_uniform)                       \
  X(bernoulli_mask)                     \
  X(add)                                \
  X(sub)                                \
  X(mul)                                \
  X(scale)                              \
  X(abs)                                \
  X(sqrt)                               \
  X(clamp)                              \
  X(max)                                \
  X(min)                                \
  X(relu)                               \
  X(gelu)                               \
  X(sigmoid)                            \
  X(tanh)                               \
  X(softplus)                           \
  X(exp)                                \
  X(log)                                \
  X(sin)                                \
  X(cos)                                \
  X(inv)                                \
  X(safe_log)                           \
  X(log_softmax)                        \
  X(softmax)                            \
  X(reduce_sum)                         \
  X(reduce_mean)                        \
  X(reshape)                            \
  X(permute)                            \
  X(broadcast)                          \
  X(concat)                             \
  X(slice)                              \
  X(gather)                             \
  X(scatter_add)                        \
  X(matmul)                             \
  X(linear)                             \
  X(mse_loss)                           \
  X(layer_norm)                         \
  X(batch_norm)                         \
  X(conv)                               \
  X(conv_transpose)                     \
  X(max_pool)                           \
  X(smooth_max_pool)                    \
  X(avg_pool)                           \
  X(fft_fno)                            \
  X(selective_scan)                     \
  X(scaled_dot_product_attention)       \
  X(hard_masked_softmax)
#define NNPLAN_EXTENSION_BACKEND_OPS(X) \
  X(leaky_relu)                         \
  X(elu)                                \
  X(softsign)                           \
  X(floor)                              \
  X(ceil)                               \
  X(round)                              \
  X(sign)                               \
  X(tan)                                \
  X(asin)                               \
  X(acos)                               \
  X(atan)                               \
  X(sinh)                               \
  X(cosh)                               \
  X(asinh)                              \
  X(acosh)                              \
  X(atanh)                              \
  X(reduce_max)                         \
  X(reduce_min)                         \
  X(reduce_prod)                        \
  X(argmax)                             \
  X(argmin)                             \
  X(equal)                              \
  X(less)                               \
  X(less_or_equal)                      \
  X(greater)                            \
  X(greater_or_equal)                   \
  X(and_)                               \
  X(or_)                                \
  X(xor_)                               \
  X(not_)                               \
  X(where)                              \
  X(cast)                               \
  X(erf)                                \
  X(pow)                                \
  X(gather_elements)                    \
  X(top_k)                              \
  X(cum_sum)                            \
  X(scatter_elements)                   \
  X(scatter_nd)                         \
  X(gather_nd)                          \
  X(mod)                                \
  X(fmod)                               \
  X(rnn)                                \
  X(gru)                                \
  X(lstm)                               \
  X(grid_sample)                        \
  X(max_unpool)                         \
  X(resize)                             \
  X(roi_align)                          \
  X(max_pool_indices)                   \
  X(hard_sigmoid)                       \
  X(hard_swish)                         \
  X(silu)

enum class BackendOp : std::uint8_t {
#define NNPLAN_BACKEND_OP_ENUMERATOR(op) op,
  NNPLAN_TORCHLEAN_BACKEND_OPS(NNPLAN_BACKEND_OP_ENUMERATOR)
      NNPLAN_EXTENSION_BACKEND_OPS(NNPLAN_BACKEND_OP_ENUMERATOR)
#undef NNPLAN_BACKEND_OP_ENUMERATOR
};
// An op's spelling is its token, less the trailing underscore of the tokens C++ reserves (`and_`
// is spelled `and`).
consteval std::string_view backend_op_spelling(std::string_view token) {
  return token.ends_with('_') ? token.substr(0, token.size() - 1) : token;
}
inline constexpr auto kBackendOpNames = enum_names<BackendOp::silu>({
#define NNPLAN_BACKEND_OP_SPELLING(op) backend_op_spelling(#op),
    NNPLAN_TORCHLEAN_BACKEND_OPS(NNPLAN_BACKEND_OP_SPELLING)
        NNPLAN_EXTENSION_BACKEND_OPS(NNPLAN_BACKEND_OP_SPELLING)
#undef NNPLAN_BACKEND_OP_SPELLING
});
// The first of nnplan's extension ops: every op from here on is one (is_extension_op).
inline constexpr BackendOp kFirstExtensionOp = BackendOp::leaky_relu;
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

// Whether `op` is one of nnplan's extension ops rather than TorchLean's vocabulary.
[[nodiscard]] constexpr bool is_extension_op(BackendOp op) {
  return static_cast<std::size_t>(op) >= static_cast<std::size_t>(kFirstExtensionOp);
}

// False for the ops with no derivative to carry (SPEC §6): the two random sources, argmax,
// argmin and top_k (their int64 indices), mod (int64 remainders), the comparisons and logic ops
// (their bool values), and cast (between float32, int64 and bool: what crosses an integer or bool
// value carries no gradient).
[[nodiscard]] constexpr bool requires_vjp(BackendOp op) {
  using enum BackendOp;
  switch (op) {
    case rand_uniform:
    case bernoulli_mask:
    case argmax:
    case argmin:
    case max_pool_indices:
    case top_k:
    case mod:
    case equal:
    case less:
    case less_or_equal:
    case greater:
    case greater_or_equal:
    case and_:
    case or_:
    case xor_:
    case not_:
    case cast:
      return false;
    default:
      return true;
  }
}

}  // namespace nnplan::backend
