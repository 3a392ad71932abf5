// `nnplan run` (SPEC §11) run as a user runs it: the bundled examples with their inputs (report,
// `run:` line, output summaries computed back from the written output files, latency, Chrome
// trace), outputs byte-identical run to run and between .npy and .pb, every bad-input refusal
// with its full message, the probe-backed refusal of a CUDA plan on a machine without a driver,
// a plan the gate rejects, an ONNX conformance model, and the -o style safety of --output and
// --trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "nnplan/format/tensor_file.hpp"
#include "nnplan/ir/shape.hpp"
#include "nnplan/runtime/thread_bound.hpp"

namespace nnplan::cli_test {
namespace {

// A fresh directory for one test, under the process's scratch directory.
// `nnplan <args>` run from the repository root, so relative example paths read as in the README.
CliResult run_in_source(const std::string& args) {
  return run_shell("cd " + std::string(NNPLAN_SOURCE_DIR) + " && " + NNPLAN_BINARY + " " + args);
}

ir::WeightTensor read_tensor(const fs::path& path) {
  auto tensor = format::read_tensor_file(path);
  EXPECT_TRUE(tensor.has_value()) << path << ": " << tensor.error().message;
  return tensor ? std::move(*tensor) : ir::WeightTensor{};
}

void write_tensor(const fs::path& path, const ir::WeightTensor& tensor) {
  auto ok = format::write_tensor_file(path, tensor);
  ASSERT_TRUE(ok.has_value()) << path << ": " << ok.error().message;
}

ir::WeightTensor random_tensor(ir::Shape shape, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  std::vector<float> values(*ir::element_count(shape));
  for (float& v : values)
    v = dist(rng);
  return ir::WeightTensor::adopt(std::move(shape), std::move(values));
}

std::string npy_text(const ir::WeightTensor& tensor) {
  const std::vector<std::byte> bytes = format::npy_bytes(tensor);
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::string g6(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// The summary line `nnplan run` prints for output `name` holding `t`, computed here from the
// values the output file holds.
std::string expected_summary(const std::string& name, const ir::WeightTensor& t) {
  float lo = t.to_vector<float>().front();
  float hi = t.to_vector<float>().front();
  double sum = 0;
  for (float v : t.to_vector<float>()) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  std::string line = "output '" + name + "' " + ir::to_string(t.shape()) + ": min " + g6(lo) +
                     " max " + g6(hi) + " mean " +
                     g6(sum / static_cast<double>(t.floats().size())) + " first [";
  for (std::size_t i = 0; i < std::min<std::size_t>(t.floats().size(), 6); ++i)
    line += (i ? ", " : "") + g6(t.floats()[i]);
  return line + (t.floats().size() > 6 ? ", ...]" : "]");
}

// The numbers of a `run: N commands on the calling thread; arena A bytes at peak (B without
// reuse)` line, or nullopt when the line is not exactly that. (Parsed by hand: std::regex trips
// g++ 12's -Wmaybe-uninitialized under the sanitizer build.)
struct RunLine {
  unsigned long long commands = 0, peak = 0, no_reuse = 0;
};
std::optional<RunLine> parse_run_line(const std::string& line) {
  RunLine r;
  if (std::sscanf(line.c_str(), "run: %llu", &r.commands) != 1) return std::nullopt;
  const std::string noun = r.commands == 1 ? " command" : " commands";
  const std::string head = "run: " + std::to_string(r.commands) + noun +
                           " on the calling thread; arena ";
  if (!line.starts_with(head)) return std::nullopt;
  if (std::sscanf(line.c_str() + head.size(), "%llu bytes at peak (%llu", &r.peak,
                  &r.no_reuse) != 2) {
    return std::nullopt;
  }
  if (line != head + std::to_string(r.peak) + " bytes at peak (" + std::to_string(r.no_reuse) +
                  " without reuse)") {
    return std::nullopt;
  }
  return r;
}

// The three figures of `latency over N runs: min X ms, median Y ms, max Z ms` (three decimals
// each), or nullopt.
std::optional<std::array<double, 3>> parse_latency_line(const std::string& line, int runs) {
  std::array<double, 3> v{};
  const std::string head = "latency over " + std::to_string(runs) + " runs: min ";
  if (!line.starts_with(head)) return std::nullopt;
  if (std::sscanf(line.c_str() + head.size(), "%lf ms, median %lf ms, max %lf ms", &v[0], &v[1],
                  &v[2]) != 3) {
    return std::nullopt;
  }
  char rebuilt[256];
  std::snprintf(rebuilt, sizeof rebuilt, "%.3f ms, median %.3f ms, max %.3f ms", v[0], v[1],
                v[2]);
  if (line != head + rebuilt) return std::nullopt;
  return v;
}

struct ExampleCase {
  std::string model;  // examples/<model>.json with examples/<model>_input.npy
  std::size_t commands;
  ir::Shape output_shape;
};

class RunExample : public testing::TestWithParam<ExampleCase> {};

// Each bundled example runs on its bundled input: the plan report exactly as `nnplan plan`
// prints it, the run line, and a summary that matches the values --output writes, identical in
// .npy and .pb and from run to run.
TEST_P(RunExample, ReportRunLineAndSummaryOfTheWrittenOutput) {
  const ExampleCase& c = GetParam();
  const std::string graph = "examples/" + c.model + ".json";
  const std::string input = "examples/" + c.model + "_input.npy";
  const CliResult plan = run_in_source("plan " + graph);
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const CliResult first = run_in_source("run " + graph + " --input " + input);
  const CliResult second = run_in_source("run " + graph + " --input " + input);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.err, "");
  EXPECT_EQ(first.out, second.out);
  ASSERT_TRUE(first.out.starts_with(plan.out)) << first.out;
  const std::vector<std::string> tail = lines_of(first.out.substr(plan.out.size()));
  ASSERT_EQ(tail.size(), 2u) << first.out;
  const std::optional<RunLine> run_line = parse_run_line(tail[0]);
  ASSERT_TRUE(run_line.has_value()) << tail[0];
  EXPECT_EQ(run_line->commands, c.commands);
  EXPECT_LE(run_line->peak, run_line->no_reuse) << tail[0];

  const fs::path dir = fresh_scratch_dir("run_cli_example_" + c.model);
  std::vector<ir::WeightTensor> written;
  for (const std::string run : {"a", "b"}) {
    const fs::path npy = dir / (run + ".npy");
    const fs::path pb = dir / (run + ".pb");
    const CliResult r = run_in_source("run " + graph + " --quiet --input " + input + " --output " +
                                      npy.string() + " --output output=" + pb.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, tail[0] + "\noutput 'output' " + ir::to_string(c.output_shape) +
                         " written to " + npy.string() + "\noutput 'output' " +
                         ir::to_string(c.output_shape) + " written to " + pb.string() + "\n");
    const ir::WeightTensor from_npy = read_tensor(npy);
    const ir::WeightTensor from_pb = read_tensor(pb);
    EXPECT_EQ(from_npy.shape(), c.output_shape);
    EXPECT_EQ(from_pb.shape(), c.output_shape);
    EXPECT_TRUE(same_bits(from_npy.to_vector<float>(), from_pb.to_vector<float>())) << run;
    written.push_back(from_npy);
  }
  EXPECT_TRUE(same_bits(written[0].to_vector<float>(), written[1].to_vector<float>()));
  ASSERT_FALSE(written[0].to_vector<float>().empty());
  EXPECT_EQ(tail[1], expected_summary("output", written[0]));
}

INSTANTIATE_TEST_SUITE_P(Examples, RunExample,
                         testing::Values(ExampleCase{"cnn", 7, ir::Shape{{10}}},
                                         ExampleCase{"mlp", 4, ir::Shape{{1, 10}}},
                                         ExampleCase{"transformer_block", 17, ir::Shape{{16, 64}}}),
                         [](const testing::TestParamInfo<ExampleCase>& info) {
                           return info.param.model;
                         });

// The README's first run command, with its trace: one complete event per command, in order.
TEST(RunCli, ReadmeCommandWritesTheTrace) {
  const fs::path trace = fresh_scratch_dir("run_cli_readme") / "cnn.trace.json";
  const CliResult r = run_in_source(
      "run examples/cnn.json --input examples/cnn_input.npy --trace " + trace.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(contains(r.out,
                       "\ngate: accepted under assurance checked\nrun: 7 commands on the "
                       "calling thread; arena "))
      << r.out;
  EXPECT_TRUE(contains(r.out, "\noutput 'output' [10]: min ")) << r.out;
  EXPECT_TRUE(r.out.ends_with("\ntrace: 7 events written to " + trace.string() +
                              " (open it in https://ui.perfetto.dev)\n"))
      << r.out;
  const auto doc = nlohmann::json::parse(read_text(trace));
  EXPECT_EQ(doc["otherData"]["format"], "nnplan.trace.v1");
  EXPECT_EQ(doc["otherData"]["graph"], "examples/cnn.json");
  EXPECT_EQ(doc["otherData"]["commands"], 7);
  std::vector<std::string> capsules;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    capsules.push_back(e["args"]["capsule"]);
    EXPECT_EQ(e["args"]["run"], 0);
    EXPECT_GE(e["dur"].get<double>(), 0.0);
  }
  EXPECT_EQ(capsules,
            (std::vector<std::string>{"reference.conv", "reference.batch_norm", "reference.relu",
                                      "reference.max_pool", "reference.reshape", "reference.linear",
                                      "reference.softmax"}));
}

// The first example of `nnplan run --help` runs as written (its trace redirected to scratch).
TEST(RunCli, HelpExampleRuns) {
  const CliResult help = run_cli("run --help");
  ASSERT_EQ(help.exit_code, 0) << help.err;
  const std::string prefix = "Example: nnplan ";
  const std::size_t at = help.out.find(prefix);
  ASSERT_NE(at, std::string::npos) << help.out;
  std::string example =
      help.out.substr(at + prefix.size(), help.out.find('\n', at) - at - prefix.size());
  EXPECT_EQ(example,
            "run examples/cnn.json --input image=examples/cnn_input.npy --trace cnn.trace.json");
  const fs::path trace = fresh_scratch_dir("run_cli_help_example") / "cnn.trace.json";
  example.replace(example.find("cnn.trace.json"), 14, trace.string());
  const CliResult r = run_in_source(example);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(trace));
}

// An input given as .pb runs exactly as the same values given as .npy.
TEST(RunCli, PbInputRunsLikeTheNpy) {
  const fs::path dir = fresh_scratch_dir("run_cli_pb_input");
  const ir::WeightTensor input = random_tensor(ir::Shape{{1, 784}}, 20240611);
  write_tensor(dir / "x.npy", input);
  write_tensor(dir / "x.pb", input);
  const CliResult npy = run_cli("run " + source("examples/mlp.json") + " --quiet --input " +
                                (dir / "x.npy").string());
  const CliResult pb = run_cli("run " + source("examples/mlp.json") +
                               " --quiet --input image=" + (dir / "x.pb").string());
  ASSERT_EQ(npy.exit_code, 0) << npy.err;
  ASSERT_EQ(pb.exit_code, 0) << pb.err;
  EXPECT_EQ(npy.out, pb.out);
  EXPECT_TRUE(contains(npy.out, "\noutput 'output' [1,10]: min ")) << npy.out;
}

TEST(RunCli, RepeatPrintsLatencyAndTracesEveryRun) {
  const fs::path trace = fresh_scratch_dir("run_cli_repeat") / "t.json";
  const CliResult r =
      run_cli("run " + source("examples/cnn.json") + " --quiet --repeat 3 --input " +
              source("examples/cnn_input.npy") + " --trace " + trace.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_TRUE(parse_run_line(lines[0]).has_value()) << lines[0];
  EXPECT_TRUE(lines[1].starts_with("output 'output' [10]: min ")) << lines[1];
  const auto latency = parse_latency_line(lines[2], 3);
  ASSERT_TRUE(latency.has_value()) << lines[2];
  EXPECT_LE((*latency)[0], (*latency)[1]);
  EXPECT_LE((*latency)[1], (*latency)[2]);
  EXPECT_EQ(lines[3], "trace: 21 events written to " + trace.string() +
                          " (open it in https://ui.perfetto.dev)");
  std::vector<int> runs;
  const auto doc = nlohmann::json::parse(read_text(trace));
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") runs.push_back(e["args"]["run"]);
  }
  std::vector<int> expected;
  for (int k = 0; k < 3; ++k)
    expected.insert(expected.end(), 7, k);
  EXPECT_EQ(runs, expected);
}

// With --repeat past 1000 runs the trace holds the first 1000 (the MLP's 4 commands each) and the
// line says so; every run is still timed.
TEST(RunCli, RepeatTracesAtMostAThousandRuns) {
  const fs::path trace = fresh_scratch_dir("run_cli_repeat_bound") / "t.json";
  const CliResult r =
      run_cli("run " + source("examples/mlp.json") + " --quiet --repeat 1500 --input " +
              source("examples/mlp_input.npy") + " --trace " + trace.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_TRUE(parse_latency_line(lines[2], 1500).has_value()) << lines[2];
  EXPECT_EQ(lines[3], "trace: 4000 events of the first 1000 of 1500 runs written to " +
                          trace.string() +
                          " (a trace holds at most 1000 runs and 50000 events; open it in "
                          "https://ui.perfetto.dev)");
  int last_run = -1;
  std::size_t events = 0;
  const auto doc = nlohmann::json::parse(read_text(trace));
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++events;
    last_run = std::max(last_run, e["args"]["run"].get<int>());
  }
  EXPECT_EQ(events, 4000U);
  EXPECT_EQ(last_run, 999);
}

TEST(RunCli, QuietOmitsTheReport) {
  const CliResult r = run_cli("run " + source("examples/cnn.json") + " --quiet --input " +
                              source("examples/cnn_input.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_TRUE(parse_run_line(lines[0]).has_value()) << lines[0];
  EXPECT_TRUE(lines[1].starts_with("output 'output' [10]: ")) << lines[1];
}

// --threads past 4 per logical CPU (tens of thousands crashed in OpenMP), 0, negative or not a
// number: a usage error naming the value and the range, before anything is read or run; a bound
// within the range runs.
TEST(RunCli, ThreadsPastTheMachineAreAUsageError) {
  const std::string range = runtime::thread_range();
  const std::string run = "run " + source("examples/cnn.json") + " --quiet --profile fast_cpu " +
                          "--input " + source("examples/cnn_input.npy") + " --threads ";
  for (const std::string& bad :
       {std::to_string(runtime::max_threads() + 1), std::string("70000"), std::string("2147483647"),
        std::string("99999999999999999999999")}) {
    SCOPED_TRACE(bad);
    const CliResult r = run_cli(run + bad);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "nnplan: error: nnplan run: --threads: '" + bad +
                         "' is more threads than this machine can use; give " + range +
                         " (see nnplan run --help)\n");
  }
  for (const std::string bad : {"0", "-5", "two", "1.5"}) {
    SCOPED_TRACE(bad);
    const CliResult r = run_cli(run + bad);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err,
              "nnplan: error: nnplan run: --threads: needs a whole number of threads, at "
              "least 1; got '" +
                  bad + "' (see nnplan run --help)\n");
  }
  // A bound within the range runs (at most 8, so that a machine of many CPUs starts few threads;
  // compile's acceptance of the largest is CommandBuffer.ThreadBoundOutsideTheMachineIsRefused).
  const std::string within = std::to_string(std::min(runtime::max_threads(), 8));
  const CliResult r = run_cli(run + within);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("onednn's on up to " + within + " threads"), std::string::npos) << r.out;
}

// A refused run: the exit code and the whole of stderr; nothing ran, so stdout (under --quiet)
// is empty. `{dir}` in args and err is the scratch directory of the bad input files.
struct RefusedCase {
  std::string label;
  std::string args;  // after `run <cnn.json> --quiet`
  int exit_code;
  std::string err;
};

class RunRefused : public testing::TestWithParam<RefusedCase> {
 protected:
  static void SetUpTestSuite() {
    const fs::path dir = fresh_scratch_dir("run_cli_refused");
    const ir::WeightTensor good = random_tensor(ir::Shape{{1, 3, 32, 32}}, 7);
    write_tensor(dir / "wrong.npy", random_tensor(ir::Shape{{1, 3, 4, 4}}, 11));
    write_tensor(dir / "ints.npy",
                 ir::WeightTensor::adopt<std::int64_t>(ir::Shape{{1, 3, 32, 32}},
                                                       std::vector<std::int64_t>(3072, 5)));
    write_tensor(dir / "mask.pb",
                 ir::WeightTensor::adopt<std::uint8_t>(ir::Shape{{1, 3, 32, 32}},
                                                       std::vector<std::uint8_t>(3072, 1)));
    const std::string text = npy_text(good);
    write_text(dir / "truncated.npy", text.substr(0, text.size() - 100));
    std::string fortran = text;
    const std::string from = "'fortran_order': False,";
    const std::size_t at = fortran.find(from);
    ASSERT_NE(at, std::string::npos) << fortran.substr(0, 128);
    fortran.replace(at, from.size(), "'fortran_order': True, ");
    write_text(dir / "fortran.npy", fortran);
    // Streams that never end, and a sparse 3 GiB file: each refused within the bytes a
    // [1,3,32,32] float32 input can take (its data after the largest .npy header).
    fs::create_symlink("/dev/zero", dir / "zero.npy");
    fs::create_symlink("/dev/zero", dir / "zero.pb");
    write_text(dir / "huge.npy", text);
    fs::resize_file(dir / "huge.npy", std::uintmax_t{3} << 30);
  }
};

std::string with_dir(std::string text) {
  const std::string dir = (scratch_dir() / "run_cli_refused").string();
  for (std::size_t at; (at = text.find("{dir}")) != std::string::npos;)
    text.replace(at, 5, dir);
  return text;
}

TEST_P(RunRefused, ExitCodeAndWholeMessage) {
  const RefusedCase& c = GetParam();
  const CliResult r =
      run_cli("run " + source("examples/cnn.json") + " --quiet " + with_dir(c.args));
  EXPECT_EQ(r.exit_code, c.exit_code) << r.out << r.err;
  EXPECT_EQ(r.err, with_dir(c.err));
  EXPECT_EQ(r.out, "");
}

const std::string kCnnInput = source("examples/cnn_input.npy");

INSTANTIATE_TEST_SUITE_P(
    Inputs, RunRefused,
    testing::Values(
        RefusedCase{"no_input", "", 3,
                    "nnplan: error: bad-input: no --input given; the model's inputs: 'image' "
                    "[1,3,32,32]; e.g. --input image=x.npy\n"},
        // An .npy is refused at its header, before its data is read.
        RefusedCase{"wrong_shape", "--input {dir}/wrong.npy", 3,
                    "nnplan: error: bad-input: input 'image': {dir}/wrong.npy: its header says "
                    "shape [1,3,4,4] float32; the model expects [1,3,32,32] float32\n"},
        RefusedCase{"int64", "--input image={dir}/ints.npy", 3,
                    "nnplan: error: bad-input: input 'image': {dir}/ints.npy: its header says "
                    "shape [1,3,32,32] int64; the model expects [1,3,32,32] float32\n"},
        RefusedCase{"bool", "--input image={dir}/mask.pb", 3,
                    "nnplan: error: bad-input: input 'image' ({dir}/mask.pb): dtype bool; the "
                    "model expects float32\n"},
        RefusedCase{"endless_npy", "--input {dir}/zero.npy", 3,
                    "nnplan: error: bad-input: input 'image': {dir}/zero.npy: tensor file is "
                    "larger than the limit of 1060876 bytes, as much as a [1,3,32,32] float32 "
                    "tensor can take\n"},
        RefusedCase{"zeros_as_pb", "--input {dir}/zero.pb", 3,
                    "nnplan: error: bad-input: input 'image': {dir}/zero.pb: tensor file starts "
                    "with byte 0x00, which starts no protobuf field (field number 0); not a "
                    "serialized TensorProto\n"},
        RefusedCase{"huge_npy", "--input {dir}/huge.npy", 3,
                    "nnplan: error: bad-input: input 'image': {dir}/huge.npy: tensor file is "
                    "3221225472 bytes; the limit is 1060876 bytes, as much as a [1,3,32,32] "
                    "float32 tensor can take\n"},
        RefusedCase{"truncated", "--input {dir}/truncated.npy", 3,
                    "nnplan: error: bad-input: input 'image': {dir}/truncated.npy: data holds "
                    "12188 bytes; shape (1, 3, 32, 32) float32 needs 12288\n"},
        RefusedCase{"fortran_order", "--input {dir}/fortran.npy", 3,
                    "nnplan: error: bad-input: input 'image': {dir}/fortran.npy: fortran_order "
                    "True is not supported; save the array in C order "
                    "(numpy.ascontiguousarray)\n"},
        RefusedCase{"missing_file", "--input {dir}/missing.npy", 3,
                    "nnplan: error: bad-input: input 'image': {dir}/missing.npy: cannot read "
                    "tensor file: no such file or directory\n"},
        RefusedCase{"unknown_input", "--input x=" + kCnnInput, 3,
                    "nnplan: error: bad-input: input 'x' is not an input of the model; its "
                    "inputs: 'image' [1,3,32,32]\n"},
        RefusedCase{"input_twice", "--input " + kCnnInput + " --input image=" + kCnnInput, 3,
                    "nnplan: error: bad-input: input 'image' is given twice\n"},
        RefusedCase{"unknown_output", "--input " + kCnnInput + " --output logits={dir}/y.npy", 3,
                    "nnplan: error: bad-input: --output 'logits' is not an output of the model; "
                    "its outputs: 'output' [10]\n"},
        RefusedCase{"empty_input_name", "--input =x.npy", 2,
                    "nnplan: error: --input '=x.npy': expected NAME=FILE (FILE a .npy or .pb "
                    "file), e.g. input=x.npy\n"},
        RefusedCase{"empty_input_file", "--input x=", 2,
                    "nnplan: error: --input 'x=': expected NAME=FILE (FILE a .npy or .pb file), "
                    "e.g. input=x.npy\n"},
        RefusedCase{"repeat_zero", "--repeat 0 --input " + kCnnInput, 2,
                    "nnplan: error: nnplan run: --repeat: Value 0 not in range 1 to 1000000 (see "
                    "nnplan run --help)\n"},
        RefusedCase{"output_extension", "--input " + kCnnInput + " --output {dir}/y.txt", 2,
                    "nnplan: error: --output {dir}/y.txt: unknown tensor file extension '.txt'; "
                    "tensor files are .npy (NumPy) or .pb (ONNX TensorProto)\n"}),
    [](const testing::TestParamInfo<RefusedCase>& info) { return info.param.label; });

// A bad input is found after the report: the report is printed, then nothing runs.
TEST(RunCli, BadInputPrintsTheReportAndRunsNothing) {
  const CliResult plan = run_cli("plan " + source("examples/cnn.json"));
  const CliResult r = run_cli("run " + source("examples/cnn.json"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, plan.out);
  EXPECT_TRUE(r.err.starts_with("nnplan: error: bad-input: no --input given; ")) << r.err;
}

// checked_cuda plans native-cuda capsules; without a loadable driver the probe does not
// confirm native-cuda, so the run is refused before anything is read or launched.
TEST(RunCli, UnprobedProviderIsRefusedBeforeRunning) {
  const std::string failure = driver_load_failure();
  if (failure.empty()) GTEST_SKIP() << "libcuda.so.1 loads on this machine; no refusal to see";
  const CliResult plan = run_cli("plan " + source("examples/cnn.json") + " --profile checked_cuda");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const CliResult r = run_cli("run " + source("examples/cnn.json") +
                              " --profile checked_cuda --input " + kCnnInput);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "nnplan: error: unprobed-provider: group 0 (node 1): capsule 'native_cuda.conv' "
            "needs provider native-cuda, which target linux-cuda declares but the probe of this "
            "machine did not confirm: libcuda.so.1 could not be loaded: " +
                failure +
                "\n  nnplan does not fall back to another provider; to run on this machine's CPU "
                "ask for a CPU profile (--profile checked_cpu); `nnplan probe` shows what this "
                "machine confirms\n");
  EXPECT_EQ(r.out, plan.out);
  EXPECT_FALSE(contains(r.out, "\nrun: ")) << r.out;
}

// A CPU plan never loads the CUDA driver: one that hangs or crashes in cuInit changes nothing (a
// run that waited on the hanging one would pass its 8 s probe deadline and the 5 s timeout).
TEST(RunCli, ACpuRunNeverLoadsTheDriver) {
  for (const char* mode : {"hang", "crash"}) {
    SCOPED_TRACE(mode);
    const CliResult r = run_shell(with_fake_cuda(
        mode, "run " + source("examples/cnn.json") + " --quiet --input " + kCnnInput, 5));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "run: ")) << r.out;
  }
}

