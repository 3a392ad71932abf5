// Pieces shared by the graph subcommands (plan, verify, explain, dot): the `--lowering` and
// `--input-shape` flags, the prologue that reads GRAPH through format::read_graph_file and plans
// it, and output files (format/output_file.hpp).
#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>
#include <utility>

#include "cli.hpp"
#include "nnplan/format/limits.hpp"
#include "nnplan/format/output_file.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

std::expected<std::optional<LoweringMode>, int> parse_lowering_flag(
    const std::optional<std::string>& text) {
  std::optional<LoweringMode> mode;
  if (!parse_flag(text, "--lowering", parse_lowering_mode, mode)) {
    return std::unexpected(kExitUsage);
  }
  return mode;
}

namespace {

Error input_shape_error(std::string_view value, std::string problem) {
  return make_error(ErrorKind::invalid_input,
                    "--input-shape '" + shown_argument(value) + "': " + std::move(problem) +
                        "; expected NAME=D,D,... with positive dimensions, e.g. "
                        "input=1,3,224,224");
}

}  // namespace

std::expected<format::OnnxImportOptions, int> parse_input_shapes(
    const std::vector<std::string>& values) {
  format::OnnxImportOptions options;
  for (const std::string& value : values) {
    // Dimensions hold no `=`, so the last one separates them from a name that might.
    const auto eq = value.rfind('=');
    if (eq == std::string::npos) {
      return std::unexpected(fail(input_shape_error(value, "no '='"), kExitUsage));
    }
    const std::string name = value.substr(0, eq);
    if (name.empty()) {
      return std::unexpected(fail(input_shape_error(value, "the input name is empty"), kExitUsage));
    }
    const std::string_view dims = std::string_view(value).substr(eq + 1);
    if (dims.empty()) {
      return std::unexpected(fail(input_shape_error(value, "no dimensions"), kExitUsage));
    }
    std::vector<std::uint64_t> shape;
    for (std::size_t begin = 0; begin <= dims.size();) {
      const std::size_t comma = std::min(dims.find(',', begin), dims.size());
      const std::string_view text = dims.substr(begin, comma - begin);
      auto dim = parse_unsigned(text);
      if (!dim || *dim == 0) {
        const std::string problem =
            !dim && dim.error() == UnsignedProblem::out_of_range
                ? "dimension " + shown_argument(text) + " is out of range; the limit is " +
                      std::to_string(format::kMaxDim) + " (2^48)"
                : "dimension '" + shown_argument(text) + "' is not a positive integer";
        return std::unexpected(fail(input_shape_error(value, problem), kExitUsage));
      }
      shape.push_back(*dim);
      begin = comma + 1;
    }
    if (!options.input_shapes.emplace(name, std::move(shape)).second) {
      return std::unexpected(
          fail(input_shape_error(value, "input '" + shown_argument(name) + "' is given twice"),
               kExitUsage));
    }
  }
  if (auto ok = format::check_input_shapes(options); !ok) {
    Error error = std::move(ok.error());
    error.message = "--input-shape: " + error.message;
    return std::unexpected(fail(error, kExitUsage));
  }
  return options;
}

void GraphFlags::add_to(CLI::App& command) {
  command.add_option("GRAPH", graph, "Graph file: torchlean.ir.v1 JSON or an ONNX model")
      ->required();
  command
      .add_option("--input-shape", input_shapes,
                  "Fix an ONNX graph input's shape, NAME=D,D,... (e.g. input=1,3,224,224); "
                  "repeatable")
      ->allow_extra_args(false);  // one shape per occurrence, as --registry takes one file
}

