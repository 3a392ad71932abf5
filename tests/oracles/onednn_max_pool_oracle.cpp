// onednn.max_pool.oracle: compares the capsule onednn.max_pool (fast_cpu) with
// reference.max_pool (checked_cpu).
// Draws: 1-D to 3-D; kernel 1-3 or global; stride 1-3; symmetric pads; ONNX asymmetric pads and
// ceil_mode as the importer lowers them (-inf borders).
// Tolerance: abs 0, rel 0, norm 0 (|got - want| <= abs + rel * |want| + norm * max|want|):
// a maximum rounds nothing, so both must agree exactly. Not drawn: a window whose every element
// is -inf, which the importer never produces from ONNX pads below the kernel; there oneDNN
// returns -FLT_MAX where the reference returns -inf.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_pool(b, true);
}

const OracleRegistration registration{{
    .name = "onednn.max_pool.oracle",
    .capsule = "onednn.max_pool",
    .tolerance = {.abs = 0, .rel = 0, .norm = 0},
    .build = build,
    .covers = "1-D to 3-D; kernel 1-3 or global; stride 1-3; symmetric pads; ONNX asymmetric pads "
              "and ceil_mode as the importer lowers them (-inf borders)",
}};

}  // namespace
}  // namespace nnplan::oracles
