// The one mechanism behind every closed vocabulary: an enum class whose enumerators are 0..N-1
// and a constexpr array of their spellings, in enumerator order. `to_string` indexes the array;
// `parse_enum` searches it and, on a miss, lists every valid spelling.
#pragma once

#include <array>
#include <cstddef>
#include <expected>
#include <string>
#include <string_view>

#include "nnplan/error.hpp"

namespace nnplan {

template <class E, std::size_t N>
[[nodiscard]] constexpr std::string_view enum_name(const std::array<std::string_view, N>& names,
                                                   E value) {
  return names[static_cast<std::size_t>(value)];
}

// "cpu, cuda, rocm": the valid spellings for an error message.
template <std::size_t N>
[[nodiscard]] std::string join_names(const std::array<std::string_view, N>& names) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i != 0) out += ", ";
    out += names[i];
  }
  return out;
}

// Parses `text` against the table; `what` names the vocabulary in the error ("device").
template <class E, std::size_t N>
[[nodiscard]] Expected<E> parse_enum(const std::array<std::string_view, N>& names,
                                     std::string_view text, std::string_view what) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == text) return static_cast<E>(i);
  }
  return std::unexpected(make_error(ErrorKind::invalid_input,
                                    "unknown " + std::string(what) + " '" + std::string(text) +
                                        "'; valid: " + join_names(names)));
}

}  // namespace nnplan
