// SmallVector<T, N>: a vector of trivially copyable values that keeps up to N of them inside the
// object and moves to the heap only past that. The IR stores a shape and a parent list per node
// (ir/graph.hpp, ir/shape.hpp); nearly every shape has rank <= 4 and nearly every node <= 2
// parents, so with these the graph builders (the torchlean.ir.v1 reader, the ONNX importer)
// allocate nothing per node, and the planner reads a node's shape without chasing a pointer.
// The interface is the part of std::vector's that the code base uses, with the same meaning.
#pragma once

#include <algorithm>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace nnplan::ir {

template <class T, std::size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_default_constructible_v<T>,
                "SmallVector copies its elements as bytes");
  static_assert(N > 0 && N <= 0xFFFF && alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  SmallVector() noexcept {}  // NOLINT: user-provided, so that a `const` one needs no initializer
  explicit SmallVector(size_type n) { resize(n); }
  SmallVector(size_type n, const T& value) { assign(n, value); }
  template <std::input_iterator It>
  SmallVector(It first, It last) {
    assign(first, last);
  }
  SmallVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  // From a std::vector, so that code holding one (ONNX dims, JSON arrays) converts implicitly.
  SmallVector(const std::vector<T>& values) {  // NOLINT(google-explicit-constructor)
    assign(values.begin(), values.end());
  }
  SmallVector(const SmallVector& other) { assign(other.begin(), other.end()); }
  SmallVector(SmallVector&& other) noexcept { take(other); }
  ~SmallVector() { release(); }

  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  SmallVector& operator=(std::initializer_list<T> values) {
    assign(values.begin(), values.end());
    return *this;
  }
  SmallVector& operator=(const std::vector<T>& values) {
    assign(values.begin(), values.end());
    return *this;
  }

  void assign(size_type n, const T& value) {
    const T copy = value;  // `value` may be an element
    clear();
    resize(n, copy);
  }
  template <std::input_iterator It>
  void assign(It first, It last) {
    if constexpr (std::forward_iterator<It>) {
      const auto n = static_cast<size_type>(std::distance(first, last));
      if (n > capacity()) {
        // The range may view this vector's own elements through pointers: copy before letting
        // them go. (Like std::vector, other iterators into this vector are not supported.)
        SmallVector fresh;
        fresh.grow_to(n);
        std::copy(first, last, fresh.data_);
        fresh.size_ = static_cast<std::uint32_t>(n);
        *this = std::move(fresh);
        return;
      }
      if constexpr (std::contiguous_iterator<It> && std::same_as<std::iter_value_t<It>, T>) {
        // The range may be (part of) this vector's own elements: memmove allows that.
        if (n != 0) std::memmove(data_, std::to_address(first), n * sizeof(T));
      } else {
        std::copy(first, last, data_);
      }
      size_ = static_cast<std::uint32_t>(n);
    } else {
      clear();
      for (; first != last; ++first)
        push_back(*first);
    }
  }
  void assign(std::initializer_list<T> values) { assign(values.begin(), values.end()); }

  // ---- access ----
  [[nodiscard]] T& operator[](size_type i) noexcept { return data_[i]; }
  [[nodiscard]] const T& operator[](size_type i) const noexcept { return data_[i]; }
  [[nodiscard]] T& at(size_type i) {
    if (i >= size_) throw std::out_of_range("SmallVector::at");
    return data_[i];
  }
  [[nodiscard]] const T& at(size_type i) const {
    if (i >= size_) throw std::out_of_range("SmallVector::at");
    return data_[i];
  }
  [[nodiscard]] T& front() noexcept { return data_[0]; }
  [[nodiscard]] const T& front() const noexcept { return data_[0]; }
  [[nodiscard]] T& back() noexcept { return data_[size_ - 1]; }
  [[nodiscard]] const T& back() const noexcept { return data_[size_ - 1]; }
  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }

  // ---- iterators ----
  [[nodiscard]] iterator begin() noexcept { return data_; }
  [[nodiscard]] const_iterator begin() const noexcept { return data_; }
  [[nodiscard]] const_iterator cbegin() const noexcept { return data_; }
  [[nodiscard]] iterator end() noexcept { return data_ + size_; }
  [[nodiscard]] const_iterator end() const noexcept { return data_ + size_; }
  [[nodiscard]] const_iterator cend() const noexcept { return data_ + size_; }
  [[nodiscard]] reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  [[nodiscard]] const_reverse_iterator rbegin() const noexcept {
    return const_reverse_iterator(end());
  }
  [[nodiscard]] reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  [[nodiscard]] const_reverse_iterator rend() const noexcept {
    return const_reverse_iterator(begin());
  }

  // ---- capacity ----
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] size_type size() const noexcept { return size_; }
  [[nodiscard]] size_type capacity() const noexcept { return capacity_; }
  [[nodiscard]] static constexpr size_type max_size() noexcept { return 0xFFFFFFFFu; }
  [[nodiscard]] static constexpr size_type inline_capacity() noexcept { return N; }
  void reserve(size_type n) {
    if (n > capacity_) grow_to(n);
  }

  // ---- modifiers ----
  void clear() noexcept { size_ = 0; }
  void push_back(const T& value) {
    if (size_ == capacity_) {
      const T copy = value;  // `value` may be an element
      grow_to(next_capacity(size_type{size_} + 1));
      data_[size_++] = copy;
      return;
    }
    data_[size_++] = value;
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    push_back(T(std::forward<Args>(args)...));
    return back();
  }
  void pop_back() noexcept { --size_; }
  void resize(size_type n) { resize(n, T{}); }
  void resize(size_type n, const T& value) {
    if (n > capacity_) {
      const T copy = value;
      grow_to(std::max(n, next_capacity(n)));
      std::fill(data_ + size_, data_ + n, copy);
    } else if (n > size_) {
      std::fill(data_ + size_, data_ + n, value);
    }
    size_ = static_cast<std::uint32_t>(n);
  }
  iterator insert(const_iterator pos, const T& value) { return insert(pos, size_type{1}, value); }
  iterator insert(const_iterator pos, size_type n, const T& value) {
    const T copy = value;
    const size_type at = open_gap(pos, n);
    std::fill(data_ + at, data_ + at + n, copy);
    return data_ + at;
  }
  template <std::forward_iterator It>
  iterator insert(const_iterator pos, It first, It last) {
    // Copied aside first: the range may view this vector's own elements.
    const SmallVector values(first, last);
    const size_type at = open_gap(pos, values.size());
    std::copy(values.begin(), values.end(), data_ + at);
    return data_ + at;
  }
  iterator insert(const_iterator pos, std::initializer_list<T> values) {
    return insert(pos, values.begin(), values.end());
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    const auto at = static_cast<size_type>(first - data_);
    const auto n = static_cast<size_type>(last - first);
    if (n != 0) std::memmove(data_ + at, data_ + at + n, (size_ - at - n) * sizeof(T));
    size_ -= static_cast<std::uint32_t>(n);
    return data_ + at;
  }

  // ---- comparison and conversion ----
  [[nodiscard]] friend bool operator==(const SmallVector& a, const SmallVector& b) noexcept {
    // A plain loop: std::equal on these types becomes a call to memcmp per comparison, for the
    // usual handful of elements (the importer and the checker compare shapes per node).
    if (a.size_ != b.size_) return false;
    for (std::uint32_t i = 0; i < a.size_; ++i) {
      if (!(a.data_[i] == b.data_[i])) return false;
    }
    return true;
  }
  [[nodiscard]] friend auto operator<=>(const SmallVector& a, const SmallVector& b) noexcept {
    return std::lexicographical_compare_three_way(a.begin(), a.end(), b.begin(), b.end());
  }
  [[nodiscard]] std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }

 private:
  // Room for `need` elements and some growth, never past max_size() (grow_to refuses more).
  static size_type next_capacity(size_type need) {
    const size_type grown = need < 2 * N ? 2 * N : need + need / 2;
    return std::max(need, std::min(grown, max_size()));
  }
  // Moves the elements to a heap block of at least `n` (> capacity) elements.
  void grow_to(size_type n) {
    if (n > max_size()) throw std::length_error("SmallVector: too many elements");
    T* block = static_cast<T*>(::operator new(n * sizeof(T)));
    if (size_ != 0) std::memcpy(block, data_, size_ * sizeof(T));
    release();
    data_ = block;
    capacity_ = static_cast<std::uint32_t>(n);
  }
  // Moves the tail from `pos` up by n; returns pos's index.
  size_type open_gap(const_iterator pos, size_type n) {
    const auto at = static_cast<size_type>(pos - data_);
    if (size_ + n > capacity_) grow_to(std::max(size_ + n, next_capacity(size_ + n)));
    std::copy_backward(data_ + at, data_ + size_, data_ + size_ + n);
    size_ += static_cast<std::uint32_t>(n);
    return at;
  }
  bool on_heap() const noexcept { return data_ != inline_; }
  void release() noexcept {
    if (on_heap()) ::operator delete(data_);
    data_ = inline_;
    capacity_ = N;
  }
  // Takes `other`'s elements (its heap block, or a copy of its inline ones); `this` is empty
  // and inline; `other` is left empty.
  void take(SmallVector& other) noexcept {
    if (other.on_heap()) {
      data_ = other.data_;
      capacity_ = other.capacity_;
      other.data_ = other.inline_;
      other.capacity_ = N;
    } else {
      std::memcpy(inline_, other.inline_, other.size_ * sizeof(T));
    }
    size_ = other.size_;
    other.size_ = 0;
  }

  T* data_ = inline_;
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = N;
  T inline_[N];
};

}  // namespace nnplan::ir
