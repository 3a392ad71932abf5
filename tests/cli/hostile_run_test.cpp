// The hostile table of the runtime surfaces: `nnplan run` given tensor files that are devices,
// FIFOs fed forever, sparse files of gigabytes and files that lie in their headers; thread counts
// and repeat counts past what makes sense; outputs and traces aimed at the model, its weights, the
// inputs, one another, a directory or a missing one. Every case must end within 20 s (and, outside
// AddressSanitizer, within 1 GiB of address space) with the stated exit code and message, and leave
// the files the user gave byte for byte as they were, writing nothing when it refuses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace nnplan::cli_test {
namespace {

#if defined(__SANITIZE_ADDRESS__)
const std::string kLimits = "";  // the sanitizer's shadow memory needs more address space
#else
const std::string kLimits = "ulimit -v 1048576; ";  // 1 GiB
#endif

struct HostileCase {
  const char* name;
  // Shell commands run in the case's directory first (a FIFO and its endless writer).
  std::string setup;
  // `nnplan run m.json --quiet` then these, in the case's directory.
  std::string args;
  int exit_code;
  std::string message;  // what stderr says (a fragment); empty: nothing (exit 0)
  // A file the case must not leave behind ("" when none).
  std::string not_written;
};

// The model, its weights and its input, and files of every hostile kind beside them.
fs::path hostile_dir() {
  const fs::path dir = fresh_scratch_dir("hostile_run");
  fs::copy_file(source("examples/cnn.json"), dir / "m.json");
  fs::copy_file(source("examples/cnn.payloads"), dir / "m.payloads");
  fs::copy_file(source("examples/cnn_input.npy"), dir / "x.npy");
  fs::create_symlink("/dev/zero", dir / "zero.npy");
  fs::create_symlink("/dev/urandom", dir / "random.npy");
  fs::create_symlink("/dev/zero", dir / "zero.pb");
  fs::create_symlink("/dev/urandom", dir / "random.pb");
  // A .npy header for a [2,2] float32 tensor, then 3 GiB of holes.
  std::string header = "\x93NUMPY\x01";
  header += '\0';
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  dict.resize(118 - 10 - 1, ' ');
  dict += '\n';
  header += static_cast<char>(dict.size() & 0xFF);
  header += static_cast<char>(dict.size() >> 8);
  write_text(dir / "sparse.npy", header + dict);
  fs::resize_file(dir / "sparse.npy", std::uintmax_t{3} << 30);
  write_text(dir / "cut.npy", read_text(dir / "x.npy").substr(0, 100));
  write_text(dir / "lying.npy", std::string("\x93NUMPY\x01\x00\xff\xff", 10));
  fs::create_directory(dir / "subdir");
  return dir;
}

const std::vector<HostileCase>& hostile_cases() {
  static const std::vector<HostileCase> cases = {
      {"npy_from_dev_zero", "", "--input zero.npy", 3,
       "input 'image': zero.npy: tensor file is larger than the limit of 1060876 bytes, as much as "
       "a [1,3,32,32] float32 tensor can take",
       ""},
      {"npy_from_dev_urandom", "", "--input random.npy", 3,
       "random.npy: tensor file is larger than the limit of 1060876 bytes", ""},
      {"pb_from_dev_zero", "", "--input zero.pb", 3,
       "zero.pb: tensor file starts with byte 0x00, which starts no protobuf field", ""},
      {"pb_from_dev_urandom", "", "--input random.pb", 3, "; not a serialized TensorProto", ""},
      {"npy_fifo_fed_forever", "mkfifo fifo.npy && { yes > fifo.npy 2>/dev/null & }",
       "--input fifo.npy", 3, "fifo.npy: tensor file is larger than the limit of 1060876 bytes",
       ""},
      {"sparse_3_gib_npy", "", "--input sparse.npy", 3,
       "sparse.npy: tensor file is 3221225472 bytes; the limit is 1060876 bytes", ""},
      {"npy_cut_short", "", "--input cut.npy", 3,
       "cut.npy: header of 118 bytes is cut short: the file ends 90 bytes into it", ""},
      {"npy_header_longer_than_the_file", "", "--input lying.npy", 3,
       "lying.npy: header of 65535 bytes is cut short", ""},
      {"threads_zero", "", "--input x.npy --threads 0", 2,
       "--threads: needs a whole number of threads, at least 1; got '0'", ""},
      {"threads_past_the_machine", "", "--input x.npy --threads 100000", 2,
       "--threads: '100000' is more threads than this machine can use; give 1 to ", ""},
      {"threads_int_max", "", "--input x.npy --threads 2147483647 --profile fast_cpu", 2,
       "--threads: '2147483647' is more threads than this machine can use", ""},
      {"threads_negative", "", "--input x.npy --threads -5", 2,
       "--threads: needs a whole number of threads, at least 1; got '-5'", ""},
      {"repeat_zero", "", "--input x.npy --repeat 0", 2, "--repeat: Value 0 not in range", ""},
      {"repeat_past_the_limit", "", "--input x.npy --repeat 1000001", 2,
       "--repeat: Value 1000001 not in range 1 to 1000000", ""},
      {"repeat_many_traced", "", "--input x.npy --repeat 2000 --trace t.json", 0, "", ""},
      {"output_onto_the_model", "", "--input x.npy --output output=m.json", 2,
       "--output m.json: the output would overwrite the input m.json", ""},
      {"output_onto_the_input", "", "--input x.npy --output output=x.npy", 2,
       "--output x.npy: the output would overwrite the input x.npy", ""},
      {"trace_onto_the_weights", "", "--input x.npy --trace m.payloads", 2,
       "--trace m.payloads: the output would overwrite the input m.payloads", ""},
      {"trace_through_a_link_to_the_output", "ln -s y.npy ylink.json",
       "--input x.npy --output output=y.npy --trace ylink.json", 2,
       "--trace ylink.json names the file --output y.npy writes", "y.npy"},
      {"output_in_a_missing_directory", "", "--input x.npy --output output=none/y.npy", 3,
       "none/y.npy: cannot write output file: no such file or directory", ""},
      {"trace_fails_after_the_output", "",
       "--input x.npy --output output=y.npy --trace none/t.json", 3, "none/t.json", "y.npy"},
      {"output_onto_a_directory", "", "--input x.npy --output output=subdir", 2,
       "--output subdir: no file extension", ""},
  };
  return cases;
}

class HostileRun : public ::testing::TestWithParam<HostileCase> {};

TEST_P(HostileRun, EndsWithinItsLimitsAndLeavesTheUsersFilesAlone) {
  const HostileCase& c = GetParam();
  const fs::path dir = hostile_dir();
  const std::string model = read_text(dir / "m.json");
  const std::string weights = read_text(dir / "m.payloads");
  const std::string input = read_text(dir / "x.npy");
  const std::string line =
      "cd " + dir.string() + " && " + (c.setup.empty() ? std::string() : c.setup + "; ") + kLimits +
      "timeout 20 " + std::string(NNPLAN_BINARY) + " run m.json --quiet " + c.args;
  const CliResult r = run_shell(line);
  EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
  if (c.message.empty()) {
    EXPECT_EQ(r.err, "");
  } else {
    EXPECT_TRUE(r.err.starts_with("nnplan: error: ")) << r.err;
    EXPECT_TRUE(contains(r.err, c.message)) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  }
  EXPECT_EQ(read_text(dir / "m.json"), model);
  EXPECT_EQ(read_text(dir / "m.payloads"), weights);
  EXPECT_EQ(read_text(dir / "x.npy"), input);
  if (!c.not_written.empty()) {
    EXPECT_FALSE(fs::exists(dir / c.not_written)) << c.not_written;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, HostileRun, ::testing::ValuesIn(hostile_cases()),
                         [](const ::testing::TestParamInfo<HostileCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace nnplan::cli_test
