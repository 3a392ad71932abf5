// Constant folding at import time: a graph node whose inputs are all constants (initializers,
// Constant outputs, earlier folded results), or a Shape or Size node, whose input always has a
// static shape, is evaluated by the importer into a constant (ConstTensor) instead of being
// imported as IR nodes. This is how the int64 shape arithmetic real exporters write (Shape,
// Gather, Unsqueeze, Concat, Reshape; ConstantOfShape, Equal, Where, Expand; Cast; Range)
// disappears from the IR. The evaluators live under folding/ (folding/evaluators.hpp); this file
// holds the entry point ImportContext::import_node calls and the provenance rules.
//
// Each folded constant remembers the folded nodes it comes from (ConstTensor::folded_from); an IR
// node emitted by an ONNX node that read such constants records their names
// (ImportedModel::folded_sources).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tensor_decoding.hpp"

namespace nnplan::format::onnx_import {

class ImportContext;

// The most elements one folded tensor may have (2^24): folding a larger one fails naming the
// node, except where the operator also imports as IR nodes over float32 inputs, which it then
// does. Shape arithmetic stays far below it; the cap keeps a hostile ConstantOfShape, Expand or
// Range from allocating in proportion to a value it merely claims.
inline constexpr std::uint64_t kMaxFoldedElements = std::uint64_t{1} << 24;

// The most folded nodes one constant, or one IR node, names as its provenance (the earliest in
// node order), so that long fold chains stay linear.
inline constexpr std::size_t kMaxFoldedSources = 256;

// Folds the current node of `cx` when its op type is foldable and its inputs allow it: defines
// each output as a constant and returns true. Returns false, having defined nothing, when the
// node is to be imported as usual: an op type that does not fold, an input that is not a
// constant, or a float32 result over kMaxFoldedElements of an operator the importer maps.
// Fails (through `cx`) on an input the operator rejects, naming the node and the reason.
[[nodiscard]] bool fold_node(ImportContext& cx);

// Whether nodes of `op_type` fold when their inputs allow it (the importer may still map the
// operator otherwise).
[[nodiscard]] bool folds_op_type(std::string_view op_type);

// Adds `from` to `into`; both in node order, each node once, and so is the result, cut at
// kMaxFoldedSources.
void merge_folded(std::vector<FoldedSource>& into, const std::vector<FoldedSource>& from);

}  // namespace nnplan::format::onnx_import
