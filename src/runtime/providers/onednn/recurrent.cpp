// onednn handlers: the recurrent family. rnn on oneDNN's vanilla RNN primitive (tanh), gru on its
// GRU primitive (its linear-before-reset variant when the node says so) and lstm on its LSTM
// primitive, each one layer in forward inference over the node's directions (bidirectional:
// bidirectional_concat). ONNX's payloads become the primitive's weights once, when the buffer is
// compiled: W and R (laid out [directions, gates * hidden, columns], oneDNN's ldgoi) with their
// gates put in oneDNN's order (lstm: ONNX's i, o, f, c to oneDNN's i, f, c, o; gru's z, r, h are
// oneDNN's u, r, o), reordered into the layout the primitive prefers, and the bias Wb + Rb per gate
// (gru linear-before-reset: Wb + Rb for z and r, then Wb_h and Rb_h apart, oneDNN's four bias
// gates). The initial states bind as src_iter (and src_iter_c); absent, oneDNN starts from zeros
// (an lstm given h alone binds a zero c of its own).
// The primitive writes [seq, batch, directions * hidden]: Y itself when there is one direction or
// one batch row, else a scratch buffer that a reorder turns into Y's [seq, directions, batch,
// hidden].
#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "runtime/providers/onednn/onednn_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/recurrent_test.cpp"};

using dim = dnnl::memory::dim;

struct RecurrentState : PrimitiveState {
  dnnl::memory weights_layer, weights_iter, bias;
  dnnl::memory::desc src_layer_md, src_iter_md, dst_layer_md;
  bool has_h0 = false, has_c0 = false;
  // An lstm given h but not c: oneDNN takes both or neither, so c starts from these zeros.
  std::optional<dnnl::memory> zero_c0;
  // Set when the primitive's [seq, batch, directions * hidden] is not Y's layout.
  std::optional<dnnl::reorder> to_output;
  dnnl::memory::desc scratch_md, scratch_view_md, output_view_md;
};

// ONNX's gate of each oneDNN gate: lstm's oneDNN i, f, c, o are ONNX's 0, 2, 3, 1; every other
// kind keeps its order.
std::size_t onnx_gate(ir::OpKind kind, std::size_t onednn_gate) {
  constexpr std::array<std::size_t, 4> kLstm = {0, 2, 3, 1};
  return kind == ir::OpKind::lstm ? kLstm[onednn_gate] : onednn_gate;
}

// W or R ([dirs, gates * hidden, cols]) with its gates in oneDNN's order, in the ldgoi layout
// (dims {1, dirs, cols, gates, hidden}), reordered into `target`.
dnnl::memory gate_ordered_weights(const ir::WeightTensor& w, ir::OpKind kind, dim dirs, dim gates,
                                  dim hidden, dim cols, const dnnl::memory::desc& target) {
  const dnnl::memory::desc plain({1, dirs, cols, gates, hidden}, dnnl::memory::data_type::f32,
                                 dnnl::memory::format_tag::ldgoi);
  std::vector<float> ordered(static_cast<std::size_t>(dirs * gates * hidden * cols));
  const std::span<const float> from = w.floats();
  const auto block = static_cast<std::size_t>(hidden * cols);
  for (dim d = 0; d < dirs; ++d) {
    for (dim g = 0; g < gates; ++g) {
      const auto src = static_cast<std::size_t>(d * gates) + onnx_gate(kind, g);
      const auto dst = static_cast<std::size_t>(d * gates + g);
      std::copy_n(from.begin() + static_cast<std::ptrdiff_t>(src * block), block,
                  ordered.begin() + static_cast<std::ptrdiff_t>(dst * block));
    }
  }
  dnnl::memory src(plain, cpu_engine(), ordered.data());
  dnnl::memory out(target, cpu_engine());
  dnnl::reorder(src, out).execute(cpu_stream(), src, out);
  cpu_stream().wait();
  return out;
}

// The primitive's bias {1, dirs, bias_gates, hidden} from ONNX's B ([dirs, 2 * gates * hidden]:
// Wb then Rb), zeros when the node has none.
dnnl::memory bias_memory(const ir::WeightTensor* b, ir::OpKind kind, bool linear_before_reset,
                         dim dirs, dim gates, dim hidden) {
  const dim bias_gates = linear_before_reset ? gates + 1 : gates;
  const auto md = row_major_desc({1, dirs, bias_gates, hidden});
  dnnl::memory out(md, cpu_engine());
  auto* to = static_cast<float*>(out.get_data_handle());
  std::fill_n(to, dirs * bias_gates * hidden, 0.0F);
  if (b == nullptr) return out;
  const std::span<const float> from = b->floats();
  const dim rows = gates * hidden;
  for (dim d = 0; d < dirs; ++d) {
    const float* wb = from.data() + d * 2 * rows;
    const float* rb = wb + rows;
    for (dim g = 0; g < gates; ++g) {
      const auto og = static_cast<dim>(onnx_gate(kind, static_cast<std::size_t>(g)));
      float* gate = to + (d * bias_gates + g) * hidden;
      const bool apart = linear_before_reset && g == 2;  // gru's h gate: Wb_h here, Rb_h after
      for (dim j = 0; j < hidden; ++j) {
        gate[j] = apart ? wb[og * hidden + j] : wb[og * hidden + j] + rb[og * hidden + j];
      }
      if (apart) {
        float* extra = to + (d * bias_gates + gates) * hidden;
        for (dim j = 0; j < hidden; ++j)
          extra[j] = rb[og * hidden + j];
      }
    }
  }
  return out;
}

