// Numbers in messages and files: the shortest decimal text that reads back as the same double
// ("1e-05", "-1", "0.1"), as std::to_chars writes it. Used where a value the user gave is quoted
// (weights.hpp's check messages) and where one is written to be read again (payload files).
#pragma once

#include <array>
#include <charconv>
#include <string>

namespace nnplan {

[[nodiscard]] inline std::string number_text(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

}  // namespace nnplan
