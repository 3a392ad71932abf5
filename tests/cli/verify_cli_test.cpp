// End-to-end tests of `nnplan verify` against the built binary: the messages it prints for a
// tampered artifact (one changed capsule name, a removed or forged gate failure), the notes when
// the registry used at planning time is left out or has changed, the caps on the lines, values
// and names it prints, and an artifact read from a pipe.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace {

using namespace nnplan::cli_test;

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const std::string kVerifiedRegistry = "tests/data/registries/cli_verified_relu.json";

// `text` with its first occurrence of `from` replaced by `to` (which must occur).
std::string replace_first(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

fs::path write_scratch(const std::string& name, const std::string& text) {
  const fs::path file = scratch_dir() / name;
  write_text(file, text);
  return file;
}

std::string header(const fs::path& plan, const std::string& graph, std::size_t differences,
                   const std::string& profile = "checked_cpu") {
  return "mismatch: " + plan.string() + " does not match " + graph + " under profile " + profile +
         " (" + std::to_string(differences) + (differences == 1 ? " difference)" : " differences)");
}

TEST(VerifyCli, OneChangedCapsuleNameIsOneLine) {
  const std::string graph = source("examples/mlp.json");
  const fs::path plan = planned_artifact(graph, "verify_mlp.plan.json");
  const std::string original = read_text(plan);
  const std::string text = replace_first(original, "\"capsule\": \"reference.linear\"",
                                         "\"capsule\": \"lab.fast_linear\"");
  ASSERT_EQ(text.size(), original.size() - 1);
  const fs::path tampered = write_scratch("verify_mlp.capsule.json", text);
  const CliResult r = run_cli("verify " + graph + " " + tampered.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, header(tampered, graph, 1) +
                       "\ngroups[0].capsule: artifact has \"lab.fast_linear\", re-planning gives "
                       "\"reference.linear\"\n");
}

// The relu graph under `verified` with the lab registry: two gate failures.
struct RejectedPlan {
  std::string graph = source("tests/data/graphs/cli_relu.json");
  std::string flags = "--assurance verified --registry " + source(kVerifiedRegistry);
  fs::path plan = planned_artifact(graph, "verify_relu.rejected.plan.json", flags);
};

TEST(VerifyCli, OneRemovedGateFailureIsOneLine) {
  const RejectedPlan p;
  const Json recorded = Json::parse(read_text(p.plan));
  ASSERT_EQ(recorded["gate_failures"].size(), 2u);
  ASSERT_EQ(recorded["gate_failures"][1]["kind"], "test-evidence");
  const fs::path tampered = edited_copy(p.plan, "verify_relu.removed.json", [](Json& doc) {
    doc["gate_failures"].erase(doc["gate_failures"].begin() + 1);
  });
  const CliResult r = run_cli("verify " + p.graph + " " + tampered.string() + " " + p.flags);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0], header(tampered, p.graph, 1, "checked_cpu+overrides"));
  const std::string removed = recorded["gate_failures"][1].dump();
  EXPECT_EQ(lines[1], "gate_failures[1]: artifact has nothing, re-planning gives " +
                          removed.substr(0, 80) + "... (" + std::to_string(removed.size()) +
                          " bytes)");
}

TEST(VerifyCli, OneForgedGateFailureIsOneLine) {
  const RejectedPlan p;
  const fs::path tampered = edited_copy(p.plan, "verify_relu.forged.json", [](Json& doc) {
    doc["gate_failures"].insert(doc["gate_failures"].begin() + 1,
                                Json{{"kind", "missing-evidence"}, {"groups", Json::array()}});
  });
  const CliResult r = run_cli("verify " + p.graph + " " + tampered.string() + " " + p.flags);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, header(tampered, p.graph, 1, "checked_cpu+overrides") +
                       "\ngate_failures[1]: artifact has {\"kind\":\"missing-evidence\","
                       "\"groups\":[]}, re-planning gives nothing\n");
}

TEST(VerifyCli, MissingRegistryIsNamedFirstWithTheFix) {
  const std::string graph = source("tests/data/graphs/cli_relu.json");
  const std::string registry = " --registry " + source(kVerifiedRegistry);
  const fs::path plan = planned_artifact(graph, "verify_relu.registry.plan.json", registry);
  const CliResult with = run_cli("verify " + graph + " " + plan.string() + registry);
  EXPECT_EQ(with.exit_code, 0) << with.out;
  const CliResult r = run_cli("verify " + graph + " " + plan.string());
  EXPECT_EQ(r.exit_code, 1);
  const std::vector<std::string> lines = lines_of(r.out);
  // Header, note, the first 20 differences and the count of the rest.
  ASSERT_EQ(lines.size(), 23u) << r.out;
  EXPECT_EQ(lines[0], header(plan, graph, 21));
  EXPECT_EQ(lines[1],
            "note: the artifact was planned with registry modules that are not loaded now: "
            "\"lab_verified\"; pass --registry FILE that was used with plan");
  EXPECT_EQ(lines[2],
            "profile.name: artifact has \"checked_cpu+overrides\", re-planning gives "
            "\"checked_cpu\"");
  EXPECT_EQ(lines[3],
            "profile.modules[0]: artifact has \"lab_verified\", re-planning gives nothing");
  EXPECT_EQ(lines[22], "... and 1 more difference");
}

