// onednn.matmul_add.oracle: compares the fused capsule onednn.matmul_add (one `fused` group
// under fast_cpu) with the reference provider running the chain node by node (checked_cpu).
// Draws: draw_matmul's shapes; addend a full input or a broadcast one (Gemm's C row); either
// operand order.
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
  const ir::NodeId mm = draw_matmul(b);
  const ir::NodeId addend = draw_operand(b, b.shape_of(mm), d.signed_values());
  const bool swapped = d.chance(0.5);
  if (swapped) b.note("add(addend, matmul)");
  b.target(ir::OpKind::add, swapped ? std::vector{addend, mm} : std::vector{mm, addend});
}

const OracleRegistration registration{{
    .name = "onednn.matmul_add.oracle",
    .capsule = "onednn.matmul_add",
    .tolerance = {.abs = 1e-05, .rel = 0.0001, .norm = 2e-05},
    .build = build,
    .covers = "draw_matmul's shapes; addend a full input or a broadcast one (Gemm's C row); either "
              "operand order",
}};

}  // namespace
}  // namespace nnplan::oracles
