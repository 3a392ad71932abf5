#include "nnplan/ir/shape.hpp"

#include <charconv>
#include <limits>

namespace nnplan::ir {

std::optional<Dim> checked_mul(Dim a, Dim b) {
  if (a != 0 && b > std::numeric_limits<Dim>::max() / a) return std::nullopt;
  return a * b;
}

std::optional<Dim> checked_add(Dim a, Dim b) {
  if (b > std::numeric_limits<Dim>::max() - a) return std::nullopt;
  return a + b;
}

std::optional<Dim> element_count(const Shape& shape) {
  // A zero dimension makes the tensor empty whatever the other dimensions are, so [2^63,4,0]
  // has 0 elements rather than an overflowing count.
  for (const Dim d : shape.dims) {
    if (d == 0) return Dim{0};
  }
  Dim count = 1;
  for (const Dim d : shape.dims) {
    const std::optional<Dim> next = checked_mul(count, d);
    if (!next) return std::nullopt;
    count = *next;
  }
  return count;
}

std::string to_string(const Shape& shape) {
  std::string out = "[";
  char buffer[std::numeric_limits<Dim>::digits10 + 2];
  for (std::size_t i = 0; i < shape.dims.size(); ++i) {
    if (i != 0) out += ',';
    const auto result = std::to_chars(buffer, buffer + sizeof(buffer), shape.dims[i]);
    out.append(buffer, result.ptr);
  }
  out += ']';
  return out;
}

}  // namespace nnplan::ir
