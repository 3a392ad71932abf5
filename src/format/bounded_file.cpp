#include "bounded_file.hpp"

#include "nnplan/exception_boundary.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <exception>
#include <limits>
#include <system_error>
#include <utility>

#include "message_text.hpp"
#include "nnplan/exception_boundary.hpp"

namespace nnplan::format::detail {
namespace {

// "1073741824 bytes (1 GiB)": the exact figure, plus the round one people set limits in.
std::string limit_text(std::uintmax_t limit) {
  constexpr std::uintmax_t kMiB = std::uintmax_t{1} << 20;
  constexpr std::uintmax_t kGiB = std::uintmax_t{1} << 30;
  std::string out = std::to_string(limit) + " bytes";
  if (limit != 0 && limit % kGiB == 0) {
    out += " (" + std::to_string(limit / kGiB) + " GiB)";
  } else if (limit != 0 && limit % kMiB == 0) {
    out += " (" + std::to_string(limit / kMiB) + " MiB)";
  }
  return out;
}

std::string cannot_read(std::string_view what, std::string_view reason) {
  return "cannot read " + std::string(what) + ": " + std::string(reason);
}

Error internal_error(const std::filesystem::path& path, const std::exception& e) {
  return error_from_exception("reading " + escape_controls(path.string()), e);
}

}  // namespace

Error file_error(const std::filesystem::path& path, std::string_view problem) {
  return make_error(ErrorKind::invalid_input,
                    escape_controls(path.string() + ": " + std::string(problem)));
}

Expected<OpenFile> open_bounded_file(const std::filesystem::path& path, std::string_view what,
                                     std::uintmax_t limit, FileKinds kinds) {
  const auto fail = [&path](std::string problem) {
    return std::unexpected(file_error(path, problem));
  };
  try {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) {
      return fail(cannot_read(
          what, ec ? lowercase_first(ec.message()) : std::string("no such file or directory")));
    }
    if (std::filesystem::is_directory(status)) return fail(cannot_read(what, "is a directory"));
    OpenFile file;
    if (std::filesystem::is_regular_file(status)) {
      const std::uintmax_t size = std::filesystem::file_size(path, ec);
      if (ec) return fail(cannot_read(what, lowercase_first(ec.message())));
      if (size > limit) {
        return fail(std::string(what) + " is " + std::to_string(size) + " bytes; the limit is " +
                    limit_text(limit));
      }
      file.size = size;
    } else if (kinds == FileKinds::regular_only) {
      return fail(cannot_read(what, "not a regular file"));
    }
    errno = 0;
    file.stream.open(path, std::ios::binary);
    if (!file.stream) {
      const int err = errno;
      return fail(cannot_read(what, err != 0 ? lowercase_first(std::generic_category().message(err))
                                             : std::string("open failed")));
    }
    return file;
  } catch (const std::exception& e) {
    return std::unexpected(internal_error(path, e));
  }
}

Expected<void> read_bounded_chunks(const std::filesystem::path& path, std::string_view what,
                                   std::uintmax_t limit,
                                   const std::function<void(std::string_view)>& sink) {
  auto file = open_bounded_file(path, what, limit);
  if (!file) return std::unexpected(std::move(file.error()));
  try {
    std::ifstream& in = file->stream;
    std::array<char, 1 << 16> buffer{};
    std::uintmax_t total = 0;
    while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0) {
      const auto n = static_cast<std::size_t>(in.gcount());
      total += n;
      // A regular file may grow after its size was checked, and a pipe has no size at all.
      if (total > limit) {
        return std::unexpected(file_error(
            path, std::string(what) + " is larger than the limit of " + limit_text(limit)));
      }
      sink(std::string_view(buffer.data(), n));
    }
    if (in.bad()) return std::unexpected(file_error(path, cannot_read(what, "read error")));
    return {};
  } catch (const std::exception& e) {
    return std::unexpected(internal_error(path, e));
  }
}

FileBytes::FileBytes(FileBytes&& other) noexcept
    : mapping_(std::exchange(other.mapping_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      owned_(std::move(other.owned_)) {}

FileBytes& FileBytes::operator=(FileBytes&& other) noexcept {
  if (this != &other) {
    if (mapping_ != nullptr) ::munmap(const_cast<void*>(mapping_), size_);
    mapping_ = std::exchange(other.mapping_, nullptr);
    size_ = std::exchange(other.size_, 0);
    owned_ = std::move(other.owned_);
  }
  return *this;
}

FileBytes::~FileBytes() {
  if (mapping_ != nullptr) ::munmap(const_cast<void*>(mapping_), size_);
}

FileBytes FileBytes::mapped(const void* address, std::size_t size) {
  FileBytes bytes;
  bytes.mapping_ = address;
  bytes.size_ = size;
  return bytes;
}

namespace {

// Maps a regular file of `size` bytes (checked against the limit by the caller); nullopt when the
// system refuses, and the caller reads the file instead.
std::optional<FileBytes> map_regular_file(const std::filesystem::path& path, std::uintmax_t size) {
  if (size == 0 || size > std::numeric_limits<std::size_t>::max()) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat info {};
  void* address = MAP_FAILED;
  // The size is taken again from the open file: it is what the mapping can cover.
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) &&
      static_cast<std::uintmax_t>(info.st_size) == size) {
    address = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
  }
  ::close(fd);
  if (address == MAP_FAILED) return std::nullopt;
  return FileBytes::mapped(address, static_cast<std::size_t>(size));
}

}  // namespace

Expected<FileBytes> read_bounded_file(const std::filesystem::path& path, std::string_view what,
                                      std::uintmax_t limit) {
  {
    auto file = open_bounded_file(path, what, limit);
    if (!file) return std::unexpected(std::move(file.error()));
    if (file->size) {
      if (auto mapped = map_regular_file(path, *file->size)) return std::move(*mapped);
    }
  }
  std::string text;
  auto read =
      read_bounded_chunks(path, what, limit, [&text](std::string_view chunk) { text += chunk; });
  if (!read) return std::unexpected(std::move(read.error()));
  return FileBytes(std::move(text));
}

}  // namespace nnplan::format::detail
