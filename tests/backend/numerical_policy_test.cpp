// NumericalPolicy (SPEC §2): defaults and the report label
// `round=R,subnormal=S,contract=C,reduce=D`.
#include "nnplan/backend/numerical_policy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace nnplan::backend {
namespace {

TEST(NumericalPolicy, DefaultsAreUnspecified) {
  const NumericalPolicy p;
  EXPECT_EQ(p.rounding, Rounding::unspecified);
  EXPECT_EQ(p.subnormals, Subnormals::unspecified);
  EXPECT_EQ(p.contraction, Contraction::unspecified);
  EXPECT_EQ(p.reduction, ReductionOrder::unspecified);
}

struct LabelCase {
  NumericalPolicy policy;
  std::string label;
};

void PrintTo(const LabelCase& c, std::ostream* os) {
  *os << c.label;
}

class NumericalLabelTest : public ::testing::TestWithParam<LabelCase> {};

TEST_P(NumericalLabelTest, Label) {
  EXPECT_EQ(label(GetParam().policy), GetParam().label);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, NumericalLabelTest,
    ::testing::Values(
        LabelCase{
            {}, "round=unspecified,subnormal=unspecified,contract=unspecified,reduce=unspecified"},
        LabelCase{{Rounding::scalar_context, Subnormals::implementation_defined, Contraction::na,
                   ReductionOrder::fixed_left},
                  "round=scalar-context,subnormal=implementation-defined,contract=n/"
                  "a,reduce=fixed-left"},
        LabelCase{{Rounding::nearest_even, Subnormals::implementation_defined, Contraction::fused,
                   ReductionOrder::implementation_defined},
                  "round=nearest-even,subnormal=implementation-defined,contract=fused,reduce="
                  "implementation-defined"},
        LabelCase{{Rounding::directed, Subnormals::flush_to_zero, Contraction::separate,
                   ReductionOrder::fixed_tree},
                  "round=directed,subnormal=flush-to-zero,contract=separate,reduce=fixed-tree"},
        LabelCase{{Rounding::implementation_defined, Subnormals::gradual_underflow,
                   Contraction::implementation_defined, ReductionOrder::na},
                  "round=implementation-defined,subnormal=gradual-underflow,contract="
                  "implementation-defined,reduce=n/a"}));

// Every combination: the label is the four spellings in order, and distinct policies give
// distinct labels.
TEST(NumericalLabel, EveryCombination) {
  std::vector<std::string> labels;
  for (std::size_t r = 0; r < kRoundingNames.size(); ++r) {
    for (std::size_t s = 0; s < kSubnormalsNames.size(); ++s) {
      for (std::size_t c = 0; c < kContractionNames.size(); ++c) {
        for (std::size_t d = 0; d < kReductionOrderNames.size(); ++d) {
          const NumericalPolicy p{static_cast<Rounding>(r), static_cast<Subnormals>(s),
                                  static_cast<Contraction>(c), static_cast<ReductionOrder>(d)};
          const std::string expected = "round=" + std::string(kRoundingNames[r]) +
                                       ",subnormal=" + std::string(kSubnormalsNames[s]) +
                                       ",contract=" + std::string(kContractionNames[c]) +
                                       ",reduce=" + std::string(kReductionOrderNames[d]);
          EXPECT_EQ(label(p), expected);
          labels.push_back(label(p));
        }
      }
    }
  }
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(std::adjacent_find(labels.begin(), labels.end()), labels.end());
  EXPECT_EQ(labels.size(), 5u * 4u * 5u * 5u);
}

}  // namespace
}  // namespace nnplan::backend