// A CUDA plan with a driver that crashes in cuInit is refused, saying what the driver did.
TEST(RunCli, ACudaPlanWithACrashingDriverIsRefused) {
  const CliResult r = run_shell(
      with_fake_cuda("crash", "run " + source("examples/cnn.json") +
                                  " --profile checked_cuda --quiet --input " + kCnnInput));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.err.starts_with(
      "nnplan: error: unprobed-provider: group 0 (node 1): capsule 'native_cuda.conv' needs "
      "provider native-cuda, which target linux-cuda declares but the probe of this machine did "
      "not confirm: the CUDA driver probe (libcuda.so.1) "))
      << r.err;
  EXPECT_TRUE(contains(r.err, " before it answered; nnplan takes it as not usable on this machine"))
      << r.err;
  EXPECT_FALSE(contains(r.out, "run: ")) << r.out;
  // What the driver's child printed (a sanitizer's report of the crash) stays out of stderr.
  EXPECT_EQ(r.err.find("Sanitizer"), std::string::npos) << r.err;
}

// A plan for another platform is refused before it runs: the probe says what this machine is.
TEST(RunCli, PlanForAnotherPlatformIsRefused) {
  const CliResult r = run_cli("run " + source("examples/cnn.json") +
                              " --target macos-cpu --quiet --input " + kCnnInput);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(r.err.starts_with("nnplan: error: unprobed-device: target macos-cpu declares os "
                                "macos and arch aarch64, but the probe found this machine to be "
                                "linux x86_64 (uname: Linux "))
      << r.err;
  EXPECT_TRUE(contains(r.err, "); the plan's devices are not this machine's\n  nnplan does not "
                              "run a plan made for another platform"))
      << r.err;
  EXPECT_FALSE(contains(r.out, "run: ")) << r.out;
}

