// `nnplan dot GRAPH`: the plan as a Graphviz picture (report/plan_dot.hpp), to stdout or -o FILE.
// Render with `dot -Tsvg`. When no capsule is admissible for some node there is no plan to draw:
// the explanation goes to stderr (stdout stays a clean DOT stream) and the exit code is 1. A plan
// the gate rejects is still drawn, its verdict in the graph label, and exits 1.
#include <fmt/core.h>

#include "cli.hpp"
#include "nnplan/backend/planned_model.hpp"
#include "nnplan/backend/report.hpp"
#include "nnplan/report/plan_dot.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

void add_dot_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "dot", "Draw a graph's plan in Graphviz DOT: one cluster per lowered group");
  cmd->footer(
      "Example: nnplan dot examples/cnn.json | dot -Tsvg -o cnn.svg\n"
      "         nnplan dot examples/cnn.json --profile checked_cuda -o cnn.dot\n"
      "Nodes are filled by provider; trusted-external groups have a bold red border; inputs,\n"
      "constants and detach nodes stand outside every group. Exit codes: 0 accepted, 1 rejected\n"
      "by the gate or no admissible capsule, 2 usage error, 3 unreadable or malformed graph,\n"
      "4 a valid model that uses something nnplan does not support.");
  struct Flags {
    ConfigFlags config;
    GraphFlags graph;
    std::optional<std::string> lowering;
    std::optional<std::string> output;
  };
  auto flags = std::make_shared<Flags>();
  flags->graph.add_to(*cmd);
  flags->config.add_to(*cmd);
  cmd->add_option("--lowering", flags->lowering,
                  "Lowering mode replacing the profile's: singleton, coalesced or fused");
  cmd->add_option("-o,--output", flags->output, "Write the DOT document to FILE, not stdout");
  cmd->callback([flags, &exit_code] {
    const auto inputs = command_inputs(flags->graph, flags->config);
    if (flags->output && !check_output_flag(*flags->output, inputs)) {
      exit_code = kExitUsage;
      return;
    }
    auto run = plan_graph_input(flags->config, flags->lowering, flags->graph, Digest::skip);
    if (!run) {
      exit_code = run.error();
      return;
    }
    const auto reads = with_weight_files(inputs, run->graph);
    if (flags->output && !check_output_flag(*flags->output, reads)) {
      exit_code = kExitUsage;
      return;
    }
    if (!run->model) {
      fmt::print(stderr, "{}\n{}\n", profile_summary(run->profile), render(run->model.error()));
      exit_code = kExitRejected;
      return;
    }
    const PlannedModel& model = *run->model;
    const std::string dot =
        report::plan_dot(model.profile(), model.graph(), model.evaluation(), run->graph.onnx());
    if (flags->output) {
      if (!write_output_file(*flags->output, dot, reads)) {
        exit_code = kExitBadInput;
        return;
      }
    } else {
      fmt::print("{}", dot);
    }
    exit_code = model.accepted() ? kExitOk : kExitRejected;
  });
}

}  // namespace nnplan::cli
