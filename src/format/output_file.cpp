// Output files written through a temporary in the same directory and renamed into place
// (nnplan/format/output_file.hpp). POSIX calls, so every write, sync, close and rename is checked
// and its errno reported.
#include "nnplan/format/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <exception>
#include <string>
#include <system_error>
#include <vector>

#include "message_text.hpp"
#include "nnplan/exception_boundary.hpp"

namespace nnplan::format {

namespace fs = std::filesystem;

namespace {

using detail::lowercase_first;

Error write_error(const fs::path& path, int err) {
  return make_error(ErrorKind::invalid_input,
                    path.string() + ": cannot write output file: " +
                        lowercase_first(std::generic_category().message(err)));
}

// Whether `path` exists and is something a rename cannot replace: a character device or FIFO.
bool written_in_place(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  return S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
}

// Writes every byte to `fd`; the errno of the first failure, else 0.
int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

// `bytes` written straight to the device or FIFO at `path`.
Expected<void> write_in_place(const fs::path& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return std::unexpected(write_error(path, errno));
  const int err = write_all(fd, bytes);
  const int closed = ::close(fd) == 0 ? 0 : errno;
  if (err != 0) return std::unexpected(write_error(path, err));
  if (closed != 0) return std::unexpected(write_error(path, closed));
  return {};
}

}  // namespace

fs::path written_file(const fs::path& path) {
  std::error_code ec;
  fs::path p = path;
  // Follows at most 40 links, as the kernel does (ELOOP past that).
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  const fs::path resolved = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? p.lexically_normal() : resolved;
}

namespace {

// The file a write to `path` replaces: the target of a symbolic link, else `path` itself.
fs::path rename_target(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
  return written_file(path);
}

// Creates `<dir>/.<name>.XXXXXX` beside `target` (mode 0666 less the umask, or the mode of the
// file it replaces) and writes, syncs and closes it; its path, or the error after removing it.
Expected<fs::path> write_temporary(const fs::path& target, const fs::path& shown,
                                   std::string_view bytes) {
  static std::atomic<unsigned> counter{0};
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  const std::string stem = "." + target.filename().string() + ".";
  constexpr char kDigits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  fs::path temp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    // Names differ by process and call; O_EXCL makes a collision a retry, never a clobber.
    unsigned seed = static_cast<unsigned>(::getpid()) * 2654435761U + counter.fetch_add(1);
    std::string suffix(6, 'a');
    for (char& c : suffix) {
      seed = seed * 1103515245U + 12345U;
      c = kDigits[(seed >> 16) % 36];
    }
    temp = dir / (stem + suffix);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) return std::unexpected(write_error(shown, errno));
  }
  if (fd < 0) return std::unexpected(write_error(shown, EEXIST));
  int err = 0;
  struct stat old {};
  if (::stat(target.c_str(), &old) == 0 && S_ISREG(old.st_mode) &&
      ::fchmod(fd, old.st_mode & 07777) != 0) {
    err = errno;
  }
  if (err == 0) err = write_all(fd, bytes);
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(temp.c_str());
    return std::unexpected(write_error(shown, err));
  }
  return temp;
}

// One output on its way: where it goes and, unless it was written in place, its temporary.
struct Pending {
  fs::path shown;
  fs::path target;
  fs::path temp;
};

void remove_temporaries(std::span<const Pending> pending) {
  for (const Pending& p : pending) {
    if (!p.temp.empty()) ::unlink(p.temp.c_str());
  }
}

Expected<void> write_all_files(std::span<const OutputFile> files,
                               std::span<const fs::path> inputs) {
  for (const OutputFile& file : files) {
    if (auto ok = check_output_path(file.path, inputs); !ok) return ok;
    // A directory cannot be renamed over: refused before any file is written, not at the
    // renames, when the files before it would already be in place.
    std::error_code ec;
    if (fs::is_directory(rename_target(file.path), ec)) {
      return std::unexpected(write_error(file.path, EISDIR));
    }
  }
  std::vector<Pending> pending;
  pending.reserve(files.size());
  for (const OutputFile& file : files) {
    if (written_in_place(file.path)) {
      if (auto ok = write_in_place(file.path, file.bytes); !ok) {
        remove_temporaries(pending);
        return ok;
      }
      continue;
    }
    const fs::path target = rename_target(file.path);
    auto temp = write_temporary(target, file.path, file.bytes);
    if (!temp) {
      remove_temporaries(pending);
      return std::unexpected(std::move(temp.error()));
    }
    pending.push_back(Pending{.shown = file.path, .target = target, .temp = std::move(*temp)});
  }
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (std::rename(pending[i].temp.c_str(), pending[i].target.c_str()) == 0) continue;
    Error error = write_error(pending[i].shown, errno);
    remove_temporaries(std::span(pending).subspan(i));
    if (i > 0) {
      std::string done;
      for (std::size_t j = 0; j < i; ++j)
        done += (j == 0 ? "" : ", ") + pending[j].shown.string();
      error.message += "; " + done + (i == 1 ? " was" : " were") + " already written";
    }
    return std::unexpected(std::move(error));
  }
  return {};
}

}  // namespace

Expected<void> check_output_path(const fs::path& path, std::span<const fs::path> inputs) {
  try {
    std::error_code ec;
    const fs::file_status out = fs::status(path, ec);
    // A device or FIFO is written in place; writing it destroys no file.
    if (fs::is_character_file(out) || fs::is_fifo(out) || fs::is_socket(out)) return {};
    const bool out_exists = fs::exists(out);
    for (const fs::path& input : inputs) {
      bool same = false;
      if (out_exists && fs::exists(input, ec)) {
        same = fs::equivalent(path, input, ec) && !ec;
      } else {
        const fs::path a = fs::absolute(path, ec).lexically_normal();
        const fs::path b = fs::absolute(input, ec).lexically_normal();
        same = a == b;
      }
      if (same) {
        return std::unexpected(make_error(
            ErrorKind::invalid_input, path.string() + ": the output would overwrite the input " +
                                          input.string() + "; choose another output path"));
      }
    }
    return {};
  } catch (const std::exception& e) {
    return std::unexpected(error_from_exception("checking output file " + path.string(), e));
  }
}

Expected<void> write_file_atomically(const fs::path& path, std::string_view bytes,
                                     std::span<const fs::path> inputs) {
  try {
    const OutputFile file{.path = path, .bytes = bytes};
    return write_all_files(std::span(&file, 1), inputs);
  } catch (const std::exception& e) {
    return std::unexpected(error_from_exception("writing output file " + path.string(), e));
  }
}

Expected<void> write_files_atomically(std::span<const OutputFile> files,
                                      std::span<const fs::path> inputs) {
  try {
    return write_all_files(files, inputs);
  } catch (const std::exception& e) {
    return std::unexpected(error_from_exception("writing output files", e));
  }
}

}  // namespace nnplan::format
