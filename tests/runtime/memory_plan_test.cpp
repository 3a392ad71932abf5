// plan_memory (runtime/memory_plan.hpp): hand-worked plans (a chain, in-place takeover and its
// refusals, a diamond, zero-byte values) and seeded random value lists checked against the plan's
// promises: no two live values share a byte unless one takes the other over in place at the
// other's last use, every offset is 64-byte aligned, the peak is the highest end, and the
// no-reuse sum is the sum of aligned sizes.
#include "nnplan/runtime/memory_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace nnplan::runtime {
namespace {

std::size_t aligned(std::size_t bytes) {
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

ArenaValue value(std::size_t bytes, std::uint32_t defined_at, std::uint32_t last_use,
                 std::optional<std::uint32_t> in_place_of = std::nullopt) {
  return {.bytes = bytes, .defined_at = defined_at, .last_use = last_use, .in_place_of = in_place_of};
}

struct HandCase {
  std::string name;
  std::vector<ArenaValue> values;
  std::vector<std::size_t> offsets;
  std::size_t peak_bytes;
  std::size_t no_reuse_bytes;
  std::size_t in_place_count;
};

TEST(MemoryPlan, HandWorkedPlans) {
  const std::vector<HandCase> cases = {
      {"empty", {}, {}, 0, 0, 0},
      // Each value is read by the next command only: two buffers alternate.
      {"chain_reuses_two_buffers",
       {value(100, 0, 1), value(100, 1, 2), value(100, 2, 3), value(100, 3, 4), value(100, 4, 4)},
       {0, 128, 0, 128, 0},
       256,
       640,
       0},
      // The input dies at the command that writes the second value, with the same size.
      {"in_place_takeover", {value(100, 0, 1), value(100, 1, 2, 0)}, {0, 0}, 128, 256, 1},
      // A chain of takeovers keeps one buffer.
      {"in_place_chain",
       {value(256, 0, 1), value(256, 1, 2, 0), value(256, 2, 3, 1)},
       {0, 0, 0},
       256,
       768,
       2},
      // The input is read again by command 2, so command 1 may not overwrite it.
      {"in_place_refused_input_read_later",
       {value(100, 0, 2), value(100, 1, 2, 0), value(64, 2, 2)},
       {0, 128, 256},
       320,
       320,
       0},
      {"in_place_refused_sizes_differ", {value(100, 0, 1), value(200, 1, 2, 0)}, {0, 128}, 384, 384,
       0},
      // The input died before (last read at 0): nothing to take over, placed first fit at 0.
      {"in_place_refused_input_already_dead",
       {value(64, 0, 0), value(64, 1, 1, 0)},
       {0, 0},
       64,
       128,
       0},
      // 0 -> {1, 2} -> 3: both branches live together; the join reuses the source's bytes.
      {"diamond_keeps_both_branches_live",
       {value(100, 0, 2), value(100, 1, 3), value(100, 2, 3), value(100, 3, 3)},
       {0, 128, 256, 0},
       384,
       512,
       0},
      // First fit: a freed 64-byte gap is too small for the 128-byte value and taken by the next.
      {"first_fit_skips_small_gap",
       {value(64, 0, 1), value(64, 0, 3), value(128, 2, 3), value(64, 2, 3)},
       {0, 64, 128, 0},
       256,
       320,
       0},
      {"zero_byte_values",
       {value(0, 0, 2), value(64, 0, 2), value(0, 1, 2), value(1, 2, 2)},
       {0, 0, 0, 64},
       128,
       128,
       0},
  };
  for (const HandCase& c : cases) {
    SCOPED_TRACE(c.name);
    const MemoryPlan plan = plan_memory(c.values);
    EXPECT_EQ(plan.offsets, c.offsets);
    EXPECT_EQ(plan.peak_bytes, c.peak_bytes);
    EXPECT_EQ(plan.no_reuse_bytes, c.no_reuse_bytes);
    EXPECT_EQ(plan.in_place_count, c.in_place_count);
  }
}

// Whether [a, a + n) and [b, b + m) share a byte.
bool bytes_overlap(std::size_t a, std::size_t n, std::size_t b, std::size_t m) {
  return n > 0 && m > 0 && a < b + m && b < a + n;
}

// Whether the lifetimes [defined_at, last_use] of two values share a command.
bool lifetimes_overlap(const ArenaValue& a, const ArenaValue& b) {
  return a.defined_at <= b.last_use && b.defined_at <= a.last_use;
}

// Whether `later` may take `earlier` over in place: it claims it, `earlier` dies at the command
// that defines `later`, and their aligned sizes are equal.
bool legal_in_place(const std::vector<ArenaValue>& values, std::uint32_t earlier,
                    std::uint32_t later) {
  const ArenaValue& e = values[earlier];
  const ArenaValue& l = values[later];
  return l.in_place_of == earlier && e.last_use == l.defined_at &&
         aligned(e.bytes) == aligned(l.bytes);
}

// A random value list in command order. With `one_per_command` every command defines one value
// (as compile makes them) and values claim in-place takeovers, often of a value that dies at
// their command; otherwise several values may share a command and none claims.
std::vector<ArenaValue> random_values(std::mt19937_64& rng, bool one_per_command) {
  const auto n = std::uniform_int_distribution<std::uint32_t>(1, 200)(rng);
  const std::vector<std::size_t> sizes = {0, 1, 4, 63, 64, 65, 128, 200, 256, 1000, 4096};
  std::vector<ArenaValue> values;
  std::uint32_t command = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (one_per_command) {
      command = i;
    } else if (i > 0 && rng() % 3 != 0) {
      ++command;
    }
    ArenaValue v;
    // Mostly a few common sizes, so in-place claims often match; sometimes any size.
    v.bytes = rng() % 4 == 0 ? rng() % 5000 : sizes[rng() % sizes.size()];
    v.defined_at = command;
    v.last_use = command + static_cast<std::uint32_t>(rng() % 2 == 0 ? rng() % 4 : rng() % 40);
    values.push_back(v);
  }
  if (!one_per_command) return values;
  for (std::uint32_t i = 1; i < n; ++i) {
    if (rng() % 2 == 0) continue;
    std::vector<std::uint32_t> dying;
    for (std::uint32_t j = 0; j < i; ++j) {
      if (values[j].last_use == values[i].defined_at) dying.push_back(j);
    }
    if (!dying.empty() && rng() % 4 != 0) {
      const std::uint32_t j = dying[rng() % dying.size()];
      values[i].in_place_of = j;
      // Usually the same size, as compile claims only then.
      if (rng() % 4 != 0) values[i].bytes = values[j].bytes;
    } else {
      values[i].in_place_of = static_cast<std::uint32_t>(rng() % i);
    }
  }
  return values;
}

TEST(MemoryPlan, RandomValueListsKeepLiveValuesApart) {
  std::mt19937_64 rng(20261201);
  std::size_t total_in_place = 0;
  std::size_t total_reused = 0;
  for (int iteration = 0; iteration < 600; ++iteration) {
    const bool one_per_command = iteration % 3 != 2;
    const std::vector<ArenaValue> values = random_values(rng, one_per_command);
    SCOPED_TRACE("iteration " + std::to_string(iteration) + ", " + std::to_string(values.size()) +
                 " values");
    const MemoryPlan plan = plan_memory(values);
    ASSERT_EQ(plan.offsets.size(), values.size());

    std::size_t no_reuse = 0;
    std::size_t highest_end = 0;
    std::size_t expected_in_place = 0;
    for (std::uint32_t i = 0; i < values.size(); ++i) {
      no_reuse += aligned(values[i].bytes);
      EXPECT_EQ(plan.offsets[i] % kArenaAlignment, 0U) << "value " << i;
      highest_end = std::max(highest_end, plan.offsets[i] + aligned(values[i].bytes));
      // A legal claim is honoured: the value sits in its input's buffer. (Each command defines
      // one value, so no other value can have taken the input's buffer first.)
      if (values[i].in_place_of && legal_in_place(values, *values[i].in_place_of, i)) {
        ++expected_in_place;
        EXPECT_EQ(plan.offsets[i], plan.offsets[*values[i].in_place_of]) << "value " << i;
      }
    }
    EXPECT_EQ(plan.no_reuse_bytes, no_reuse);
    EXPECT_EQ(plan.peak_bytes, highest_end);
    EXPECT_LE(plan.peak_bytes, plan.no_reuse_bytes);
    EXPECT_EQ(plan.in_place_count, expected_in_place);
    total_in_place += plan.in_place_count;
    total_reused += plan.peak_bytes < plan.no_reuse_bytes ? 1 : 0;

    for (std::uint32_t i = 0; i < values.size(); ++i) {
      for (std::uint32_t j = i + 1; j < values.size(); ++j) {
        if (!lifetimes_overlap(values[i], values[j])) continue;
        if (!bytes_overlap(plan.offsets[i], aligned(values[i].bytes), plan.offsets[j],
                           aligned(values[j].bytes))) {
          continue;
        }
        EXPECT_TRUE(legal_in_place(values, i, j))
            << "values " << i << " [" << values[i].defined_at << ", " << values[i].last_use
            << "] and " << j << " [" << values[j].defined_at << ", " << values[j].last_use
            << "] are live together and share bytes at offsets " << plan.offsets[i] << " and "
            << plan.offsets[j];
      }
    }
  }
  // The generator exercises both reuse and in-place takeover.
  EXPECT_GT(total_in_place, 1000U);
  EXPECT_GT(total_reused, 300U);
}

}  // namespace
}  // namespace nnplan::runtime
