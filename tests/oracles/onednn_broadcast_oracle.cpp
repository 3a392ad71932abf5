// onednn.broadcast.oracle: compares the capsule onednn.broadcast (fast_cpu) with
// reference.broadcast (checked_cpu).
// Draws: a target shape of rank 1-4, the input that shape's trailing axes (leading axes dropped),
// each 1 or the target's extent, as numpy broadcasting and the importer's Expand write them.
// Tolerance: abs 0, rel 0, norm 0 (|got - want| <= abs + rel * |want| + norm * max|want|):
// a copy, so both must agree exactly.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape to = d.shape(1, 4, 12);
  draw_broadcast_to(b, to, d.signed_values(), true);
}

const OracleRegistration registration{{
    .name = "onednn.broadcast.oracle",
    .capsule = "onednn.broadcast",
    .tolerance = {.abs = 0, .rel = 0, .norm = 0},
    .build = build,
    .covers = "a target shape of rank 1-4, the input its trailing axes (leading axes dropped), "
              "each 1 or the target's extent",
}};

}  // namespace
}  // namespace nnplan::oracles
