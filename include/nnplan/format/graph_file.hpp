// Graph files: the one reader every graph subcommand uses to turn a path into a checked graph,
// whichever format the file is in (`torchlean.ir.v1` JSON or an ONNX model). The format comes from
// the extension (`.onnx`, `.json`) or, for any other name, from the content. The file is read once;
// its digest, when asked for, is of those same bytes. The result holds the checked graph as a
// shared immutable value, ready for backend::plan_model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/error.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "nnplan/ir/check.hpp"

namespace nnplan::format {

enum class GraphFileFormat : std::uint8_t { torchlean_ir, onnx };

// ONNX for a `.onnx` extension, torchlean.ir.v1 for `.json` (either case), nothing for any other
// name.
[[nodiscard]] std::optional<GraphFileFormat> graph_format_from_extension(
    const std::filesystem::path& path);

// The format of a file whose name does not say, from its first bytes: JSON opens with `{` or `[`
// after optional whitespace, and a serialized ModelProto never does (it opens with a field tag,
// 0x08 for ir_version). Bytes that hold only whitespace, or none, are taken for JSON, whose reader
// then names the problem.
[[nodiscard]] GraphFileFormat graph_format_of(std::string_view leading_bytes);

// The extension's format or, for any other name, graph_format_of the first bytes of a regular
// file. A pipe or device is not read (it can be read only once; read_graph_file sniffs it from the
// bytes it reads) and, like a file that cannot be read, is taken for JSON.
[[nodiscard]] GraphFileFormat detect_graph_format(const std::filesystem::path& path);

struct GraphFileOptions {
  // Whether to compute the sha256 digest of the file's bytes (format::sha256_digest).
  bool digest = false;
  // Whether to read and check the payload file beside a torchlean.ir.v1 graph (payload_path_for):
  // when it exists it must read and match the graph (ir::check_weights), else loading fails.
  bool check_payloads = true;
  // Whether to keep the weights (LoadedGraph::payloads) for running the graph: an ONNX model's
  // initializers (external data read from the model's directory) or the payload file beside a
  // torchlean.ir.v1 graph. Planning never needs them.
  bool keep_weights = false;
  // Passed to the ONNX importer; input shapes given for a torchlean.ir.v1 file are an error.
  OnnxImportOptions onnx;
};

// What was learned about a graph's weights while it was loaded.
struct WeightsCheck {
  enum class Status : std::uint8_t {
    checked,      // the payload file beside the graph was read and matches it
    absent,       // no payload file beside the graph: planning needs none, nothing was checked
    not_looked,   // the graph came from a pipe or device, which has nothing beside it
    in_model,     // an ONNX model carries its weights; the importer checked their sizes
    not_checked,  // GraphFileOptions::check_payloads was off
  };
  Status status = Status::not_checked;
  std::string payload_path;  // the payload file read or looked for (checked, absent)
  std::size_t tensors = 0;   // tensors and attributes in it (checked)
  std::size_t attributes = 0;

  // One line for a person: "weights: 4 tensors and 0 attributes in g.payloads match the graph",
  // "weights: not checked: no payload file g.payloads beside g.json (planning needs none)", ...
  [[nodiscard]] std::string describe(std::string_view graph_path) const;
};

// `<graph path without its extension>.payloads`: where a torchlean.ir.v1 graph's payload file
// lives (examples/mlp.json -> examples/mlp.payloads), as `nnplan convert` writes it.
[[nodiscard]] std::filesystem::path payload_path_for(const std::filesystem::path& graph_path);

// A graph file read and checked.
struct LoadedGraph {
  std::string path;
  GraphFileFormat format = GraphFileFormat::torchlean_ir;
  std::optional<std::string> digest;  // set when asked for
  std::shared_ptr<const ir::CheckedGraph> graph;
  WeightsCheck weights;
  // ONNX only: the ONNX nodes the importer evaluated away (constant folding) whose results each
  // IR node consumes (ImportedModel::folded_sources).
  std::map<ir::NodeId, std::vector<std::string>> folded_sources;

  // The weights, when GraphFileOptions::keep_weights asked for them and the graph has some (null
  // for a torchlean.ir.v1 graph without a payload file beside it).
  std::shared_ptr<const ir::WeightStore> payloads;
  // ONNX only: the files its initializers keep their data in (ImportedModel::
  // external_data_files).
  std::vector<std::filesystem::path> external_data_files;
  // ONNX only: the graph outputs' names, in graph order.
  std::vector<std::string> output_names;
  // ONNX only: the input dimensions the model leaves dynamic and the size each was planned at
  // (ImportedModel::symbolic_dims).
  std::vector<SymbolicDim> symbolic_dims;
  // ONNX only: the graph outputs' dimensions the model declares dynamic
  // (ImportedModel::symbolic_output_dims).
  std::vector<SymbolicDim> symbolic_output_dims;
  // Whether node names are ONNX node names (provenance) rather than labels of the JSON file.
  [[nodiscard]] bool onnx() const { return format == GraphFileFormat::onnx; }
};

// Why a graph file could not be loaded, with what was learned before it failed: plan artifacts
// record a malformed graph's digest and node count when they are known.
struct GraphFileFailure {
  // Names the file and, where there is one, the node and field: `<path>: node 1 (relu): ...`.
  Error error;
  std::optional<std::string> digest;  // set when asked for and the bytes could be read
  std::optional<std::size_t> nodes;   // set when the file parsed as a graph
};

// The checks read_graph_file makes on its options before it reads a byte of the file: input shapes
// apply only to an ONNX model (detect_graph_format), and pass check_input_shapes (onnx_import.hpp,
// which import_onnx applies too). A command line
// calls it first to report a bad flag as a usage error.
[[nodiscard]] std::expected<void, Error> check_graph_file_options(const std::filesystem::path& path,
                                                                  const GraphFileOptions& options);

// Reads, parses and checks a graph file of either format. ONNX models are imported with
// `options.onnx`, keeping their weights (views into the mapped model) only with
// `options.keep_weights` (planning reads no weight). A torchlean.ir.v1 graph's payload file, when
// one lies beside it, is read and checked against the graph (GraphFileOptions::check_payloads).
// Errors are invalid_input: an unreadable or oversized file, a malformed document or model, a graph
// that fails ir::check, a payload file that cannot be read or does not match, or options that fail
// check_graph_file_options.
[[nodiscard]] std::expected<LoadedGraph, GraphFileFailure> read_graph_file(
    const std::filesystem::path& path, const GraphFileOptions& options = {});

}  // namespace nnplan::format
