// The spellings the ONNX importer's messages use for numbers, lists and names: integers in decimal,
// floats in their shortest round-trip form, lists as `[a,b,c]`, names the file chose escaped and
// capped (`quoted_name`, `capped_name` from message_text.hpp) so that no name can flood a message.
#pragma once

#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

#include "../message_text.hpp"

namespace nnplan::format::onnx_import {

using detail::capped_name;
using detail::quoted_name;

inline std::string str(std::int64_t v) {
  return std::to_string(v);
}
inline std::string str(std::uint64_t v) {
  return std::to_string(v);
}
inline std::string str(int v) {
  return std::to_string(v);
}
inline std::string str(unsigned v) {
  return std::to_string(v);
}
inline std::string str(float v) {
  std::array<char, 64> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), r.ptr);
}

template <class T>
std::string list_string(const std::vector<T>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i != 0) out += ',';
    out += str(v[i]);
  }
  return out + "]";
}

}  // namespace nnplan::format::onnx_import
