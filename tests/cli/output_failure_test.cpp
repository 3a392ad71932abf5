// Every subcommand whose standard output cannot be written (`> /dev/full`) exits 3 with a message
// on stderr, never a crash (SIGABRT) and never a silent exit 0 (DESIGN.md, "The command line").
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "cli_runner.hpp"

namespace nnplan::cli_test {
namespace {

// Runs `nnplan <args>` with stdout on /dev/full; the exit code is -1 when a signal ended it.
CliResult run_to_full_device(const std::string& args) {
  const fs::path err = scratch_dir() / "stderr_full.txt";
  const std::string command =
      std::string(NNPLAN_BINARY) + " " + args + " >/dev/full 2>" + err.string();
  const int status = std::system(command.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_text(err);
  return r;
}

class OutputFailureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OutputFailureTest, ExitsThreeWithAMessage) {
  const CliResult r = run_to_full_device(GetParam());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(contains(r.err, "nnplan: error: cannot write")) << r.err;
  EXPECT_TRUE(contains(r.err, "No space left on device")) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Subcommands, OutputFailureTest,
    ::testing::Values(
        // Small outputs, which fit stdio's buffer and fail only when it is flushed.
        "--help", "--version", "plan --help", "profiles", "profiles --json",
        "plan-ops --json matmul", "targets", "targets --json", "plan-ops matmul relu",
        "plan " + source("examples/mlp.json"),
        "explain " + source("examples/cnn.json") + " --node 1",
        "dot " + source("examples/cnn.json"),
        // Larger outputs, which fail while they are written.
        "capsules", "capsules --json",
        "plan " + source("examples/transformer_block.json") + " --json",
        "verify " + source("examples/mlp.json") + " " +
            source("tests/fuzz/corpus/fuzz_plan_artifact/plan_mlp_checked_cpu.json")));

}  // namespace
}  // namespace nnplan::cli_test
