// A capsule's floating-point policy (SPEC §2): rounding, subnormal handling, multiply-add
// contraction and reduction order. The claims must be true of the code that runs under the
// capsule. Reports print it as `round=R,subnormal=S,contract=C,reduce=D`.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "nnplan/enum_table.hpp"

namespace nnplan::backend {

enum class Rounding : std::uint8_t {
  scalar_context,
  nearest_even,
  directed,
  implementation_defined,
  unspecified
};
inline constexpr auto kRoundingNames = enum_names<Rounding::unspecified>(
    {"scalar-context", "nearest-even", "directed", "implementation-defined", "unspecified"});

enum class Subnormals : std::uint8_t {
  gradual_underflow,
  flush_to_zero,
  implementation_defined,
  unspecified
};
inline constexpr auto kSubnormalsNames = enum_names<Subnormals::unspecified>(
    {"gradual-underflow", "flush-to-zero", "implementation-defined", "unspecified"});

enum class Contraction : std::uint8_t { separate, fused, implementation_defined, na, unspecified };
inline constexpr auto kContractionNames = enum_names<Contraction::unspecified>(
    {"separate", "fused", "implementation-defined", "n/a", "unspecified"});

enum class ReductionOrder : std::uint8_t {
  fixed_left,
  fixed_tree,
  implementation_defined,
  na,
  unspecified
};
inline constexpr auto kReductionOrderNames = enum_names<ReductionOrder::unspecified>(
    {"fixed-left", "fixed-tree", "implementation-defined", "n/a", "unspecified"});

[[nodiscard]] constexpr std::string_view to_string(Rounding v) {
  return enum_name(kRoundingNames, v);
}
[[nodiscard]] constexpr std::string_view to_string(Subnormals v) {
  return enum_name(kSubnormalsNames, v);
}
[[nodiscard]] constexpr std::string_view to_string(Contraction v) {
  return enum_name(kContractionNames, v);
}
[[nodiscard]] constexpr std::string_view to_string(ReductionOrder v) {
  return enum_name(kReductionOrderNames, v);
}
[[nodiscard]] inline Expected<Rounding> parse_rounding(std::string_view s) {
  return parse_enum<Rounding>(kRoundingNames, s, "rounding");
}
[[nodiscard]] inline Expected<Subnormals> parse_subnormals(std::string_view s) {
  return parse_enum<Subnormals>(kSubnormalsNames, s, "subnormals");
}
[[nodiscard]] inline Expected<Contraction> parse_contraction(std::string_view s) {
  return parse_enum<Contraction>(kContractionNames, s, "contraction");
}
[[nodiscard]] inline Expected<ReductionOrder> parse_reduction_order(std::string_view s) {
  return parse_enum<ReductionOrder>(kReductionOrderNames, s, "reduction");
}

struct NumericalPolicy {
  Rounding rounding = Rounding::unspecified;
  Subnormals subnormals = Subnormals::unspecified;
  Contraction contraction = Contraction::unspecified;
  ReductionOrder reduction = ReductionOrder::unspecified;

  bool operator==(const NumericalPolicy&) const = default;
};

// `round=R,subnormal=S,contract=C,reduce=D`.
[[nodiscard]] std::string label(const NumericalPolicy& policy);

}  // namespace nnplan::backend