std::expected<GraphInput, int> read_graph_input(BackendProfile profile, const GraphFlags& flags,
                                                Digest digest, const OnBadGraph& on_bad_graph) {
  auto onnx = parse_input_shapes(flags.input_shapes);
  if (!onnx) return std::unexpected(onnx.error());
  // A dimension the model leaves open, and no --input-shape fixes, is planned at 1 and said so.
  onnx->open_dim_size = 1;
  const format::GraphFileOptions options{.digest = digest == Digest::compute,
                                         .keep_weights = flags.keep_weights,
                                         .onnx = std::move(*onnx)};
  // read_graph_file makes the same check; made here first, a flag that does not fit the file is
  // a usage error (exit 2), not a malformed graph.
  if (auto ok = format::check_graph_file_options(flags.graph, options); !ok) {
    Error error = std::move(ok.error());
    error.message = "--input-shape: " + error.message;
    return std::unexpected(fail(error, kExitUsage));
  }
  auto graph = format::read_graph_file(flags.graph, options);
  if (!graph) {
    const int code = fail(graph.error().error, input_exit_code(graph.error().error));
    // A name the flags gave that the model lacks is a usage error: no artifact, as for the other
    // --input-shape mistakes.
    if (on_bad_graph && graph.error().error.kind != ErrorKind::not_found) {
      on_bad_graph(profile, graph.error());
    }
    return std::unexpected(code);
  }
  // Planning needs no weights, so a graph without its payload file plans; the user is told that
  // nothing vouched for the weights.
  using Status = format::WeightsCheck::Status;
  if (graph->weights.status == Status::absent || graph->weights.status == Status::not_looked) {
    fmt::print(stderr, "note: {}\n", graph->weights.describe(graph->path));
  }
  if (const std::string open = open_dims_note(*graph); !open.empty()) {
    fmt::print(stderr, "note: {}\n", open);
  }
  return GraphInput{.profile = std::move(profile), .graph = std::move(*graph)};
}

std::expected<GraphInput, int> read_graph_input(const ConfigFlags& config,
                                                const std::optional<std::string>& lowering,
                                                const GraphFlags& flags, Digest digest,
                                                const OnBadGraph& on_bad_graph) {
  auto profile = config.resolve(lowering);
  if (!profile) return std::unexpected(profile.error());
  return read_graph_input(std::move(*profile), flags, digest, on_bad_graph);
}

std::string open_dims_note(const format::LoadedGraph& graph) {
  std::string dims;
  for (const format::SymbolicDim& d : graph.symbolic_dims) {
    if (!d.fixed) dims += (dims.empty() ? "" : ", ") + format::describe(d);
  }
  if (dims.empty()) return {};
  return escape_controls(
      "the model leaves these input dimensions open; planned at: " + dims +
      ". nnplan run plans the shapes of its input files (of a model read from a file); " +
      format::input_shape_flags(graph.symbolic_dims, graph.graph->graph()) + " fixes them here");
}

namespace {

PlannedGraph plan_input(GraphInput input) {
  auto model = plan_model(input.profile, input.graph.graph, input.graph.payloads);
  return PlannedGraph{.profile = std::move(input.profile),
                      .graph = std::move(input.graph),
                      .model = std::move(model)};
}

}  // namespace

std::expected<PlannedGraph, int> plan_graph_input(BackendProfile profile, const GraphFlags& flags,
                                                  Digest digest, const OnBadGraph& on_bad_graph) {
  auto input = read_graph_input(std::move(profile), flags, digest, on_bad_graph);
  if (!input) return std::unexpected(input.error());
  return plan_input(std::move(*input));
}

std::expected<PlannedGraph, int> plan_graph_input(const ConfigFlags& config,
                                                  const std::optional<std::string>& lowering,
                                                  const GraphFlags& flags, Digest digest,
                                                  const OnBadGraph& on_bad_graph) {
  auto input = read_graph_input(config, lowering, flags, digest, on_bad_graph);
  if (!input) return std::unexpected(input.error());
  return plan_input(std::move(*input));
}

std::vector<std::filesystem::path> command_inputs(const GraphFlags& graph,
                                                  const ConfigFlags& config) {
  std::vector<std::filesystem::path> inputs{graph.graph};
  // The weights beside a torchlean.ir.v1 graph belong to it, whether or not this command reads
  // them: a plan written over them would lose the model's weights.
  if (const auto payloads = std::filesystem::path(graph.graph).replace_extension(".payloads");
      payloads != std::filesystem::path(graph.graph)) {
    inputs.push_back(payloads);
  }
  inputs.insert(inputs.end(), config.registries.begin(), config.registries.end());
  return inputs;
}

std::vector<std::filesystem::path> with_weight_files(std::vector<std::filesystem::path> inputs,
                                                     const format::LoadedGraph& graph) {
  inputs.insert(inputs.end(), graph.external_data_files.begin(), graph.external_data_files.end());
  return inputs;
}

bool check_output_flag(const std::string& path, std::span<const std::filesystem::path> inputs) {
  auto ok = format::check_output_path(path, inputs);
  if (ok) return true;
  Error error = std::move(ok.error());
  error.message = "-o " + error.message;
  fail(error, kExitUsage);
  return false;
}

bool write_output_file(const std::string& path, const std::string& text,
                       std::span<const std::filesystem::path> inputs) {
  auto written = format::write_file_atomically(path, text, inputs);
  if (written) return true;
  fail(written.error(), kExitBadInput);
  return false;
}

}  // namespace nnplan::cli
