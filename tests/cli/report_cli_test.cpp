// `nnplan report`: the auditor's HTML page written to -o FILE or stdout, with the same bytes for
// the same inputs; the verdict and where the page went on stdout; exit 0 accepted, 1 for a gate
// rejection or a node without an admissible capsule, 4 for a model the importer does not support
// (a page is written for each: for 1, naming every node no capsule admits and placing the others;
// for 4, listing every unsupported node), 2 for usage errors (-o onto the graph refused before
// anything is read), 3 for an unreadable graph or a failed write. Each group's layout line agrees
// with the layouts `nnplan run --trace` records; a plan that is rejected or cannot be compiled
// says why it has none. The placement picture comes from Graphviz when `dot` is on PATH; without
// it the page and a note say so and the report still succeeds. An ONNX node named
// `<script>alert(1)</script>` reaches the page only escaped, in the tables and in the picture.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "../format/onnx/onnx_test_models.hpp"
#include "cli_runner.hpp"

namespace nnplan::cli_test {
namespace {

const std::string kTrustedArgs = " --assurance external --prefer torchlean --registry " +
                                 source("tests/data/registries/cli_trusted_relu.json");

fs::path out_file(const std::string& name) {
  const fs::path path = scratch_dir() / name;
  fs::remove(path);
  return path;
}

bool dot_installed() {
  return std::system("command -v dot >/dev/null 2>&1") == 0;
}

// x[2,4] -> Relu named `<script>alert(1)</script>` -> Sigmoid 'out&"'.
fs::path hostile_onnx_model() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  onnx::GraphProto& g = *model.mutable_graph();
  g.set_name("hostile");
  for (auto [value, name] : {std::pair{g.add_input(), "x"}, std::pair{g.add_output(), "y"}}) {
    value->set_name(name);
    auto* tensor = value->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    tensor->mutable_shape()->add_dim()->set_dim_value(2);
    tensor->mutable_shape()->add_dim()->set_dim_value(4);
  }
  onnx::NodeProto& relu = *g.add_node();
  relu.set_op_type("Relu");
  relu.set_name("<script>alert(1)</script>");
  relu.add_input("x");
  relu.add_output("h");
  onnx::NodeProto& sigmoid = *g.add_node();
  sigmoid.set_op_type("Sigmoid");
  sigmoid.set_name("out&\"");
  sigmoid.add_input("h");
  sigmoid.add_output("y");
  std::string bytes;
  EXPECT_TRUE(model.SerializeToString(&bytes));
  const fs::path path = scratch_dir() / "report_hostile.onnx";
  write_text(path, bytes);
  return path;
}

TEST(ReportCli, WritesTheAcceptedPageAndSaysWhereItWent) {
  const fs::path file = out_file("report_cnn.html");
  const CliResult r = run_cli("report " + source("examples/cnn.json") + " -o " + file.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "gate: accepted under assurance checked\nreport written to " + file.string() + "\n");
  const std::string html = read_text(file);
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>\n")) << html.substr(0, 200);
  EXPECT_TRUE(contains(html, ">gate: accepted under assurance checked</p>"));
  EXPECT_TRUE(contains(html, "capsule=<code>reference.conv</code>"));
  EXPECT_TRUE(contains(html, "<td><code>conv1</code></td>")) << "the JSON graph's node label";
  EXPECT_FALSE(contains(html, "<script"));
  EXPECT_FALSE(contains(html, "http://"));
  EXPECT_FALSE(contains(html, "https://"));
  if (dot_installed()) {
    EXPECT_TRUE(contains(html, "<div class=\"picture\">\n<svg ")) << "dot is on PATH";
    EXPECT_TRUE(r.err.empty()) << r.err;
  } else {
    EXPECT_TRUE(contains(html, "No placement picture: graphviz (dot) was not found on PATH"));
  }
}

// The page says what each assurance policy admits, from the policies themselves, and why
// `verified` admits nothing of a registry without a verified capsule.
TEST(ReportCli, ThePageSaysWhatEachAssurancePolicyAdmits) {
  const CliResult r = run_cli("report " + source("examples/cnn.json") + " --no-picture");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "This plan's policy is <code>checked</code>.</p>")) << r.out;
  EXPECT_TRUE(contains(r.out,
                       "<tr><td><code>verified</code></td><td>verified</td><td>theorem, "
                       "checker</td></tr>"));
  EXPECT_TRUE(contains(r.out,
                       "<tr><td><code>checked</code></td><td>verified, checked, fuzzed"
                       "</td><td>theorem, checker, runtime-guard, test-suite, fuzz-oracle"
                       "</td></tr>"));
  EXPECT_TRUE(contains(r.out,
                       "<tr><td><code>external</code></td><td>verified, checked, fuzzed, "
                       "trusted-external</td><td>theorem, checker, runtime-guard, "
                       "test-suite, fuzz-oracle, trusted-boundary</td></tr>"));
  EXPECT_TRUE(contains(r.out,
                       "No capsule of this profile's registry has trust <code>verified"
                       "</code>, so <code>--assurance verified</code> admits none of them"));
  // The section sits between the gate's verdict and the coverage.
  EXPECT_LT(r.out.find("<section id=\"gate\">"), r.out.find("<section id=\"trust\">"));
  EXPECT_LT(r.out.find("<section id=\"trust\">"), r.out.find("<section id=\"coverage\">"));
}

