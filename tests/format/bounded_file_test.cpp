// detail::read_bounded_file (src/format/bounded_file.hpp): a regular file is mapped, a pipe is read
// in chunks, and both give the file's exact bytes; the limit and the refusals name the path.
#include "format/bounded_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace nnplan::format::detail {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("nnplan_bounded_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

fs::path write_file(const std::string& name, const std::string& bytes) {
  const fs::path path = scratch(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(BoundedFileTest, RegularFileGivesItsExactBytes) {
  std::string bytes(300000, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>(i * 7 + 3);
  const auto read = read_bounded_file(write_file("regular.bin", bytes), "test file", 1 << 20);
  ASSERT_TRUE(read.has_value()) << read.error().message;
  EXPECT_EQ(read->text(), bytes);
}

TEST(BoundedFileTest, MovedValueKeepsTheBytesAndTheSourceIsEmpty) {
  auto read = read_bounded_file(write_file("moved.bin", "abcdef"), "test file", 100);
  ASSERT_TRUE(read.has_value()) << read.error().message;
  FileBytes moved = std::move(*read);
  EXPECT_EQ(moved.text(), "abcdef");
  EXPECT_EQ(read->text(), "");
  FileBytes assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.text(), "abcdef");
}

TEST(BoundedFileTest, EmptyFileIsEmpty) {
  const auto read = read_bounded_file(write_file("empty.bin", ""), "test file", 100);
  ASSERT_TRUE(read.has_value()) << read.error().message;
  EXPECT_EQ(read->text(), "");
}

TEST(BoundedFileTest, PipeIsReadInChunks) {
  const fs::path source = write_file("piped.txt", std::string(200000, 'p'));
  const std::string command = "cat " + source.string();
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  const auto read =
      read_bounded_file("/dev/fd/" + std::to_string(::fileno(pipe)), "test file", 1 << 20);
  ::pclose(pipe);
  ASSERT_TRUE(read.has_value()) << read.error().message;
  EXPECT_EQ(read->text(), std::string(200000, 'p'));
}

TEST(BoundedFileTest, FileOverTheLimitIsRefusedNamingThePath) {
  const fs::path path = write_file("large.bin", std::string(101, 'x'));
  const auto read = read_bounded_file(path, "test file", 100);
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().kind, ErrorKind::invalid_input);
  EXPECT_TRUE(read.error().message.starts_with(path.string() + ": test file is 101 bytes"))
      << read.error().message;
}

TEST(BoundedFileTest, DirectoryIsRefused) {
  const auto read = read_bounded_file(scratch(""), "test file", 100);
  ASSERT_FALSE(read.has_value());
  EXPECT_TRUE(read.error().message.ends_with("cannot read test file: is a directory"))
      << read.error().message;
}

}  // namespace
}  // namespace nnplan::format::detail
