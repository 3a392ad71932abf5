// onednn.mul.oracle: compares the capsule onednn.mul (fast_cpu) with reference.mul
// (checked_cpu).
// Draws: rank 1-4, same shapes, both operands one value, either order (a broadcast operand is
// fused with the mul under fast_cpu: onednn.broadcast_mul.oracle draws it).
// Tolerance: abs 0, rel 0, norm 0 (|got - want| <= abs + rel * |want| + norm * max|want|):
// the operation rounds at most once, so both must agree exactly.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_binary(b, ir::OpKind::mul_elem, Operand::same_shape);
}

const OracleRegistration registration{{
    .name = "onednn.mul.oracle",
    .capsule = "onednn.mul",
    .tolerance = {.abs = 0, .rel = 0, .norm = 0},
    .build = build,
    .covers = "rank 1-4, same shapes, both operands one value, either order (a broadcast operand "
              "is fused with the mul under fast_cpu: onednn.broadcast_mul.oracle draws it)",
}};

}  // namespace
}  // namespace nnplan::oracles
