// The shared strict JSON reader of src/format (json_document.hpp): what it builds, and each way
// it refuses a document, with the location and limit its message names.
#include "format/json_document.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/format/limits.hpp"

namespace nnplan::format::detail {
namespace {

using Json = nlohmann::ordered_json;

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i)
    out += s;
  return out;
}

struct AcceptCase {
  std::string name;
  std::string text;
};

class JsonDocumentAccepts : public ::testing::TestWithParam<AcceptCase> {};

// The tree is the one nlohmann's own parser builds, key order included.
TEST_P(JsonDocumentAccepts, BuildsTheSameTreeAsNlohmann) {
  const auto doc = parse_json_document(GetParam().text);
  ASSERT_TRUE(doc.has_value()) << doc.error().problem;
  const Json expected = Json::parse(GetParam().text);
  EXPECT_EQ(*doc, expected);
  EXPECT_EQ(doc->dump(), expected.dump());
}

INSTANTIATE_TEST_SUITE_P(
    Documents, JsonDocumentAccepts,
    ::testing::Values(
        AcceptCase{"scalar_root", "42"}, AcceptCase{"string_root", R"("a\"b")"},
        AcceptCase{"null_root", " null "}, AcceptCase{"empty_object", "{}"},
        AcceptCase{"empty_array", "[]"},
        AcceptCase{"key_order_kept", R"({"z": 1, "a": 2, "m": [true, false, null]})"},
        AcceptCase{"numbers", R"([0, -1, 18446744073709551615, 1.5e3, -0.0])"},
        AcceptCase{"nested", R"({"a": {"b": [{"c": {}}, [], [[1]]]}, "d": "e"})"},
        AcceptCase{"same_key_in_sibling_objects", R"([{"k": 1}, {"k": 2}, {"x": {"k": 3}}])"},
        AcceptCase{"same_key_at_two_depths", R"({"k": {"k": {"k": 1}}})"},
        AcceptCase{"byte_order_mark", "\xEF\xBB\xBF{\"a\": 1}"},
        AcceptCase{"escaped_quotes_in_keys", R"({"a\"": 1, "a\\": 2, "a": 3})"},
        AcceptCase{"at_depth_limit",
                   std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']')},
        AcceptCase{"string_at_limit", "[\"" + std::string(kMaxStringBytes, 's') + "\"]"},
        AcceptCase{"trailing_whitespace", "{\"a\": 1} \n\t\r\n"}),
    [](const ::testing::TestParamInfo<AcceptCase>& info) { return info.param.name; });

struct RefuseCase {
  std::string name;
  std::string text;
  std::string problem;  // the whole message
};

class JsonDocumentRefuses : public ::testing::TestWithParam<RefuseCase> {};

TEST_P(JsonDocumentRefuses, WithLocationAndLimit) {
  const auto doc = parse_json_document(GetParam().text);
  ASSERT_FALSE(doc.has_value());
  EXPECT_EQ(doc.error().problem, GetParam().problem);
}

INSTANTIATE_TEST_SUITE_P(
    Documents, JsonDocumentRefuses,
    ::testing::Values(
        RefuseCase{"repeated_top_level_key", R"({"a": 1, "a": 2})",
                   "field a appears more than once (at line 1, column 10)"},
        RefuseCase{"repeated_key_in_array_element", "{\"x\": [{}, {\"b\": 1,\n \"b\": 2}]}",
                   "field x[1].b appears more than once (at line 2, column 2)"},
        RefuseCase{"repeated_key_three_deep", R"({"a": {"b": {"c": 1, "d": 2, "c": 3}}})",
                   "field a.b.c appears more than once (at line 1, column 30)"},
        RefuseCase{"repeated_key_with_escapes", R"({"q\"": 1, "q\u0022": 2})",
                   "field q\" appears more than once (at line 1, column 12)"},
        RefuseCase{"repeated_empty_key", R"({"": 1, "": {}})",
                   "field  appears more than once (at line 1, column 9)"},
        RefuseCase{"nul_after_document", std::string("{\"a\": 1}\0{\"a\": 2}", 17),
                   "NUL byte at line 1, column 9 (byte 8); JSON text cannot contain NUL"},
        RefuseCase{"nul_inside_document", std::string("{\"a\":\n \0 1}", 11),
                   "NUL byte at line 2, column 2 (byte 7); JSON text cannot contain NUL"},
        RefuseCase{"trailing_value", R"({"a": 1} {"a": 2})",
                   "content after the end of the JSON document at line 1, column 10"},
        RefuseCase{"trailing_garbage_next_line", "[1]\n  x",
                   "content after the end of the JSON document at line 2, column 3"},
        RefuseCase{"trailing_after_scalar", "1 2",
                   "content after the end of the JSON document at line 1, column 3"},
        RefuseCase{"too_deep", std::string(100000, '[') + std::string(100000, ']'),
                   "JSON nesting reaches 65 levels at line 1, column 65; the limit is 64 levels"},
        RefuseCase{"too_deep_unclosed", "{\"a\":\n" + std::string(100, '['),
                   "JSON nesting reaches 65 levels at line 2, column 64; the limit is 64 levels"},
        RefuseCase{"string_too_long",
                   "{\"a\":\n  \"" + std::string(kMaxStringBytes + 1, 's') + "\"}",
                   "JSON string at line 2, column 3 is 65537 bytes long; the limit is 65536 bytes "
                   "(64 KiB)"},
        RefuseCase{"key_too_long", "{\"" + std::string(70000, 'k') + "\": 1}",
                   "JSON string at line 1, column 2 is 70000 bytes long; the limit is 65536 bytes "
                   "(64 KiB)"},
        RefuseCase{"syntax", R"({"a" 1})",
                   "invalid JSON at line 1, column 6: syntax error while parsing object separator "
                   "- unexpected number literal; expected ':'"},
        RefuseCase{"empty", "",
                   "invalid JSON at line 1, column 1: syntax error while parsing value - "
                   "unexpected end of input; expected '[', '{', or a literal"},
        RefuseCase{"number_overflow", "[1e400]",
                   "invalid JSON at line 1, column 6: number overflow parsing '1e400'"}),
    [](const ::testing::TestParamInfo<RefuseCase>& info) { return info.param.name; });