TEST(ReportCli, StdoutWithoutOutputFlagHasTheSameBytesEveryTime) {
  const std::string args = "report " + source("examples/transformer_block.json");
  const fs::path file = out_file("report_block.html");
  const CliResult first = run_cli(args);
  const CliResult second = run_cli(args);
  const CliResult to_file = run_cli(args + " -o " + file.string());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_TRUE(first.out.starts_with("<!DOCTYPE html>\n"));
  EXPECT_EQ(first.out, second.out);
  EXPECT_EQ(read_text(file), first.out);
}

TEST(ReportCli, WithoutGraphvizThePageSaysSoAndTheReportSucceeds) {
  const fs::path file = out_file("report_nodot.html");
  // nnplan by its absolute path, with a PATH that finds no dot.
  const CliResult r = run_shell("PATH=/nonexistent " + std::string(NNPLAN_BINARY) + " report " +
                                source("examples/mlp.json") + " -o " + file.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "note: placement picture left out: graphviz (dot) was not found on PATH\n");
  const std::string html = read_text(file);
  EXPECT_TRUE(contains(html,
                       "<p class=\"note\">No placement picture: graphviz (dot) was not "
                       "found on PATH."))
      << html;
  EXPECT_FALSE(contains(html, "<svg"));
}

// A `dot` that fails, or writes something that is not Graphviz's SVG, costs the picture only.
TEST(ReportCli, FailingOrHostileGraphvizCostsOnlyThePicture) {
  const fs::path bin = scratch_dir() / "report_fake_dot";
  fs::create_directories(bin);
  const fs::path dot = bin / "dot";
  const auto run_with = [&](const std::string& script) {
    write_text(dot, "#!/bin/sh\n" + script + "\n");
    fs::permissions(dot, fs::perms::owner_all);
    return run_shell("PATH=" + bin.string() + ":/usr/bin:/bin " + std::string(NNPLAN_BINARY) +
                     " report " + source("examples/mlp.json"));
  };
  const CliResult failing = run_with("cat >/dev/null; echo broken >&2; exit 3");
  ASSERT_EQ(failing.exit_code, 0) << failing.err;
  EXPECT_EQ(failing.err,
            "note: placement picture left out: graphviz (dot) failed with exit code 3\n");
  EXPECT_TRUE(
      contains(failing.out, "No placement picture: graphviz (dot) failed with exit code 3."))
      << failing.out;
  const CliResult hostile = run_with("cat >/dev/null; echo '<svg><script>alert(1)</script></svg>'");
  ASSERT_EQ(hostile.exit_code, 0) << hostile.err;
  EXPECT_FALSE(contains(hostile.out, "<script"));
  EXPECT_EQ(hostile.err,
            "note: placement picture left out: graphviz (dot) wrote something "
            "other than a plain SVG\n");
  EXPECT_TRUE(contains(hostile.out,
                       "No placement picture: graphviz (dot) wrote something other "
                       "than a plain SVG."))
      << hostile.out;
}

TEST(ReportCli, NoPictureFlagRunsNoGraphviz) {
  const CliResult r = run_cli("report " + source("examples/mlp.json") + " --no-picture");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_TRUE(contains(r.out, "No placement picture: left out on request (--no-picture)."));
  EXPECT_FALSE(contains(r.out, "<svg"));
}