// NaNs in an output are counted; min and max are over the other values.
TEST(RunCli, SummaryCountsNans) {
  const fs::path dir = fresh_scratch_dir("run_cli_nan_summary");
  {
    std::ofstream graph(dir / "log.json");
    graph << R"({"format": "torchlean.ir.v1", "input_id": 0, "output_ids": [1], "nodes": [
      {"id": 0, "kind": "input", "parents": [], "shape": [4], "name": "x"},
      {"id": 1, "kind": "log", "parents": [0], "shape": [4]}]})";
  }
  write_tensor(dir / "x.npy",
               ir::WeightTensor::adopt<float>(ir::Shape{{4}}, {1.0F, -1.0F, 2.0F, 3.0F}));
  const CliResult r = run_cli("run " + (dir / "log.json").string() + " --quiet --input " +
                              (dir / "x.npy").string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "output 'output' [4]: min 0 max 1.09861 nan 1 of 4 mean ")) << r.out;
}

// The gate's verdict comes before the inputs are read: the input given here is never looked at.
TEST(RunCli, GateRejectionPrintsTheReportAndRunsNothing) {
  const CliResult r = run_in_source(
      "run tests/data/graphs/cli_relu.json --quiet --assurance verified --registry "
      "tests/data/registries/cli_verified_relu.json --input x=examples/cnn_input.npy");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            read_text(fs::path(NNPLAN_GOLDEN_DIR) / "cli/plan_relu_verified_gate_rejects.txt"));
  EXPECT_EQ(r.err,
            "note: weights: not checked: no payload file tests/data/graphs/cli_relu.payloads "
            "beside tests/data/graphs/cli_relu.json (planning needs none)\n"
            "nnplan: error: the plan was rejected by its gate; nothing was run\n");
}

