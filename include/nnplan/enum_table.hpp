// The one mechanism behind every closed vocabulary: an enum class whose enumerators are 0..N-1
// and a constexpr array of their spellings, in enumerator order. `enum_names` builds the array
// and checks at compile time that it has one non-empty, distinct spelling per enumerator (its
// size is deduced from the list, never typed); `to_string` goes through `enum_name`, which
// spells a value outside the table (a cast, never a parse) as "<invalid>"; `parse_enum` searches
// the array and, on a miss, suggests the closest spelling (spelling_hint.hpp) and lists every
// valid one.
#pragma once

#include <array>
#include <cstddef>
#include <expected>
#include <string>
#include <string_view>

#include "nnplan/error.hpp"
#include "nnplan/spelling_hint.hpp"

namespace nnplan {

// How `enum_name` spells a value that no enumerator has.
inline constexpr std::string_view kInvalidEnumName = "<invalid>";

// True when every spelling is non-empty and no two are equal; false (or no compile) otherwise.
template <std::size_t N>
[[nodiscard]] consteval bool distinct_spellings(const std::array<std::string_view, N>& names) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i].empty()) return false;
    for (std::size_t j = 0; j < i; ++j) {
      if (names[j] == names[i]) return false;
    }
  }
  return true;
}

// The spelling table of an enum whose last enumerator is `Last`:
//   inline constexpr auto kDeviceNames = enum_names<Device::external>({"cpu", ..., "external"});
// A list that is longer or shorter than the enum, or that repeats or leaves out a spelling, does
// not compile.
template <auto Last, std::size_t N>
[[nodiscard]] consteval std::array<std::string_view, N> enum_names(
    const std::string_view (&names)[N]) {
  static_assert(N == static_cast<std::size_t>(Last) + 1,
                "the spelling table must have one entry per enumerator, the last one included");
  std::array<std::string_view, N> out{};
  for (std::size_t i = 0; i < N; ++i)
    out[i] = names[i];
  if (!distinct_spellings(out)) throw "every enumerator needs its own non-empty spelling";
  return out;
}

template <class E, std::size_t N>
[[nodiscard]] constexpr std::string_view enum_name(const std::array<std::string_view, N>& names,
                                                   E value) {
  const auto index = static_cast<std::size_t>(value);
  return index < N ? names[index] : kInvalidEnumName;
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
  return std::unexpected(make_error(
      ErrorKind::invalid_input, "unknown " + std::string(what) + " '" + std::string(text) + "'; " +
                                    did_you_mean(text, names) + "valid: " + join_names(names)));
}

}  // namespace nnplan
