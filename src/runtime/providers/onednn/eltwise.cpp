// onednn handlers: the unary element-wise ops on oneDNN's eltwise primitive over the tensor
// viewed as one axis, one row of eltwise_ops.def each: relu, gelu (erf or tanh, as the node
// says), sigmoid (logistic), tanh, softplus (soft_relu), exp, log, sqrt, abs, clamp (clip, an
// absent bound infinite), leaky_relu (relu with the negative slope alpha), elu and hard_swish;
// hard_sigmoid as two of them, linear then clip. oneDNN's transcendental functions are its own
// polynomial approximations. Each runs in place.
#include <limits>
#include <string>
#include <variant>

#include "nnplan/ir/op_table.hpp"
#include "runtime/providers/onednn/onednn_roots.hpp"

namespace nnplan::runtime::onednn {
namespace {

using dnnl::algorithm;
constexpr float kInf = std::numeric_limits<float>::infinity();

// The node's parameters of type P (eltwise_of has checked the node carries its kind's
// alternative).
template <class P>
P params_of(const ir::Node& node) {
  const auto* p = std::get_if<P>(&node.params);
  return p != nullptr ? *p : P{};
}

algorithm gelu_algorithm(const ir::Node& node) {
  return params_of<ir::GeluParams>(node).approximate == ir::GeluApproximation::tanh
             ? algorithm::eltwise_gelu_tanh
             : algorithm::eltwise_gelu_erf;
}
float clip_lower(const ir::Node& node) {
  return params_of<ir::ClampParams>(node).min.value_or(-kInf);
}
float clip_upper(const ir::Node& node) {
  return params_of<ir::ClampParams>(node).max.value_or(kInf);
}
float alpha_of(const ir::Node& node) {
  return params_of<ir::AlphaParams>(node).alpha;
}

}  // namespace

Expected<EltwiseOp> eltwise_of(const ir::Node& node) {
  // The rows read the node's parameters through params_of, which must never stand in defaults for
  // parameters of another kind.
  if (node.params.index() != ir::op_traits(node.kind).params) {
    return std::unexpected(unsupported("node kind " + std::string(ir::to_string(node.kind)) +
                                       " carries parameters of another kind"));
  }
  switch (node.kind) {
#define NNPLAN_ONEDNN_ELTWISE(op, eltwise_algorithm, alpha, beta, nan_note) \
  case ir::OpKind::op:                                                      \
    return EltwiseOp{eltwise_algorithm, alpha, beta};
#include "eltwise_ops.def"
    default:
      break;
  }
  return std::unexpected(unsupported("node kind " + std::string(ir::to_string(node.kind)) +
                                     " has no oneDNN eltwise algorithm"));
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/eltwise_test.cpp"};

Expected<std::unique_ptr<KernelState>> prepare_eltwise(const PrepareCall& call) {
  auto op = eltwise_of(call.node);
  if (!op) return std::unexpected(op.error());
  return guarded_prepare(
      "create an eltwise primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        const auto md = row_major_desc({extent(call.node.shape, 0, call.node.shape.rank())});
        const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, op->algorithm,
                                               md, op->alpha, op->beta);
        const dnnl::eltwise_forward::primitive_desc pd(desc, cpu_engine());
        auto state = new_state(call);
        state->primitive = dnnl::eltwise_forward(pd);
        state->bindings = {{.arg = DNNL_ARG_SRC, .input = 0, .desc = md},
                           {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = md}};
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

void eltwise_forward(const KernelCall& call) {
  execute(call);
}

// hard_sigmoid as two eltwise primitives, linear (alpha x + beta) into the output, then clip to
// [0, 1] in place: oneDNN 2.6 has no hardsigmoid algorithm, and an eltwise primitive with the clip
// as its post-op runs only on oneDNN's reference implementation.
struct HardSigmoidState : PrimitiveState {
  dnnl::eltwise_forward clip;
  dnnl::memory::desc md;
};

Expected<std::unique_ptr<KernelState>> prepare_hard_sigmoid(const PrepareCall& call) {
  const auto& p = std::get<ir::HardSigmoidParams>(call.node.params);
  return guarded_prepare(
      "create an eltwise primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        auto state = std::make_unique<HardSigmoidState>();
        fill_state(*state, call);
        state->md = row_major_desc({extent(call.node.shape, 0, call.node.shape.rank())});
        const auto primitive = [&](dnnl::algorithm algorithm, float alpha, float beta) {
          const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm,
                                                 state->md, alpha, beta);
          return dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(desc, cpu_engine()));
        };
        state->primitive = primitive(dnnl::algorithm::eltwise_linear, p.alpha, p.beta);
        state->clip = primitive(dnnl::algorithm::eltwise_clip, 0.0F, 1.0F);
        state->bindings = {{.arg = DNNL_ARG_SRC, .input = 0, .desc = state->md},
                           {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = state->md}};
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

void hard_sigmoid_forward(const KernelCall& call) {
  execute(call);
  if (call.output.size() == 0) return;
  const auto& state = static_cast<const HardSigmoidState&>(*call.state);
  launch(call, state, "run a prepared primitive", [&](dnnl::stream& stream) {
    dnnl::memory out(state.md, cpu_engine(), call.output.data<float>());
    state.clip.execute(stream, {{DNNL_ARG_SRC, out}, {DNNL_ARG_DST, out}});
  });
}

constexpr GuardFn kHardSigmoidShapes = ir_shapes<backend::BackendOp::hard_sigmoid>;

template <backend::BackendOp Op>
constexpr OnednnHandler row(std::string_view capsule) {
  return {.capsule = capsule,
          .op = Op,
          .handler = {.symbol = "nnplan::runtime::onednn::eltwise_forward",
                      .forward = eltwise_forward,
                      .vjp = nullptr,
                      .shape_guard = prepared_guard<ir_shapes<Op>>,
                      .layout_guard = flat_row_major_guard_in_place,
                      .prepare = checked_prepare<ir_shapes<Op>, prepare_eltwise>,
                      .in_place_safe = true,
                      .layouts = LayoutSupport::any_shared,
                      .forward_tests = kTests,
                      .vjp_tests = kForwardOnlyTests}};
}

constexpr OnednnHandler kHandlers[] = {
#define NNPLAN_ONEDNN_ELTWISE(op, eltwise_algorithm, alpha, beta, nan_note) \
  row<backend::BackendOp::op>("onednn." #op),
#include "eltwise_ops.def"
    {.capsule = "onednn.hard_sigmoid",
     .op = backend::BackendOp::hard_sigmoid,
     .handler = {.symbol = "nnplan::runtime::onednn::hard_sigmoid_forward",
                 .forward = hard_sigmoid_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<kHardSigmoidShapes>,
                 .layout_guard = flat_row_major_guard_in_place,
                 .prepare = checked_prepare<kHardSigmoidShapes, prepare_hard_sigmoid>,
                 .in_place_safe = true,
                 .layouts = LayoutSupport::any_shared,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
};

}  // namespace

std::span<const OnednnHandler> eltwise_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
