#include "nnplan/large_memory.hpp"

#include <cstdint>
#include <cstdlib>
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

void* allocate_large_zeroed(std::size_t size) {
#ifdef __linux__
  if (size >= kHugePage) {
    // Mapped with a huge page's slack and trimmed to a 2 MiB aligned block.
    const std::size_t rounded = to_huge_pages(size);
    void* mapped = ::mmap(nullptr, rounded + kHugePage, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(mapped);
    const std::uintptr_t aligned = to_huge_pages(start);
    if (aligned != start) ::munmap(mapped, aligned - start);
    const std::size_t tail = start + kHugePage - aligned;
    if (tail != 0) ::munmap(reinterpret_cast<void*>(aligned + rounded), tail);
    ::madvise(reinterpret_cast<void*>(aligned), rounded, MADV_HUGEPAGE);  // a hint, as above
    return reinterpret_cast<void*>(aligned);
  }
#endif
  void* p = std::calloc(size == 0 ? 1 : size, 1);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void free_large_zeroed(void* p, std::size_t size) noexcept {
  if (p == nullptr) return;
#ifdef __linux__
  if (size >= kHugePage) {
    ::munmap(p, to_huge_pages(size));
    return;
  }
#endif
  (void)size;
  std::free(p);
}

void free_large(void* p, std::size_t size) noexcept {
  if (size < kHugePage) {
    ::operator delete(p, size);
  } else {
    ::operator delete (p, std::align_val_t{kHugePage});
  }
}

}  // namespace nnplan
