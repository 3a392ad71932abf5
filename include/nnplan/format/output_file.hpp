// Writing output files (DESIGN.md, "The command line"): a file is written to a temporary file in
// its directory and renamed into place only when complete, so a failed write leaves whatever was
// at the path before untouched and no temporary behind; an output is never a file the command
// reads. A target that exists and is a character device or FIFO (`/dev/full`, `/dev/stdout`, a
// pipe) cannot be replaced by a rename and is written in place, every write checked. No function
// here throws.
#pragma once

#include <filesystem>
#include <span>
#include <string_view>

#include "nnplan/error.hpp"

namespace nnplan::format {

// Refuses (invalid_input) an output `path` that is one of `inputs`: the same file
// (std::filesystem::equivalent) when both exist, else the same lexically normal absolute path.
//   g.json: the output would overwrite the input g.json; choose another output path
[[nodiscard]] Expected<void> check_output_path(const std::filesystem::path& path,
                                               std::span<const std::filesystem::path> inputs = {});

// The file a write to `path` changes: the end of a chain of symbolic links at `path` (a link to
// a file that does not exist yet included), made absolute and normal; `path` itself otherwise.
// Two paths with one written file name one output.
[[nodiscard]] std::filesystem::path written_file(const std::filesystem::path& path);

// Writes `bytes` to `path` after check_output_path: to a temporary `<dir>/.<name>.XXXXXX`, every
// write checked, synced and closed, then renamed onto `path` (onto the file a symbolic link at
// `path` points to). Any failure removes the temporary and is an invalid_input error naming the
// path and the system's reason:
//   out/g.json: cannot write output file: no space left on device
[[nodiscard]] Expected<void> write_file_atomically(
    const std::filesystem::path& path, std::string_view bytes,
    std::span<const std::filesystem::path> inputs = {});

// One file of write_files_atomically.
struct OutputFile {
  std::filesystem::path path;
  std::string_view bytes;
};

// write_file_atomically for several files committed together: every temporary is written first
// and the renames start only when all are complete, so a failed write changes none of the
// targets. A rename that fails after an earlier one succeeded is reported with the files already
// in place. The paths must differ from each other.
[[nodiscard]] Expected<void> write_files_atomically(
    std::span<const OutputFile> files, std::span<const std::filesystem::path> inputs = {});

}  // namespace nnplan::format
