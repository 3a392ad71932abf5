// onednn handlers: the softmax family. softmax and log_softmax on oneDNN's softmax_v2 primitive
// (algorithms softmax_accurate and softmax_log) along the node's axis, the tensor viewed as
// {outer, length, inner}. hard_masked_softmax views its input as {batch, mask rows, length} (the
// mask's leading axes broadcast over batch): a binary min with the mask as +inf where allowed and
// -inf where forbidden (oneDNN broadcasting it over batch) into the output, so that a forbidden
// position is -inf whatever it held, then the softmax over length in place; a row whose mask
// allows nothing is then written as zeros, the reference's rule.
#include <algorithm>
#include <cstddef>
#include <limits>
#include <variant>
#include <vector>

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

// The two primitives of a masked softmax, the mask they apply, and the mask rows that allow
// nothing.
struct MaskedSoftmaxState : PrimitiveState {
  dnnl::binary apply_mask;
  dnnl::softmax_v2_forward softmax;
  dnnl::memory::desc values_md;
  dnnl::memory mask;
  std::size_t batch = 0;
  std::size_t mask_rows = 0;
  std::size_t length = 0;
  std::vector<std::size_t> empty_rows;
};

Expected<std::unique_ptr<KernelState>> prepare_masked_softmax(const PrepareCall& call) {
  const auto& p = std::get<ir::MaskParams>(call.node.params);
  return guarded_prepare(
      "create the masked softmax's primitives", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        const ir::Shape& x = *call.input_shapes[0];
        auto state = std::make_unique<MaskedSoftmaxState>();
        fill_state(*state, call);
        const std::size_t count = element_count_of(x);
        state->length = x.rank() == 0 ? 0 : static_cast<std::size_t>(x.dims[x.rank() - 1]);
        if (count == 0 || state->length == 0) return std::unique_ptr<KernelState>(std::move(state));
        state->mask_rows = p.allowed.size() / state->length;
        state->batch = count / p.allowed.size();
        const auto dim = [](std::size_t n) { return static_cast<dnnl::memory::dim>(n); };
        state->values_md =
            row_major_desc({dim(state->batch), dim(state->mask_rows), dim(state->length)});
        const auto mask_md = row_major_desc({1, dim(state->mask_rows), dim(state->length)});
        state->mask = dnnl::memory(mask_md, cpu_engine());
        auto* m = static_cast<float*>(state->mask.get_data_handle());
        for (std::size_t r = 0; r < state->mask_rows; ++r) {
          bool any = false;
          for (std::size_t k = 0; k < state->length; ++k) {
            const bool allowed = p.allowed[r * state->length + k];
            constexpr float kInf = std::numeric_limits<float>::infinity();
            m[r * state->length + k] = allowed ? kInf : -kInf;
            any = any || allowed;
          }
          if (!any) state->empty_rows.push_back(r);
        }
        state->apply_mask = dnnl::binary(dnnl::binary::primitive_desc(
            dnnl::binary::desc(dnnl::algorithm::binary_min, state->values_md, mask_md,
                               state->values_md),
            cpu_engine()));
        state->softmax = dnnl::softmax_v2_forward(dnnl::softmax_v2_forward::primitive_desc(
            dnnl::softmax_v2_forward::desc(dnnl::prop_kind::forward_inference,
                                           dnnl::algorithm::softmax_accurate, state->values_md,
                                           state->values_md, 2),
            cpu_engine()));
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

void hard_masked_softmax_forward(const KernelCall& call) {
  const auto& state = static_cast<const MaskedSoftmaxState&>(*call.state);
  if (state.batch == 0) return;
  launch(call, state, "run the masked softmax's primitives", [&](dnnl::stream& stream) {
    const dnnl::engine& engine = cpu_engine();
    const dnnl::memory x(state.values_md, engine, const_cast<float*>(call.inputs[0].data<float>()));
    const dnnl::memory y(state.values_md, engine, call.output.data<float>());
    state.apply_mask.execute(
        stream, {{DNNL_ARG_SRC_0, x}, {DNNL_ARG_SRC_1, state.mask}, {DNNL_ARG_DST, y}});
    state.softmax.execute(stream, {{DNNL_ARG_SRC, y}, {DNNL_ARG_DST, y}});
  });
  float* out = call.output.data<float>();
  for (std::size_t b = 0; b < state.batch; ++b) {
    for (const std::size_t r : state.empty_rows) {
      float* row = out + (b * state.mask_rows + r) * state.length;
      std::fill(row, row + state.length, 0.0F);
    }
  }
}

constexpr GuardFn kSoftmaxShapes = ir_shapes<backend::BackendOp::softmax>;
constexpr GuardFn kLogSoftmaxShapes = ir_shapes<backend::BackendOp::log_softmax>;
constexpr GuardFn kMaskedSoftmaxShapes = ir_shapes<backend::BackendOp::hard_masked_softmax>;

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
    {.capsule = "onednn.hard_masked_softmax",
     .op = backend::BackendOp::hard_masked_softmax,
     .handler = {.symbol = "nnplan::runtime::onednn::hard_masked_softmax_forward",
                 .forward = hard_masked_softmax_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<kMaskedSoftmaxShapes>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<kMaskedSoftmaxShapes, prepare_masked_softmax>,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
};

}  // namespace

std::span<const OnednnHandler> softmax_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
