// Every graph subcommand reads the payload file beside a torchlean.ir.v1 graph and checks it
// against the graph: a broken one is an input error (exit 3) naming it, and a graph without one
// still plans and says on stderr that no weights were checked.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace nnplan::cli_test {
namespace {

// examples/mlp.json copied into `dir`, with `payloads` as mlp.payloads beside it when not empty.
fs::path mlp_in(const std::string& dir, const std::string& payloads) {
  const fs::path graph = scratch_dir() / dir / "mlp.json";
  write_text(graph, read_text(source("examples/mlp.json")));
  fs::remove(graph.parent_path() / "mlp.payloads");
  if (!payloads.empty()) write_text(graph.parent_path() / "mlp.payloads", payloads);
  return graph;
}

// Each graph subcommand on `graph`, as a user would run it.
std::vector<std::string> commands_on(const fs::path& graph, const fs::path& artifact) {
  return {"plan " + graph.string(), "plan " + graph.string() + " --json",
          "verify " + graph.string() + " " + artifact.string(),
          "explain " + graph.string() + " --node 1", "dot " + graph.string()};
}

TEST(PayloadCheckCli, BrokenPayloadFileIsAnInputErrorForEveryGraphSubcommand) {
  const fs::path good = mlp_in("good", read_text(source("examples/mlp.payloads")));
  const fs::path artifact = scratch_dir() / "payload_check.plan.json";
  ASSERT_EQ(run_cli("plan " + good.string() + " --json -o " + artifact.string()).exit_code, 0);
  const std::string cnn = read_text(source("examples/cnn.payloads"));
  const std::string mlp = read_text(source("examples/mlp.payloads"));
  struct Broken {
    std::string label;
    std::string bytes;
    std::string fragment;
  };
  const std::vector<Broken> cases = {
      {"garbage", "garbage that is no payload file", "mlp.payloads: "},
      {"truncated", mlp.substr(0, mlp.size() - 1), "mlp.payloads: truncated"},
      {"other_graph", cnn, "mlp.payloads: node "},
  };
  for (const Broken& c : cases) {
    const fs::path graph = mlp_in(c.label, c.bytes);
    for (const std::string& command : commands_on(graph, artifact)) {
      const CliResult r = run_cli(command);
      EXPECT_EQ(r.exit_code, 3) << command << "\n" << r.err;
      EXPECT_TRUE(contains(r.err, "nnplan: error: ")) << command << "\n" << r.err;
      EXPECT_TRUE(contains(r.err, c.fragment)) << c.fragment << " not in\n" << r.err;
    }
  }
}

TEST(PayloadCheckCli, GraphWithoutPayloadFilePlansWithANote) {
  const fs::path graph = mlp_in("none", "");
  const fs::path artifact = scratch_dir() / "payload_none.plan.json";
  ASSERT_EQ(run_cli("plan " + graph.string() + " --json -o " + artifact.string()).exit_code, 0);
  const std::string note = "note: weights: not checked: no payload file " +
                           (graph.parent_path() / "mlp.payloads").string() + " beside " +
                           graph.string() + " (planning needs none)\n";
  for (const std::string& command : commands_on(graph, artifact)) {
    const CliResult r = run_cli(command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.err;
    EXPECT_EQ(r.err, note) << command;
  }
  // With the payload file beside it, nothing is said.
  const fs::path good = mlp_in("with", read_text(source("examples/mlp.payloads")));
  const CliResult r = run_cli("plan " + good.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace nnplan::cli_test
