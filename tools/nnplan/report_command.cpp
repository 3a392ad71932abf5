// `nnplan report GRAPH`: the auditor's HTML page (report/report_html.hpp) for a graph planned under
// a profile, to stdout or -o FILE. The placement picture is plan_dot's document rendered by
// `dot -Tsvg` when Graphviz is on PATH (graphviz.hpp); without it, or when it fails, the page says
// why in the picture's place and a note goes to stderr, and the report is still written. An
// accepted plan is compiled for this machine (runtime::compile, as `nnplan run` does, so the
// graph's weights are read) to state the layout each group runs in beside the layout its contract
// claims; when it cannot be, the page says why. A plan the gate rejects still gets its page and
// exits 1, as `nnplan plan` does; so does a graph with nodes that have no admissible capsule,
// whose page names each of them with every candidate's reasons and where the other nodes would
// run. A model the importer does not support gets a page listing every unsupported node and
// exits 4. With -o, stdout gets the verdict (or the explanation) and where the page went; without
// it, stdout is the page alone and the explanation goes to stderr.
#include <fmt/core.h>

#include <memory>
#include <optional>
#include <string>

#include "cli.hpp"
#include "graphviz.hpp"
#include "nnplan/backend/planned_model.hpp"
#include "nnplan/backend/report.hpp"
#include "nnplan/report/plan_dot.hpp"
#include "nnplan/report/report_html.hpp"
#include "nnplan/runtime/command_buffer.hpp"
#include "nnplan/text_escape.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

