// The reference provider's handler tables (SPEC §11): each op family's file defines one table of
// (backend op, handler) rows, and reference_provider.cpp registers every row under the capsule
// `reference.<op>` (the attention capsule is `reference.attention`) on provider reference, device
// cpu. Every kernel here computes in program order, without multiply-add contraction (these
// sources build with -ffp-contract=off and without fast-math), accumulates each reduction left to
// right, and runs on the calling thread: the same inputs give bit-identical outputs. They compute
// in float32, except grid_sample, resize and roi_align, which compute in float64 and round their
// result to float32 once, as ONNX's reference does.
#pragma once

#include <span>
#include <string_view>

#include "nnplan/backend/vocabulary.hpp"
#include "nnplan/runtime/kernel.hpp"
#include "runtime/guards.hpp"

namespace nnplan::runtime::reference {

struct ReferenceHandler {
  backend::BackendOp op = backend::BackendOp::add;
  HandlerDefinition handler;
};

// One table per op family, one file each (src/runtime/providers/reference/<family>.cpp).
[[nodiscard]] std::span<const ReferenceHandler> elementwise_handlers();  // unary, binary, random
// The elementwise family's three files, which elementwise_handlers() joins.
[[nodiscard]] std::span<const ReferenceHandler> elementwise_unary_handlers();   // abs ... scale
[[nodiscard]] std::span<const ReferenceHandler> elementwise_binary_handlers();  // add ... safe_log
[[nodiscard]] std::span<const ReferenceHandler> random_source_handlers();   // rand_uniform, mask
[[nodiscard]] std::span<const ReferenceHandler> linear_algebra_handlers();  // matmul, linear
[[nodiscard]] std::span<const ReferenceHandler> convolution_handlers();     // conv, conv_transpose
[[nodiscard]] std::span<const ReferenceHandler> pooling_handlers();         // max_pool, avg_pool
[[nodiscard]] std::span<const ReferenceHandler> normalization_handlers();   // batch/layer norm
[[nodiscard]] std::span<const ReferenceHandler> softmax_handlers();         // softmax family
[[nodiscard]] std::span<const ReferenceHandler> attention_handlers();       // attention
[[nodiscard]] std::span<const ReferenceHandler> reduction_handlers();       // reduce_*, mse_loss
[[nodiscard]] std::span<const ReferenceHandler> data_movement_handlers();   // reshape ... gather
[[nodiscard]] std::span<const ReferenceHandler> comparison_handlers();      // equal ... not
[[nodiscard]] std::span<const ReferenceHandler> where_handlers();           // where
[[nodiscard]] std::span<const ReferenceHandler> cast_handlers();            // cast
[[nodiscard]] std::span<const ReferenceHandler> indexing_handlers();        // gather_elements, _nd
[[nodiscard]] std::span<const ReferenceHandler> modulo_handlers();          // mod, fmod
[[nodiscard]] std::span<const ReferenceHandler> scatter_handlers();         // scatter_elements, _nd
[[nodiscard]] std::span<const ReferenceHandler> recurrent_handlers();       // rnn, gru, lstm
[[nodiscard]] std::span<const ReferenceHandler> grid_sample_handlers();     // grid_sample
[[nodiscard]] std::span<const ReferenceHandler> max_unpool_handlers();      // max_unpool
[[nodiscard]] std::span<const ReferenceHandler> resize_handlers();          // resize
[[nodiscard]] std::span<const ReferenceHandler> roi_align_handlers();       // roi_align
[[nodiscard]] std::span<const ReferenceHandler> max_pool_indices_handlers();  // max_pool_indices
// Every family's table above, in this order (reference_provider.cpp registers them all).
[[nodiscard]] std::span<const std::span<const ReferenceHandler>> handler_tables();

// The layout guard of every reference capsule (canonical-tensor layout), operand_error and
// check_arity_and_output are the runtime's shared guards (runtime/guards.hpp), found here by
// name from the enclosing namespace.

// Shared by the kernels (weights.cpp): the data of payload `name`, or null when its slot is empty.
[[nodiscard]] const float* weight_data(const NodeWeights& weights, std::string_view name);
// Shared by the VJPs (weights.cpp): the gradient buffer of payload `name` (the input gradient of
// the parent standing for it, when the node takes it as a value), or null when the node has no
// such payload or its gradient is not wanted.
[[nodiscard]] float* weight_grad(const VjpCall& call, std::string_view name);

// The input of `call` that stands for payload slot `name` (SPEC §6, weights as values: the
// slot's value parent, when the node has that many parents), or null when the payload is not
// given so.
[[nodiscard]] const TensorRef* weight_value(const KernelCall& call, std::string_view name);
[[nodiscard]] const TensorRef* weight_value(const VjpCall& call, std::string_view name);
// The float32 data of slot `name`: its value parent's (weight_value), else the payload's; null
// when neither is given.
[[nodiscard]] const float* slot_data(const KernelCall& call, std::string_view name);
[[nodiscard]] const float* slot_data(const VjpCall& call, std::string_view name);

}  // namespace nnplan::runtime::reference
