// onednn handlers: the softmax family. softmax and log_softmax on oneDNN's softmax_v2 primitive
// (algorithms softmax_accurate and softmax_log) along the node's axis, the tensor viewed as
// {outer, length, inner}.
#include <variant>

#include "runtime/providers/onednn/onednn_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/softmax_test.cpp"};

template <dnnl::algorithm Algorithm>
Expected<std::unique_ptr<KernelState>> prepare_softmax(const PrepareCall& call) {
  const std::uint32_t axis = std::get<ir::AxisParams>(call.node.params).axis;
  return guarded_prepare(
      "create a softmax primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        const ir::Shape& x = *call.input_shapes[0];
        if (axis >= x.rank()) {
          return std::unexpected(unsupported("axis " + std::to_string(axis) +
                                             " is outside input 0 " + ir::to_string(x)));
        }
        const auto md =
            row_major_desc({extent(x, 0, axis), static_cast<dnnl::memory::dim>(x.dims[axis]),
                            extent(x, axis + 1, x.rank())});
        const dnnl::softmax_v2_forward::desc desc(dnnl::prop_kind::forward_inference, Algorithm, md,
                                                  md, 1);
        const dnnl::softmax_v2_forward::primitive_desc pd(desc, cpu_engine());
        auto state = new_state(call);
        state->primitive = dnnl::softmax_v2_forward(pd);
        state->bindings = {{.arg = DNNL_ARG_SRC, .input = 0, .desc = md},
                           {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = md}};
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

constexpr GuardFn kSoftmaxShapes = ir_shapes<backend::BackendOp::softmax>;
constexpr GuardFn kLogSoftmaxShapes = ir_shapes<backend::BackendOp::log_softmax>;

void softmax_forward(const KernelCall& call) {
  execute(call);
}
void log_softmax_forward(const KernelCall& call) {
  execute(call);
}

constexpr OnednnHandler kHandlers[] = {
    {.capsule = "onednn.softmax",
     .op = backend::BackendOp::softmax,
     .handler =
         {.symbol = "nnplan::runtime::onednn::softmax_forward",
          .forward = softmax_forward,
          .vjp = nullptr,
          .shape_guard = prepared_guard<kSoftmaxShapes>,
          .layout_guard = flat_row_major_guard,
          .prepare =
              checked_prepare<kSoftmaxShapes, prepare_softmax<dnnl::algorithm::softmax_accurate>>,
          .forward_tests = kTests,
          .vjp_tests = kForwardOnlyTests}},
    {.capsule = "onednn.log_softmax",
     .op = backend::BackendOp::log_softmax,
     .handler =
         {.symbol = "nnplan::runtime::onednn::log_softmax_forward",
          .forward = log_softmax_forward,
          .vjp = nullptr,
          .shape_guard = prepared_guard<kLogSoftmaxShapes>,
          .layout_guard = flat_row_major_guard,
          .prepare =
              checked_prepare<kLogSoftmaxShapes, prepare_softmax<dnnl::algorithm::softmax_log>>,
          .forward_tests = kTests,
          .vjp_tests = kForwardOnlyTests}},
};

}  // namespace

std::span<const OnednnHandler> softmax_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
