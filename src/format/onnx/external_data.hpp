// ONNX external data: a tensor whose data_location is EXTERNAL keeps its bytes in a file beside
// the model, named by its external_data entries (`location`, and optionally `offset`, `length`,
// `checksum`). external_data_of reads the entries; ExternalDataFiles reads the bytes, from files
// in the model's directory only: an absolute location, one whose `..` leaves the directory, one
// that resolves (through a symbolic link) outside it, a missing or non-regular file, and a range
// past the file's end are refused, each naming the tensor and the location. Files are mapped
// (bounded_file.hpp) once each and stay mapped while the ExternalDataFiles lives, so only the
// pages a payload reads are touched. The `checksum` entry (a SHA-1 digest) is not verified.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <onnx/onnx_pb.h>

#include "../bounded_file.hpp"

namespace nnplan::format::onnx_import {

// The most bytes of one external data file: far past any model, it only bounds the mapping.
inline constexpr std::uintmax_t kMaxExternalDataFileBytes = std::uintmax_t{1} << 40;  // 1 TiB

// Where a tensor's external data lies.
struct ExternalData {
  std::string location;  // relative to the model's directory
  std::uint64_t offset = 0;
  std::optional<std::uint64_t> length;  // absent: up to the end of the file
};

// The external_data entries of `t` (named `name` in messages): invalid-input reasons for a
// missing or empty `location`, a repeated key, an `offset` or `length` that is not a decimal
// integer, and entries on a tensor whose data_location is not EXTERNAL. Other keys are ignored.
[[nodiscard]] std::expected<ExternalData, std::string> external_data_of(const onnx::TensorProto& t,
                                                                        const std::string& name);

// Reads external data from the files of one directory.
class ExternalDataFiles {
 public:
  // `dir`: the model's directory; empty when the import has none (from bytes without
  // OnnxImportOptions::external_data_dir), and then every read is refused saying so.
  explicit ExternalDataFiles(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // The `bytes` bytes of tensor `name`'s data at `ref` and the mapping that holds them (which
  // weights viewing them keep alive), or the invalid-input reason they cannot be read (naming
  // the tensor, the location and what would fix it).
  struct Bytes {
    std::string_view bytes;
    std::shared_ptr<const detail::FileBytes> owner;
  };
  [[nodiscard]] std::expected<Bytes, std::string> read(const ExternalData& ref,
                                                       const std::string& name,
                                                       std::uint64_t bytes);

 private:
  // The mapped file at `location` (checked to lie in the directory), or why not.
  std::expected<std::shared_ptr<const detail::FileBytes>, std::string> file(
      const std::string& location, const std::string& name);

  std::filesystem::path dir_;
  std::optional<std::filesystem::path> canonical_dir_;  // dir_ resolved, on first use
  std::map<std::string, std::shared_ptr<const detail::FileBytes>, std::less<>>
      files_;  // by location
};

}  // namespace nnplan::format::onnx_import