// Under --assurance verified no built-in conv capsule is admissible: planning fails, the
// explanation is the report, and nothing runs.
TEST(RunCli, UnplannableModelPrintsWhyAndRunsNothing) {
  const std::string args = source("examples/cnn.json") + " --assurance verified";
  const CliResult plan = run_cli("plan " + args);
  const CliResult r = run_cli("run " + args + " --input " + kCnnInput);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, plan.out);
  EXPECT_TRUE(contains(r.out, "no admissible backend capsule for op conv on device cpu\n"))
      << r.out;
  EXPECT_EQ(r.err, plan.err);
}

TEST(RunCli, OnnxConformanceReluMatchesItsExpectedOutput) {
  const fs::path dir = fs::path(NNPLAN_ONNX_CONFORMANCE_DIR) / "test_relu";
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << "no conformance corpus at " << dir;
  const fs::path out = fresh_scratch_dir("run_cli_onnx_relu") / "y.pb";
  const CliResult r =
      run_cli("run " + (dir / "model.onnx").string() + " --quiet --input " +
              (dir / "test_data_set_0/input_0.pb").string() + " --output " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "run: 1 command on the calling thread; arena 0 bytes at peak (0 without "
            "reuse)\noutput 'y' [3,4,5] written to " +
                out.string() + "\n");
  const ir::WeightTensor got = read_tensor(out);
  const ir::WeightTensor want = read_tensor(dir / "test_data_set_0/output_0.pb");
  EXPECT_EQ(got.shape(), want.shape());
  ASSERT_EQ(got.floats().size(), want.floats().size());
  for (std::size_t i = 0; i < got.floats().size(); ++i)
    EXPECT_NEAR(got.floats()[i], want.floats()[i], 1e-6) << "value " << i;
}

