// onednn handlers: the convolution family. conv on oneDNN's convolution primitive (direct
// algorithm), conv_transpose on its deconvolution primitive, both for 1 to 3 spatial axes with
// groups, dilation, strides and asymmetric padding. The axes before the channel axis fold into
// oneDNN's batch axis; a payload weight is reordered once into the primitive's preferred layout,
// one given as the call's input 1 (weights as values) at each launch, its bias bound as input 2. A
// conv
// the command buffer runs channels-last (conv_prefers_channels_last) reads and writes that layout
// directly, without staging. Otherwise src and dst take the layouts the primitive prefers
// (format_tag::any): a blocked or channels-last one is staged at launch, the flat input reordered
// into scratch before the primitive runs and the result reordered back into the flat output after.
#include <algorithm>
#include <optional>
#include <string>
#include <variant>

#include "runtime/providers/onednn/onednn_roots.hpp"

namespace nnplan::runtime::onednn {
namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/convolution_test.cpp"};

dnnl::memory::dims to_dims(const std::vector<std::uint32_t>& v, int offset = 0) {
  dnnl::memory::dims d;
  for (std::uint32_t x : v)
    d.push_back(static_cast<dnnl::memory::dim>(x) + offset);
  return d;
}

// The dims oneDNN sees for a conv operand: {lead, channels, spatial...}.
dnnl::memory::dims conv_operand_dims(const ir::Shape& s, std::size_t channel_axis) {
  dnnl::memory::dims d{extent(s, 0, channel_axis),
                       static_cast<dnnl::memory::dim>(s.dims[channel_axis])};
  for (std::size_t i = channel_axis + 1; i < s.rank(); ++i) {
    d.push_back(static_cast<dnnl::memory::dim>(s.dims[i]));
  }
  return d;
}

// The weight's logical dims for oneDNN ({g, oc/g, ic/g, k...} when grouped, else {oc, ic, k...})
// and the strides of the payload's row-major layout in those dims: conv's payload is (oc,
// ic/g, k...), conv_transpose's (ic, oc/g, k...).
dnnl::memory::desc payload_weight_desc(const ir::ConvParams& p, bool transposed) {
  const dnnl::memory::dim g = p.groups;
  const dnnl::memory::dim ocg = p.out_channels / p.groups;
  const dnnl::memory::dim icg = p.in_channels / p.groups;
  dnnl::memory::dim k = 1;
  for (std::uint32_t x : p.kernel)
    k *= x;
  dnnl::memory::dims kernel = to_dims(p.kernel);
  dnnl::memory::dims kstrides(kernel.size(), 1);
  for (std::size_t i = kernel.size(); i-- > 1;)
    kstrides[i - 1] = kstrides[i] * kernel[i];
  // Strides of one output and one input channel (within the group) and of one group.
  const dnnl::memory::dim o_stride = transposed ? k : icg * k;
  const dnnl::memory::dim i_stride = transposed ? ocg * k : k;
  const dnnl::memory::dim g_stride = ocg * icg * k;
  dnnl::memory::dims dims;
  dnnl::memory::dims strides;
  if (p.groups > 1) {
    dims = {g, ocg, icg};
    strides = {g_stride, o_stride, i_stride};
  } else {
    dims = {ocg, icg};
    strides = {o_stride, i_stride};
  }
  dims.insert(dims.end(), kernel.begin(), kernel.end());
  strides.insert(strides.end(), kstrides.begin(), kstrides.end());
  return {dims, dnnl::memory::data_type::f32, strides};
}

// A primitive built for some src and dst descriptors, and the layouts it runs on.
struct ConvChoice {
  dnnl::primitive primitive;
  dnnl::memory::desc src;
  dnnl::memory::desc weights;
  dnnl::memory::desc dst;
};

template <class Primitive>
ConvChoice choice_of(const typename Primitive::desc& desc, const dnnl::primitive_attr& attr) {
  const typename Primitive::primitive_desc pd(desc, attr, cpu_engine());
  return {Primitive(pd), pd.src_desc(), pd.weights_desc(), pd.dst_desc()};
}

Expected<std::unique_ptr<KernelState>> prepare_conv_family(const PrepareCall& call,
                                                           const PostOps& post_ops,
                                                           bool transposed) {
  if (auto ok = conv_limits(call.node); !ok) return std::unexpected(ok.error());
  const auto& p = std::get<ir::ConvParams>(call.node.params);
  // The weight and bias are payloads, or the call's inputs 1 and 2 (weights as values), bound
  // at each launch: the weight reordered into the primitive's layout then.
  const std::size_t parents = call.node.parents.size();
  const ir::WeightTensor* w = call.weights.find("weight");
  const bool weight_value = parents > 1;
  if ((w == nullptr && !weight_value) || call.input_shapes.empty()) {
    return std::unexpected(unsupported("conv needs one input and a weight"));
  }
  const ir::WeightTensor* bias = call.weights.find("bias");
  const bool bias_value = parents > 2;
  const bool has_bias = bias != nullptr || bias_value;
  const std::string what =
      transposed ? "create a deconvolution primitive" : "create a convolution primitive";
  return guarded_prepare(what, [&]() -> Expected<std::unique_ptr<KernelState>> {
    const ThreadLimit limit(call.settings.threads);
    const std::size_t ca = p.channel_axis;
    // A channels-last call (channel axis 1, never transposed) runs on that layout as it lies.
    const TensorLayout layout = transposed || ca != 1 ? TensorLayout::flat : call.input_layout;
    if (layout != call.input_layout || layout != call.output_layout) {
      return std::unexpected(unsupported(
          "the conv was asked to run with its input " + std::string(to_string(call.input_layout)) +
          " and its output " + std::string(to_string(call.output_layout)) +
          "; it runs on one layout, channels-last only for a "
          "convolution with channel axis 1"));
    }
    const bool channels_last = layout == TensorLayout::channels_last;
    const auto src_md = layout_desc(conv_operand_dims(*call.input_shapes[0], ca), layout);
    auto dst_md = layout_desc(conv_operand_dims(call.node.shape, ca), layout);
    const auto w_plain = payload_weight_desc(p, transposed);
    const auto w_any = any_desc(w_plain.dims());
    const auto b_md = row_major_desc({static_cast<dnnl::memory::dim>(p.out_channels)});
    const dnnl::memory::dims strides = to_dims(p.stride);
    const dnnl::memory::dims dilates = to_dims(p.dilation, -1);
    const dnnl::memory::dims pad_l = to_dims(p.padding);
    dnnl::memory::dims pad_r = to_dims(p.padding_after);
    bool trimmed = false;
    std::optional<dnnl::memory::desc> view;
    if (transposed) {
      // The output padding extends the output past the padded end: less padding on the right.
      // oneDNN refuses a negative right padding; there the output's last positions lie past
      // every position an input reaches (they hold only the bias), so the primitive writes an
      // output without them, staged and reordered into a view of the flat output after the
      // launch fills the whole output with the bias.
      dnnl::memory::dims dims = dst_md.dims();
      for (std::size_t i = 0; i < pad_r.size(); ++i) {
        pad_r[i] -= static_cast<dnnl::memory::dim>(p.output_padding[i]);
        if (pad_r[i] < 0) {
          dims[2 + i] += pad_r[i];
          pad_r[i] = 0;
          trimmed = true;
        }
      }
      if (trimmed) {
        dnnl::memory::dims strides(dims.size(), 1);
        const dnnl::memory::dims full = dst_md.dims();
        for (std::size_t i = full.size(); i-- > 1;)
          strides[i - 1] = strides[i] * full[i];
        view = dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
        dst_md = row_major_desc(dims);
      }
    }
    dnnl::primitive_attr attr;
    std::vector<Binding> extra;
    int seed = Binding::kNoSeed;
    // oneDNN 2.6's brgconv kernels crash (SIGSEGV at launch) with a sum post-op when some output
    // position's window reads only padding; there the residual is a binary add post-op instead.
    bool window_in_padding = false;
    const ir::Shape& in_shape = *call.input_shapes[0];
    const ir::Shape& out_shape = call.node.shape;
    for (std::size_t i = 0; i < p.kernel.size() && !transposed; ++i) {
      const auto in = static_cast<std::int64_t>(in_shape.dims[ca + 1 + i]);
      const auto outs = static_cast<std::int64_t>(out_shape.dims[ca + 1 + i]);
      for (std::int64_t o = 0; o < outs && !window_in_padding; ++o) {
        bool reads_input = false;
        for (std::int64_t j = 0; j < p.kernel[i] && !reads_input; ++j) {
          const std::int64_t at = o * p.stride[i] + j * p.dilation[i] - p.padding[i];
          reads_input = at >= 0 && at < in;
        }
        window_in_padding = !reads_input;
      }
    }
    attr.set_post_ops(materialize(post_ops, dst_md, extra, window_in_padding ? nullptr : &seed));
    const auto prop = dnnl::prop_kind::forward_inference;
    const auto build = [&](const dnnl::memory::desc& src, const dnnl::memory::desc& dst) {
      if (!transposed) {
        const auto algo = dnnl::algorithm::convolution_direct;
        using Conv = dnnl::convolution_forward;
        return has_bias ? choice_of<Conv>(Conv::desc(prop, algo, src, w_any, b_md, dst, strides,
                                                     dilates, pad_l, pad_r),
                                          attr)
                        : choice_of<Conv>(Conv::desc(prop, algo, src, w_any, dst, strides, dilates,
                                                     pad_l, pad_r),
                                          attr);
      }
      const auto algo = dnnl::algorithm::deconvolution_direct;
      using Deconv = dnnl::deconvolution_forward;
      return has_bias ? choice_of<Deconv>(Deconv::desc(prop, algo, src, w_any, b_md, dst, strides,
                                                       dilates, pad_l, pad_r),
                                          attr)
                      : choice_of<Deconv>(Deconv::desc(prop, algo, src, w_any, dst, strides,
                                                       dilates, pad_l, pad_r),
                                          attr);
    };
    // A channels-last call (conv_prefers_channels_last said oneDNN runs that layout fast) is
    // built on it; a flat one takes oneDNN's layout choice for src and dst, staged at launch
    // (docs/decisions.md, "Channels-last between commands").
    const ConvChoice chosen = channels_last
                                  ? build(src_md, dst_md)
                                  : build(any_desc(src_md.dims()), any_desc(dst_md.dims()));
    auto state = new_state(call);
    state->primitive = chosen.primitive;
    if (trimmed && bias_value) {
      return std::unexpected(unsupported(
          "a conv_transpose whose output padding reaches past every input position holds only "
          "the bias there, which onednn fills in when the buffer is compiled: it takes its bias "
          "as a payload, not as a value"));
    }
    // The bias is read for the fill before constant_memory packs it and releases its pages.
    if (trimmed) {
      state->output_fill.assign(p.out_channels, 0.0F);
      if (bias != nullptr)
        std::ranges::copy(bias->contiguous().floats(), state->output_fill.begin());
      state->fill_axis = ca;
    }
    std::vector<Binding> values;
    if (weight_value) {
      values.push_back(staged_binding(DNNL_ARG_WEIGHTS, 1, w_plain, chosen.weights));
    } else {
      state->constants.emplace(DNNL_ARG_WEIGHTS, constant_memory(*w, w_plain, chosen.weights));
    }
    if (bias_value) {
      values.push_back({.arg = DNNL_ARG_BIAS, .input = 2, .desc = b_md});
    } else if (bias != nullptr) {
      state->constants.emplace(DNNL_ARG_BIAS, constant_memory(*bias, b_md, b_md));
    }
    // A trimmed output is written through its view of the flat output (always staged: the view
    // is not dense, the primitive's destination is).
    Binding out =
        staged_binding(DNNL_ARG_DST, Binding::kOutput, trimmed ? *view : dst_md, chosen.dst);
    out.seed = seed;
    state->bindings = {staged_binding(DNNL_ARG_SRC, 0, src_md, chosen.src), std::move(out)};
    state->bindings.insert(state->bindings.end(), extra.begin(), extra.end());
    state->bindings.insert(state->bindings.end(), values.begin(), values.end());
    return std::unique_ptr<KernelState>(std::move(state));
  });
}

}  // namespace

