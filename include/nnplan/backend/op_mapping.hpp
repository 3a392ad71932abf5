// The bridge from IR op kinds to the backend op vocabulary (SPEC §6): which backend op a node of
// each kind runs, or none for nodes without runtime work (input, const, detach): the backend_op
// column of ir/op_kinds.def. It lives in the backend layer so that the IR depends on nothing but
// the standard library.
#pragma once

#include <optional>

#include "nnplan/backend/vocabulary.hpp"
#include "nnplan/ir/op_kind.hpp"

namespace nnplan::backend {

// The backend op a node of this kind runs; nullopt for input, const and detach, and for a value
// outside the enum.
[[nodiscard]] std::optional<BackendOp> backend_op_of(ir::OpKind kind);

}  // namespace nnplan::backend
