// End-to-end tests of the graph subcommands (`plan`, `verify`, `explain`, `dot`) run against the
// built binary: golden reports, artifacts and pictures for the examples, exit codes, and verify
// catching tampered artifacts, changed profiles and changed graphs.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace nnplan::cli_test;

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const std::string kTrustedRegistry = "tests/data/registries/cli_trusted_relu.json";
const std::string kVerifiedRegistry = "tests/data/registries/cli_verified_relu.json";

// ---------------------------------------------------------------------------------------------
// Golden output

struct GoldenCase {
  std::string name;
  std::string args;  // paths relative to the source tree are marked {src}
  int exit_code;
};

std::string expand(std::string args) {
  const std::string mark = "{src}";
  for (auto at = args.find(mark); at != std::string::npos; at = args.find(mark)) {
    args.replace(at, mark.size(), std::string(NNPLAN_SOURCE_DIR) + "/");
  }
  return args;
}

class GraphCliGolden : public testing::TestWithParam<GoldenCase> {};

TEST_P(GraphCliGolden, StdoutMatchesGoldenAndExitCode) {
  const GoldenCase& c = GetParam();
  const CliResult r = run_cli(expand(c.args));
  EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
  // The examples carry payload files; the test graphs do not, and say so once.
  for (const std::string& line : lines_of(r.err)) {
    EXPECT_TRUE(line.starts_with("note: weights: not checked: no payload file ")) << line;
  }
  EXPECT_LE(lines_of(r.err).size(), 1U) << r.err;
  expect_golden(c.name, r.out);
}

