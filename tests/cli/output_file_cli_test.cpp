// Output files of the command line (DESIGN.md, "The command line"): `-o` onto a file the command
// reads is a usage error (exit 2) that leaves the input byte-identical; a failed write (exit 3)
// leaves the existing output and no temporary behind; a successful one replaces the file; a
// device that cannot be written (`-o /dev/full`) is exit 3 with the system's reason. Every
// subcommand with `-o` is run onto each of its inputs (graph, payload file, registry, ONNX model),
// and every input stays byte-identical; a failed convert leaves no output behind.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace nnplan::cli_test {
namespace {

// A fresh directory for one test, under the process's scratch directory.
std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

fs::path copy_in(const std::string& relative, const fs::path& dir, const std::string& name) {
  const fs::path to = dir / name;
  fs::copy_file(source(relative), to, fs::copy_options::overwrite_existing);
  return to;
}

void expect_refused(const CliResult& r, const fs::path& input, const std::string& before) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "nnplan: error: -o " + input.string() +
                                  ": the output would overwrite the input " + input.string() +
                                  "; choose another output path"))
      << r.err;
  EXPECT_EQ(read_text(input), before);
}

TEST(OutputFileCli, PlanRefusesToOverwriteItsGraph) {
  const fs::path dir = fresh_scratch_dir("output_file_plan_graph");
  const fs::path graph = copy_in("examples/mlp.json", dir, "g.json");
  copy_in("examples/mlp.payloads", dir, "g.payloads");
  const std::string before = read_text(graph);
  expect_refused(run_cli("plan " + graph.string() + " -o " + graph.string()), graph, before);
  expect_refused(run_cli("plan " + graph.string() + " --json -o " + graph.string()), graph, before);
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"g.json", "g.payloads"}));
}

TEST(OutputFileCli, DotRefusesToOverwriteItsGraph) {
  const fs::path dir = fresh_scratch_dir("output_file_dot_graph");
  const fs::path graph = copy_in("examples/cnn.json", dir, "g.json");
  copy_in("examples/cnn.payloads", dir, "g.payloads");
  const std::string before = read_text(graph);
  expect_refused(run_cli("dot " + graph.string() + " -o " + graph.string()), graph, before);
}

TEST(OutputFileCli, PlanRefusesToOverwriteARegistry) {
  const fs::path dir = fresh_scratch_dir("output_file_plan_registry");
  const fs::path graph = copy_in("examples/mlp.json", dir, "g.json");
  copy_in("examples/mlp.payloads", dir, "g.payloads");
  const fs::path registry = copy_in("examples/registries/acme.json", dir, "r.json");
  const std::string before = read_text(registry);
  expect_refused(run_cli("plan " + graph.string() + " --registry " + registry.string() + " -o " +
                         registry.string()),
                 registry, before);
}

TEST(OutputFileCli, ConvertRefusesToOverwriteItsModel) {
  const fs::path dir = fresh_scratch_dir("output_file_convert_model");
  // Refused before the model is read, so its bytes need not be a model.
  const fs::path model = dir / "m.onnx";
  write_text(model, "not read");
  expect_refused(run_cli("convert " + model.string() + " -o " + model.string()), model, "not read");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"m.onnx"});
}

// One subcommand with `-o` aimed at one of its inputs. `args` names the files by placeholder:
// {G} graph (mlp.json), {P} its payload file, {R} a registry, {M} an ONNX model, {B} a malformed
// graph, {Q} the payload file beside the model, {J} a graph file to create beside it; `output` is
// what `-o` points at and `refused` the input the message names (convert's payload file is
// `-o` with the extension .payloads).
struct OntoInputCase {
  std::string label;
  std::string args;
  std::string output;
  std::string refused;
};

class OutputOntoInput : public testing::TestWithParam<OntoInputCase> {};

