// allocate_large / LargeAllocator: small and huge-page-sized blocks hold what is written, large
// ones are 2 MiB aligned, and a vector on the allocator keeps its elements across growth past the
// huge-page size.
#include "nnplan/large_memory.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <vector>

namespace nnplan {
namespace {

TEST(LargeMemoryTest, BlocksHoldWhatIsWrittenAtEverySizeAndLargeOnesAreAligned) {
  for (const std::size_t size : {std::size_t{1}, std::size_t{4096}, (std::size_t{2} << 20) - 1,
                                 std::size_t{2} << 20, (std::size_t{5} << 20) + 3}) {
    auto* p = static_cast<char*>(allocate_large(size));
    ASSERT_NE(p, nullptr);
    if (size >= (std::size_t{2} << 20)) {
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % (std::size_t{2} << 20), 0u) << size;
    }
    std::memset(p, 'a', size);
    p[size / 2] = 'z';
    const std::string_view view(p, size);
    EXPECT_EQ(view.find('z'), size / 2);
    EXPECT_EQ(view.find_first_not_of("az"), std::string_view::npos);
    free_large(p, size);
  }
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

}  // namespace
}  // namespace nnplan
