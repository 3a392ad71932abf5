// onednn.batch_norm.oracle: compares the capsule onednn.batch_norm (fast_cpu) with
// reference.batch_norm (checked_cpu).
// Draws: input (N, C, ...) of rank 2-5, channel axis 1, epsilon 1e-5 to 1e-2.
// Tolerance: abs 1e-05, rel 1e-05, norm 1e-06 (|got - want| <= abs + rel * |want| + norm *
// max|want|):
// oneDNN may fold scale / sqrt(var + epsilon) into one factor before applying it; the reference
// applies the formula in its order.
#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  Draw& d = b.draw();
  ir::Shape shape = d.shape(0, 3, 6, 512);
  const ir::Dim channels = d.between(1, 8);
  shape.dims.insert(shape.dims.begin(), {d.between(1, 2), channels});
  const ir::NodeId x = b.input(shape, d.signed_values());
  const ir::NodeId bn = b.target(
      ir::OpKind::batch_norm_eval, {x},
      ir::ChannelAxisParams{.channel_axis = 1, .channels = static_cast<std::uint32_t>(channels)});
  const ir::Shape per_channel{{channels}};
  b.weight(bn, "scale", per_channel, d.signed_values());
  b.weight(bn, "bias", per_channel, d.signed_values());
  b.weight(bn, "mean", per_channel, d.signed_values());
  b.weight(bn, "var", per_channel, Values{.lo = 0.0F, .hi = 4.0F, .zeros = 0.2});
  const double epsilon = d.pick({1e-5, 1e-3, 1e-2});
  b.attribute(bn, "epsilon", epsilon);
  b.note("batch_norm channels " + std::to_string(channels) + " epsilon " + std::to_string(epsilon) +
         ", some variances 0");
}

const OracleRegistration registration{{
    .name = "onednn.batch_norm.oracle",
    .capsule = "onednn.batch_norm",
    .tolerance = {.abs = 1e-05, .rel = 1e-05, .norm = 1e-06},
    .build = build,
    .covers = "input (N, C, ...) of rank 2-5, channel axis 1, epsilon 1e-5 to 1e-2",
}};

}  // namespace
}  // namespace nnplan::oracles
