#include "nnplan/format/graph_file.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <span>
#include <string_view>
#include <utility>

#include "bounded_file.hpp"
#include "message_text.hpp"
#include "nnplan/exception_boundary.hpp"
#include "nnplan/format/ir_json.hpp"
#include "nnplan/format/limits.hpp"
#include "nnplan/format/payload_file.hpp"
#include "nnplan/format/plan_artifact.hpp"

namespace nnplan::format {

std::optional<GraphFileFormat> graph_format_from_extension(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".onnx") return GraphFileFormat::onnx;
  if (extension == ".json") return GraphFileFormat::torchlean_ir;
  return std::nullopt;
}

GraphFileFormat graph_format_of(std::string_view leading_bytes) {
  for (const char c : leading_bytes) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) continue;
    return c == '{' || c == '[' ? GraphFileFormat::torchlean_ir : GraphFileFormat::onnx;
  }
  return GraphFileFormat::torchlean_ir;
}

GraphFileFormat detect_graph_format(const std::filesystem::path& path) {
  if (auto format = graph_format_from_extension(path)) return *format;
  if (!detail::is_regular_file(path)) return GraphFileFormat::torchlean_ir;
  std::ifstream in(path, std::ios::binary);
  std::string leading;
  for (char c = 0; in.get(c);) {
    leading.push_back(c);
    if (std::isspace(static_cast<unsigned char>(c)) == 0) break;
  }
  return graph_format_of(leading);
}

std::filesystem::path payload_path_for(const std::filesystem::path& graph_path) {
  std::filesystem::path path = graph_path;
  path.replace_extension(".payloads");
  return path;
}

std::string WeightsCheck::describe(std::string_view graph_path) const {
  const std::string graph = detail::escape_controls(std::string(graph_path));
  const std::string payloads = detail::escape_controls(payload_path);
  const auto count = [](std::size_t n, std::string_view what) {
    return std::to_string(n) + " " + std::string(what) + (n == 1 ? "" : "s");
  };
  switch (status) {
    case Status::checked:
      return "weights: " + count(tensors, "tensor") + " and " + count(attributes, "attribute") +
             " in " + payloads + " match the graph";
    case Status::absent:
      return "weights: not checked: no payload file " + payloads + " beside " + graph +
             " (planning needs none)";
    case Status::not_looked:
      return "weights: not checked: " + graph +
             " is not a regular file, so no payload file lies beside it (planning needs none)";
    case Status::in_model:
      return "weights: in the model; their types and sizes were checked on import";
    case Status::not_checked:
      return "weights: not checked";
  }
  return "weights: not checked";
}

namespace {

Error input_shapes_for_json(const std::string& path) {
  return make_error(ErrorKind::invalid_input,
                    "input shapes apply to ONNX models; " + detail::escape_controls(path) +
                        " is a torchlean.ir.v1 graph, whose shapes are declared in the file");
}

}  // namespace

std::expected<void, Error> check_graph_file_options(const std::filesystem::path& path,
                                                    const GraphFileOptions& options) {
  // A pipe is not sniffed here (it can be read only once); read_graph_file checks its bytes.
  if (!options.onnx.input_shapes.empty() &&
      (graph_format_from_extension(path) == GraphFileFormat::torchlean_ir ||
       (detail::is_regular_file(path) && detect_graph_format(path) != GraphFileFormat::onnx))) {
    return std::unexpected(input_shapes_for_json(path.string()));
  }
  return check_input_shapes(options.onnx);
}

namespace {

std::unexpected<GraphFileFailure> failure(Error error, std::optional<std::string> digest,
                                          std::optional<std::size_t> nodes = std::nullopt) {
  return std::unexpected(
      GraphFileFailure{.error = std::move(error), .digest = std::move(digest), .nodes = nodes});
}

// Reads the payload file beside a torchlean.ir.v1 graph, when there is one, and checks it.
Expected<WeightsCheck> check_payloads_beside(const std::filesystem::path& graph_path,
                                             const ir::Graph& graph,
                                             std::shared_ptr<const ir::WeightStore>* kept) {
  WeightsCheck check;
  if (!detail::is_regular_file(graph_path)) {
    check.status = WeightsCheck::Status::not_looked;
    return check;
  }
  const std::filesystem::path payloads = payload_path_for(graph_path);
  check.payload_path = payloads.string();
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(payloads, ec))) {
    check.status = WeightsCheck::Status::absent;
    return check;
  }
  auto store = read_payload_file(payloads);
  if (!store) return std::unexpected(std::move(store.error()));
  auto matches = ir::check_weights(graph, *store, check.payload_path);
  if (!matches) return std::unexpected(std::move(matches.error()));
  check.status = WeightsCheck::Status::checked;
  check.tensors = store->tensors.size();
  check.attributes = store->attributes.size();
  if (kept != nullptr) *kept = std::make_shared<const ir::WeightStore>(std::move(*store));
  return check;
}

// The file's bytes, read once, and its format: from the extension, else from the bytes.
struct GraphBytes {
  // Shared with the weights that view an ONNX model's initializers in it.
  std::shared_ptr<const detail::FileBytes> bytes;
  GraphFileFormat format = GraphFileFormat::torchlean_ir;
};

