// nnplan/text_escape.hpp: every control character, broken UTF-8 byte, C1 control and bidi
// override in a name becomes visible escape text; everything else is kept byte for byte.
#include "nnplan/text_escape.hpp"

#include <gtest/gtest.h>

#include <string>

namespace nnplan {
namespace {

struct EscapeCase {
  std::string input;
  std::string expected;
};

class TextEscape : public testing::TestWithParam<EscapeCase> {};

TEST_P(TextEscape, EscapesControlsAndKeepsText) {
  const EscapeCase& c = GetParam();
  EXPECT_EQ(escape_controls(c.input), c.expected);
  EXPECT_EQ(needs_escaping(c.input), c.input != c.expected);
  std::string out = "prefix:";
  append_escaped(out, c.input);
  EXPECT_EQ(out, "prefix:" + c.expected);
  // Escaped text is inert: escaping it again changes nothing.
  EXPECT_EQ(escape_controls(c.expected), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TextEscape,
    testing::Values(EscapeCase{"", ""}, EscapeCase{"reference.relu", "reference.relu"},
                    EscapeCase{"x\ngate: accepted under assurance checked\x1b[8m",
                               "x\\ngate: accepted under assurance checked\\x1b[8m"},
                    EscapeCase{"a\tb\rc", "a\\tb\\rc"},
                    EscapeCase{std::string("nul\0x", 5), "nul\\x00x"},
                    EscapeCase{"del\x7f", "del\\x7f"},
                    // Well-formed UTF-8 letters stay; a lone continuation byte and a truncated
                    // sequence do not.
                    EscapeCase{"caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5"},
                    EscapeCase{"bad\x80", "bad\\x80"}, EscapeCase{"cut\xe6\x97", "cut\\xe6\\x97"},
                    // U+009B (C1 CSI) and U+202E (right-to-left override).
                    EscapeCase{"csi\xc2\x9b"
                               "31m",
                               "csi\\u009b31m"},
                    EscapeCase{"abc\xe2\x80\xae"
                               "fed",
                               "abc\\u202efed"},
                    EscapeCase{"iso\xe2\x81\xa6x", "iso\\u2066x"}));

}  // namespace
}  // namespace nnplan