TEST_P(OutputOntoInput, IsRefusedAndEveryInputStaysByteIdentical) {
  const OntoInputCase& c = GetParam();
  const fs::path dir = fresh_scratch_dir("output_file_onto_" + c.label);
  const std::vector<std::pair<std::string, fs::path>> files = {
      {"{G}", copy_in("examples/mlp.json", dir, "g.json")},
      {"{P}", copy_in("examples/mlp.payloads", dir, "g.payloads")},
      {"{R}", copy_in("examples/registries/acme.json", dir, "r.json")},
      {"{M}", dir / "m.onnx"},
      {"{B}", dir / "bad.json"},
      {"{Q}", dir / "m.payloads"},
      {"{J}", dir / "m.json"}};
  // Refused before anything is read, so the model and the payloads beside it need not be valid;
  // the malformed graph shows that a broken input is kept too.
  write_text(dir / "m.onnx", "not a model");
  write_text(dir / "bad.json", "{\"format\": \"torchlean.ir.v1\", \"nodes\": [");
  write_text(dir / "m.payloads", "not payloads");
  std::string args = c.args + " -o " + c.output;
  fs::path target;
  for (const auto& [placeholder, path] : files) {
    for (auto at = args.find(placeholder); at != std::string::npos; at = args.find(placeholder))
      args.replace(at, placeholder.size(), path.string());
    if (placeholder == c.refused) target = path;
  }
  ASSERT_FALSE(target.empty()) << c.refused;
  std::vector<std::string> before;
  for (const auto& file : files)
    before.push_back(read_text(file.second));
  const std::vector<std::string> names = entries(dir);
  const CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_TRUE(contains(r.err, "nnplan: error: -o " + target.string() + ": the ") &&
              contains(r.err, "would overwrite the input " + target.string() +
                                  "; choose another output path"))
      << args << "\n"
      << r.err;
  EXPECT_EQ(r.out, "");
  for (std::size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(read_text(files[i].second), before[i]) << files[i].second;
  }
  EXPECT_EQ(entries(dir), names);
}

INSTANTIATE_TEST_SUITE_P(
    EverySubcommand, OutputOntoInput,
    testing::Values(OntoInputCase{"plan_graph", "plan {G}", "{G}", "{G}"},
                    OntoInputCase{"plan_json_graph", "plan {G} --json", "{G}", "{G}"},
                    OntoInputCase{"plan_payloads", "plan {G}", "{P}", "{P}"},
                    OntoInputCase{"plan_registry", "plan {G} --registry {R}", "{R}", "{R}"},
                    OntoInputCase{"plan_model", "plan {M}", "{M}", "{M}"},
                    OntoInputCase{"plan_malformed_graph", "plan {B} --json", "{B}", "{B}"},
                    OntoInputCase{"dot_graph", "dot {G}", "{G}", "{G}"},
                    OntoInputCase{"dot_payloads", "dot {G}", "{P}", "{P}"},
                    OntoInputCase{"dot_registry", "dot {G} --registry {R}", "{R}", "{R}"},
                    OntoInputCase{"dot_model", "dot {M}", "{M}", "{M}"},
                    OntoInputCase{"convert_model", "convert {M}", "{M}", "{M}"},
                    OntoInputCase{"convert_onto_its_payload_input", "convert {Q}", "{J}", "{Q}"}),
    [](const testing::TestParamInfo<OntoInputCase>& info) { return info.param.label; });

TEST(OutputFileCli, AFailedConvertLeavesNoOutput) {
  const fs::path dir = fresh_scratch_dir("output_file_convert_failed");
  const fs::path model = dir / "m.onnx";
  write_text(model, "not a model");
  const CliResult r = run_cli("convert " + model.string() + " -o " + (dir / "g.json").string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(contains(r.err, "nnplan: error: " + model.string())) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"m.onnx"});
  EXPECT_EQ(read_text(model), "not a model");
}

TEST(OutputFileCli, AConvertWhoseWriteFailsLeavesNoPartialOutput) {
  const fs::path model = fs::path(NNPLAN_ONNX_CONFORMANCE_DIR) / "test_relu" / "model.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << "no ONNX conformance corpus at " << model;
  // `ulimit -f 0` makes every write to a regular file fail (EFBIG), even as root; it holds in the
  // subshell only, so stderr reaches its file through a pipe and `cat`, which has no limit.
  const fs::path dir = fresh_scratch_dir("output_file_convert_partial");
  const fs::path err = scratch_dir() / "output_file_convert_partial_stderr.txt";
  const std::string command = "(trap '' XFSZ; ulimit -f 0; " + std::string(NNPLAN_BINARY) +
                              " convert " + model.string() + " -o " + (dir / "g.json").string() +
                              " 2>&1 >/dev/null; echo \"exit $?\") | cat >" + err.string();
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::string message = read_text(err);
  EXPECT_TRUE(message.ends_with("\nexit 3\n")) << message;
  EXPECT_TRUE(contains(message, "nnplan: error: " + (dir / "g.json").string() +
                                    ": cannot write output file: file too large"))
      << message;
  EXPECT_EQ(entries(dir), std::vector<std::string>{});
}