INSTANTIATE_TEST_SUITE_P(
    Examples, GraphCliGolden,
    testing::Values(
        GoldenCase{"plan_mlp_checked_cpu.txt", "plan {src}examples/mlp.json", 0},
        GoldenCase{"plan_mlp_checked_cpu.json", "plan {src}examples/mlp.json --json", 0},
        GoldenCase{"plan_cnn_checked_cpu.txt", "plan {src}examples/cnn.json", 0},
        GoldenCase{"plan_cnn_checked_cpu.json", "plan {src}examples/cnn.json --json", 0},
        GoldenCase{"plan_transformer_block_checked_cpu.txt",
                   "plan {src}examples/transformer_block.json", 0},
        GoldenCase{"plan_transformer_block_checked_cpu.json",
                   "plan {src}examples/transformer_block.json --json", 0},
        GoldenCase{"plan_transformer_block_checked_cuda.txt",
                   "plan {src}examples/transformer_block.json --profile checked_cuda", 0},
        GoldenCase{"plan_transformer_block_checked_cuda.json",
                   "plan {src}examples/transformer_block.json --profile checked_cuda --json", 0},
        // The block's three projections coalesce by default; singleton keeps one group each.
        GoldenCase{"plan_transformer_block_singleton.txt",
                   "plan {src}examples/transformer_block.json --lowering singleton", 0},
        GoldenCase{"plan_transformer_block_singleton.json",
                   "plan {src}examples/transformer_block.json --lowering singleton --json", 0},
        GoldenCase{"plan_relu_verified_gate_rejects.txt",
                   "plan {src}tests/data/graphs/cli_relu.json --assurance verified --registry "
                   "{src}" +
                       kVerifiedRegistry,
                   1},
        GoldenCase{"plan_sin_checked_cuda.txt",
                   "plan {src}tests/data/graphs/cli_sin.json --profile checked_cuda", 1},
        GoldenCase{"plan_sin_checked_cuda.json",
                   "plan {src}tests/data/graphs/cli_sin.json --profile checked_cuda --json", 1},
        GoldenCase{"explain_cnn_node1.txt", "explain {src}examples/cnn.json --node 1", 0},
        GoldenCase{"explain_sin_checked_cuda.txt",
                   "explain {src}tests/data/graphs/cli_sin.json --node 2 --profile checked_cuda",
                   1},
        GoldenCase{"dot_cnn.dot", "dot {src}examples/cnn.json", 0},
        GoldenCase{"dot_relu_trusted_external.dot",
                   "dot {src}tests/data/graphs/cli_relu.json --assurance external --prefer "
                   "torchlean --registry {src}" +
                       kTrustedRegistry,
                   0}),
    [](const testing::TestParamInfo<GoldenCase>& info) {
      std::string name = info.param.name;
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

// ---------------------------------------------------------------------------------------------
// plan

TEST(GraphCliPlan, ArtifactIsDeterministicAndOutputFileMatchesJson) {
  const std::string args = "plan " + source("examples/transformer_block.json");
  const fs::path file = scratch_dir() / "block.plan.json";
  const CliResult first = run_cli(args + " --json");
  const CliResult second = run_cli(args + " --json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, second.out);
  const CliResult with_file = run_cli(args + " -o " + file.string());
  ASSERT_EQ(with_file.exit_code, 0) << with_file.err;
  // -o writes the artifact and still prints the report.
  EXPECT_TRUE(contains(with_file.out, "gate: accepted under assurance checked")) << with_file.out;
  EXPECT_EQ(read_text(file), first.out);
}

// The report's caveats: one line per capsule of the plan whose value claim differs from the
// reference provider on NaN or infinity, before the gate; none for a plan of the reference.
TEST(GraphCliPlan, CaveatsNameTheCapsulesThatDifferOnNan) {
  const CliResult fast = run_cli("plan " + source("examples/cnn.json") + " --profile fast_cpu");
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  EXPECT_TRUE(contains(
      fast.out,
      "caveats (NaN and infinity: how these capsules differ from the reference provider):\n"
      "  onednn.conv: an infinite weight that meets the zero padding gives NaN (0 times "
      "infinity) where the reference, which skips the padding, gives a number or an infinity\n"
      "  onednn.batch_norm_relu: NaN becomes 0 in its jit kernels (a maximum with 0), its plain "
      "kernel keeps NaN (ncsp_bnorm, for some flat values)\n"
      "  onednn.max_pool: a NaN in a window may be passed over, and a window of only NaN and -inf "
      "gives -3.40282347e+38 (oneDNN's pooling starts from the lowest float)\n"
      "  onednn.softmax: a NaN in a row may give numbers (0, -inf) where the reference gives NaN "
      "(oneDNN's maximum of the row passes over NaN)\n"
      "gate: accepted"))
      << fast.out;
  const CliResult checked = run_cli("plan " + source("examples/cnn.json"));
  ASSERT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_FALSE(contains(checked.out, "caveats")) << checked.out;
}

TEST(GraphCliPlan, VerifiedPolicyAdmitsNoCheckedCapsule) {
  // The built-in capsules are all `checked`; `verified` admits none, so planning itself fails.
  const CliResult r = run_cli("plan " + source("examples/mlp.json") + " --assurance verified");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.out, "no admissible backend capsule for op linear on device cpu"));
  EXPECT_TRUE(contains(r.out,
                       "trust-not-admitted: trust checked is not admitted by assurance "
                       "policy verified"))
      << r.out;
}

TEST(GraphCliPlan, GateRejectsGuardAndTestEvidenceUnderVerified) {
  const CliResult r =
      run_cli("plan " + source("tests/data/graphs/cli_relu.json") +
              " --assurance verified --json --registry " + source(kVerifiedRegistry));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["accepted"], false);
  EXPECT_EQ(doc["error"], nullptr);
  ASSERT_EQ(doc["gate_failures"].size(), 2u);
  EXPECT_EQ(doc["gate_failures"][0]["kind"], "runtime-guard-evidence");
  EXPECT_EQ(doc["gate_failures"][1]["kind"], "test-evidence");
  EXPECT_EQ(doc["gate_failures"][0]["obligations"][0],
            Json::parse(R"({"op":"relu","capsule":"lab.verified_relu","field":"shape",
                            "claim":"shape safety for relu",
                            "evidence":"guarded at runtime by lab.relu.guard",
                            "disposition":"guarded"})"));
  ASSERT_EQ(doc["groups"].size(), 1u);
  EXPECT_EQ(doc["groups"][0]["grouping"], "same-capsule-run");
}

