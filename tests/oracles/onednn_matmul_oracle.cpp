// onednn.matmul.oracle: compares the capsule onednn.matmul (fast_cpu) with reference.matmul
// (checked_cpu).
// Draws: 2-D, equal 3-D batch, ranks 1-4 with broadcast batch axes and rank-1 operands.
// Tolerance: abs 1e-05, rel 0.0001, norm 2e-05 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN sums in its own order and may contract multiply-adds; the reference sums left to right
// in float32 without contraction, so long sums differ by rounding that scales with the summed
// terms (the norm term).
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_matmul(b);
}

const OracleRegistration registration{{
    .name = "onednn.matmul.oracle",
    .capsule = "onednn.matmul",
    .tolerance = {.abs = 1e-05, .rel = 0.0001, .norm = 2e-05},
    .build = build,
    .covers = "2-D, equal 3-D batch, ranks 1-4 with broadcast batch axes and rank-1 operands",
}};

}  // namespace
}  // namespace nnplan::oracles