TEST(ReportCli, ExpandedFlagWritesEveryGroupOpen) {
  const CliResult closed = run_cli("report " + source("examples/mlp.json") + " --no-picture");
  const CliResult open =
      run_cli("report " + source("examples/mlp.json") + " --no-picture --expanded");
  ASSERT_EQ(open.exit_code, 0) << open.err;
  std::size_t groups = 0;
  std::size_t opened = 0;
  for (std::size_t at = open.out.find("<details class=\"group "); at != std::string::npos;
       at = open.out.find("<details class=\"group ", at + 1)) {
    ++groups;
    const std::size_t end = open.out.find('>', at);
    opened += open.out.substr(at, end - at).ends_with(" open") ? 1 : 0;
  }
  EXPECT_GT(groups, 0u);
  EXPECT_EQ(opened, groups);
  EXPECT_FALSE(contains(closed.out, "\" open>")) << closed.out;
}

// Past 5000 nodes Graphviz is not started: the page says why and points to `nnplan dot`.
TEST(ReportCli, GraphsPastTheNodeLimitGetNoPicture) {
  std::string nodes = R"({"id": 0, "kind": "input", "parents": [], "shape": [2], "name": "x"})";
  for (int i = 1; i <= 5000; ++i) {
    nodes += ",\n{\"id\": " + std::to_string(i) + ", \"kind\": \"relu\", \"parents\": [" +
             std::to_string(i - 1) + "], \"shape\": [2]}";
  }
  const fs::path graph = out_file("report_chain5001.json");
  write_text(graph,
             R"({"format": "torchlean.ir.v1", "input_id": 0, "output_id": 5000, "nodes": [)" +
                 nodes + "]}\n");
  const CliResult r = run_cli("report " + graph.string() + " --lowering singleton");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err,
                       "note: placement picture left out: the graph has 5001 nodes; the "
                       "report draws graphs of at most 5000"))
      << r.err;
  EXPECT_FALSE(contains(r.out, "<svg"));
  EXPECT_TRUE(contains(r.out, "group 4999: nodes 5000"));
}

TEST(ReportCli, TrustedExternalBoundaryIsOnThePage) {
  const fs::path file = out_file("report_trusted.html");
  const CliResult r = run_cli("report " + source("tests/data/graphs/cli_relu.json") + kTrustedArgs +
                              " -o " + file.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read_text(file);
  EXPECT_TRUE(contains(html,
                       "TRUSTED EXTERNAL: the plan crosses a trusted-external boundary at "
                       "relu"));
  EXPECT_TRUE(contains(html, "<code>trusted external boundary: relu</code>"));
  EXPECT_TRUE(contains(html, "value: trusted boundary: vendor binary without source"));
}

TEST(ReportCli, GateRejectionStillWritesThePageAndExitsOne) {
  const fs::path file = out_file("report_rejected.html");
  const CliResult r = run_cli(
      "report " + source("tests/data/graphs/cli_relu.json") + " --assurance verified --registry " +
      source("tests/data/registries/cli_verified_relu.json") + " -o " + file.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out,
            "gate: rejected under assurance verified\nreport written to " + file.string() + "\n");
  const std::string html = read_text(file);
  EXPECT_TRUE(contains(html, ">gate: rejected under assurance verified</p>"));
  EXPECT_TRUE(contains(html,
                       "<h3>runtime-guard-evidence</h3>\n<p>groups <a href=\"#group-0\">0"
                       "</a>; nodes 1,2</p>"))
      << html;
  EXPECT_TRUE(contains(html, "<h3>test-evidence</h3>"));
}

TEST(ReportCli, NodeWithoutAnAdmissibleCapsuleWritesAPageNamingItAndExitsOne) {
  const std::string args =
      "report " + source("tests/data/graphs/cli_sin.json") + " --profile checked_cuda";
  const fs::path file = out_file("report_sin.html");
  const CliResult r = run_cli(args + " -o " + file.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.out,
                       "no admissible backend capsule for op sin on device cuda\n"
                       "  at node 2 (sin 'wave')\n"))
      << r.out;
  EXPECT_TRUE(r.out.ends_with("report written to " + file.string() + "\n")) << r.out;
  const std::string html = read_text(file);
  EXPECT_TRUE(contains(html, "no plan: no admissible backend capsule for op sin on device cuda"));
  EXPECT_TRUE(contains(html, "<p>node 2 has no admissible capsule, so the graph has no plan.</p>"));
  EXPECT_TRUE(contains(html,
                       "<tr><td>2</td><td>sin</td><td>[4]</td><td><code>wave</code></td>"
                       "<td>sin</td></tr>"))
      << html;
  EXPECT_TRUE(contains(html,
                       "<code>wrong-device</code>: capsule runs on cpu, the config asks "
                       "for cuda"));
  // The other nodes: where each would run.
  EXPECT_TRUE(contains(html,
                       "<tr><td>1</td><td>relu</td><td>[4]</td><td><code>act</code></td>"
                       "<td>relu</td><td><code>native_cuda.relu</code></td>"))
      << html;
  EXPECT_TRUE(contains(html,
                       "<tr><td>3</td><td>relu</td><td>[4]</td><td><code>out</code></td>"
                       "<td>relu</td><td><code>native_cuda.relu</code></td>"));
  EXPECT_TRUE(contains(html,
                       "<tr><td>0</td><td>input</td><td>[4]</td><td><code>x</code></td>"
                       "<td colspan=\"4\">no runtime work</td></tr>"));
  // Without -o the page is stdout and the explanation goes to stderr.
  const CliResult to_stdout = run_cli(args);
  EXPECT_EQ(to_stdout.exit_code, 1);
  EXPECT_EQ(to_stdout.out, html);
  EXPECT_TRUE(contains(to_stdout.err, "no admissible backend capsule for op sin on device cuda"))
      << to_stdout.err;
}

