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
// Every other nearest Resize, and `linear` and `cubic`, is interpolated one axis at a time, as
// ONNX's reference does: for each output index the source coordinate (the coordinate mode over
// the axis's scale, ONNX's formulas), its n taps (1 for nearest, 2 for linear, 4 for cubic: the n
// input indices nearest to it, ties to the lower, indices past either end reading the edge
// element) and their coefficients (the nearest mode's pick; 1 - t and t; the cubic kernel with
// cubic_coeff_a, renormalized over the taps inside the input under exclude_outside) are computed
// here, at import, in float64. The axis then becomes n `gather`s of the taps, each multiplied by
// its coefficients (a `const` broadcast along the axis) and summed: float32 arithmetic where ONNX's
// reference sums in float64, a few units in the last place apart.
// `tf_crop_and_resize` (a region of interest, extrapolation) is unsupported.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
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

// The longest output axis whose interpolation taps the importer tabulates.
constexpr Dim kMaxInterpolatedAxis = Dim{1} << 22;

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
  double cubic_a = -0.75;
  bool exclude_outside = false;
  std::vector<double> scales;  // per axis: given, or output / input when sizes are given
  std::vector<Dim> out;        // per axis
};

// The source coordinate of output index `o` on an axis of `in` elements scaled by `scale`
// (ONNX's coordinate_transformation_mode formulas; the resized length in them is scale * in as a
// real number, as ONNX's reference computes it, not the whole output size).
double source_coordinate(const std::string& ctm, double o, double scale, Dim in) {
  const double resized = scale * static_cast<double>(in);
  if (ctm == "align_corners") {
    return resized == 1 ? 0.0 : o * static_cast<double>(in - 1) / (resized - 1);
  }
  if (ctm == "asymmetric") return o / scale;
  if (ctm == "pytorch_half_pixel") return resized == 1 ? -0.5 : (o + 0.5) / scale - 0.5;
  if (ctm == "tf_half_pixel_for_nn") return (o + 0.5) / scale;
  return (o + 0.5) / scale - 0.5;  // half_pixel
}

// The nearest-mode pick between floor(x) and floor(x) + 1.
double nearest_index(const std::string& mode, double x) {
  const double f = std::floor(x);
  const double frac = x - f;
  if (mode == "floor") return f;
  if (mode == "ceil") return std::ceil(x);
  if (mode == "round_prefer_ceil") return frac >= 0.5 ? f + 1 : f;
  return frac > 0.5 ? f + 1 : f;  // round_prefer_floor
}

