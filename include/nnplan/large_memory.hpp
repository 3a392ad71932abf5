// Memory for the large arrays that planning fills once and reads through: the IR graph's node
// array, the planned node kernels and the lowered groups (LargeAllocator). Blocks of 2 MiB and more
// are 2 MiB aligned and, on Linux, marked for transparent huge pages, so a graph of millions of
// nodes is not faulted in one 4 KiB page at a time. Purely a hint: where it is not honoured the
// blocks are ordinary memory. docs/benchmarks.md has what it is worth.
#pragma once

#include <cstddef>
#include <limits>
#include <new>

namespace nnplan {

// `size` bytes, uninitialized; release with free_large(p, size).
[[nodiscard]] void* allocate_large(std::size_t size);
void free_large(void* p, std::size_t size) noexcept;

// A standard allocator over allocate_large: a std::vector that grows past 2 MiB gets huge pages.
template <class T>
struct LargeAllocator {
  using value_type = T;

  LargeAllocator() = default;
  template <class U>
  explicit(false) LargeAllocator(const LargeAllocator<U>& /*other*/) noexcept {}

  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocate_large(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { free_large(p, n * sizeof(T)); }

  template <class U>
  bool operator==(const LargeAllocator<U>& /*other*/) const noexcept {
    return true;
  }
};

}  // namespace nnplan
