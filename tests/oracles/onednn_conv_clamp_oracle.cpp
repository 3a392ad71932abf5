// onednn.conv_clamp.oracle: compares the fused capsule onednn.conv_clamp (one `fused` group
// under fast_cpu) with the reference provider running the chain node by node (checked_cpu).
// Draws: draw_conv's geometry, then clamp with both, one or equal bounds (ReLU6).
// Tolerance: abs 0.0001, rel 0.0001, norm 2e-05 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN sums in its own order and may contract multiply-adds; the reference sums left to right
// in float32 without contraction, so long sums differ by rounding that scales with the summed
// terms. The clamp bounds max|want| to its range while the sums before it are up to ten times
// larger, so the absolute term carries what the norm term carries for onednn.conv.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  const ir::NodeId conv = draw_conv(b, false);
  b.target(ir::OpKind::clamp, {conv}, draw_clamp(b, b.draw().signed_values()));
}

const OracleRegistration registration{{
    .name = "onednn.conv_clamp.oracle",
    .capsule = "onednn.conv_clamp",
    .tolerance = {.abs = 0.0001, .rel = 0.0001, .norm = 2e-05},
    .build = build,
    .covers = "draw_conv's geometry, then clamp with both, one or equal bounds (ReLU6)",
}};

}  // namespace
}  // namespace nnplan::oracles
