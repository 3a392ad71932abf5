// onednn handlers: the pooling family. max_pool and avg_pool on oneDNN's pooling primitive over
// the last spatial_rank (1 to 3) axes with symmetric padding; the axis before them is oneDNN's
// channel axis (oneDNN's jit kernels run flat nchw only with the channels as their own axis;
// folded into the batch, only its far slower simple_nchw kernel does) and the leading axes fold
// into its batch axis. avg_pool divides by the full kernel volume (padding included),
// as the reference does.
#include <string>
#include <variant>

#include "runtime/providers/onednn/onednn_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/pooling_test.cpp"};

// {outer, channels, spatial...} for a pool operand of `rank` spatial axes: the axis before the
// spatial ones is oneDNN's channel axis (1 when there is none), the axes before it its batch.
dnnl::memory::dims pool_dims(const ir::Shape& s, std::size_t rank) {
  const std::size_t first = s.rank() - rank;
  const std::size_t channel = first == 0 ? 0 : first - 1;
  dnnl::memory::dims d{extent(s, 0, channel), extent(s, channel, first)};
  for (std::size_t i = first; i < s.rank(); ++i)
    d.push_back(static_cast<dnnl::memory::dim>(s.dims[i]));
  return d;
}

Expected<void> pool_limits(const ir::Node& node) {
  const auto* p = std::get_if<ir::PoolParams>(&node.params);
  if (p == nullptr) return std::unexpected(unsupported("the node carries no pool parameters"));
  const std::string op(ir::to_string(node.kind));
  if (p->spatial_rank < 1 || p->spatial_rank > 3) {
    return std::unexpected(unsupported("spatial_rank " + std::to_string(p->spatial_rank) +
                                       "; onednn " + op + " needs 1 to 3 spatial axes"));
  }
  for (std::size_t i = 0; i < p->padding.size() && i < p->kernel.size(); ++i) {
    if (p->padding[i] >= p->kernel[i]) {
      return std::unexpected(unsupported(
          "padding " + std::to_string(p->padding[i]) + " on spatial axis " + std::to_string(i) +
          " is not smaller than the kernel " + std::to_string(p->kernel[i]) + "; onednn " + op +
          " needs every window to reach the input"));
    }
  }
  return {};
}

template <backend::BackendOp Op>
Expected<void> pool_shapes(const KernelCall& call) {
  if (auto ok = ir_shapes<Op>(call); !ok) return ok;
  return pool_limits(call.node);
}

// Whether the pool's channel axis (the axis before its spatial ones) is axis 1, where a
// channels-last value has its channels last.
bool pool_takes_channels_last(const PrepareCall& call) {
  const auto* p = std::get_if<ir::PoolParams>(&call.node.params);
  return p != nullptr && !call.input_shapes.empty() &&
         call.input_shapes[0]->rank() == p->spatial_rank + 2;
}

template <dnnl::algorithm Algorithm>
Expected<std::unique_ptr<KernelState>> prepare_pool(const PrepareCall& call) {
  if (auto ok = pool_limits(call.node); !ok) return std::unexpected(ok.error());
  const auto& p = std::get<ir::PoolParams>(call.node.params);
  return guarded_prepare(
      "create a pooling primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        // Channels-last only where the pool's channel axis is axis 1 (pool_takes_channels_last).
        const TensorLayout layout = call.input_layout;
        if (layout != call.output_layout ||
            (layout == TensorLayout::channels_last && !pool_takes_channels_last(call))) {
          return std::unexpected(unsupported(
              "the pool was asked to run with its input " + std::string(to_string(layout)) +
              " and its output " + std::string(to_string(call.output_layout)) +
              "; it runs on one layout, channels-last only when its channel axis is axis 1"));
        }
        const auto src_md = layout_desc(pool_dims(*call.input_shapes[0], p.spatial_rank), layout);
        const auto dst_md = layout_desc(pool_dims(call.node.shape, p.spatial_rank), layout);
        dnnl::memory::dims kernel, strides, padding;
        for (std::size_t i = 0; i < p.spatial_rank; ++i) {
          kernel.push_back(p.kernel[i]);
          strides.push_back(p.stride[i]);
          padding.push_back(p.padding[i]);
        }
        const dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, Algorithm,
                                               src_md, dst_md, strides, kernel, padding, padding);
        const dnnl::pooling_forward::primitive_desc pd(desc, cpu_engine());
        auto state = new_state(call);
        state->primitive = dnnl::pooling_forward(pd);
        state->bindings = {{.arg = DNNL_ARG_SRC, .input = 0, .desc = src_md},
                           {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = dst_md}};
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

void max_pool_forward(const KernelCall& call) {
  execute(call);
}
void avg_pool_forward(const KernelCall& call) {
  execute(call);
}

constexpr OnednnHandler kHandlers[] = {
    {.capsule = "onednn.max_pool",
     .op = backend::BackendOp::max_pool,
     .handler = {.symbol = "nnplan::runtime::onednn::max_pool_forward",
                 .forward = max_pool_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<pool_shapes<backend::BackendOp::max_pool>>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<pool_shapes<backend::BackendOp::max_pool>,
                                            prepare_pool<dnnl::algorithm::pooling_max>>,
                 .layouts = LayoutSupport::any_shared,
                 .takes_channels_last = pool_takes_channels_last,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
    {.capsule = "onednn.avg_pool",
     .op = backend::BackendOp::avg_pool,
     .handler = {.symbol = "nnplan::runtime::onednn::avg_pool_forward",
                 .forward = avg_pool_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<pool_shapes<backend::BackendOp::avg_pool>>,
                 .layout_guard = flat_row_major_guard,
                 .prepare =
                     checked_prepare<pool_shapes<backend::BackendOp::avg_pool>,
                                     prepare_pool<dnnl::algorithm::pooling_avg_include_padding>>,
                 .layouts = LayoutSupport::any_shared,
                 .takes_channels_last = pool_takes_channels_last,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
};

}  // namespace

std::span<const OnednnHandler> pooling_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
