// onednn.broadcast_mul.oracle: compares the fused capsule onednn.broadcast_mul (one `fused` group
// under fast_cpu) with the reference provider running the chain node by node (checked_cpu).
// Draws: an output shape of rank 1-4; the broadcast's input that shape's trailing axes (leading
// axes dropped), each 1 or the output's extent, as numpy broadcasting and the importer write it
// (squeeze-excite's [1,C,1,1] among them); the mul's other operand a full input; either order.
// Tolerance: abs 0, rel 0, norm 0 (|got - want| <= abs + rel * |want| + norm * max|want|):
// each output is one product, rounded once, so both must agree exactly.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 16);
  const Values values = d.signed_values();
  const ir::NodeId broadcast = draw_broadcast_to(b, shape, values, true);
  const ir::NodeId other = b.input(shape, values);
  const bool swapped = d.chance(0.5);
  if (swapped) b.note("mul(other, broadcast)");
  b.target(ir::OpKind::mul_elem,
           swapped ? std::vector{other, broadcast} : std::vector{broadcast, other});
}

const OracleRegistration registration{{
    .name = "onednn.broadcast_mul.oracle",
    .capsule = "onednn.broadcast_mul",
    .tolerance = {.abs = 0, .rel = 0, .norm = 0},
    .build = build,
    .covers = "an output of rank 1-4; the broadcast's input its trailing axes, each 1 or the "
              "output's extent; the other operand a full input; either order",
}};

}  // namespace
}  // namespace nnplan::oracles
