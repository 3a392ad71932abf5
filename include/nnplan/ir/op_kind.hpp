// IR op kinds (SPEC §6): the node tags of `torchlean.ir.v1`, their spellings and their arity
// bounds. The enumerators and spellings come from the rows of op_kinds.def; everything else known
// per kind is in the same rows and read through op_table.hpp. Which backend op each kind runs is
// the backend layer's business (backend/op_mapping.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "nnplan/enum_table.hpp"

namespace nnplan::ir {

enum class OpKind : std::uint8_t {
#define NNPLAN_OP_KIND(enumerator, ...) enumerator,
#include "nnplan/ir/op_kinds.def"
};
inline constexpr auto kOpKindNames = std::to_array<std::string_view>({
#define NNPLAN_OP_KIND(enumerator, spelling, ...) spelling,
#include "nnplan/ir/op_kinds.def"
});
inline constexpr std::size_t kOpKindCount = kOpKindNames.size();
static_assert(distinct_spellings(kOpKindNames));

[[nodiscard]] constexpr std::string_view to_string(OpKind v) {
  return enum_name(kOpKindNames, v);
}
[[nodiscard]] inline Expected<OpKind> parse_op_kind(std::string_view s) {
  return parse_enum<OpKind>(kOpKindNames, s, "op kind");
}

// Inclusive bounds on the number of parents (concat: two or more, no upper bound).
struct Arity {
  std::uint32_t min = 0;
  std::uint32_t max = 0;  // kUnbounded for concat
  bool operator==(const Arity&) const = default;
};
inline constexpr std::uint32_t kUnbounded = 0xFFFFFFFFu;
// The kind's row of op_kinds.def; {0, 0} for a value outside the enum.
[[nodiscard]] Arity arity_of(OpKind kind);

}  // namespace nnplan::ir
