// onednn.softplus.oracle: compares the capsule onednn.softplus (fast_cpu) with
// reference.softplus (checked_cpu).
// Draws: rank 1-4, signed inputs up to +-32.
// Tolerance: abs 4e-06, rel 1e-05, norm 0 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN evaluates log(1 + exp(x)) with its own vectorised approximation; the reference calls
// the C library, whose absolute error reaches the ulp of the input's magnitude (it returns
// -2^-19 for inputs near -18, where the value is about 2e-8).
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  draw_unary(b, ir::OpKind::softplus, b.draw().signed_values());
}

const OracleRegistration registration{{
    .name = "onednn.softplus.oracle",
    .capsule = "onednn.softplus",
    .tolerance = {.abs = 4e-06, .rel = 1e-05, .norm = 0},
    .build = build,
    .covers = "rank 1-4, signed inputs up to +-32",
}};

}  // namespace
}  // namespace nnplan::oracles
