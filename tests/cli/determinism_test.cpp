// Determinism: the same command run twice, in two separate processes, prints byte-identical
// output. Covers the report and the `--json` artifact of every example graph (and one ONNX
// conformance model when the corpus is present), `plan-ops --json` and `capsules --json`.
// Separate processes matter: they get different heap layouts and addresses, so any order taken
// from pointers or unordered containers shows up here.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using namespace nnplan::cli_test;

namespace fs = std::filesystem;

// Runs `args` twice and expects identical stdout, stderr and exit code; returns the first run.
CliResult expect_same_twice(const std::string& args) {
  const CliResult first = run_cli(args);
  const CliResult second = run_cli(args);
  EXPECT_EQ(first.exit_code, second.exit_code) << args;
  EXPECT_EQ(first.out, second.out) << "stdout differs between two runs of: nnplan " << args;
  EXPECT_EQ(first.err, second.err) << "stderr differs between two runs of: nnplan " << args;
  return first;
}

std::vector<std::string> example_graphs() {
  std::vector<std::string> graphs;
  for (const auto& entry : fs::directory_iterator(source("examples")))
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      graphs.push_back(entry.path().string());
  std::sort(graphs.begin(), graphs.end());
  return graphs;
}

TEST(Determinism, EveryExamplePlansIdenticallyTwice) {
  const std::vector<std::string> graphs = example_graphs();
  ASSERT_GE(graphs.size(), 3u) << "examples/*.json went missing";
  for (const std::string& graph : graphs) {
    SCOPED_TRACE(graph);
    const CliResult report = expect_same_twice("plan " + graph);
    EXPECT_EQ(report.exit_code, 0) << report.err;
    EXPECT_FALSE(report.out.empty());
    const CliResult artifact = expect_same_twice("plan " + graph + " --json");
    EXPECT_EQ(artifact.exit_code, 0) << artifact.err;
    EXPECT_TRUE(contains(artifact.out, "\"nnplan.plan.v1\"")) << artifact.out;
  }
}

TEST(Determinism, ExamplesUnderACudaProfilePlanIdenticallyTwice) {
  for (const std::string& graph : example_graphs()) {
    SCOPED_TRACE(graph);
    expect_same_twice("plan " + graph + " --profile checked_cuda --json");
  }
}

TEST(Determinism, OnnxConformanceModelPlansIdenticallyTwice) {
  const fs::path model =
      fs::path(NNPLAN_ONNX_CONFORMANCE_DIR) / "test_gemm_default_matrix_bias" / "model.onnx";
  if (!fs::exists(model))
    GTEST_SKIP() << "ONNX conformance corpus not found at " NNPLAN_ONNX_CONFORMANCE_DIR;
  const CliResult report = expect_same_twice("plan " + model.string());
  EXPECT_EQ(report.exit_code, 0) << report.err;
  const CliResult artifact = expect_same_twice("plan " + model.string() + " --json");
  EXPECT_EQ(artifact.exit_code, 0) << artifact.err;
  EXPECT_TRUE(contains(artifact.out, "\"nnplan.plan.v1\"")) << artifact.out;
}

TEST(Determinism, PlanOpsJsonIsIdenticalTwice) {
  for (const std::string profile : {"checked_cpu", "checked_cuda", "libtorch_forward_cuda"}) {
    SCOPED_TRACE(profile);
    const CliResult r = expect_same_twice(
        "plan-ops --profile " + profile +
        " --json matmul relu softmax scaled_dot_product_attention layer_norm conv add");
    EXPECT_TRUE(contains(r.out, "\"nnplan.ops-plan.v1\"")) << r.out << r.err;
  }
}

TEST(Determinism, CapsulesJsonIsIdenticalTwice) {
  for (const std::string profile : {"checked_cpu", "checked_cuda", "libtorch_forward_cuda"}) {
    SCOPED_TRACE(profile);
    const CliResult r = expect_same_twice("capsules --profile " + profile + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "\"nnplan.capsules.v1\"")) << r.out;
  }
  const CliResult with_registry =
      expect_same_twice("capsules --json --registry " + source("examples/registries/acme.json"));
  EXPECT_EQ(with_registry.exit_code, 0) << with_registry.err;
  EXPECT_TRUE(contains(with_registry.out, "acme.relu")) << with_registry.out;
}

}  // namespace
