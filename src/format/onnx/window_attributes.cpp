#include "window_attributes.hpp"

#include <limits>
#include <string>

#include "import_context.hpp"

namespace nnplan::format::onnx_import {
namespace {

constexpr std::int64_t kMaxWindowValue = std::numeric_limits<std::uint16_t>::max();

// An ints attribute with one entry per spatial axis (`count` entries), each in [low, high];
// `fallback` for every axis when absent.
std::vector<std::uint32_t> per_axis(const ImportContext& cx, std::string_view name,
                                    std::size_t count, std::int64_t low, std::int64_t high,
                                    std::uint32_t fallback, std::string_view what) {
  const auto values = cx.attr_ints(name);
  if (!values) return std::vector<std::uint32_t>(count, fallback);
  bool ok = values->size() == count;
  for (std::size_t i = 0; ok && i < values->size(); ++i)
    ok = (*values)[i] >= low && (*values)[i] <= high;
  if (!ok) {
    cx.fail_attr(std::string(name), list_string(*values),
                 str(static_cast<std::uint64_t>(count)) + " " + std::string(what) + " in " +
                     str(low) + ".." + str(high) + " (one per spatial axis)");
  }
  return std::vector<std::uint32_t>(values->begin(), values->end());
}

}  // namespace

std::vector<std::uint32_t> read_kernel_shape(const ImportContext& cx, std::size_t rank,
                                             bool required) {
  if (cx.attr("kernel_shape") == nullptr) {
    if (required) cx.fail("attribute kernel_shape is missing");
    return {};
  }
  return per_axis(cx, "kernel_shape", rank, 1, kMaxWindowValue, 1, "positive sizes");
}

WindowGeometry read_window(const ImportContext& cx, const std::vector<ir::Dim>& spatial,
                           const std::vector<std::uint32_t>& kernel, bool transposed) {
  const std::size_t r = kernel.size();
  WindowGeometry w;
  w.kernel = kernel;
  w.stride = per_axis(cx, "strides", r, 1, kMaxWindowValue, 1, "positive strides");
  w.dilation = per_axis(cx, "dilations", r, 1, kMaxWindowValue, 1, "positive dilations");
  const std::string auto_pad = cx.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    const auto pads = per_axis(cx, "pads", 2 * r, 0, kMaxWindowValue, 0, "non-negative pads");
    w.pad_begin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(r));
    w.pad_end.assign(pads.begin() + static_cast<std::ptrdiff_t>(r), pads.end());
    return w;
  }
  if (cx.attr("pads") != nullptr) {
    cx.fail("attributes auto_pad = " + auto_pad + " and pads are both set (pads needs NOTSET)");
  }
  w.pad_begin.assign(r, 0);
  w.pad_end.assign(r, 0);
  if (auto_pad == "VALID") return w;
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    cx.fail_attr("auto_pad", auto_pad, "NOTSET, VALID, SAME_UPPER, SAME_LOWER");
  }
  for (std::size_t i = 0; i < r; ++i) {
    const ir::Dim in = spatial[i];
    const ir::Dim window = ir::Dim{w.dilation[i]} * (kernel[i] - 1) + 1;
    ir::Dim total = 0;
    if (transposed) {
      // The output is in * stride; the padding trims the full transposed extent to it.
      const ir::Dim full = (in - 1) * w.stride[i] + window;
      const ir::Dim want = in * w.stride[i];
      total = full > want ? full - want : 0;
    } else {
      const ir::Dim out = (in + w.stride[i] - 1) / w.stride[i];
      const ir::Dim need = out == 0 ? 0 : (out - 1) * w.stride[i] + window;
      total = need > in ? need - in : 0;
    }
    if (total > 2 * static_cast<ir::Dim>(kMaxWindowValue)) {
      cx.fail_attr("auto_pad", auto_pad, "a padding of at most " + str(kMaxWindowValue));
    }
    if (transposed && total % 2 != 0) {
      // ONNX's text and ONNX Runtime put the odd unit on opposite sides for ConvTranspose.
      cx.fail_attr("auto_pad", auto_pad,
                   "SAME_* on ConvTranspose where the total padding of each axis is even (here "
                   "it is " + str(total) + " on spatial axis " +
                   str(static_cast<std::uint64_t>(i)) + "; readers disagree on an odd one)");
    }
    const auto small = static_cast<std::uint32_t>(total / 2);
    const auto large = static_cast<std::uint32_t>(total - total / 2);
    const bool upper = auto_pad == "SAME_UPPER";
    w.pad_begin[i] = upper ? small : large;
    w.pad_end[i] = upper ? large : small;
  }
  return w;
}

}  // namespace nnplan::format::onnx_import
