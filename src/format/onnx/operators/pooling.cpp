// MaxPool and AveragePool (2-D windows, equal strides, symmetric padding, ceil_mode only where
// it changes nothing) into max_pool2d[_pad] / avg_pool2d[_pad]; a pending zero Pad before them
// adds to their padding (for MaxPool only over a non-negative input). GlobalMaxPool and
// GlobalAveragePool are pools whose window is the whole H x W plane.
#include <algorithm>
#include <optional>

#include "../import_context.hpp"
#include "../operators.hpp"

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
  if (max && !cx.out_name(1).empty()) {
    cx.unsupported("has a second output Indices (" + quoted_name(cx.out_name(1)) +
                   "); only the first output is supported");
  }
  const std::optional<PendingPad> folded = cx.pad_of(cx.in_name(0));
  const NodeId x = folded ? cx.tensor(folded->input, folded->input_node) : cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  cx.require_rank4(xs, max ? "max pooling" : "average pooling");
  const auto ks = cx.attr_ints("kernel_shape");
  if (!ks) cx.fail("attribute kernel_shape is missing");
  if (ks->size() != 2 || (*ks)[0] < 1 || (*ks)[1] < 1 || (*ks)[0] > 0xFFFF || (*ks)[1] > 0xFFFF) {
    cx.fail_attr("kernel_shape", list_string(*ks), "two positive dimensions (2-D pooling)");
  }
  const auto kh = static_cast<std::uint32_t>((*ks)[0]);
  const auto kw = static_cast<std::uint32_t>((*ks)[1]);
  if (max) {
    if (const std::int64_t so = cx.attr_int("storage_order", 0); so != 0) {
      cx.fail_attr("storage_order", str(so), "0");
    }
    if (const auto d = cx.attr_ints("dilations");
        d && !std::all_of(d->begin(), d->end(), [](std::int64_t v) { return v == 1; })) {
      cx.fail_attr("dilations", list_string(*d), "[1,1]");
    }
  }
  const std::uint32_t stride = cx.equal_strides();
  if (folded) cx.refuse_same_auto_pad(*folded);
  std::uint32_t padding = cx.window_padding(xs, kh, kw, stride);
  if (!max) {
    const std::int64_t include = cx.attr_int("count_include_pad", 0);
    if (include == 0 && padding > 0) {
      cx.unsupported("attribute count_include_pad = 0 with padding " + str(padding) +
                     " is not supported (avg_pool2d_pad counts the padding); supported: "
                     "count_include_pad = 1, or no padding");
    }
  }
  if (folded) {
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
    padding += folded->padding;
  }
  if (cx.attr_int("ceil_mode", 0) != 0) {
    for (int d = 0; d < 2; ++d) {
      const Dim k = d == 0 ? kh : kw;
      const Dim span = xs.dims[2 + d] + 2 * Dim{padding};
      if (span >= k && (span - k) % stride != 0) {
        cx.fail_attr("ceil_mode", "1",
                     "0, or 1 where it gives the same output size as 0 (here it does not)");
      }
    }
  }
  const OpKind kind = max ? OpKind::max_pool : OpKind::avg_pool;
  cx.define(
      cx.out_name(0),
      cx.add(kind, {x}, ir::PoolParams{.spatial_rank = 2,
                                       .kernel = {kh, kw},
                                       .stride = {stride, stride},
                                       .padding = {padding, padding}}));
}

void global_pool(ImportContext& cx, bool max) {
  cx.allow_attrs({});
  cx.require_inputs(1, 1);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  cx.require_rank4(xs, max ? "global max pooling" : "global average pooling");
  if (constexpr Dim kMaxWindow = 0xFFFF; xs.dims[2] > kMaxWindow || xs.dims[3] > kMaxWindow) {
    cx.fail("input " + to_string(xs) + " is too large: the pooling window H x W is " +
            str(xs.dims[2]) + " x " + str(xs.dims[3]) + ", the limit is " + str(kMaxWindow) +
            " on each side");
  }
  const auto kh = static_cast<std::uint32_t>(xs.dims[2]);
  const auto kw = static_cast<std::uint32_t>(xs.dims[3]);
  cx.define(cx.out_name(0), cx.add(max ? OpKind::max_pool : OpKind::avg_pool, {x},
                                   ir::PoolParams{.spatial_rank = 2,
                                                  .kernel = {kh, kw},
                                                  .stride = {1, 1},
                                                  .padding = {0, 0}}));
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