// The same module name, but a registry file whose capsule was renamed since planning.
TEST(VerifyCli, CapsulesTheRegistryLacksAreNamedFirst) {
  const std::string graph = source("tests/data/graphs/cli_relu.json");
  const std::string registry = " --registry " + source(kVerifiedRegistry);
  const fs::path plan = planned_artifact(graph, "verify_relu.renamed.plan.json", registry);
  std::string text = read_text(source(kVerifiedRegistry));
  for (auto at = text.find("lab.verified_relu"); at != std::string::npos;
       at = text.find("lab.verified_relu", at + 1)) {
    text.replace(at, 17, "lab.renamed_relu_");
  }
  const fs::path renamed = write_scratch("verify_renamed_registry.json", text);
  const CliResult r =
      run_cli("verify " + graph + " " + plan.string() + " --registry " + renamed.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[1],
            "note: the artifact names capsules that the loaded registry lacks: "
            "\"lab.verified_relu\"; pass --registry FILE that was used with plan");
  EXPECT_EQ(lines[2],
            "groups[0].capsule: artifact has \"lab.verified_relu\", re-planning gives "
            "\"lab.renamed_relu_\"");
}

TEST(VerifyCli, TheNoteListsFiveNamesAndCountsTheRest) {
  const std::string graph = source("examples/mlp.json");
  const fs::path plan = planned_artifact(graph, "verify_mlp.many.plan.json");
  const fs::path tampered = edited_copy(plan, "verify_mlp.many.json", [](Json& doc) {
    for (int i = 0; i < 7; ++i)
      doc["profile"]["modules"].push_back("acme" + std::to_string(i));
  });
  const CliResult r = run_cli("verify " + graph + " " + tampered.string());
  EXPECT_EQ(r.exit_code, 1);
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 2u) << r.out;
  EXPECT_EQ(
      lines[1],
      "note: the artifact was planned with registry modules that are not loaded now: "
      "\"acme0\", \"acme1\", \"acme2\", \"acme3\", \"acme4\" and 2 more; pass --registry FILE "
      "that was used with plan");
}

TEST(VerifyCli, ModuleNamesInTheNoteAreEscaped) {
  const std::string graph = source("examples/mlp.json");
  const fs::path plan = planned_artifact(graph, "verify_mlp.escape.plan.json");
  const fs::path tampered = edited_copy(plan, "verify_mlp.escape.json", [](Json& doc) {
    doc["profile"]["modules"].push_back("evil\x1b[8m");
  });
  const CliResult r = run_cli("verify " + graph + " " + tampered.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[1],
            "note: the artifact was planned with registry modules that are not loaded now: "
            "\"evil\\x1b[8m\"; pass --registry FILE that was used with plan");
  EXPECT_EQ(lines[2],
            "profile.modules[3]: artifact has \"evil\\u001b[8m\", re-planning gives nothing");
}

// A line that would pass for verify's verdict, with ESC[8m (hide what follows) and a
// right-to-left override.
const std::string kForged = "x\nverified: ok\x1b[8m\u202e";

// No raw control reaches the output: no ESC, no right-to-left override, no forged verdict line.
void expect_inert(const std::string& text) {
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find("\u202e"), std::string::npos) << text;
  EXPECT_EQ(text.find("\nverified: "), std::string::npos) << text;
  EXPECT_FALSE(text.starts_with("verified: ")) << text;
}

