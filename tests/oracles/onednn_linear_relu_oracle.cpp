// onednn.linear_relu.oracle: compares the fused capsule onednn.linear_relu (one `fused` group
// under fast_cpu) with the reference provider running the chain node by node (checked_cpu).
// Draws: draw_linear's shapes, then relu.
// Tolerance: abs 1e-05, rel 0.0001, norm 2e-05 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN sums in its own order and may contract multiply-adds; the reference sums left to right
// in float32 without contraction, so long sums differ by rounding that scales with the summed
// terms (the norm term).
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  const ir::NodeId linear = draw_linear(b);
  b.target(ir::OpKind::relu, {linear});
}

const OracleRegistration registration{{
    .name = "onednn.linear_relu.oracle",
    .capsule = "onednn.linear_relu",
    .tolerance = {.abs = 1e-05, .rel = 0.0001, .norm = 2e-05},
    .build = build,
    .covers = "draw_linear's shapes, then relu",
}};

}  // namespace
}  // namespace nnplan::oracles
