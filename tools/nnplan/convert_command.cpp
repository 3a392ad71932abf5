// `nnplan convert MODEL.onnx -o GRAPH.json`: import an ONNX model and write it as torchlean.ir.v1
// (nnplan.ir.v1 when the graph uses one of nnplan's extension kinds) plus its payload file
// (nnplan.payloads.v1, GRAPH with the extension `.payloads`), so that the graph can be planned,
// edited or diffed as text and every weight travels with it (format/onnx_convert.hpp does the
// work). Prints a one-line summary (or, with --json, an nnplan.convert.v1 object). Exit 0 written,
// 2 usage error, 3 unreadable or malformed model (external data that cannot be read included), or
// an output file that cannot be written, 4 a valid model that uses something nnplan does not
// support.
#include <fmt/core.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "nnplan/format/onnx_convert.hpp"
#include "nnplan/text_escape.hpp"

namespace nnplan::cli {

namespace {

inline constexpr std::string_view kConvertFormat = "nnplan.convert.v1";

std::string plural(std::size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

}  // namespace

void add_convert_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "convert", "Convert an ONNX model to a graph JSON file plus its payload file");
  cmd->footer(
      "Example: nnplan convert resnet18.onnx -o resnet18.json\n"
      "         nnplan convert model.onnx -o model.json --input-shape input=1,3,224,224\n"
      "Writes GRAPH (torchlean.ir.v1, or nnplan.ir.v1 when the graph uses one of nnplan's\n"
      "extension kinds: gelu, clamp, scale, slice, gather, log_softmax, conv_transpose,\n"
      "scaled_dot_product_attention) and, next to it, GRAPH with the extension .payloads\n"
      "(nnplan.payloads.v1: every initializer and constant). `nnplan plan GRAPH` gives the same\n"
      "groups as planning the ONNX model. External data is read from the model's directory\n"
      "only. Exit codes: 0 written, 2 usage error, 3 unreadable or malformed model, or an\n"
      "output that cannot be written, 4 a valid model that uses something nnplan does not\n"
      "support.");
  struct Flags {
    std::string model;
    std::string output;
    std::vector<std::string> input_shapes;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("MODEL", flags->model, "ONNX model file")->required();
  cmd->add_option("-o,--output", flags->output, "graph file to write (torchlean.ir.v1 or nnplan.ir.v1)")->required();
  cmd->add_option("--input-shape", flags->input_shapes,
                  "Fix a graph input's shape, NAME=D,D,... (e.g. input=1,3,224,224); repeatable")
      ->allow_extra_args(false);
  cmd->add_flag("--json", flags->json, "Print an nnplan.convert.v1 summary instead of the line");
  cmd->callback([flags, &exit_code] {
    auto options = parse_input_shapes(flags->input_shapes);
    if (!options) {
      exit_code = options.error();
      return;
    }
    const std::filesystem::path graph_path(flags->output);
    const std::filesystem::path payload_path = format::converted_payload_path(graph_path);
    if (payload_path == graph_path) {
      exit_code = fail(make_error(ErrorKind::invalid_input,
                                  "-o " + flags->output +
                                      ": the payload file would overwrite the graph; name the "
                                      "graph GRAPH.json"),
                       kExitUsage);
      return;
    }
    const std::vector<std::filesystem::path> inputs{flags->model};
    if (!check_output_flag(graph_path.string(), inputs) ||
        !check_output_flag(payload_path.string(), inputs)) {
      exit_code = kExitUsage;
      return;
    }
    auto converted = format::convert_onnx_file(flags->model, graph_path, *options);
    if (!converted) {
      // An import error is the model's (3, or 4 unsupported, 2 for a name the flags gave); a
      // failed write is exit 3 as well.
      exit_code = fail(converted.error(), input_exit_code(converted.error()));
      return;
    }
    const std::size_t nodes = converted->nodes;
    const std::size_t tensors = converted->payload_tensors;
    const std::uint64_t payload_bytes = converted->payload_bytes;
    if (flags->json) {
      const nlohmann::ordered_json summary = {{"format", kConvertFormat},
                                              {"model", flags->model},
                                              {"opset", converted->opset},
                                              {"producer", converted->producer},
                                              {"graph", graph_path.string()},
                                              {"payloads", payload_path.string()},
                                              {"nodes", nodes},
                                              {"payload_tensors", tensors},
                                              {"payload_bytes", payload_bytes}};
      fmt::print("{}\n",
                 summary.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    } else {
      fmt::print("converted {} (opset {}): {}, {} ({} bytes) -> {}, {}\n",
                 escape_controls(flags->model), converted->opset, plural(nodes, "node"),
                 plural(tensors, "payload tensor"), payload_bytes,
                 escape_controls(graph_path.string()), escape_controls(payload_path.string()));
    }
    exit_code = kExitOk;
  });
}

}  // namespace nnplan::cli
