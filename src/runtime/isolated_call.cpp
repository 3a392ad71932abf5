#include "runtime/isolated_call.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

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

// The answer inside the child's frame ("+<length>:<answer>"), or nothing when the frame is not
// whole.
std::optional<std::string> unframed(const std::string& framed) {
  if (!framed.starts_with(kAnswerMark)) return std::nullopt;
  const std::size_t colon = framed.find(':');
  if (colon == std::string::npos || colon < 2 || colon > 21) return std::nullopt;
  std::size_t length = 0;
  const char* first = framed.data() + 1;
  const auto [last, ec] = std::from_chars(first, framed.data() + colon, length);
  if (ec != std::errc{} || last != framed.data() + colon || framed.size() - colon - 1 != length) {
    return std::nullopt;
  }
  return framed.substr(colon + 1);
}

// Waits for `pid` until `until`, killing it at `kill_at` if it is still there. The child's wait
// status, or nothing when it did not end in time (a process stuck in the kernel outlives
// SIGKILL; it is left unreaped, a process-table entry until nnplan exits) or cannot be waited for
// (a host that reaps every child itself: ECHILD).
std::optional<int> wait_for(pid_t pid, std::chrono::steady_clock::time_point kill_at,
                            std::chrono::steady_clock::time_point until) {
  bool killed = false;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) return std::nullopt;
    const auto now = std::chrono::steady_clock::now();
    if (!killed && now >= kill_at) {
      ::kill(pid, SIGKILL);
      killed = true;
    }
    if (now >= until) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// One isolated call at a time: a child forked while another call's pipe is open would hold that
// pipe's write end and keep it from ending.
std::mutex one_call_at_a_time;

void close_quietly(int fd) {
  if (fd >= 0) ::close(fd);
}

}  // namespace

std::expected<std::string, std::string> call_isolated(std::string_view what,
                                                      const std::function<std::string()>& work,
                                                      std::chrono::milliseconds deadline,
                                                      std::size_t max_bytes) {
  const std::string subject(what);
  const std::lock_guard<std::mutex> lock(one_call_at_a_time);
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
      // The frame says the work returned and how much it answered: a child that exits inside
      // it (status 0 included) sends nothing, one killed while writing sends less than it says.
      const std::string answer = work();
      code = write_all(fds[1], kAnswerMark + std::to_string(answer.size()) + ":" + answer) ? 0 : 71;
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
  // A child that closed its pipe is given what is left of the deadline to end, and a moment
  // more once killed.
  const auto now = std::chrono::steady_clock::now();
  const auto status = wait_for(pid, failure.empty() ? std::max(end, now) : now,
                               std::max(end, now) + std::chrono::seconds(1));
  if (!failure.empty()) return std::unexpected(subject + " " + failure);
  std::optional<std::string> whole = unframed(answer);
  if (!status) {
    // Its end cannot be seen; a whole answer is still the child's answer.
    if (whole) return std::move(*whole);
    return std::unexpected(subject +
                           " left no whole answer, and its end could not be seen within " +
                           seconds_text(deadline));
  }
  if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0 || !whole) {
    return std::unexpected(subject + " " + ending_text(*status) +
                           (answer.empty() ? " before it answered" : " while it answered"));
  }
  return std::move(*whole);
}

}  // namespace nnplan::runtime
