// The range a run-time int64 index may take along an axis, shared by the guards of the indexing
// kernels (gather_elements, gather_nd, scatter_elements, scatter_nd): [-extent, extent), a
// negative index counting from the end, and the message that names one outside it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "nnplan/error.hpp"

namespace nnplan::runtime::reference {

[[nodiscard]] inline bool index_in_range(std::int64_t v, std::size_t extent) {
  const auto e = static_cast<std::int64_t>(extent);
  return v >= -e && v < e;
}

// The position index `v` (in range) names along an axis of `extent`.
[[nodiscard]] inline std::size_t wrapped_index(std::int64_t v, std::size_t extent) {
  return static_cast<std::size_t>(v < 0 ? v + static_cast<std::int64_t>(extent) : v);
}

// "index 3 (element 1 of the indices) is out of range for axis 1 of extent 3; ...".
[[nodiscard]] inline Error index_out_of_range(std::int64_t v, std::size_t element, std::size_t axis,
                                              std::size_t extent) {
  const auto e = static_cast<std::int64_t>(extent);
  return make_error(ErrorKind::invalid_input,
                    "index " + std::to_string(v) + " (element " + std::to_string(element) +
                        " of the indices) is out of range for axis " + std::to_string(axis) +
                        " of extent " + std::to_string(extent) + "; indices lie in [" +
                        std::to_string(-e) + ", " + std::to_string(e - 1) + "]");
}

}  // namespace nnplan::runtime::reference
