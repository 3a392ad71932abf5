// End-to-end tests of the `nnplan` command line: exit codes, messages and golden output, run
// against the built binary exactly as a user would run it.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

using namespace nnplan::cli_test;

namespace fs = std::filesystem;

struct GoldenCase {
  std::string name;
  std::string args;
  int exit_code;
};

class CliGolden : public testing::TestWithParam<GoldenCase> {};

TEST_P(CliGolden, StdoutMatchesGoldenAndExitCode) {
  const GoldenCase& c = GetParam();
  const CliResult r = run_cli(c.args);
  EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
  EXPECT_EQ(r.err, "");
  expect_golden(c.name, r.out);
}

INSTANTIATE_TEST_SUITE_P(
    Reports, CliGolden,
    testing::Values(
        GoldenCase{"plan_ops_checked_cpu_mlp.txt", "plan-ops linear relu linear softmax", 0},
        GoldenCase{"plan_ops_checked_cuda_block.txt",
                   "plan-ops --profile checked_cuda layer_norm matmul "
                   "scaled_dot_product_attention add",
                   0},
        GoldenCase{"plan_ops_libtorch_forward_cuda.txt",
                   "plan-ops --profile libtorch_forward_cuda scaled_dot_product_attention matmul "
                   "scaled_dot_product_attention",
                   0},
        GoldenCase{"plan_ops_prefer_last_in_catalog.txt",
                   "plan-ops --profile checked_cuda --prefer torchlean "
                   "scaled_dot_product_attention",
                   0},
        GoldenCase{"explain_fft_fno_checked_cpu.txt", "plan-ops relu fft_fno", 1},
        GoldenCase{"explain_only_native_cuda_sin.txt",
                   "plan-ops --profile checked_cuda --only native-cuda sin", 1},
        GoldenCase{"explain_verified_relu.txt", "plan-ops --assurance verified relu", 1},
        GoldenCase{"explain_backend_vjp_attention.txt",
                   "plan-ops --profile checked_cuda --vjp backend-vjp --only torchlean "
                   "scaled_dot_product_attention",
                   1},
        GoldenCase{"plan_ops_json_libtorch.json",
                   "plan-ops --profile libtorch_forward_cuda --json scaled_dot_product_attention",
                   0},
        GoldenCase{"plan_ops_json_failure.json", "plan-ops --json relu fft_fno", 1},
        GoldenCase{"targets.txt", "targets", 0}, GoldenCase{"targets.json", "targets --json", 0},
        GoldenCase{"profiles.txt", "profiles", 0},
        GoldenCase{"profiles.json", "profiles --json", 0},
        GoldenCase{"capsules_attention.txt",
                   "capsules --profile libtorch_forward_cuda --op scaled_dot_product_attention", 0},
        GoldenCase{"capsules_cuda_softmax.txt", "capsules --device cuda --op softmax", 0}),
    [](const testing::TestParamInfo<GoldenCase>& info) {
      std::string name = info.param.name;
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

struct ErrorCase {
  std::string label;
  std::string args;
  int exit_code;
  std::string stderr_fragment;
};

class CliErrors : public testing::TestWithParam<ErrorCase> {};

TEST_P(CliErrors, ExitCodeAndMessage) {
  const ErrorCase& c = GetParam();
  const CliResult r = run_cli(c.args);
  EXPECT_EQ(r.exit_code, c.exit_code) << r.out << r.err;
  EXPECT_NE(r.err.find(c.stderr_fragment), std::string::npos) << "stderr was:\n"
                                                              << r.err << "\nexpected fragment:\n"
                                                              << c.stderr_fragment;
  EXPECT_EQ(r.out, "");
}

INSTANTIATE_TEST_SUITE_P(
    Usage, CliErrors,
    testing::Values(
        ErrorCase{"unknown_device", "plan-ops --device gpu relu", 2,
                  "unknown device 'gpu'; valid: cpu, cuda, rocm, metal, wasm, tpu, trainium, "
                  "custom, external"},
        ErrorCase{"device_without_maintained_profile", "plan-ops --device rocm relu", 2,
                  "nnplan: error: no maintained runtime profile for device rocm; maintained "
                  "devices: cpu, cuda (nnplan never falls back to cpu)\n  in --device (pass "
                  "--profile to start elsewhere)\n"},
        ErrorCase{"graph_device_without_maintained_profile",
                  "plan " NNPLAN_SOURCE_DIR "/examples/mlp.json --device external", 2,
                  "no maintained runtime profile for device external"},
        ErrorCase{"unknown_op", "plan-ops relu convolution", 2,
                  "unknown backend op 'convolution'; valid: rand_uniform, bernoulli_mask,"},
        ErrorCase{"unknown_op_position", "plan-ops relu convolution", 2, "in OP argument 2"},
        ErrorCase{"unknown_profile", "plan-ops --profile fast relu", 2,
                  "unknown profile 'fast'; did you mean 'fast_cpu'? valid: checked_cpu, "
                  "checked_linux_x86_64_cpu"},
        ErrorCase{"unknown_prefer", "plan-ops --prefer cuda relu", 2,
                  "unknown provider 'cuda'; valid: reference, torchlean, native-cuda"},
        ErrorCase{"unknown_only", "plan-ops --only tensorrt relu", 2, "in --only"},
        ErrorCase{"unknown_assurance", "plan-ops --assurance paranoid relu", 2,
                  "unknown assurance policy 'paranoid'; valid: verified, checked, external"},
        ErrorCase{"unknown_vjp", "plan-ops --vjp tape relu", 2,
                  "unknown vjp mode 'tape'; valid: none, torchlean-tape, backend-vjp"},
        ErrorCase{"unknown_target", "plan-ops --target linux-gpu relu", 2,
                  "unknown target preset 'linux-gpu'; did you mean 'linux-cpu'? valid: "
                  "portable-cpu, linux-cpu"},
        ErrorCase{"prefer_and_only", "plan-ops --prefer reference --only reference relu", 2,
                  "--prefer excludes --only"},
        ErrorCase{"no_ops", "plan-ops", 2, "nnplan: error: nnplan plan-ops: OP is required"},
        ErrorCase{
            "no_subcommand", "", 2,
            "nnplan: error: no subcommand given (see nnplan --help); valid subcommands: "
            "targets, profiles, capsules, plan-ops, plan, verify, explain, dot, report, convert, "
            "probe, run\n"},
        ErrorCase{
            "unknown_subcommand", "plna", 2,
            "nnplan: error: unknown subcommand 'plna'; valid subcommands: targets, "
            "profiles, capsules, plan-ops, plan, verify, explain, dot, report, convert, probe, "
            "run; did you mean plan?\n"},
        ErrorCase{"unknown_subcommand_far_from_all", "frobnicate", 2, "convert, probe, run\n"},
        ErrorCase{"unknown_subcommand_escaped", "\"$(printf 'pl\\033[8mna')\"", 2,
                  "unknown subcommand 'pl\\x1b[8mna'"},
        ErrorCase{"unknown_top_level_option", "--jsn", 2,
                  "nnplan: error: unknown option --jsn before the subcommand (nnplan takes only "
                  "--help and --version there); valid subcommands: targets,"},
        ErrorCase{"unknown_option_suggested",
                  "plan " NNPLAN_SOURCE_DIR "/examples/mlp.json --lowring singleton", 2,
                  "nnplan: error: unknown option --lowring for nnplan plan (see nnplan plan "
                  "--help); did you mean --lowering?\n"},
        ErrorCase{"unknown_option_with_value_suggested", "plan-ops --profil=checked_cpu relu", 2,
                  "nnplan: error: unknown option --profil for nnplan plan-ops (see nnplan "
                  "plan-ops --help); did you mean --profile?\n"},
        ErrorCase{"unknown_option_not_suggested",
                  "plan " NNPLAN_SOURCE_DIR "/examples/mlp.json --node 3", 2,
                  "nnplan: error: unknown option --node for nnplan plan (see nnplan plan "
                  "--help)\n"},
        ErrorCase{"surplus_argument", "plan " NNPLAN_SOURCE_DIR "/examples/mlp.json extra", 2,
                  "nnplan: error: unexpected argument 'extra' for nnplan plan (see nnplan plan "
                  "--help)\n"},
        ErrorCase{"missing_value", "capsules --op", 2,
                  "nnplan: error: nnplan capsules: --op needs a value (see nnplan capsules "
                  "--help)\n"},
        ErrorCase{"missing_required", "explain " NNPLAN_SOURCE_DIR "/examples/cnn.json", 2,
                  "nnplan: error: nnplan explain: --node is required (see nnplan explain "
                  "--help)\n"},
        ErrorCase{"node_too_large",
                  "explain " NNPLAN_SOURCE_DIR "/examples/cnn.json --node 99999999999999999999999",
                  2,
                  "nnplan: error: --node 99999999999999999999999 is out of range: node "
                  "99999999999999999999999 is not in graph " NNPLAN_SOURCE_DIR
                  "/examples/cnn.json; valid: 0..7\n"},
        ErrorCase{"node_past_int64",
                  "explain " NNPLAN_SOURCE_DIR "/examples/cnn.json --node 9223372036854775808", 2,
                  "--node 9223372036854775808 is out of range"},
        ErrorCase{"node_negative", "explain " NNPLAN_SOURCE_DIR "/examples/cnn.json --node=-5", 2,
                  "nnplan: error: --node '-5' is not a node id; expected a non-negative "
                  "integer\n"},
        ErrorCase{"node_not_a_number", "explain " NNPLAN_SOURCE_DIR "/examples/cnn.json --node abc",
                  2,
                  "nnplan: error: --node 'abc' is not a node id; expected a non-negative "
                  "integer\n"},
        ErrorCase{"capsules_unknown_op", "capsules --op fft", 2, "unknown backend op 'fft'"},
        ErrorCase{"capsules_unknown_device", "capsules --device npu", 2, "in --device"},
        ErrorCase{"missing_registry_file", "plan-ops --registry /nonexistent/acme.json relu", 3,
                  "/nonexistent/acme.json"}),
    [](const testing::TestParamInfo<ErrorCase>& info) { return info.param.label; });

// A one-capsule registry file for an external provider, in the SPEC §4 format.
std::string acme_registry(const std::string& module, const std::string& capsule,
                          const std::string& provider, const std::string& device,
                          const std::string& shape_claim_kind = "shape-safety") {
  nlohmann::ordered_json guard = {{"kind", "runtime-guard"}, {"name", "acme.guard"}};
  nlohmann::ordered_json tests = {{"kind", "test-suite"}, {"name", "acme.tests"}};
  nlohmann::ordered_json shape_claim = {{"kind", shape_claim_kind}, {"op", "relu"}};
  if (shape_claim_kind == "value-refinement") shape_claim["spec"] = "Spec.relu";
  nlohmann::ordered_json doc = {
      {"format", "nnplan.capsules.v1"},
      {"modules",
       {{{"name", module},
         {"capsules",
          {{{"name", capsule},
            {"op", "relu"},
            {"provider", provider},
            {"device", device},
            {"trust", "checked"},
            {"vjp", "torchlean-tape"},
            {"contracts",
             {{"shape", {{"claim", shape_claim}, {"summary", "s"}, {"evidence", guard}}},
              {"layout",
               {{"claim",
                 {{"kind", "layout-compatibility"}, {"op", "relu"}, {"layout", "flat-row-major"}}},
                {"summary", "l"},
                {"evidence", guard}}},
              {"value",
               {{"claim", {{"kind", "value-refinement"}, {"op", "relu"}, {"spec", "Spec.relu"}}},
                {"summary", "v"},
                {"evidence", tests}}},
              {"vjp",
               {{"claim",
                 {{"kind", "vjp-refinement"},
                  {"op", "relu"},
                  {"spec", "Spec.relu"},
                  {"mode", "torchlean-tape"}}},
                {"summary", "g"},
                {"evidence", tests}}}}}}}}}}}};
  return doc.dump(2);
}

// SPEC §9: --device without --profile starts from the maintained profile for the device; a
// profile that flags change is named <base>+overrides, never the untouched profile's name.
struct ProfileNameCase {
  std::string args;
  std::string summary;  // the first line of the report
};

TEST(CliProfileChoice, DeviceChoosesTheMaintainedProfileAndOverridesAreLabelled) {
  const std::vector<ProfileNameCase> cases = {
      {"plan-ops relu", "profile=checked_cpu device=cpu assurance=checked vjp=torchlean-tape"},
      {"plan-ops --device cpu relu",
       "profile=checked_cpu device=cpu assurance=checked vjp=torchlean-tape"},
      {"plan-ops --device cuda relu",
       "profile=checked_cuda device=cuda assurance=checked vjp=torchlean-tape"},
      {"plan-ops --device cuda --vjp backend-vjp relu",
       "profile=checked_cuda+overrides device=cuda assurance=checked vjp=backend-vjp"},
      {"plan-ops --profile checked_cpu --device cuda relu",
       "profile=checked_cpu+overrides device=cuda assurance=checked vjp=torchlean-tape"},
      {"plan-ops --profile checked_cuda --device cuda relu",
       "profile=checked_cuda device=cuda assurance=checked vjp=torchlean-tape"},
      {"plan-ops --assurance external relu",
       "profile=checked_cpu+overrides device=cpu assurance=external vjp=torchlean-tape"},
      {"plan-ops --target linux-cpu relu",
       "profile=checked_cpu+overrides device=cpu assurance=checked vjp=torchlean-tape"},
      {"plan-ops --prefer torchlean relu",
       "profile=checked_cpu+overrides device=cpu assurance=checked vjp=torchlean-tape"},
  };
  for (const ProfileNameCase& c : cases) {
    const CliResult r = run_cli(c.args);
    EXPECT_EQ(r.out.substr(0, r.out.find('\n')), c.summary) << c.args << "\n" << r.err;
  }
}

TEST(CliRegistry, ExternalCapsuleFromFileIsPlannedOnExternalTarget) {
  const fs::path file = scratch_dir() / "acme.json";
  write_text(file, acme_registry("acme", "acme.relu", "external", "external"));
  const CliResult r = run_cli("plan-ops --profile checked_cpu --registry " + file.string() +
                              " --device external --target external relu");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  relu: acme.relu provider=external trust=checked"), std::string::npos)
      << r.out;
}

TEST(CliRegistry, ExternalCapsuleIsUnavailableOnCpuTarget) {
  const fs::path file = scratch_dir() / "acme.json";
  write_text(file, acme_registry("acme", "acme.relu", "external", "external"));
  const CliResult r = run_cli("plan-ops --profile checked_cpu --registry " + file.string() +
                              " --device external relu");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(
      r.out.find("candidate acme.relu (provider=external device=external):\n"
                 "    unavailable-device: device external is not available on the target\n"
                 "    unavailable-provider: provider external is not available on the target"),
      std::string::npos)
      << r.out;
}

TEST(CliRegistry, SameNameModuleReplacesTheBuiltInOne) {
  const fs::path file = scratch_dir() / "reference.json";
  write_text(file, acme_registry("reference", "lab.relu", "reference", "cpu"));
  const CliResult plan = run_cli("plan-ops --registry " + file.string() + " relu");
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("  relu: lab.relu provider=reference"), std::string::npos) << plan.out;
  // The replaced module's other capsules are gone, so matmul has no cpu capsule any more.
  const CliResult gone = run_cli("plan-ops --registry " + file.string() + " matmul");
  EXPECT_EQ(gone.exit_code, 1);
  const CliResult listing = run_cli("capsules --registry " + file.string() + " --device cpu");
  EXPECT_EQ(listing.out.find("reference.relu"), std::string::npos);
  EXPECT_NE(listing.out.find("lab.relu"), std::string::npos);
}

// --registry takes one file per occurrence: the words after it are the ops to plan.
TEST(CliRegistry, RegistryTakesOneFileAndLeavesTheOps) {
  const fs::path file = scratch_dir() / "acme.json";
  write_text(file, acme_registry("acme", "acme.relu", "external", "external"));
  const CliResult r = run_cli("plan-ops --registry " + file.string() + " linear relu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n  linear: reference.linear "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  relu: reference.relu "), std::string::npos) << r.out;
  // `capsules` takes no positional: a word after its --registry FILE is a usage error, not a
  // second registry file that cannot be read.
  const CliResult listing = run_cli("capsules --registry " + file.string() + " extra.json");
  EXPECT_EQ(listing.exit_code, 2) << listing.err;
}

TEST(CliRegistry, MisalignedCapsuleIsListedButNeverChosen) {
  const fs::path file = scratch_dir() / "bad.json";
  write_text(file, acme_registry("lab", "lab.relu", "reference", "cpu", "value-refinement"));
  const CliResult listing = run_cli("capsules --registry " + file.string() + " --op relu");
  EXPECT_NE(listing.out.find("lab.relu"), std::string::npos);
  EXPECT_NE(listing.out.find("misaligned=shape"), std::string::npos) << listing.out;
  const CliResult plan = run_cli("plan-ops --registry " + file.string() + " --only reference relu");
  EXPECT_EQ(plan.exit_code, 0);
  EXPECT_NE(plan.out.find("  relu: reference.relu"), std::string::npos) << plan.out;
}

TEST(CliRegistry, DuplicateIdentityAcrossFilesExitsThree) {
  const fs::path a = scratch_dir() / "a.json";
  const fs::path b = scratch_dir() / "b.json";
  write_text(a, acme_registry("acme", "acme.relu", "external", "external"));
  write_text(b, acme_registry("acme2", "acme.relu", "external", "external"));
  const CliResult r =
      run_cli("plan-ops --registry " + a.string() + " --registry " + b.string() + " relu");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("duplicate backend capsule identity 'acme.relu'"), std::string::npos)
      << r.err;
}

// The capsule limit (65536) holds for all --registry files together, not per file.
TEST(CliRegistry, CapsuleLimitCountsEveryRegistryFile) {
  const fs::path a = scratch_dir() / "one.json";
  const fs::path b = scratch_dir() / "bulk.json";
  write_text(a, acme_registry("acme", "acme.relu", "external", "external"));
  std::string bulk =
      R"({"format": "nnplan.capsules.v1", "modules": [{"name": "bulk", "capsules": [)";
  for (int i = 0; i < 65536; ++i)
    bulk += i == 0 ? "{}" : ",{}";
  write_text(b, bulk + "]}]}");
  const CliResult r =
      run_cli("plan-ops --registry " + a.string() + " --registry " + b.string() + " relu");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "nnplan: error: " + b.string() +
                       ": module 'bulk': field capsules: brings the registry files read so far to "
                       "65537 capsules (1 in the files before this one); the limit is 65536 in all "
                       "registry files together\n");
  EXPECT_EQ(r.out, "");
}

