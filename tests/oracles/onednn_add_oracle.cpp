// onednn.add.oracle: compares the capsule onednn.add (fast_cpu) with reference.add
// (checked_cpu).
// Draws: rank 1-4, same shapes, an operand broadcast from a smaller shape (broadcast_to, as the
// importer writes numpy broadcasting), both operands one value, either order.
// Tolerance: abs 0, rel 0, norm 0 (|got - want| <= abs + rel * |want| + norm * max|want|):
// the operation rounds at most once, so both must agree exactly.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_binary(b, ir::OpKind::add);
}

const OracleRegistration registration{{
    .name = "onednn.add.oracle",
    .capsule = "onednn.add",
    .tolerance = {.abs = 0, .rel = 0, .norm = 0},
    .build = build,
    .covers = "rank 1-4, same shapes, an operand broadcast from a smaller shape (broadcast_to, as "
              "the importer writes numpy broadcasting), both operands one value, either order",
}};

}  // namespace
}  // namespace nnplan::oracles
