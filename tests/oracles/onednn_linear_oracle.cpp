// onednn.linear.oracle: compares the capsule onednn.linear (fast_cpu) with reference.linear
// (checked_cpu).
// Draws: input rank 2-4, in 1-64, out 1-48, bias or none.
// Tolerance: abs 1e-05, rel 0.0001, norm 2e-05 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN sums in its own order and may contract multiply-adds; the reference sums left to right
// in float32 without contraction, so long sums differ by rounding that scales with the summed
// terms (the norm term).
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_linear(b);
}

const OracleRegistration registration{{
    .name = "onednn.linear.oracle",
    .capsule = "onednn.linear",
    .tolerance = {.abs = 1e-05, .rel = 0.0001, .norm = 2e-05},
    .build = build,
    .covers = "input rank 2-4, in 1-64, out 1-48, bias or none",
}};

}  // namespace
}  // namespace nnplan::oracles
