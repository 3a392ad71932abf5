// Shapes: element counts (scalar, empty, overflowing products), the checked arithmetic at the
// 64-bit edge, and the `[2,3,4]` spelling.
#include "nnplan/ir/shape.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>

#include "graph_fixtures.hpp"

namespace nnplan::ir {
// A namespace of this file's own: the unity build puts several test files in one translation
// unit, and their file-local helpers must not meet.
namespace shape_test {
namespace {

using fixtures::shape;

constexpr Dim kMax = std::numeric_limits<Dim>::max();
constexpr Dim k2to32 = Dim{1} << 32;
constexpr Dim k2to63 = Dim{1} << 63;

struct CountCase {
  std::string name;
  Shape shape;
  std::optional<Dim> count;
};

class ShapeElementCountTest : public ::testing::TestWithParam<CountCase> {};

TEST_P(ShapeElementCountTest, Count) {
  EXPECT_EQ(element_count(GetParam().shape), GetParam().count) << to_string(GetParam().shape);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ShapeElementCountTest,
    ::testing::Values(CountCase{"scalar", shape({}), 1}, CountCase{"vector", shape({7}), 7},
                      CountCase{"matrix", shape({2, 3}), 6},
                      CountCase{"rank4", shape({2, 3, 4, 5}), 120},
                      CountCase{"zero_dim", shape({4, 0, 3}), 0},
                      CountCase{"zero_dim_after_huge", shape({k2to63, 4, 0}), 0},
                      CountCase{"max_dim", shape({kMax}), kMax},
                      CountCase{"max_times_one", shape({1, kMax, 1}), kMax},
                      CountCase{"just_fits", shape({k2to32 - 1, k2to32 + 1}), kMax},
                      CountCase{"two_to_63_times_2", shape({k2to63, 2}), std::nullopt},
                      CountCase{"two_to_32_squared", shape({k2to32, k2to32}), std::nullopt},
                      CountCase{"max_times_max", shape({kMax, kMax}), std::nullopt},
                      CountCase{"overflow_late", shape({2, 2, 2, k2to63}), std::nullopt}),
    [](const auto& info) { return fixtures::test_name(info.param.name); });

struct ArithmeticCase {
  std::string name;
  Dim a;
  Dim b;
  std::optional<Dim> product;
  std::optional<Dim> sum;
};

class ShapeArithmeticTest : public ::testing::TestWithParam<ArithmeticCase> {};

TEST_P(ShapeArithmeticTest, MulAndAdd) {
  const ArithmeticCase& c = GetParam();
  EXPECT_EQ(checked_mul(c.a, c.b), c.product);
  EXPECT_EQ(checked_mul(c.b, c.a), c.product);
  EXPECT_EQ(checked_add(c.a, c.b), c.sum);
  EXPECT_EQ(checked_add(c.b, c.a), c.sum);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ShapeArithmeticTest,
    ::testing::Values(ArithmeticCase{"zeros", 0, 0, 0, 0}, ArithmeticCase{"small", 6, 7, 42, 13},
                      ArithmeticCase{"zero_times_max", 0, kMax, 0, kMax},
                      ArithmeticCase{"one_times_max", 1, kMax, kMax, std::nullopt},
                      ArithmeticCase{"half_plus_half", k2to63, k2to63 - 1, std::nullopt, kMax},
                      ArithmeticCase{"two_to_63_doubled", k2to63, 2, std::nullopt, k2to63 + 2},
                      ArithmeticCase{"two_to_63_plus_itself", k2to63, k2to63, std::nullopt,
                                     std::nullopt},
                      ArithmeticCase{"just_fits", k2to32 - 1, k2to32 + 1, kMax, 2 * k2to32},
                      ArithmeticCase{"just_overflows", k2to32, k2to32, std::nullopt, 2 * k2to32},
                      ArithmeticCase{"max_plus_zero", kMax, 0, 0, kMax},
                      ArithmeticCase{"max_plus_one", kMax, 1, kMax, std::nullopt}),
    [](const auto& info) { return fixtures::test_name(info.param.name); });

struct SpellingCase {
  Shape shape;
  std::string text;
};

class ShapeToStringTest : public ::testing::TestWithParam<SpellingCase> {};

TEST_P(ShapeToStringTest, Spelling) {
  EXPECT_EQ(to_string(GetParam().shape), GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ShapeToStringTest,
    ::testing::Values(SpellingCase{shape({}), "[]"}, SpellingCase{shape({7}), "[7]"},
                      SpellingCase{shape({2, 3, 4}), "[2,3,4]"},
                      SpellingCase{shape({0, 1}), "[0,1]"},
                      SpellingCase{shape({kMax, 2}), "[18446744073709551615,2]"}));

TEST(ShapeTest, RankAndEquality) {
  EXPECT_EQ(shape({}).rank(), 0u);
  EXPECT_EQ(shape({2, 3, 4}).rank(), 3u);
  EXPECT_EQ(shape({2, 3}), shape({2, 3}));
  EXPECT_NE(shape({2, 3}), shape({3, 2}));
  EXPECT_NE(shape({1}), shape({}));
}

}  // namespace
}  // namespace shape_test
}  // namespace nnplan::ir
