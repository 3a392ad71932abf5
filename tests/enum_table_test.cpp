// The closed-vocabulary mechanism on a vocabulary of its own: enum_names checks its list at
// compile time, enum_name spells every enumerator and "<invalid>" for a cast value outside the
// enum, and parse_enum inverts it and lists every spelling on a miss.
#include "nnplan/enum_table.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

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
  for (const std::string bad : {"green", "<invalid>", "", "Red"}) {
    const Expected<Colour> parsed = parse_enum<Colour>(kColourNames, bad, "colour");
    ASSERT_FALSE(parsed.has_value()) << bad;
    EXPECT_EQ(parsed.error().kind, ErrorKind::invalid_input);
    EXPECT_EQ(parsed.error().message, "unknown colour '" + bad + "'; valid: red, dark-green, blue");
  }
}

}  // namespace
}  // namespace nnplan