TEST(GraphCliPlan, SinHasNoCudaCapsule) {
  const CliResult r = run_cli("plan " + source("tests/data/graphs/cli_sin.json") +
                              " --profile checked_cuda --json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["accepted"], false);
  EXPECT_EQ(doc["error"]["kind"], "no-admissible-capsule");
  EXPECT_EQ(doc["error"]["node_id"], 2);
  EXPECT_EQ(doc["error"]["op"], "sin");
  EXPECT_EQ(doc["error"]["candidates"][0]["capsule"], "reference.sin");
}

TEST(GraphCliPlan, TrustedExternalCapsuleFromRegistryIsLoud) {
  const std::string args = "plan " + source("tests/data/graphs/cli_relu.json") +
                           " --assurance external --prefer torchlean --registry " +
                           source(kTrustedRegistry);
  const CliResult text = run_cli(args);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "\ntrusted external boundary: relu\n")) << text.out;
  EXPECT_TRUE(contains(text.out, "  trust trusted-external: 1 group, 2 nodes\n")) << text.out;
  const CliResult json = run_cli(args + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const Json doc = Json::parse(json.out);
  EXPECT_EQ(doc["audit"]["trusted_external_ops"], Json::parse(R"(["relu"])"));
  EXPECT_EQ(doc["groups"][0]["capsule"], "lab.trusted_relu");
  EXPECT_EQ(doc["groups"][0]["trust"], "trusted-external");
  EXPECT_EQ(doc["profile"]["modules"][0], "lab_trusted");
  const Json& value = doc["audit"]["kernels"][0]["contracts"]["value"];
  EXPECT_EQ(value["evidence"]["kind"], "trusted-boundary");
  EXPECT_EQ(value["disposition"], "trusted");
  EXPECT_EQ(doc["audit"]["kernels"][0]["contracts"]["vjp"]["provenance"][0]["symbol"],
            "lab_relu_forward");
}

struct MalformedCase {
  std::string label;
  std::string graph;
  std::vector<std::string> fragments;
};

class GraphCliMalformed : public testing::TestWithParam<MalformedCase> {};

TEST_P(GraphCliMalformed, ExitsThreeNamingFileNodeAndField) {
  const MalformedCase& c = GetParam();
  const std::string path = source(c.graph);
  for (const std::string sub : {"plan", "explain --node 0", "dot"}) {
    const CliResult r = run_cli(sub + " " + path);
    EXPECT_EQ(r.exit_code, 3) << sub;
    EXPECT_EQ(r.out, "") << sub;
    EXPECT_TRUE(contains(r.err, "nnplan: error: " + path + ": ")) << r.err;
    for (const std::string& fragment : c.fragments) {
      EXPECT_TRUE(contains(r.err, fragment)) << fragment << " not in:\n" << r.err;
    }
  }
  // With --json the failure is also an artifact on stdout.
  const CliResult json = run_cli("plan " + path + " --json");
  EXPECT_EQ(json.exit_code, 3);
  const Json doc = Json::parse(json.out);
  EXPECT_EQ(doc["accepted"], false);
  EXPECT_EQ(doc["error"]["kind"], "malformed-graph");
  EXPECT_EQ(doc["error"]["op"], nullptr);
  EXPECT_EQ(doc["error"]["node_id"], 1);
}