// x [1,4] -> Det 'det' -> a; x -> Mish `mish<script>` -> b; Add 'add' (a, b) -> y.
fs::path two_unsupported_model() {
  format::onnx_test::Model m;
  m.input("x", {1, 4}).output("y");
  m.node("Det", {"x"}, {"a"}, "det");
  m.node("Mish", {"x"}, {"b"}, "mish<script>");
  m.node("Add", {"a", "b"}, {"y"}, "add");
  const fs::path path = scratch_dir() / "report_two_unsupported.onnx";
  write_text(path, m.proto().SerializeAsString());
  return path;
}

// The importer's error goes to stderr as for every command, the page lists every unsupported node,
// and the exit is still 4.
TEST(ReportCli, UnsupportedModelWritesAPageListingEveryUnsupportedNodeAndExitsFour) {
  const fs::path model = two_unsupported_model();
  const fs::path file = out_file("report_unsupported.html");
  const CliResult r = run_cli("report " + model.string() + " -o " + file.string());
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(r.out, "report written to " + file.string() + "\n");
  const std::vector<std::string> lines = lines_of(r.err);
  ASSERT_EQ(lines.size(), 5u) << r.err;
  EXPECT_EQ(lines[0], "nnplan: error: " + model.string() +
                          ": nnplan does not support 2 nodes of this model (opset 17)");
  EXPECT_EQ(lines[1], "  node 0 'det' (Det): operator Det is not supported");
  const std::string html = read_text(file);
  EXPECT_TRUE(contains(
      html, "<p class=\"verdict rejected\" id=\"verdict\">not imported: " + model.string() +
                ": nnplan does not support 2 nodes of this model (opset 17)</p>"))
      << html;
  EXPECT_TRUE(contains(html,
                       "<tr><td>0</td><td><code>det</code></td><td><code>Det</code></td><td>"
                       "operator Det is not supported</td></tr>\n<tr><td>1</td><td><code>mish"
                       "&lt;script&gt;</code></td><td><code>Mish</code></td><td>operator Mish is "
                       "not supported</td></tr>"))
      << html;
  EXPECT_TRUE(contains(html, "<li>1 node depends on them and was not imported</li>"));
  EXPECT_TRUE(contains(html, "<code>profile=checked_cpu device=cpu"));
  EXPECT_FALSE(contains(html, "<script"));
  // Without -o the page is stdout, byte for byte, and the error is on stderr.
  const CliResult to_stdout = run_cli("report " + model.string());
  EXPECT_EQ(to_stdout.exit_code, 4);
  EXPECT_EQ(to_stdout.out, html);
  EXPECT_TRUE(to_stdout.err.starts_with("nnplan: error: " + model.string())) << to_stdout.err;
}

TEST(ReportCli, UnsupportedModelPageThatCannotBeWrittenExitsThree) {
  const fs::path model = two_unsupported_model();
  const CliResult r = run_cli("report " + model.string() + " -o /nonexistent/dir/r.html");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(contains(r.err, "nnplan does not support 2 nodes of this model")) << r.err;
  EXPECT_TRUE(contains(r.err,
                       "nnplan: error: /nonexistent/dir/r.html: cannot write output file: no such "
                       "file or directory"))
      << r.err;
}

