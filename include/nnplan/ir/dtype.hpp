// Element types of tensor values (SPEC §6, §11): float32 for activations and weights, int64 for
// indices and shapes, bool for masks and comparisons. One table drives the spellings, the byte
// width and the parser; weights (weights.hpp) and the runtime's tensors carry one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace nnplan::ir {

enum class DType : std::uint8_t { float32, int64, boolean };

struct DTypeInfo {
  DType dtype;
  std::string_view name;  // the spelling in files and messages
  std::size_t bytes;      // the width of one element
};

inline constexpr std::array<DTypeInfo, 3> kDTypes = {{
    {DType::float32, "float32", 4},
    {DType::int64, "int64", 8},
    {DType::boolean, "bool", 1},
}};

[[nodiscard]] constexpr const DTypeInfo& dtype_info(DType dtype) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.dtype == dtype) return info;
  }
  return kDTypes[0];
}

[[nodiscard]] constexpr std::string_view to_string(DType dtype) {
  return dtype_info(dtype).name;
}

// The width in bytes of one element of `dtype`.
[[nodiscard]] constexpr std::size_t size_of(DType dtype) {
  return dtype_info(dtype).bytes;
}

// The dtype spelled `name`, or nullopt.
[[nodiscard]] constexpr std::optional<DType> parse_dtype(std::string_view name) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.name == name) return info.dtype;
  }
  return std::nullopt;
}

// The C++ element type of each dtype, for typed views (bool elements are one byte, 0 or 1).
template <DType D>
struct DTypeElement;
template <>
struct DTypeElement<DType::float32> {
  using type = float;
};
template <>
struct DTypeElement<DType::int64> {
  using type = std::int64_t;
};
template <>
struct DTypeElement<DType::boolean> {
  using type = std::uint8_t;
};

// The dtype whose elements are `T`.
template <typename T>
inline constexpr DType kDTypeOf = std::is_same_v<T, float>          ? DType::float32
                                  : std::is_same_v<T, std::int64_t> ? DType::int64
                                                                    : DType::boolean;

}  // namespace nnplan::ir
