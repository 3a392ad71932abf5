// The guards every provider shares (SPEC §11): a provider's shape guard starts from
// ir_shape_guard (the IR's own shape rule over the call's operands and payloads) and adds only
// its own limits; its layout guard is the dense row-major view check. No provider reads another
// provider's handler tables for these.
#pragma once

#include <cstddef>
#include <string_view>

#include "nnplan/backend/vocabulary.hpp"
#include "nnplan/runtime/kernel.hpp"

namespace nnplan::runtime {

// Nothing when `call` is one a kernel of `op` may run by the IR's rules: the node's kind runs
// `op` (backend/op_mapping), one input per parent, the node's declared shape what
// ir::infer_shape gives from the inputs' shapes, the output of that shape, and each payload slot
// of the kind filled as the op table says (a required one present; a tensor float32, or int64
// where the slot says so, of ir::payload_shape's shape and holding its elements). invalid_input
// otherwise, naming what is wrong.
[[nodiscard]] Expected<void> ir_shape_guard(const KernelCall& call, backend::BackendOp op);

// The layout guard of dense row-major operands (the reference's canonical-tensor layout and
// onednn's flat-row-major): every operand is a non-null (unless empty), float-aligned view, and
// the output overlaps no input.
[[nodiscard]] Expected<void> canonical_layout_guard(const KernelCall& call);
// The same for a handler whose output may be an input's buffer (in_place_safe): each input
// either is exactly the output's buffer or overlaps it nowhere.
[[nodiscard]] Expected<void> canonical_layout_guard_in_place(const KernelCall& call);

// An error "input I has shape S; <what the op needs>".
[[nodiscard]] Error operand_error(std::string_view operand, const ir::Shape& shape,
                                  std::string_view needs);
// Checks that the call has `count` inputs and that the output has the node's declared shape.
[[nodiscard]] Expected<void> check_arity_and_output(const KernelCall& call, std::size_t count);

}  // namespace nnplan::runtime
