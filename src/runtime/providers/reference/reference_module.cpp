// The reference provider's capsule module (SPEC §4): one capsule `reference.<op>` per backend op
// (`reference.attention` for scaled_dot_product_attention), each run by this folder's handler of
// the same name. Plain data, built into the backend layer (builtin_modules.hpp) so planning needs
// no runtime; every op the vocabulary gains gets its capsule here, and its handler in this folder.
#include "nnplan/backend/builtin_modules.hpp"

namespace nnplan::backend {

CapsuleModule reference_module() {
  CapsuleModule m{.name = "reference", .capsules = {}};
  for (std::size_t i = 0; i < kBackendOpCount; ++i) {
    const auto op = static_cast<BackendOp>(i);
    // Declared by TorchLean, run by no provider nnplan has.
    if (op == BackendOp::fft_fno || op == BackendOp::selective_scan) continue;
    const bool attention = op == BackendOp::scaled_dot_product_attention;
    m.capsules.push_back(make_builtin_capsule({
        .name = attention ? "reference.attention" : "reference." + std::string(to_string(op)),
        .op = op,
        .provider = Provider::reference,
        .device = Device::cpu,
        .trust = TrustLevel::checked,
        .vjp = requires_vjp(op) ? VjpMode::torchlean_tape : VjpMode::none,
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

}  // namespace nnplan::backend
