#include "plan_artifact_diff.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace nnplan::format::detail {

namespace {

bool plain_key(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string compact(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// `text` cut to kMaxShownValueBytes on a UTF-8 boundary, with its length when cut.
std::string cut(std::string text) {
  if (text.size() <= kMaxShownValueBytes) return text;
  std::size_t end = kMaxShownValueBytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
    --end;
  return text.substr(0, end) + "... (" + std::to_string(text.size()) + " bytes)";
}

std::string child_path(const std::string& parent, const std::string& key) {
  if (plain_key(key)) return parent.empty() ? key : parent + "." + key;
  return (parent.empty() ? std::string("$") : parent) + "[" + cut(compact(Json(key))) + "]";
}

std::string element_path(const std::string& parent, std::size_t i) {
  return (parent.empty() ? std::string("$") : parent) + "[" + std::to_string(i) + "]";
}

std::string entries(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " entry" : " entries");
}

void diff_values(const Json& expected, const Json& actual, const std::string& path,
                 DifferenceLines& out);

// One step of an alignment: an element of both arrays, of the artifact only, or of the re-planned
// array only.
enum class Step : std::uint8_t { both, expected_only, actual_only };

// The alignment of expected[first, first + n) with actual[first, first + m) that keeps a longest
// common subsequence of equal elements (compared by their compact JSON), as a list of steps.
std::vector<Step> align(const Json& expected, const Json& actual, std::size_t first, std::size_t n,
                        std::size_t m) {
  // Equal elements get equal ids, so the table compares integers.
  std::unordered_map<std::string, std::uint32_t> ids;
  const auto id_of = [&ids](const Json& value) {
    return ids.try_emplace(compact(value), static_cast<std::uint32_t>(ids.size())).first->second;
  };
  std::vector<std::uint32_t> e(n);
  std::vector<std::uint32_t> a(m);
  for (std::size_t i = 0; i < n; ++i)
    e[i] = id_of(expected[first + i]);
  for (std::size_t j = 0; j < m; ++j)
    a[j] = id_of(actual[first + j]);
  // lcs[i * (m + 1) + j]: the longest common subsequence of e[i..] and a[j..].
  const std::size_t width = m + 1;
  std::vector<std::uint32_t> lcs((n + 1) * width, 0);
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      lcs[i * width + j] = e[i] == a[j]
                               ? lcs[(i + 1) * width + j + 1] + 1
                               : std::max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  std::vector<Step> steps;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && e[i] == a[j]) {
      steps.push_back(Step::both);
      ++i;
      ++j;
    } else if (j == m || (i < n && lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) {
      steps.push_back(Step::expected_only);
      ++i;
    } else {
      steps.push_back(Step::actual_only);
      ++j;
    }
  }
  return steps;
}

// Between two equal elements, the artifact's unmatched elements [ei, ei + removed) and the
// re-planned ones [ai, ai + added): pairs are compared field by field (an element that changed),
// the rest are reported whole.
void diff_run(const Json& expected, const Json& actual, const std::string& path, std::size_t ei,
              std::size_t removed, std::size_t ai, std::size_t added, DifferenceLines& out) {
  const std::size_t paired = std::min(removed, added);
  for (std::size_t k = 0; k < paired; ++k)
    diff_values(expected[ei + k], actual[ai + k], element_path(path, ei + k), out);
  for (std::size_t k = paired; k < removed; ++k)
    difference_line(out, element_path(path, ei + k), shown_value(expected[ei + k]), "nothing");
  for (std::size_t k = paired; k < added; ++k)
    difference_line(out, element_path(path, ai + k), "nothing", shown_value(actual[ai + k]));
}

void diff_arrays(const Json& expected, const Json& actual, const std::string& path,
                 DifferenceLines& out) {
  const std::size_t n = expected.size();
  const std::size_t m = actual.size();
  std::size_t first = 0;
  while (first < n && first < m && expected[first] == actual[first])
    ++first;
  std::size_t last = 0;
  while (last < n - first && last < m - first && expected[n - 1 - last] == actual[m - 1 - last])
    ++last;
  const std::size_t en = n - first - last;
  const std::size_t am = m - first - last;
  if (en == 0 && am == 0) return;
  if (en != 0 && am > kMaxAlignedCells / en) {
    if (n != m) {
      difference_line(out, path, entries(n),
                      entries(m) + " (too many to align; compared by position)");
    }
    diff_run(expected, actual, path, first, en, first, am, out);
    return;
  }
  const std::vector<Step> steps = align(expected, actual, first, en, am);
  std::size_t ei = first;
  std::size_t ai = first;
  std::size_t removed = 0;
  std::size_t added = 0;
  for (const Step step : steps) {
    switch (step) {
      case Step::both:
        diff_run(expected, actual, path, ei, removed, ai, added, out);
        ei += removed + 1;
        ai += added + 1;
        removed = 0;
        added = 0;
        break;
      case Step::expected_only:
        ++removed;
        break;
      case Step::actual_only:
        ++added;
        break;
    }
  }
  diff_run(expected, actual, path, ei, removed, ai, added, out);
}

void diff_values(const Json& expected, const Json& actual, const std::string& path,
                 DifferenceLines& out) {
  if (expected.is_object() && actual.is_object()) {
    for (const auto& [key, value] : expected.items()) {
      const auto it = actual.find(key);
      if (it == actual.end()) {
        difference_line(out, child_path(path, key), shown_value(value), "nothing");
      } else {
        diff_values(value, *it, child_path(path, key), out);
      }
    }
    for (const auto& [key, value] : actual.items()) {
      if (!expected.contains(key)) {
        difference_line(out, child_path(path, key), "nothing", shown_value(value));
      }
    }
    return;
  }
  if (expected.is_array() && actual.is_array()) {
    diff_arrays(expected, actual, path, out);
    return;
  }
  if (expected != actual) difference_line(out, path, shown_value(expected), shown_value(actual));
}

}  // namespace

std::string shown_value(const Json& value) {
  return cut(compact(value));
}

void difference_line(DifferenceLines& out, const std::string& path, const std::string& expected,
                     const std::string& actual) {
  ++out.total;
  if (out.lines.size() >= out.keep) return;
  out.lines.push_back((path.empty() ? std::string("$") : path) + ": artifact has " + expected +
                      ", re-planning gives " + actual);
}

void diff_json(const Json& expected, const Json& actual, DifferenceLines& out) {
  diff_values(expected, actual, "", out);
}

}  // namespace nnplan::format::detail
