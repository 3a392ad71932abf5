// The ONNX import's name tables: NameTable maps tensor names to value numbers in the node reader
// (onnx_node_reader.hpp), one lookup per node input and one insert per node output, and NamePool
// keeps copies of names that the importer's other tables (onnx_import.cpp) hold as keys.
// `hash_name` is the hash both the tables and the importer's operator lookup use: ONNX names are
// short (`relu_123`, `/layer1/conv/Conv_output_0`), and a word-at-a-time multiply-mix hash,
// inlined, costs less than a call to std::hash's (on the 100k-node chain, swapping it in took
// nnplan plan from 361.4M to 357.9M instructions, callgrind).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "nnplan/ir/graph.hpp"
#include "nnplan/large_memory.hpp"

namespace nnplan::format::detail {

// A 64-bit hash of `name` whose high and low halves are both well mixed (NameTable indexes with
// the low bits and compares the high half as a tag). Not for hostile-collision resistance: a
// table's worst case is a linear probe, and the inputs are one file's names.
inline std::uint64_t hash_name(std::string_view name) {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
  const char* p = name.data();
  std::size_t n = name.size();
  std::uint64_t h = 0x243F6A8885A308D3ull ^ (n * kMul);
  const auto mix = [](std::uint64_t x) {
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ull;
    return x ^ (x >> 32);
  };
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, 8);
    h = std::rotl((h ^ w) * kMul, 29);
  }
  if (n > 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = std::rotl((h ^ w) * kMul, 29);
  }
  return mix(h);
}

// Copies of names, kept for the importer's lifetime in a few large blocks: node names live in the
// node reader's batch, which is reused once the importer has moved on (onnx_node_reader.hpp), so
// any name a table keeps as a key is copied here first. One copy per kept name, no allocation per
// name.
class NamePool {
 public:
  NamePool() = default;
  NamePool(const NamePool&) = delete;
  NamePool& operator=(const NamePool&) = delete;

  std::string_view keep(std::string_view name) {
    if (name.empty()) return {};
    if (name.size() > left_) {
      const std::size_t size = std::max(name.size(), kBlockBytes);
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
      next_ = blocks_.back().get();
      left_ = size;
    }
    char* copy = next_;
    std::memcpy(copy, name.data(), name.size());
    next_ += name.size();
    left_ -= name.size();
    return {copy, name.size()};
  }

 private:
  static constexpr std::size_t kBlockBytes = std::size_t{64} << 10;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  std::size_t left_ = 0;
};

// Tensor name -> a number (a value number, onnx_node_reader.hpp), the import's hottest table (one
// lookup per node input, one insert per node output): open addressing with linear probing in one
// array of 16-byte slots (where the name's bytes start in the table's own name buffer, its
// length, part of its hash, and the number), so a lookup touches one slot and compares bytes only
// on a likely match, an insert allocates nothing until the table or its buffer grows, and a large
// table sits on huge pages (allocate_large) instead of thousands of small ones. A name is copied
// into the table's own buffer, because a node's names may live only while the node is read,
// unless it lies in the bytes given to keep_in_place (the model's, which outlive the table).
class NameTable {
 public:
  NameTable() = default;
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;
  ~NameTable() { release(); }

