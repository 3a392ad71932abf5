#include "nnplan/backend/builtin_modules.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>

namespace nnplan::backend {
namespace {

constexpr bool is_random_source(BackendOp op) {
  return !requires_vjp(op);
}

// The fields that vary between built-in capsules; everything else is derived from the op.
struct CapsuleSpec {
  std::string name;
  BackendOp op;
  Provider provider;
  Device device;
  TrustLevel trust;
  VjpMode vjp;
  Layout layout;
  NumericalPolicy numerical;
  std::string notes;
};

ContractDescriptor descriptor(Claim claim, std::string summary, Evidence evidence,
                              std::vector<Provenance> provenance = {}) {
  return {.claim = std::move(claim),
          .summary = std::move(summary),
          .evidence = std::move(evidence),
          .provenance = std::move(provenance)};
}

// Shape and layout are guarded at runtime, value and VJP covered by test suites named after the
// capsule; callers override what differs (the libtorch boundary).
KernelCapsule make_capsule(const CapsuleSpec& s) {
  const std::string op(to_string(s.op));
  const std::string vjp_summary =
      s.vjp == VjpMode::none
          ? "forward-only kernel: no local derivative is offered"
          : (s.vjp == VjpMode::backend_vjp
                 ? "backend derivative kernel matches the VJP of " + op
                 : "the tape's reverse rule for " + op + " consumes this kernel's forward values");
  KernelCapsule c{
      .name = s.name,
      .op = s.op,
      .provider = s.provider,
      .device = s.device,
      .trust_level = s.trust,
      .supports_forward = true,
      .vjp_mode = s.vjp,
      .shape = descriptor(Claim::shape_safety(s.op), "operand shapes are checked before launch",
                          {EvidenceKind::runtime_guard, s.name + ".shape_guard"}),
      .layout = descriptor(
          Claim::layout_compatibility(s.op, s.layout),
          "operands are accepted only in " + std::string(to_string(s.layout)) + " layout",
          {EvidenceKind::runtime_guard, s.name + ".layout_guard"}),
      .value = descriptor(Claim::value_refinement(s.op, spec_name(s.op)),
                          "forward values agree with " + spec_name(s.op),
                          {EvidenceKind::test_suite, s.name + ".forward_tests"}),
      .vjp = descriptor(Claim::vjp_refinement(s.op, s.vjp, spec_name(s.op)), vjp_summary,
                        {EvidenceKind::test_suite, s.name + ".vjp_tests"}),
      .numerical = s.numerical,
      .notes = s.notes,
  };
  return c;
}

}  // namespace

bool has_reduction_order(BackendOp op) {
  // SPEC §4's list: reductions, accumulations and max_pool.
  constexpr std::array kOrdered = {
      BackendOp::reduce_sum,      BackendOp::reduce_mean,
      BackendOp::matmul,          BackendOp::linear,
      BackendOp::mse_loss,        BackendOp::layer_norm,
      BackendOp::batch_norm,      BackendOp::conv,
      BackendOp::conv_transpose,  BackendOp::avg_pool,
      BackendOp::smooth_max_pool, BackendOp::softmax,
      BackendOp::log_softmax,     BackendOp::scaled_dot_product_attention,
      BackendOp::max_pool,        BackendOp::hard_masked_softmax};
  return std::ranges::find(kOrdered, op) != kOrdered.end();
}

std::string spec_name(BackendOp op) {
  return "Spec." + std::string(to_string(op));
}

CapsuleModule reference_module() {
  CapsuleModule m{.name = "reference", .capsules = {}};
  for (std::size_t i = 0; i < kBackendOpCount; ++i) {
    const auto op = static_cast<BackendOp>(i);
    if (op == BackendOp::fft_fno || op == BackendOp::selective_scan) continue;
    const bool attention = op == BackendOp::scaled_dot_product_attention;
    m.capsules.push_back(make_capsule({
        .name = attention ? "reference.attention" : "reference." + std::string(to_string(op)),
        .op = op,
        .provider = Provider::reference,
        .device = Device::cpu,
        .trust = TrustLevel::checked,
        .vjp = is_random_source(op) ? VjpMode::none : VjpMode::torchlean_tape,
        .layout = Layout::canonical_tensor,
        .numerical = {.rounding = Rounding::scalar_context,
                      .subnormals = Subnormals::implementation_defined,
                      .contraction = Contraction::na,
                      .reduction = has_reduction_order(op) ? ReductionOrder::fixed_left
                                                           : ReductionOrder::na},
        .notes = "",
    }));
  }
  return m;
}

CapsuleModule native_cuda_module() {
  CapsuleModule m{.name = "native-cuda", .capsules = {}};
  for (std::size_t i = 0; i < kBackendOpCount; ++i) {
    const auto op = static_cast<BackendOp>(i);
    if (op == BackendOp::sin || op == BackendOp::cos ||
        op == BackendOp::scaled_dot_product_attention) {
      continue;
    }
    const bool forward_only = is_random_source(op) || op == BackendOp::selective_scan;
    m.capsules.push_back(make_capsule({
        .name = "native_cuda." + std::string(to_string(op)),
        .op = op,
        .provider = Provider::native_cuda,
        .device = Device::cuda,
        .trust = TrustLevel::checked,
        .vjp = forward_only ? VjpMode::none : VjpMode::backend_vjp,
        .layout = Layout::flat_row_major,
        .numerical = {.rounding = Rounding::nearest_even,
                      .subnormals = Subnormals::implementation_defined,
                      .contraction = Contraction::implementation_defined,
                      .reduction = has_reduction_order(op) ? ReductionOrder::implementation_defined
                                                           : ReductionOrder::na},
        .notes = "",
    }));
  }
  return m;
}

CapsuleModule attention_module() {
  constexpr BackendOp op = BackendOp::scaled_dot_product_attention;
  CapsuleModule m{.name = "attention", .capsules = {}};
  m.capsules.push_back(make_capsule({
      .name = "native_cuda.flash_attention",
      .op = op,
      .provider = Provider::native_cuda,
      .device = Device::cuda,
      .trust = TrustLevel::checked,
      .vjp = VjpMode::backend_vjp,
      .layout = Layout::flat_row_major,
      .numerical = {.rounding = Rounding::nearest_even,
                    .subnormals = Subnormals::implementation_defined,
                    .contraction = Contraction::fused,
                    .reduction = ReductionOrder::implementation_defined},
      .notes = "tiled attention with an online softmax; forward and backward kernels",
  }));
  m.capsules.push_back(make_capsule({
      .name = "torchlean.composed_attention",
      .op = op,
      .provider = Provider::torchlean,
      .device = Device::cuda,
      .trust = TrustLevel::checked,
      .vjp = VjpMode::torchlean_tape,
      .layout = Layout::flat_row_major,
      .numerical = {.rounding = Rounding::nearest_even,
                    .subnormals = Subnormals::implementation_defined,
                    .contraction = Contraction::implementation_defined,
                    .reduction = ReductionOrder::implementation_defined},
      .notes = "attention composed from matmul, scale and softmax on the tape",
  }));
  return m;
}

CapsuleModule libtorch_module() {
  constexpr BackendOp op = BackendOp::scaled_dot_product_attention;
  CapsuleModule m{.name = "libtorch", .capsules = {}};
  KernelCapsule c = make_capsule({
      .name = "libtorch.sdpa_forward",
      .op = op,
      .provider = Provider::libtorch,
      .device = Device::cuda,
      .trust = TrustLevel::trusted_external,
      .vjp = VjpMode::torchlean_tape,
      .layout = Layout::libtorch_cuda_view,
      .numerical = {.rounding = Rounding::implementation_defined,
                    .subnormals = Subnormals::implementation_defined,
                    .contraction = Contraction::implementation_defined,
                    .reduction = ReductionOrder::implementation_defined},
      .notes = "forward through LibTorch; backward is the tape's own rule",
  });
  c.value.evidence = {EvidenceKind::trusted_boundary,
                      "LibTorch scaled_dot_product_attention is external code, not audited"};
  c.value.provenance.push_back({.kind = ProvenanceKind::native_symbol,
                                .path = "aten/src/ATen/native/transformers/attention.cpp",
                                .symbol = "at::scaled_dot_product_attention",
                                .build_target = "libtorch_cuda",
                                .text = ""});
  m.capsules.push_back(std::move(c));
  return m;
}

namespace {

// One capsule of the onednn module: `op` alone, or the chain `pattern` (root first).
KernelCapsule onednn_capsule(BackendOp op, std::vector<BackendOp> pattern, std::string name,
                             std::string notes) {
  KernelCapsule c = make_capsule({
      .name = std::move(name),
      .op = op,
      .provider = Provider::onednn,
      .device = Device::cpu,
      .trust = TrustLevel::fuzzed,
      .vjp = VjpMode::none,
      .layout = Layout::flat_row_major,
      .numerical = {.rounding = Rounding::implementation_defined,
                    .subnormals = Subnormals::implementation_defined,
                    .contraction = Contraction::implementation_defined,
                    .reduction = has_reduction_order(op) ? ReductionOrder::implementation_defined
                                                         : ReductionOrder::na},
      .notes = std::move(notes),
  });
  c.pattern = std::move(pattern);
  std::string chain;
  for (BackendOp p : c.pattern)
    chain += (chain.empty() ? "" : ", ") + std::string(to_string(p));
  const std::string what = c.pattern.empty() ? std::string(to_string(op)) : "the chain " + chain;
  c.value.summary = "forward values agree with the reference provider's " + what +
                    " within the oracle's stated tolerance on finite inputs";
  c.value.evidence = {EvidenceKind::fuzz_oracle, c.name + ".oracle"};
  c.vjp.evidence = {EvidenceKind::test_suite, "onednn.forward_only_tests"};
  return c;
}

}  // namespace

CapsuleModule onednn_module() {
  using enum BackendOp;
  CapsuleModule m{.name = "onednn", .capsules = {}};
  // The conv family runs channels-last where the command buffer keeps its operands so (its
  // reorders are commands of their own), else on the src and dst layouts oneDNN prefers, which
  // the launch reorders its flat operands into and the result back from.
  const std::string staged =
      ", channels-last between onednn commands where oneDNN runs that layout (reorder commands "
      "around it), else on the src and dst layouts it prefers (reordered from and to the flat "
      "buffers inside the launch)";
  // Where oneDNN does not propagate NaN as the reference does (tests/runtime/onednn/nan_test.cpp).
  const std::string relu_nan = "; NaN becomes 0 (oneDNN's relu)";
  const std::string clip_nan = "; NaN becomes the lower bound, -inf without one (oneDNN's clip)";
  const auto single = [&](BackendOp op, std::string_view primitive, std::string_view more = "") {
    m.capsules.push_back(
        onednn_capsule(op, {}, "onednn." + std::string(to_string(op)),
                       "oneDNN " + std::string(primitive) + " primitive" + std::string(more)));
  };
  single(matmul, "matmul");
  single(linear, "inner product");
  single(conv, "convolution", staged);
  single(conv_transpose, "deconvolution",
         ", on the src and dst layouts it prefers (reordered from and to the flat buffers inside "
         "the launch)");
  single(max_pool, "pooling (max)");
  single(avg_pool, "pooling (avg)");
  single(batch_norm, "batch normalization (inference)");
  single(layer_norm, "layer normalization");
  single(softmax, "softmax");
  single(log_softmax, "softmax (logsoftmax)");
  single(relu, "eltwise", relu_nan);
  for (BackendOp op : {gelu, sigmoid, tanh, softplus})
    single(op, "eltwise");
  single(exp, "eltwise", "; NaN becomes +inf (oneDNN's exp)");
  for (BackendOp op : {log, sqrt, abs})
    single(op, "eltwise");
  single(clamp, "eltwise", clip_nan);
  for (BackendOp op : {add, sub, mul})
    single(op, "binary");
  for (BackendOp op : {max, min}) {
    single(op, "binary", "; a NaN first operand gives the second operand (oneDNN's max and min)");
  }
  // The copies compute nothing: no multiply-add to contract, and every value leaves as it came
  // (the reference's copies make the same claim).
  const auto copy = [&](BackendOp op, std::string_view view) {
    single(op, "reorder", view);
    m.capsules.back().numerical.rounding = Rounding::scalar_context;
    m.capsules.back().numerical.contraction = Contraction::na;
  };
  copy(broadcast, " reading the input with stride 0 along each added or stretched axis: a copy");
  copy(permute, " reading the input through its strides in the permuted order: a copy");
  copy(slice,
       " reading the input from the first element taken, the sliced axis's stride times the "
       "step: a copy");
  m.capsules.push_back(onednn_capsule(scaled_dot_product_attention, {}, "onednn.attention",
                                      "oneDNN matmul (scores, scaled and causally masked by "
                                      "post-ops), softmax and matmul primitives"));
  const auto fused = [&](std::vector<BackendOp> pattern, std::string_view post_ops,
                         const std::string& nan = std::string()) {
    std::string name = "onednn";
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      name += (i == 0 ? "." : "_") + std::string(to_string(pattern[i]));
    }
    const BackendOp root = pattern[0];
    m.capsules.push_back(onednn_capsule(root, std::move(pattern), std::move(name),
                                        "one oneDNN primitive with post-ops " +
                                            std::string(post_ops) +
                                            (root == conv ? staged : std::string()) + nan));
  };
  fused({conv, relu}, "eltwise relu", relu_nan);
  fused({conv, add, relu},
        "sum (the residual, copied into the destination before the convolution runs; a binary add "
        "reading it where some window covers only padding), eltwise relu",
        relu_nan);
  fused({conv, clamp}, "eltwise clip", clip_nan);
  fused({linear, relu}, "eltwise relu", relu_nan);
  fused({linear, gelu}, "eltwise gelu");
  fused({matmul, add}, "binary add");
  // Chains rooted at an element-wise op run on oneDNN's element-wise primitives, not post-ops.
  const auto chain = [&](BackendOp root, BackendOp next, std::string notes) {
    m.capsules.push_back(onednn_capsule(
        root, {root, next},
        "onednn." + std::string(to_string(root)) + "_" + std::string(to_string(next)),
        std::move(notes)));
  };
  chain(sigmoid, mul,
        "oneDNN eltwise swish (x times logistic(x)) when the mul's other operand is the sigmoid's "
        "input (SiLU), one pass; otherwise eltwise logistic into the output, then binary mul by "
        "the other operand in place (the swish when both operands arrive in one buffer, a value "
        "and its detach)");
  chain(broadcast, mul,
        "oneDNN binary mul reading the broadcast's input directly (oneDNN broadcasts its size-1 "
        "axes), so no broadcast copy is written");
  return m;
}

std::vector<CapsuleModule> builtin_modules() {
  return {attention_module(), native_cuda_module(), reference_module()};
}

const std::shared_ptr<const Registry>& shared_builtin_registry() {
  static const std::shared_ptr<const Registry> registry = [] {
    auto r = Registry::create(builtin_modules());
    // The built-ins are fixed data; a duplicate here is a programming error caught by tests.
    if (!r) std::abort();
    return std::make_shared<const Registry>(std::move(*r));
  }();
  return registry;
}

const Registry& builtin_registry() {
  return *shared_builtin_registry();
}

}  // namespace nnplan::backend