TEST(OutputFileCli, ASuccessfulWriteReplacesTheFile) {
  const fs::path dir = fresh_scratch_dir("output_file_replace");
  const fs::path out = dir / "out.dot";
  write_text(out, "old");
  const CliResult r = run_cli("dot " + source("examples/cnn.json") + " -o " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(read_text(out).starts_with("digraph")) << read_text(out);
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.dot"});
}

TEST(OutputFileCli, AFailedRenameLeavesTheTargetAndNoTemporary) {
  // A non-empty directory at the output path makes the rename fail, even as root.
  const fs::path dir = fresh_scratch_dir("output_file_rename");
  const fs::path out = dir / "out.json";
  fs::create_directories(out);
  write_text(out / "keep", "kept");
  const CliResult r = run_cli("plan " + source("examples/mlp.json") + " -o " + out.string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(contains(r.err, "nnplan: error: " + out.string() + ": cannot write output file: "))
      << r.err;
  EXPECT_EQ(read_text(out / "keep"), "kept");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.json"});
}

TEST(OutputFileCli, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  // `ulimit -f 2` makes a file write past 1 KiB fail (EFBIG, SIGXFSZ ignored), even as root;
  // stdout goes to /dev/null, which the limit does not cover.
  const fs::path dir = fresh_scratch_dir("output_file_write");
  const fs::path out = dir / "out.json";
  write_text(out, "old artifact");
  const fs::path err = scratch_dir() / "output_file_write_stderr.txt";
  const std::string command = "trap '' XFSZ; ulimit -f 2; " + std::string(NNPLAN_BINARY) +
                              " plan " + source("examples/transformer_block.json") + " -o " +
                              out.string() + " >/dev/null 2>" + err.string();
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  const std::string message = read_text(err);
  EXPECT_EQ(WEXITSTATUS(status), 3) << message;
  EXPECT_TRUE(contains(message, out.string() + ": cannot write output file: file too large"))
      << message;
  EXPECT_EQ(read_text(out), "old artifact");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.json"});
}

TEST(OutputFileCli, AFullDeviceIsExitThree) {
  for (const std::string& args : {"plan " + source("examples/mlp.json") + " -o /dev/full",
                                  "dot " + source("examples/cnn.json") + " -o /dev/full"}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 3) << args << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, "/dev/full: cannot write output file: no space left on device"))
        << r.err;
  }
}

TEST(OutputFileCli, ConvertWritesBothFilesOrNeither) {
  const fs::path model = fs::path(NNPLAN_ONNX_CONFORMANCE_DIR) / "test_relu" / "model.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << "no ONNX conformance corpus at " << model;
  const fs::path dir = fresh_scratch_dir("output_file_convert_pair");
  const fs::path graph = dir / "g.json";
  const fs::path payloads = dir / "g.payloads";
  // The graph's rename fails: the old payload file stays as it was.
  fs::create_directories(graph);
  write_text(graph / "keep", "kept");
  write_text(payloads, "old payloads");
  const CliResult failed = run_cli("convert " + model.string() + " -o " + graph.string());
  EXPECT_EQ(failed.exit_code, 3) << failed.err;
  EXPECT_EQ(read_text(payloads), "old payloads");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"g.json", "g.payloads"}));
  // With the directory gone both files are replaced.
  fs::remove_all(graph);
  const CliResult r = run_cli("convert " + model.string() + " -o " + graph.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(read_text(graph), "torchlean.ir.v1"));
  EXPECT_NE(read_text(payloads), "old payloads");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"g.json", "g.payloads"}));
}

}  // namespace
}  // namespace nnplan::cli_test
