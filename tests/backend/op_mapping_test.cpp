// backend_op_of, the backend_op column of ir/op_kinds.def: a kind whose spelling is a backend op
// runs that op; the kinds SPEC §6 maps under another name are listed here; the kinds without
// runtime work and values outside the enum run none.
#include "nnplan/backend/op_mapping.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>

namespace nnplan::backend {
namespace {

using ir::OpKind;

std::string shown(std::optional<BackendOp> op) {
  return op ? std::string(to_string(*op)) : std::string("none");
}

TEST(OpMappingTest, AKindSpelledLikeABackendOpRunsIt) {
  std::size_t same_name = 0;
  for (std::size_t i = 0; i < ir::kOpKindCount; ++i) {
    const auto kind = static_cast<OpKind>(i);
    const Expected<BackendOp> op = parse_backend_op(ir::to_string(kind));
    if (!op) continue;
    ++same_name;
    EXPECT_EQ(backend_op_of(kind), *op)
        << ir::to_string(kind) << " -> " << shown(backend_op_of(kind));
  }
  EXPECT_GT(same_name, ir::kOpKindCount / 2);
}

struct Renamed {
  OpKind kind;
  std::optional<BackendOp> op;
};

// SPEC §6's rows whose backend op is not spelled like the kind.
constexpr std::array<Renamed, 12> kRenamed = {{
    {OpKind::input, std::nullopt},
    {OpKind::const_, std::nullopt},
    {OpKind::detach, std::nullopt},
    {OpKind::mul_elem, BackendOp::mul},
    {OpKind::max_elem, BackendOp::max},
    {OpKind::min_elem, BackendOp::min},
    {OpKind::broadcast_to, BackendOp::broadcast},
    {OpKind::sum, BackendOp::reduce_sum},
    {OpKind::batch_norm_eval, BackendOp::batch_norm},
    {OpKind::layernorm, BackendOp::layer_norm},
    {OpKind::flatten, BackendOp::reshape},
    {OpKind::transpose, BackendOp::permute},
}};

TEST(OpMappingTest, KindsMappedUnderAnotherName) {
  for (const Renamed& c : kRenamed) {
    EXPECT_EQ(backend_op_of(c.kind), c.op)
        << ir::to_string(c.kind) << " -> " << shown(backend_op_of(c.kind));
  }
}

// Every kind is covered by one of the two tests above.
TEST(OpMappingTest, EveryKindIsSpelledLikeItsOpOrListedAsRenamed) {
  for (std::size_t i = 0; i < ir::kOpKindCount; ++i) {
    const auto kind = static_cast<OpKind>(i);
    const bool same_name = parse_backend_op(ir::to_string(kind)).has_value();
    const bool renamed = std::any_of(kRenamed.begin(), kRenamed.end(),
                                     [kind](const Renamed& c) { return c.kind == kind; });
    EXPECT_NE(same_name, renamed) << ir::to_string(kind);
  }
}

TEST(OpMappingTest, AValueOutsideTheEnumRunsNone) {
  EXPECT_EQ(backend_op_of(static_cast<OpKind>(ir::kOpKindCount)), std::nullopt);
  EXPECT_EQ(backend_op_of(static_cast<OpKind>(255)), std::nullopt);
}

}  // namespace
}  // namespace nnplan::backend