// A malformed graph (exit 3) gets no page.
TEST(ReportCli, MalformedGraphWritesNoPage) {
  const fs::path file = out_file("report_malformed.html");
  const CliResult r =
      run_cli("report " + source("tests/data/graphs/bad_cycle.json") + " -o " + file.string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(fs::exists(file));
}

// The text of every `<p class="layout">` line, by group index.
std::map<std::size_t, std::string> layout_lines(const std::string& html) {
  std::map<std::size_t, std::string> lines;
  for (std::size_t at = html.find("<details class=\"group "); at != std::string::npos;
       at = html.find("<details class=\"group ", at + 1)) {
    const std::size_t id = html.find("id=\"group-", at) + 10;
    const std::size_t group = std::stoul(html.substr(id, html.find('"', id) - id));
    const std::size_t line = html.find("<p class=\"layout\">", at);
    lines[group] = html.substr(line, html.find("</p>", line) - line);
  }
  return lines;
}

// What the page says of each group's layout is what runs: the layouts of the commands and
// reorders `nnplan run --trace` records for the same model and profile on this machine.
TEST(ReportCli, LayoutLinesAgreeWithTheLayoutsTheRunTraces) {
  const std::string args = source("examples/cnn.json") + " --profile fast_cpu";
  const CliResult report = run_cli("report " + args + " --no-picture");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_TRUE(report.err.empty()) << report.err;
  const fs::path trace = out_file("report_layouts.trace.json");
  const CliResult run = run_cli("run " + args + " --input " + source("examples/cnn_input.npy") +
                                " --quiet --trace " + trace.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::map<std::size_t, bool> channels_last;  // group -> some command runs channels-last
  std::map<std::size_t, std::size_t> reorders;
  const nlohmann::json events = nlohmann::json::parse(read_text(trace))["traceEvents"];
  for (const auto& event : events) {
    if (!event.contains("args") || !event["args"].contains("group")) continue;
    const auto& a = event["args"];
    const std::size_t group = a["group"];
    if (a.contains("reorder")) {
      ++reorders[group];
    } else {
      channels_last[group] = channels_last[group] || a["layout"] == "channels-last";
    }
  }
  const auto lines = layout_lines(report.out);
  ASSERT_EQ(lines.size(), channels_last.size()) << report.out;
  for (const auto& [group, runs_channels_last] : channels_last) {
    SCOPED_TRACE("group " + std::to_string(group));
    const std::string& line = lines.at(group);
    EXPECT_TRUE(line.starts_with(
        "<p class=\"layout\">layout: its contract claims <code>flat-row-major</code>"))
        << line;
    EXPECT_EQ(contains(line, "it runs <strong>channels-last</strong>"), runs_channels_last) << line;
    EXPECT_EQ(contains(line, "it runs flat (dense row-major), as claimed."), !runs_channels_last)
        << line;
    EXPECT_EQ(contains(line, "by a reorder command of its own"), reorders[group] > 0) << line;
  }
  EXPECT_EQ(contains(report.out, "<p id=\"layout-caveat\">Layouts: "),
            std::ranges::any_of(channels_last, [](const auto& g) { return g.second; }));
}

// The layouts come from compiling the plan: a rejected plan is not compiled, and a graph without
// its weights cannot be; the page says why, and for an accepted plan a note says so too.
TEST(ReportCli, PagesWithoutLayoutsSayWhy) {
  const CliResult rejected = run_cli("report " + source("tests/data/graphs/cli_relu.json") +
                                     " --no-picture --assurance "
                                     "verified --registry " +
                                     source("tests/data/registries/cli_verified_relu.json"));
  EXPECT_EQ(rejected.exit_code, 1) << rejected.err;
  EXPECT_TRUE(contains(rejected.out,
                       "<p class=\"note\">Layouts as run: not computed for this page (the gate "
                       "rejects the plan, so it is not compiled)."))
      << rejected.out;
  EXPECT_FALSE(contains(rejected.err, "layouts as run")) << rejected.err;

  const fs::path dir = scratch_dir() / "report_no_weights";
  fs::create_directories(dir);
  const fs::path graph = dir / "cnn.json";
  fs::copy_file(source("examples/cnn.json"), graph, fs::copy_options::overwrite_existing);
  const CliResult weightless = run_cli("report " + graph.string() + " --no-picture");
  EXPECT_EQ(weightless.exit_code, 0) << weightless.err;
  const std::string reason =
      "compiling the plan failed: node 1 (conv 'conv1'): payload weight is missing: the graph's "
      "weights were not loaded";
  EXPECT_TRUE(contains(weightless.err, "note: layouts as run left out: " + reason))
      << weightless.err;
  EXPECT_TRUE(contains(weightless.out,
                       "Layouts as run: not computed for this page (compiling the plan failed: "
                       "node 1 (conv &#39;conv1&#39;): payload weight is missing"))
      << weightless.out;
  EXPECT_TRUE(contains(weightless.out,
                       "<p class=\"layout\">layout: its contract claims "
                       "<code>canonical-tensor</code>; the layout it runs in is chosen when the "
                       "plan is compiled, which was not done for this page (compiling the plan "
                       "failed: "))
      << weightless.out;
}

TEST(ReportCli, OnnxNodeNamesAppearEscapedBesideNodeIds) {
  const fs::path model = hostile_onnx_model();
  const CliResult r = run_cli("report " + model.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(contains(r.out, "<script")) << "the node name must never become markup";
  EXPECT_FALSE(contains(r.out, "out&\""));
  EXPECT_TRUE(contains(r.out, "<td><code>onnx=&lt;script&gt;alert(1)&lt;/script&gt;</code></td>"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "onnx=<code>out&amp;&quot;</code>")) << r.out;
  if (dot_installed()) {
    // Graphviz escapes the name in the picture's label too.
    EXPECT_TRUE(contains(r.out, "onnx=&lt;script&gt;alert(1)&lt;/script&gt;</text>")) << r.out;
  }
}

TEST(ReportCli, RefusesToOverwriteTheGraph) {
  const fs::path dir = scratch_dir() / "report_overwrite";
  fs::create_directories(dir);
  const fs::path graph = dir / "g.json";
  fs::copy_file(source("examples/mlp.json"), graph, fs::copy_options::overwrite_existing);
  const std::string before = read_text(graph);
  const CliResult r = run_cli("report " + graph.string() + " -o " + graph.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "nnplan: error: -o " + graph.string() +
                       ": the output would overwrite the input " + graph.string() +
                       "; choose another output path\n");
  EXPECT_EQ(read_text(graph), before);
}

struct ErrorCase {
  std::string label;
  std::string args;  // {src} marks the source tree
  int exit_code;
  std::string message;
};

class ReportCliErrors : public testing::TestWithParam<ErrorCase> {};

TEST_P(ReportCliErrors, ExitCodeAndMessage) {
  std::string args = GetParam().args;
  for (auto at = args.find("{src}"); at != std::string::npos; at = args.find("{src}")) {
    args.replace(at, 5, std::string(NNPLAN_SOURCE_DIR) + "/");
  }
  const CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, GetParam().exit_code) << r.err;
  EXPECT_TRUE(contains(r.err, GetParam().message)) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ReportCliErrors,
    testing::Values(
        ErrorCase{"unreadable_model", "report /nonexistent/model.json -o /tmp/x.html", 3,
                  "nnplan: error: /nonexistent/model.json: cannot read graph file: no such file "
                  "or directory"},
        ErrorCase{"malformed_model", "report {src}CMakeLists.txt", 3, "nnplan: error: "},
        ErrorCase{"unwritable_output",
                  "report {src}examples/mlp.json --no-picture -o /nonexistent/dir/r.html", 3,
                  "nnplan: error: /nonexistent/dir/r.html: cannot write output file: no such "
                  "file or directory"},
        ErrorCase{"missing_graph", "report", 2,
                  "nnplan: error: nnplan report: GRAPH is required (see nnplan report --help)"},
        ErrorCase{"unknown_option", "report {src}examples/mlp.json --bogus", 2,
                  "nnplan: error: unknown option --bogus for nnplan report"},
        ErrorCase{"unknown_profile", "report {src}examples/mlp.json --profile nope", 2,
                  "checked_cpu"},
        ErrorCase{"unknown_lowering", "report {src}examples/mlp.json --lowering nope", 2,
                  "singleton"}),
    [](const testing::TestParamInfo<ErrorCase>& info) { return info.param.label; });

TEST(ReportCli, HelpHasAnExample) {
  const CliResult r = run_cli("report --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "Example: nnplan report examples/cnn.json -o cnn.html")) << r.out;
  EXPECT_TRUE(contains(r.out, "--no-picture"));
  EXPECT_TRUE(contains(r.out, "--expanded"));
  EXPECT_TRUE(contains(r.out, "-o,--output"));
  EXPECT_TRUE(contains(r.out, "layout each group runs in")) << r.out;
  EXPECT_TRUE(contains(r.out,
                       "importer does not support gets a page listing every unsupported "
                       "node"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "(a page is written for 0, 1 and 4)")) << r.out;
}

}  // namespace
}  // namespace nnplan::cli_test
