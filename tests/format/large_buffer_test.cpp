// LargeBuffer / allocate_large: small and huge-page-sized blocks hold what is written, large ones
// are 2 MiB aligned, and moves hand the block over.
#include "nnplan/format/large_buffer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace nnplan::format {
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

}  // namespace
}  // namespace nnplan::format