// --output and --trace onto a file the run reads are usage errors that leave the file as it was.
struct OverwriteCase {
  std::string label;
  std::string target;  // a file in the run's directory
  std::string flag;    // --output, --output output= or --trace
};

class RunOverwrite : public testing::TestWithParam<OverwriteCase> {};

TEST_P(RunOverwrite, IsAUsageErrorAndLeavesTheFile) {
  const OverwriteCase& c = GetParam();
  const fs::path dir = fresh_scratch_dir("run_cli_overwrite_" + c.label);
  for (const char* name : {"cnn.json", "cnn.payloads", "cnn_input.npy"})
    fs::copy_file(source(std::string("examples/") + name), dir / name);
  const fs::path target = dir / c.target;
  const std::string before = read_text(target);
  const CliResult r = run_cli("run " + (dir / "cnn.json").string() + " --input " +
                              (dir / "cnn_input.npy").string() + " " + c.flag + target.string());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  const std::string flag = c.flag.starts_with("--trace") ? "--trace" : "--output";
  EXPECT_EQ(r.err, "nnplan: error: " + flag + " " + target.string() +
                       ": the output would overwrite the input " + target.string() +
                       "; choose another output path\n");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(read_text(target), before);
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, RunOverwrite,
    testing::Values(OverwriteCase{"output_onto_input", "cnn_input.npy", "--output "},
                    OverwriteCase{"named_output_onto_graph", "cnn.json", "--output output="},
                    OverwriteCase{"output_onto_payloads", "cnn.payloads", "--output output="},
                    OverwriteCase{"trace_onto_input", "cnn_input.npy", "--trace "}),
    [](const testing::TestParamInfo<OverwriteCase>& info) { return info.param.label; });

