// ONNX import: reads an ONNX ModelProto with ONNX's own protobuf schema
// (Debian's libonnx-dev) and converts its graph into the nnplan IR plus a payload store holding
// every initializer and constant. Supported: float32 tensors with static shapes, default-domain
// opsets up to 17, and the operators listed by `supported_onnx_ops()`. A dynamic input dimension
// takes the size OnnxImportOptions gives it (input_shapes or open_dim_size) and is listed in
// ImportedModel::symbolic_dims. Everything else (another operator, dtype, attribute value, or a
// dynamic dimension given no size) is an `unsupported` error, and a
// malformed model an `invalid_input` one, naming the ONNX node, its op type, the opset and the
// reason, plus the supported operators; nothing is skipped silently. An `unsupported` error lists
// every unsupported node of the model, one per note (Error::notes), not just the first. Nodes
// whose inputs are all constants (or, for Shape and Size, have a static shape) are folded into
// constants at import time. Each IR node keeps the name of the ONNX node it came from in
// `Node::source_name`, and the names of the folded nodes whose results it consumed in
// `ImportedModel::folded_sources`. No exception leaves these functions: running out of memory is
// a `resource_exhausted` error naming what was being read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/error.hpp"
#include "nnplan/format/payload_file.hpp"
#include "nnplan/ir/check.hpp"
#include "nnplan/ir/graph.hpp"
#include "nnplan/ir/weights.hpp"

namespace nnplan::format {

struct OnnxImportOptions {
  // Fixes dynamic (symbolic or unknown) input dimensions: graph input name -> full shape.
  std::map<std::string, std::vector<std::uint64_t>> input_shapes;
  // The size a dynamic input dimension that input_shapes leaves open is planned at (each is listed
  // in ImportedModel::symbolic_dims). Unset: such a dimension is an `unsupported` error that says
  // how to fix it with input_shapes (nnplan convert, whose JSON graph has only static shapes).
  std::optional<std::uint64_t> open_dim_size;
  // When false, ImportedModel::payloads stays empty and no weight is decoded or copied: the graph
  // is the same, and every weight's data type and element count is still checked. For callers
  // that plan and never read a weight (nnplan plan, explain, dot, verify).
  bool keep_payloads = true;
  // Where the files of tensors with external data (data_location EXTERNAL) lie: the model's
  // directory. They are read only when payloads are kept, and only from files in this
  // directory. import_onnx_file sets it to the model's directory when it is empty; for
  // import_onnx, empty means that a payload with external data is refused, saying so.
  std::filesystem::path external_data_dir;
  // Test seam, unset outside tests: called before each step of the import with what the step
  // reads, as an out-of-memory message names it ("the protobuf bytes", "the initializers",
  // "graph node 3 (0-based)", ...). A test throws from it (std::bad_alloc, say) to check that
  // the exception becomes an Error.
  std::function<void(const std::string& reading)> test_before_reading;
};

// One input dimension the model leaves dynamic: a `dim_param` (`"batch"`) or no value at all.
struct SymbolicDim {
  std::string input;       // the graph input's name
  std::size_t axis = 0;    // 0-based
  std::string name;        // the model's dim_param; empty when the dimension is unnamed
  std::uint64_t size = 0;  // the size it was planned at
  // Whether OnnxImportOptions::input_shapes gave `size`; false: open_dim_size did.
  bool fixed = false;
};

// `'batch' (input 'x' axis 0) = 4`, or `unnamed (input 'x' axis 1) = 1`: how a person reads one.
[[nodiscard]] std::string describe(const SymbolicDim& dim);

// The --input-shape flags that plan other sizes for the open dimensions of `dims` that are not
// fixed, one per input that has one, in input order: the input's shape in `graph` with each such
// dimension a placeholder (`--input-shape x=1,3,<height>,<width>`, `<size>` when unnamed).
[[nodiscard]] std::string input_shape_flags(std::span<const SymbolicDim> dims,
                                            const ir::Graph& graph);

struct ImportedModel {
  // The imported graph, checked: the importer infers every node's shape as it goes, so the result
  // passes ir::check by construction, and import_onnx checks it once more to guard that.
  ir::CheckedGraph checked;
  ir::WeightStore payloads;
  std::int64_t opset = 0;  // default-domain opset the model imports
  std::string producer;    // producer_name and producer_version, when set
  // The ONNX nodes folded into constants at import time (docs/onnx-support.md, "Constant
  // folding") behind each IR node that consumes their result: IR node id -> the folded nodes'
  // names, in node order, each once. IR nodes that consumed no folded constant are absent.
  std::map<ir::NodeId, std::vector<std::string>> folded_sources;
  // The files the initializers keep their data in (external data, in the model's directory),
  // each once, in initializer order: files a command must never write over, like the model.
  std::vector<std::filesystem::path> external_data_files;
  // The graph outputs' names (graph.output), in the order of the graph's output_ids.
  std::vector<std::string> output_names;
  // The input dimensions the model leaves dynamic, in input and axis order, with the size each was
  // imported at.
  std::vector<SymbolicDim> symbolic_dims;
  // The graph outputs' dimensions the model declares dynamic (a dim_param, or a declared dimension
  // without a value), in output and axis order: `input` names the output here, and `size` is the
  // size the import inferred for it.
  std::vector<SymbolicDim> symbolic_output_dims;

