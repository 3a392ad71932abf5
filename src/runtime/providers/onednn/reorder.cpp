// onednn's reorder (SPEC §12): the handler of the commands that change a value between flat and
// channels-last (kernel.hpp, TensorLayout) where the command buffer keeps a value channels-last
// between onednn commands. It copies every element to its place in the other layout on oneDNN's
// reorder primitive; it computes nothing, so the values are unchanged bit for bit.
#include "runtime/providers/onednn/onednn_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

Expected<std::unique_ptr<KernelState>> prepare_reorder(const PrepareCall& call) {
  return guarded_prepare(
      "create a reorder primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        const auto dims = dims_of(call.output_shape);
        return std::unique_ptr<KernelState>(reorder_state(
            call, layout_desc(dims, call.input_layout), layout_desc(dims, call.output_layout)));
      });
}

void reorder_forward(const KernelCall& call) {
  execute(call);
}

}  // namespace

HandlerDefinition reorder_handler() {
  return {.symbol = "nnplan::runtime::onednn::reorder_forward",
          .forward = reorder_forward,
          .vjp = nullptr,
          .shape_guard = nullptr,
          .layout_guard = nullptr,
          .prepare = prepare_reorder};
}

}  // namespace nnplan::runtime::onednn
