// Conv: 2-D convolution with group 1, unit dilations, equal strides and symmetric padding (pads
// or auto_pad), a constant weight [M,C,kH,kW] and an optional constant bias [M], into one
// `conv2d` node carrying both as payloads. A pending zero Pad before it adds to its padding.
#include <algorithm>
#include <limits>
#include <optional>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_conv(ImportContext& cx) {
  cx.allow_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  cx.require_inputs(2, 3);
  const std::optional<PendingPad> folded = cx.pad_of(cx.in_name(0));
  const NodeId x = folded ? cx.tensor(folded->input, folded->input_node) : cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  if (xs.rank() != 4) {
    cx.unsupported("input " + to_string(xs) +
                   " is not (N,C,H,W); only 2-D convolution is supported");
  }
  const std::int64_t group = cx.attr_int("group", 1);
  if (group != 1) cx.fail_attr("group", str(group), "1");
  if (const auto d = cx.attr_ints("dilations");
      d && !std::all_of(d->begin(), d->end(), [](std::int64_t v) { return v == 1; })) {
    cx.fail_attr("dilations", list_string(*d), "[1,1]");
  }
  const std::string_view weight_name = cx.in_name(1);
  ConstPtr w = cx.float_constant(weight_name, "weight");
  if (w->dims.size() != 4) {
    cx.fail("weight " + quoted_name(weight_name) + " " + list_string(w->dims) +
            " is not [M,C,kH,kW]");
  }
  const Dim out_c = w->dims[0];
  const Dim in_c = w->dims[1];
  const Dim kh = w->dims[2];
  const Dim kw = w->dims[3];
  if (in_c != xs.dims[1]) {
    cx.fail("weight " + quoted_name(weight_name) + " " + list_string(w->dims) + " expects " +
            str(in_c) + " input channels, input " + to_string(xs) + " has " + str(xs.dims[1]));
  }
  if (const auto ks = cx.attr_ints("kernel_shape");
      ks && (ks->size() != 2 || Dim((*ks)[0]) != kh || Dim((*ks)[1]) != kw)) {
    cx.fail_attr("kernel_shape", list_string(*ks),
                 "the weight's kernel [" + str(kh) + "," + str(kw) + "]");
  }
  constexpr Dim kMax = std::numeric_limits<std::uint32_t>::max();
  if (out_c > kMax || in_c > kMax || kh > kMax || kw > kMax) {
    cx.fail("weight " + quoted_name(weight_name) + " " + list_string(w->dims) +
            " is too large: the limit is " + str(kMax) + " on each dimension");
  }
  const std::uint32_t stride = cx.equal_strides();
  if (folded) cx.refuse_same_auto_pad(*folded);
  std::uint32_t padding =
      cx.window_padding(xs, static_cast<std::uint32_t>(kh), static_cast<std::uint32_t>(kw), stride);
  if (folded) padding += folded->padding;
  PayloadTensor weight{.shape = Shape{w->dims}, .data = cx.take_floats(w, weight_name)};
  std::optional<PayloadTensor> bias;
  if (cx.has_in(2)) {
    ConstPtr b = cx.float_constant(cx.in_name(2), "bias");
    if (b->dims != std::vector<Dim>{out_c}) {
      cx.fail("bias " + quoted_name(cx.in_name(2)) + " " + list_string(b->dims) + " is not [" +
              str(out_c) + "]");
    }
    bias = PayloadTensor{.shape = Shape{b->dims}, .data = cx.payload_floats(*b)};
  }
  const auto k_h = static_cast<std::uint32_t>(kh);
  const auto k_w = static_cast<std::uint32_t>(kw);
  const NodeId id = cx.add(OpKind::conv, {x},
                           ir::ConvParams{.spatial_rank = 2,
                                          .kernel = {k_h, k_w},
                                          .stride = {stride, stride},
                                          .padding = {padding, padding},
                                          .dilation = {1, 1},
                                          .padding_after = {padding, padding},
                                          .groups = 1,
                                          .channel_axis = 1,
                                          .in_channels = static_cast<std::uint32_t>(in_c),
                                          .out_channels = static_cast<std::uint32_t>(out_c)});
  cx.set_payload(id, "weight", std::move(weight));
  if (bias) cx.set_payload(id, "bias", std::move(*bias));
  cx.define(cx.out_name(0), id);
}

}  // namespace nnplan::format::onnx_import