dnnl::rnn_direction direction_of(ir::RecurrentDirection d) {
  switch (d) {
    case ir::RecurrentDirection::forward:
      return dnnl::rnn_direction::unidirectional_left2right;
    case ir::RecurrentDirection::reverse:
      return dnnl::rnn_direction::unidirectional_right2left;
    case ir::RecurrentDirection::bidirectional:
      break;
  }
  return dnnl::rnn_direction::bidirectional_concat;
}

Expected<std::unique_ptr<KernelState>> prepare_recurrent(const PrepareCall& call) {
  const auto& p = std::get<ir::RecurrentParams>(call.node.params);
  const ir::OpKind kind = call.node.kind;
  const ir::WeightTensor* w = call.weights.find("weight");
  const ir::WeightTensor* r = call.weights.find("recurrence");
  if (w == nullptr || r == nullptr) {
    return std::unexpected(unsupported(std::string(ir::to_string(kind)) +
                                       " needs the payloads weight and recurrence"));
  }
  // One batch row makes every time step a matrix-vector product, too small to split between
  // threads: waking a second thread at each step made a GRU layer 3.6 times slower.
  PrepareCall sized = call;
  if (call.input_shapes[0]->dims[1] == 1) sized.settings.threads = 1;
  return guarded_prepare(
      "create a recurrent primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(sized.settings.threads);
        const ir::Shape& x = *call.input_shapes[0];
        const dim seq = static_cast<dim>(x.dims[0]);
        const dim batch = static_cast<dim>(x.dims[1]);
        const dim input = static_cast<dim>(x.dims[2]);
        const auto hidden = static_cast<dim>(p.hidden_size);
        const auto dirs = static_cast<dim>(ir::direction_count(p.direction));
        const auto gates = static_cast<dim>(ir::recurrent_gates(kind));
        const bool lbr = kind == ir::OpKind::gru && p.linear_before_reset;

        auto state = std::make_unique<RecurrentState>();
        fill_state(*state, sized);
        state->has_h0 = call.input_shapes.size() > 1;
        state->has_c0 = call.input_shapes.size() > 2;
        state->src_layer_md = row_major_desc({seq, batch, input});
        state->src_iter_md = row_major_desc({1, dirs, batch, hidden});
        state->dst_layer_md = row_major_desc({seq, batch, dirs * hidden});
        const dnnl::memory::desc none;
        const dnnl::memory::desc h0 = state->has_h0 ? state->src_iter_md : none;
        const bool lstm_zero_c0 = kind == ir::OpKind::lstm && state->has_h0 && !state->has_c0;
        const dnnl::memory::desc c0 = state->has_c0 || lstm_zero_c0 ? state->src_iter_md : none;
        if (lstm_zero_c0) {
          state->zero_c0 = dnnl::memory(state->src_iter_md, cpu_engine());
          std::fill_n(static_cast<float*>(state->zero_c0->get_data_handle()), dirs * batch * hidden,
                      0.0F);
        }
        const auto wl = any_desc({1, dirs, input, gates, hidden});
        const auto wi = any_desc({1, dirs, hidden, gates, hidden});
        const auto bias_md = row_major_desc({1, dirs, lbr ? gates + 1 : gates, hidden});
        const auto prop = dnnl::prop_kind::forward_inference;
        const dnnl::rnn_direction direction = direction_of(p.direction);
        dnnl::memory::desc chosen_wl, chosen_wi;
        if (kind == ir::OpKind::lstm) {
          const dnnl::lstm_forward::primitive_desc pd(
              dnnl::lstm_forward::desc(prop, direction, state->src_layer_md, h0, c0, wl, wi,
                                       bias_md, state->dst_layer_md, none, none),
              cpu_engine());
          state->primitive = dnnl::lstm_forward(pd);
          chosen_wl = pd.weights_layer_desc();
          chosen_wi = pd.weights_iter_desc();
        } else if (lbr) {
          const dnnl::lbr_gru_forward::primitive_desc pd(
              dnnl::lbr_gru_forward::desc(prop, direction, state->src_layer_md, h0, wl, wi, bias_md,
                                          state->dst_layer_md, none),
              cpu_engine());
          state->primitive = dnnl::lbr_gru_forward(pd);
          chosen_wl = pd.weights_layer_desc();
          chosen_wi = pd.weights_iter_desc();
        } else if (kind == ir::OpKind::gru) {
          const dnnl::gru_forward::primitive_desc pd(
              dnnl::gru_forward::desc(prop, direction, state->src_layer_md, h0, wl, wi, bias_md,
                                      state->dst_layer_md, none),
              cpu_engine());
          state->primitive = dnnl::gru_forward(pd);
          chosen_wl = pd.weights_layer_desc();
          chosen_wi = pd.weights_iter_desc();
        } else {
          const dnnl::vanilla_rnn_forward::primitive_desc pd(
              dnnl::vanilla_rnn_forward::desc(prop, dnnl::algorithm::eltwise_tanh, direction,
                                              state->src_layer_md, h0, wl, wi, bias_md,
                                              state->dst_layer_md, none),
              cpu_engine());
          state->primitive = dnnl::vanilla_rnn_forward(pd);
          chosen_wl = pd.weights_layer_desc();
          chosen_wi = pd.weights_iter_desc();
        }
        state->weights_layer =
            gate_ordered_weights(*w, kind, dirs, gates, hidden, input, chosen_wl);
        state->weights_iter =
            gate_ordered_weights(*r, kind, dirs, gates, hidden, hidden, chosen_wi);
        state->bias = bias_memory(call.weights.find("bias"), kind, lbr, dirs, gates, hidden);
        if (dirs > 1 && batch > 1) {
          // [seq, batch, dirs, hidden] as the primitive writes it, into Y's [seq, dirs, batch,
          // hidden]: one reorder over a view of each.
          state->scratch_md = state->dst_layer_md;
          state->scratch_view_md = row_major_desc({seq, batch, dirs, hidden});
          state->output_view_md =
              dnnl::memory::desc({seq, batch, dirs, hidden}, dnnl::memory::data_type::f32,
                                 {dirs * batch * hidden, hidden, batch * hidden, 1});
          state->to_output = dnnl::reorder(dnnl::reorder::primitive_desc(
              cpu_engine(), state->scratch_view_md, cpu_engine(), state->output_view_md));
        }
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

void recurrent_forward(const KernelCall& call) {
  const auto& state = static_cast<const RecurrentState&>(*call.state);
  launch(call, state, "run the recurrent primitive", [&](dnnl::stream& stream) {
    const dnnl::engine& engine = cpu_engine();
    const auto input = [&](std::size_t i, const dnnl::memory::desc& md) {
      return dnnl::memory(md, engine, const_cast<float*>(call.inputs[i].data<float>()));
    };
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC_LAYER, input(0, state.src_layer_md)},
        {DNNL_ARG_WEIGHTS_LAYER, state.weights_layer},
        {DNNL_ARG_WEIGHTS_ITER, state.weights_iter},
        {DNNL_ARG_BIAS, state.bias}};
    if (state.has_h0) args.emplace(DNNL_ARG_SRC_ITER, input(1, state.src_iter_md));
    if (state.has_c0) args.emplace(DNNL_ARG_SRC_ITER_C, input(2, state.src_iter_md));
    if (state.zero_c0) args.emplace(DNNL_ARG_SRC_ITER_C, *state.zero_c0);
    if (state.to_output) {
      const dnnl::memory scratch(state.scratch_md, engine);
      args.emplace(DNNL_ARG_DST_LAYER, scratch);
      state.primitive.execute(stream, args);
      dnnl::memory from(state.scratch_view_md, engine, scratch.get_data_handle());
      dnnl::memory to(state.output_view_md, engine, call.output.data<float>());
      state.to_output->execute(stream, from, to);
    } else {
      args.emplace(DNNL_ARG_DST_LAYER,
                   dnnl::memory(state.dst_layer_md, engine, call.output.data<float>()));
      state.primitive.execute(stream, args);
    }
  });
}

