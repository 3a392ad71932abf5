// onednn.sigmoid.oracle: compares the capsule onednn.sigmoid (fast_cpu) with reference.sigmoid
// (checked_cpu).
// Draws: rank 1-4, signed inputs up to +-32 (saturation).
// Tolerance: abs 1e-06, rel 1e-05, norm 0 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN evaluates the logistic function with its own vectorised approximation; the reference
// calls the C library.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::sigmoid, b.draw().signed_values());
}

const OracleRegistration registration{{
    .name = "onednn.sigmoid.oracle",
    .capsule = "onednn.sigmoid",
    .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 0},
    .build = build,
    .covers = "rank 1-4, signed inputs up to +-32 (saturation)",
}};

}  // namespace
}  // namespace nnplan::oracles
