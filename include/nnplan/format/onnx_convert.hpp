// Converting an ONNX model into nnplan's text formats: the graph as torchlean.ir.v1 (nnplan.ir.v1
// when it uses one of nnplan's extension kinds) and, beside it, its payload file
// (nnplan.payloads.v1, the graph's path with the extension `.payloads`), both written to
// temporaries and renamed into place together (output_file.hpp), never over the model. Used by
// `nnplan convert` and the Python module's nnplan.convert.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "nnplan/error.hpp"
#include "nnplan/format/onnx_import.hpp"

namespace nnplan::format {

// What a conversion wrote.
struct ConvertSummary {
  std::int64_t opset = 0;
  std::string producer;
  std::filesystem::path graph;
  std::filesystem::path payloads;
  std::size_t nodes = 0;
  std::size_t payload_tensors = 0;
  std::uint64_t payload_bytes = 0;
};

// The payload file written beside `graph`: its path with the extension `.payloads`.
[[nodiscard]] std::filesystem::path converted_payload_path(const std::filesystem::path& graph);

// Imports `model` with `options` and writes the graph to `graph` and its payloads beside it. An
// invalid_input error when `graph` already ends in `.payloads` (the payload file would be the
// graph) or a write fails; the import's own errors as import_onnx_file gives them.
[[nodiscard]] Expected<ConvertSummary> convert_onnx_file(const std::filesystem::path& model,
                                                         const std::filesystem::path& graph,
                                                         OnnxImportOptions options = {});

}  // namespace nnplan::format
