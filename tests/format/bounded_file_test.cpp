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

// A pipe from `command`, read through its /dev/fd path with `check`.
Expected<FileBytes> read_from_pipe(const std::string& command, StreamCheck check,
                                   std::uintmax_t limit = std::uintmax_t{1} << 30) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return std::unexpected(make_error(ErrorKind::internal, "popen failed"));
  auto read =
      read_bounded_file("/dev/fd/" + std::to_string(::fileno(pipe)), "test file", limit, check);
  ::pclose(pipe);
  return read;
}

TEST(BoundedFileTest, StreamedJsonStopsAtTheFirstNulByte) {
  // An endless stream: without the check it would be read up to the limit (1 GiB here).
  const auto read = read_from_pipe("cat /dev/zero", StreamCheck::json_text);
  ASSERT_FALSE(read.has_value());
  EXPECT_TRUE(read.error().message.ends_with(
      ": test file holds a NUL byte at offset 0; a JSON document is text and never holds one"))
      << read.error().message;
  const auto late = read_from_pipe("printf '{\\n\\000'", StreamCheck::json_text);
  ASSERT_FALSE(late.has_value());
  EXPECT_TRUE(late.error().message.find("NUL byte at offset 2;") != std::string::npos)
      << late.error().message;
  const auto text = read_from_pipe("printf '{}'", StreamCheck::json_text);
  ASSERT_TRUE(text.has_value()) << text.error().message;
  EXPECT_EQ(text->text(), "{}");
}

TEST(BoundedFileTest, StreamedProtobufMustStartWithAFieldTag) {
  const auto read = read_from_pipe("cat /dev/zero", StreamCheck::protobuf);
  ASSERT_FALSE(read.has_value());
  EXPECT_TRUE(read.error().message.ends_with(
      ": test file starts with byte 0x00, which starts no protobuf field (field number 0); not a "
      "serialized ModelProto"))
      << read.error().message;
  // NUL bytes inside a field are ordinary protobuf content.
  const auto model = read_from_pipe(
      "printf '\\010\\007\\022\\002\\000\\000\\035\\000\\000\\000\\000'", StreamCheck::protobuf);
  ASSERT_TRUE(model.has_value()) << model.error().message;
  EXPECT_EQ(model->text(), std::string("\x08\x07\x12\x02\0\0\x1d\0\0\0\0", 11));
}

// The stream's top-level fields are walked as they arrive: bytes that cannot be a message stop
// the read where they start, so noise is never read up to the limit.
TEST(BoundedFileTest, StreamedProtobufIsRefusedWhereItStopsBeingOne) {
  const auto noise = read_from_pipe("cat /dev/urandom", StreamCheck::protobuf);
  ASSERT_FALSE(noise.has_value());
  EXPECT_TRUE(noise.error().message.find("; not a serialized ModelProto") != std::string::npos)
      << noise.error().message;
  struct Case {
    const char* bytes;  // printf's octal escapes
    const char* said;
  };
  const Case cases[] = {
      {"\\010\\001\\016",
       "test file holds a field of wire type 6 at offset 2, which no field of "
       "an ONNX message has; not a serialized ModelProto"},
      {"\\010\\001\\000",
       "test file holds field number 0 at offset 2, which starts no protobuf "
       "field; not a serialized ModelProto"},
      {"\\022\\377\\377\\377\\377\\017",
       "test file holds a field at offset 1 of 4294967295 bytes, which would end past the limit "
       "of 1048576 bytes (1 MiB); not a serialized ModelProto"},
      {"\\010\\377\\377\\377\\377\\377\\377\\377\\377\\377\\377\\001",
       "test file holds a varint of more than 10 bytes at offset 1; not a serialized ModelProto"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.bytes);
    const auto read =
        read_from_pipe(std::string("printf '") + c.bytes + "'", StreamCheck::protobuf, 1 << 20);
    ASSERT_FALSE(read.has_value());
    EXPECT_TRUE(read.error().message.ends_with(c.said)) << read.error().message;
  }
}

TEST(BoundedFileTest, GraphCheckFollowsTheFirstByte) {
  const auto json = read_from_pipe("printf ' {\\000'", StreamCheck::graph);
  ASSERT_FALSE(json.has_value());
  EXPECT_TRUE(json.error().message.find("NUL byte at offset 2") != std::string::npos)
      << json.error().message;
  const auto zero = read_from_pipe("cat /dev/zero", StreamCheck::graph);
  ASSERT_FALSE(zero.has_value());
  EXPECT_TRUE(zero.error().message.find("starts with byte 0x00") != std::string::npos)
      << zero.error().message;
}

TEST(BoundedFileTest, EndlessStreamStopsAtTheLimit) {
  const auto read = read_from_pipe("yes", StreamCheck::none, 1 << 20);
  ASSERT_FALSE(read.has_value());
  EXPECT_TRUE(read.error().message.ends_with(
      ": test file is larger than the limit of 1048576 bytes (1 MiB)"))
      << read.error().message;
}

TEST(BoundedFileTest, MissingFileIsRefusedNamingThePath) {
  const auto read = read_bounded_file(scratch("missing.bin"), "test file", 100);
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().kind, ErrorKind::invalid_input);
  EXPECT_TRUE(read.error().message.ends_with(
      "missing.bin: cannot read test file: no such file or directory"))
      << read.error().message;
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
