// onednn handlers: the primitives of the fused capsules rooted at an element-wise op (fused.cpp
// holds their table rows and guards). sigmoid, mul: when the mul's other operand is the sigmoid's
// own input (x * sigmoid(x), SiLU), one swish eltwise pass; otherwise the logistic eltwise writes
// the output and a binary mul multiplies it in place by the other operand, unless both operands
// arrive in one buffer (a value and its detach), where the chain is that value's swish and the
// launch runs the swish instead (so the output may take that buffer over). broadcast, mul: one
// binary mul whose second source is the broadcast's input itself, its missing leading axes added
// as size 1, which oneDNN stretches; the broadcast copy is never written.
#include <string>
#include <utility>

#include "runtime/providers/onednn/onednn_roots.hpp"

namespace nnplan::runtime::onednn {

namespace {

// A sigmoid gate: the logistic of input 0 into the output (this state's primitive), then `mul`,
// the output times input 1 in place; and `one_buffer`, the swish the launch runs instead when
// both operands are one buffer. Each step is its own prepared state, run under its own lock.
struct SigmoidGateState : PrimitiveState {
  std::unique_ptr<PrimitiveState> mul;
  std::unique_ptr<PrimitiveState> one_buffer;
};

// A state of type State whose primitive is the eltwise `algorithm` (with `alpha`) of call input 0
// into the output, both viewed as `md`.
template <class State = PrimitiveState>
std::unique_ptr<State> eltwise_state(const PrepareCall& call, const dnnl::memory::desc& md,
                                     dnnl::algorithm algorithm, float alpha) {
  auto state = std::make_unique<State>();
  fill_state(*state, call);
  state->primitive = dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, algorithm, md, alpha, 0.0F),
      cpu_engine()));
  state->bindings = {{.arg = DNNL_ARG_SRC, .input = 0, .desc = md},
                     {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = md}};
  return state;
}

}  // namespace

Expected<std::unique_ptr<KernelState>> prepare_sigmoid_mul(const PrepareCall& call) {
  const ir::Node& sigmoid = *call.chain.front();
  const ir::Node& mul = *call.chain.back();
  // The mul reads the sigmoid's value once (the guard's chain check); the other parent is its
  // operand.
  const ir::NodeId other = mul.parents[0] == sigmoid.id ? mul.parents[1] : mul.parents[0];
  const bool silu = other == sigmoid.parents[0];
  return guarded_prepare(
      "create the sigmoid, mul primitives", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        // Every operand has the output's shape and lies as the others do: one axis views them.
        const auto md = row_major_desc({extent(call.output_shape, 0, call.output_shape.rank())});
        constexpr auto kSwish = dnnl::algorithm::eltwise_swish;
        if (silu) return std::unique_ptr<KernelState>(eltwise_state(call, md, kSwish, 1.0F));
        auto state =
            eltwise_state<SigmoidGateState>(call, md, dnnl::algorithm::eltwise_logistic, 0.0F);
        state->mul = new_state(call);
        state->mul->primitive = dnnl::binary(dnnl::binary::primitive_desc(
            dnnl::binary::desc(dnnl::algorithm::binary_mul, md, md, md), cpu_engine()));
        state->mul->bindings = {{.arg = DNNL_ARG_SRC_0, .input = Binding::kOutput, .desc = md},
                                {.arg = DNNL_ARG_SRC_1, .input = 1, .desc = md},
                                {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = md}};
        state->one_buffer = eltwise_state(call, md, kSwish, 1.0F);
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

void sigmoid_mul_forward(const KernelCall& call) {
  const auto* gate = dynamic_cast<const SigmoidGateState*>(call.state);
  if (gate == nullptr) {
    execute(call);  // SiLU: one swish
    return;
  }
  const auto run = [&](const PrimitiveState& step) {
    execute({.node = call.node,
             .inputs = call.inputs,
             .weights = call.weights,
             .output = call.output,
             .chain = call.chain,
             .state = &step});
  };
  if (call.inputs[0].data<float>() == call.inputs[1].data<float>()) {
    run(*gate->one_buffer);
    return;
  }
  execute(call);
  run(*gate->mul);
}

// Flat dims of the output and of the broadcast operand with the output's size-1 axes dropped and
// each run of adjacent axes that the operand either all broadcasts or all keeps merged into one:
// the same elements in the same order, in the fewest axes. [1, C, H, W] by [1, 1, H, 1] becomes
// {C, H, W} by {1, H, 1}, a broadcast along the middle (channel) axis, which oneDNN's jit binary
// kernels run; some broadcasts over the original axes fall back to its slow reference kernel.
std::pair<dnnl::memory::dims, dnnl::memory::dims> folded_broadcast(
    const dnnl::memory::dims& full, const dnnl::memory::dims& small) {
  dnnl::memory::dims f;
  dnnl::memory::dims s;
  bool last_broadcast = false;
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (full[i] == 1) continue;
    const bool broadcast = small[i] == 1;
    if (!f.empty() && broadcast == last_broadcast) {
      f.back() *= full[i];
      s.back() *= small[i];
    } else {
      f.push_back(full[i]);
      s.push_back(small[i]);
      last_broadcast = broadcast;
    }
  }
  if (f.empty()) return {{1}, {1}};
  return {f, s};
}

Expected<std::unique_ptr<KernelState>> prepare_broadcast_mul(const PrepareCall& call) {
  if (auto ok = broadcast_layouts(call, "broadcast, mul"); !ok) return std::unexpected(ok.error());
  const TensorLayout layout = call.input_layout;
  const ir::Shape& out = call.output_shape;
  return guarded_prepare(
      "create the broadcast, mul primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        const dnnl::memory::dims out_dims = dims_of(out);
        // The broadcast's input right-aligned in the output's rank, size 1 where an axis is added.
        const ir::Shape& from = *call.input_shapes[0];
        dnnl::memory::dims from_dims(out_dims.size(), 1);
        for (std::size_t i = 0; i < from.rank(); ++i) {
          from_dims[out_dims.size() - from.rank() + i] =
              static_cast<dnnl::memory::dim>(from.dims[i]);
        }
        // Flat operands fold into the fewest axes (folded_broadcast); channels-last ones keep
        // theirs.
        dnnl::memory::desc full = layout_desc(out_dims, layout);
        dnnl::memory::desc small = layout_desc(from_dims, layout);
        if (layout == TensorLayout::flat) {
          const auto [f, s] = folded_broadcast(out_dims, from_dims);
          full = row_major_desc(f);
          small = row_major_desc(s);
        }
        auto state = new_state(call);
        state->primitive = dnnl::binary(dnnl::binary::primitive_desc(
            dnnl::binary::desc(dnnl::algorithm::binary_mul, full, small, full), cpu_engine()));
        // Call input 1 is the mul's other operand, of the output's shape; multiplication
        // commutes, so it is the first source whichever side of the mul it was on.
        state->bindings = {{.arg = DNNL_ARG_SRC_0, .input = 1, .desc = full},
                           {.arg = DNNL_ARG_SRC_1, .input = 0, .desc = small},
                           {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = full}};
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

}  // namespace nnplan::runtime::onednn