Expected<GraphBytes> read_graph_bytes(const std::filesystem::path& path) {
  const auto named = graph_format_from_extension(path);
  if (named == GraphFileFormat::onnx) {
    auto bytes = detail::read_bounded_file(path, "ONNX model", kMaxOnnxFileBytes,
                                           detail::StreamCheck::protobuf);
    if (!bytes) return std::unexpected(std::move(bytes.error()));
    return GraphBytes{.bytes = std::make_shared<const detail::FileBytes>(std::move(*bytes)),
                      .format = GraphFileFormat::onnx};
  }
  if (named == GraphFileFormat::torchlean_ir) {
    auto bytes = detail::read_bounded_file(path, "graph file", kMaxIrFileBytes,
                                           detail::StreamCheck::json_text);
    if (!bytes) return std::unexpected(std::move(bytes.error()));
    return GraphBytes{.bytes = std::make_shared<const detail::FileBytes>(std::move(*bytes)),
                      .format = GraphFileFormat::torchlean_ir};
  }
  // The name does not say: read up to the larger limit, then hold the bytes to their format's.
  static_assert(kMaxOnnxFileBytes >= kMaxIrFileBytes);
  auto bytes =
      detail::read_bounded_file(path, "graph file", kMaxOnnxFileBytes, detail::StreamCheck::graph);
  if (!bytes) return std::unexpected(std::move(bytes.error()));
  const GraphFileFormat format = graph_format_of(bytes->text().substr(0, 1 << 16));
  if (format == GraphFileFormat::torchlean_ir && bytes->text().size() > kMaxIrFileBytes) {
    return std::unexpected(detail::file_error(
        path, "graph file is " + std::to_string(bytes->text().size()) + " bytes; the limit is " +
                  std::to_string(kMaxIrFileBytes) + " bytes (1 GiB)"));
  }
  return GraphBytes{.bytes = std::make_shared<const detail::FileBytes>(std::move(*bytes)),
                    .format = format};
}

std::expected<LoadedGraph, GraphFileFailure> read_graph_file_unguarded(
    const std::filesystem::path& path, const GraphFileOptions& options) {
  if (auto ok = check_graph_file_options(path, options); !ok) {
    return failure(std::move(ok.error()), std::nullopt);
  }
  LoadedGraph out{.path = path.string(), .format = {}, .digest = {}, .graph = {}};
  auto read = read_graph_bytes(path);
  if (!read) return failure(std::move(read.error()), std::nullopt);
  out.format = read->format;
  const std::string_view text = read->bytes->text();
  if (options.digest) out.digest = sha256_digest(text);
  if (out.format == GraphFileFormat::onnx) {
    OnnxImportOptions onnx = options.onnx;
    onnx.keep_payloads = options.keep_weights;
    if (onnx.external_data_dir.empty()) onnx.external_data_dir = path.parent_path();
    if (onnx.external_data_dir.empty()) onnx.external_data_dir = ".";
    auto imported = import_onnx(std::as_bytes(std::span(text)), out.path, onnx, read->bytes);
    if (!imported) return failure(std::move(imported.error()), std::move(out.digest));
    out.graph = std::make_shared<const ir::CheckedGraph>(std::move(imported->checked));
    out.folded_sources = std::move(imported->folded_sources);
    out.external_data_files = std::move(imported->external_data_files);
    out.output_names = std::move(imported->output_names);
    out.symbolic_dims = std::move(imported->symbolic_dims);
    out.symbolic_output_dims = std::move(imported->symbolic_output_dims);
    if (options.keep_weights) {
      out.payloads = std::make_shared<const ir::WeightStore>(std::move(imported->payloads));
    }
    out.weights.status = WeightsCheck::Status::in_model;
    return out;
  }
  if (!options.onnx.input_shapes.empty()) {
    return failure(input_shapes_for_json(out.path), std::move(out.digest));
  }
  auto graph = parse_ir_json(text, out.path);
  if (!graph) return failure(std::move(graph.error()), std::move(out.digest));
  const std::size_t nodes = graph->nodes.size();
  auto checked = ir::check(std::move(*graph));
  if (!checked) {
    // Named like the reader's errors: `<file>: node <id> (<kind>): <what is wrong>`.
    Error e = std::move(checked.error());
    e.message = out.path + ": " + e.message;
    return failure(std::move(e), std::move(out.digest), nodes);
  }
  out.graph = std::make_shared<const ir::CheckedGraph>(std::move(*checked));
  if (options.check_payloads) {
    auto weights = check_payloads_beside(path, out.graph->graph(),
                                         options.keep_weights ? &out.payloads : nullptr);
    if (!weights) return failure(std::move(weights.error()), std::move(out.digest), nodes);
    out.weights = std::move(*weights);
  }
  return out;
}

}  // namespace

std::expected<LoadedGraph, GraphFileFailure> read_graph_file(const std::filesystem::path& path,
                                                             const GraphFileOptions& options) {
  try {
    return read_graph_file_unguarded(path, options);
  } catch (const std::exception& e) {
    Error error = error_from_exception("reading graph file", e);
    try {
      error.message.insert(0, detail::escape_controls(path.string()) + ": ");
    } catch (...) {
    }
    return std::unexpected(GraphFileFailure{.error = std::move(error)});
  }
}

}  // namespace nnplan::format
