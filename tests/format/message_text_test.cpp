// How messages show names a file chose (src/format/message_text.hpp): escaped, and capped at
// kMaxQuotedBytes with the full length after the cut.
#include "format/message_text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nnplan::format::detail {
namespace {

struct NameCase {
  std::string input;
  std::string quoted;
  std::string capped;
};

TEST(MessageText, OrListJoinsChoicesAsPeopleWriteThem) {
  const std::vector<std::string> three = {"a", "b", "c"};
  EXPECT_EQ(or_list(three), "a, b or c");
  EXPECT_EQ(or_list(std::span(three).first(2)), "a or b");
  EXPECT_EQ(or_list(std::span(three).first(1)), "a");
  EXPECT_EQ(or_list({}), "");
}

TEST(MessageText, QuotedAndCappedNames) {
  const std::string eighty(80, 'n');
  const std::string cases_utf8 = std::string(79, 'a') + "\xC3\xA9" + "zz";  // é across the cut
  const NameCase cases[] = {
      {"relu_1", "'relu_1'", "relu_1"},
      {"", "''", ""},
      {eighty, "'" + eighty + "'", eighty},
      {eighty + "n", "'" + eighty + "...' (81 bytes)", eighty + "... (81 bytes)"},
      {std::string(20000000, 'n'), "'" + eighty + "...' (20000000 bytes)",
       eighty + "... (20000000 bytes)"},
      {"a\x1b[8m\n", "'a\\x1b[8m\\n'", "a\\x1b[8m\\n"},
      {cases_utf8, "'" + std::string(79, 'a') + "...' (83 bytes)",
       std::string(79, 'a') + "... (83 bytes)"},
  };
  for (const NameCase& c : cases) {
    EXPECT_EQ(quoted_name(c.input), c.quoted) << c.input.substr(0, 100);
    EXPECT_EQ(capped_name(c.input), c.capped) << c.input.substr(0, 100);
  }
}

}  // namespace
}  // namespace nnplan::format::detail
