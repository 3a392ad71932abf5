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
#include "nnplan/format/plan_artifact.hpp"

namespace nnplan::format {

GraphFileFormat detect_graph_format(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".onnx") return GraphFileFormat::onnx;
  if (extension == ".json") return GraphFileFormat::torchlean_ir;
  std::ifstream in(path, std::ios::binary);
  for (char c = 0; in.get(c);) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) continue;
    return c == '{' || c == '[' ? GraphFileFormat::torchlean_ir : GraphFileFormat::onnx;
  }
  return GraphFileFormat::torchlean_ir;
}

std::expected<void, Error> check_input_shapes(const OnnxImportOptions& options) {
  for (const auto& [name, dims] : options.input_shapes) {
    const auto invalid = [&name](const std::string& problem) {
      return std::unexpected(make_error(
          ErrorKind::invalid_input, "input shape for '" + detail::shown(name) + "' " + problem));
    };
    if (dims.empty()) return invalid("has no dimensions");
    if (dims.size() > kMaxRank) {
      return invalid("has rank " + std::to_string(dims.size()) + "; the limit is " +
                     std::to_string(kMaxRank) + " (the maximum rank)");
    }
    std::optional<std::uint64_t> count = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == 0) return invalid("has 0 at dimension " + std::to_string(i));
      if (dims[i] > kMaxDim) {
        return invalid("has " + std::to_string(dims[i]) + " at dimension " + std::to_string(i) +
                       ", which exceeds the dimension limit of " + std::to_string(kMaxDim) +
                       " (2^48)");
      }
      if (count) count = ir::checked_mul(*count, dims[i]);
    }
    if (!count || *count > kMaxTensorElements) {
      return invalid("has " + (count ? std::to_string(*count) : std::string("more than 2^64")) +
                     " elements; the limit is " + std::to_string(kMaxTensorElements) +
                     " (2^48) per tensor");
    }
  }
  return {};
}

std::expected<void, Error> check_graph_file_options(const std::filesystem::path& path,
                                                    const GraphFileOptions& options) {
  if (!options.onnx.input_shapes.empty() && detect_graph_format(path) != GraphFileFormat::onnx) {
    return std::unexpected(
        make_error(ErrorKind::invalid_input,
                   "input shapes apply to ONNX models; " + detail::escape_controls(path.string()) +
                       " is a torchlean.ir.v1 graph, whose shapes are declared in the file"));
  }
  return check_input_shapes(options.onnx);
}

namespace {

std::unexpected<GraphFileFailure> failure(Error error, std::optional<std::string> digest,
                                          std::optional<std::size_t> nodes = std::nullopt) {
  return std::unexpected(
      GraphFileFailure{.error = std::move(error), .digest = std::move(digest), .nodes = nodes});
}

}  // namespace

namespace {

std::expected<LoadedGraph, GraphFileFailure> read_graph_file_unguarded(
    const std::filesystem::path& path, const GraphFileOptions& options) {
  if (auto ok = check_graph_file_options(path, options); !ok) {
    return failure(std::move(ok.error()), std::nullopt);
  }
  LoadedGraph out{
      .path = path.string(), .format = detect_graph_format(path), .digest = {}, .graph = {}};
  if (out.format == GraphFileFormat::onnx) {
    auto bytes = detail::read_bounded_file(path, "ONNX model", kMaxOnnxFileBytes);
    if (!bytes) return failure(std::move(bytes.error()), std::nullopt);
    if (options.digest) out.digest = sha256_digest(bytes->text());
    OnnxImportOptions onnx = options.onnx;
    onnx.keep_payloads = false;
    auto imported = import_onnx(std::as_bytes(std::span(bytes->text())), out.path, onnx);
    if (!imported) return failure(std::move(imported.error()), std::move(out.digest));
    out.graph = std::make_shared<const ir::CheckedGraph>(std::move(imported->checked));
    return out;
  }
  auto text = detail::read_bounded_file(path, "graph file", kMaxIrFileBytes);
  if (!text) return failure(std::move(text.error()), std::nullopt);
  if (options.digest) out.digest = sha256_digest(text->text());
  auto graph = parse_ir_json(text->text(), out.path);
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
