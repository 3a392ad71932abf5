// The op-kind table (ir/op_kinds.def, op_table.hpp): properties every row must have, checked
// over all kinds rather than against a copy of the table. Each column is consistent with the
// others (parameters with fields, payload shapes with parameters, shape rules with arity), the
// spellings round-trip, and a value outside the enum gets the "<invalid>" row.
#include "nnplan/ir/op_kind.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <variant>

#include "nnplan/ir/op_table.hpp"

namespace nnplan::ir {
namespace {

std::string test_name(std::string_view text) {
  std::string out;
  for (const char ch : text)
    out += std::isalnum(static_cast<unsigned char>(ch)) != 0 ? ch : '_';
  return out;
}

class OpKindRow : public ::testing::TestWithParam<std::size_t> {
 protected:
  OpKind kind() const { return static_cast<OpKind>(GetParam()); }
  const OpKindTraits& row() const { return op_traits(kind()); }
};

TEST_P(OpKindRow, IsInEnumeratorOrderAndSpellingsRoundTrip) {
  EXPECT_EQ(row().kind, kind());
  EXPECT_EQ(&row(), &kOpKindTable[GetParam()]);
  EXPECT_EQ(row().spelling, to_string(kind()));
  EXPECT_FALSE(row().spelling.empty());
  const Expected<OpKind> parsed = parse_op_kind(row().spelling);
  ASSERT_TRUE(parsed.has_value()) << row().spelling;
  EXPECT_EQ(*parsed, kind());
}

TEST_P(OpKindRow, ArityIsABoundAndMatchesArityOf) {
  EXPECT_LE(row().arity.min, row().arity.max);
  EXPECT_EQ(arity_of(kind()), row().arity);
  // Only concat (unbounded), attention (q, k, v), where (condition, x, y), the scatters (data,
  // indices, updates), lstm (x, h, c), the convs (x, weight, bias), batch_norm_eval (x and its
  // statistics) and roi_align (x, rois, batch indices) take more than the two parents a node
  // holds inline.
  if (row().arity.max != kUnbounded && kind() != OpKind::scaled_dot_product_attention &&
      kind() != OpKind::where && kind() != OpKind::scatter_elements &&
      kind() != OpKind::scatter_nd && kind() != OpKind::lstm && kind() != OpKind::conv &&
      kind() != OpKind::conv_transpose && kind() != OpKind::batch_norm_eval &&
      kind() != OpKind::roi_align) {
    EXPECT_LE(row().arity.max, 2u);
  }
}

TEST_P(OpKindRow, ParametersHaveFieldsExactlyWhenTheKindHasParameters) {
  ASSERT_LT(row().params, std::variant_size_v<OpParams>);
  const bool has_params = row().params != kParamsIndex<std::monostate>;
  EXPECT_EQ(has_params, !row().fields.empty()) << row().spelling;
  std::set<std::string_view> seen;
  for (const std::string_view field : row().fields) {
    EXPECT_FALSE(field.empty());
    EXPECT_TRUE(seen.insert(field).second) << row().spelling << " repeats field " << field;
    for (const std::string_view node_field : {"id", "kind", "parents", "shape", "name"}) {
      EXPECT_NE(field, node_field) << row().spelling << ": an op field shadows a node field";
    }
  }
}

TEST_P(OpKindRow, PayloadSlotsAreDistinctAndShapedFromTheParameters) {
  std::set<std::string_view> names;
  for (const PayloadSlot& slot : row().payloads) {
    EXPECT_FALSE(slot.name.empty());
    EXPECT_TRUE(names.insert(slot.name).second) << row().spelling << " repeats " << slot.name;
    EXPECT_EQ(slot.attribute, slot.shape == PayloadShape::none) << slot.name;
    switch (slot.shape) {
      case PayloadShape::none:
        break;
      case PayloadShape::value_shape:
        EXPECT_EQ(row().params, kParamsIndex<ConstParams>) << row().spelling;
        break;
      case PayloadShape::linear_weight:
      case PayloadShape::linear_bias:
        EXPECT_EQ(row().shape_rule, ShapeRule::linear) << row().spelling;
        break;
      case PayloadShape::conv_weight:
        EXPECT_EQ(row().shape_rule, ShapeRule::conv) << row().spelling;
        break;
      case PayloadShape::conv_transpose_weight:
        EXPECT_EQ(row().shape_rule, ShapeRule::conv_transpose) << row().spelling;
        break;
      case PayloadShape::conv_bias:
        EXPECT_EQ(row().params, kParamsIndex<ConvParams>) << row().spelling;
        break;
      case PayloadShape::channels:
        EXPECT_EQ(row().params, kParamsIndex<ChannelAxisParams>) << row().spelling;
        break;
      case PayloadShape::normalized:
        EXPECT_EQ(row().kind, OpKind::layernorm) << row().spelling;
        break;
      case PayloadShape::gather_indices:
        EXPECT_TRUE(slot.int64) << slot.name;
        EXPECT_EQ(row().shape_rule, ShapeRule::gather) << row().spelling;
        break;
      case PayloadShape::recurrent_weight:
      case PayloadShape::recurrent_recurrence:
      case PayloadShape::recurrent_bias:
        EXPECT_EQ(row().shape_rule, ShapeRule::recurrent) << row().spelling;
        EXPECT_EQ(row().params, kParamsIndex<RecurrentParams>) << row().spelling;
        break;
    }
  }
}

// The rule that infers a kind's shape reads as many parents as the kind has.
TEST_P(OpKindRow, ShapeRuleFitsTheArity) {
  const Arity a = row().arity;
  switch (row().shape_rule) {
    case ShapeRule::declared:
    case ShapeRule::const_value:
      EXPECT_EQ(a, (Arity{0, 0})) << row().spelling;
      break;
    case ShapeRule::elementwise_binary:
    case ShapeRule::paired_to_scalar:
    case ShapeRule::matmul:
    case ShapeRule::scalar_epsilon:
      EXPECT_EQ(a, (Arity{2, 2})) << row().spelling;
      break;
    case ShapeRule::attention:
    case ShapeRule::roi_align:
    case ShapeRule::scatter_elements:
    case ShapeRule::scatter_nd:
      EXPECT_EQ(a, (Arity{3, 3})) << row().spelling;
      break;
    case ShapeRule::gather_elements:
    case ShapeRule::gather_nd:
    case ShapeRule::grid_sample:
    case ShapeRule::max_unpool:
      EXPECT_EQ(a, (Arity{2, 2})) << row().spelling;
      break;
    case ShapeRule::gather:
      // indices from the payload (one parent) or as an int64 value (the second parent).
      EXPECT_EQ(a, (Arity{1, 2})) << row().spelling;
      break;
    case ShapeRule::recurrent:
      // X, then the initial hidden state and (lstm) the initial cell state.
      EXPECT_EQ(a, (Arity{1, row().kind == OpKind::lstm ? 3U : 2U})) << row().spelling;
      break;
    case ShapeRule::broadcast_operands:
      // A fixed count of operands (2, or where's 3), so the kernel walks a known number.
      EXPECT_EQ(a.min, a.max) << row().spelling;
      EXPECT_GE(a.min, 2U) << row().spelling;
      EXPECT_LE(a.max, 3U) << row().spelling;
      break;
    case ShapeRule::concat:
      EXPECT_EQ(a, (Arity{2, kUnbounded})) << row().spelling;
      break;
    case ShapeRule::pool:
      EXPECT_EQ(row().params, kParamsIndex<PoolParams>) << row().spelling;
      EXPECT_EQ(a, (Arity{1, 1})) << row().spelling;
      break;
    case ShapeRule::conv:
    case ShapeRule::conv_transpose:
      // the input, then the weight and the bias when given as values.
      EXPECT_EQ(row().params, kParamsIndex<ConvParams>) << row().spelling;
      EXPECT_EQ(a, (Arity{1, 3})) << row().spelling;
      break;
    case ShapeRule::batch_norm:
      // the input, then scale, bias, mean and var when given as values.
      EXPECT_EQ(a, (Arity{1, 5})) << row().spelling;
      break;
    case ShapeRule::keep_probability:
    case ShapeRule::same_as_parent:
    case ShapeRule::broadcast:
    case ShapeRule::reduce_axis:
    case ShapeRule::reduce_all:
    case ShapeRule::linear:
    case ShapeRule::along_axis:
    case ShapeRule::reshape:
    case ShapeRule::flatten:
    case ShapeRule::masked_softmax:
    case ShapeRule::transpose:
    case ShapeRule::slice:
    case ShapeRule::resize:
    case ShapeRule::max_pool_indices:
    case ShapeRule::permute:
    case ShapeRule::top_k:
      EXPECT_EQ(a, (Arity{1, 1})) << row().spelling;
      break;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryKind, OpKindRow, ::testing::Range<std::size_t>(0, kOpKindCount),
                         [](const auto& info) { return test_name(kOpKindNames[info.param]); });

// Window kinds name their per-axis lists; only conv_transpose takes output_padding.
// (max_pool_indices is a window kind with padding_after and dilation, as conv.)
TEST(OpKindTable, WindowKindsTakeTheirPerAxisFields) {
  const auto has = [](const OpKindTraits& row, std::string_view field) {
    return std::find(row.fields.begin(), row.fields.end(), field) != row.fields.end();
  };
  for (const OpKindTraits& row : kOpKindTable) {
    const ShapeRule rule = row.shape_rule;
    const bool window = rule == ShapeRule::pool || rule == ShapeRule::conv ||
                        rule == ShapeRule::conv_transpose || rule == ShapeRule::max_pool_indices;
    for (const std::string_view field : {"spatial_rank", "kernel", "stride", "padding"}) {
      EXPECT_EQ(has(row, field), window) << row.spelling << " " << field;
    }
    EXPECT_EQ(has(row, "output_padding"), rule == ShapeRule::conv_transpose) << row.spelling;
  }
}

// Which kinds TorchLean writes and which are nnplan's own (SPEC §6).
TEST(OpKindTable, ExtensionKindsAreNnplans) {
  std::set<std::string_view> extensions;
  for (const OpKindTraits& row : kOpKindTable) {
    if (row.origin == KindOrigin::nnplan) extensions.insert(row.spelling);
  }
  EXPECT_EQ(extensions, (std::set<std::string_view>{"gelu",
                                                    "clamp",
                                                    "scale",
                                                    "slice",
                                                    "gather",
                                                    "log_softmax",
                                                    "conv_transpose",
                                                    "scaled_dot_product_attention",
                                                    "leaky_relu",
                                                    "elu",
                                                    "softsign",
                                                    "floor",
                                                    "ceil",
                                                    "round",
                                                    "sign",
                                                    "tan",
                                                    "asin",
                                                    "acos",
                                                    "atan",
                                                    "sinh",
                                                    "cosh",
                                                    "asinh",
                                                    "acosh",
                                                    "atanh",
                                                    "reduce_max",
                                                    "reduce_min",
                                                    "reduce_prod",
                                                    "argmax",
                                                    "argmin",
                                                    "equal",
                                                    "less",
                                                    "less_or_equal",
                                                    "greater",
                                                    "greater_or_equal",
                                                    "and",
                                                    "or",
                                                    "xor",
                                                    "not",
                                                    "where",
                                                    "cast",
                                                    "erf",
                                                    "pow",
                                                    "gather_elements",
                                                    "top_k",
                                                    "cum_sum",
                                                    "scatter_elements",
                                                    "scatter_nd",
                                                    "gather_nd",
                                                    "mod",
                                                    "fmod",
                                                    "rnn",
                                                    "gru",
                                                    "lstm",
                                                    "grid_sample",
                                                    "max_unpool",
                                                    "resize",
                                                    "roi_align",
                                                    "max_pool_indices",
                                                    "hard_sigmoid",
                                                    "hard_swish",
                                                    "silu"}));
}

// Every kind makes float32 of float32 parents except these (SPEC §6's dtype rule).
TEST(OpKindTable, DTypeRulesOtherThanFloat32) {
  std::map<std::string_view, DTypeRule> other;
  for (const OpKindTraits& row : kOpKindTable) {
    if (row.dtype_rule != DTypeRule::float32) other.emplace(row.spelling, row.dtype_rule);
  }
  EXPECT_EQ(other,
            (std::map<std::string_view, DTypeRule>{{"input", DTypeRule::declared},
                                                   {"const", DTypeRule::declared},
                                                   {"reshape", DTypeRule::as_parent},
                                                   {"flatten", DTypeRule::as_parent},
                                                   {"argmax", DTypeRule::indices},
                                                   {"argmin", DTypeRule::indices},
                                                   {"equal", DTypeRule::comparison},
                                                   {"less", DTypeRule::comparison},
                                                   {"less_or_equal", DTypeRule::comparison},
                                                   {"greater", DTypeRule::comparison},
                                                   {"greater_or_equal", DTypeRule::comparison},
                                                   {"and", DTypeRule::logical},
                                                   {"or", DTypeRule::logical},
                                                   {"xor", DTypeRule::logical},
                                                   {"not", DTypeRule::logical},
                                                   {"where", DTypeRule::select},
                                                   {"cast", DTypeRule::declared},
                                                   {"gather_elements", DTypeRule::indexed},
                                                   {"gather", DTypeRule::indexed},
                                                   {"top_k", DTypeRule::indices},
                                                   {"cum_sum", DTypeRule::arithmetic},
                                                   {"scatter_elements", DTypeRule::scatter},
                                                   {"scatter_nd", DTypeRule::scatter},
                                                   {"gather_nd", DTypeRule::indexed},
                                                   {"mod", DTypeRule::arithmetic},
                                                   {"fmod", DTypeRule::arithmetic},
                                                   {"max_unpool", DTypeRule::indexed},
                                                   {"roi_align", DTypeRule::batch_indexed},
                                                   {"max_pool_indices", DTypeRule::indices}}));
}

TEST(OpKindTable, ReadsDeclaredShapeOnlyForKindsWhoseShapeIsNotImplied) {
  std::set<std::string_view> reading;
  for (const OpKindTraits& row : kOpKindTable) {
    if (reads_declared_shape(row.shape_rule)) reading.insert(row.spelling);
  }
  EXPECT_EQ(reading,
            (std::set<std::string_view>{"input", "rand_uniform", "bernoulli_mask", "linear",
                                        "gather", "top_k", "max_unpool", "resize", "roi_align"}));
}

TEST(OpKindTable, AValueOutsideTheEnumGetsTheInvalidRow) {
  for (const int value : {static_cast<int>(kOpKindCount), 200, 255}) {
    const auto kind = static_cast<OpKind>(value);
    EXPECT_EQ(to_string(kind), "<invalid>");
    EXPECT_EQ(&op_traits(kind), &kInvalidOpKindTraits);
    EXPECT_EQ(arity_of(kind), (Arity{0, 0}));
    EXPECT_TRUE(op_traits(kind).fields.empty());
    EXPECT_TRUE(op_traits(kind).payloads.empty());
  }
}

TEST(OpKindTable, SpellingsThatDifferFromTheirEnumerator) {
  EXPECT_EQ(to_string(OpKind::const_), "const");
  EXPECT_FALSE(parse_op_kind("const_").has_value());
}

TEST(OpKindTable, UnknownKindListsEverySpelling) {
  const Expected<OpKind> parsed = parse_op_kind("conv3d");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_EQ(parsed.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(parsed.error().message.find("unknown op kind 'conv3d'; valid: input, const, detach"),
            std::string::npos)
      << parsed.error().message;
  EXPECT_NE(parsed.error().message.find("conv_transpose, scaled_dot_product_attention"),
            std::string::npos)
      << parsed.error().message;
}

}  // namespace
}  // namespace nnplan::ir
