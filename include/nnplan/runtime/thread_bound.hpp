// The bound on the threads a compiled buffer's onednn commands may be given
// (KernelSettings::threads; `nnplan run --threads`, Python's `threads=`). More threads than
// logical CPUs only queue behind each other, and tens of thousands exhaust what the process may
// create (OpenMP then stops the process or crashes in it), so compile refuses a bound past
// kThreadsPerCpu per logical CPU this process may run on, with a message saying what it takes.
#pragma once

#include <string>
#include <string_view>

#include "nnplan/error.hpp"

namespace nnplan::runtime {

inline constexpr int kThreadsPerCpu = 4;

// The logical CPUs this process may run on (its affinity mask), at least 1.
[[nodiscard]] int usable_cpus();

// The largest thread bound compile takes: kThreadsPerCpu * usable_cpus().
[[nodiscard]] int max_threads();

// The bounds compile takes, as messages say them: "1 to 8 (4 per logical CPU ...)".
[[nodiscard]] std::string thread_range();

// Whether `threads` is a bound compile takes: 0 (every core) or 1 to max_threads(). Otherwise
// invalid_input, naming the value as `option` spells it (`--threads`, `threads=`) and the range.
[[nodiscard]] Expected<void> check_threads(long long threads, std::string_view option);

}  // namespace nnplan::runtime
