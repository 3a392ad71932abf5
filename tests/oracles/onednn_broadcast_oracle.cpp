// onednn.broadcast.oracle: compares the capsule onednn.broadcast (fast_cpu) with
// reference.broadcast (checked_cpu).
// Draws: a target shape of rank 1-4, the input that shape's trailing axes (leading axes dropped),
// each 1 or the target's extent, as numpy broadcasting and the importer's Expand write them.
// Tolerance: abs 0, rel 0, norm 0 (|got - want| <= abs + rel * |want| + norm * max|want|):
// a copy, so both must agree exactly.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape to = d.shape(1, 4, 12);
  ir::Shape from;
  const std::uint32_t drop = d.between(0, static_cast<std::uint32_t>(to.rank() - 1));
  for (std::size_t a = drop; a < to.rank(); ++a) {
    from.dims.push_back(d.chance(0.5) ? 1 : to.dims[a]);
  }
  b.note("broadcast " + ir::to_string(from) + " to " + ir::to_string(to));
  const ir::NodeId x = b.input(from, d.signed_values());
  b.target(ir::OpKind::broadcast_to, {x}, ir::BroadcastParams{.from = from, .to = to});
}

const OracleRegistration registration{{
    .name = "onednn.broadcast.oracle",
    .capsule = "onednn.broadcast",
    .tolerance = {.abs = 0, .rel = 0, .norm = 0},
    .build = build,
    .covers = "a target shape of rank 1-4, the input its trailing axes (leading axes dropped), "
              "each 1 or the target's extent",
}};

}  // namespace
}  // namespace nnplan::oracles
