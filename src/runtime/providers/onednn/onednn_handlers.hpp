// The onednn provider's handler tables (SPEC §12): each op family's file defines one table of
// (capsule name, backend op, handler) rows, and onednn_provider.cpp registers every row under its
// capsule record of backend::onednn_module() on provider onednn, device cpu. Every handler is
// forward-only (vjp none), prepares one oneDNN primitive when the buffer is compiled, and runs it
// on dense buffers, flat or (convs, pools, batch norm, broadcast and the element-wise ops, where
// the command buffer says so) channels-last; the order of its sums and its thread count are
// oneDNN's.
#pragma once

#include <span>
#include <string_view>

#include "nnplan/backend/vocabulary.hpp"
#include "nnplan/runtime/kernel.hpp"

namespace nnplan::runtime::onednn {

struct OnednnHandler {
  std::string_view capsule;  // "onednn.conv", "onednn.conv_add_relu"
  backend::BackendOp op = backend::BackendOp::add;
  HandlerDefinition handler;
};

// One table per op family, one file each (src/runtime/providers/onednn/<family>.cpp).
[[nodiscard]] std::span<const OnednnHandler> matmul_handlers();         // matmul, linear
[[nodiscard]] std::span<const OnednnHandler> convolution_handlers();    // conv, conv_transpose
[[nodiscard]] std::span<const OnednnHandler> pooling_handlers();        // max_pool, avg_pool
[[nodiscard]] std::span<const OnednnHandler> normalization_handlers();  // batch/layer norm
[[nodiscard]] std::span<const OnednnHandler> softmax_handlers();        // softmax, log_softmax
[[nodiscard]] std::span<const OnednnHandler> eltwise_handlers();        // relu ... clamp
[[nodiscard]] std::span<const OnednnHandler> binary_handlers();         // add ... min
[[nodiscard]] std::span<const OnednnHandler> fused_handlers();          // conv_relu ... matmul_add
[[nodiscard]] std::span<const OnednnHandler> attention_handlers();      // attention
[[nodiscard]] std::span<const OnednnHandler> data_movement_handlers();  // broadcast ... slice
[[nodiscard]] std::span<const OnednnHandler> recurrent_handlers();      // rnn, gru, lstm
[[nodiscard]] std::span<const OnednnHandler> resize_handlers();         // resize
[[nodiscard]] std::span<const OnednnHandler> reduction_handlers();      // reduce_sum ... _prod

// The reorder between flat and channels-last (reorder.cpp), registered for provider onednn.
[[nodiscard]] HandlerDefinition reorder_handler();

// The file every onednn handler's vjp_tests names: the suite onednn_forward_only_tests.
inline constexpr TestSuiteRef kForwardOnlyTests{.source =
                                                    "tests/runtime/onednn/forward_only_test.cpp"};

}  // namespace nnplan::runtime::onednn