INSTANTIATE_TEST_SUITE_P(
    Graphs, GraphCliMalformed,
    testing::Values(MalformedCase{"shape_mismatch",
                                  "tests/data/graphs/cli_malformed_shape.json",
                                  {"node 1 (relu 'act')", "declared shape [3,2]"}},
                    MalformedCase{"negative_field",
                                  "tests/data/graphs/cli_malformed_field.json",
                                  {"node 1 (max_pool2d 'pool')", "field kH"}}),
    [](const testing::TestParamInfo<MalformedCase>& info) { return info.param.label; });

TEST(GraphCliPlan, UnreadableGraphExitsThree) {
  const CliResult r = run_cli("plan /nonexistent/model.json");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.err, "/nonexistent/model.json: cannot read graph file")) << r.err;
  const CliResult json = run_cli("plan /nonexistent/model.json --json");
  EXPECT_EQ(json.exit_code, 3);
  const Json doc = Json::parse(json.out);
  EXPECT_EQ(doc["graph"], Json::parse(R"({"digest":null,"nodes":null})"));
  EXPECT_EQ(doc["error"]["node_id"], nullptr);
}

TEST(GraphCliPlan, UnknownLoweringIsAUsageError) {
  const CliResult r = run_cli("plan " + source("examples/mlp.json") + " --lowering fusion");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "unknown lowering mode 'fusion'; valid: singleton, coalesced, fused"))
      << r.err;
}

// ---------------------------------------------------------------------------------------------
// verify

TEST(GraphCliVerify, AcceptsAFreshArtifact) {
  const std::string graph = source("examples/cnn.json");
  const fs::path plan = planned_artifact(graph, "cnn.plan.json");
  const CliResult r = run_cli("verify " + graph + " " + plan.string());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out,
            "verified: " + plan.string() + " matches " + graph + " under profile checked_cpu\n");
}

TEST(GraphCliVerify, RebuildsTheRecordedProfile) {
  // Recorded profile checked_cuda with singleton lowering: verify needs no flags.
  const std::string graph = source("examples/transformer_block.json");
  const fs::path plan = planned_artifact(graph, "block.cuda.plan.json",
                                         "--profile checked_cuda --lowering singleton");
  const CliResult r = run_cli("verify " + graph + " " + plan.string());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // A flag given to verify overrides the record.
  const CliResult coalesced =
      run_cli("verify " + graph + " " + plan.string() + " --lowering coalesced");
  EXPECT_EQ(coalesced.exit_code, 1);
  EXPECT_TRUE(contains(coalesced.out,
                       "\nprofile.lowering: artifact has \"singleton\", re-planning gives "
                       "\"coalesced\"\n"))
      << coalesced.out;
  // An explicit --profile starts over from that profile and ignores the record.
  const CliResult other =
      run_cli("verify " + graph + " " + plan.string() + " --profile checked_cpu");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_TRUE(contains(other.out,
                       "\nprofile.name: artifact has \"checked_cuda+overrides\", re-planning "
                       "gives \"checked_cpu\"\n"))
      << other.out;
}

TEST(GraphCliVerify, CatchesATamperedCapsuleName) {
  const std::string graph = source("examples/mlp.json");
  const fs::path plan = planned_artifact(graph, "mlp.plan.json");
  const fs::path tampered = edited_copy(plan, "mlp.tampered.json", [](Json& doc) {
    doc["groups"][0]["capsule"] = "lab.fast_linear";
  });
  const CliResult r = run_cli("verify " + graph + " " + tampered.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0], "mismatch: " + tampered.string() + " does not match " + graph +
                          " under profile checked_cpu (1 difference)");
  EXPECT_EQ(lines[1],
            "groups[0].capsule: artifact has \"lab.fast_linear\", re-planning gives "
            "\"reference.linear\"");
}