// Two of the files a run writes may not be one file: the second write would replace the first.
TEST(RunCli, OutputAndTraceOntoOneFileIsAUsageError) {
  const fs::path dir = fresh_scratch_dir("run_cli_one_file_twice");
  const std::string y = (dir / "y.npy").string();
  const CliResult r = run_cli("run " + source("examples/cnn.json") + " --quiet --input " +
                              kCnnInput + " --output " + y + " --trace " + y);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "nnplan: error: --trace " + y + " names the file --output " + y +
                       " writes; give each output and the trace its own file\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(y));
}

// A symbolic link to a file another flag writes is that file, even while the file does not
// exist yet.
TEST(RunCli, ALinkToAnotherOutputIsThatOutput) {
  const fs::path dir = fresh_scratch_dir("run_cli_link_to_output");
  const fs::path y = dir / "y.npy";
  const fs::path link = dir / "link.json";
  fs::create_symlink("y.npy", link);
  const CliResult r = run_cli("run " + source("examples/cnn.json") + " --quiet --input " +
                              kCnnInput + " --output " + y.string() + " --trace " + link.string());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "nnplan: error: --trace " + link.string() + " names the file --output " +
                       y.string() + " writes; give each output and the trace its own file\n");
  EXPECT_FALSE(fs::exists(y));
}

