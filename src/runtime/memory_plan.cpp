#include "nnplan/runtime/memory_plan.hpp"

#include <algorithm>

namespace nnplan::runtime {
namespace {

std::size_t aligned_size(std::size_t bytes) {
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

// A block of the arena held by a live value.
struct LiveBlock {
  std::size_t offset = 0;
  std::size_t size = 0;
  std::uint32_t last_use = 0;
  std::uint32_t value = 0;
};

}  // namespace

MemoryPlan plan_memory(std::span<const ArenaValue> values) {
  MemoryPlan plan;
  plan.offsets.assign(values.size(), 0);
  std::vector<LiveBlock> live;  // sorted by offset
  for (std::uint32_t i = 0; i < values.size(); ++i) {
    const ArenaValue& v = values[i];
    const std::size_t size = aligned_size(v.bytes);
    plan.no_reuse_bytes += size;

    // A value read by this command is still live here; one whose last reader ran earlier is
    // free.
    std::erase_if(live, [&](const LiveBlock& b) { return b.last_use < v.defined_at; });

    if (v.in_place_of) {
      const auto it = std::ranges::find(live, *v.in_place_of, &LiveBlock::value);
      if (it != live.end() && it->last_use == v.defined_at && it->size == size) {
        it->value = i;
        it->last_use = v.last_use;
        plan.offsets[i] = it->offset;
        ++plan.in_place_count;
        continue;
      }
    }

    // First fit: the lowest gap between live blocks that holds the value, else the end.
    std::size_t offset = 0;
    auto pos = live.begin();
    for (; pos != live.end(); ++pos) {
      if (pos->offset >= offset + size) break;
      offset = std::max(offset, pos->offset + pos->size);
    }
    live.insert(pos, LiveBlock{.offset = offset, .size = size, .last_use = v.last_use, .value = i});
    plan.offsets[i] = offset;
    plan.peak_bytes = std::max(plan.peak_bytes, offset + size);
  }
  return plan;
}

}  // namespace nnplan::runtime
