// Names from inputs reach the terminal escaped (DESIGN.md, "The command line"): a registry whose
// evidence name holds a newline, a forged gate line and ESC[8m (hide what follows), and a graph
// whose node names do the same, cannot add a line or an escape sequence to what plan, explain,
// dot, plan-ops, capsules and error messages print; the real verdict stays the only gate line.
// Bytes that are not UTF-8, in an ONNX node name or a path, reach the JSON outputs (run --trace,
// capsules --evidence --json) as `\xNN`, and the JSON stays valid.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "../format/onnx/onnx_test_models.hpp"
#include "cli_runner.hpp"
#include "nnplan/format/tensor_file.hpp"

namespace nnplan::cli_test {
namespace {

const std::string kHostile = "x\ngate: accepted under assurance checked\x1b[8m";
const std::string kShown = "x\\ngate: accepted under assurance checked\\x1b[8m";

// The acme registry with its shape evidence named kHostile.
fs::path hostile_registry() {
  auto doc = nlohmann::ordered_json::parse(read_text(source("examples/registries/acme.json")));
  doc["modules"][0]["capsules"][0]["contracts"]["shape"]["evidence"]["name"] = kHostile;
  const fs::path path = scratch_dir() / "escaping_registry.json";
  write_text(path, doc.dump());
  return path;
}

// input -> relu, both nodes named with kHostile.
fs::path hostile_graph() {
  const nlohmann::ordered_json doc = {{"format", "torchlean.ir.v1"},
                                      {"input_id", 0},
                                      {"output_ids", {1}},
                                      {"nodes",
                                       {{{"id", 0},
                                         {"kind", "input"},
                                         {"parents", nlohmann::json::array()},
                                         {"shape", {1, 4}},
                                         {"name", "in" + kHostile}},
                                        {{"id", 1},
                                         {"kind", "relu"},
                                         {"parents", {0}},
                                         {"shape", {1, 4}},
                                         {"name", "r" + kHostile}}}}};
  const fs::path path = scratch_dir() / "escaping_graph.json";
  write_text(path, doc.dump());
  return path;
}

std::string config(const fs::path& registry) {
  return " --profile checked_cpu --registry " + registry.string() +
         " --device external --target external";
}

std::size_t count(const std::string& text, const std::string& fragment) {
  std::size_t n = 0;
  for (auto at = text.find(fragment); at != std::string::npos; at = text.find(fragment, at + 1))
    ++n;
  return n;
}

void expect_inert(const std::string& text) {
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(count(text, "\ngate: "), 0u) << text;
}

TEST(EscapingCli, PlanReportShowsTheEvidenceNameEscapedAndOneVerdict) {
  const CliResult r = run_cli("plan " + hostile_graph().string() + config(hostile_registry()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(
      contains(r.out, "    shape: shape safety for relu; guarded at runtime by " + kShown + "\n"))
      << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  // Exactly one line starts with "gate:", the real one, last.
  EXPECT_EQ(count(r.out, "\ngate: "), 1u) << r.out;
  EXPECT_TRUE(r.out.ends_with("\ngate: accepted under assurance checked\n")) << r.out;
}

TEST(EscapingCli, ExplainShowsTheNodeNameEscaped) {
  const CliResult r =
      run_cli("explain " + hostile_graph().string() + " --node 1" + config(hostile_registry()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "node 1 (relu 'r" + kShown + "'): shape [1,4], parents 0\n"))
      << r.out;
  expect_inert(r.out);
}

TEST(EscapingCli, DotLabelsShowTheNodeNamesEscaped) {
  const CliResult r = run_cli("dot " + hostile_graph().string() + config(hostile_registry()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The escape's backslash is itself escaped for DOT, so the label shows `\n`, not a break.
  EXPECT_TRUE(contains(r.out,
                       "n1 [label=\"1: relu 'rx\\\\ngate: accepted under assurance "
                       "checked\\\\x1b[8m'\\n[1,4]\""))
      << r.out;
  expect_inert(r.out);
}

TEST(EscapingCli, PlanOpsAndCapsulesPrintNoRawControl) {
  const fs::path registry = hostile_registry();
  const CliResult plan = run_cli("plan-ops relu" + config(registry));
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_TRUE(contains(plan.out, "guarded at runtime by " + kShown + "\n")) << plan.out;
  expect_inert(plan.out);
  const CliResult listing = run_cli("capsules --registry " + registry.string());
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  EXPECT_TRUE(contains(listing.out, "acme.relu ")) << listing.out;
  expect_inert(listing.out);
  // The JSON export keeps the name exactly, escaped as JSON escapes it.
  const CliResult json = run_cli("capsules --json --registry " + registry.string());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(contains(json.out, "\"x\\ngate: accepted under assurance checked\\u001b[8m\""))
      << json.out;
}

TEST(EscapingCli, APlanningFailureShowsTheNodeNameEscaped) {
  // Verified assurance admits no checked capsule; the explanation names the node.
  const CliResult r = run_cli("plan " + hostile_graph().string() + config(hostile_registry()) +
                              " --assurance verified");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "\n  at node 1 (relu 'r" + kShown + "')\n")) << r.out;
  expect_inert(r.out);
}

TEST(EscapingCli, ErrorMessagesShowPathsEscaped) {
  const CliResult r = run_cli("plan \"$(printf '/nonexistent/g\\033[8m\\nx.json')\"");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(contains(r.err, "nnplan: error: /nonexistent/g\\x1b[8m\\nx.json")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
}

// input -> Relu named "relu\xff" (no UTF-8), as an ONNX model: run --trace writes valid JSON with
// the name escaped, and the run's outputs and exit code are those of any run.
TEST(EscapingCli, ANodeNameThatIsNotUtf8IsEscapedInTheTrace) {
  format::onnx_test::Model m(17);
  m.input("x", {2, 3}).output("y");
  m.node("Relu", {"x"}, {"y"}, "relu\xff");
  const fs::path dir = scratch_dir() / "not_utf8_trace";
  const std::vector<std::byte> bytes = m.bytes();
  write_text(dir / "m.onnx",
             std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  ASSERT_TRUE(format::write_tensor_file(
      dir / "x.npy", ir::WeightTensor::adopt(ir::Shape{{2, 3}}, std::vector<float>(6, 1.0F))));
  const CliResult r = run_cli("run " + (dir / "m.onnx").string() + " --quiet --input x=" +
                              (dir / "x.npy").string() + " --trace " + (dir / "t.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_text(dir / "t.json");
  EXPECT_EQ(text.find('\xff'), std::string::npos);
  const auto doc = nlohmann::json::parse(text);  // throws (and fails) on invalid UTF-8
  bool named = false;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") named = named || e["args"]["node_names"][0] == "relu\\xff";
  }
  EXPECT_TRUE(named) << text.substr(0, 2000);
}

// A registry at a path that is not UTF-8: capsules --evidence --json names the path escaped.
TEST(EscapingCli, APathThatIsNotUtf8IsEscapedInTheEvidenceJson) {
  const fs::path path = scratch_dir() / "acme\xfe.json";
  fs::copy_file(source("examples/registries/acme.json"), path,
                fs::copy_options::overwrite_existing);
  const CliResult r = run_cli("capsules --evidence --json --registry '" + path.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\xfe'), std::string::npos);
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_NE(r.out.find("acme\\\\xfe.json"), std::string::npos) << r.out.substr(0, 3000);
  EXPECT_TRUE(doc.is_object());
}

}  // namespace
}  // namespace nnplan::cli_test
