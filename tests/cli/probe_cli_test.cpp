// `nnplan probe`: the text facts and the nnplan.probe.v1 document on the machine the tests run on,
// the declared target beside them, and its flags. What the CUDA lines say is checked against this
// process's own dlopen of the driver, so the same test holds with and without a GPU.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace nnplan::cli_test {
namespace {

TEST(ProbeCli, TextHasOneFactPerLine) {
  const CliResult r = run_cli("probe");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  for (const char* line :
       {"\nos: ", "\narch: ", "\ncpu: ", "\ncpu cores: ", "\ncpu logical processors: ",
        "\ncpu features: ", "\ncuda driver: ", "\ncublas: ",
        "\ndevice cpu: confirmed: libcpuinfo: ", "\nprovider reference ",
#ifdef NNPLAN_HAVE_ONEDNN
        "\nprovider onednn 2.",
#else
        "\nprovider onednn: not confirmed: not built: "
        "this build has no onednn provider\n",
#endif
        "\nprobed availability: devices=cpu",
        "\ntarget portable-cpu (profile checked_cpu): os=unknown"}) {
    EXPECT_TRUE(contains("\n" + r.out, line)) << line << "\n" << r.out;
  }
  const std::string failure = driver_load_failure();
  if (!failure.empty()) {
    const std::string found = "libcuda.so.1 could not be loaded: " + failure;
    EXPECT_TRUE(contains(r.out, "cuda driver: not found: " + found + "\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "provider native-cuda: not confirmed: " + found + "\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "device cuda: not confirmed: " + found + "\n")) << r.out;
  }
}

TEST(ProbeCli, TargetFlagPutsItsDeclarationBesideTheProbe) {
  const CliResult r = run_cli("probe --target linux-cuda");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out,
                       "target linux-cuda (profile checked_cpu+overrides): os=linux "
                       "arch=x86_64 accelerator=cuda features=native-cuda,cublas,cufft\n"))
      << r.out;
  EXPECT_TRUE(contains(r.out,
                       "\n  provider cufft: not confirmed: not built: this build has no "
                       "cufft provider\n"))
      << r.out;
  if (!driver_load_failure().empty()) {
    EXPECT_TRUE(contains(r.out,
                         "\n  device cuda: not confirmed: libcuda.so.1 could not be "
                         "loaded: "))
        << r.out;
    EXPECT_TRUE(contains(r.out, "  the probe does not confirm all of this target's declaration\n"));
  }
}

TEST(ProbeCli, ProfileTargetIsTheDefault) {
  const CliResult r = run_cli("probe --profile checked_cuda");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\ntarget linux-cuda (profile checked_cuda): ")) << r.out;
}

TEST(ProbeCli, UnknownTargetIsAUsageError) {
  const CliResult r = run_cli("probe --target linux-gpu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "unknown target preset 'linux-gpu'; valid: portable-cpu")) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(ProbeCli, JsonFieldsHaveTheirTypes) {
  const CliResult r = run_cli("probe --json --target linux-cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::ordered_json::parse(r.out);
  EXPECT_EQ(doc.at("format"), "nnplan.probe.v1");
  const std::vector<std::string> keys = {"format",  "platform",  "cpu",          "cuda",  "cublas",
                                         "devices", "providers", "availability", "target"};
  std::vector<std::string> found;
  for (const auto& [key, value] : doc.items())
    found.push_back(key);
  EXPECT_EQ(found, keys);
  ASSERT_TRUE(doc["platform"]["found"].get<bool>());
  EXPECT_TRUE(doc["platform"]["release"].is_string());
  ASSERT_TRUE(doc["cpu"]["found"].get<bool>());
  EXPECT_FALSE(doc["cpu"]["model"].get<std::string>().empty());
  EXPECT_GE(doc["cpu"]["cores"].get<int>(), 1);
  EXPECT_GE(doc["cpu"]["logical_processors"].get<int>(), 1);
  for (const auto& [name, present] : doc["cpu"]["features"].items())
    EXPECT_TRUE(present.is_boolean()) << name;
  EXPECT_TRUE(doc["cpu"]["features"].contains("sse4.2"));
  EXPECT_TRUE(doc["cpu"]["features"].contains("amx-tile"));
  EXPECT_TRUE(doc["cuda"]["found"].is_boolean());
  if (!doc["cuda"]["found"].get<bool>()) {
    EXPECT_TRUE(doc["cuda"]["error"].is_string());
  } else {
    EXPECT_TRUE(doc["cuda"]["devices"].is_array());
  }
  for (const auto& p : doc["providers"]) {
    EXPECT_TRUE(p["provider"].is_string());
    EXPECT_TRUE(p["confirmed"].is_boolean());
    EXPECT_TRUE(p["version"].is_string() || p["version"].is_null());
    EXPECT_TRUE(p["evidence"].is_string());
  }
  EXPECT_EQ(doc["providers"][0]["provider"], "reference");
  EXPECT_TRUE(doc["providers"][0]["confirmed"].get<bool>());
  EXPECT_TRUE(doc["availability"]["devices"].is_array());
  EXPECT_EQ(doc["target"]["name"], "linux-cpu");
  EXPECT_TRUE(doc["target"]["all_confirmed"].is_boolean());
  if (!driver_load_failure().empty()) {
    EXPECT_FALSE(doc["cuda"]["found"].get<bool>());
    EXPECT_EQ(doc["providers"][4]["provider"], "native-cuda");
    EXPECT_FALSE(doc["providers"][4]["confirmed"].get<bool>());
  }
}

TEST(ProbeCli, HelpHasAnExample) {
  const CliResult r = run_cli("probe --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "Example: nnplan probe")) << r.out;
  EXPECT_TRUE(contains(r.out, "--json")) << r.out;
  EXPECT_TRUE(contains(r.out, "--target")) << r.out;
}

}  // namespace
}  // namespace nnplan::cli_test