Expected<void> conv_limits(const ir::Node& node) {
  const auto* p = std::get_if<ir::ConvParams>(&node.params);
  if (p == nullptr) return std::unexpected(unsupported("the node carries no conv parameters"));
  if (p->spatial_rank < 1 || p->spatial_rank > 3) {
    return std::unexpected(unsupported("spatial_rank " + std::to_string(p->spatial_rank) +
                                       "; onednn " + std::string(ir::to_string(node.kind)) +
                                       " needs 1 to 3 spatial axes"));
  }
  return {};
}

bool conv_prefers_channels_last(const PrepareCall& call) {
  const auto* p = std::get_if<ir::ConvParams>(&call.node.params);
  // A weight given as a value is a flat input like the data: such a conv runs flat.
  if (p == nullptr || p->channel_axis != 1 || call.input_shapes.empty() ||
      call.node.parents.size() > 1 || !conv_limits(call.node)) {
    return false;
  }
  try {
    const ThreadLimit limit(call.settings.threads);
    const auto src = conv_operand_dims(*call.input_shapes[0], 1);
    const auto dst = conv_operand_dims(call.node.shape, 1);
    const auto w = payload_weight_desc(*p, false).dims();
    const auto src_cl = layout_desc(src, TensorLayout::channels_last);
    const auto dst_cl = layout_desc(dst, TensorLayout::channels_last);
    const auto pd_for = [&](const dnnl::memory::desc& x, const dnnl::memory::desc& y) {
      const dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x, any_desc(w),
          y, to_dims(p->stride), to_dims(p->dilation, -1), to_dims(p->padding),
          to_dims(p->padding_after));
      return dnnl::convolution_forward::primitive_desc(desc, cpu_engine());
    };
    // oneDNN's own choice (brgconv on AVX-512 takes channels-last)...
    const auto chosen = pd_for(any_desc(src), any_desc(dst));
    if (chosen.src_desc() == src_cl && chosen.dst_desc() == dst_cl) return true;
    // ... or a jit kernel of its own for channels-last operands, where it would pick a blocked
    // layout (AVX2's jit convs choose nChw8c): running there saves the reorders to and from
    // the blocked layout around every conv. Its gemm and reference kernels do not qualify.
    const std::string impl = pd_for(src_cl, dst_cl).impl_info_str();
    return impl.starts_with("jit") || impl.starts_with("brg");
  } catch (const dnnl::error&) {
    // prepare reports the failure with oneDNN's message; flat is what it then refuses.
    return false;
  }
}

