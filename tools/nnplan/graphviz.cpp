#include "graphviz.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

extern char** environ;

namespace nnplan::cli {

namespace {

// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

std::string system_reason(std::string_view doing, int error) {
  return std::string(doing) + ": " + std::strerror(error);
}

// An unlinked temporary file holding `text`, positioned at its start, for dot's standard input.
// A file rather than a pipe: dot reads all of its input before it writes, so nothing can block
// and no write can meet a closed pipe.
std::expected<int, std::string> input_file(std::string_view text) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::string name = (dir / "nnplan-dot-XXXXXX").string();
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) return std::unexpected(system_reason("cannot create a file for dot's input", errno));
  ::unlink(name.c_str());
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int saved = n < 0 ? errno : EIO;
      ::close(fd);
      return std::unexpected(system_reason("cannot write dot's input", saved));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::lseek(fd, 0, SEEK_SET) != 0) {
    const int saved = errno;
    ::close(fd);
    return std::unexpected(system_reason("cannot rewind dot's input", saved));
  }
  return fd;
}

}  // namespace

std::expected<std::string, std::string> render_svg(std::string_view dot_document,
                                                   std::chrono::milliseconds limit,
                                                   std::size_t max_output_bytes) {
  auto input = input_file(dot_document);
  if (!input) return std::unexpected(input.error());
  Fd in{*input};
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return std::unexpected(system_reason("cannot make a pipe for dot", errno));
  }
  Fd out_read{pipe_fds[0]};
  Fd out_write{pipe_fds[1]};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  char arg0[] = "dot";
  char arg1[] = "-Tsvg";
  char* argv[] = {arg0, arg1, nullptr};
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, "dot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned == ENOENT) return std::unexpected("graphviz (dot) was not found on PATH");
  if (spawned != 0) return std::unexpected(system_reason("cannot start graphviz (dot)", spawned));
  out_write.reset();
  in.reset();

  std::string svg;
  std::string failure;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  char buffer[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      failure = "graphviz (dot) ran past " + std::to_string(limit.count() / 1000) +
                " seconds and was stopped";
      break;
    }
    pollfd p{.fd = out_read.fd, .events = POLLIN, .revents = 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      failure = system_reason("cannot read graphviz (dot) output", errno);
      break;
    }
    if (ready == 0) continue;  // the deadline check above reports it
    const ssize_t n = ::read(out_read.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      failure = system_reason("cannot read graphviz (dot) output", errno);
      break;
    }
    if (n == 0) break;
    svg.append(buffer, static_cast<std::size_t>(n));
    if (svg.size() > max_output_bytes) {
      failure = "graphviz (dot) wrote more than " + std::to_string(max_output_bytes >> 20) +
                " MiB of SVG";
      break;
    }
  }
  if (!failure.empty()) ::kill(pid, SIGKILL);
  out_read.reset();
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!failure.empty()) return std::unexpected(failure);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return std::unexpected(WIFEXITED(status) ? "graphviz (dot) failed with exit code " +
                                                   std::to_string(WEXITSTATUS(status))
                                             : std::string("graphviz (dot) was ended by signal ") +
                                                   std::to_string(WTERMSIG(status)));
  }
  return svg;
}

}  // namespace nnplan::cli
