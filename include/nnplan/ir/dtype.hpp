// Element types of tensor values (SPEC §6, §11): float32 for activations and weights, int64 for
// indices and shapes, bool for masks and comparisons. The spellings are an enum table
// (enum_table.hpp); weights (weights.hpp) and the runtime's tensors carry a dtype.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "nnplan/enum_table.hpp"

namespace nnplan::ir {

enum class DType : std::uint8_t { float32, int64, boolean };

// The spellings in files and messages, in enumerator order (parse with parse_enum).
inline constexpr auto kDTypeNames = enum_names<DType::boolean>({"float32", "int64", "bool"});

[[nodiscard]] constexpr std::string_view to_string(DType dtype) {
  return enum_name(kDTypeNames, dtype);
}

// The width in bytes of one element of `dtype` (a bool element is one byte, 0 or 1).
[[nodiscard]] constexpr std::size_t size_of(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return 4;
    case DType::int64:
      return 8;
    case DType::boolean:
      return 1;
  }
  return 0;
}

// The dtype whose elements are `T`: float, std::int64_t, or std::uint8_t (bool).
template <typename T>
requires std::is_same_v<T, float> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, std::uint8_t>
inline constexpr DType kDTypeOf = std::is_same_v<T, float>          ? DType::float32
                                  : std::is_same_v<T, std::int64_t> ? DType::int64
                                                                    : DType::boolean;

}  // namespace nnplan::ir