// ONNX's cubic kernel at the four taps of fraction t (t in (0, 1]).
std::vector<double> cubic_coefficients(double t, double a) {
  const double s = 1 - t;
  return {((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
          ((a + 2) * t - (a + 3)) * t * t + 1, ((a + 2) * s - (a + 3)) * s * s + 1,
          ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
}

// Per output index, the taps (input indices, clamped to the edge) and their coefficients.
struct AxisTaps {
  std::vector<std::vector<std::int64_t>> index;  // [tap][output index]
  std::vector<std::vector<float>> weight;        // [tap][output index]
};

AxisTaps taps_of(const ResizeRequest& r, std::size_t axis, Dim in) {
  const Dim out = r.out[axis];
  const std::size_t n = r.mode == "nearest" ? 1 : r.mode == "linear" ? 2 : 4;
  AxisTaps taps{.index = std::vector<std::vector<std::int64_t>>(n, std::vector<std::int64_t>(out)),
                .weight = std::vector<std::vector<float>>(n, std::vector<float>(out))};
  const auto clamp_index = [in](double k) {
    return static_cast<std::int64_t>(std::clamp(k, 0.0, static_cast<double>(in - 1)));
  };
  for (Dim o = 0; o < out; ++o) {
    const double x = source_coordinate(r.ctm, static_cast<double>(o), r.scales[axis], in);
    if (n == 1) {
      taps.index[0][o] = clamp_index(nearest_index(r.nearest, x));
      taps.weight[0][o] = 1.0F;
      continue;
    }
    // The n integers nearest x, ties to the lower: the window ends at ceil(x) + n/2 - 1 (at an
    // integer x, x + n/2 - 1, with all of the weight on x), and the fraction is 1 there.
    const double f = std::floor(x);
    const double t = x == f ? 1.0 : x - f;
    const double first = (x == f ? x - 1 : f) - static_cast<double>(n / 2 - 1);
    std::vector<double> c =
        n == 2 ? std::vector<double>{1 - t, t} : cubic_coefficients(t, r.cubic_a);
    if (r.exclude_outside) {
      double sum = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const double k = first + static_cast<double>(j);
        if (k < 0 || k > static_cast<double>(in - 1)) c[j] = 0;
        sum += c[j];
      }
      for (double& v : c)
        v /= sum;
    }
    for (std::size_t j = 0; j < n; ++j) {
      taps.index[j][o] = clamp_index(first + static_cast<double>(j));
      taps.weight[j][o] = static_cast<float>(c[j]);
    }
  }
  return taps;
}

// `x` resized along `axis` from `taps`: the sum over taps of gather(x, tap) * weight.
NodeId interpolate_axis(ImportContext& cx, NodeId x, std::uint32_t axis, const AxisTaps& taps) {
  Shape gathered = cx.shape_of(x);
  const Dim out = static_cast<Dim>(taps.index[0].size());
  gathered.dims[axis] = out;
  // The coefficients vary along the axis only: [out, 1, ...] broadcast over the rest.
  Shape column{ir::Dims(gathered.rank() - axis, 1)};
  column.dims[0] = out;
  NodeId sum = 0;
  for (std::size_t j = 0; j < taps.index.size(); ++j) {
    const NodeId g = cx.add(OpKind::gather, {x}, ir::AxisParams{.axis = axis}, gathered);
    if (cx.keep_payloads()) {
      cx.set_payload(g, "indices", ir::WeightTensor::adopt(Shape{{out}}, taps.index[j]));
    }
    NodeId term = g;
    const bool all_ones = std::ranges::all_of(taps.weight[j], [](float w) { return w == 1.0F; });
    if (!all_ones) {
      const NodeId w =
          cx.add(OpKind::const_, {}, ir::ConstParams{.value_shape = Shape{{out}}}, Shape{{out}});
      cx.set_payload(w, "value", cx.payload_values(Shape{{out}}, taps.weight[j]));
      term = cx.add(OpKind::mul_elem, {g, cx.broadcast(cx.reshape(w, column), gathered)});
    }
    sum = j == 0 ? term : cx.add(OpKind::add, {sum, term});
  }
  return sum;
}

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
  if (r.mode != "nearest" && r.mode != "linear" && r.mode != "cubic") {
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
  if (ctm != "half_pixel" && ctm != "pytorch_half_pixel" && ctm != "align_corners" &&
      ctm != "asymmetric" && ctm != "tf_half_pixel_for_nn") {
    cx.fail("attribute coordinate_transformation_mode = " + quoted_name(ctm) +
            " is no coordinate mode ONNX defines");
  }
  if (nearest != "round_prefer_floor" && nearest != "round_prefer_ceil" && nearest != "floor" &&
      nearest != "ceil") {
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
  // Interpolation, one axis at a time; an axis whose every output reads its own index is left
  // as it is.
  NodeId y = x;
  for (std::size_t i = 0; i < xs.rank(); ++i) {
    if (r.out[i] != 0 && xs.dims[i] == 0) cx.fail("axis " + str(Dim{i}) + " is empty");
    // The taps are tables of the output axis's length, built now: bounded so that a small file
    // cannot make the import allocate gigabytes.
    if (r.out[i] > kMaxInterpolatedAxis) {
      cx.unsupported("axis " + str(Dim{i}) + " resized to " + str(r.out[i]) +
                     " elements by interpolation is not supported; supported: up to " +
                     str(kMaxInterpolatedAxis) + " (2^22) per interpolated axis");
    }
    const AxisTaps taps = taps_of(r, i, xs.dims[i]);
    // Identity: every output's weight, summed over the taps reading its own index, is 1, and
    // every tap reading another index weighs 0.
    bool identity = r.out[i] == xs.dims[i];
    for (Dim o = 0; identity && o < r.out[i]; ++o) {
      float own = 0.0F;
      for (std::size_t j = 0; j < taps.index.size(); ++j) {
        if (taps.index[j][o] == static_cast<std::int64_t>(o)) {
          own += taps.weight[j][o];
        } else {
          identity = identity && taps.weight[j][o] == 0.0F;
        }
      }
      identity = identity && own == 1.0F;
    }
    if (identity) continue;
    y = interpolate_axis(cx, y, static_cast<std::uint32_t>(i), taps);
  }
  cx.define(cx.out_name(0), y);
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
