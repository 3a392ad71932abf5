// `nnplan capsules`: the unfiltered `--json` export is a registry file that loads back to the
// same plans; a filtered one (`--op`, `--provider`, `--device`) is an nnplan.capsule-listing.v1
// document that `--registry` refuses, so a module cut down to its matches can never replace the
// whole built-in module; a listing that matches nothing says so (text) or lists no module (JSON).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace nnplan::cli_test {
namespace {

TEST(ListingCli, FilteredJsonIsAListingOfTheMatchesOnly) {
  const CliResult r = run_cli("capsules --op relu --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["format"], "nnplan.capsule-listing.v1");
  EXPECT_EQ(doc["profile"], "checked_cpu");
  EXPECT_EQ(doc["filter"], nlohmann::json::parse(R"({"op":"relu","provider":null,"device":null})"));
  std::size_t capsules = 0;
  for (const auto& module : doc["modules"]) {
    ASSERT_FALSE(module["capsules"].empty()) << module.dump();
    for (const auto& capsule : module["capsules"]) {
      EXPECT_EQ(capsule["op"], "relu") << capsule.dump();
      ++capsules;
    }
  }
  EXPECT_EQ(capsules, 2u) << r.out;  // native_cuda.relu and reference.relu
}

TEST(ListingCli, AFilteredListingIsNotLoadedAsARegistry) {
  const fs::path listing = scratch_dir() / "relu_listing.json";
  const CliResult exported = run_cli("capsules --op relu --json");
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  write_text(listing, exported.out);
  const CliResult r = run_cli("plan-ops linear relu --registry " + listing.string());
  EXPECT_EQ(r.exit_code, 3) << r.out;
  // Refused for its format (not for the first field a registry lacks), with the way to a
  // registry that loads.
  EXPECT_TRUE(contains(r.err, "nnplan: error: " + listing.string() +
                                  ": not an nnplan.capsules.v1 registry: format is "
                                  "'nnplan.capsule-listing.v1'"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "nnplan capsules --json without filters")) << r.err;
  EXPECT_FALSE(contains(r.err, "unknown field")) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(ListingCli, TheUnfilteredExportLoadsBackToTheSamePlan) {
  const fs::path registry = scratch_dir() / "builtins.json";
  const CliResult exported = run_cli("capsules --json");
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_TRUE(contains(exported.out, "\"format\": \"nnplan.capsules.v1\"")) << exported.out;
  write_text(registry, exported.out);
  const CliResult plain = run_cli("plan-ops linear relu softmax");
  const CliResult loaded = run_cli("plan-ops linear relu softmax --registry " + registry.string());
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(loaded.exit_code, 0) << loaded.err;
  // The same capsules everywhere; only the profile's name says --registry was given.
  EXPECT_TRUE(loaded.out.starts_with("profile=checked_cpu+overrides ")) << loaded.out;
  EXPECT_EQ(loaded.out.substr(loaded.out.find('\n')), plain.out.substr(plain.out.find('\n')));
}

TEST(ListingCli, AnEmptyListingSaysNothingMatched) {
  const CliResult text = run_cli("capsules --op fft_fno --device cpu");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out, "no capsule of profile checked_cpu matches --op fft_fno --device cpu\n");
  const CliResult json = run_cli("capsules --op fft_fno --device cpu --json");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["modules"], nlohmann::json::array()) << json.out;
  EXPECT_EQ(doc["filter"]["device"], "cpu");
}

TEST(ListingCli, PlanOpsJsonNamesAFailureAsThePlanArtifactDoes) {
  const CliResult ops = run_cli("plan-ops --json fft_fno");
  EXPECT_EQ(ops.exit_code, 1);
  const auto error = nlohmann::json::parse(ops.out)["error"];
  EXPECT_EQ(error["kind"], "no-admissible-capsule");
  EXPECT_EQ(error["op"], "fft_fno");
  EXPECT_EQ(error["position"], 0);
}

}  // namespace
}  // namespace nnplan::cli_test
