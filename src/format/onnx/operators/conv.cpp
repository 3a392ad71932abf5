// Conv and ConvTranspose over 1 to 3 (or more) spatial axes with `group`, `dilations`,
// asymmetric `pads` or `auto_pad`, a weight and an optional bias, into one `conv` or
// `conv_transpose` node (channel axis 1) carrying both as payloads when both are constants, else
// taking both as its parents 1 and 2 (weights as values: a weight that is a graph input, as in a
// model exported with export_params=False, or computed; a constant one beside it becomes a
// `const` node). A pending zero Pad before a 2-D Conv adds to its padding.
#include <algorithm>
#include <limits>
#include <optional>

#include "../import_context.hpp"
#include "../operators.hpp"
#include "../window_attributes.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

constexpr Dim kMaxU32 = std::numeric_limits<std::uint32_t>::max();

void convolution(ImportContext& cx, bool transposed) {
  if (transposed) {
    cx.allow_attrs({"auto_pad", "dilations", "group", "kernel_shape", "output_padding",
                    "output_shape", "pads", "strides"});
  } else {
    cx.allow_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  }
  cx.require_inputs(2, 3);
  const std::optional<PendingPad> folded = transposed ? std::nullopt : cx.pad_of(cx.in_name(0));
  const NodeId x = folded ? cx.tensor(folded->input, folded->input_node) : cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  if (xs.rank() < 3) {
    cx.unsupported("input " + to_string(xs) +
                   " has no spatial axis; supported: (N,C,D1,...) with at least one spatial axis");
  }
  const std::size_t r = xs.rank() - 2;
  const std::int64_t group = cx.attr_int("group", 1);
  if (group < 1 || static_cast<Dim>(group) > kMaxU32) {
    cx.fail("attribute group = " + str(group) + " is not a positive 32-bit count");
  }
  const auto groups = static_cast<Dim>(group);
  const std::string_view weight_name = cx.in_name(1);
  // Weights as values when the weight or the bias is not a constant.
  const bool as_values = cx.constant(weight_name) == nullptr ||
                         (cx.has_in(2) && cx.constant(cx.in_name(2)) == nullptr);
  ConstPtr w;
  std::optional<NodeId> w_value;
  std::vector<Dim> w_dims;
  if (as_values) {
    w_value = cx.float_value(weight_name, "weight");
    w_dims.assign(cx.shape_of(*w_value).dims.begin(), cx.shape_of(*w_value).dims.end());
  } else {
    w = cx.float_constant(weight_name, "weight");
    w_dims = w->dims;
  }
  const std::string weight_text = "weight " + quoted_name(weight_name) + " " + list_string(w_dims);
  if (w_dims.size() != r + 2) {
    cx.fail(weight_text + " does not have rank " + str(static_cast<std::uint64_t>(r + 2)) + " (" +
            (transposed ? "C,M/group" : "M,C/group") + ", then one kernel size per " +
            "spatial axis of input " + to_string(xs) + ")");
  }
  for (const Dim d : w_dims) {
    if (d == 0 || d > kMaxU32) {
      cx.fail(weight_text + " has a dimension of 0 or past " + str(kMaxU32));
    }
  }
  const Dim in_c = xs.dims[1];
  // Conv's weight is [M, C/group, k...]; ConvTranspose's is [C, M/group, k...].
  const Dim out_c = transposed ? w_dims[1] * groups : w_dims[0];
  const Dim weight_in = transposed ? w_dims[0] : w_dims[1] * groups;
  if (weight_in != in_c) {
    cx.fail(weight_text + " with group " + str(group) + " expects " + str(weight_in) +
            " input channels, input " + to_string(xs) + " has " + str(in_c));
  }
  if (in_c > kMaxU32 || out_c > kMaxU32) {
    cx.fail("input " + to_string(xs) + " with " + weight_text + " has " + str(in_c) +
            " input and " + str(out_c) + " output channels; the limit is " + str(kMaxU32) +
            " each");
  }
  if (in_c % groups != 0 || out_c % groups != 0) {
    cx.fail("attribute group = " + str(group) + " does not divide the " + str(in_c) +
            " input and " + str(out_c) + " output channels");
  }
  std::vector<std::uint32_t> kernel(w_dims.begin() + 2, w_dims.end());
  if (const auto ks = read_kernel_shape(cx, r, false); !ks.empty() && ks != kernel) {
    cx.fail_attr("kernel_shape", list_string(ks), "the weight's kernel " + list_string(kernel));
  }
  const std::vector<Dim> spatial(xs.dims.begin() + 2, xs.dims.end());
  if (folded) cx.refuse_same_auto_pad(*folded);
  WindowGeometry g = read_window(cx, spatial, kernel, transposed);
  if (folded) {
    if (r != 2) cx.unsupported("a folded Pad needs a 2-D Conv");
    for (std::size_t i = 0; i < 2; ++i) {
      g.pad_begin[i] += folded->padding;
      g.pad_end[i] += folded->padding;
    }
  }
  std::vector<std::uint32_t> output_padding;
  if (transposed) {
    output_padding.assign(r, 0);
    if (const auto op = cx.attr_ints("output_padding")) {
      bool ok = op->size() == r;
      for (std::size_t i = 0; ok && i < r; ++i)
        ok = (*op)[i] >= 0 && (*op)[i] < std::max(g.stride[i], g.dilation[i]);
      if (!ok) {
        cx.fail_attr("output_padding", list_string(*op),
                     "one non-negative value per spatial axis, below its stride or dilation");
      }
      output_padding.assign(op->begin(), op->end());
      const std::string auto_pad = cx.attr_string("auto_pad", "NOTSET");
      if (auto_pad != "NOTSET" && auto_pad != "VALID" &&
          std::any_of(output_padding.begin(), output_padding.end(),
                      [](std::uint32_t p) { return p != 0; })) {
        cx.fail_attr("output_padding", list_string(*op),
                     "all zero with auto_pad " + auto_pad +
                         " (SAME sizes the output as input "
                         "times stride, which output_padding would change)");
      }
    }
    if (const auto os = cx.attr_ints("output_shape")) {
      // The padding that gives output_shape, half on each side.
      const std::size_t offset = os->size() == r + 2 ? 2 : 0;
      if (os->size() != r && os->size() != r + 2) {
        cx.fail_attr("output_shape", list_string(*os), "one size per spatial axis");
      }
      for (std::size_t i = 0; i < r; ++i) {
        const Dim full = (spatial[i] - 1) * g.stride[i] + output_padding[i] +
                         Dim{g.dilation[i]} * (kernel[i] - 1) + 1;
        const std::int64_t want = (*os)[offset + i];
        if (want < 1 || static_cast<Dim>(want) > full || full - static_cast<Dim>(want) > kMaxU32) {
          cx.fail_attr("output_shape", list_string(*os),
                       "sizes from 1 to the unpadded transposed extent (" + str(full) +
                           " on spatial axis " + str(static_cast<std::uint64_t>(i)) + ")");
        }
        const Dim total = full - static_cast<Dim>(want);
        if (total % 2 != 0) {
          // ONNX's text puts the odd unit first unless auto_pad is SAME_UPPER, ONNX Runtime
          // the other way round: only an even total means one thing.
          cx.fail_attr("output_shape", list_string(*os),
                       "sizes that leave an even total padding on each spatial axis (here " +
                           str(total) + " on spatial axis " + str(static_cast<std::uint64_t>(i)) +
                           ")");
        }
        g.pad_begin[i] = static_cast<std::uint32_t>(total / 2);
        g.pad_end[i] = static_cast<std::uint32_t>(total / 2);
      }
    }
  }
  const auto check_bias = [&](const std::vector<Dim>& dims) {
    if (dims != std::vector<Dim>{out_c}) {
      cx.fail("bias " + quoted_name(cx.in_name(2)) + " " + list_string(dims) + " is not [" +
              str(out_c) + "]");
    }
  };
  ir::Parents parents = {x};
  std::optional<ir::WeightTensor> weight;
  std::optional<ir::WeightTensor> bias;
  if (as_values) {
    parents.push_back(*w_value);
    if (cx.has_in(2)) {
      const NodeId b = cx.float_value(cx.in_name(2), "bias");
      check_bias(std::vector<Dim>(cx.shape_of(b).dims.begin(), cx.shape_of(b).dims.end()));
      parents.push_back(b);
    }
  } else {
    weight = cx.payload_tensor(w, Shape{w->dims}, weight_name);
    if (cx.has_in(2)) {
      ConstPtr b = cx.float_constant(cx.in_name(2), "bias");
      check_bias(b->dims);
      bias = cx.payload_tensor(b, Shape{b->dims});
    }
  }
  const NodeId id = cx.add(transposed ? OpKind::conv_transpose : OpKind::conv, std::move(parents),
                           ir::ConvParams{.spatial_rank = static_cast<std::uint32_t>(r),
                                          .kernel = std::move(kernel),
                                          .stride = std::move(g.stride),
                                          .padding = std::move(g.pad_begin),
                                          .dilation = std::move(g.dilation),
                                          .padding_after = std::move(g.pad_end),
                                          .groups = static_cast<std::uint32_t>(groups),
                                          .channel_axis = 1,
                                          .in_channels = static_cast<std::uint32_t>(in_c),
                                          .out_channels = static_cast<std::uint32_t>(out_c),
                                          .output_padding = std::move(output_padding)});
  if (weight) cx.set_payload(id, "weight", std::move(*weight));
  if (bias) cx.set_payload(id, "bias", std::move(*bias));
  cx.define(cx.out_name(0), id);
}

}  // namespace

void import_conv(ImportContext& cx) {
  convolution(cx, false);
}

void import_conv_transpose(ImportContext& cx) {
  convolution(cx, true);
}

}  // namespace nnplan::format::onnx_import
