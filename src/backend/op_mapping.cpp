#include "nnplan/backend/op_mapping.hpp"

namespace nnplan::backend {

std::optional<BackendOp> backend_op_of(ir::OpKind kind) {
  using ir::OpKind;
  switch (kind) {
    case OpKind::input:
    case OpKind::const_:
    case OpKind::detach:
      return std::nullopt;
    case OpKind::permute:
    case OpKind::swap_first_two:
    case OpKind::transpose3d_last_two:
      return BackendOp::permute;
    case OpKind::rand_uniform:
      return BackendOp::rand_uniform;
    case OpKind::bernoulli_mask:
      return BackendOp::bernoulli_mask;
    case OpKind::add:
      return BackendOp::add;
    case OpKind::sub:
      return BackendOp::sub;
    case OpKind::mul_elem:
      return BackendOp::mul;
    case OpKind::abs:
      return BackendOp::abs;
    case OpKind::sqrt:
      return BackendOp::sqrt;
    case OpKind::inv:
      return BackendOp::inv;
    case OpKind::max_elem:
      return BackendOp::max;
    case OpKind::min_elem:
      return BackendOp::min;
    case OpKind::max_pool2d:
    case OpKind::max_pool2d_pad:
      return BackendOp::max_pool;
    case OpKind::avg_pool2d:
    case OpKind::avg_pool2d_pad:
      return BackendOp::avg_pool;
    case OpKind::broadcast_to:
      return BackendOp::broadcast;
    case OpKind::reduce_sum:
    case OpKind::sum:
      return BackendOp::reduce_sum;
    case OpKind::reduce_mean:
      return BackendOp::reduce_mean;
    case OpKind::matmul:
      return BackendOp::matmul;
    case OpKind::linear:
      return BackendOp::linear;
    case OpKind::conv2d:
      return BackendOp::conv;
    case OpKind::batch_norm2d_nchw_eval:
      return BackendOp::batch_norm;
    case OpKind::relu:
      return BackendOp::relu;
    case OpKind::tanh:
      return BackendOp::tanh;
    case OpKind::sigmoid:
      return BackendOp::sigmoid;
    case OpKind::exp:
      return BackendOp::exp;
    case OpKind::log:
      return BackendOp::log;
    case OpKind::sin:
      return BackendOp::sin;
    case OpKind::cos:
      return BackendOp::cos;
    case OpKind::softmax:
      return BackendOp::softmax;
    case OpKind::layernorm:
      return BackendOp::layer_norm;
    case OpKind::reshape:
    case OpKind::flatten:
      return BackendOp::reshape;
    case OpKind::concat:
      return BackendOp::concat;
    case OpKind::mse_loss:
      return BackendOp::mse_loss;
  }
  return std::nullopt;
}

}  // namespace nnplan::backend
