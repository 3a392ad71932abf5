// IR op kinds (SPEC §6): the node tags of `torchlean.ir.v1` and their arity bounds. Which backend
// op each kind runs is the backend layer's business (backend/op_mapping.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "nnplan/enum_table.hpp"

namespace nnplan::ir {

enum class OpKind : std::uint8_t {
  input,
  const_,
  permute,
  detach,
  rand_uniform,
  bernoulli_mask,
  add,
  sub,
  mul_elem,
  abs,
  sqrt,
  inv,
  max_elem,
  min_elem,
  max_pool2d,
  max_pool2d_pad,
  avg_pool2d,
  avg_pool2d_pad,
  broadcast_to,
  reduce_sum,
  reduce_mean,
  sum,
  matmul,
  linear,
  conv2d,
  batch_norm2d_nchw_eval,
  relu,
  tanh,
  sigmoid,
  exp,
  log,
  sin,
  cos,
  softmax,
  layernorm,
  reshape,
  flatten,
  concat,
  swap_first_two,
  transpose3d_last_two,
  mse_loss,
};
inline constexpr std::array<std::string_view, 41> kOpKindNames = {
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
inline constexpr std::size_t kOpKindCount = kOpKindNames.size();

[[nodiscard]] constexpr std::string_view to_string(OpKind v) {
  return enum_name(kOpKindNames, v);
}
[[nodiscard]] inline Expected<OpKind> parse_op_kind(std::string_view s) {
  return parse_enum<OpKind>(kOpKindNames, s, "op kind");
}

// Inclusive bounds on the number of parents (concat: two or more, no upper bound).
struct Arity {
  std::uint32_t min = 0;
  std::uint32_t max = 0;  // kUnbounded for concat
  bool operator==(const Arity&) const = default;
};
inline constexpr std::uint32_t kUnbounded = 0xFFFFFFFFu;
[[nodiscard]] Arity arity_of(OpKind kind);

}  // namespace nnplan::ir
