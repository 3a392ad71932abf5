// Private reader of input files with a size limit, shared by the file readers of src/format
// (graph JSON, payload files, registry files, plan artifacts and their digests, ONNX models).
// It refuses missing paths, directories and unreadable files, and files over the limit, with
// messages that name the path and what the file was meant to be ("cannot read graph file: is a
// directory"); pipes and device files, which have no size up front, are read in bounded chunks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "nnplan/error.hpp"

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

// The whole of `path`, at most `limit` bytes.
[[nodiscard]] Expected<std::string> read_bounded_file(const std::filesystem::path& path,
                                                      std::string_view what, std::uintmax_t limit);

}  // namespace nnplan::format::detail
