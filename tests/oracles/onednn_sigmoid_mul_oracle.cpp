// onednn.sigmoid_mul.oracle: compares the fused capsule onednn.sigmoid_mul (one `fused` group
// under fast_cpu) with the reference provider running the chain node by node (checked_cpu).
// Draws: rank 1-4, signed inputs up to +-32; the mul's other operand the sigmoid's own input
// (SiLU: x * sigmoid(x), oneDNN's swish) or another input of that shape (a gate); either order.
// Tolerance: abs 1e-06, rel 1e-05, norm 0 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN evaluates the logistic function with its own vectorised approximation, whose error is
// relative (the sigmoid oracle's tolerance); the product by the other operand keeps it relative.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 16);
  const Values values = d.signed_values();
  const ir::NodeId x = b.input(shape, values);
  const ir::NodeId sigmoid = b.target(ir::OpKind::sigmoid, {x});
  ir::NodeId other = x;
  if (d.chance(0.4)) {
    other = b.input(shape, values);
    b.note("gate: sigmoid(x) times another input");
  } else {
    b.note("SiLU: x times sigmoid(x)");
  }
  const bool swapped = d.chance(0.5);
  if (swapped) b.note("mul(other, sigmoid)");
  b.target(ir::OpKind::mul_elem,
           swapped ? std::vector{other, sigmoid} : std::vector{sigmoid, other});
}

const OracleRegistration registration{{
    .name = "onednn.sigmoid_mul.oracle",
    .capsule = "onednn.sigmoid_mul",
    .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 0},
    .build = build,
    .covers = "rank 1-4, signed inputs up to +-32; the mul's other operand the sigmoid's own input "
              "(SiLU) or another input of that shape (a gate); either order",
}};

}  // namespace
}  // namespace nnplan::oracles