// The audit's per-group rows and each gate failure's groups and node ids are compared too.
TEST(GraphCliVerify, ComparesAuditRowsAndTheGroupsAndNodesOfGateFailures) {
  const std::string graph = source("tests/data/graphs/cli_relu.json");
  const std::string flags = "--assurance verified --registry " + source(kVerifiedRegistry);
  const fs::path plan = planned_artifact(graph, "relu.rejected.plan.json", flags);
  const Json recorded = Json::parse(read_text(plan));
  ASSERT_EQ(recorded["gate_failures"].size(), 2u) << recorded.dump();
  EXPECT_EQ(recorded["gate_failures"][0]["groups"], Json::parse("[0]"));
  EXPECT_EQ(recorded["gate_failures"][0]["node_ids"], Json::parse("[1,2]"));
  EXPECT_EQ(recorded["audit"]["rows"], Json::parse("[0]"));
  const CliResult fresh = run_cli("verify " + graph + " " + plan.string() + " " + flags);
  EXPECT_EQ(fresh.exit_code, 0) << fresh.out << fresh.err;
  const fs::path tampered = edited_copy(plan, "relu.rejected.tampered.json", [](Json& doc) {
    doc["gate_failures"][0]["node_ids"] = Json::parse("[1]");
    doc["gate_failures"][1]["groups"] = Json::parse("[1]");
    doc["audit"]["rows"] = Json::parse("[1]");
  });
  const CliResult r = run_cli("verify " + graph + " " + tampered.string() + " " + flags);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_TRUE(lines[0].ends_with("(3 differences)")) << lines[0];
  EXPECT_EQ(lines[1], "gate_failures[0].node_ids[1]: artifact has nothing, re-planning gives 2");
  EXPECT_EQ(lines[2], "gate_failures[1].groups[0]: artifact has 1, re-planning gives 0");
  EXPECT_EQ(lines[3], "audit.rows[0]: artifact has 1, re-planning gives 0");
}

