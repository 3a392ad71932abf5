// onednn.conv_add_relu.oracle: compares the fused capsule onednn.conv_add_relu (one `fused`
// group under fast_cpu) with the reference provider running the chain node by node
// (checked_cpu).
// Draws: draw_conv's geometry; residual a full input, a broadcast one ([1,C,1,1]-like), or the
// conv's own input (identity shortcut); either operand order; relu.
// Tolerance: abs 1e-05, rel 0.0001, norm 2e-05 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN sums in its own order and may contract multiply-adds; the reference sums left to right
// in float32 without contraction, so long sums differ by rounding that scales with the summed
// terms (the norm term).
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::NodeId conv = draw_conv(b, false);
  const ir::Shape out = b.shape_of(conv);
  const ir::NodeId x = b.parents_of(conv).front();
  ir::NodeId residual = 0;
  if (b.shape_of(x) == out && d.chance(0.4)) {
    residual = x;
    b.note("residual: the conv's input");
  } else {
    residual = draw_operand(b, out, d.signed_values());
  }
  const bool swapped = d.chance(0.5);
  if (swapped) b.note("add(residual, conv)");
  const ir::NodeId sum = b.target(
      ir::OpKind::add, swapped ? std::vector{residual, conv} : std::vector{conv, residual});
  b.target(ir::OpKind::relu, {sum});
}

const OracleRegistration registration{{
    .name = "onednn.conv_add_relu.oracle",
    .capsule = "onednn.conv_add_relu",
    .tolerance = {.abs = 1e-05, .rel = 0.0001, .norm = 2e-05},
    .build = build,
    .covers = "draw_conv's geometry; residual a full input, a broadcast one ([1,C,1,1]-like), or "
              "the conv's own input (identity shortcut); either operand order; relu",
}};

}  // namespace
}  // namespace nnplan::oracles
