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
  EXPECT_TRUE(contains(r.err,
                       "unknown target preset 'linux-gpu'; did you mean 'linux-cpu'? valid: "
                       "portable-cpu"))
      << r.err;
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

// A driver that crashes, aborts or exits inside cuInit is a finding of `nnplan probe`, which
// goes on to report everything else.
TEST(ProbeCli, AMisbehavingDriverIsAFinding) {
  for (const char* mode : {"crash", "abort", "exit"}) {
    SCOPED_TRACE(mode);
    const CliResult r = run_shell(with_fake_cuda(mode, "probe"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "cuda driver: not found: the CUDA driver probe (libcuda.so.1) "))
        << r.out;
    EXPECT_TRUE(contains(r.out,
                         " before it answered; nnplan takes it as not usable on this "
                         "machine\n"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "device cuda: not confirmed: the CUDA driver probe")) << r.out;
    EXPECT_TRUE(contains(r.out, "probed availability: devices=cpu ")) << r.out;
  }
  const CliResult many = run_shell(with_fake_cuda("many_devices", "probe"));
  ASSERT_EQ(many.exit_code, 0) << many.err;
  EXPECT_TRUE(contains(many.out,
                       "cuda driver: not found: cuDeviceGetCount reported 2147483647 "
                       "devices; nnplan believes 0 to 64, so the driver is not usable\n"))
      << many.out;
}

TEST(ProbeCli, AWorkingDriverIsConfirmedThroughTheChild) {
  const CliResult r = run_shell(with_fake_cuda("ok", "probe"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out,
                       "cuda driver: libcuda.so.1 12.4\ncuda devices: 1\n"
                       "cuda device 0: Fake GPU 9000 compute 9.0\n"))
      << r.out;
  EXPECT_TRUE(contains(r.out,
                       "device cuda: confirmed: libcuda.so.1: driver 12.4, 1 device: "
                       "Fake GPU 9000 (compute 9.0)\n"))
      << r.out;
}

// Device names from the driver are escaped in the text and in the JSON, which stays valid UTF-8.
TEST(ProbeCli, DeviceNamesAreEscaped) {
  const CliResult text = run_shell(with_fake_cuda("odd_names", "probe"));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out,
                       "cuda device 0: Fake \\xff\\xfe GPU\\nverdict: accepted "
                       "\\x1b[31mred compute 9.0\n"))
      << text.out;
  EXPECT_EQ(text.out.find('\x1b'), std::string::npos);
  EXPECT_TRUE(contains(text.out, "cuda device 1: " + std::string(256, 'A') + " compute 9.0\n"));
  const CliResult json = run_shell(with_fake_cuda("odd_names", "probe --json"));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["cuda"]["devices"][0]["name"],
            "Fake \\xff\\xfe GPU\nverdict: accepted \x1b[31mred");
}

}  // namespace
}  // namespace nnplan::cli_test
