// onednn.elu.oracle: compares the capsule onednn.elu (fast_cpu) with reference.elu (checked_cpu).
// Draws: alpha 1 (the default), 0.5, 2 or 0.1; rank 1-4; signed inputs.
// Tolerance: abs 3e-07, rel 2e-06, norm 0 (|got - want| <= abs + rel * |want| + norm *
// max|want|): oneDNN computes exp(x) - 1 with its own exp approximation, which cancels for small
// negative x (-1e-7 gives -1.19e-7: about one ulp of 1 times alpha, absolute, so the bound holds
// for the alphas drawn, up to 2); the reference uses expm1.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  const float alpha = b.draw().pick({1.0F, 0.5F, 2.0F, 0.1F});
  draw_unary(b, ir::OpKind::elu, b.draw().signed_values(), ir::AlphaParams{.alpha = alpha});
}

const OracleRegistration registration{{
    .name = "onednn.elu.oracle",
    .capsule = "onednn.elu",
    .tolerance = {.abs = 3e-07, .rel = 2e-06, .norm = 0},
    .build = build,
    .covers = "alpha 1, 0.5, 2, 0.1; rank 1-4; signed inputs",
}};

}  // namespace
}  // namespace nnplan::oracles
