// The importer's name tables (src/format/name_table.hpp): hash_name spreads short names over both
// halves of its value, NameTable finds what was set (overwrites, grows, keeps its own copies of
// the keys), and NamePool's copies outlive the names they were made from.
#include "format/name_table.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace nnplan::format::detail {
namespace {

TEST(HashName, IsDeterministicAndSpreadsShortNamesOverBothHalves) {
  std::set<std::uint64_t> full;
  std::set<std::uint32_t> low;
  std::set<std::uint32_t> high;
  std::vector<std::string> names = {"", "a", "b", "ab", "ba", "t1", "t10", "t01"};
  for (int i = 0; i < 20000; ++i)
    names.push_back("relu_" + std::to_string(i));
  for (int len = 1; len <= 40; ++len)
    names.push_back(std::string(static_cast<std::size_t>(len), 'x'));  // every tail length
  for (const std::string& name : names) {
    const std::uint64_t h = hash_name(name);
    EXPECT_EQ(h, hash_name(std::string(name))) << name;  // the bytes, not the address
    full.insert(h);
    low.insert(static_cast<std::uint32_t>(h) & 0xFFFFu);
    high.insert(static_cast<std::uint32_t>(h >> 32));
  }
  EXPECT_EQ(full.size(), names.size());  // no collision among these
  EXPECT_EQ(high.size(), names.size());  // the tag half alone tells them apart
  EXPECT_GT(low.size(), 15000u);         // the index bits fill a 2^16 table well
}

TEST(NameTable, FindsWhatWasSetAndOverwrites) {
  NameTable table;
  EXPECT_EQ(table.find("x"), nullptr);  // empty, never reserved
  table.set("x", 1);
  table.set("y", 2);
  table.set("x", 3);
  ASSERT_NE(table.find("x"), nullptr);
  EXPECT_EQ(*table.find("x"), 3u);
  EXPECT_EQ(*table.find("y"), 2u);
  EXPECT_FALSE(table.contains("z"));
  EXPECT_FALSE(table.contains(""));
  table.set("", 9);  // an empty name is a name like any other to the table
  EXPECT_EQ(*table.find(""), 9u);
}

TEST(NameTable, GrowsAndKeepsItsOwnCopiesOfTheKeys) {
  NameTable table;
  table.reserve(4);
  std::string scratch;
  for (ir::NodeId i = 0; i < 50000; ++i) {
    scratch = "tensor/" + std::to_string(i);
    table.set(scratch, i);
    scratch.assign(scratch.size(), '#');  // the caller's buffer is reused
  }
  for (ir::NodeId i = 0; i < 50000; i += 7) {
    const ir::NodeId* id = table.find("tensor/" + std::to_string(i));
    ASSERT_NE(id, nullptr) << i;
    EXPECT_EQ(*id, i);
  }
  EXPECT_EQ(table.find("tensor/50000"), nullptr);
}

// Keys inside the in-place bytes are found there (not copied: overwriting those bytes changes
// what the table sees), keys elsewhere are copies (their source can go away), and a key that
// only starts inside the bytes is a copy too.
TEST(NameTable, KeepsNamesInPlaceOnlyWhenWhollyInsideTheBytes) {
  std::string model = "t1 t2 tail";
  NameTable table;
  table.keep_in_place(std::string_view(model).substr(0, 5));  // "t1 t2"
  table.set(std::string_view(model).substr(0, 2), 1);         // "t1", in place
  table.set(std::string_view(model).substr(3, 2), 2);         // "t2", in place
  table.set(std::string_view(model).substr(3, 4), 3);         // "t2 t" runs past: a copy
  std::string other = "w";
  table.set(other, 4);  // elsewhere: a copy
  other = "#";
  EXPECT_EQ(*table.find("t1"), 1u);
  EXPECT_EQ(*table.find("t2"), 2u);
  EXPECT_EQ(*table.find("t2 t"), 3u);
  EXPECT_EQ(*table.find("w"), 4u);
  model[4] = '9';  // "t2" is read from the model's bytes, "t2 t" from the table's copy
  EXPECT_EQ(table.find("t2"), nullptr);
  EXPECT_EQ(*table.find("t2 t"), 3u);
  for (int i = 0; i < 2000; ++i)  // growing rehashes both kinds of key
    table.set("k" + std::to_string(i), static_cast<ir::NodeId>(100 + i));
  EXPECT_EQ(*table.find("t1"), 1u);
  EXPECT_EQ(*table.find("t2 t"), 3u);
  EXPECT_EQ(*table.find("k1999"), 2099u);
}

TEST(NamePool, CopiesOutliveTheirSources) {
  NamePool pool;
  std::vector<std::string_view> kept;
  for (int i = 0; i < 5000; ++i) {
    std::string name =
        "name_" + std::to_string(i) + std::string(static_cast<std::size_t>(i % 50), 'z');
    kept.push_back(pool.keep(name));
  }
  kept.push_back(pool.keep(std::string(100000, 'L')));  // larger than a block
  for (int i = 0; i < 5000; ++i) {
    EXPECT_EQ(kept[static_cast<std::size_t>(i)],
              "name_" + std::to_string(i) + std::string(static_cast<std::size_t>(i % 50), 'z'));
  }
  EXPECT_EQ(kept.back(), std::string(100000, 'L'));
  EXPECT_TRUE(pool.keep("").empty());
}

}  // namespace
}  // namespace nnplan::format::detail
