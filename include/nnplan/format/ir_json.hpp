// Reader and writer of graph documents (SPEC §6; field by field in docs/formats.md): TorchLean's
// `torchlean.ir.v1`, in its current and its legacy vocabulary, and `nnplan.ir.v1`, the same
// schema with nnplan's extension kinds. The reader is strict and streams: it walks nlohmann's SAX
// events and builds the ir::Graph directly, so a million-node file is never held as a JSON tree.
// Wrong `format`, unknown kinds, an extension kind in a torchlean.ir.v1 document, missing,
// mistyped, repeated or unknown fields, op fields that do not belong to the node's kind,
// negative, fractional or out-of-range numbers are invalid_input errors naming the source, the
// node (its index, id when it differs, kind as the file spells it and name when known) and the
// field:
//   graph.json: node 3 (conv): field kernel[1]: expected a non-negative integer, found -1
//   graph.json: node 3 (clamp): field min: expected a number or null, found "x"
// A legacy kind (conv2d, max_pool2d, avg_pool2d and their _pad forms, batch_norm2d_nchw_eval,
// swap_first_two, transpose3d_last_two; flatten with `in_shape`) is read with its own fields
// into the current kind it stands for, and a legacy `output_id` into a one-entry `output_ids`.
// Problems are reported in document order, one per call; the error's `position` is the node's
// index. The reader does not run ir::check: ids, parents, arity and shapes are the checker's
// business, so callers run `ir::check` on the result. No input makes the reader crash or throw.
//
// The writer produces the canonical form of the current vocabulary: keys in a fixed order
// (format, input_id, output_ids, nodes; in a node id, kind, parents, shape, the kind's op fields
// in the op-kind table's order, then name when non-empty), one node per line, and format
// ir_format_for(graph). write(read(text)) == text for canonical documents, read(write(g)) == g
// for every graph whose parameters match their kinds and hold finite floats, and writing is
// deterministic.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "nnplan/error.hpp"
#include "nnplan/ir/graph.hpp"

namespace nnplan::format {

// TorchLean's format, and nnplan's superset of it that adds the extension kinds (op-kind table
// origin `nnplan`).
inline constexpr std::string_view kIrFormat = "torchlean.ir.v1";
inline constexpr std::string_view kNnplanIrFormat = "nnplan.ir.v1";

// Graph files past this size are refused before the reader allocates for them.
inline constexpr std::uintmax_t kMaxIrFileBytes = std::uintmax_t{1} << 30;

// Parses a `torchlean.ir.v1` or `nnplan.ir.v1` document. `source` names the input in messages (a
// path or
// "<memory>").
[[nodiscard]] Expected<ir::Graph> parse_ir_json(std::string_view text, std::string_view source);

// Reads and parses a graph file; an unreadable path, a directory or a file over kMaxIrFileBytes
// is an invalid_input error naming the path.
[[nodiscard]] Expected<ir::Graph> read_ir_file(const std::filesystem::path& path);

// The format `graph` is written in: kNnplanIrFormat exactly when some node's kind is an nnplan
// extension, else kIrFormat.
[[nodiscard]] std::string_view ir_format_for(const ir::Graph& graph);

// The canonical document for `graph`, with a trailing newline. Parameters that do not belong to
// a node's kind are not written; a node whose parameters hold another kind's alternative is
// written with its kind's defaults. Bytes of a name that are not UTF-8 are written as the text
// `\xNN` (as in every JSON output); a non-finite float (which no document can hold) is written as
// null, which the reader refuses where a number is required.
[[nodiscard]] std::string write_ir_json(const ir::Graph& graph);

}  // namespace nnplan::format
