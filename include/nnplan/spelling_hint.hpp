// "Did you mean ...?" for a name the user mistyped: the known spelling closest to what was given,
// by edit distance (insertions, deletions, substitutions, and a swap of two neighbours counting
// as one: "plna" is one edit from "plan"), where '-' and '_' and upper and lower case count as the
// same ("fast-cpu" is no edit from "fast_cpu"). Used by the command line for subcommands and
// options, by every closed vocabulary (enum_table.hpp) and for a model's input names.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nnplan {

namespace spelling_detail {

inline char folded(char c) {
  return c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// The optimal string alignment distance between `a` and `b`, over folded characters.
inline std::size_t distance(std::string_view a, std::string_view b) {
  const std::size_t m = b.size();
  std::vector<std::size_t> d((a.size() + 1) * (m + 1));
  const auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= a.size(); ++i)
    at(i, 0) = i;
  for (std::size_t j = 0; j <= m; ++j)
    at(0, j) = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = folded(a[i - 1]) == folded(b[j - 1]) ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && folded(a[i - 1]) == folded(b[j - 2]) &&
          folded(a[i - 2]) == folded(b[j - 1])) {
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(a.size(), m);
}

}  // namespace spelling_detail

// How far a suggestion may be from what was given. A command word (a subcommand, an option) is
// one of a dozen the user half remembers: at most max(2, size / 3) edits. A name from a longer
// vocabulary (a device, a profile, an input): at most size / 4 edits, so a word of three letters
// is matched only by case and '-' or '_' ("gpu" suggests nothing, not "cpu").
enum class SpellingTolerance : bool { command_word, name };

// The first of `names` closest to `given` when one is close enough to suggest (`tolerance`), or
// one that `given` (3 characters or more) begins. An unrelated word gets no suggestion rather
// than a wrong one; `given` itself, an empty word and one over 64 characters get none.
template <class Names>
[[nodiscard]] std::optional<std::string> closest_spelling(
    std::string_view given, const Names& names,
    SpellingTolerance tolerance = SpellingTolerance::name) {
  if (given.empty() || given.size() > 64) return std::nullopt;
  const std::size_t limit = tolerance == SpellingTolerance::command_word
                                ? std::max<std::size_t>(2, given.size() / 3)
                                : given.size() / 4;
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const auto& candidate : names) {
    const std::string_view name(candidate);
    if (name == given) return std::nullopt;
    std::size_t d = spelling_detail::distance(given, name);
    if (given.size() >= 3 && given.size() <= name.size() &&
        spelling_detail::distance(given, name.substr(0, given.size())) == 0) {
      d = 0;  // `given` begins `name`, case and '-' or '_' aside
    }
    if (d < best_distance) {
      best_distance = d;
      best = std::string(name);
    }
  }
  return best;
}

// "did you mean 'fast_cpu'? " when closest_spelling finds a name, else "".
template <class Names>
[[nodiscard]] std::string did_you_mean(std::string_view given, const Names& names) {
  const auto closest = closest_spelling(given, names);
  return closest ? "did you mean '" + *closest + "'? " : std::string();
}

}  // namespace nnplan
