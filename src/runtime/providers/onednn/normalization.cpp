// onednn handlers: the normalization family. batch_norm (IR kind batch_norm_eval) on oneDNN's
// batch normalization primitive in inference with the node's statistics (use_global_stats,
// scale and shift), the axes around the channel axis folded into {outer, channels, inner};
// with relu fused by the primitive's fuse_norm_relu flag for onednn.batch_norm_relu (fused.cpp);
// layer_norm (IR kind layernorm) on its layer normalization primitive over {outer, n}, n the
// product of the axes from `axis` on, with gamma and beta when the node has them. Payload
// statistics, scale and shift are copied once into memories the state owns; those given as
// values (weights as values) are bound at each launch.
#include <iterator>
#include <string>
#include <string_view>
#include <variant>

#include "runtime/providers/onednn/onednn_roots.hpp"

namespace nnplan::runtime::onednn {
namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/normalization_test.cpp"};
// SPEC §6's default when a layernorm node has no epsilon attribute.
constexpr double kLayerNormDefaultEpsilon = 1e-5;

dnnl::memory vector_memory(const ir::WeightTensor& t) {
  const auto md = row_major_desc({static_cast<dnnl::memory::dim>(t.size())});
  return constant_memory(t, md, md);
}

}  // namespace

// Whether the channel axis is axis 1 of a tensor of rank 3 or more, where a channels-last value
// has its channels last.
// A batch_norm with its statistics as values runs flat, like its vector inputs.
bool batch_norm_takes_channels_last(const PrepareCall& call) {
  const auto* p = std::get_if<ir::ChannelAxisParams>(&call.node.params);
  return p != nullptr && p->channel_axis == 1 && !call.input_shapes.empty() &&
         call.input_shapes[0]->rank() >= 3 && call.node.parents.size() == 1;
}

// The statistics in slot order, each with its oneDNN argument: a payload, or call input 1 to 4
// standing for it (weights as values), bound at each launch.
namespace {

struct Statistic {
  std::string_view slot;
  int arg;
};
constexpr Statistic kStatistics[] = {{"scale", DNNL_ARG_SCALE},
                                     {"bias", DNNL_ARG_SHIFT},
                                     {"mean", DNNL_ARG_MEAN},
                                     {"var", DNNL_ARG_VARIANCE}};

}  // namespace

