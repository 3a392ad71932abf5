// Memory for large inputs that are written once and read through (an ONNX file's bytes, the
// parsed message's arena blocks, the importer's name table). Blocks of 2 MiB and more are 2 MiB
// aligned and, on Linux, marked for transparent huge pages: a 47 MB model then costs two dozen
// page faults instead of eleven thousand, each of which also zeroes a fresh page. Purely a speed
// hint; where it is not honoured the blocks are ordinary memory. Nothing is zero-filled.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>

namespace nnplan::format {

// `size` bytes, uninitialized; release with free_large(p, size).
[[nodiscard]] void* allocate_large(std::size_t size);
void free_large(void* p, std::size_t size) noexcept;

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

}  // namespace nnplan::format
