#include "bounded_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
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

std::string fmt_hex(unsigned char byte) {
  constexpr std::string_view kDigits = "0123456789abcdef";
  return {kDigits[byte >> 4], kDigits[byte & 0xF]};
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

void FileBytes::release(std::span<const std::byte> bytes) const noexcept {
  if (mapping_ == nullptr || bytes.empty()) return;
  // Only whole pages inside the range: a page the range shares with another tensor stays.
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(bytes.data());
  const auto end = begin + bytes.size();
  const auto first = (begin + page - 1) / page * page;
  const auto last = end / page * page;
  const auto base = reinterpret_cast<std::uintptr_t>(mapping_);
  if (begin < base || end > base + size_ || first >= last) return;
  // A private read-only mapping of a file: dropped pages are read from the file when touched.
  (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

FileBytes FileBytes::mapped(const void* address, std::size_t size) {
  FileBytes bytes;
  bytes.mapping_ = address;
  bytes.size_ = size;
  return bytes;
}

namespace {

// Closes a descriptor when it leaves scope.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

std::string errno_text(int err) {
  return lowercase_first(std::generic_category().message(err));
}

// Walks the top-level fields of a serialized protobuf message as its bytes arrive: each field's
// tag, then its varint, its fixed 4 or 8 bytes, or its length and that many bytes. Bytes that
// cannot be a message (a wire type no field has, a varint longer than 10 bytes, field number 0,
// a length past the end the file may have) are found within a few bytes of where they start, so
// a stream of noise is refused at once instead of being read up to the file limit.
class ProtobufWalk {
 public:
  // The problem with `chunk`, which starts at `offset`, or nothing.
  std::optional<std::string> feed(std::string_view chunk, std::uintmax_t offset,
                                  std::uintmax_t limit, std::string_view message) {
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      const auto byte = static_cast<unsigned char>(chunk[i]);
      const std::uintmax_t at = offset + i;
      if (skip_ > 0) {
        const std::uintmax_t take = std::min<std::uintmax_t>(skip_, chunk.size() - i);
        skip_ -= take;
        i += static_cast<std::size_t>(take) - 1;
        continue;
      }
      if (varint_bytes_ == 0) start_ = at;
      if (varint_bytes_ == 10) {
        return "holds a varint of more than 10 bytes at offset " + std::to_string(start_) +
               "; not a serialized " + std::string(message);
      }
      if (varint_bytes_ < 10 && (varint_bytes_ < 9 || (byte & 0x7F) <= 1)) {
        varint_ |= static_cast<std::uint64_t>(byte & 0x7F) << (7 * varint_bytes_);
      }
      ++varint_bytes_;
      if ((byte & 0x80) != 0) continue;
      const std::uint64_t value = varint_;
      varint_ = 0;
      varint_bytes_ = 0;
      if (auto problem = take(value, at, limit, message)) return problem;
    }
    return std::nullopt;
  }

 private:
  enum class Next : std::uint8_t { tag, varint, length };

  std::optional<std::string> take(std::uint64_t value, std::uintmax_t at, std::uintmax_t limit,
                                  std::string_view message) {
    const std::string not_one = "; not a serialized " + std::string(message);
    switch (next_) {
      case Next::tag: {
        if ((value >> 3) == 0) {
          return "holds field number 0 at offset " + std::to_string(start_) +
                 ", which starts no protobuf field" + not_one;
        }
        switch (value & 7) {
          case 0:
            next_ = Next::varint;
            return std::nullopt;
          case 1:
            skip_ = 8;
            return std::nullopt;
          case 2:
            next_ = Next::length;
            return std::nullopt;
          case 5:
            skip_ = 4;
            return std::nullopt;
          default:
            return "holds a field of wire type " + std::to_string(value & 7) + " at offset " +
                   std::to_string(start_) + ", which no field of an ONNX message has" + not_one;
        }
      }
      case Next::varint:
        next_ = Next::tag;
        return std::nullopt;
      case Next::length:
        next_ = Next::tag;
        if (value > limit || at + 1 + value > limit) {
          return "holds a field at offset " + std::to_string(start_) + " of " +
                 std::to_string(value) + " bytes, which would end past the limit of " +
                 limit_text(limit) + not_one;
        }
        skip_ = value;
        return std::nullopt;
    }
    return std::nullopt;
  }

  Next next_ = Next::tag;
  std::uint64_t varint_ = 0;
  int varint_bytes_ = 0;
  std::uintmax_t start_ = 0;
  std::uintmax_t skip_ = 0;
};

// What a stream is checked against while it is read.
struct StreamState {
  StreamCheck check;
  ProtobufWalk walk;
};

// The problem with a streamed chunk that starts at `offset`, or nothing.
std::optional<std::string> stream_problem(StreamState& state, std::string_view chunk,
                                          std::uintmax_t offset, std::uintmax_t limit,
                                          std::string_view what) {
  StreamCheck& check = state.check;
  if (check == StreamCheck::graph && offset == 0 && !chunk.empty()) {
    check = graph_format_of(chunk) == GraphFileFormat::torchlean_ir ? StreamCheck::json_text
                                                                    : StreamCheck::protobuf;
  }
  switch (check) {
    case StreamCheck::graph:
    case StreamCheck::none:
      return std::nullopt;
    case StreamCheck::json_text:
      if (const auto at = chunk.find('\0'); at != std::string_view::npos) {
        return std::string(what) + " holds a NUL byte at offset " + std::to_string(offset + at) +
               "; a JSON document is text and never holds one";
      }
      return std::nullopt;
    case StreamCheck::protobuf: {
      const std::string_view message = what == "tensor file" ? "TensorProto" : "ModelProto";
      if (offset == 0 && !chunk.empty() && (static_cast<unsigned char>(chunk[0]) >> 3) == 0) {
        return std::string(what) + " starts with byte 0x" +
               fmt_hex(static_cast<unsigned char>(chunk[0])) +
               ", which starts no protobuf field (field number 0); not a serialized " +
               std::string(message);
      }
      if (auto problem = state.walk.feed(chunk, offset, limit, message)) {
        return std::string(what) + " " + *problem;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// Reads the rest of an open pipe or device in chunks, at most `limit` bytes.
Expected<FileBytes> stream_descriptor(int fd, const std::filesystem::path& path,
                                      std::string_view what, std::uintmax_t limit,
                                      StreamCheck check, std::string_view limit_reason) {
  std::string text;
  StreamState state{.check = check, .walk = {}};
  std::array<char, 1 << 16> buffer{};
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::unexpected(file_error(path, cannot_read(what, errno_text(errno))));
    }
    if (n == 0) break;
    const std::string_view chunk(buffer.data(), static_cast<std::size_t>(n));
    if (auto problem = stream_problem(state, chunk, text.size(), limit, what)) {
      return std::unexpected(file_error(path, *problem));
    }
    if (text.size() + chunk.size() > limit) {
      return std::unexpected(file_error(path, std::string(what) + " is larger than the limit of " +
                                                  limit_text(limit) + std::string(limit_reason)));
    }
    text += chunk;
  }
  return FileBytes(std::move(text));
}

}  // namespace

bool is_regular_file(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

Expected<FileBytes> read_bounded_file(const std::filesystem::path& path, std::string_view what,
                                      std::uintmax_t limit, StreamCheck check,
                                      std::string_view limit_reason) {
  try {
    int fd = -1;
    do {
      fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
      const int err = errno;
      return std::unexpected(file_error(
          path, cannot_read(what, err == ENOENT ? std::string("no such file or directory")
                                                : errno_text(err))));
    }
    const Descriptor file(fd);
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
      return std::unexpected(file_error(path, cannot_read(what, errno_text(errno))));
    }
    if (S_ISDIR(info.st_mode)) {
      return std::unexpected(file_error(path, cannot_read(what, "is a directory")));
    }
    if (!S_ISREG(info.st_mode))
      return stream_descriptor(fd, path, what, limit, check, limit_reason);
    const auto size = static_cast<std::uintmax_t>(info.st_size);
    if (size > limit) {
      return std::unexpected(file_error(path, std::string(what) + " is " + std::to_string(size) +
                                                  " bytes; the limit is " + limit_text(limit) +
                                                  std::string(limit_reason)));
    }
    if (size == 0) return FileBytes();
    void* address = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
    // A file system that cannot map (some FUSE and /proc files) is read like a pipe.
    if (address == MAP_FAILED) return stream_descriptor(fd, path, what, limit, check, limit_reason);
    return FileBytes::mapped(address, static_cast<std::size_t>(size));
  } catch (const std::exception& e) {
    return std::unexpected(internal_error(path, e));
  }
}

}  // namespace nnplan::format::detail
