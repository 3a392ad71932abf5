// Private reader of input files with a size limit, shared by the file readers of src/format
// (graph JSON, payload files, registry files, plan artifacts and their digests, ONNX models).
// It refuses missing paths, directories and unreadable files, and files over the limit, with
// messages that name the path and what the file was meant to be ("cannot read graph file: is a
// directory"). Every file is opened once and read once: a regular file is mapped rather than
// copied, so a reader pays only for the pages it touches (an ONNX model's weights are never read
// while it is planned); a pipe, FIFO or device, which has no size up front, is streamed once in
// chunks up to the limit, and a content check may stop it at the first chunk that cannot belong to
// the expected format (`/dev/zero` given as a JSON document stops after 64 KiB, not at the limit).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "nnplan/error.hpp"
#include "nnplan/format/graph_file.hpp"
#include "nnplan/ir/weights.hpp"

namespace nnplan::format::detail {

// What a reader accepts besides regular files.
enum class FileKinds : std::uint8_t {
  any,           // pipes and device files too (read in chunks)
  regular_only,  // the reader needs the size up front (random access)
};

struct OpenFile {
  std::ifstream stream;
  std::optional<std::uintmax_t> size;  // set for regular files
};

// The invalid-input error "<path>: <problem>", escaped to one line.
[[nodiscard]] Error file_error(const std::filesystem::path& path, std::string_view problem);

// Opens `path` for binary reading. `what` names the file in messages ("graph file"); a regular
// file larger than `limit` bytes is refused before it is opened. Never throws.
[[nodiscard]] Expected<OpenFile> open_bounded_file(const std::filesystem::path& path,
                                                   std::string_view what, std::uintmax_t limit,
                                                   FileKinds kinds = FileKinds::any);

// Reads `path` in chunks of at most 64 KiB, handing each to `sink`; stops with an error once more
// than `limit` bytes have been read. Exceptions from `sink` (allocation) become internal errors.
[[nodiscard]] Expected<void> read_bounded_chunks(const std::filesystem::path& path,
                                                 std::string_view what, std::uintmax_t limit,
                                                 const std::function<void(std::string_view)>& sink);

// The bytes of a whole file: a read-only private mapping of a regular file, or the bytes read from
// a pipe or device. Move-only; the mapping is released with the value. A file that another process
// truncates while it is mapped makes later reads of the lost pages fault (SIGBUS), as with any
// mapped input.
// As the owner of weights that view it (ir::WeightBytes), a mapping gives the pages of a released
// range back to the system; they are read from the file again if touched.
class FileBytes final : public ir::WeightBytes {
 public:
  FileBytes() = default;
  explicit FileBytes(std::string owned) : owned_(std::move(owned)) {}
  FileBytes(FileBytes&& other) noexcept;
  FileBytes& operator=(FileBytes&& other) noexcept;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes() override;

  void release(std::span<const std::byte> bytes) const noexcept override;

  // Takes over a mapping of `size` bytes at `address` (made by mmap).
  static FileBytes mapped(const void* address, std::size_t size);

  [[nodiscard]] std::string_view text() const {
    return mapping_ != nullptr ? std::string_view(static_cast<const char*>(mapping_), size_)
                               : std::string_view(owned_);
  }

 private:
  const void* mapping_ = nullptr;
  std::size_t size_ = 0;
  std::string owned_;
};

// What a streamed file must look like, checked chunk by chunk while it is read.
enum class StreamCheck : std::uint8_t {
  none,
  json_text,  // no NUL byte anywhere: JSON is text
  protobuf,   // the first byte starts a field (field number 0 does not exist)
  graph,      // json_text or protobuf, as graph_format_of decides from the first chunk
};

// The whole of `path`, at most `limit` bytes, read once. `check` applies to pipes and devices as
// they are read; the readers check mapped regular files themselves, over the whole text.
// `limit_reason`, when given, follows the limit in the message refusing a larger file (why the
// limit is what it is).
[[nodiscard]] Expected<FileBytes> read_bounded_file(const std::filesystem::path& path,
                                                    std::string_view what, std::uintmax_t limit,
                                                    StreamCheck check = StreamCheck::none,
                                                    std::string_view limit_reason = {});

// Whether `path` names a regular file (following links); false when it cannot be examined.
[[nodiscard]] bool is_regular_file(const std::filesystem::path& path);

}  // namespace nnplan::format::detail
