// The memory plan of a command buffer (SPEC §11): one arena holds every intermediate value, and a
// value's bytes are reused once its last reader has run. Values are placed first-fit, in the
// order their commands run, at 64-byte aligned offsets; a value whose handler declared itself
// safe in place takes over its first input's buffer when that input dies at this command and has
// the same size. Graph inputs, outputs and weights live outside the arena and are not planned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace nnplan::runtime {

inline constexpr std::size_t kArenaAlignment = 64;

// One intermediate value: its size, the command that writes it and the last command that reads
// it (equal to `defined_at` when nothing reads it).
struct ArenaValue {
  std::size_t bytes = 0;
  std::uint32_t defined_at = 0;
  std::uint32_t last_use = 0;
  // The index (in the planned list) of the value this one may overwrite in place, when its
  // handler is in-place safe and that value is its first input.
  std::optional<std::uint32_t> in_place_of;
};

struct MemoryPlan {
  std::vector<std::size_t> offsets;  // one per value, in the order given
  std::size_t peak_bytes = 0;        // the arena's size
  std::size_t no_reuse_bytes = 0;    // the sum of every value's aligned size
  std::size_t in_place_count = 0;    // values placed in their input's buffer
};

// Plans `values`, given in the order their commands run (non-decreasing `defined_at`; every
// `in_place_of` names an earlier value). Two values share bytes only when one's last use comes
// before the other is defined, or when the second takes the first over in place at the first's
// last use.
[[nodiscard]] MemoryPlan plan_memory(std::span<const ArenaValue> values);

}  // namespace nnplan::runtime
