// `nnplan plan GRAPH`: plan a torchlean.ir.v1 graph or an ONNX model under a profile, lower it,
// audit it and gate it; print the graph report (or, with --json, the nnplan.plan.v1 artifact), and
// with -o write the artifact to a file. Exit 0 accepted, 1 gate rejection or no admissible capsule,
// 3 malformed or unreadable graph, 4 a valid ONNX model that uses something nnplan does not
// support (the message goes to stderr; with --json or -o the artifact records the
// `malformed-graph` or `unsupported` error as well, so tools always get a document).
#include <fmt/core.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <string_view>

#include "cli.hpp"
#include "nnplan/backend/planned_model.hpp"
#include "nnplan/backend/report.hpp"
#include "nnplan/format/plan_artifact.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

namespace {

// Writes `text` to stdout as fmt::print("{}", text) does (and fails as it does, with
// std::system_error), without first copying a report of megabytes into fmt's buffer.
void print_text(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) < text.size()) {
    throw fmt::system_error(errno, "cannot write to file");
  }
}

}  // namespace

void add_plan_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "plan",
      "Plan a model graph (torchlean.ir.v1 or ONNX): lowered groups, full audit and gate verdict");
  cmd->footer(
      "Example: nnplan plan examples/mlp.json\n"
      "         nnplan plan examples/cnn.json --profile checked_cuda --json -o cnn.plan.json\n"
      "         nnplan plan model.onnx --input-shape input=1,3,224,224\n"
      "The report (or the artifact with --json) goes to stdout; -o FILE also writes the "
      "nnplan.plan.v1\nartifact to FILE. Exit codes: 0 accepted, 1 rejected by the gate or no "
      "admissible capsule,\n2 usage error, 3 unreadable or malformed graph, 4 a valid model that "
      "uses something\nnnplan does not support (every such node is listed).");
  struct Flags {
    ConfigFlags config;
    GraphFlags graph;
    std::optional<std::string> lowering;
    bool json = false;
    std::optional<std::string> output;
  };
  auto flags = std::make_shared<Flags>();
  flags->graph.add_to(*cmd);
  flags->config.add_to(*cmd);
  cmd->add_option("--lowering", flags->lowering,
                  "Lowering mode replacing the profile's: singleton, coalesced or fused");
  cmd->add_flag("--json", flags->json, "Print the nnplan.plan.v1 artifact instead of the report");
  cmd->add_option("-o,--output", flags->output, "Also write the nnplan.plan.v1 artifact to FILE");
  cmd->callback([flags, &exit_code] {
    const auto inputs = command_inputs(flags->graph, flags->config);
    if (flags->output && !check_output_flag(*flags->output, inputs)) {
      exit_code = kExitUsage;
      return;
    }
    const bool artifact = flags->json || flags->output.has_value();
    // A malformed or unsupported graph is an artifact too, so a pipeline always gets a document.
    const auto on_bad_graph = [&](const BackendProfile& profile,
                                  const format::GraphFileFailure& failure) {
      if (!artifact) return;
      const std::string doc = format::malformed_graph_artifact_json(profile, failure.digest,
                                                                    failure.nodes, failure.error);
      if (flags->output && !write_output_file(*flags->output, doc, inputs)) return;
      if (flags->json) print_text(doc);
    };
    auto run = plan_graph_input(flags->config, flags->lowering, flags->graph,
                                artifact ? Digest::compute : Digest::skip, on_bad_graph);
    if (!run) {
      exit_code = run.error();
      return;
    }
    const auto reads = with_weight_files(inputs, run->graph);
    if (flags->output && !check_output_flag(*flags->output, reads)) {
      exit_code = kExitUsage;
      return;
    }
    const ir::Graph& graph = run->graph.graph->graph();
    const bool onnx = run->graph.onnx();
    if (artifact) {
      const std::string doc = format::plan_artifact_json(
          run->profile, *run->graph.digest, graph, run->model, onnx, run->graph.symbolic_dims);
      if (flags->output && !write_output_file(*flags->output, doc, reads)) {
        exit_code = kExitBadInput;
        return;
      }
      if (flags->json) print_text(doc);
    }
    if (!flags->json) {
      if (run->model) {
        write_graph_report(run->profile, run->model->evaluation(), onnx ? &graph : nullptr,
                           print_text);
      } else {
        fmt::print("{}\n{}\n", profile_summary(run->profile), render(run->model.error()));
      }
    }
    exit_code = run->model && run->model->accepted() ? kExitOk : kExitRejected;
  });
}

}  // namespace nnplan::cli
