// onednn.avg_pool.oracle: compares the capsule onednn.avg_pool (fast_cpu) with
// reference.avg_pool (checked_cpu).
// Draws: 1-D to 3-D; kernel 1-3 or global; stride 1-3; symmetric pads counted in the divisor
// (count_include_pad = 1).
// Tolerance: abs 1e-06, rel 1e-05, norm 1e-06 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN sums each window in its own order and may divide once or multiply by the reciprocal.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_pool(b, false);
}

const OracleRegistration registration{{
    .name = "onednn.avg_pool.oracle",
    .capsule = "onednn.avg_pool",
    .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 1e-06},
    .build = build,
    .covers = "1-D to 3-D; kernel 1-3 or global; stride 1-3; symmetric pads counted in the divisor "
              "(count_include_pad = 1)",
}};

}  // namespace
}  // namespace nnplan::oracles