Expected<std::unique_ptr<KernelState>> prepare_batch_norm_with(const PrepareCall& call, bool relu) {
  const auto& p = std::get<ir::ChannelAxisParams>(call.node.params);
  const std::size_t parents = call.node.parents.size();
  const std::optional<double> eps = call.weights.attribute("epsilon");
  bool complete = eps.has_value();
  for (std::size_t i = 0; i < std::size(kStatistics); ++i) {
    complete = complete && (parents > i + 1 || call.weights.find(kStatistics[i].slot) != nullptr);
  }
  if (!complete) {
    return std::unexpected(unsupported(
        "batch_norm needs the payloads scale, bias, mean and var and the attribute epsilon"));
  }
  return guarded_prepare(
      "create a batch normalization primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        const ir::Shape& x = *call.input_shapes[0];
        const std::size_t ca = p.channel_axis;
        // Channels-last only with channel axis 1 (batch_norm_takes_channels_last).
        const TensorLayout layout = call.input_layout;
        if (layout != call.output_layout ||
            (layout == TensorLayout::channels_last && !batch_norm_takes_channels_last(call))) {
          return std::unexpected(unsupported(
              "the batch_norm was asked to run with its input " + std::string(to_string(layout)) +
              " and its output " + std::string(to_string(call.output_layout)) +
              "; it runs on one layout, channels-last only with channel axis 1"));
        }
        // Four axes {outer, channels, inner, 1}: oneDNN 2.7 has no optimized batch normalization
        // of three axes (it picks its reference implementation, bnorm_ref), but one of four in
        // either layout.
        const auto md = layout_desc({extent(x, 0, ca), static_cast<dnnl::memory::dim>(x.dims[ca]),
                                     extent(x, ca + 1, x.rank()), 1},
                                    layout);
        auto flags = dnnl::normalization_flags::use_global_stats |
                     dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
        if (relu) flags |= dnnl::normalization_flags::fuse_norm_relu;
        const dnnl::batch_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, md,
                                                           static_cast<float>(*eps), flags);
        const dnnl::batch_normalization_forward::primitive_desc pd(desc, cpu_engine());
        auto state = new_state(call);
        state->primitive = dnnl::batch_normalization_forward(pd);
        state->bindings = {{.arg = DNNL_ARG_SRC, .input = 0, .desc = md},
                           {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = md}};
        const auto vector_md = row_major_desc({static_cast<dnnl::memory::dim>(p.channels)});
        for (std::size_t i = 0; i < std::size(kStatistics); ++i) {
          if (parents > i + 1) {
            state->bindings.push_back(
                {.arg = kStatistics[i].arg, .input = static_cast<int>(i + 1), .desc = vector_md});
          } else {
            state->constants.emplace(kStatistics[i].arg,
                                     vector_memory(*call.weights.find(kStatistics[i].slot)));
          }
        }
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

namespace {

Expected<std::unique_ptr<KernelState>> prepare_batch_norm(const PrepareCall& call) {
  return prepare_batch_norm_with(call, false);
}

Expected<std::unique_ptr<KernelState>> prepare_layer_norm(const PrepareCall& call) {
  const std::uint32_t axis = std::get<ir::AxisParams>(call.node.params).axis;
  const ir::WeightTensor* gamma = call.weights.find("gamma");
  const ir::WeightTensor* beta = call.weights.find("beta");
  const double eps = call.weights.attribute("epsilon").value_or(kLayerNormDefaultEpsilon);
  return guarded_prepare(
      "create a layer normalization primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        const ir::Shape& x = *call.input_shapes[0];
        const auto md = row_major_desc({extent(x, 0, axis), extent(x, axis, x.rank())});
        auto flags = dnnl::normalization_flags::none;
        if (gamma != nullptr) flags |= dnnl::normalization_flags::use_scale;
        if (beta != nullptr) flags |= dnnl::normalization_flags::use_shift;
        const dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, md,
                                                           static_cast<float>(eps), flags);
        const dnnl::layer_normalization_forward::primitive_desc pd(desc, cpu_engine());
        auto state = new_state(call);
        state->primitive = dnnl::layer_normalization_forward(pd);
        if (gamma != nullptr) state->constants.emplace(DNNL_ARG_SCALE, vector_memory(*gamma));
        if (beta != nullptr) state->constants.emplace(DNNL_ARG_SHIFT, vector_memory(*beta));
        state->bindings = {{.arg = DNNL_ARG_SRC, .input = 0, .desc = md},
                           {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = md}};
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

constexpr GuardFn kBatchNormShapes = ir_shapes<backend::BackendOp::batch_norm>;
constexpr GuardFn kLayerNormShapes = ir_shapes<backend::BackendOp::layer_norm>;

void batch_norm_forward(const KernelCall& call) {
  execute(call);
}
void layer_norm_forward(const KernelCall& call) {
  execute(call);
}

constexpr OnednnHandler kHandlers[] = {
    {.capsule = "onednn.batch_norm",
     .op = backend::BackendOp::batch_norm,
     .handler = {.symbol = "nnplan::runtime::onednn::batch_norm_forward",
                 .forward = batch_norm_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<kBatchNormShapes>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<kBatchNormShapes, prepare_batch_norm>,
                 .reads_weight_views = true,
                 .layouts = LayoutSupport::any_shared,
                 .takes_channels_last = batch_norm_takes_channels_last,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
    {.capsule = "onednn.layer_norm",
     .op = backend::BackendOp::layer_norm,
     .handler = {.symbol = "nnplan::runtime::onednn::layer_norm_forward",
                 .forward = layer_norm_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<kLayerNormShapes>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<kLayerNormShapes, prepare_layer_norm>,
                 .reads_weight_views = true,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
};

}  // namespace

std::span<const OnednnHandler> normalization_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