// The outputs and the trace are written together: when the trace cannot be written, the output
// file keeps what it held before and no temporary file is left beside it.
TEST(RunCli, AFailedTraceLeavesTheOutputsAsTheyWere) {
  const fs::path dir = fresh_scratch_dir("run_cli_all_or_nothing");
  const fs::path y = dir / "y.npy";
  write_text(y, "what the user had");
  const fs::path blocked = dir / "sub";
  fs::create_directory(blocked);
  const CliResult r =
      run_cli("run " + source("examples/cnn.json") + " --quiet --input " + kCnnInput +
              " --output " + y.string() + " --trace " + blocked.string());
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(r.err,
            "nnplan: error: " + blocked.string() + ": cannot write output file: is a directory\n");
  EXPECT_FALSE(contains(r.out, "written to")) << r.out;
  EXPECT_EQ(read_text(y), "what the user had");
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::ranges::sort(names);
  EXPECT_EQ(names, (std::vector<std::string>{"sub", "y.npy"}));
}

// A trace that cannot be written is found when it is written, after the run: exit 3 naming the
// path and the system's reason, and no `trace:` line.
TEST(RunCli, UnwritableTraceNamesThePath) {
  const fs::path dir = fresh_scratch_dir("run_cli_unwritable_trace");
  struct Case {
    std::string path;
    std::string reason;
  };
  for (const Case& c : {Case{"/proc/forbidden/x.json", "no such file or directory"},
                        Case{dir.string(), "is a directory"}}) {
    const CliResult r = run_cli("run " + source("examples/cnn.json") + " --quiet --input " +
                                kCnnInput + " --trace " + c.path);
    EXPECT_EQ(r.exit_code, 3) << c.path;
    EXPECT_EQ(r.err, "nnplan: error: " + c.path + ": cannot write output file: " + c.reason + "\n");
    EXPECT_FALSE(contains(r.out, "trace:")) << r.out;
  }
}

}  // namespace
}  // namespace nnplan::cli_test
