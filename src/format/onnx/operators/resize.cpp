// Resize (and Upsample, opsets 7 to 9, which reads as Resize-10) in every mode ONNX 1.12 defines
// for float32, as exact data movement where it can be and as per-axis interpolation otherwise.
//
// Nearest by a whole factor k on each axis repeats every element k times where the coordinate
// mapping lands each output index q*k + j (0 <= j < k) on q:
// - `asymmetric` gives q + j/k: exact with nearest_mode `floor`, and with `round_prefer_floor`
//   when k <= 2;
// - `half_pixel` and `pytorch_half_pixel` give q + (j + 0.5)/k - 0.5, within (-0.5, 0.5) of q:
//   exact with `round_prefer_floor` and `round_prefer_ceil`;
// - `tf_half_pixel_for_nn` gives q + (j + 0.5)/k, within [q, q + 1): exact with `floor`.
// That is a reshape giving each scaled axis a size-1 axis after it, a `broadcast_to` stretching
// those to the factors, and a reshape merging each pair.
//
// Every other Resize becomes one `resize` node, which interpolates as ONNX's reference does
// (src/runtime/providers/reference/resize.cpp); its `scales` are the model's when it gave them,
// and empty when it gave the output sizes. `tf_crop_and_resize` (a region of interest,
// extrapolation) is unsupported.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../import_context.hpp"
#include "../operators.hpp"
#include "nnplan/format/limits.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

// Whether coordinate mode `ctm` with nearest mode `nearest` repeats each element for factor `k`.
bool repeats(const std::string& ctm, const std::string& nearest, double k) {
  if (k != std::floor(k)) return false;
  // At k = 1 every mode maps q to q except tf_half_pixel_for_nn (q + 0.5) rounded up.
  if (k == 1)
    return ctm != "tf_half_pixel_for_nn" || nearest == "floor" || nearest == "round_prefer_floor";
  if (ctm == "asymmetric") return nearest == "floor" || (nearest == "round_prefer_floor" && k <= 2);
  if (ctm == "half_pixel" || ctm == "pytorch_half_pixel") {
    return nearest == "round_prefer_floor" || nearest == "round_prefer_ceil";
  }
  if (ctm == "tf_half_pixel_for_nn") return nearest == "floor";
  return false;
}

// What one Resize node asks for, read and checked.
struct ResizeRequest {
  std::string mode;
  std::string ctm;
  std::string nearest;
  float cubic_a = -0.75F;
  bool exclude_outside = false;
  std::vector<double> scales;  // per axis: given, or output / input when sizes are given
  std::vector<Dim> out;        // per axis
  std::vector<float> given_scales;  // the model's scales, when it gave them
};

template <class E, std::size_t N>
E enum_of(const std::array<std::string_view, N>& names, const std::string& name) {
  return static_cast<E>(std::ranges::find(names, name) - names.begin());
}
constexpr std::array<std::string_view, 3> kModes = {"nearest", "linear", "cubic"};
constexpr std::array<std::string_view, 5> kCoordinates = {
    "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"};
constexpr std::array<std::string_view, 4> kNearestModes = {"round_prefer_floor",
                                                           "round_prefer_ceil", "floor", "ceil"};

// Reads the scales or sizes into `r`.
void read_scales(ImportContext& cx, ResizeRequest& r, const Shape& xs, int scales_in, int sizes_in,
                 const std::optional<std::vector<float>>& attr_scales) {
  const ConstPtr scales = scales_in >= 0 && cx.has_in(scales_in)
                              ? cx.float_constant(cx.in_name(scales_in), "scales")
                              : nullptr;
  if (attr_scales || (scales != nullptr && !scales->dims.empty() && scales->dims[0] != 0)) {
    const std::vector<float>& s = attr_scales ? *attr_scales : floats_of(*scales);
    if (s.size() != xs.rank()) {
      cx.fail("scales has " + str(Dim{s.size()}) + " entries for input " + to_string(xs));
    }
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (!(s[i] > 0.0F) || !std::isfinite(s[i])) {
        cx.fail("scale " + str(s[i]) + " on axis " + str(Dim{i}) + " is not a positive number");
      }
      const double out = std::floor(static_cast<double>(xs.dims[i]) * static_cast<double>(s[i]));
      if (out > 9007199254740992.0) {  // 2^53: past it the size is no longer exact
        cx.fail("axis " + str(Dim{i}) + " of " + to_string(xs) + " overflows when scaled");
      }
      r.scales.push_back(s[i]);
      r.given_scales.push_back(s[i]);
      r.out.push_back(static_cast<Dim>(out));
    }
  } else if (sizes_in >= 0 && cx.has_in(sizes_in)) {
    const std::vector<std::int64_t> sizes = cx.int_constant(cx.in_name(sizes_in), "sizes");
    if (sizes.size() != xs.rank()) {
      cx.fail("sizes " + list_string(sizes) + " has " + str(Dim{sizes.size()}) +
              " entries for input " + to_string(xs));
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] < 0) cx.fail("sizes " + list_string(sizes) + " has a negative entry");
      if (sizes[i] > 0 && xs.dims[i] == 0) {
        cx.fail("axis " + str(Dim{i}) + " of " + to_string(xs) +
                " is empty; it cannot be resized to " + str(sizes[i]));
      }
      r.out.push_back(static_cast<Dim>(sizes[i]));
      r.scales.push_back(
          xs.dims[i] == 0 ? 1.0 : static_cast<double>(sizes[i]) / static_cast<double>(xs.dims[i]));
    }
  } else {
    cx.fail("has neither scales nor sizes");
  }
  for (std::size_t i = 0; i < r.out.size(); ++i) {
    if (r.out[i] > kMaxDim) {
      cx.fail("axis " + str(Dim{i}) + " of " + to_string(xs) + " resized to " + str(r.out[i]) +
              " elements is past the limit of 2^48 per dimension");
    }
  }
}

