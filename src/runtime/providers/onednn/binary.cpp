// onednn handlers: the binary element-wise ops (add, sub, mul, max, min over two operands of one
// shape, as the IR's elementwise_binary rule and the reference require) on oneDNN's binary
// primitive over the tensors viewed as one axis. Each runs in place on input 0.
#include "runtime/providers/onednn/onednn_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/binary_test.cpp"};

template <dnnl::algorithm Algorithm>
Expected<std::unique_ptr<KernelState>> prepare_binary(const PrepareCall& call) {
  return guarded_prepare(
      "create a binary primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        const auto md = row_major_desc({extent(call.node.shape, 0, call.node.shape.rank())});
        const dnnl::binary::desc desc(Algorithm, md, md, md);
        const dnnl::binary::primitive_desc pd(desc, cpu_engine());
        auto state = new_state(call);
        state->primitive = dnnl::binary(pd);
        state->bindings = {{.arg = DNNL_ARG_SRC_0, .input = 0, .desc = md},
                           {.arg = DNNL_ARG_SRC_1, .input = 1, .desc = md},
                           {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = md}};
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

void binary_forward(const KernelCall& call) {
  execute(call);
}

template <backend::BackendOp Op, dnnl::algorithm Algorithm>
constexpr OnednnHandler row(std::string_view capsule) {
  return {.capsule = capsule,
          .op = Op,
          .handler = {.symbol = "nnplan::runtime::onednn::binary_forward",
                      .forward = binary_forward,
                      .vjp = nullptr,
                      .shape_guard = prepared_guard<ir_shapes<Op>>,
                      .layout_guard = flat_row_major_guard_in_place,
                      .prepare = checked_prepare<ir_shapes<Op>, prepare_binary<Algorithm>>,
                      .in_place_safe = true,
                      .layouts = LayoutSupport::any_shared,
                      .forward_tests = kTests,
                      .vjp_tests = kForwardOnlyTests}};
}

using backend::BackendOp;
using dnnl::algorithm;
constexpr OnednnHandler kHandlers[] = {
    row<BackendOp::add, algorithm::binary_add>("onednn.add"),
    row<BackendOp::sub, algorithm::binary_sub>("onednn.sub"),
    row<BackendOp::mul, algorithm::binary_mul>("onednn.mul"),
    row<BackendOp::max, algorithm::binary_max>("onednn.max"),
    row<BackendOp::min, algorithm::binary_min>("onednn.min"),
};

}  // namespace

std::span<const OnednnHandler> binary_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
