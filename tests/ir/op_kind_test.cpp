// Op kinds: the SPEC §6 spellings, the kind → backend-op mapping (typed here from the SPEC, not
// copied from the implementation) and the arity of every kind, each table covering all kinds.
#include "nnplan/ir/op_kind.hpp"

#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace nnplan::ir {
namespace {

TEST(OpKindTest, SpellingsFollowTheSpec) {
  const std::vector<std::string> spec = {
      "input",
      "const",
      "permute",
      "detach",
      "rand_uniform",
      "bernoulli_mask",
      "add",
      "sub",
      "mul_elem",
      "abs",
      "sqrt",
      "inv",
      "max_elem",
      "min_elem",
      "max_pool2d",
      "max_pool2d_pad",
      "avg_pool2d",
      "avg_pool2d_pad",
      "broadcast_to",
      "reduce_sum",
      "reduce_mean",
      "sum",
      "matmul",
      "linear",
      "conv2d",
      "batch_norm2d_nchw_eval",
      "relu",
      "tanh",
      "sigmoid",
      "exp",
      "log",
      "sin",
      "cos",
      "softmax",
      "layernorm",
      "reshape",
      "flatten",
      "concat",
      "swap_first_two",
      "transpose3d_last_two",
      "mse_loss",
  };
  ASSERT_EQ(spec.size(), kOpKindCount);
  for (std::size_t i = 0; i < kOpKindCount; ++i) {
    const auto kind = static_cast<OpKind>(i);
    EXPECT_EQ(to_string(kind), spec[i]);
    const Expected<OpKind> parsed = parse_op_kind(spec[i]);
    ASSERT_TRUE(parsed.has_value()) << spec[i];
    EXPECT_EQ(*parsed, kind);
  }
}

TEST(OpKindTest, UnknownKindListsEverySpelling) {
  const Expected<OpKind> parsed = parse_op_kind("conv3d");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_EQ(parsed.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(parsed.error().message.find("unknown op kind 'conv3d'; valid: input, const, permute"),
            std::string::npos)
      << parsed.error().message;
  EXPECT_NE(parsed.error().message.find("transpose3d_last_two, mse_loss"), std::string::npos);
  EXPECT_FALSE(parse_op_kind("const_").has_value());
}

struct ArityCase {
  OpKind kind;
  Arity arity;
};

constexpr Arity kNone{0, 0};
constexpr Arity kOne{1, 1};
constexpr Arity kTwo{2, 2};

constexpr std::array<ArityCase, kOpKindCount> kArityCases = {{
    {OpKind::input, kNone},
    {OpKind::const_, kNone},
    {OpKind::permute, kOne},
    {OpKind::detach, kOne},
    {OpKind::rand_uniform, kNone},
    {OpKind::bernoulli_mask, kOne},
    {OpKind::add, kTwo},
    {OpKind::sub, kTwo},
    {OpKind::mul_elem, kTwo},
    {OpKind::abs, kOne},
    {OpKind::sqrt, kOne},
    {OpKind::inv, kOne},
    {OpKind::max_elem, kTwo},
    {OpKind::min_elem, kTwo},
    {OpKind::max_pool2d, kOne},
    {OpKind::max_pool2d_pad, kOne},
    {OpKind::avg_pool2d, kOne},
    {OpKind::avg_pool2d_pad, kOne},
    {OpKind::broadcast_to, kOne},
    {OpKind::reduce_sum, kOne},
    {OpKind::reduce_mean, kOne},
    {OpKind::sum, kOne},
    {OpKind::matmul, kTwo},
    {OpKind::linear, kOne},
    {OpKind::conv2d, kOne},
    {OpKind::batch_norm2d_nchw_eval, kOne},
    {OpKind::relu, kOne},
    {OpKind::tanh, kOne},
    {OpKind::sigmoid, kOne},
    {OpKind::exp, kOne},
    {OpKind::log, kOne},
    {OpKind::sin, kOne},
    {OpKind::cos, kOne},
    {OpKind::softmax, kOne},
    {OpKind::layernorm, kOne},
    {OpKind::reshape, kOne},
    {OpKind::flatten, kOne},
    {OpKind::concat, {2, kUnbounded}},
    {OpKind::swap_first_two, kOne},
    {OpKind::transpose3d_last_two, kOne},
    {OpKind::mse_loss, kTwo},
}};

TEST(OpKindTest, ArityOfEveryKind) {
  for (std::size_t i = 0; i < kArityCases.size(); ++i) {
    const ArityCase& c = kArityCases[i];
    ASSERT_EQ(c.kind, static_cast<OpKind>(i)) << "table out of enumerator order at " << i;
    const Arity arity = arity_of(c.kind);
    EXPECT_EQ(arity, c.arity) << to_string(c.kind) << ": " << arity.min << ".." << arity.max;
  }
}

}  // namespace
}  // namespace nnplan::ir