  // Names inside `bytes` (which must outlive the table) are kept as positions in it, not copied.
  void keep_in_place(std::string_view bytes) {
    if (bytes.size() <= kCopied) in_place_ = bytes;
  }
  void reserve(std::size_t n) {
    std::size_t cap = 16;
    while (cap < 2 * n)
      cap *= 2;
    if (cap > cap_) rehash(cap);
  }
  const ir::NodeId* find(std::string_view name) const { return find(name, hash(name)); }
  // The same, with `h` = hash_name(name) computed beforehand (the node reader's worker does).
  const ir::NodeId* find(std::string_view name, std::uint64_t h) const {
    if (cap_ == 0) return nullptr;
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    for (std::size_t i = h & (cap_ - 1);; i = (i + 1) & (cap_ - 1)) {
      const Slot& s = slots_[i];
      if (s.size_plus_one == 0) return nullptr;
      if (s.tag == tag && key(s) == name) return &s.value;
    }
  }
  bool contains(std::string_view name) const { return find(name) != nullptr; }
  // A hint that the name of hash `h` is about to be set: in a large table its slot is a cache
  // miss, which then overlaps with the work done before.
  void prefetch(std::uint64_t h) const {
    if (cap_ != 0) __builtin_prefetch(&slots_[h & (cap_ - 1)], 1);
  }
  // Maps `name` to `value`; a new key is copied unless it lies in the keep_in_place bytes. Names
  // come from a protobuf message of at most 2 GiB, so every offset and length fits 31 bits.
  void set(std::string_view name, ir::NodeId value) { set(name, hash(name), value); }
  void set(std::string_view name, std::uint64_t h, ir::NodeId value) {
    if (2 * (size_ + 1) > cap_) rehash(std::max<std::size_t>(16, 2 * cap_));
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    for (std::size_t i = h & (cap_ - 1);; i = (i + 1) & (cap_ - 1)) {
      Slot& s = slots_[i];
      if (s.size_plus_one == 0) {
        s = Slot{.offset = place(name),
                 .size_plus_one = static_cast<std::uint32_t>(name.size()) + 1,
                 .tag = tag,
                 .value = value};
        ++size_;
        return;
      }
      if (s.tag == tag && key(s) == name) {
        s.value = value;
        return;
      }
    }
  }

 private:
  struct Slot {
    std::uint32_t offset = 0;         // the name's first byte: in names_ with kCopied set, else
                                      // in in_place_
    std::uint32_t size_plus_one = 0;  // 0: empty
    std::uint32_t tag = 0;            // the hash's high half
    ir::NodeId value = 0;
  };
  static_assert(sizeof(Slot) == 16);
  static_assert(sizeof(std::size_t) == 8, "the slot tag is the high half of a 64-bit hash");
  static std::size_t hash(std::string_view name) { return hash_name(name); }
  // Offsets of copied names carry this bit; both buffers hold less than 2 GiB.
  static constexpr std::uint32_t kCopied = std::uint32_t{1} << 31;
  std::string_view key(const Slot& s) const {
    const char* base = (s.offset & kCopied) != 0 ? names_.data() : in_place_.data();
    return {base + (s.offset & ~kCopied), s.size_plus_one - 1};
  }
  // Where a new key's bytes will be found: in in_place_ when it lies there, else a copy.
  std::uint32_t place(std::string_view name) {
    const auto begin = reinterpret_cast<std::uintptr_t>(in_place_.data());
    const auto at = reinterpret_cast<std::uintptr_t>(name.data());
    if (name.size() <= in_place_.size() && at >= begin &&
        at - begin <= in_place_.size() - name.size()) {
      return static_cast<std::uint32_t>(at - begin);
    }
    const auto offset = static_cast<std::uint32_t>(names_.size()) | kCopied;
    names_.append(name);
    return offset;
  }
  void rehash(std::size_t cap) {
    // All-zero bytes are empty slots, and a fresh zeroed block costs no pass to write them.
    static_assert(std::is_trivially_copyable_v<Slot> && std::is_trivially_destructible_v<Slot>);
    auto* slots = static_cast<Slot*>(allocate_large_zeroed(cap * sizeof(Slot)));
    for (std::size_t n = 0; n < cap_; ++n) {
      const Slot& s = slots_[n];
      if (s.size_plus_one == 0) continue;
      for (std::size_t i = hash(key(s)) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        if (slots[i].size_plus_one == 0) {
          slots[i] = s;
          break;
        }
      }
    }
    release();
    slots_ = slots;
    cap_ = cap;
  }
  void release() {
    if (slots_ != nullptr) free_large_zeroed(slots_, cap_ * sizeof(Slot));
    slots_ = nullptr;
  }
  Slot* slots_ = nullptr;
  std::size_t cap_ = 0;
  std::size_t size_ = 0;
  std::string names_;          // copied keys' bytes, back to back
  std::string_view in_place_;  // bytes whose names are not copied
};

}  // namespace nnplan::format::detail
