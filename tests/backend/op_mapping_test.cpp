// backend_op_of: the SPEC §6 table from IR op kinds to backend ops, typed out by hand.
#include "nnplan/backend/op_mapping.hpp"

#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>

namespace nnplan::backend {
namespace {

struct BackendOpCase {
  ir::OpKind kind;
  std::optional<BackendOp> op;
};

constexpr std::array<BackendOpCase, ir::kOpKindCount> kBackendOpCases = {{
    {ir::OpKind::input, std::nullopt},
    {ir::OpKind::const_, std::nullopt},
    {ir::OpKind::permute, BackendOp::permute},
    {ir::OpKind::detach, std::nullopt},
    {ir::OpKind::rand_uniform, BackendOp::rand_uniform},
    {ir::OpKind::bernoulli_mask, BackendOp::bernoulli_mask},
    {ir::OpKind::add, BackendOp::add},
    {ir::OpKind::sub, BackendOp::sub},
    {ir::OpKind::mul_elem, BackendOp::mul},
    {ir::OpKind::abs, BackendOp::abs},
    {ir::OpKind::sqrt, BackendOp::sqrt},
    {ir::OpKind::inv, BackendOp::inv},
    {ir::OpKind::max_elem, BackendOp::max},
    {ir::OpKind::min_elem, BackendOp::min},
    {ir::OpKind::max_pool2d, BackendOp::max_pool},
    {ir::OpKind::max_pool2d_pad, BackendOp::max_pool},
    {ir::OpKind::avg_pool2d, BackendOp::avg_pool},
    {ir::OpKind::avg_pool2d_pad, BackendOp::avg_pool},
    {ir::OpKind::broadcast_to, BackendOp::broadcast},
    {ir::OpKind::reduce_sum, BackendOp::reduce_sum},
    {ir::OpKind::reduce_mean, BackendOp::reduce_mean},
    {ir::OpKind::sum, BackendOp::reduce_sum},
    {ir::OpKind::matmul, BackendOp::matmul},
    {ir::OpKind::linear, BackendOp::linear},
    {ir::OpKind::conv2d, BackendOp::conv},
    {ir::OpKind::batch_norm2d_nchw_eval, BackendOp::batch_norm},
    {ir::OpKind::relu, BackendOp::relu},
    {ir::OpKind::tanh, BackendOp::tanh},
    {ir::OpKind::sigmoid, BackendOp::sigmoid},
    {ir::OpKind::exp, BackendOp::exp},
    {ir::OpKind::log, BackendOp::log},
    {ir::OpKind::sin, BackendOp::sin},
    {ir::OpKind::cos, BackendOp::cos},
    {ir::OpKind::softmax, BackendOp::softmax},
    {ir::OpKind::layernorm, BackendOp::layer_norm},
    {ir::OpKind::reshape, BackendOp::reshape},
    {ir::OpKind::flatten, BackendOp::reshape},
    {ir::OpKind::concat, BackendOp::concat},
    {ir::OpKind::swap_first_two, BackendOp::permute},
    {ir::OpKind::transpose3d_last_two, BackendOp::permute},
    {ir::OpKind::mse_loss, BackendOp::mse_loss},
}};

TEST(OpMappingTest, BackendOpOfEveryKind) {
  for (std::size_t i = 0; i < kBackendOpCases.size(); ++i) {
    const BackendOpCase& c = kBackendOpCases[i];
    ASSERT_EQ(c.kind, static_cast<ir::OpKind>(i)) << "table out of enumerator order at " << i;
    const std::optional<BackendOp> op = backend_op_of(c.kind);
    EXPECT_EQ(op, c.op) << ir::to_string(c.kind) << " -> "
                        << (op ? std::string(to_string(*op)) : std::string("none"));
  }
}

}  // namespace
}  // namespace nnplan::backend
