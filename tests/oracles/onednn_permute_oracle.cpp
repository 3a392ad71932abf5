// onednn.permute.oracle: compares the capsule onednn.permute (fast_cpu) with reference.permute
// (checked_cpu).
// Draws: rank 1-4; a permute of a random permutation of the axes (the importer's Transpose), or
// a transpose of two axes.
// Tolerance: abs 0, rel 0, norm 0 (|got - want| <= abs + rel * |want| + norm * max|want|):
// a copy, so both must agree exactly.
#include <algorithm>
#include <numeric>

#include "draws.hpp"

namespace nnplan::oracles {
namespace {

void build(CaseBuilder& b) {
  Draw& d = b.draw();
  const ir::Shape shape = d.shape(1, 4, 12);
  const ir::NodeId x = b.input(shape, d.signed_values());
  const auto rank = static_cast<std::uint32_t>(shape.rank());
  if (rank >= 2 && d.chance(0.3)) {
    const std::uint32_t a = d.between(0, rank - 1);
    std::uint32_t c = d.between(0, rank - 2);
    if (c >= a) ++c;
    b.note("transpose of axes " + std::to_string(a) + " and " + std::to_string(c));
    b.target(ir::OpKind::transpose, {x}, ir::TransposeParams{.axis1 = a, .axis2 = c});
    return;
  }
  std::vector<std::uint32_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0U);
  for (std::uint32_t i = rank; i > 1; --i)
    std::swap(perm[i - 1], perm[d.between(0, i - 1)]);
  std::string text;
  for (std::uint32_t axis : perm)
    text += (text.empty() ? "" : ",") + std::to_string(axis);
  b.note("perm [" + text + "]");
  b.target(ir::OpKind::permute, {x}, ir::PermuteParams{.perm = perm});
}

const OracleRegistration registration{{
    .name = "onednn.permute.oracle",
    .capsule = "onednn.permute",
    .tolerance = {.abs = 0, .rel = 0, .norm = 0},
    .build = build,
    .covers = "rank 1-4; a random permutation of the axes, or a transpose of two axes",
}};

}  // namespace
}  // namespace nnplan::oracles
