// onednn.layer_norm.oracle: compares the capsule onednn.layer_norm (fast_cpu) with
// reference.layer_norm (checked_cpu).
// Draws: rank 1-4, every axis, gamma and beta each present or not, epsilon default or 1e-3,
// inputs offset from zero.
// Tolerance: abs 1e-05, rel 0.0001, norm 1e-05 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN computes the mean and variance in its own order (and may use one pass); the reference
// uses two passes left to right.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 12, 2048);
  const auto axis = d.between(0, static_cast<std::uint32_t>(shape.rank() - 1));
  const Values raw = d.signed_values();
  const float offset = d.pick({0.0F, 0.0F, 3.0F, -10.0F});
  const ir::NodeId x =
      b.input(shape, Values{.lo = raw.lo + offset, .hi = raw.hi + offset, .zeros = 0.05});
  const ir::NodeId ln = b.target(ir::OpKind::layernorm, {x}, ir::AxisParams{.axis = axis});
  const ir::Shape normalized{{shape.dims.begin() + axis, shape.dims.end()}};
  const bool gamma = d.chance(0.6);
  const bool beta = d.chance(0.6);
  if (gamma) b.weight(ln, "gamma", normalized, d.signed_values());
  if (beta) b.weight(ln, "beta", normalized, d.signed_values());
  const bool epsilon = d.chance(0.5);
  if (epsilon) b.attribute(ln, "epsilon", 1e-3);
  b.note("layernorm axis " + std::to_string(axis) + (gamma ? " gamma" : " no gamma") +
         (beta ? " beta" : " no beta") + (epsilon ? " epsilon 1e-3" : " epsilon default"));
}

const OracleRegistration registration{{
    .name = "onednn.layer_norm.oracle",
    .capsule = "onednn.layer_norm",
    .tolerance = {.abs = 1e-05, .rel = 0.0001, .norm = 1e-05},
    .build = build,
    .covers = "rank 1-4, every axis, gamma and beta each present or not, epsilon default or 1e-3, "
              "inputs offset from zero",
}};

}  // namespace
}  // namespace nnplan::oracles
