#include "external_data.hpp"

#include <algorithm>
#include <charconv>
#include <system_error>

#include "message_format.hpp"
#include "nnplan/text_escape.hpp"

namespace nnplan::format::onnx_import {

namespace fs = std::filesystem;

namespace {

// A path of this machine in a message: quoted and escaped, never cut.
std::string shown_path(const fs::path& path) {
  return "'" + escape_controls(path.string()) + "'";
}

// `text` as a non-negative decimal integer, digits only.
std::optional<std::uint64_t> parse_count(std::string_view text) {
  std::uint64_t value = 0;
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) {
        return c >= '0' && c <= '9';
      })) {
    return std::nullopt;
  }
  const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// Whether `path` is `dir` or lies below it, comparing whole components.
bool lies_in(const fs::path& path, const fs::path& dir) {
  auto p = path.begin();
  for (auto d = dir.begin(); d != dir.end(); ++d, ++p) {
    if (d->empty() && std::next(d) == dir.end()) break;  // a trailing separator
    if (p == path.end() || *p != *d) return false;
  }
  return true;
}

}  // namespace

std::expected<ExternalData, std::string> external_data_of(const onnx::TensorProto& t,
                                                          const std::string& name) {
  const std::string tensor = "tensor " + quoted_name(name);
  if (t.data_location() != onnx::TensorProto_DataLocation_EXTERNAL) {
    return std::unexpected(tensor +
                           " has external_data entries but its data_location is DEFAULT; set "
                           "data_location to EXTERNAL or remove the entries");
  }
  ExternalData out;
  bool has_location = false;
  bool has_offset = false;
  bool has_length = false;
  for (const auto& entry : t.external_data()) {
    const std::string& key = entry.key();
    if (key != "location" && key != "offset" && key != "length") {
      continue;  // `checksum` (not verified) and keys of other tools
    }
    bool& seen = key == "location" ? has_location : key == "offset" ? has_offset : has_length;
    if (seen) {
      return std::unexpected(tensor + " has external_data key '" + key +
                             "' twice; give each key once");
    }
    seen = true;
    if (key == "location") {
      out.location = entry.value();
      continue;
    }
    const auto value = parse_count(entry.value());
    if (!value) {
      return std::unexpected(tensor + " has external_data " + key + " " +
                             quoted_name(entry.value()) +
                             ", which is not a non-negative decimal integer");
    }
    if (key == "offset") {
      out.offset = *value;
    } else {
      out.length = *value;
    }
  }
  if (!has_location || out.location.empty()) {
    return std::unexpected(tensor +
                           " keeps its data in an external file but its external_data has no "
                           "location; name the file, relative to the model's directory");
  }
  return out;
}

std::expected<std::shared_ptr<const detail::FileBytes>, std::string> ExternalDataFiles::file(
    const std::string& location, const std::string& name) {
  if (const auto it = files_.find(location); it != files_.end()) return it->second;
  const std::string where = "tensor " + quoted_name(name) + " keeps its data in external file " +
                            quoted_name(location);
  if (dir_.empty()) {
    return std::unexpected(where +
                           ", and this import has no model directory to read it from: import "
                           "the model from its file, or set OnnxImportOptions::external_data_dir "
                           "to its directory");
  }
  const fs::path relative(location);
  if (relative.has_root_directory() || relative.has_root_name()) {
    return std::unexpected(where +
                           ", an absolute path; nnplan reads external data only from the model's "
                           "directory: give the location relative to it");
  }
  const fs::path normal = relative.lexically_normal();
  if (!normal.empty() && *normal.begin() == "..") {
    return std::unexpected(where +
                           ", which leaves the model's directory; nnplan reads external data only "
                           "from files in it: move the file there and give its relative location");
  }
  std::error_code ec;
  if (!canonical_dir_) {
    fs::path canonical = fs::weakly_canonical(dir_, ec);
    if (ec) {
      return std::unexpected(where + ", and the model's directory " + shown_path(dir_) +
                             " cannot be resolved: " + ec.message());
    }
    canonical_dir_ = std::move(canonical);
  }
  const fs::path path = dir_ / relative;
  const fs::path resolved = fs::weakly_canonical(path, ec);
  if (ec) {
    return std::unexpected(where + ", which cannot be resolved: " + ec.message());
  }
  if (!lies_in(resolved, *canonical_dir_)) {
    return std::unexpected(where + ", which resolves to " + shown_path(resolved) +
                           " through a symbolic link, outside the model's directory " +
                           shown_path(*canonical_dir_) +
                           "; nnplan reads external data only from files in it: copy the file "
                           "there");
  }
  const auto status = fs::status(resolved, ec);
  if (ec || !fs::exists(status)) {
    return std::unexpected(where + ", which does not exist in the model's directory " +
                           shown_path(*canonical_dir_) +
                           ": put the file beside the model");
  }
  if (!fs::is_regular_file(status)) {
    return std::unexpected(where + ", which is not a regular file: give the location of the file "
                                   "that holds the data");
  }
  auto bytes = detail::read_bounded_file(resolved, "external data file",
                                         kMaxExternalDataFileBytes);
  if (!bytes) return std::unexpected(where + ": " + bytes.error().message);
  return files_.emplace(location, std::make_shared<const detail::FileBytes>(std::move(*bytes)))
      .first->second;
}

std::expected<ExternalDataFiles::Bytes, std::string> ExternalDataFiles::read(
    const ExternalData& ref, const std::string& name, std::uint64_t bytes) {
  auto mapped = file(ref.location, name);
  if (!mapped) return std::unexpected(std::move(mapped.error()));
  const std::string_view text = (*mapped)->text();
  const std::uint64_t size = text.size();
  const std::string where = "tensor " + quoted_name(name) + ": external data in " +
                            quoted_name(ref.location) + " (" + str(size) + " bytes)";
  if (ref.offset > size || (ref.length && *ref.length > size - ref.offset)) {
    return std::unexpected(where + " at offset " + str(ref.offset) +
                           (ref.length ? ", length " + str(*ref.length) : std::string()) +
                           " runs past the end of the file; the file is truncated or is not "
                           "the one the model was saved with: save the model and its data again");
  }
  const std::uint64_t available = ref.length ? *ref.length : size - ref.offset;
  if (available != bytes) {
    return std::unexpected(where + " from offset " + str(ref.offset) + " holds " +
                           str(available) + " bytes, the tensor needs " + str(bytes) +
                           (ref.length ? std::string()
                                       : "; without a length entry the data runs to the end of "
                                         "the file: give its length"));
  }
  return Bytes{.bytes = text.substr(ref.offset, bytes), .owner = *mapped};
}

}  // namespace nnplan::format::onnx_import
