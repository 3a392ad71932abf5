// onednn.slice.oracle: compares the capsule onednn.slice (fast_cpu) with reference.slice
// (checked_cpu).
// Draws: rank 1-4; any axis; start and end within or past the extent (the importer clamps ONNX's
// negative and huge bounds to these), step 1 (most cases, as BERT's QKV split) to 3, and
// sometimes an empty slice.
// Tolerance: abs 0, rel 0, norm 0 (|got - want| <= abs + rel * |want| + norm * max|want|):
// a copy, so both must agree exactly.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 12);
  const ir::NodeId x = b.input(shape, d.signed_values());
  const auto axis = d.between(0, static_cast<std::uint32_t>(shape.rank() - 1));
  const std::uint32_t extent = static_cast<std::uint32_t>(shape.dims[axis]);
  ir::SliceParams p{.axis = axis, .start = d.between(0, extent), .end = 0, .step = 1};
  p.end = d.chance(0.1) ? p.start : d.between(static_cast<std::uint32_t>(p.start), extent + 2);
  if (d.chance(0.3)) p.step = d.between(2, 3);
  b.note("slice axis " + std::to_string(p.axis) + " " + std::to_string(p.start) + ":" +
         std::to_string(p.end) + ":" + std::to_string(p.step));
  b.target(ir::OpKind::slice, {x}, p);
}

const OracleRegistration registration{{
    .name = "onednn.slice.oracle",
    .capsule = "onednn.slice",
    .tolerance = {.abs = 0, .rel = 0, .norm = 0},
    .build = build,
    .covers = "rank 1-4, any axis, start and end within or past the extent, step 1 to 3, "
              "sometimes empty",
}};

}  // namespace
}  // namespace nnplan::oracles
