// onednn.softmax.oracle: compares the capsule onednn.softmax (fast_cpu) with reference.softmax
// (checked_cpu).
// Draws: rank 1-4, every axis, inputs up to +-60 (large exponents).
// Tolerance: abs 1e-06, rel 1e-05, norm 0 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN sums the exponentials in its own order with its own exp.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 16, 2048);
  const auto axis = d.between(0, static_cast<std::uint32_t>(shape.rank() - 1));
  const float m = d.pick({1.0F, 8.0F, 60.0F});
  const ir::NodeId x = b.input(shape, Values{.lo = -m, .hi = m, .zeros = 0.1});
  b.note("axis " + std::to_string(axis));
  b.target(ir::OpKind::softmax, {x}, ir::AxisParams{.axis = axis});
}

const OracleRegistration registration{{
    .name = "onednn.softmax.oracle",
    .capsule = "onednn.softmax",
    .tolerance = {.abs = 1e-06, .rel = 1e-05, .norm = 0},
    .build = build,
    .covers = "rank 1-4, every axis, inputs up to +-60 (large exponents)",
}};

}  // namespace
}  // namespace nnplan::oracles
