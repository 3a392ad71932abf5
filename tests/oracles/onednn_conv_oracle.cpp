// onednn.conv.oracle: compares the capsule onednn.conv (fast_cpu) with reference.conv
// (checked_cpu).
// Draws: 1-D to 3-D; groups 1, 2-3 or depthwise; stride 1-3; dilation 1-2; asymmetric pads; bias
// or none.
// Tolerance: abs 1e-05, rel 0.0001, norm 2e-05 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN sums in its own order and may contract multiply-adds; the reference sums left to right
// in float32 without contraction, so long sums differ by rounding that scales with the summed
// terms (the norm term).
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_conv(b, false);
}

const OracleRegistration registration{{
    .name = "onednn.conv.oracle",
    .capsule = "onednn.conv",
    .tolerance = {.abs = 1e-05, .rel = 0.0001, .norm = 2e-05},
    .build = build,
    .covers = "1-D to 3-D; groups 1, 2-3 or depthwise; stride 1-3; dilation 1-2; asymmetric pads; "
              "bias or none",
}};

}  // namespace
}  // namespace nnplan::oracles
