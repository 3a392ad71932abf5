// onednn.abs.oracle: compares the capsule onednn.abs (fast_cpu) with reference.abs
// (checked_cpu).
// Draws: rank 1-4, signed inputs up to +-32, zeros.
// Tolerance: abs 0, rel 0, norm 0 (|got - want| <= abs + rel * |want| + norm * max|want|):
// the operation rounds at most once, so both must agree exactly.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::abs, b.draw().signed_values());
}

const OracleRegistration registration{{
    .name = "onednn.abs.oracle",
    .capsule = "onednn.abs",
    .tolerance = {.abs = 0, .rel = 0, .norm = 0},
    .build = build,
    .covers = "rank 1-4, signed inputs up to +-32, zeros",
}};

}  // namespace
}  // namespace nnplan::oracles