TEST(GraphCliVerify, CatchesAChangedProfile) {
  const std::string graph = source("tests/data/graphs/cli_relu.json");
  const std::string registry = " --registry " + source(kVerifiedRegistry);
  const fs::path plan = planned_artifact(graph, "relu.plan.json", registry);
  // Claiming the plan passed under `verified`: re-planning under that policy rejects it.
  const fs::path changed = edited_copy(plan, "relu.verified.json",
                                       [](Json& doc) { doc["profile"]["assurance"] = "verified"; });
  const CliResult r = run_cli("verify " + graph + " " + changed.string() + registry);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.out, "\naccepted: artifact has true, re-planning gives false\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "\ngate_failures[0]: artifact has nothing, re-planning gives {"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "\ngate_failures[1]: artifact has nothing, re-planning gives {"))
      << r.out;
}

TEST(GraphCliVerify, NeedsTheRegistryTheArtifactWasPlannedWith) {
  const std::string graph = source("tests/data/graphs/cli_relu.json");
  const std::string registry = " --registry " + source(kVerifiedRegistry);
  const fs::path plan = planned_artifact(graph, "relu.registry.plan.json", registry);
  EXPECT_EQ(run_cli("verify " + graph + " " + plan.string() + registry).exit_code, 0);
  const CliResult without = run_cli("verify " + graph + " " + plan.string());
  EXPECT_EQ(without.exit_code, 1);
  EXPECT_TRUE(contains(without.out,
                       "\nprofile.modules[0]: artifact has \"lab_verified\", re-planning gives "
                       "nothing\n"))
      << without.out;
  EXPECT_TRUE(contains(without.out,
                       "\ngroups[0].capsule: artifact has \"lab.verified_relu\", "
                       "re-planning gives \"reference.relu\"\n"))
      << without.out;
}

TEST(GraphCliVerify, CatchesAChangedShape) {
  const std::string graph = source("tests/data/graphs/cli_relu.json");
  const fs::path plan = planned_artifact(graph, "relu.shape.plan.json");
  std::string text = read_text(graph);
  for (auto at = text.find("[2, 3]"); at != std::string::npos; at = text.find("[2, 3]")) {
    text.replace(at, 6, "[2, 4]");
  }
  const fs::path changed = scratch_dir() / "cli_relu_wider.json";
  write_text(changed, text);
  const CliResult r = run_cli("verify " + changed.string() + " " + plan.string());
  EXPECT_EQ(r.exit_code, 1);
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_TRUE(lines[1].starts_with("graph.digest: artifact has \"sha256:")) << lines[1];
  EXPECT_TRUE(contains(lines[1], "\", re-planning gives \"sha256:")) << lines[1];
}

TEST(GraphCliVerify, CatchesAnAddedNodeDigestFirst) {
  const std::string graph = source("tests/data/graphs/cli_relu.json");
  const fs::path plan = planned_artifact(graph, "relu.added.plan.json");
  std::string text = read_text(graph);
  // The graph file may name its output either way (SPEC §6: current and legacy).
  const std::string outputs = "\"output_ids\": [2]";
  if (const std::size_t at = text.find(outputs); at != std::string::npos) {
    text.replace(at, outputs.size(), "\"output_ids\": [3]");
  } else {
    text.replace(text.find("\"output_id\": 2"), 14, "\"output_id\": 3");
  }
  text.replace(text.find("\"name\": \"act2\"}"), 15,
               "\"name\": \"act2\"},\n    {\"id\": 3, \"kind\": \"tanh\", \"parents\": [2], "
               "\"shape\": [2, 3]}");
  const fs::path changed = scratch_dir() / "cli_relu_plus_tanh.json";
  write_text(changed, text);
  const CliResult r = run_cli("verify " + changed.string() + " " + plan.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 6u) << r.out;
  EXPECT_TRUE(lines[0].ends_with("(5 differences)")) << lines[0];
  EXPECT_TRUE(lines[1].starts_with("graph.digest: ")) << lines[1];
  EXPECT_EQ(lines[2], "graph.nodes: artifact has 3, re-planning gives 4");
  EXPECT_TRUE(
      lines[3].starts_with("groups[1]: artifact has nothing, re-planning gives "
                           "{\"node_ids\":[3],\"kinds\":[\"tanh\"]"))
      << lines[3];
  EXPECT_TRUE(lines[4].starts_with("audit.kernels[1]: artifact has nothing, re-planning gives {"))
      << r.out;
  EXPECT_EQ(lines[5], "audit.rows[1]: artifact has nothing, re-planning gives 1");
}

TEST(GraphCliVerify, RejectsSomethingThatIsNotAnArtifact) {
  const std::string graph = source("examples/mlp.json");
  const CliResult r = run_cli("verify " + graph + " " + graph);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, graph + ": not an nnplan.plan.v1 artifact: format is "
                                      "'torchlean.ir.v1'"))
      << r.err;
  const CliResult missing = run_cli("verify " + graph + " /nonexistent/plan.json");
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_TRUE(contains(missing.err, "/nonexistent/plan.json: cannot read plan artifact"))
      << missing.err;
}

TEST(GraphCliVerify, MalformedGraphExitsThree) {
  const fs::path plan = planned_artifact(source("examples/mlp.json"), "mlp.for.bad.json");
  const CliResult r = run_cli("verify " + source("tests/data/graphs/cli_malformed_shape.json") +
                              " " + plan.string());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.err, "declared shape [3,2]")) << r.err;
}

// ---------------------------------------------------------------------------------------------
// explain and dot

TEST(GraphCliExplain, NodeOutOfRangeListsTheValidRange) {
  const std::string graph = source("examples/cnn.json");
  const CliResult r = run_cli("explain " + graph + " --node 8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, "node 8 is not in graph " + graph + "; valid: 0..7")) << r.err;
  EXPECT_EQ(run_cli("explain " + graph + " --node -1").exit_code, 2);
  EXPECT_EQ(run_cli("explain " + graph).exit_code, 2);
}

TEST(GraphCliExplain, NodeWithoutRuntimeWork) {
  const CliResult r = run_cli("explain " + source("examples/cnn.json") + " --node 0");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out,
                       "node 0 (input 'image'): shape [1,3,32,32], parents none\n"
                       "backend op: none (no runtime work; nothing to plan)\n"))
      << r.out;
}