TEST(VerifyCli, ForgedNamesInTheArtifactPrintEscaped) {
  const std::string graph = source("examples/mlp.json");
  const fs::path plan = planned_artifact(graph, "verify_mlp.forged.plan.json");
  const fs::path tampered = edited_copy(plan, "verify_mlp.forged.json", [](Json& doc) {
    doc["profile"]["name"] = "checked_cpu" + kForged;
    doc["groups"][0]["capsule"] = "reference.linear" + kForged;
    doc["audit"]["kernels"][0]["capsule"] = "reference.linear" + kForged;
  });
  // The recorded profile name is no profile: the error names it escaped.
  const CliResult recorded = run_cli("verify " + graph + " " + tampered.string());
  EXPECT_EQ(recorded.exit_code, 3) << recorded.err;
  EXPECT_EQ(recorded.out, "");
  expect_inert(recorded.err);
  // With --profile the artifact is compared: every name from it is escaped in the differences
  // and in the note on the capsules the registry lacks.
  const CliResult r =
      run_cli("verify " + graph + " " + tampered.string() + " --profile checked_cpu");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  expect_inert(r.out);
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 4u) << r.out;
  EXPECT_TRUE(lines[0].starts_with("mismatch: ")) << r.out;
  EXPECT_TRUE(
      lines[1].starts_with("note: the artifact names capsules that the loaded registry "
                           "lacks: \"reference.linear"))
      << lines[1];
  EXPECT_TRUE(contains(r.out,
                       "\nprofile.name: artifact has \"checked_cpux\\nverified: "
                       "ok\\u001b[8m\\u202e\", re-planning gives \"checked_cpu\"\n"))
      << r.out;
}

TEST(VerifyCli, PathsPrintEscaped) {
  const std::string graph = source("examples/mlp.json");
  const fs::path plan = planned_artifact(graph, "verify_mlp.path.plan.json");
  const std::string name = "v\x1b[8m\nverified: x.json";
  fs::copy_file(plan, scratch_dir() / name, fs::copy_options::overwrite_existing);
  const std::string shell_path =
      "\"$(printf '" + scratch_dir().string() + "/v\\033[8m\\nverified: x.json')\"";
  const CliResult r = run_cli("verify " + graph + " " + shell_path);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "verified: " + scratch_dir().string() +
                       "/v\\x1b[8m\\nverified: x.json matches " + graph +
                       " under profile checked_cpu\n");
}

TEST(VerifyCli, LinesAndValuesAreCut) {
  const std::string graph = source("examples/transformer_block.json");
  const fs::path plan = planned_artifact(graph, "verify_block.plan.json");
  // Every group and audit entry names a trust level: far more than 20 differences.
  std::string text = read_text(plan);
  std::size_t changed = 0;
  for (auto at = text.find("\"trust\": \"checked\""); at != std::string::npos;
       at = text.find("\"trust\": \"checked\"", at)) {
    text.replace(at, 18, "\"trust\": \"fuzzed\"");
    ++changed;
  }
  ASSERT_GT(changed, 20u);
  // And one value far longer than 80 bytes.
  const std::string long_name = "lab." + std::string(300, 'x');
  text = replace_first(text, "\"capsule\": \"", "\"capsule\": \"" + long_name + "\", \"was\": \"");
  const fs::path tampered = write_scratch("verify_block.cut.json", text);
  const CliResult r = run_cli("verify " + graph + " " + tampered.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 22u) << r.out;
  const std::size_t total = changed + 2;
  EXPECT_EQ(lines[0], header(tampered, graph, total));
  EXPECT_TRUE(lines[1].starts_with("groups[0].capsule: artifact has \"lab." + std::string(75, 'x') +
                                   "... (306 bytes), re-planning gives \""))
      << lines[1];
  EXPECT_EQ(lines[21], "... and " + std::to_string(total - 20) + " more differences");
}

// `producer | nnplan <args>` through the shell, as run_cli runs `nnplan <args>`.
CliResult run_piped(const std::string& producer, const std::string& args) {
  const fs::path out = scratch_dir() / "piped_stdout.txt";
  const fs::path err = scratch_dir() / "piped_stderr.txt";
  const std::string command = producer + " | " + std::string(NNPLAN_BINARY) + " " + args + " >" +
                              out.string() + " 2>" + err.string();
  const int status = std::system(command.c_str());
  return CliResult{.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                   .out = read_text(out),
                   .err = read_text(err)};
}

// A pipe can be read once only: its text is kept for the comparison instead of read again.
TEST(VerifyCli, ReadsTheArtifactFromAPipe) {
  const std::string graph = source("examples/mlp.json");
  const fs::path plan = planned_artifact(graph, "verify_mlp.pipe.plan.json");
  const CliResult r = run_piped("cat " + plan.string(), "verify " + graph + " /dev/stdin");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "verified: /dev/stdin matches " + graph + " under profile checked_cpu\n");
  const CliResult tampered =
      run_piped("sed 's/\"reference.linear\"/\"lab.fast_linear\"/' " + plan.string(),
                "verify " + graph + " /dev/stdin");
  EXPECT_EQ(tampered.exit_code, 1) << tampered.out << tampered.err;
  EXPECT_TRUE(contains(tampered.out,
                       "\ngroups[0].capsule: artifact has \"lab.fast_linear\", "
                       "re-planning gives \"reference.linear\"\n"))
      << tampered.out;
}

}  // namespace
