// Tensor shapes of the IR (SPEC §6): a list of natural-number dimensions, rank 0 for a scalar.
// All arithmetic on shapes is overflow-checked; a product that does not fit in 64 bits is an
// error, never a wrapped number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nnplan/ir/small_vector.hpp"

namespace nnplan::ir {

using Dim = std::uint64_t;

// The dimensions of a shape: up to rank 4 held inline (small_vector.hpp).
using Dims = SmallVector<Dim, 4>;

struct Shape {
  Dims dims;

  bool operator==(const Shape&) const = default;

  [[nodiscard]] std::size_t rank() const { return dims.size(); }
};

// The product of the dimensions (1 for a scalar), or nullopt when it overflows 64 bits.
[[nodiscard]] std::optional<Dim> element_count(const Shape& shape);

// a * b and a + b, or nullopt on overflow.
[[nodiscard]] std::optional<Dim> checked_mul(Dim a, Dim b);
[[nodiscard]] std::optional<Dim> checked_add(Dim a, Dim b);

// `[2,3,4]`; `[]` for a scalar.
[[nodiscard]] std::string to_string(const Shape& shape);

}  // namespace nnplan::ir
