// A call made in a child process with a deadline, for code nnplan does not trust to return: the
// probe loads and queries the CUDA driver and cuBLAS this way (cuda_probe.cpp), so that a driver
// that crashes, aborts, hangs or calls exit() ends the child and becomes a finding, never the end
// of the nnplan process. The child sends its answer back as bytes over a pipe.
#pragma once

#include <chrono>
#include <cstddef>
#include <expected>
#include <functional>
#include <string>
#include <string_view>

namespace nnplan::runtime {

// Runs `work` in a forked child and returns the bytes it returned. Fails, with a sentence that
// begins with `what` and says what happened to the child, when the child ends by a signal
// ("... was killed by signal 11 (Segmentation fault)"), exits before answering ("... exited with
// status 0 before it answered"), sends more than `max_bytes`, or has not finished when `deadline`
// has passed (it is then killed: "... did not answer within 10 s and was stopped"); a child
// that closes its pipe without answering is given the rest of the deadline to end and is then
// killed; one that outlives even that (stuck in the kernel) is left unreaped. Calls take turns.
// The child runs only `work` and then ends with _exit, so no destructor or exit handler of this
// process runs twice; stdio is flushed before the fork so no buffered output is written twice,
// and the child's stdout and stderr go to /dev/null (what `work` prints is not this process's
// output). The child's answer is framed with its length, so one cut short is never taken whole.
[[nodiscard]] std::expected<std::string, std::string> call_isolated(
    std::string_view what, const std::function<std::string()>& work,
    std::chrono::milliseconds deadline, std::size_t max_bytes);

}  // namespace nnplan::runtime
