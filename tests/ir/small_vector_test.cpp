// SmallVector: std::vector's meaning across the inline/heap boundary, self-referencing inserts
// and assignments, moves that leave the source empty, and comparisons.
#include "nnplan/ir/small_vector.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <list>
#include <vector>

namespace nnplan::ir {
namespace {

using Small = SmallVector<std::uint64_t, 4>;

std::vector<std::uint64_t> as_vector(const Small& v) {
  return {v.begin(), v.end()};
}

TEST(SmallVectorTest, StartsEmptyAndInline) {
  const Small v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.size(), 0u);
  EXPECT_EQ(v.capacity(), 4u);
  EXPECT_EQ(v.begin(), v.end());
}

TEST(SmallVectorTest, ConstructorsMatchStdVector) {
  EXPECT_EQ(as_vector(Small{1, 2, 3}), (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_EQ(as_vector(Small(3)), (std::vector<std::uint64_t>{0, 0, 0}));
  EXPECT_EQ(as_vector(Small(6, 7)), (std::vector<std::uint64_t>(6, 7)));
  const std::vector<std::uint64_t> source{9, 8, 7, 6, 5};
  EXPECT_EQ(as_vector(Small(source)), source);
  EXPECT_EQ(as_vector(Small(source.begin() + 1, source.end())),
            (std::vector<std::uint64_t>{8, 7, 6, 5}));
  const std::list<std::uint64_t> list{4, 5};  // a range that is not contiguous
  EXPECT_EQ(as_vector(Small(list.begin(), list.end())), (std::vector<std::uint64_t>{4, 5}));
}

TEST(SmallVectorTest, PushBackGrowsPastTheInlineCapacityKeepingElements) {
  Small v;
  for (std::uint64_t i = 0; i < 100; ++i) {
    v.push_back(i);
    ASSERT_EQ(v.size(), i + 1);
    ASSERT_EQ(v.back(), i);
  }
  EXPECT_GE(v.capacity(), 100u);
  for (std::uint64_t i = 0; i < 100; ++i)
    EXPECT_EQ(v[i], i);
}

TEST(SmallVectorTest, PushBackOfOwnElementWhileGrowing) {
  Small v{1, 2, 3, 4};  // full: the next push_back moves to the heap
  v.push_back(v[0]);
  EXPECT_EQ(as_vector(v), (std::vector<std::uint64_t>{1, 2, 3, 4, 1}));
}

TEST(SmallVectorTest, CopyAndMoveInlineAndHeap) {
  for (const std::size_t n : {std::size_t{3}, std::size_t{9}}) {
    Small a(n, 5);
    Small copy = a;
    EXPECT_EQ(copy, a);
    Small moved = std::move(a);
    EXPECT_EQ(moved, copy);
    EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty, by contract
    a.push_back(1);          // and usable
    EXPECT_EQ(as_vector(a), (std::vector<std::uint64_t>{1}));
    Small assigned{1};
    assigned = copy;
    EXPECT_EQ(assigned, copy);
    Small move_assigned(12, 1);
    move_assigned = std::move(copy);
    EXPECT_EQ(move_assigned, moved);
  }
}

TEST(SmallVectorTest, SelfAssignmentKeepsElements) {
  Small v{1, 2, 3, 4, 5, 6};
  const Small& same = v;
  v = same;
  EXPECT_EQ(as_vector(v), (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6}));
  v.assign(v.begin() + 2, v.end());  // a view of its own later elements
  EXPECT_EQ(as_vector(v), (std::vector<std::uint64_t>{3, 4, 5, 6}));
  v.assign(v.begin(), v.end());  // all of itself
  EXPECT_EQ(as_vector(v), (std::vector<std::uint64_t>{3, 4, 5, 6}));
}

TEST(SmallVectorTest, AssignConvertsElementsOfAnotherType) {
  const std::vector<int> ints{7, 8, 9};
  Small v{1, 2, 3, 4, 5};
  v.assign(ints.begin(), ints.end());  // contiguous, but not of uint64: converted one by one
  EXPECT_EQ(as_vector(v), (std::vector<std::uint64_t>{7, 8, 9}));
}

TEST(SmallVectorTest, AssignResizeAndClear) {
  Small v{1, 2};
  v.assign(7, 3);
  EXPECT_EQ(as_vector(v), (std::vector<std::uint64_t>(7, 3)));
  v.resize(2);
  EXPECT_EQ(as_vector(v), (std::vector<std::uint64_t>{3, 3}));
  v.resize(5, 9);
  EXPECT_EQ(as_vector(v), (std::vector<std::uint64_t>{3, 3, 9, 9, 9}));
  v.pop_back();
  EXPECT_EQ(as_vector(v), (std::vector<std::uint64_t>{3, 3, 9, 9}));
  v = {4, 5};
  EXPECT_EQ(as_vector(v), (std::vector<std::uint64_t>{4, 5}));
  v = std::vector<std::uint64_t>{6};
  EXPECT_EQ(as_vector(v), (std::vector<std::uint64_t>{6}));
  v.clear();
  EXPECT_TRUE(v.empty());
}

TEST(SmallVectorTest, InsertAndEraseMatchStdVector) {
  Small v{1, 2, 3};
  std::vector<std::uint64_t> expected{1, 2, 3};
  v.insert(v.begin(), 0);
  expected.insert(expected.begin(), 0);
  v.insert(v.begin() + 2, 2, 7);
  expected.insert(expected.begin() + 2, 2, 7);
  v.insert(v.end(), {8, 9});
  expected.insert(expected.end(), {8, 9});
  EXPECT_EQ(as_vector(v), expected);
  v.insert(v.begin() + 1, v.begin(), v.end());  // a view of itself
  const std::vector<std::uint64_t> before = expected;
  expected.insert(expected.begin() + 1, before.begin(), before.end());
  EXPECT_EQ(as_vector(v), expected);
  v.erase(v.begin() + 3);
  expected.erase(expected.begin() + 3);
  v.erase(v.begin(), v.begin() + 4);
  expected.erase(expected.begin(), expected.begin() + 4);
  EXPECT_EQ(as_vector(v), expected);
}

TEST(SmallVectorTest, ComparesLikeStdVector) {
  EXPECT_EQ(Small({1, 2}), Small({1, 2}));
  EXPECT_NE(Small({1, 2}), Small({1, 2, 3}));
  EXPECT_LT(Small({1, 2}), Small({1, 3}));
  EXPECT_LT(Small({1, 2}), Small({1, 2, 0}));
  EXPECT_EQ(Small(9, 1), Small(std::vector<std::uint64_t>(9, 1)));  // heap against heap
}

TEST(SmallVectorTest, AtChecksBounds) {
  Small v{1};
  EXPECT_EQ(v.at(0), 1u);
  EXPECT_THROW((void)v.at(1), std::out_of_range);
}

TEST(SmallVectorTest, ReverseIterationAndToVector) {
  const Small v{1, 2, 3, 4, 5};
  EXPECT_EQ(std::vector<std::uint64_t>(v.rbegin(), v.rend()),
            (std::vector<std::uint64_t>{5, 4, 3, 2, 1}));
  EXPECT_EQ(v.to_vector(), (std::vector<std::uint64_t>{1, 2, 3, 4, 5}));
}

}  // namespace
}  // namespace nnplan::ir
