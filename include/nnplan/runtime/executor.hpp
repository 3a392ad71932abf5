// Execution (SPEC §11): runs a compiled command buffer on the calling thread, command after
// command in order, each after its guards. The executor owns its command buffer and the arenas
// the buffer's memory plan sizes, so repeated runs reuse both; graph inputs are read from the
// caller's tensors and outputs written into fresh ones. With a trace it records when each command
// started and how long it took. Runs may come from several threads at once: each takes an arena
// of its own from the executor's pool (a new one when all are in use) and gives it back when it
// ends, and a command's kernel state is used by one run at a time (the onednn handlers hold a
// lock per primitive while it runs), so concurrent runs give what serial runs give.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "nnplan/error.hpp"
#include "nnplan/runtime/command_buffer.hpp"
#include "nnplan/runtime/tensor.hpp"

namespace nnplan::runtime {

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

// When one command ran: nanoseconds from the executor's creation, and its index and run.
struct CommandTiming {
  std::uint32_t command = 0;
  std::uint32_t run = 0;
  std::int64_t start_ns = 0;
  std::int64_t duration_ns = 0;
};

// What really ran, command by command, over every traced run.
struct ExecutionTrace {
  std::vector<CommandTiming> events;
};

class Executor {
 public:
  explicit Executor(CommandBuffer buffer);

  [[nodiscard]] const CommandBuffer& buffer() const { return buffer_; }

  // Runs every command once; safe to call from several threads at once. `inputs` must name each
  // graph input exactly once, with its dtype and shape; otherwise nothing runs and the error is
  // bad_input, naming the input, the expected and the found shape. A guard that refuses a launch
  // stops the run: guard_failed, naming the node, capsule, guard and what it found. The outputs
  // come back in the order of buffer().outputs().
  [[nodiscard]] Expected<std::vector<Tensor>> run(std::span<const NamedTensor> inputs,
                                                  ExecutionTrace* trace = nullptr);

 private:
  struct ArenaDeleter {
    void operator()(std::byte* p) const;
  };
  using Arena = std::unique_ptr<std::byte[], ArenaDeleter>;
  // An arena from the pool, or a new one when every arena is in use; give_back returns it.
  Arena take_arena();
  void give_back(Arena arena);

  CommandBuffer buffer_;
  std::mutex arenas_mutex_;
  std::vector<Arena> idle_arenas_;
  std::int64_t origin_ns_ = 0;
  std::atomic<std::uint32_t> runs_ = 0;
};

}  // namespace nnplan::runtime
