// onednn.leaky_relu.oracle: compares the capsule onednn.leaky_relu (fast_cpu) with
// reference.leaky_relu (checked_cpu).
// Draws: alpha PyTorch's 0.01, 0.2, 0, 1, a negative slope or a slope above 1; rank 1-4; signed
// inputs.
// Tolerance: abs 0, rel 0, norm 0 (|got - want| <= abs + rel * |want| + norm * max|want|): both
// compute alpha * x rounded once, or x itself, so both must agree exactly (0 and -0 compare equal).
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  const float alpha = b.draw().pick({0.01F, 0.2F, 0.0F, 1.0F, -0.5F, 3.0F});
  draw_unary(b, ir::OpKind::leaky_relu, b.draw().signed_values(), ir::AlphaParams{.alpha = alpha});
}

const OracleRegistration registration{{
    .name = "onednn.leaky_relu.oracle",
    .capsule = "onednn.leaky_relu",
    .tolerance = {.abs = 0, .rel = 0, .norm = 0},
    .build = build,
    .covers = "alpha 0.01, 0.2, 0, 1, -0.5, 3; rank 1-4; signed inputs",
}};

}  // namespace
}  // namespace nnplan::oracles
