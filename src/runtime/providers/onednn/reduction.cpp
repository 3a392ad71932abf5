// onednn handlers: the reductions over one axis (reduce_sum, reduce_mean, reduce_max, reduce_min,
// reduce_prod; and `sum`, reduce_sum over every axis) on oneDNN's reduction primitive, the input
// viewed as [outer, axis, inner] and reduced to [outer, 1, inner], or as [outer, axis] when the
// axis is the last one that is not 1 (every element to [1] for `sum`): oneDNN 2.6's jit
// reductions take only trailing reduced axes, and a trailing 1 sends it to its reference kernel.
// oneDNN chooses the order of the sums and products; its max and min may pass over a NaN (the
// capsule notes say so). A reduction over an axis of one element is a copy; an empty reduced axis
// is refused at compile.
#include <string>
#include <variant>

#include "runtime/providers/onednn/onednn_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/reduction_test.cpp"};

// The source and destination dims of the reduction.
struct ReducedDims {
  dnnl::memory::dims src, dst;
};
ReducedDims reduced_dims(const ir::Node& node, const ir::Shape& in) {
  const auto* p = std::get_if<ir::AxisParams>(&node.params);
  if (p == nullptr) return {.src = {extent(in, 0, in.rank())}, .dst = {1}};
  const dnnl::memory::dim outer = extent(in, 0, p->axis);
  const dnnl::memory::dim inner = extent(in, p->axis + 1, in.rank());
  const auto n = static_cast<dnnl::memory::dim>(in.dims[p->axis]);
  if (inner == 1) return {.src = {outer, n}, .dst = {outer, 1}};
  return {.src = {outer, n, inner}, .dst = {outer, 1, inner}};
}

template <dnnl::algorithm Algorithm>
Expected<std::unique_ptr<KernelState>> prepare_reduction(const PrepareCall& call) {
  const ReducedDims d = reduced_dims(call.node, *call.input_shapes[0]);
  for (const dnnl::memory::dim e : d.src) {
    if (e == 0) {
      return std::unexpected(unsupported(
          "the reduction reads an empty tensor; oneDNN's reduction needs at least one element in "
          "each axis (run it under checked_cpu)"));
    }
  }
  return guarded_prepare(
      "create a reduction primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        const auto src_md = row_major_desc(d.src);
        const auto dst_md = row_major_desc(d.dst);
        // Over one element the reduction is that element, a copy (oneDNN's reduction refuses a
        // source that is already its destination's shape).
        if (d.src == d.dst)
          return std::unique_ptr<KernelState>(reorder_state(call, src_md, dst_md));
        const dnnl::reduction::desc desc(Algorithm, src_md, dst_md, 0.0F, 0.0F);
        auto state = new_state(call);
        state->primitive = dnnl::reduction(dnnl::reduction::primitive_desc(desc, cpu_engine()));
        state->bindings = {{.arg = DNNL_ARG_SRC, .input = 0, .desc = src_md},
                           {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = dst_md}};
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

void reduction_forward(const KernelCall& call) {
  execute(call);
}

template <backend::BackendOp Op, dnnl::algorithm Algorithm>
constexpr OnednnHandler row(std::string_view capsule) {
  return {.capsule = capsule,
          .op = Op,
          .handler = {.symbol = "nnplan::runtime::onednn::reduction_forward",
                      .forward = reduction_forward,
                      .vjp = nullptr,
                      .shape_guard = prepared_guard<ir_shapes<Op>>,
                      .layout_guard = flat_row_major_guard,
                      .prepare = checked_prepare<ir_shapes<Op>, prepare_reduction<Algorithm>>,
                      .forward_tests = kTests,
                      .vjp_tests = kForwardOnlyTests}};
}

using backend::BackendOp;
using dnnl::algorithm;
constexpr OnednnHandler kHandlers[] = {
    row<BackendOp::reduce_sum, algorithm::reduction_sum>("onednn.reduce_sum"),
    row<BackendOp::reduce_mean, algorithm::reduction_mean>("onednn.reduce_mean"),
    row<BackendOp::reduce_max, algorithm::reduction_max>("onednn.reduce_max"),
    row<BackendOp::reduce_min, algorithm::reduction_min>("onednn.reduce_min"),
    row<BackendOp::reduce_prod, algorithm::reduction_mul>("onednn.reduce_prod"),
};

}  // namespace

std::span<const OnednnHandler> reduction_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
