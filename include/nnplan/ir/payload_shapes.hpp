// The shape each payload of a node must have (SPEC §6, §11): the rule of each PayloadShape of the
// op table's payload slots (op_table.hpp), in one place. The payload file's checks
// (format/payload_file) and the reference kernels' weight guards both ask it.
#pragma once

#include <span>

#include "nnplan/error.hpp"
#include "nnplan/ir/graph.hpp"
#include "nnplan/ir/op_table.hpp"

namespace nnplan::ir {

// The shape `node`'s payload of slot shape `rule` must have, from the node's parameters, its
// declared shape and its parents' shapes (`parents[i]` the shape of parent i, null where the
// caller does not know it). invalid_input naming the node where they do not determine one
// (parameters of another kind, a parent missing, an axis out of range, or a rule of `none`).
[[nodiscard]] Expected<Shape> payload_shape(const Node& node, PayloadShape rule,
                                            std::span<const Shape* const> parents);

}  // namespace nnplan::ir
