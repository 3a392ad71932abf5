#include "nnplan/large_memory.hpp"

#include <cstdint>
#include <new>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace nnplan {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

// `n` (a size or an address) rounded up to a multiple of kHugePage.
constexpr std::uintptr_t to_huge_pages(std::uintptr_t n) {
  return (n + kHugePage - 1) / kHugePage * kHugePage;
}

}  // namespace

void* allocate_large(std::size_t size) {
  if (size < kHugePage) return ::operator new(size);
  const std::size_t rounded = to_huge_pages(size);
  void* p = ::operator new (rounded, std::align_val_t{kHugePage});
#ifdef __linux__
  ::madvise(p, rounded, MADV_HUGEPAGE);  // a hint: ordinary pages where not honoured
#endif
  return p;
}

void free_large(void* p, std::size_t size) noexcept {
  if (size < kHugePage) {
    ::operator delete(p, size);
  } else {
    ::operator delete (p, std::align_val_t{kHugePage});
  }
}

}  // namespace nnplan