Expected<std::unique_ptr<KernelState>> prepare_conv_with(const PrepareCall& call,
                                                         const PostOps& post_ops) {
  return prepare_conv_family(call, post_ops, false);
}

namespace {

void conv_forward(const KernelCall& call) {
  execute(call);
}
void conv_transpose_forward(const KernelCall& call) {
  execute(call);
}

template <backend::BackendOp Op>
Expected<void> conv_shapes(const KernelCall& call) {
  if (auto ok = ir_shapes<Op>(call); !ok) return ok;
  return conv_limits(call.node);
}

Expected<std::unique_ptr<KernelState>> prepare_conv(const PrepareCall& call) {
  return prepare_conv_family(call, {}, false);
}
Expected<std::unique_ptr<KernelState>> prepare_conv_transpose(const PrepareCall& call) {
  return prepare_conv_family(call, {}, true);
}

constexpr OnednnHandler kHandlers[] = {
    {.capsule = "onednn.conv",
     .op = backend::BackendOp::conv,
     .handler = {.symbol = "nnplan::runtime::onednn::conv_forward",
                 .forward = conv_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<conv_shapes<backend::BackendOp::conv>>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<conv_shapes<backend::BackendOp::conv>, prepare_conv>,
                 .reads_weight_views = true,
                 .layouts = LayoutSupport::channels_last,
                 .takes_channels_last = conv_prefers_channels_last,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
    {.capsule = "onednn.conv_transpose",
     .op = backend::BackendOp::conv_transpose,
     .handler = {.symbol = "nnplan::runtime::onednn::conv_transpose_forward",
                 .forward = conv_transpose_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<conv_shapes<backend::BackendOp::conv_transpose>>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<conv_shapes<backend::BackendOp::conv_transpose>,
                                            prepare_conv_transpose>,
                 .reads_weight_views = true,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
};

}  // namespace

std::span<const OnednnHandler> convolution_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