TEST(CliRegistry, MalformedFileExitsThreeNamingFileModuleCapsuleAndField) {
  const fs::path file = scratch_dir() / "typo.json";
  std::string text = acme_registry("acme", "acme.relu", "external", "external");
  text.replace(text.find("\"trust\": \"checked\""), 18, "\"trust\": \"chekced\"");
  write_text(file, text);
  const CliResult r = run_cli("plan-ops --registry " + file.string() + " relu");
  EXPECT_EQ(r.exit_code, 3);
  for (const std::string& fragment : {file.string(), std::string("acme"), std::string("acme.relu"),
                                      std::string("trust"), std::string("chekced")}) {
    EXPECT_NE(r.err.find(fragment), std::string::npos) << fragment << " not in:\n" << r.err;
  }
}

TEST(CliRegistry, ExportedBuiltinsLoadBackUnchanged) {
  const CliResult exported = run_cli("capsules --profile libtorch_forward_cuda --json");
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const fs::path file = scratch_dir() / "builtins.json";
  write_text(file, exported.out);
  // Loading the export replaces every module by its exported copy; nothing may change.
  const CliResult reloaded =
      run_cli("capsules --profile libtorch_forward_cuda --json --registry " + file.string());
  ASSERT_EQ(reloaded.exit_code, 0) << reloaded.err;
  EXPECT_EQ(reloaded.out, exported.out);
  const auto doc = nlohmann::json::parse(exported.out);
  EXPECT_EQ(doc.at("format"), "nnplan.capsules.v1");
  EXPECT_EQ(doc.at("modules").size(), 4u);
}

