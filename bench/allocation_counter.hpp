// Counts heap allocations made by this process, so benchmarks can report allocations per item
// next to throughput (the "allocates nothing per op" promise of the planner is measured, not
// assumed). The counting operator new lives in allocation_counter.cpp.
#pragma once

#include <cstdint>

namespace nnplan::bench {

// Allocations made so far by the whole process.
[[nodiscard]] std::uint64_t allocation_count();

}  // namespace nnplan::bench
