// onednn.attention.oracle: compares the capsule onednn.attention (fast_cpu) with
// reference.attention (checked_cpu).
// Draws: q [..., L, E], k [..., S, E], v [..., S, Ev] with 0 to 2 leading axes, L and S 1-32, E and
// Ev 1-48, causal or not, the default scale or one drawn, inputs up to +-3.
// Tolerance: abs 1e-05, rel 0.0001, norm 2e-05 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN sums the dot products and the exponentials in its own order with its own exp.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  Draw& d = b.draw();
  std::vector<ir::Dim> lead;
  const std::uint32_t leading = d.between(0, 2);
  for (std::uint32_t i = 0; i < leading; ++i) lead.push_back(d.between(1, 4));
  const auto with = [&](ir::Dim rows, ir::Dim cols) {
    ir::Shape s;
    s.dims = lead;
    s.dims.push_back(rows);
    s.dims.push_back(cols);
    return s;
  };
  const ir::Dim l = d.between(1, 32);
  const ir::Dim s = d.chance(0.5) ? l : d.between(1, 32);
  const ir::Dim e = d.between(1, 48);
  const ir::Dim ev = d.chance(0.5) ? e : d.between(1, 48);
  ir::AttentionParams params{.causal = d.chance(0.5), .scale = std::nullopt};
  if (d.chance(0.3)) params.scale = d.pick({0.05F, 0.125F, 0.5F, 1.0F});
  const Values values{.lo = -3.0F, .hi = 3.0F, .zeros = 0.05};
  const ir::NodeId q = b.input(with(l, e), values);
  const ir::NodeId k = b.input(with(s, e), values);
  const ir::NodeId v = b.input(with(s, ev), values);
  b.note(std::string(params.causal ? "causal" : "not causal") + ", scale " +
         (params.scale ? std::to_string(*params.scale) : std::string("1/sqrt(E)")));
  b.target(ir::OpKind::scaled_dot_product_attention, {q, k, v}, params);
}

const OracleRegistration registration{{
    .name = "onednn.attention.oracle",
    .capsule = "onednn.attention",
    .tolerance = {.abs = 1e-05, .rel = 0.0001, .norm = 2e-05},
    .build = build,
    .covers = "0-2 leading axes, L and S 1-32, E and Ev 1-48, causal or not, default or drawn "
              "scale",
}};

}  // namespace
}  // namespace nnplan::oracles
