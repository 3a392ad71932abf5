// onednn.gelu.oracle: compares the capsule onednn.gelu (fast_cpu) with reference.gelu
// (checked_cpu).
// Draws: erf and tanh forms, rank 1-4, signed inputs up to +-32.
// Tolerance: abs 1e-05, rel 1e-05, norm 0 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN evaluates gelu with its own vectorised approximation; the reference calls the C
// library.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  const Values values = b.draw().signed_values();
  draw_unary(b, ir::OpKind::gelu, values, draw_gelu(b));
}

const OracleRegistration registration{{
    .name = "onednn.gelu.oracle",
    .capsule = "onednn.gelu",
    .tolerance = {.abs = 1e-05, .rel = 1e-05, .norm = 0},
    .build = build,
    .covers = "erf and tanh forms, rank 1-4, signed inputs up to +-32",
}};

}  // namespace
}  // namespace nnplan::oracles
