// onednn handlers: broadcast (IR kind broadcast_to) on oneDNN's reorder primitive, reading the
// input through a view of the output's dims whose stride is 0 along every added or stretched
// axis. It copies: every output element is one input element, unchanged. Channels-last when its
// input is (same rank: the view walks the input's channels-last strides).
#include <variant>

#include "runtime/providers/onednn/onednn_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/broadcast_test.cpp"};

// The input as a view of the output's dims: its strides (in `layout`) right-aligned, 0 where an
// axis is added or stretched from 1.
dnnl::memory::desc broadcast_view(const ir::Shape& in, const ir::Shape& out, TensorLayout layout) {
  const dnnl::memory::dims out_dims = dims_of(out);
  dnnl::memory::dims strides(out_dims.size(), 0);
  if (in.rank() > 0) {
    const dnnl::memory::dims in_strides = layout_strides(dims_of(in), layout);
    const std::size_t lead = out.rank() - in.rank();
    for (std::size_t i = 0; i < in.rank(); ++i) {
      strides[lead + i] = in.dims[i] == 1 && out.dims[lead + i] != 1 ? 0 : in_strides[i];
    }
  }
  return {out_dims, dnnl::memory::data_type::f32, strides};
}

// Channels-last needs the input and output of one rank (3 or more), so that axis 1 is the
// channel axis of both.
bool broadcast_takes_channels_last(const PrepareCall& call) {
  return !call.input_shapes.empty() && call.input_shapes[0]->rank() == call.output_shape.rank() &&
         call.output_shape.rank() >= 3;
}

Expected<std::unique_ptr<KernelState>> prepare_broadcast(const PrepareCall& call) {
  const TensorLayout layout = call.input_layout;
  if (layout != call.output_layout ||
      (layout == TensorLayout::channels_last && !broadcast_takes_channels_last(call))) {
    return std::unexpected(unsupported(
        "the broadcast was asked to run with its input " + std::string(to_string(layout)) +
        " and its output " + std::string(to_string(call.output_layout)) +
        "; it runs on one layout, channels-last only from an input of the output's rank"));
  }
  return guarded_prepare(
      "create a reorder primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        const ir::Shape& in = *call.input_shapes[0];
        const auto from = broadcast_view(in, call.output_shape, layout);
        const auto to = layout_desc(dims_of(call.output_shape), layout);
        auto state = new_state(call);
        state->primitive =
            dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), from, cpu_engine(), to));
        // The input buffer holds only the input's elements: bind it through the view.
        state->bindings = {{.arg = DNNL_ARG_FROM, .input = 0, .desc = from},
                           {.arg = DNNL_ARG_TO, .input = Binding::kOutput, .desc = to}};
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

void broadcast_forward(const KernelCall& call) {
  execute(call);
}

constexpr GuardFn kShapes = reference_shapes<backend::BackendOp::broadcast>;

constexpr OnednnHandler kHandlers[] = {
    {.capsule = "onednn.broadcast",
     .op = backend::BackendOp::broadcast,
     .handler = {.symbol = "nnplan::runtime::onednn::broadcast_forward",
                 .forward = broadcast_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<kShapes>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<kShapes, prepare_broadcast>,
                 .layouts = LayoutSupport::any_shared,
                 .takes_channels_last = broadcast_takes_channels_last,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
};

}  // namespace

std::span<const OnednnHandler> broadcast_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
