// onednn.log.oracle: compares the capsule onednn.log (fast_cpu) with reference.log
// (checked_cpu).
// Draws: rank 1-4, inputs in [0, 1), [0, 4) or [0, 32), zeros (-inf).
// Tolerance: abs 5e-06, rel 1e-05, norm 0 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN evaluates log with its own vectorised approximation; the reference calls the C library,
// whose absolute error near x = 1 (results near 0) reaches 3.4e-6 (the largest seen over 2000
// cases); log is defined for non-negative inputs only, so none are drawn.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::log,
             Values{.lo = 0.0F, .hi = b.draw().pick({1.0F, 4.0F, 32.0F}), .zeros = 0.05});
}

const OracleRegistration registration{{
    .name = "onednn.log.oracle",
    .capsule = "onednn.log",
    .tolerance = {.abs = 5e-06, .rel = 1e-05, .norm = 0},
    .build = build,
    .covers = "rank 1-4, inputs in [0, 1), [0, 4) or [0, 32), zeros (-inf)",
}};

}  // namespace
}  // namespace nnplan::oracles
