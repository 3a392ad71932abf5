#include "runtime/isolated_call.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace nnplan::runtime {

namespace {

// Writes all of `bytes` to `fd`; false when the pipe breaks.
bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string seconds_text(std::chrono::milliseconds span) {
  const auto ms = span.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

// "killed by signal 11 (Segmentation fault)" or "exited with status 3".
std::string ending_text(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = ::strsignal(sig);
    return "was killed by signal " + std::to_string(sig) +
           (name != nullptr ? " (" + std::string(name) + ")" : std::string());
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended with wait status " + std::to_string(status);
}

constexpr char kAnswerMark[] = "+";

void close_quietly(int fd) {
  if (fd >= 0) ::close(fd);
}

}  // namespace

std::expected<std::string, std::string> call_isolated(std::string_view what,
                                                      const std::function<std::string()>& work,
                                                      std::chrono::milliseconds deadline,
                                                      std::size_t max_bytes) {
  const std::string subject(what);
  int fds[2] = {-1, -1};
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return std::unexpected(subject + " could not start: pipe failed: " + std::strerror(errno));
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    close_quietly(fds[0]);
    close_quietly(fds[1]);
    return std::unexpected(subject + " could not start: fork failed: " + std::strerror(error));
  }
  if (pid == 0) {
    ::close(fds[0]);
    // What the code under test prints (a driver's warnings, a crash report) is not nnplan's
    // output: the answer, or what happened to the child, is.
    if (const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC); null >= 0) {
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
    }
    int code = 0;
    try {
      // The mark says the work returned: a child that exits inside it (status 0 included)
      // sends nothing.
      code = write_all(fds[1], kAnswerMark + work()) ? 0 : 71;
    } catch (...) {
      code = 70;
    }
    ::_exit(code);
  }
  ::close(fds[1]);

  std::string answer;
  std::string failure;
  const auto end = std::chrono::steady_clock::now() + deadline;
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      failure = "did not answer within " + seconds_text(deadline) + " and was stopped";
      break;
    }
    pollfd p{.fd = fds[0], .events = POLLIN, .revents = 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      failure = std::string("could not be read: poll failed: ") + std::strerror(errno);
      break;
    }
    if (ready == 0) continue;  // the deadline check above reports it
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      failure = std::string("could not be read: ") + std::strerror(errno);
      break;
    }
    if (n == 0) break;
    answer.append(buffer, static_cast<std::size_t>(n));
    if (answer.size() > max_bytes) {
      failure = "answered with more than " + std::to_string(max_bytes) + " bytes and was stopped";
      break;
    }
  }
  if (!failure.empty()) ::kill(pid, SIGKILL);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!failure.empty()) return std::unexpected(subject + " " + failure);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || answer.empty()) {
    return std::unexpected(subject + " " + ending_text(status) +
                           (answer.empty() ? " before it answered" : " while it answered"));
  }
  return answer.substr(1);
}

}  // namespace nnplan::runtime
