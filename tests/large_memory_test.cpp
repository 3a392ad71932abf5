// LargeBuffer / allocate_large / LargeAllocator: small and huge-page-sized blocks hold what is
// written, large ones are 2 MiB aligned, moves hand the block over, and a vector on the allocator
// keeps its elements across growth past the huge-page size.
#include "nnplan/large_memory.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

namespace nnplan {
namespace {

TEST(LargeBufferTest, HoldsWhatIsWrittenAtEverySize) {
  for (const std::size_t size : {std::size_t{1}, std::size_t{4096}, (std::size_t{2} << 20) - 1,
                                 std::size_t{2} << 20, (std::size_t{5} << 20) + 3}) {
    LargeBuffer buffer(size);
    ASSERT_EQ(buffer.size(), size);
    std::memset(buffer.data(), 'a', size);
    buffer.data()[size / 2] = 'z';
    EXPECT_EQ(buffer.view().size(), size);
    EXPECT_EQ(buffer.view().find('z'), size / 2);
    EXPECT_EQ(buffer.view().find_first_not_of("az"), std::string_view::npos);
  }
}

TEST(LargeBufferTest, BlocksOfTwoMebibytesAndMoreAreHugePageAligned) {
  const LargeBuffer buffer((std::size_t{3} << 20) + 1);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.view().data()) % (std::size_t{2} << 20), 0u);
}

TEST(LargeBufferTest, MovesHandTheBlockOver) {
  LargeBuffer a(std::size_t{2} << 20);
  a.data()[0] = 'a';
  const char* block = a.view().data();
  LargeBuffer b(std::move(a));
  EXPECT_EQ(b.view().data(), block);
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  LargeBuffer c(16);
  c = std::move(b);
  EXPECT_EQ(c.view().data(), block);
  EXPECT_EQ(c.view().front(), 'a');
}

TEST(LargeAllocatorTest, VectorGrowsAcrossTheHugePageSizeKeepingItsElements) {
  std::vector<std::uint64_t, LargeAllocator<std::uint64_t>> v;
  const std::size_t n = (std::size_t{5} << 20) / sizeof(std::uint64_t);  // 5 MiB of elements
  for (std::size_t i = 0; i < n; ++i)
    v.push_back(i * 7);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % (std::size_t{2} << 20), 0u);
  for (std::size_t i = 0; i < n; i += 4099)
    ASSERT_EQ(v[i], i * 7) << i;
  v.resize(3);
  v.shrink_to_fit();
  EXPECT_EQ(v.back(), 14u);
}

TEST(LargeAllocatorTest, HoldsNonTrivialElementsAcrossCopies) {
  std::vector<std::string, LargeAllocator<std::string>> names(100000, "a name longer than SSO");
  names[99999] = "last";
  const std::vector<std::string, LargeAllocator<std::string>> copy = names;
  EXPECT_EQ(copy.front(), "a name longer than SSO");
  EXPECT_EQ(copy.back(), "last");
  EXPECT_EQ(copy.size(), 100000u);
}

TEST(LargeAllocatorTest, RefusesACountWhoseBytesOverflow) {
  LargeAllocator<std::uint64_t> alloc;
  EXPECT_THROW((void)alloc.allocate(std::numeric_limits<std::size_t>::max() / 4),
               std::bad_array_new_length);
}

// Zeroed blocks read zero everywhere, below and past the huge-page size (where they are mapped
// straight from the system), large ones are 2 MiB aligned, and a block freed after being written
// does not leak its bytes into the next one.
TEST(LargeMemoryTest, ZeroedBlocksAreZeroAndUsable) {
  for (const std::size_t size : {std::size_t{1}, std::size_t{4096}, (std::size_t{2} << 20) - 1,
                                 std::size_t{2} << 20, (std::size_t{5} << 20) + 123}) {
    for (int round = 0; round < 2; ++round) {
      auto* p = static_cast<unsigned char*>(allocate_large_zeroed(size));
      ASSERT_NE(p, nullptr);
      if (size >= (std::size_t{2} << 20)) {
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % (std::size_t{2} << 20), 0u) << size;
      }
      bool zero = true;
      for (std::size_t i = 0; i < size; i += 509)
        zero = zero && p[i] == 0;
      EXPECT_TRUE(zero && p[size - 1] == 0) << size << " round " << round;
      std::memset(p, 0xAB, size);  // every byte writable
      free_large_zeroed(p, size);
    }
  }
}

}  // namespace
}  // namespace nnplan
