// The closed-vocabulary mechanism on a vocabulary of its own: enum_names checks its list at
// compile time, enum_name spells every enumerator and "<invalid>" for a cast value outside the
// enum, and parse_enum inverts it and lists every spelling on a miss.
#include "nnplan/enum_table.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nnplan {
namespace {

enum class Colour : std::uint8_t { red, dark_green, blue };
constexpr auto kColourNames = enum_names<Colour::blue>({"red", "dark-green", "blue"});

static_assert(kColourNames.size() == 3, "the size is deduced from the list");
static_assert(enum_name(kColourNames, Colour::dark_green) == "dark-green");
static_assert(enum_name(kColourNames, static_cast<Colour>(3)) == kInvalidEnumName);
static_assert(distinct_spellings(kColourNames));
static_assert(!distinct_spellings(std::to_array<std::string_view>({"red", "blue", "red"})));
static_assert(!distinct_spellings(std::to_array<std::string_view>({"red", ""})));

TEST(EnumTable, NamesEveryEnumeratorAndInvalidPastTheEnd) {
  EXPECT_EQ(enum_name(kColourNames, Colour::red), "red");
  EXPECT_EQ(enum_name(kColourNames, Colour::blue), "blue");
  for (const int value : {3, 4, 200, 255}) {
    EXPECT_EQ(enum_name(kColourNames, static_cast<Colour>(value)), "<invalid>") << value;
  }
}

TEST(EnumTable, ParseRoundTripsAndListsSpellingsOnAMiss) {
  for (std::size_t i = 0; i < kColourNames.size(); ++i) {
    const Expected<Colour> parsed = parse_enum<Colour>(kColourNames, kColourNames[i], "colour");
    ASSERT_TRUE(parsed.has_value()) << kColourNames[i];
    EXPECT_EQ(*parsed, static_cast<Colour>(i));
  }
  // A miss lists every spelling, after the closest one where a spelling is close
  // (spelling_hint.hpp).
  const std::vector<std::pair<std::string, std::string>> misses = {
      {"green", ""},
      {"<invalid>", ""},
      {"", ""},
      {"Red", "did you mean 'red'? "},
      {"dark_green", "did you mean 'dark-green'? "},
      {"dark-grene", "did you mean 'dark-green'? "},
  };
  for (const auto& [bad, suggestion] : misses) {
    const Expected<Colour> parsed = parse_enum<Colour>(kColourNames, bad, "colour");
    ASSERT_FALSE(parsed.has_value()) << bad;
    EXPECT_EQ(parsed.error().kind, ErrorKind::invalid_input);
    EXPECT_EQ(parsed.error().message,
              "unknown colour '" + bad + "'; " + suggestion + "valid: red, dark-green, blue");
  }
}

// The suggestion rules: case and '-' or '_' cost nothing; a swap of neighbours is one edit; a
// command word may be max(2, size / 3) edits away, a name size / 4 (none for three letters);
// a beginning of three characters or more suggests the word it begins; nothing for an exact,
// empty or overlong word, or one too far from every spelling.
TEST(SpellingHint, SuggestsOnlyCloseSpellings) {
  const std::vector<std::string> devices = {"cpu", "cuda", "rocm"};
  EXPECT_EQ(closest_spelling("CPU", devices), "cpu");
  EXPECT_EQ(closest_spelling("gpu", devices), std::nullopt);
  EXPECT_EQ(closest_spelling("cud", devices), "cuda");
  EXPECT_EQ(closest_spelling("cpu", devices), std::nullopt);
  EXPECT_EQ(closest_spelling("", devices), std::nullopt);
  EXPECT_EQ(closest_spelling(std::string(65, 'c'), devices), std::nullopt);
  const std::vector<std::string> profiles = {"checked_cpu", "fast_cpu"};
  EXPECT_EQ(closest_spelling("fast-cpu", profiles), "fast_cpu");
  EXPECT_EQ(closest_spelling("fats_cpu", profiles), "fast_cpu");
  EXPECT_EQ(closest_spelling("FAST", profiles), "fast_cpu");
  EXPECT_EQ(closest_spelling("fst_cp", profiles), std::nullopt);
  const std::vector<std::string> commands = {"plan", "run", "probe"};
  EXPECT_EQ(closest_spelling("plna", commands, SpellingTolerance::command_word), "plan");
  EXPECT_EQ(closest_spelling("rn", commands, SpellingTolerance::command_word), "run");
  EXPECT_EQ(closest_spelling("rn", commands), std::nullopt);
  EXPECT_EQ(did_you_mean("Fast_CPU", profiles), "did you mean 'fast_cpu'? ");
  EXPECT_EQ(did_you_mean("xyz", profiles), "");
}

}  // namespace
}  // namespace nnplan
