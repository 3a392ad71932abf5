#include "nnplan/backend/builtin_modules.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>

namespace nnplan::backend {
namespace {

constexpr bool is_random_source(BackendOp op) {
  return op == BackendOp::rand_uniform || op == BackendOp::bernoulli_mask;
}

ContractDescriptor descriptor(Claim claim, std::string summary, Evidence evidence,
                              std::vector<Provenance> provenance = {}) {
  return {.claim = std::move(claim),
          .summary = std::move(summary),
          .evidence = std::move(evidence),
          .provenance = std::move(provenance)};
}

}  // namespace

KernelCapsule make_builtin_capsule(const BuiltinCapsuleSpec& s) {
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

bool has_reduction_order(BackendOp op) {
  // SPEC §4's list: reductions, accumulations and max_pool.
  constexpr std::array kOrdered = {BackendOp::reduce_sum,
                                   BackendOp::reduce_mean,
                                   BackendOp::reduce_max,
                                   BackendOp::reduce_min,
                                   BackendOp::reduce_prod,
                                   BackendOp::matmul,
                                   BackendOp::linear,
                                   BackendOp::mse_loss,
                                   BackendOp::layer_norm,
                                   BackendOp::batch_norm,
                                   BackendOp::conv,
                                   BackendOp::conv_transpose,
                                   BackendOp::avg_pool,
                                   BackendOp::smooth_max_pool,
                                   BackendOp::softmax,
                                   BackendOp::log_softmax,
                                   BackendOp::scaled_dot_product_attention,
                                   BackendOp::max_pool,
                                   BackendOp::hard_masked_softmax,
                                   BackendOp::cum_sum,
                                   BackendOp::scatter_elements,
                                   BackendOp::scatter_nd,
                                   BackendOp::rnn,
                                   BackendOp::gru,
                                   BackendOp::lstm,
                                   BackendOp::grid_sample,
                                   BackendOp::resize,
                                   BackendOp::roi_align};
  return std::ranges::find(kOrdered, op) != kOrdered.end();
}

std::string spec_name(BackendOp op) {
  return "Spec." + std::string(to_string(op));
}

CapsuleModule native_cuda_module() {
  CapsuleModule m{.name = "native-cuda", .capsules = {}};
  for (std::size_t i = 0; i < kBackendOpCount; ++i) {
    const auto op = static_cast<BackendOp>(i);
    // Declared for TorchLean's vocabulary only: no native CUDA kernel exists for nnplan's
    // extension ops.
    if (op == BackendOp::sin || op == BackendOp::cos ||
        op == BackendOp::scaled_dot_product_attention || is_extension_op(op)) {
      continue;
    }
    const bool forward_only = is_random_source(op) || op == BackendOp::selective_scan;
    m.capsules.push_back(make_builtin_capsule({
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
  m.capsules.push_back(make_builtin_capsule({
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
  m.capsules.push_back(make_builtin_capsule({
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
  KernelCapsule c = make_builtin_capsule({
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
