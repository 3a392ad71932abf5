// The backend op of each IR op kind, read from the backend_op column of ir/op_kinds.def: the ir
// layer keeps the rows but cannot name backend ops, so this file consumes the same row list and
// builds its own table indexed by kind.
#include "nnplan/backend/op_mapping.hpp"

#include <array>
#include <cstddef>

namespace nnplan::backend {
namespace {

// The backend_op column's names: every BackendOp enumerator, and `none` for no runtime work.
namespace column {
using enum BackendOp;
inline constexpr std::nullopt_t none = std::nullopt;
}  // namespace column

constexpr auto kBackendOpOfKind = std::to_array<std::optional<BackendOp>>({
#define NNPLAN_OP_KIND(enumerator, spelling, origin, min, max, Params, fields, payloads, rule, \
                       dtype_rule, backend_op)                                                 \
  std::optional<BackendOp>(column::backend_op),
#include "nnplan/ir/op_kinds.def"
});
static_assert(kBackendOpOfKind.size() == ir::kOpKindCount);

}  // namespace

std::optional<BackendOp> backend_op_of(ir::OpKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  return index < kBackendOpOfKind.size() ? kBackendOpOfKind[index] : std::nullopt;
}

}  // namespace nnplan::backend