TEST(GraphCliExplain, PreferredCapsuleIsChosenOverAnEarlierAdmissibleOne) {
  const CliResult r = run_cli("explain " + source("tests/data/graphs/cli_relu.json") +
                              " --node 1 --assurance external --prefer torchlean --registry " +
                              source(kTrustedRegistry));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out,
                       "(planning takes the first admissible one of provider torchlean, "
                       "else the first admissible one):\n"))
      << r.out;
  EXPECT_TRUE(contains(r.out,
                       "  lab.trusted_relu (module lab_trusted, provider=torchlean "
                       "device=cpu trust=trusted-external vjp=torchlean-tape): chosen\n"))
      << r.out;
  EXPECT_TRUE(contains(r.out,
                       "  reference.relu (module reference, provider=reference device=cpu "
                       "trust=checked vjp=torchlean-tape): admissible, not chosen: "
                       "lab.trusted_relu comes first\n"))
      << r.out;
}

TEST(GraphCliExplain, ShowsWhyAFusionWasTaken) {
  // examples/mlp.json: linear (1) -> relu (2) -> linear (3) -> softmax (4).
  const CliResult r =
      run_cli("explain " + source("examples/mlp.json") + " --node 2 --profile fast_cpu");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "fused capsules whose pattern holds relu:\n"
                              "  onednn.linear_relu [linear, relu]:\n"
                              "    from node 1 (nodes 1, 2): taken\n"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "fusion: node 2 runs in fused group 0 (onednn.linear_relu, nodes 1, "
                              "2)\n"))
      << r.out;
  // Patterns whose root is elsewhere and never reached node 2 are not listed.
  EXPECT_FALSE(contains(r.out, "onednn.conv_relu")) << r.out;
}

TEST(GraphCliExplain, ShowsWhyAFusionWasNotTaken) {
  const CliResult r =
      run_cli("explain " + source("examples/mlp.json") + " --node 3 --profile fast_cpu");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "  onednn.linear_gelu [linear, gelu]:\n"
                              "    from node 3 (nodes 3): not taken: the only consumer of node 3 "
                              "(linear 'fc2') is node 4 (softmax 'probs'), whose op is softmax; the pattern "
                              "needs gelu there\n"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "fusion: node 3 is not fused\n")) << r.out;
}

TEST(GraphCliExplain, AChainPlannedOnAnotherProviderIsNotFused) {
  const CliResult r = run_cli("explain " + source("examples/mlp.json") +
                              " --node 1 --profile fast_cpu --prefer reference");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Under prefer reference the linear node is planned on reference.linear, so the chain breaks.
  EXPECT_TRUE(contains(r.out, "not taken: node 1 (linear 'fc1') is planned on capsule "
                              "'reference.linear' (provider reference), not on onednn\n"))
      << r.out;
}

TEST(GraphCliDot, PlanningFailureExplainsOnStderr) {
  const CliResult r =
      run_cli("dot " + source("tests/data/graphs/cli_sin.json") + " --profile checked_cuda");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, "no admissible backend capsule for op sin on device cuda")) << r.err;
}

TEST(GraphCliDot, OutputFileHoldsTheDocument) {
  const std::string graph = source("examples/cnn.json");
  const fs::path file = scratch_dir() / "cnn.dot";
  const CliResult r = run_cli("dot " + graph + " -o " + file.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(read_text(file), run_cli("dot " + graph).out);
}

TEST(GraphCliHelp, EveryGraphSubcommandHasHelpWithAnExample) {
  for (const std::string sub : {"plan", "verify", "explain", "dot"}) {
    const CliResult r = run_cli(sub + " --help");
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_TRUE(contains(r.out, "Example: nnplan " + sub + " ")) << sub << ":\n" << r.out;
  }
}

}  // namespace