// The element limit stops the tree before it grows: one element past it is refused, naming where.
// A small limit keeps the test cheap; the hostile-input table runs the real one.
TEST(JsonDocument, ElementLimitCountsEveryValue) {
  constexpr std::size_t kLimit = 1000;
  // The root array and kLimit - 1 zeros: exactly at the limit.
  const std::string at_limit = "[" + repeat("0,", kLimit - 2) + "0]";
  const auto ok = parse_json_document(at_limit, kLimit);
  ASSERT_TRUE(ok.has_value()) << ok.error().problem;
  EXPECT_EQ(ok->size(), kLimit - 1);

  // Empty arrays, objects and keyed values count like any value; keys do not.
  const std::string past = "{\"x\": [" + repeat("[],", kLimit - 3) + "{\"k\": []}]}";
  const auto refused = parse_json_document(past, kLimit);
  ASSERT_FALSE(refused.has_value());
  const std::size_t column = 8 + 3 * (kLimit - 3) + 6;
  EXPECT_EQ(refused.error().problem,
            "JSON document holds more than 1000 elements (at line 1, column " +
                std::to_string(column) +
                "); the limit is 1000 elements (values of any type) per document");
  EXPECT_TRUE(parse_json_document(past, kLimit + 1).has_value());
}

// A repeated key comes with its path and the document as read so far, so a reader can name the
// enclosing entities; other problems carry neither.
TEST(JsonDocument, RepeatedKeyCarriesPathAndPartialDocument) {
  const auto doc = parse_json_document(R"({"m": [{"name": "acme", "c": [{"n": 1, "n": 2}]}]})");
  ASSERT_FALSE(doc.has_value());
  ASSERT_TRUE(doc.error().repeated_key.has_value());
  const std::vector<JsonPathStep> path = {std::string("m"), std::size_t{0}, std::string("c"),
                                          std::size_t{0}, std::string("n")};
  EXPECT_EQ(*doc.error().repeated_key, path);
  EXPECT_EQ(doc.error().location, "line 1, column 40");
  EXPECT_EQ(doc.error().partial["m"][0]["name"], "acme");
  EXPECT_EQ(doc.error().partial["m"][0]["c"][0]["n"], 1);

  const auto deep = parse_json_document("[[[");
  ASSERT_FALSE(deep.has_value());
  EXPECT_FALSE(deep.error().repeated_key.has_value());
}

// Shallow members: read and checked, stored empty, not counted.
constexpr std::array<std::string_view, 2> kShallow = {"big", "obj"};

