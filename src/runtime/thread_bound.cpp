// The thread bound's checks (runtime/thread_bound.hpp).
#include "nnplan/runtime/thread_bound.hpp"

#include <sched.h>

#include <algorithm>
#include <string>
#include <thread>

namespace nnplan::runtime {

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

int max_threads() {
  return kThreadsPerCpu * usable_cpus();
}

std::string thread_range() {
  return "1 to " + std::to_string(max_threads()) + " (" + std::to_string(kThreadsPerCpu) +
         " per logical CPU this process may run on, of which there are " +
         std::to_string(usable_cpus()) + ")";
}

Expected<void> check_threads(long long threads, std::string_view option) {
  if (threads >= 0 && threads <= max_threads()) return {};
  const std::string range = thread_range();
  if (threads < 0) {
    return std::unexpected(
        make_error(ErrorKind::invalid_input, std::string(option) + " " + std::to_string(threads) +
                                                 ": needs at least 1 thread; give " + range));
  }
  return std::unexpected(make_error(ErrorKind::invalid_input,
                                    std::string(option) + " " + std::to_string(threads) +
                                        ": more threads than this machine can use; give " + range));
}

}  // namespace nnplan::runtime
