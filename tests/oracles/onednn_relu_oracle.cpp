// onednn.relu.oracle: compares the capsule onednn.relu (fast_cpu) with reference.relu
// (checked_cpu).
// Draws: rank 1-4, signed inputs up to +-32, zeros.
// Tolerance: abs 0, rel 0, norm 0 (|got - want| <= abs + rel * |want| + norm * max|want|):
// the operation rounds at most once, so both must agree exactly.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::relu, b.draw().signed_values());
}

const OracleRegistration registration{{
    .name = "onednn.relu.oracle",
    .capsule = "onednn.relu",
    .tolerance = {.abs = 0, .rel = 0, .norm = 0},
    .build = build,
    .covers = "rank 1-4, signed inputs up to +-32, zeros",
}};

}  // namespace
}  // namespace nnplan::oracles
