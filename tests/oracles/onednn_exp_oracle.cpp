// onednn.exp.oracle: compares the capsule onednn.exp (fast_cpu) with reference.exp
// (checked_cpu).
// Draws: rank 1-4, signed inputs up to +-32 (results from 1e-14 to 1e14).
// Tolerance: abs 1e-30, rel 1e-05, norm 0 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN evaluates exp with its own vectorised approximation; the reference calls the C library.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::exp, b.draw().signed_values());
}

const OracleRegistration registration{{
    .name = "onednn.exp.oracle",
    .capsule = "onednn.exp",
    .tolerance = {.abs = 1e-30, .rel = 1e-05, .norm = 0},
    .build = build,
    .covers = "rank 1-4, signed inputs up to +-32 (results from 1e-14 to 1e14)",
}};

}  // namespace
}  // namespace nnplan::oracles