constexpr GuardFn kRnnShapes = ir_shapes<backend::BackendOp::rnn>;
constexpr GuardFn kGruShapes = ir_shapes<backend::BackendOp::gru>;
constexpr GuardFn kLstmShapes = ir_shapes<backend::BackendOp::lstm>;

template <GuardFn Shapes>
constexpr HandlerDefinition recurrent_handler() {
  return {.symbol = "nnplan::runtime::onednn::recurrent_forward",
          .forward = recurrent_forward,
          .vjp = nullptr,
          .shape_guard = prepared_guard<Shapes>,
          .layout_guard = flat_row_major_guard,
          .prepare = checked_prepare<Shapes, prepare_recurrent>,
          .forward_tests = kTests,
          .vjp_tests = kForwardOnlyTests};
}

constexpr OnednnHandler kHandlers[] = {
    {.capsule = "onednn.rnn",
     .op = backend::BackendOp::rnn,
     .handler = recurrent_handler<kRnnShapes>()},
    {.capsule = "onednn.gru",
     .op = backend::BackendOp::gru,
     .handler = recurrent_handler<kGruShapes>()},
    {.capsule = "onednn.lstm",
     .op = backend::BackendOp::lstm,
     .handler = recurrent_handler<kLstmShapes>()},
};

}  // namespace

std::span<const OnednnHandler> recurrent_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