  [[nodiscard]] const ir::Graph& graph() const { return checked.graph(); }
};

// ONNX files past this size are refused before parsing: the largest message protobuf parses
// (INT_MAX bytes), which is also the limit `import_onnx` applies to its bytes.
inline constexpr std::uintmax_t kMaxOnnxFileBytes = std::numeric_limits<int>::max();

// The limits of a declared shape (nnplan/format/limits.hpp) applied to the shapes `options` fixes:
// each has rank 1..kMaxRank, every dimension is 1..kMaxDim and the elements number at most
// kMaxTensorElements. invalid_input naming the input and the limit it breaks ("input shape for
// 'x' has rank 100; the limit is 64"). import_onnx applies it before reading a byte, so every
// importer's input shapes are held to it; a caller checks first to report a bad flag as a usage
// error (the command line, through check_graph_file_options in graph_file.hpp).
[[nodiscard]] Expected<void> check_input_shapes(const OnnxImportOptions& options);

// Imports a serialized ModelProto. `source` names the input in messages. The input shapes of
// `options` must pass check_input_shapes; the error then names `source` first.
[[nodiscard]] Expected<ImportedModel> import_onnx(std::span<const std::byte> bytes,
                                                  std::string_view source,
                                                  const OnnxImportOptions& options = {}) noexcept;
// The same, for `bytes` that lie inside what `owner` keeps alive (a mapped file, say): the
// payloads are views into them where their bytes are aligned and already laid out as the graph
// wants, and share `owner`; a null owner copies them, as the overload above does.
[[nodiscard]] Expected<ImportedModel> import_onnx(
    std::span<const std::byte> bytes, std::string_view source, const OnnxImportOptions& options,
    std::shared_ptr<const ir::WeightBytes> owner) noexcept;

// Reads and imports an ONNX file; unreadable or oversized files name the path. External data is
// read from the file's directory unless `options` names another.
[[nodiscard]] Expected<ImportedModel> import_onnx_file(
    const std::filesystem::path& path, const OnnxImportOptions& options = {}) noexcept;

// A graph input or output as the model declares it.
struct OnnxValueInfo {
  std::string name;
  // float32, int64 or bool; nullopt for any other type (the importer refuses it when it is used).
  std::optional<ir::DType> dtype;
  // Whether the model declares a shape; then each dimension's size, nullopt where the model leaves
  // it open, and dim_names[i] its dim_param ("" when it has none or is not open).
  bool has_shape = false;
  std::vector<std::optional<std::uint64_t>> dims;
  std::vector<std::string> dim_names;
};

// The model's graph inputs (initializers excepted) and outputs, in graph order.
struct OnnxInterface {
  std::vector<OnnxValueInfo> inputs;
  std::vector<OnnxValueInfo> outputs;
};

// Reads the interface of the ONNX model at `path` without importing its nodes or weights, so that
// a caller can give open dimensions their sizes before it plans (the sizes of the files nnplan run
// is given). A file that cannot be read or is not a model is an error (invalid_input, naming it);
// the import names the problem in full.
[[nodiscard]] Expected<OnnxInterface> read_onnx_interface(
    const std::filesystem::path& path) noexcept;

// The ONNX operators the importer maps, sorted.
[[nodiscard]] std::span<const std::string_view> supported_onnx_ops();

}  // namespace nnplan::format
