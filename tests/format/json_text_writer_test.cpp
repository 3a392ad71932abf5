// The streaming JSON writer (src/format/json_text_writer.hpp): the text it writes is the text
// nlohmann's dump(2, ' ', false, replace) prints for the same tree, for every shape of tree and
// every kind of string, and a sink receives the same bytes in bounded pieces.
#include "format/json_text_writer.hpp"
#include "format/json_common.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace nnplan::format::detail {
namespace {

std::string nlohmann_text(const Json& tree) {
  return detail::dump(tree);
}

std::string written(const Json& tree) {
  JsonTextWriter w;
  w.value(tree);
  w.finish();
  return w.text();
}

struct StringCase {
  const char* name;
  std::string text;
};

// Strings that take every path of the escaping: plain ASCII, JSON escapes, other control bytes,
// DEL, valid multi-byte UTF-8 and invalid bytes (written as the text \xNN).
const std::vector<StringCase> kStrings = {
    {"empty", ""},
    {"plain", "reference.relu"},
    {"quote_and_backslash", "a\"b\\c"},
    {"json_escapes", "\b\f\n\r\t"},
    {"other_controls", std::string("\x01\x1f\x1b[8m", 6)},
    {"nul", std::string("a\0b", 3)},
    {"del", "a\x7f"},
    {"utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
    {"invalid_lead",
     "a\xff"
     "b"},
    {"truncated_sequence", "a\xe2\x82"},
    {"lone_continuation", "\x80\x80x"},
    {"overlong", "\xc0\xaf"},
    {"surrogate", "\xed\xa0\x80"},
};

class JsonTextWriterStrings : public testing::TestWithParam<StringCase> {};

TEST_P(JsonTextWriterStrings, ValueAndKeyMatchNlohmann) {
  const std::string& s = GetParam().text;
  const Json tree = Json{{s, s}, {"list", Json::array({s, s})}};
  EXPECT_EQ(written(tree), nlohmann_text(tree));
}

INSTANTIATE_TEST_SUITE_P(Cases, JsonTextWriterStrings, testing::ValuesIn(kStrings),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(JsonTextWriter, EventsWriteTheIndentedLayout) {
  JsonTextWriter w;
  w.begin_object();
  w.key("empty_array");
  w.begin_array();
  w.end_array();
  w.key("empty_object");
  w.begin_object();
  w.end_object();
  w.key("list");
  w.begin_array();
  w.number(0);
  w.number(18446744073709551615u);
  w.boolean(true);
  w.null();
  w.string("x");
  w.end_array();
  w.end_object();
  w.finish();
  EXPECT_EQ(w.text(),
            "{\n"
            "  \"empty_array\": [],\n"
            "  \"empty_object\": {},\n"
            "  \"list\": [\n"
            "    0,\n"
            "    18446744073709551615,\n"
            "    true,\n"
            "    null,\n"
            "    \"x\"\n"
            "  ]\n"
            "}\n");
}

TEST(JsonTextWriter, ScalarAtTheRoot) {
  EXPECT_EQ(written(Json(7)), "7\n");
  EXPECT_EQ(written(Json("x")), "\"x\"\n");
  EXPECT_EQ(written(Json(nullptr)), "null\n");
  EXPECT_EQ(written(Json::array()), "[]\n");
}

// Seeded random trees: nesting, empty containers, every scalar type (floats and negative
// numbers included, which the writer passes to nlohmann) and strings from the table above.
Json random_tree(std::mt19937& rng, int depth) {
  const int pick = static_cast<int>(rng() % (depth > 4 ? 6 : 8));
  switch (pick) {
    case 0:
      return Json(nullptr);
    case 1:
      return Json(rng() % 2 == 0);
    case 2:
      return Json(static_cast<std::uint64_t>(rng()) << (rng() % 32));
    case 3:
      return Json(-static_cast<std::int64_t>(rng() % 1000));
    case 4:
      return Json(static_cast<double>(rng() % 10000) / 7.0);
    case 5:
      return Json(kStrings[rng() % kStrings.size()].text);
    case 6: {
      Json a = Json::array();
      const auto n = rng() % 4;
      for (unsigned i = 0; i < n; ++i)
        a.push_back(random_tree(rng, depth + 1));
      return a;
    }
    default: {
      Json o = Json::object();
      const auto n = rng() % 4;
      for (unsigned i = 0; i < n; ++i)
        o[kStrings[rng() % kStrings.size()].text + std::to_string(i)] = random_tree(rng, depth + 1);
      return o;
    }
  }
}

TEST(JsonTextWriter, RandomTreesMatchNlohmann) {
  std::mt19937 rng(20240601);
  for (int i = 0; i < 500; ++i) {
    const Json tree = random_tree(rng, 0);
    ASSERT_EQ(written(tree), nlohmann_text(tree)) << "tree " << i;
  }
}

TEST(JsonTextWriter, SinkReceivesTheSameBytesInBoundedPieces) {
  Json tree = Json::array();
  for (int i = 0; i < 20000; ++i)
    tree.push_back(Json{{"id", i}, {"name", "node" + std::to_string(i)}});
  std::string joined;
  std::size_t pieces = 0;
  std::size_t largest = 0;
  JsonTextWriter w([&](std::string_view piece) {
    joined += piece;
    ++pieces;
    largest = std::max(largest, piece.size());
  });
  w.value(tree);
  w.finish();
  EXPECT_EQ(joined, nlohmann_text(tree));
  EXPECT_GT(pieces, 10u);
  // A piece is flushed once it reaches kChunkBytes, so it exceeds it by at most one element.
  EXPECT_LT(largest, JsonTextWriter::kChunkBytes + 64);
  EXPECT_TRUE(w.text().empty());
}

}  // namespace
}  // namespace nnplan::format::detail
