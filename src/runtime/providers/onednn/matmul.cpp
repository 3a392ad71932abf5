// onednn handlers: the linear algebra family. matmul (torch.matmul: batch axes broadcast, a
// rank-1 operand promoted to a row on the left or a column on the right) on oneDNN's matmul
// primitive, both operands bound at launch; linear (x W^T + b over the last axis) on its inner
// product primitive, every axis of x but the last folded into rows, W reordered once into the
// primitive's preferred layout, read through its strides (a MatMul weight seen transposed is
// packed straight from the file's bytes).
#include <algorithm>
#include <string>

#include "runtime/providers/onednn/onednn_roots.hpp"

namespace nnplan::runtime::onednn {
namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/matmul_test.cpp"};

// The operands' dims as oneDNN's matmul sees them: both promoted to rank >= 2 and padded with
// leading 1s to one rank; the output's dims likewise.
struct MatmulDims {
  dnnl::memory::dims a, b, out;
};

MatmulDims matmul_dims(const ir::Shape& as, const ir::Shape& bs) {
  MatmulDims d{.a = dims_of(as), .b = dims_of(bs), .out = {}};
  if (as.rank() == 1) d.a.insert(d.a.begin(), 1);
  if (bs.rank() == 1) d.b.push_back(1);
  const std::size_t rank = std::max(d.a.size(), d.b.size());
  d.a.insert(d.a.begin(), rank - d.a.size(), 1);
  d.b.insert(d.b.begin(), rank - d.b.size(), 1);
  for (std::size_t i = 0; i + 2 < rank; ++i)
    d.out.push_back(std::max(d.a[i], d.b[i]));
  d.out.push_back(d.a[rank - 2]);
  d.out.push_back(d.b[rank - 1]);
  return d;
}

}  // namespace

Expected<void> matmul_limits(const ir::Shape& a, const ir::Shape& b) {
  const std::size_t rank = std::max<std::size_t>({a.rank(), b.rank(), 2});
  if (rank > DNNL_MAX_NDIMS) {
    return std::unexpected(unsupported("input 0 has shape " + ir::to_string(a) + " and input 1 " +
                                       ir::to_string(b) + "; onednn matmul needs rank at most " +
                                       std::to_string(DNNL_MAX_NDIMS)));
  }
  return {};
}

Expected<std::unique_ptr<KernelState>> prepare_matmul_with(const PrepareCall& call,
                                                           const PostOps& post_ops) {
  if (call.input_shapes.size() < 2) {
    return std::unexpected(unsupported("matmul needs two inputs"));
  }
  const ir::Shape& as = *call.input_shapes[0];
  const ir::Shape& bs = *call.input_shapes[1];
  if (auto ok = matmul_limits(as, bs); !ok) return std::unexpected(ok.error());
  return guarded_prepare(
      "create a matmul primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        const MatmulDims d = matmul_dims(as, bs);
        const auto a_md = row_major_desc(d.a);
        const auto b_md = row_major_desc(d.b);
        const auto out_md = row_major_desc(d.out);
        dnnl::primitive_attr attr;
        std::vector<Binding> extra;
        attr.set_post_ops(materialize(post_ops, out_md, extra));
        const dnnl::matmul::primitive_desc pd({a_md, b_md, out_md}, attr, cpu_engine());
        auto state = new_state(call);
        state->primitive = dnnl::matmul(pd);
        state->bindings = {{.arg = DNNL_ARG_SRC, .input = 0, .desc = a_md},
                           {.arg = DNNL_ARG_WEIGHTS, .input = 1, .desc = b_md},
                           {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = out_md}};
        state->bindings.insert(state->bindings.end(), extra.begin(), extra.end());
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

Expected<std::unique_ptr<KernelState>> prepare_linear_with(const PrepareCall& call,
                                                           const PostOps& post_ops) {
  const ir::WeightTensor* w = call.weights.find("weight");
  if (call.input_shapes.empty() || w == nullptr || w->shape().rank() != 2 ||
      call.input_shapes[0]->rank() == 0) {
    return std::unexpected(
        unsupported("linear needs an input of rank at least 1 and a weight "
                    "of shape (out, in)"));
  }
  const ir::WeightTensor* bias = call.weights.find("bias");
  return guarded_prepare(
      "create an inner product primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        const ir::Shape& x = *call.input_shapes[0];
        const dnnl::memory::dim in = static_cast<dnnl::memory::dim>(x.dims.back());
        const dnnl::memory::dim out = static_cast<dnnl::memory::dim>(w->shape().dims[0]);
        const dnnl::memory::dim rows = extent(x, 0, x.rank() - 1);
        const auto src_md = row_major_desc({rows, in});
        const auto dst_md = row_major_desc({rows, out});
        const auto w_plain = row_major_desc({out, in});
        const auto b_md = row_major_desc({out});
        dnnl::primitive_attr attr;
        std::vector<Binding> extra;
        attr.set_post_ops(materialize(post_ops, dst_md, extra));
        const auto desc =
            bias != nullptr
                ? dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_inference, src_md,
                                                    any_desc({out, in}), b_md, dst_md)
                : dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_inference, src_md,
                                                    any_desc({out, in}), dst_md);
        const dnnl::inner_product_forward::primitive_desc pd(desc, attr, cpu_engine());
        auto state = new_state(call);
        state->primitive = dnnl::inner_product_forward(pd);
        state->constants.emplace(DNNL_ARG_WEIGHTS, constant_memory(*w, w_plain, pd.weights_desc()));
        if (bias != nullptr) {
          state->constants.emplace(DNNL_ARG_BIAS, constant_memory(*bias, b_md, b_md));
        }
        state->bindings = {{.arg = DNNL_ARG_SRC, .input = 0, .desc = src_md},
                           {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = dst_md}};
        state->bindings.insert(state->bindings.end(), extra.begin(), extra.end());
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

namespace {

void matmul_forward(const KernelCall& call) {
  execute(call);
}
void linear_forward(const KernelCall& call) {
  execute(call);
}

Expected<void> matmul_shapes(const KernelCall& call) {
  if (auto ok = ir_shapes<backend::BackendOp::matmul>(call); !ok) return ok;
  return matmul_limits(*call.inputs[0].shape, *call.inputs[1].shape);
}
constexpr GuardFn kLinearShapes = ir_shapes<backend::BackendOp::linear>;

Expected<std::unique_ptr<KernelState>> prepare_matmul(const PrepareCall& call) {
  return prepare_matmul_with(call, {});
}

Expected<std::unique_ptr<KernelState>> prepare_linear(const PrepareCall& call) {
  return prepare_linear_with(call, {});
}

constexpr OnednnHandler kHandlers[] = {
    {.capsule = "onednn.matmul",
     .op = backend::BackendOp::matmul,
     .handler = {.symbol = "nnplan::runtime::onednn::matmul_forward",
                 .forward = matmul_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<matmul_shapes>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<matmul_shapes, prepare_matmul>,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
    {.capsule = "onednn.linear",
     .op = backend::BackendOp::linear,
     .handler = {.symbol = "nnplan::runtime::onednn::linear_forward",
                 .forward = linear_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<kLinearShapes>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<kLinearShapes, prepare_linear>,
                 .reads_weight_views = true,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
};

}  // namespace

std::span<const OnednnHandler> matmul_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
