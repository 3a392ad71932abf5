// `nnplan capsules --evidence`: one block per capsule with a line per contract saying where its
// evidence resolves in this build, a summary of the counts per status, the nnplan.evidence.v1
// document with `--json`, the listing filters, and registry-file capsules listed as external.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace nnplan::cli_test {
namespace {

TEST(EvidenceCli, FilteredTextSaysWhereEachContractResolves) {
  const CliResult r = run_cli("capsules --evidence --op conv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::string not_built =
      "declared-not-built: this build has no handler for native_cuda.conv (provider native-cuda, "
      "device cuda); it is kept for planning and run refuses it as unprobed-provider or "
      "unbound-capsule\n";
  const std::string suite_of =
      "tests/runtime/reference/convolution_test.cpp (ctest --test-dir "
      "build -R nnplan_tests, or build/bin/nnplan_tests --gtest_filter='";
  EXPECT_EQ(r.out,
            "native_cuda.conv op=conv provider=native-cuda device=cuda module=native-cuda\n"
            "  shape: runtime-guard native_cuda.conv.shape_guard: " +
                not_built + "  layout: runtime-guard native_cuda.conv.layout_guard: " + not_built +
                "  value: test-suite native_cuda.conv.forward_tests: " + not_built +
                "  vjp: test-suite native_cuda.conv.vjp_tests: " + not_built +
                "reference.conv op=conv provider=reference device=cpu module=reference\n"
                "  shape: runtime-guard reference.conv.shape_guard: resolved: guard registered "
                "by handler nnplan::runtime::reference::conv_forward\n"
                "  layout: runtime-guard reference.conv.layout_guard: resolved: guard registered "
                "by handler nnplan::runtime::reference::conv_forward\n"
                "  value: test-suite reference.conv.forward_tests: resolved: GoogleTest suite "
                "reference_conv_forward_tests in " +
                suite_of +
                "reference_conv_forward_tests.*')\n"
                "  vjp: test-suite reference.conv.vjp_tests: resolved: GoogleTest suite "
                "reference_conv_vjp_tests in " +
                suite_of +
                "reference_conv_vjp_tests.*')\n"
                "summary: capsules=2 items=8 resolved=4 unresolved=0 declared-not-built=4 "
                "external=0 not-checkable=0\n");
}

TEST(EvidenceCli, EveryBuiltInCapsuleIsListedAndNothingIsUnresolved) {
  const CliResult r = run_cli("capsules --evidence");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CliResult listing = run_cli("capsules");
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  const auto lines = lines_of(r.out);
  const std::size_t capsules = lines_of(listing.out).size();
  ASSERT_EQ(lines.size(), 5 * capsules + 1) << r.out;
  std::size_t resolved = 0;
  std::size_t not_built = 0;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (i % 5 == 0) {
      EXPECT_NE(lines[i].rfind("  ", 0), 0u) << lines[i];
      continue;
    }
    EXPECT_EQ(lines[i].rfind("  ", 0), 0u) << lines[i];
    resolved += contains(lines[i], ": resolved: ") ? 1 : 0;
    not_built += contains(lines[i], ": declared-not-built: ") ? 1 : 0;
    EXPECT_FALSE(contains(lines[i], ": unresolved: ")) << lines[i];
  }
  EXPECT_EQ(resolved + not_built, 4 * capsules);
  EXPECT_EQ(lines.back(), "summary: capsules=" + std::to_string(capsules) +
                              " items=" + std::to_string(4 * capsules) +
                              " resolved=" + std::to_string(resolved) +
                              " unresolved=0 declared-not-built=" + std::to_string(not_built) +
                              " external=0 not-checkable=0");
  EXPECT_TRUE(contains(r.out,
                       "\nreference.relu op=relu provider=reference device=cpu "
                       "module=reference\n  shape: runtime-guard "
                       "reference.relu.shape_guard: resolved: "))
      << r.out;
}

TEST(EvidenceCli, JsonIsTheEvidenceDocument) {
  const CliResult r = run_cli("capsules --evidence --json --provider reference --op softmax");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::ordered_json::parse(r.out);
  EXPECT_EQ(doc["format"], "nnplan.evidence.v1");
  EXPECT_EQ(doc["profile"], "checked_cpu");
  EXPECT_EQ(doc["filter"], nlohmann::ordered_json::parse(
                               R"({"op":"softmax","provider":"reference","device":null})"));
  ASSERT_EQ(doc["capsules"].size(), 1u) << r.out;
  const auto& capsule = doc["capsules"][0];
  EXPECT_EQ(capsule["capsule"], "reference.softmax");
  EXPECT_EQ(capsule["op"], "softmax");
  EXPECT_EQ(capsule["provider"], "reference");
  EXPECT_EQ(capsule["device"], "cpu");
  EXPECT_EQ(capsule["module"], "reference");
  EXPECT_EQ(capsule["built_in"], true);
  EXPECT_EQ(capsule["handler"], "nnplan::runtime::reference::softmax_forward");
  ASSERT_EQ(capsule["evidence"].size(), 4u);
  EXPECT_EQ(capsule["evidence"][0],
            nlohmann::ordered_json::parse(R"({"field":"shape","kind":"runtime-guard",
              "name":"reference.softmax.shape_guard","status":"resolved",
              "target":"reference.softmax.shape_guard","file":null,
              "detail":"guard registered by handler nnplan::runtime::reference::softmax_forward"})"));
  EXPECT_EQ(capsule["evidence"][3]["field"], "vjp");
  EXPECT_EQ(capsule["evidence"][3]["target"], "reference_softmax_vjp_tests");
  EXPECT_EQ(capsule["evidence"][3]["file"], "tests/runtime/reference/softmax_test.cpp");
  EXPECT_EQ(doc["summary"], nlohmann::ordered_json::parse(
                                R"({"capsules":1,"items":4,"resolved":4,"unresolved":0,
                                    "declared-not-built":0,"external":0,"not-checkable":0})"));
}

TEST(EvidenceCli, UnfilteredJsonCountsMatchItsCapsules) {
  const CliResult r = run_cli("capsules --evidence --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  std::map<std::string, std::size_t> counted;
  std::size_t handled = 0;
  for (const auto& capsule : doc["capsules"]) {
    ASSERT_EQ(capsule["evidence"].size(), 4u) << capsule.dump();
    for (const auto& item : capsule["evidence"])
      ++counted[item["status"].get<std::string>()];
    // Every reference capsule a graph reaches has a handler; scatter_add and smooth_max_pool are
    // planning-only.
    const bool planning_only = capsule["op"] == "scatter_add" || capsule["op"] == "smooth_max_pool";
    EXPECT_EQ(capsule["handler"].is_null(), capsule["provider"] != "reference" || planning_only)
        << capsule.dump();
    handled += capsule["handler"].is_null() ? 0 : 1;
  }
  EXPECT_EQ(doc["summary"]["capsules"], doc["capsules"].size());
  EXPECT_EQ(doc["summary"]["items"], 4 * doc["capsules"].size());
  EXPECT_EQ(doc["summary"]["unresolved"], 0);
  EXPECT_EQ(counted["unresolved"], 0u);
  EXPECT_EQ(doc["summary"]["resolved"], counted["resolved"]);
  EXPECT_EQ(doc["summary"]["declared-not-built"], counted["declared-not-built"]);
  EXPECT_EQ(counted["resolved"], 4 * handled);
  EXPECT_GT(handled, 40u);
}

TEST(EvidenceCli, RegistryFileCapsulesAreExternal) {
  const std::string file = source("tests/fuzz/corpus/fuzz_registry/acme.json");
  const CliResult r = run_cli("capsules --evidence --provider external --registry " + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string external = ": external: capsule of module 'acme' from " + file +
                               ": the user's word; nnplan does not resolve it\n";
  EXPECT_EQ(r.out,
            "acme.relu op=relu provider=external device=external module=acme\n"
            "  shape: runtime-guard acme.relu.shape_guard" +
                external + "  layout: runtime-guard acme.relu.layout_guard" + external +
                "  value: test-suite acme.relu.forward_tests" + external +
                "  vjp: test-suite acme.relu.vjp_tests" + external +
                "summary: capsules=1 items=4 resolved=0 unresolved=0 "
                "declared-not-built=0 external=4 not-checkable=0\n");
}

TEST(EvidenceCli, AFilterThatMatchesNothingSaysSo) {
  const CliResult r = run_cli("capsules --evidence --op fft_fno --device cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "no capsule of profile checked_cpu matches --op fft_fno --device cpu\n"
            "summary: capsules=0 items=0 resolved=0 unresolved=0 declared-not-built=0 "
            "external=0 not-checkable=0\n");
}

}  // namespace
}  // namespace nnplan::cli_test
