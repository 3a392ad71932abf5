// Memory for large arrays that are filled once and read through: an ONNX file's bytes, the parsed
// message's arena blocks, the importer's name table, and the IR graph's node array
// (LargeAllocator). Blocks of 2 MiB and more are 2 MiB aligned and, on Linux, marked for
// transparent huge pages: a 47 MB model then costs two dozen page faults instead of eleven
// thousand, each of which also zeroes a fresh page (touching 22 MB on the development VM: about
// 7 ms in 4 KiB pages, about 1 ms in huge pages once the host has them to give).
// Purely a speed hint; where it is not honoured the blocks are ordinary memory. Only
// allocate_large_zeroed's blocks are zero, and those cost no writing to make so.
#pragma once

#include <cstddef>
#include <limits>
#include <new>
#include <string_view>
#include <utility>

namespace nnplan {

// `size` bytes, uninitialized; release with free_large(p, size).
[[nodiscard]] void* allocate_large(std::size_t size);
void free_large(void* p, std::size_t size) noexcept;

// `size` bytes, all zero; release with free_large_zeroed(p, size). From 2 MiB on the block comes
// straight from the system (mmap), whose fresh pages are zero: nothing is written to make it so,
// and each page is zeroed by the system when first touched. A hash table sized up front then
// costs no zeroing pass before its first insert.
[[nodiscard]] void* allocate_large_zeroed(std::size_t size);
void free_large_zeroed(void* p, std::size_t size) noexcept;

// An owning block of `size` uninitialized bytes from allocate_large.
class LargeBuffer {
 public:
  explicit LargeBuffer(std::size_t size)
      : size_(size), data_(static_cast<char*>(allocate_large(size))) {}
  LargeBuffer(const LargeBuffer&) = delete;
  LargeBuffer& operator=(const LargeBuffer&) = delete;
  LargeBuffer(LargeBuffer&& other) noexcept
      : size_(std::exchange(other.size_, 0)), data_(std::exchange(other.data_, nullptr)) {}
  LargeBuffer& operator=(LargeBuffer&& other) noexcept {
    if (this != &other) {
      if (data_ != nullptr) free_large(data_, size_);
      size_ = std::exchange(other.size_, 0);
      data_ = std::exchange(other.data_, nullptr);
    }
    return *this;
  }
  ~LargeBuffer() {
    if (data_ != nullptr) free_large(data_, size_);
  }

  [[nodiscard]] char* data() { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::string_view view() const { return {data_, size_}; }

 private:
  std::size_t size_;
  char* data_;
};

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
