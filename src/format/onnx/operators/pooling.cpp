// MaxPool and AveragePool over any number of spatial axes into max_pool / avg_pool. The IR's
// pools pad symmetrically; asymmetric pads (and ceil_mode's overhang) become padding
// concatenated before the pool, -inf for MaxPool (exact) and zeros for AveragePool, whose divisor
// counts them as it counts its own padding. With count_include_pad = 0, and for ceil_mode's
// partial last windows, the average is then scaled by window size / the count of the elements
// that count in each window (a constant per output position). A dilated MaxPool is a maximum of
// gathered taps, axis by axis. A pending zero Pad before a 2-D pool
// adds to its padding (for MaxPool only over a non-negative input). GlobalMaxPool and
// GlobalAveragePool are pools whose window is the whole of every spatial axis. MaxPool's second
// output, Indices, is a max_pool_indices node over the same input and windows.
#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "../constant_folding.hpp"
#include "../import_context.hpp"
#include "../operators.hpp"
#include "../window_attributes.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

void pool(ImportContext& cx, bool max) {
  if (max) {
    cx.allow_attrs(
        {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  } else {
    cx.allow_attrs(
        {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
  }
  cx.require_inputs(1, 1);
  const bool want_indices = max && !cx.out_name(1).empty();
  const std::optional<PendingPad> folded = cx.pad_of(cx.in_name(0));
  if (want_indices && folded) {
    cx.unsupported("has a second output Indices (" + quoted_name(cx.out_name(1)) +
                   ") and reads Pad node " + quoted_name(folded->pad_node) +
                   ", whose zeros it would fold; supported: Indices of a MaxPool that reads no "
                   "Pad");
  }
  NodeId x = folded ? cx.tensor(folded->input, folded->input_node) : cx.tensor(cx.in_name(0));
  const NodeId pooled_input = x;
  const Shape xs = cx.shape_of(x);
  if (xs.rank() < 3) {
    cx.unsupported("input " + to_string(xs) +
                   " has no spatial axis; supported: (N,C,D1,...) with at least one spatial axis");
  }
  const std::size_t r = xs.rank() - 2;
  const std::vector<std::uint32_t> kernel = read_kernel_shape(cx, r, true);
  const std::int64_t storage_order = max ? cx.attr_int("storage_order", 0) : 0;
  if (storage_order != 0 && storage_order != 1) {
    cx.fail("attribute storage_order = " + str(storage_order) +
            " is neither 0 (row-major) nor 1 (column-major)");
  }
  const std::vector<Dim> spatial(xs.dims.begin() + 2, xs.dims.end());
  if (folded) cx.refuse_same_auto_pad(*folded);
  WindowGeometry g = read_window(cx, spatial, kernel);
  // Indices (MaxPool's second output): the index in X of each window's maximum, over the same
  // windows as the values (`extra` is ceil_mode's overhang after each axis).
  const auto define_indices = [&](const std::vector<Dim>& extra, NodeId values) {
    if (!want_indices) return;
    ir::MaxPoolIndicesParams p{.spatial_rank = static_cast<std::uint32_t>(r),
                               .kernel = kernel,
                               .stride = g.stride,
                               .padding = g.pad_begin,
                               .padding_after = g.pad_end,
                               .dilation = g.dilation,
                               .storage_order = static_cast<std::uint32_t>(storage_order)};
    for (std::size_t i = 0; i < r; ++i)
      p.padding_after[i] += static_cast<std::uint32_t>(extra[i]);
    const NodeId indices = cx.add(OpKind::max_pool_indices, {pooled_input}, std::move(p));
    if (cx.shape_of(indices) != cx.shape_of(values)) {
      cx.fail("internal: Indices of shape " + to_string(cx.shape_of(indices)) +
              " for values of shape " + to_string(cx.shape_of(values)));
    }
    cx.define(cx.out_name(1), indices);
  };
  if (std::any_of(g.dilation.begin(), g.dilation.end(), [](std::uint32_t d) { return d != 1; })) {
    if (folded || cx.attr_int("ceil_mode", 0) != 0) {
      cx.fail_attr("dilations", list_string(g.dilation),
                   "1 on every axis with ceil_mode 1 or after a folded Pad");
    }
    // A dilated max pool, axis by axis (a maximum over a box is the maximum over each axis in
    // turn): the input padded with -inf, then for each output position the maximum of the k
    // elements it reads, k gathers of the taps (o * stride + j * dilation) folded by max_elem.
    for (std::size_t i = 0; i < r; ++i) {
      const std::size_t axis = 2 + i;
      x = cx.pad_with(x, axis, g.pad_begin[i], g.pad_end[i],
                      -std::numeric_limits<float>::infinity());
      const Dim n = cx.shape_of(x).dims[axis];
      const Dim span = static_cast<Dim>(kernel[i] - 1) * g.dilation[i] + 1;
      if (n < span) {
        cx.fail("kernel_shape " + list_string(kernel) + " with dilations " +
                list_string(g.dilation) + " does not fit input " + to_string(xs) + " with pads");
      }
      const Dim out = (n - span) / g.stride[i] + 1;
      if (out > kMaxFoldedElements) {
        cx.unsupported("a dilated pool with " + str(out) + " outputs along an axis needs index " +
                       "tables that long; supported: up to " + str(kMaxFoldedElements));
      }
      Shape taken = cx.shape_of(x);
      taken.dims[axis] = out;
      std::optional<NodeId> m;
      for (std::uint32_t j = 0; j < kernel[i]; ++j) {
        const NodeId tap = cx.add(OpKind::gather, {x},
                                  ir::AxisParams{.axis = static_cast<std::uint32_t>(axis)}, taken);
        if (cx.keep_payloads()) {
          std::vector<std::int64_t> at(out);
          for (Dim o = 0; o < out; ++o)
            at[o] = static_cast<std::int64_t>(o * g.stride[i] + j * g.dilation[i]);
          cx.set_payload(tap, "indices", ir::WeightTensor::adopt(Shape{{out}}, std::move(at)));
        }
        m = m ? cx.add(OpKind::max_elem, {*m, tap}) : tap;
      }
      x = *m;
    }
    cx.define(cx.out_name(0), x);
    define_indices(std::vector<Dim>(r, 0), x);
    return;
  }
  // The node's own padding, before a folded Pad adds to it: count_include_pad concerns only this
  // one (a Pad's zeros are elements of the pooled input, counted either way).
  const bool own_padding =
      std::any_of(g.pad_begin.begin(), g.pad_begin.end(), [](std::uint32_t p) { return p != 0; }) ||
      std::any_of(g.pad_end.begin(), g.pad_end.end(), [](std::uint32_t p) { return p != 0; });
  std::vector<std::uint32_t> own_pads = g.pad_begin;
  own_pads.insert(own_pads.end(), g.pad_end.begin(), g.pad_end.end());
  if (folded) {
    if (r != 2) cx.unsupported("a folded Pad needs 2-D pooling");
    if (max) {
      const OpKind producer = cx.ir_node(x).kind;
      const bool non_negative = producer == OpKind::relu || producer == OpKind::sigmoid ||
                                producer == OpKind::exp || producer == OpKind::abs ||
                                producer == OpKind::sqrt;
      if (!non_negative) {
        cx.unsupported("cannot fold the zero padding of Pad node " + quoted_name(folded->pad_node) +
                       ": max pooling pads with -inf, which equals zero padding only for a "
                       "non-negative input (Relu, Sigmoid, Exp, Abs or Sqrt output)");
      }
    }
    for (std::size_t i = 0; i < 2; ++i) {
      g.pad_begin[i] += folded->padding;
      g.pad_end[i] += folded->padding;
    }
  }
  // ceil_mode: the last window may run past the end; it counts when it starts inside the input
  // or its leading padding (PyTorch's rule, which ONNX adopted). That window's overhang is extra
  // padding after the axis.
  const bool ceil_mode = cx.attr_int("ceil_mode", 0) != 0;
  std::vector<Dim> extra(r, 0);
  for (std::size_t i = 0; i < r; ++i) {
    const Dim span = spatial[i] + g.pad_begin[i] + g.pad_end[i];
    if (span < kernel[i]) {
      cx.fail("kernel_shape " + list_string(kernel) + " does not fit input " + to_string(xs) +
              " with pads");
    }
    if (!ceil_mode) continue;
    const Dim floor_out = (span - kernel[i]) / g.stride[i] + 1;
    Dim out = (span - kernel[i] + g.stride[i] - 1) / g.stride[i] + 1;
    // Where the window may start: inside the pool's input (a folded Pad's zeros on both sides
    // are input) or the pool's own leading padding.
    const Dim folded_pad = folded && i < 2 ? folded->padding : 0;
    const Dim start_limit = spatial[i] + g.pad_begin[i] + folded_pad;
    if (out > floor_out && (out - 1) * g.stride[i] >= start_limit) --out;
    extra[i] = out > floor_out ? (out - 1) * g.stride[i] + kernel[i] - span : 0;
  }
  const bool has_extra = std::any_of(extra.begin(), extra.end(), [](Dim e) { return e != 0; });
  const bool count_pad = cx.attr_int("count_include_pad", 0) != 0;
  const bool exclude_padding = !max && !count_pad && own_padding;
  // ceil_mode's last window, partly past the end: its divisor is the part of it inside the input
  // and the node's padding (count_include_pad 1) or inside the input (0), as ONNX Runtime and
  // PyTorch count it, where the pool below divides by the whole window.
  const bool partial_windows = !max && has_extra;
  // Symmetric padding in the node, the rest (and ceil_mode's overhang) as padding concatenated
  // before it: -inf for max pooling, zeros for average pooling (which counts them, as its own
  // padding, in its divisor).
  std::vector<std::uint32_t> padding(r, 0);
  for (std::size_t i = 0; i < r; ++i) {
    const Dim before = g.pad_begin[i];
    const Dim after = g.pad_end[i] + extra[i];
    const Dim common = std::min(before, after);
    padding[i] = static_cast<std::uint32_t>(common);
    // -inf or 0 (a const block concatenated on each side) where the padding is asymmetric.
    x = cx.pad_with(x, 2 + i, before - padding[i], after - padding[i],
                    max ? -std::numeric_limits<float>::infinity() : 0.0F);
  }
  const OpKind kind = max ? OpKind::max_pool : OpKind::avg_pool;
  NodeId y = cx.add(kind, {x},
                    ir::PoolParams{.spatial_rank = static_cast<std::uint32_t>(r),
                                   .kernel = kernel,
                                   .stride = g.stride,
                                   .padding = std::move(padding)});
  if (exclude_padding || partial_windows) {
    // Each window's sum over the window size, times window size / the count of its elements
    // that count (count_include_pad 0: inside the input, a folded Pad's zeros being input; 1:
    // inside the input and the node's own padding, ceil_mode's overhang not), a constant per
    // output position: two float32 roundings where ONNX divides once.
    const Shape ys = cx.shape_of(y);
    Shape factors(ir::Dims(ys.rank(), 1));
    for (std::size_t i = 0; i < r; ++i)
      factors.dims[2 + i] = ys.dims[2 + i];
    const std::optional<Dim> count = ir::element_count(factors);
    if (!count || *count > kMaxFoldedElements) {
      cx.unsupported(
          "the divisors of average pooling over " + to_string(ys) +
          " (count_include_pad 0, or ceil_mode's partial windows) need a constant of one " +
          "factor per output position, more than " + str(kMaxFoldedElements) +
          "; supported: up to that many");
    }
    const NodeId c = cx.add(OpKind::const_, {}, ir::ConstParams{.value_shape = factors}, factors);
    if (cx.keep_payloads()) {
      double window = 1.0;
      for (const std::uint32_t k : kernel)
        window *= k;
      std::vector<float> values(count.value_or(0));
      for (Dim e = 0; e < values.size(); ++e) {
        Dim rest = e;
        double inside = 1.0;
        for (std::size_t i = r; i-- > 0;) {
          const Dim o = rest % ys.dims[2 + i];
          rest /= ys.dims[2 + i];
          const Dim folded_pad = folded && i < 2 ? folded->padding : 0;
          const auto extent = static_cast<std::int64_t>(spatial[i] + 2 * folded_pad);
          const std::int64_t start =
              static_cast<std::int64_t>(o * g.stride[i]) - static_cast<std::int64_t>(own_pads[i]);
          const std::int64_t end = start + kernel[i];
          // The span whose elements count: the input (with a folded Pad's zeros), and under
          // count_include_pad the node's own padding on both sides.
          const std::int64_t lo = count_pad ? -static_cast<std::int64_t>(own_pads[i]) : 0;
          const std::int64_t hi =
              extent + (count_pad ? static_cast<std::int64_t>(own_pads[r + i]) : 0);
          inside *= static_cast<double>(
              std::max<std::int64_t>(0, std::min(end, hi) - std::max(start, lo)));
        }
        values[e] = static_cast<float>(window / inside);
      }
      cx.set_payload(c, "value", cx.payload_values(factors, std::move(values)));
    }
    y = cx.add(OpKind::mul_elem, {y, cx.broadcast(c, ys)});
  }
  cx.define(cx.out_name(0), y);
  define_indices(extra, y);
}

void global_pool(ImportContext& cx, bool max) {
  cx.allow_attrs({});
  cx.require_inputs(1, 1);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  if (xs.rank() < 3) {
    cx.unsupported("input " + to_string(xs) +
                   " has no spatial axis; supported: (N,C,D1,...) with at least one spatial axis");
  }
  const std::size_t r = xs.rank() - 2;
  std::vector<std::uint32_t> kernel;
  for (std::size_t i = 2; i < xs.rank(); ++i) {
    if (constexpr Dim kMaxWindow = 0xFFFF; xs.dims[i] > kMaxWindow) {
      cx.fail("input " + to_string(xs) + " is too large: the pooling window is the whole of " +
              "each spatial axis, the limit is " + str(kMaxWindow) + " on each");
    }
    kernel.push_back(static_cast<std::uint32_t>(xs.dims[i]));
  }
  cx.define(cx.out_name(0), cx.add(max ? OpKind::max_pool : OpKind::avg_pool, {x},
                                   ir::PoolParams{.spatial_rank = static_cast<std::uint32_t>(r),
                                                  .kernel = std::move(kernel),
                                                  .stride = std::vector<std::uint32_t>(r, 1),
                                                  .padding = std::vector<std::uint32_t>(r, 0)}));
}

}  // namespace

void import_max_pool(ImportContext& cx) {
  pool(cx, true);
}

void import_average_pool(ImportContext& cx) {
  pool(cx, false);
}

void import_global_max_pool(ImportContext& cx) {
  global_pool(cx, true);
}

void import_global_average_pool(ImportContext& cx) {
  global_pool(cx, false);
}

}  // namespace nnplan::format::onnx_import
