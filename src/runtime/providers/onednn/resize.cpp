// onednn handlers: resize (the capsule onednn.resize), in one of two ways, both oneDNN primitives:
// - the resampling primitive (linear), where oneDNN's mapping is ONNX's: mode linear with
//   half_pixel (or pytorch_half_pixel, every resized axis longer than 1), each scale the output
//   over the input, and the resized axes the last 1 to 3 with every axis before them kept (the
//   axis before them oneDNN's channel axis, the others folded into its batch). It computes the
//   coordinates and weights in float32 and reads 2, 4 or 8 taps. Channels-last where the resized
//   axes are all but the first two.
// - every other resize: one matmul per resized axis by that axis's interpolation matrix (the
//   reference's taps, reference/resize_taps.hpp, as float32 weights; an axis read directly is no
//   matmul), each matrix at most 2^24 entries (input x output extent; a larger one is refused at
//   compile, naming checked_cpu). A matrix row holds zeros where the output reads no element, so
//   a NaN or infinity in X makes NaN every output whose lines along the resized axes meet it:
//   with two or more resized axes, the whole block they span (an image plane for H and W).
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "runtime/providers/onednn/onednn_support.hpp"
#include "runtime/providers/reference/resize_taps.hpp"

namespace nnplan::runtime::onednn {
namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/resize_test.cpp"};

// The largest interpolation matrix the matmul chain builds (64 MiB of float32).
constexpr ir::Dim kMaxMatrixEntries = ir::Dim{1} << 24;

// Each axis's taps, and the first axis a resize changes (the rank when it changes none).
struct ResizedAxes {
  std::size_t first = 0;
  std::vector<reference::ResizeAxisTaps> taps;
};

ResizedAxes resized_axes(const ir::Node& node, const ir::Shape& in, const ir::Shape& out) {
  const auto& p = std::get<ir::ResizeParams>(node.params);
  ResizedAxes r{.first = in.rank(), .taps = {}};
  for (std::size_t i = 0; i < in.rank(); ++i) {
    r.taps.push_back(in.dims[i] == 0 ? reference::ResizeAxisTaps{.identity = true}
                                     : reference::resize_axis_taps(p, i, in.dims[i], out.dims[i]));
    if (!r.taps.back().identity && r.first == in.rank()) r.first = i;
  }
  return r;
}

// Whether oneDNN's linear resampling computes this resize (see the file's comment).
bool resampling_fits(const ir::Node& node, const ir::Shape& in, const ir::Shape& out) {
  const auto& p = std::get<ir::ResizeParams>(node.params);
  if (p.mode != ir::SampleMode::linear) return false;
  const ResizedAxes r = resized_axes(node, in, out);
  if (r.first == in.rank() || in.rank() - r.first > 3) return false;
  for (std::size_t i = 0; i < in.rank(); ++i) {
    if (in.dims[i] == 0 || out.dims[i] == 0) return false;
    if (i < r.first) continue;
    if (!p.scales.empty() && static_cast<double>(p.scales[i]) * static_cast<double>(in.dims[i]) !=
                                 static_cast<double>(out.dims[i])) {
      return false;
    }
    const bool half_pixel =
        p.coordinate_transformation_mode == ir::CoordinateTransformation::half_pixel ||
        (p.coordinate_transformation_mode == ir::CoordinateTransformation::pytorch_half_pixel &&
         out.dims[i] > 1);
    if (!half_pixel) return false;
  }
  return true;
}

// {batch, channels, resized...}: the axis before the resized ones is oneDNN's channel axis (1
// when there is none), the axes before it its batch.
dnnl::memory::dims resampling_dims(const ir::Shape& s, std::size_t first) {
  const std::size_t channel = first == 0 ? 0 : first - 1;
  dnnl::memory::dims d{extent(s, 0, channel), extent(s, channel, first)};
  for (std::size_t i = first; i < s.rank(); ++i)
    d.push_back(static_cast<dnnl::memory::dim>(s.dims[i]));
  return d;
}

bool resize_takes_channels_last(const PrepareCall& call) {
  const ir::Shape& in = *call.input_shapes[0];
  return resampling_fits(call.node, in, call.output_shape) && in.rank() >= 3 &&
         resized_axes(call.node, in, call.output_shape).first == 2;
}

// One matmul of the chain: the value so far times an axis's interpolation matrix.
struct AxisMatmul {
  dnnl::matmul primitive;
  dnnl::memory matrix;  // the constant operand
  bool matrix_is_src = false;
  dnnl::memory::desc value_in, value_out;  // the value before and after, as the matmul sees it
};

struct ResizeState : PrimitiveState {
  std::vector<AxisMatmul> chain;  // empty: `primitive` is the resampling primitive
};

// The interpolation matrix of one axis, [out, in] (or [in, out] when `transposed`): each output
// index's weights at the indices its taps read.
std::vector<float> axis_matrix(const reference::ResizeAxisTaps& t, ir::Dim in, ir::Dim out,
                               bool transposed) {
  std::vector<double> m(static_cast<std::size_t>(in * out), 0.0);
  for (std::size_t o = 0; o < out; ++o) {
    for (std::size_t j = 0; j < t.count; ++j) {
      const std::size_t i = t.index[o * t.count + j];
      m[transposed ? i * out + o : o * in + i] += t.weight[o * t.count + j];
    }
  }
  return {m.begin(), m.end()};
}

Expected<std::unique_ptr<KernelState>> prepare_resize(const PrepareCall& call) {
  const ir::Shape& in = *call.input_shapes[0];
  const ir::Shape& out = call.output_shape;
  return guarded_prepare(
      "create the resize primitives", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        auto state = std::make_unique<ResizeState>();
        fill_state(*state, call);
        const TensorLayout layout = call.input_layout;
        const bool channels_last_ok = resize_takes_channels_last(call);
        if (layout != call.output_layout ||
            (layout == TensorLayout::channels_last && !channels_last_ok)) {
          return std::unexpected(unsupported(
              "the resize was asked to run with its input " + std::string(to_string(layout)) +
              " and its output " + std::string(to_string(call.output_layout)) +
              "; it runs on one layout, channels-last only when it resamples all axes but the "
              "first two"));
        }
        const ResizedAxes r = resized_axes(call.node, in, out);
        if (resampling_fits(call.node, in, out)) {
          const auto src_md = layout_desc(resampling_dims(in, r.first), layout);
          const auto dst_md = layout_desc(resampling_dims(out, r.first), layout);
          const dnnl::resampling_forward::desc desc(dnnl::prop_kind::forward_inference,
                                                    dnnl::algorithm::resampling_linear, src_md,
                                                    dst_md);
          state->primitive = dnnl::resampling_forward(
              dnnl::resampling_forward::primitive_desc(desc, cpu_engine()));
          state->bindings = {{.arg = DNNL_ARG_SRC, .input = 0, .desc = src_md},
                             {.arg = DNNL_ARG_DST, .input = Binding::kOutput, .desc = dst_md}};
          return std::unique_ptr<KernelState>(std::move(state));
        }
        if (r.first == in.rank()) {
          return std::unique_ptr<KernelState>(reorder_state(call, layout_desc(dims_of(in), layout),
                                                            layout_desc(dims_of(out), layout)));
        }
        // The matmul chain, axis by axis, the value's shape growing or shrinking as it goes; each
        // matrix is in x out dense, so its size is bounded.
        for (std::size_t k = 0; k < in.rank(); ++k) {
          if (r.taps[k].identity) continue;
          const std::optional<ir::Dim> entries = ir::checked_mul(in.dims[k], out.dims[k]);
          if (!entries || *entries > kMaxMatrixEntries) {
            return std::unexpected(unsupported(
                "resizing axis " + std::to_string(k) + " from " + std::to_string(in.dims[k]) +
                " to " + std::to_string(out.dims[k]) +
                " elements needs an interpolation matrix of more than 2^24 entries on onednn "
                "(oneDNN's resampling takes linear half_pixel only); run it under checked_cpu, "
                "whose reference.resize has no such limit"));
          }
        }
        ir::Shape now = in;
        for (std::size_t k = 0; k < in.rank(); ++k) {
          if (r.taps[k].identity) continue;
          const auto d_in = static_cast<dnnl::memory::dim>(in.dims[k]);
          const auto d_out = static_cast<dnnl::memory::dim>(out.dims[k]);
          const dnnl::memory::dim before = extent(now, 0, k);
          const dnnl::memory::dim after = extent(now, k + 1, now.rank());
          AxisMatmul step;
          const bool last = after == 1;
          std::vector<float> m = axis_matrix(r.taps[k], in.dims[k], out.dims[k], last);
          if (last) {
            // value [before, in] times the matrix [in, out].
            step.value_in = row_major_desc({before, d_in});
            step.value_out = row_major_desc({before, d_out});
            const auto m_md = row_major_desc({d_in, d_out});
            step.matrix = dnnl::memory(m_md, cpu_engine());
            std::copy(m.begin(), m.end(), static_cast<float*>(step.matrix.get_data_handle()));
            step.primitive = dnnl::matmul(dnnl::matmul::primitive_desc(
                dnnl::matmul::desc(step.value_in, m_md, step.value_out), cpu_engine()));
          } else {
            // the matrix [1, out, in] times each [in, after] block of the value [before, in,
            // after].
            step.matrix_is_src = true;
            step.value_in = row_major_desc({before, d_in, after});
            step.value_out = row_major_desc({before, d_out, after});
            const auto m_md = row_major_desc({1, d_out, d_in});
            step.matrix = dnnl::memory(m_md, cpu_engine());
            std::copy(m.begin(), m.end(), static_cast<float*>(step.matrix.get_data_handle()));
            step.primitive = dnnl::matmul(dnnl::matmul::primitive_desc(
                dnnl::matmul::desc(m_md, step.value_in, step.value_out), cpu_engine()));
          }
          now.dims[k] = out.dims[k];
          state->chain.push_back(std::move(step));
        }
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

void resize_forward(const KernelCall& call) {
  // A resize that changes no axis is a copy: its state is a reorder's (prepare_resize).
  const auto* chained = dynamic_cast<const ResizeState*>(call.state);
  if (chained == nullptr || chained->chain.empty()) return execute(call);
  const ResizeState& state = *chained;
  if (call.output.size() == 0) return;
  launch(call, state, "run the resize matmuls", [&](dnnl::stream& stream) {
    const dnnl::engine& engine = cpu_engine();
    dnnl::memory value(state.chain.front().value_in, engine,
                       const_cast<float*>(call.inputs[0].data<float>()));
    for (std::size_t i = 0; i < state.chain.size(); ++i) {
      const AxisMatmul& step = state.chain[i];
      const bool final = i + 1 == state.chain.size();
      const dnnl::memory next =
          final ? dnnl::memory(step.value_out, engine, call.output.data<float>())
                : dnnl::memory(step.value_out, engine);
      const dnnl::memory in(step.value_in, engine, value.get_data_handle());
      step.primitive.execute(stream, {{DNNL_ARG_SRC, step.matrix_is_src ? step.matrix : in},
                                      {DNNL_ARG_WEIGHTS, step.matrix_is_src ? in : step.matrix},
                                      {DNNL_ARG_DST, next}});
      stream.wait();
      value = next;
    }
  });
}

constexpr GuardFn kResizeShapes = ir_shapes<backend::BackendOp::resize>;

constexpr OnednnHandler kHandlers[] = {
    {.capsule = "onednn.resize",
     .op = backend::BackendOp::resize,
     .handler = {.symbol = "nnplan::runtime::onednn::resize_forward",
                 .forward = resize_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<kResizeShapes>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<kResizeShapes, prepare_resize>,
                 .layouts = LayoutSupport::any_shared,
                 .takes_channels_last = resize_takes_channels_last,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
};

}  // namespace

std::span<const OnednnHandler> resize_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
