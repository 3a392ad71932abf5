// Private: the difference lines of diff_artifacts (plan_artifact.hpp) between two parsed JSON
// documents. Objects are compared key by key, arrays element by element after aligning them (a
// longest common subsequence of elements, so one inserted or removed element is one line), and
// values quoted in a line are cut short.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "json_common.hpp"

namespace nnplan::format::detail {

// Values longer than this (compact JSON) are cut on a UTF-8 boundary and followed by
// `... (N bytes)`.
inline constexpr std::size_t kMaxShownValueBytes = 80;

// Arrays are aligned when, after their common first and last elements are set aside, the
// product of the remaining lengths is at most this (the alignment table's cells); larger ones are
// compared by position, and a line says so.
inline constexpr std::size_t kMaxAlignedCells = std::size_t{1} << 22;

// The difference lines found so far: the first `keep` are kept, all are counted, so that a diff of
// two huge documents that differ everywhere holds no more than `keep` lines.
struct DifferenceLines {
  std::vector<std::string> lines;
  std::size_t total = 0;
  std::size_t keep = static_cast<std::size_t>(-1);
};

// `value` as compact JSON, cut to kMaxShownValueBytes.
[[nodiscard]] std::string shown_value(const Json& value);

// Appends `<path>: artifact has <expected>, re-planning gives <actual>` (`$` for the empty path).
void difference_line(DifferenceLines& out, const std::string& path, const std::string& expected,
                     const std::string& actual);

// Appends every difference between `expected` (the artifact) and `actual` (the re-planned
// document) in `expected`'s key order, keys only in `actual` after.
void diff_json(const Json& expected, const Json& actual, DifferenceLines& out);

}  // namespace nnplan::format::detail
