// onednn handlers: scaled_dot_product_attention (the capsule onednn.attention). The leading axes
// of q, k and v fold into one batch axis; per batch slice, three oneDNN primitives prepared once:
// a matmul scores = q k^T (k read through a transposed view) whose post-ops scale it and, when
// causal, add a mask that is -inf above the diagonal; a softmax over the keys, in place; and a
// matmul out = weights v. The scores live in a buffer of the launch.
#include <cmath>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "runtime/providers/onednn/onednn_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/attention_test.cpp"};

// The three primitives and what they bind beyond the call's buffers.
struct AttentionState : PrimitiveState {
  dnnl::matmul scores;
  dnnl::softmax_v2_forward softmax;
  dnnl::matmul context;
  dnnl::memory::desc q_md, k_t_md, v_md, scores_md, out_md;
  std::optional<dnnl::memory> causal_mask;  // {1, L, S}: 0 where a key is allowed, else -inf
};

Expected<std::unique_ptr<KernelState>> prepare_attention(const PrepareCall& call) {
  if (call.input_shapes.size() != 3) {
    return std::unexpected(unsupported("attention needs three inputs (q, k, v)"));
  }
  const auto& params = std::get<ir::AttentionParams>(call.node.params);
  const ir::Shape& q = *call.input_shapes[0];
  const ir::Shape& v = *call.input_shapes[2];
  const std::size_t r = q.rank();
  return guarded_prepare(
      "create the attention primitives", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        const dnnl::memory::dim b = extent(q, 0, r - 2);
        const auto l = static_cast<dnnl::memory::dim>(q.dims[r - 2]);
        const auto e = static_cast<dnnl::memory::dim>(q.dims[r - 1]);
        const auto s = static_cast<dnnl::memory::dim>(v.dims[r - 2]);
        const auto ev = static_cast<dnnl::memory::dim>(v.dims[r - 1]);
        const float scale = params.scale.value_or(1.0F / std::sqrt(static_cast<float>(e)));

        auto state = std::make_unique<AttentionState>();
        for (const ir::Shape* in : call.input_shapes)
          state->input_shapes.push_back(*in);
        state->output_shape = call.output_shape;
        state->threads = call.settings.threads;
        state->q_md = row_major_desc({b, l, e});
        state->k_t_md = dnnl::memory::desc({b, e, s}, dnnl::memory::data_type::f32, {s * e, 1, e});
        state->v_md = row_major_desc({b, s, ev});
        state->scores_md = row_major_desc({b, l, s});
        state->out_md = row_major_desc({b, l, ev});

        dnnl::post_ops scores_ops;
        scores_ops.append_eltwise(1.0F, dnnl::algorithm::eltwise_linear, scale, 0.0F);
        if (params.causal) {
          const auto mask_md = row_major_desc({1, l, s});
          dnnl::memory mask(mask_md, cpu_engine());
          auto* m = static_cast<float*>(mask.get_data_handle());
          for (dnnl::memory::dim i = 0; i < l; ++i) {
            for (dnnl::memory::dim j = 0; j < s; ++j) {
              m[i * s + j] = j <= i ? 0.0F : -std::numeric_limits<float>::infinity();
            }
          }
          scores_ops.append_binary(dnnl::algorithm::binary_add, mask_md);
          state->causal_mask = mask;
        }
        dnnl::primitive_attr scores_attr;
        scores_attr.set_post_ops(scores_ops);
        state->scores = dnnl::matmul(dnnl::matmul::primitive_desc(
            dnnl::matmul::desc(state->q_md, state->k_t_md, state->scores_md), scores_attr,
            cpu_engine()));
        state->softmax = dnnl::softmax_v2_forward(dnnl::softmax_v2_forward::primitive_desc(
            dnnl::softmax_v2_forward::desc(dnnl::prop_kind::forward_inference,
                                           dnnl::algorithm::softmax_accurate, state->scores_md,
                                           state->scores_md, 2),
            cpu_engine()));
        state->context = dnnl::matmul(dnnl::matmul::primitive_desc(
            dnnl::matmul::desc(state->scores_md, state->v_md, state->out_md), cpu_engine()));
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

void attention_forward(const KernelCall& call) {
  const auto& state = static_cast<const AttentionState&>(*call.state);
  launch(call, state, "run the attention primitives", [&](dnnl::stream& stream) {
    const dnnl::engine& engine = cpu_engine();
    const auto input = [&](std::size_t i, const dnnl::memory::desc& md) {
      return dnnl::memory(md, engine, const_cast<float*>(call.inputs[i].data<float>()));
    };
    const dnnl::memory q = input(0, state.q_md);
    const dnnl::memory k_t = input(1, state.k_t_md);
    const dnnl::memory v = input(2, state.v_md);
    const dnnl::memory out(state.out_md, engine, call.output.data<float>());
    const dnnl::memory scores(state.scores_md, engine);
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, q}, {DNNL_ARG_WEIGHTS, k_t}, {DNNL_ARG_DST, scores}};
    if (state.causal_mask) {
      args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, *state.causal_mask);
    }
    state.scores.execute(stream, args);
    state.softmax.execute(stream, {{DNNL_ARG_SRC, scores}, {DNNL_ARG_DST, scores}});
    state.context.execute(stream,
                          {{DNNL_ARG_SRC, scores}, {DNNL_ARG_WEIGHTS, v}, {DNNL_ARG_DST, out}});
  });
}

constexpr GuardFn kAttentionShapes = ir_shapes<backend::BackendOp::scaled_dot_product_attention>;

constexpr OnednnHandler kHandlers[] = {
    {.capsule = "onednn.attention",
     .op = backend::BackendOp::scaled_dot_product_attention,
     .handler = {.symbol = "nnplan::runtime::onednn::attention_forward",
                 .forward = attention_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<kAttentionShapes>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<kAttentionShapes, prepare_attention>,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
};

}  // namespace

std::span<const OnednnHandler> attention_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
