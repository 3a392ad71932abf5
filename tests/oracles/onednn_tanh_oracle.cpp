// onednn.tanh.oracle: compares the capsule onednn.tanh (fast_cpu) with reference.tanh
// (checked_cpu).
// Draws: rank 1-4, signed inputs up to +-32 (saturation).
// Tolerance: abs 1e-06, rel 1e-05, norm 0 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN evaluates tanh with its own vectorised approximation; the reference calls the C
// library.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::tanh, b.draw().signed_values());
}

const OracleRegistration registration{{
    .name = "onednn.tanh.oracle",
    .capsule = "onednn.tanh",
    .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 0},
    .build = build,
    .covers = "rank 1-4, signed inputs up to +-32 (saturation)",
}};

}  // namespace
}  // namespace nnplan::oracles