TEST(JsonDocumentShallow, MembersAreKeptEmptyAndScalarsAsTheyAre) {
  const auto doc = parse_json_document(
      R"({"a": [1, {"b": 2}], "big": [1, [2, {"c": 3}], "x"], "obj": {"k": [4]}, "n": 5})",
      kMaxJsonElements, {.shallow = kShallow});
  ASSERT_TRUE(doc.has_value()) << doc.error().problem;
  EXPECT_EQ(doc->dump(), R"({"a":[1,{"b":2}],"big":[],"obj":{},"n":5})");
  const auto scalar =
      parse_json_document(R"({"big": 7, "obj": null})", kMaxJsonElements, {.shallow = kShallow});
  ASSERT_TRUE(scalar.has_value()) << scalar.error().problem;
  EXPECT_EQ(scalar->dump(), R"({"big":7,"obj":null})");
  // Only the root object's members are shallow.
  const auto nested =
      parse_json_document(R"({"a": {"big": [1, 2]}})", kMaxJsonElements, {.shallow = kShallow});
  ASSERT_TRUE(nested.has_value()) << nested.error().problem;
  EXPECT_EQ(nested->dump(), R"({"a":{"big":[1,2]}})");
}

TEST(JsonDocumentShallow, EveryRuleStillAppliesInside) {
  const auto repeated = parse_json_document(R"({"big": [{}, {"x": 1, "x": 2}]})", kMaxJsonElements,
                                            {.shallow = kShallow});
  ASSERT_FALSE(repeated.has_value());
  EXPECT_EQ(repeated.error().problem,
            "field big[1].x appears more than once (at line 1, column 23)");
  const auto deep = parse_json_document("{\"big\": " + repeat("[", 70) + repeat("]", 70) + "}",
                                        kMaxJsonElements, {.shallow = kShallow});
  ASSERT_FALSE(deep.has_value());
  EXPECT_NE(deep.error().problem.find("JSON nesting reaches 65 levels"), std::string::npos)
      << deep.error().problem;
  const auto long_string =
      parse_json_document("{\"obj\": {\"s\": \"" + std::string(kMaxStringBytes + 1, 'a') + "\"}}",
                          kMaxJsonElements, {.shallow = kShallow});
  ASSERT_FALSE(long_string.has_value());
  EXPECT_NE(long_string.error().problem.find("bytes long; the limit is 65536 bytes"),
            std::string::npos)
      << long_string.error().problem;
  const auto trailing =
      parse_json_document(R"({"big": [1]} [])", kMaxJsonElements, {.shallow = kShallow});
  ASSERT_FALSE(trailing.has_value());
  EXPECT_NE(trailing.error().problem.find("content after the end of the JSON document"),
            std::string::npos)
      << trailing.error().problem;
}

TEST(JsonDocumentShallow, ShallowValuesDoNotCountTowardTheElementLimit) {
  const std::string big = "{\"big\": [" + repeat("[],", 999) + "[]], \"a\": [1, 2]}";
  // The root, the empty stand-in, the array a and its two numbers: 5 elements stored.
  const auto doc = parse_json_document(big, 5, {.shallow = kShallow});
  ASSERT_TRUE(doc.has_value()) << doc.error().problem;
  const auto over = parse_json_document(big, 4, {.shallow = kShallow});
  ASSERT_FALSE(over.has_value());
  EXPECT_NE(over.error().problem.find("JSON document holds more than 4 elements"),
            std::string::npos)
      << over.error().problem;
  // Without the shallow member the same document is far past the limit.
  EXPECT_FALSE(parse_json_document(big, 5).has_value());
}

TEST(JsonDocumentShallow, UnknownRootMembersAreNotBuilt) {
  constexpr std::array<std::string_view, 2> kKnown = {"format", "modules"};
  const std::string text =
      "{\"format\": \"x\", \"junk\": [" + repeat("[],", 999) + "[]], \"modules\": [1]}";
  const auto doc = parse_json_document(text, 6, {.known = kKnown});
  ASSERT_TRUE(doc.has_value()) << doc.error().problem;
  // The reader still sees the unknown key, to refuse it by name.
  EXPECT_EQ(doc->dump(), R"({"format":"x","junk":[],"modules":[1]})");
  EXPECT_FALSE(parse_json_document(text, 6).has_value());
}

TEST(JsonDocument, PathTextCutsLongKeys) {
  EXPECT_EQ(json_path_text({std::string("a"), std::size_t{3}, std::string("b")}), "a[3].b");
  EXPECT_EQ(json_path_text({std::size_t{0}, std::size_t{1}}), "[0][1]");
  const std::string text = json_path_text({std::string(1000, 'k')});
  EXPECT_LT(text.size(), 100u);
  EXPECT_TRUE(text.ends_with("...")) << text;
}

TEST(JsonDocument, NulProblemIsNulloptWithoutNul) {
  EXPECT_EQ(json_nul_problem(""), std::nullopt);
  EXPECT_EQ(json_nul_problem("{\"a\": \"\\u0000\"}"), std::nullopt);  // an escaped NUL is text
  EXPECT_NE(json_nul_problem(std::string(1, '\0')), std::nullopt);
}

}  // namespace
}  // namespace nnplan::format::detail