namespace {

report::PlacementPicture picture_of(const PlannedModel& model, bool onnx, bool wanted) {
  if (!wanted) return {.svg = {}, .missing_reason = "left out on request (--no-picture)"};
  const std::size_t nodes = model.graph().nodes.size();
  if (nodes > report::kPictureNodeLimit) {
    return {.svg = {},
            .missing_reason = "the graph has " + std::to_string(nodes) +
                              " nodes; the report draws graphs of at most " +
                              std::to_string(report::kPictureNodeLimit)};
  }
  auto svg = render_svg(report::plan_dot(model.profile(), model.graph(), model.evaluation(), onnx));
  if (!svg) return {.svg = {}, .missing_reason = svg.error()};
  if (!report::inline_svg(*svg)) {
    return {.svg = {}, .missing_reason = "graphviz (dot) wrote something other than a plain SVG"};
  }
  return {.svg = std::move(*svg), .missing_reason = {}};
}

// The layouts `model` runs in when this build compiles it on this machine, or why there are none.
report::RunLayouts layouts_of(const std::shared_ptr<const PlannedModel>& model) {
  auto layouts = runtime::group_layouts(model);
  if (!layouts) return {.groups = {}, .missing_reason = layouts.error().message};
  return {.groups = std::move(*layouts), .missing_reason = {}};
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "report",
      "Write a self-contained HTML report of a graph's plan for an auditor: verdict, groups, "
      "contracts, evidence, trusted-external boundary, coverage, gate failures, picture");
  cmd->footer(
      "Example: nnplan report examples/cnn.json -o cnn.html\n"
      "         nnplan report model.onnx --profile fast_cpu --expanded -o model.html\n"
      "         nnplan report model.onnx --input-shape input=1,3,224,224 -o model.html\n"
      "The page goes to -o FILE (stdout without it); it loads nothing and needs no JavaScript.\n"
      "The placement picture is drawn by Graphviz `dot` when it is on PATH; without it the page\n"
      "says so. An accepted plan is compiled for this machine, reading the weights, to show the\n"
      "layout each group runs in beside the layout its contract claims.\n"
      "A graph with nodes that have no admissible capsule gets a page naming each of them with\n"
      "every candidate's reasons, and the capsule each other node would run on; a model the\n"
      "importer does not support gets a page listing every unsupported node.\n"
      "Exit codes: 0 accepted, 1 rejected by the gate or no admissible capsule, 2 usage error,\n"
      "3 unreadable or malformed graph or a failed write, 4 a valid model that uses something\n"
      "nnplan does not support (a page is written for 0, 1 and 4).");
  struct Flags {
    ConfigFlags config;
    GraphFlags graph;
    std::optional<std::string> lowering;
    std::optional<std::string> output;
    bool no_picture = false;
    bool expanded = false;
  };
  auto flags = std::make_shared<Flags>();
  // The weights are read: the accepted plan is compiled for the layouts it runs in.
  flags->graph.keep_weights = true;
  flags->graph.add_to(*cmd);
  flags->config.add_to(*cmd);
  cmd->add_option("--lowering", flags->lowering,
                  "Lowering mode replacing the profile's: singleton, coalesced or fused");
  cmd->add_option("-o,--output", flags->output, "Write the HTML page to FILE, not stdout");
  cmd->add_flag("--no-picture", flags->no_picture,
                "Leave the placement picture out (do not run Graphviz)");
  cmd->add_flag("--expanded", flags->expanded,
                "Write every group open (a page to print or read whole, no clicks)");
  cmd->callback([flags, &exit_code] {
    const auto inputs = command_inputs(flags->graph, flags->config);
    if (flags->output && !check_output_flag(*flags->output, inputs)) {
      exit_code = kExitUsage;
      return;
    }
    // A model the importer does not support gets its page: the error is printed first.
    std::optional<std::pair<BackendProfile, Error>> unsupported;
    const auto on_bad_graph = [&unsupported](const BackendProfile& profile,
                                             const format::GraphFileFailure& failure) {
      if (failure.error.kind == ErrorKind::unsupported) unsupported.emplace(profile, failure.error);
    };
    auto run =
        plan_graph_input(flags->config, flags->lowering, flags->graph, Digest::skip, on_bad_graph);
    if (!run) {
      exit_code = run.error();
      if (!unsupported) return;
      const std::string page = report::unsupported_model_html(
          unsupported->first, unsupported->second,
          {.model = flags->graph.graph, .onnx_names = true, .expanded = flags->expanded});
      if (!flags->output) {
        fmt::print("{}", page);
      } else if (write_output_file(*flags->output, page, inputs)) {
        fmt::print("report written to {}\n", escape_controls(*flags->output));
      } else {
        exit_code = kExitBadInput;
      }
      return;
    }
    const auto reads = with_weight_files(inputs, run->graph);
    if (flags->output && !check_output_flag(*flags->output, reads)) {
      exit_code = kExitUsage;
      return;
    }
    const bool onnx = run->graph.onnx();
    report::ReportHtmlOptions base{.model = flags->graph.graph,
                                   .onnx_names = onnx,
                                   .picture = {},
                                   .expanded = flags->expanded};
    for (const format::SymbolicDim& d : run->graph.symbolic_dims)
      base.open_dims.push_back(format::describe(d));
    std::string page;
    std::string summary;
    bool accepted = false;
    if (run->model) {
      const auto model = std::make_shared<const PlannedModel>(std::move(*run->model));
      accepted = model->accepted();
      report::ReportHtmlOptions options = base;
      options.picture = picture_of(*model, onnx, !flags->no_picture);
      if (!options.picture.missing_reason.empty() && !flags->no_picture) {
        fmt::print(stderr, "note: placement picture left out: {}\n",
                   escape_controls(options.picture.missing_reason));
      }
      options.layouts = layouts_of(model);
      if (!options.layouts.missing_reason.empty() && accepted) {
        fmt::print(stderr, "note: layouts as run left out: {}\n",
                   escape_controls(options.layouts.missing_reason));
      }
      page = report::report_html(model->profile(), model->graph(), model->evaluation(), options);
      summary = "gate: " + std::string(accepted ? "accepted" : "rejected") + " under assurance " +
                std::string(label(model->profile().config.assurance));
    } else {
      page = report::unplanned_report_html(run->profile, run->graph.graph->graph(),
                                           run->model.error(), base);
      summary = profile_summary(run->profile) + "\n" + render(run->model.error());
    }
    if (flags->output) {
      if (!write_output_file(*flags->output, page, reads)) {
        exit_code = kExitBadInput;
        return;
      }
      fmt::print("{}\nreport written to {}\n", summary, escape_controls(*flags->output));
    } else {
      fmt::print("{}", page);
      if (!run->model) fmt::print(stderr, "{}\n", summary);
    }
    exit_code = accepted ? kExitOk : kExitRejected;
  });
}

}  // namespace nnplan::cli
