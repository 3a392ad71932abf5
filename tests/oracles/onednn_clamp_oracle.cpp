// onednn.clamp.oracle: compares the capsule onednn.clamp (fast_cpu) with reference.clamp
// (checked_cpu).
// Draws: both bounds, min only, max only, equal bounds, ReLU6; rank 1-4; signed inputs.
// Tolerance: abs 0, rel 0, norm 0 (|got - want| <= abs + rel * |want| + norm * max|want|):
// clamping rounds nothing, so both must agree exactly.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  const Values values = b.draw().signed_values();
  draw_unary(b, ir::OpKind::clamp, values, draw_clamp(b, values));
}

const OracleRegistration registration{{
    .name = "onednn.clamp.oracle",
    .capsule = "onednn.clamp",
    .tolerance = {.abs = 0, .rel = 0, .norm = 0},
    .build = build,
    .covers = "both bounds, min only, max only, equal bounds, ReLU6; rank 1-4; signed inputs",
}};

}  // namespace
}  // namespace nnplan::oracles
