// format/onnx_convert.hpp: import, then write the graph and its payloads together.
#include "nnplan/format/onnx_convert.hpp"

#include <array>
#include <string_view>
#include <vector>

#include "nnplan/format/ir_json.hpp"
#include "nnplan/format/output_file.hpp"
#include "nnplan/format/payload_file.hpp"

namespace nnplan::format {

std::filesystem::path converted_payload_path(const std::filesystem::path& graph) {
  return std::filesystem::path(graph).replace_extension(".payloads");
}

Expected<ConvertSummary> convert_onnx_file(const std::filesystem::path& model,
                                           const std::filesystem::path& graph,
                                           OnnxImportOptions options) {
  const std::filesystem::path payload_path = converted_payload_path(graph);
  if (payload_path == graph) {
    return std::unexpected(make_error(ErrorKind::invalid_input,
                                      graph.string() +
                                          ": the payload file would overwrite the graph; name the "
                                          "graph GRAPH.json"));
  }
  auto imported = import_onnx_file(model.string(), std::move(options));
  if (!imported) return std::unexpected(std::move(imported.error()));
  const std::string graph_json = write_ir_json(imported->graph());
  auto payloads = write_payloads(imported->payloads);
  if (!payloads) return std::unexpected(std::move(payloads.error()));
  // Both files are complete before either is renamed into place: a failed write leaves no new
  // graph beside an old or missing payload file.
  const std::array<OutputFile, 2> files{
      OutputFile{.path = graph, .bytes = graph_json},
      OutputFile{.path = payload_path,
                 .bytes = std::string_view(reinterpret_cast<const char*>(payloads->data()),
                                           payloads->size())}};
  const std::vector<std::filesystem::path> inputs{model};
  if (auto written = write_files_atomically(files, inputs); !written) {
    return std::unexpected(std::move(written.error()));
  }
  ConvertSummary summary{.opset = imported->opset,
                         .producer = imported->producer,
                         .graph = graph,
                         .payloads = payload_path,
                         .nodes = imported->graph().nodes.size(),
                         .payload_tensors = imported->payloads.tensors.size(),
                         .payload_bytes = 0};
  for (const auto& [key, tensor] : imported->payloads.tensors) {
    summary.payload_bytes += tensor.size() * ir::size_of(tensor.dtype());
  }
  return summary;
}

}  // namespace nnplan::format
