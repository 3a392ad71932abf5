// onednn.sqrt.oracle: compares the capsule onednn.sqrt (fast_cpu) with reference.sqrt
// (checked_cpu).
// Draws: rank 1-4, inputs in [0, 1), [0, 4) or [0, 32), zeros.
// Tolerance: abs 0, rel 1e-06, norm 0 (|got - want| <= abs + rel * |want| + norm * max|want|):
// a correctly rounded square root agrees exactly; a few ulp are allowed for a vectorised one; no
// negative inputs (outside the domain).
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::sqrt,
             Values{.lo = 0.0F, .hi = b.draw().pick({1.0F, 4.0F, 32.0F}), .zeros = 0.05});
}

const OracleRegistration registration{{
    .name = "onednn.sqrt.oracle",
    .capsule = "onednn.sqrt",
    .tolerance = {.abs = 0, .rel = 1e-06, .norm = 0},
    .build = build,
    .covers = "rank 1-4, inputs in [0, 1), [0, 4) or [0, 32), zeros",
}};

}  // namespace
}  // namespace nnplan::oracles