// The Resize of the current node: `scales` and `sizes` are the inputs holding them (a negative
// one: none); `attr_scales`, when given, are the scales (Upsample-7's attribute).
void resize(ImportContext& cx, int scales_in, int sizes_in, const std::string& ctm,
            const std::string& nearest,
            const std::optional<std::vector<float>>& attr_scales = std::nullopt) {
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  ResizeRequest r{.mode = cx.attr_string("mode", "nearest"), .ctm = ctm, .nearest = nearest};
  if (std::ranges::find(kModes, r.mode) == kModes.end()) {
    cx.fail("attribute mode = " + quoted_name(r.mode) +
            " is no Resize mode; ONNX defines nearest, "
            "linear and cubic");
  }
  if (ctm == "tf_crop_and_resize") {
    cx.unsupported(
        "coordinate_transformation_mode = tf_crop_and_resize is not supported; "
        "supported: half_pixel, pytorch_half_pixel, align_corners, asymmetric, "
        "tf_half_pixel_for_nn");
  }
  if (std::ranges::find(kCoordinates, ctm) == kCoordinates.end()) {
    cx.fail("attribute coordinate_transformation_mode = " + quoted_name(ctm) +
            " is no coordinate mode ONNX defines");
  }
  if (std::ranges::find(kNearestModes, nearest) == kNearestModes.end()) {
    cx.fail("attribute nearest_mode = " + quoted_name(nearest) +
            " is no nearest mode ONNX defines");
  }
  r.cubic_a = cx.attr_float("cubic_coeff_a", -0.75F);
  r.exclude_outside = cx.attr_int("exclude_outside", 0) != 0;
  read_scales(cx, r, xs, scales_in, sizes_in, attr_scales);

  // Whole-factor nearest that repeats elements: reshape, broadcast_to, reshape.
  bool repeat = r.mode == "nearest";
  for (std::size_t i = 0; repeat && i < xs.rank(); ++i) {
    const double k = r.scales[i];
    repeat = k >= 1 && k <= 65536 && repeats(ctm, nearest, k) &&
             r.out[i] == xs.dims[i] * static_cast<Dim>(k);
  }
  if (repeat) {
    Shape unmerged;
    Shape stretched;
    for (std::size_t i = 0; i < xs.rank(); ++i) {
      unmerged.dims.push_back(xs.dims[i]);
      stretched.dims.push_back(xs.dims[i]);
      if (r.out[i] != xs.dims[i]) {
        unmerged.dims.push_back(1);
        stretched.dims.push_back(r.out[i] / xs.dims[i]);
      }
    }
    cx.define(cx.out_name(0),
              cx.reshape(cx.broadcast(cx.reshape(x, unmerged), stretched), Shape{r.out}));
    return;
  }
  const ir::ResizeParams p{
      .mode = enum_of<ir::SampleMode>(kModes, r.mode),
      .coordinate_transformation_mode = enum_of<ir::CoordinateTransformation>(kCoordinates, ctm),
      .nearest_mode = enum_of<ir::ResizeNearest>(kNearestModes, nearest),
      .cubic_coeff_a = r.cubic_a,
      .exclude_outside = r.exclude_outside,
      .scales = r.given_scales};
  for (std::size_t i = 0; i < xs.rank(); ++i) {
    if (r.out[i] != 0 && xs.dims[i] == 0) cx.fail("axis " + str(Dim{i}) + " is empty");
  }
  cx.define(cx.out_name(0), cx.add(OpKind::resize, {x}, p, Shape{r.out}));
}

}  // namespace

void import_resize_10(ImportContext& cx) {
  cx.allow_attrs({"mode"});
  cx.require_inputs(2, 2);
  resize(cx, 1, -1, "asymmetric", "floor");
}

// Upsample (opsets 7 to 9, Resize's predecessor): scales from the attribute (7, 8) or input 1
// (9), mapped as asymmetric with floor, as Resize-10 is.
void import_upsample(ImportContext& cx) {
  cx.allow_attrs({"mode", "scales"});
  cx.require_inputs(1, 2);
  if (cx.has_in(1)) return resize(cx, 1, -1, "asymmetric", "floor");
  const std::optional<std::vector<float>> scales = cx.attr_floats("scales");
  if (!scales) cx.fail("has neither a scales input nor a scales attribute");
  resize(cx, -1, -1, "asymmetric", "floor", scales);
}

void import_resize_11(ImportContext& cx) {
  cx.allow_attrs({"coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",
                  "extrapolation_value", "mode", "nearest_mode"});
  cx.require_inputs(1, 4);
  resize(cx, 2, 3, cx.attr_string("coordinate_transformation_mode", "half_pixel"),
         cx.attr_string("nearest_mode", "round_prefer_floor"));
}

}  // namespace nnplan::format::onnx_import
