#include "nnplan/ir/op_kind.hpp"

namespace nnplan::ir {

Arity arity_of(OpKind kind) {
  switch (kind) {
    case OpKind::input:
    case OpKind::const_:
    case OpKind::rand_uniform:
      return {.min = 0, .max = 0};
    // bernoulli_mask's one parent is the scalar keep probability.
    case OpKind::bernoulli_mask:
    case OpKind::permute:
    case OpKind::detach:
    case OpKind::abs:
    case OpKind::sqrt:
    case OpKind::inv:
    case OpKind::max_pool2d:
    case OpKind::max_pool2d_pad:
    case OpKind::avg_pool2d:
    case OpKind::avg_pool2d_pad:
    case OpKind::broadcast_to:
    case OpKind::reduce_sum:
    case OpKind::reduce_mean:
    case OpKind::sum:
    case OpKind::linear:
    case OpKind::conv2d:
    case OpKind::batch_norm2d_nchw_eval:
    case OpKind::relu:
    case OpKind::tanh:
    case OpKind::sigmoid:
    case OpKind::exp:
    case OpKind::log:
    case OpKind::sin:
    case OpKind::cos:
    case OpKind::softmax:
    case OpKind::layernorm:
    case OpKind::reshape:
    case OpKind::flatten:
    case OpKind::swap_first_two:
    case OpKind::transpose3d_last_two:
      return {.min = 1, .max = 1};
    case OpKind::add:
    case OpKind::sub:
    case OpKind::mul_elem:
    case OpKind::max_elem:
    case OpKind::min_elem:
    case OpKind::matmul:
    case OpKind::mse_loss:
      return {.min = 2, .max = 2};
    case OpKind::concat:
      return {.min = 2, .max = kUnbounded};
  }
  return {};
}

}  // namespace nnplan::ir
