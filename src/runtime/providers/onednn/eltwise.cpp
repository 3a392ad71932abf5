// onednn handlers: the unary element-wise ops on oneDNN's eltwise primitive over the tensor
// viewed as one axis: relu, gelu (erf or tanh, as the node says), sigmoid (logistic), tanh,
// softplus (soft_relu), exp, log, sqrt, abs and clamp (clip, an absent bound infinite). oneDNN's
// transcendental functions are its own polynomial approximations. Each runs in place.
#include <limits>
#include <string>
#include <variant>

#include "runtime/providers/onednn/onednn_roots.hpp"

namespace nnplan::runtime::onednn {

Expected<EltwiseOp> eltwise_of(const ir::Node& node) {
  using dnnl::algorithm;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  switch (node.kind) {
    case ir::OpKind::relu:
      return EltwiseOp{algorithm::eltwise_relu, 0.0F, 0.0F};
    case ir::OpKind::sigmoid:
      return EltwiseOp{algorithm::eltwise_logistic, 0.0F, 0.0F};
    case ir::OpKind::tanh:
      return EltwiseOp{algorithm::eltwise_tanh, 0.0F, 0.0F};
    case ir::OpKind::softplus:
      return EltwiseOp{algorithm::eltwise_soft_relu, 0.0F, 0.0F};
    case ir::OpKind::exp:
      return EltwiseOp{algorithm::eltwise_exp, 0.0F, 0.0F};
    case ir::OpKind::log:
      return EltwiseOp{algorithm::eltwise_log, 0.0F, 0.0F};
    case ir::OpKind::sqrt:
      return EltwiseOp{algorithm::eltwise_sqrt, 0.0F, 0.0F};
    case ir::OpKind::abs:
      return EltwiseOp{algorithm::eltwise_abs, 0.0F, 0.0F};
    case ir::OpKind::gelu: {
      const auto* p = std::get_if<ir::GeluParams>(&node.params);
      const bool tanh = p != nullptr && p->approximate == ir::GeluApproximation::tanh;
      return EltwiseOp{tanh ? algorithm::eltwise_gelu_tanh : algorithm::eltwise_gelu_erf, 0.0F,
                       0.0F};
    }
    case ir::OpKind::clamp: {
      const auto* p = std::get_if<ir::ClampParams>(&node.params);
      if (p == nullptr) break;
      return EltwiseOp{algorithm::eltwise_clip, p->min.value_or(-kInf), p->max.value_or(kInf)};
    }
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

template <backend::BackendOp Op>
constexpr OnednnHandler row(std::string_view capsule) {
  return {.capsule = capsule,
          .op = Op,
          .handler = {.symbol = "nnplan::runtime::onednn::eltwise_forward",
                      .forward = eltwise_forward,
                      .vjp = nullptr,
                      .shape_guard = prepared_guard<reference_shapes<Op>>,
                      .layout_guard = flat_row_major_guard_in_place,
                      .prepare = checked_prepare<reference_shapes<Op>, prepare_eltwise>,
                      .in_place_safe = true,
                      .layouts = LayoutSupport::any_shared,
                      .forward_tests = kTests,
                      .vjp_tests = kForwardOnlyTests}};
}

using enum backend::BackendOp;
constexpr OnednnHandler kHandlers[] = {
    row<relu>("onednn.relu"),   row<gelu>("onednn.gelu"),         row<sigmoid>("onednn.sigmoid"),
    row<tanh>("onednn.tanh"),   row<softplus>("onednn.softplus"), row<exp>("onednn.exp"),
    row<log>("onednn.log"),     row<sqrt>("onednn.sqrt"),         row<abs>("onednn.abs"),
    row<clamp>("onednn.clamp"),
};

}  // namespace

std::span<const OnednnHandler> eltwise_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