TEST(CliJson, PlanOpsArtifactIsDeterministicAndVersioned) {
  const std::string args = "plan-ops --profile checked_cuda --json matmul softmax matmul";
  const CliResult first = run_cli(args);
  const CliResult second = run_cli(args);
  ASSERT_EQ(first.exit_code, 0);
  EXPECT_EQ(first.out, second.out);
  const auto doc = nlohmann::json::parse(first.out);
  EXPECT_EQ(doc.at("format"), "nnplan.ops-plan.v1");
  EXPECT_EQ(doc.at("planned"), true);
  ASSERT_EQ(doc.at("kernels").size(), 3u);
  EXPECT_EQ(doc.at("kernels")[0].at("capsule"), "native_cuda.matmul");
  EXPECT_EQ(doc.at("kernels")[1].at("capsule"), "native_cuda.softmax");
}

TEST(CliHelp, EverySubcommandHasHelpWithAnExample) {
  for (const std::string sub : {"targets", "profiles", "capsules", "plan-ops", "plan", "verify",
                                "explain", "dot", "report", "convert", "probe", "run"}) {
    const CliResult r = run_cli(sub + " --help");
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_NE(r.out.find("Example: nnplan " + sub), std::string::npos) << sub << ":\n" << r.out;
  }
}

}  // namespace
