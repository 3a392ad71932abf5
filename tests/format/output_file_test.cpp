// format::write_file_atomically and friends: a successful write replaces the file, a failed one
// leaves the old file and no temporary behind, an output is never one of the inputs, and a
// device target is written in place.
#include "nnplan/format/output_file.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace nnplan::format {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Runs `write` with writes past 4 KiB failing (RLIMIT_FSIZE gives EFBIG, even as root; SIGXFSZ
// is ignored meanwhile), then restores the limit and the signal.
template <class Write>
auto with_small_file_limit(Write write) {
  rlimit old_limit{};
  EXPECT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old_limit;
  small.rlim_cur = 4096;
  EXPECT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  auto result = write();
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  return result;
}

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nnplan_output_file_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The names in the directory, so a test can see that no temporary was left.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

bool contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

TEST_F(OutputFileTest, CreatesAndReplacesAFile) {
  const fs::path path = dir_ / "out.json";
  ASSERT_TRUE(write_file_atomically(path, "first\n"));
  EXPECT_EQ(read_text(path), "first\n");
  ASSERT_TRUE(write_file_atomically(path, "second, longer\n"));
  EXPECT_EQ(read_text(path), "second, longer\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});
}

TEST_F(OutputFileTest, KeepsTheModeOfTheFileItReplaces) {
  const fs::path path = dir_ / "out.json";
  write_text(path, "old");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  ASSERT_TRUE(write_file_atomically(path, "new"));
  EXPECT_EQ(fs::status(path).permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST_F(OutputFileTest, RefusesToOverwriteAnInput) {
  const fs::path input = dir_ / "g.json";
  write_text(input, "graph");
  const std::vector<fs::path> inputs{dir_ / "r.json", input};
  // The same file spelled another way is still the input.
  const fs::path spelled = dir_ / "." / "g.json";
  const auto result = write_file_atomically(spelled, "plan", inputs);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ErrorKind::invalid_input);
  EXPECT_TRUE(contains(result.error().message, "the output would overwrite the input " +
                                                   input.string() + "; choose another output path"))
      << result.error().message;
  EXPECT_EQ(read_text(input), "graph");
  // A path that does not exist yet is compared lexically.
  const fs::path missing = dir_ / "missing.json";
  const std::vector<fs::path> missing_inputs{missing};
  EXPECT_FALSE(check_output_path(dir_ / "sub" / ".." / "missing.json", missing_inputs));
  EXPECT_TRUE(check_output_path(dir_ / "other.json", inputs));
}

TEST_F(OutputFileTest, AFailedRenameLeavesTheTargetAndNoTemporary) {
  // A non-empty directory at the path: the rename fails deterministically, even as root.
  const fs::path path = dir_ / "out.json";
  fs::create_directories(path);
  write_text(path / "keep", "kept");
  const auto result = write_file_atomically(path, "new");
  ASSERT_FALSE(result);
  EXPECT_TRUE(contains(result.error().message, path.string() + ": cannot write output file: "))
      << result.error().message;
  EXPECT_EQ(read_text(path / "keep"), "kept");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});
}

TEST_F(OutputFileTest, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  const fs::path path = dir_ / "out.json";
  write_text(path, "old contents");
  const auto result =
      with_small_file_limit([&] { return write_file_atomically(path, std::string(10000, 'x')); });
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, path.string() + ": cannot write output file: file too large");
  EXPECT_EQ(read_text(path), "old contents");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});
}

TEST_F(OutputFileTest, WritesADeviceInPlace) {
  const auto full = write_file_atomically("/dev/full", "bytes");
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error().message, "/dev/full: cannot write output file: no space left on device");
  EXPECT_TRUE(write_file_atomically("/dev/null", "bytes"));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(OutputFileTest, ReplacesTheFileALinkPointsTo) {
  const fs::path real = dir_ / "real.json";
  const fs::path link = dir_ / "link.json";
  write_text(real, "old");
  fs::create_symlink(real, link);
  ASSERT_TRUE(write_file_atomically(link, "new"));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_text(real), "new");
}

TEST_F(OutputFileTest, CommitsTwoFilesTogether) {
  const fs::path graph = dir_ / "g.json";
  const fs::path payloads = dir_ / "g.payloads";
  const std::vector<OutputFile> files{{.path = graph, .bytes = "graph"},
                                      {.path = payloads, .bytes = "payloads"}};
  ASSERT_TRUE(write_files_atomically(files));
  EXPECT_EQ(read_text(graph), "graph");
  EXPECT_EQ(read_text(payloads), "payloads");
}

TEST_F(OutputFileTest, AFailedSecondWriteChangesNeitherFile) {
  const fs::path graph = dir_ / "g.json";
  const fs::path payloads = dir_ / "g.payloads";
  write_text(graph, "old graph");
  write_text(payloads, "old payloads");
  const std::string big(10000, 'x');
  const std::vector<OutputFile> files{{.path = graph, .bytes = "new graph"},
                                      {.path = payloads, .bytes = big}};
  const auto result = with_small_file_limit([&] { return write_files_atomically(files); });
  ASSERT_FALSE(result);
  EXPECT_TRUE(contains(result.error().message, payloads.string())) << result.error().message;
  EXPECT_EQ(read_text(graph), "old graph");
  EXPECT_EQ(read_text(payloads), "old payloads");
  EXPECT_EQ(entries(), (std::vector<std::string>{"g.json", "g.payloads"}));
}

// A directory at a target cannot be renamed over: it is refused before any file is written, so
// the files before it are not left in place (the renames that could still fail after the first,
// a target's directory losing its write permission meanwhile, report what was already written).
TEST_F(OutputFileTest, ADirectoryTargetIsRefusedBeforeAnyFileIsWritten) {
  const fs::path graph = dir_ / "g.json";
  const fs::path payloads = dir_ / "g.payloads";
  fs::create_directories(payloads / "sub");
  const std::vector<OutputFile> files{{.path = graph, .bytes = "graph"},
                                      {.path = payloads, .bytes = "payloads"}};
  const auto result = write_files_atomically(files);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message,
            payloads.string() + ": cannot write output file: is a directory");
  EXPECT_EQ(entries(), (std::vector<std::string>{"g.payloads"}));
}

}  // namespace
}  // namespace nnplan::format
