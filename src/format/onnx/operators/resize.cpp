// Resize in `nearest` mode by a whole factor on each axis, which repeats every
// element factor times: a reshape giving each scaled axis a size-1 axis after it, a
// `broadcast_to` stretching those to the factors, and a reshape merging each pair, exactly.
// Whether nearest repeats depends on how output coordinates map back: for an output index
// q*k + j (0 <= j < k) of factor k,
// - `asymmetric` gives q + j/k: exact with nearest_mode `floor`, and with `round_prefer_floor`
//   when k <= 2;
// - `half_pixel` and `pytorch_half_pixel` give q + (j + 0.5)/k - 0.5, within (-0.5, 0.5) of q:
//   exact with `round_prefer_floor` and `round_prefer_ceil`;
// - `tf_half_pixel_for_nn` gives q + (j + 0.5)/k, within [q, q + 1): exact with `floor`;
// - `align_corners` and `tf_crop_and_resize` do not repeat elements.
// Upsample (opsets 7 to 9) reads as Resize-10. Before opset 11 the operator has no coordinate mode
// and maps as `asymmetric` with `floor` when upsampling (as ONNX Runtime reads it). Every other
// combination, another mode, or a factor that is not whole is unsupported, naming the attribute or
// value.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::Shape;

namespace {

// Whether coordinate mode `ctm` with nearest mode `nearest` repeats each element for factor `k`.
bool repeats(const std::string& ctm, const std::string& nearest, Dim k) {
  if (k == 1) return true;
  if (ctm == "asymmetric") return nearest == "floor" || (nearest == "round_prefer_floor" && k <= 2);
  if (ctm == "half_pixel" || ctm == "pytorch_half_pixel") {
    return nearest == "round_prefer_floor" || nearest == "round_prefer_ceil";
  }
  if (ctm == "tf_half_pixel_for_nn") return nearest == "floor";
  return false;
}

// The nearest Resize of the current node: `scales` and `sizes` are the inputs holding them (a
// negative one: none); `attr_scales`, when given, are the scales (Upsample-7's attribute).
void resize(ImportContext& cx, int scales_in, int sizes_in, const std::string& ctm,
            const std::string& nearest,
            const std::optional<std::vector<float>>& attr_scales = std::nullopt) {
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  const std::string mode = cx.attr_string("mode", "nearest");
  if (mode != "nearest") cx.fail_attr("mode", mode, "nearest");

  std::vector<Dim> factors(xs.rank(), 1);
  const ConstPtr scales = scales_in >= 0 && cx.has_in(scales_in)
                              ? cx.float_constant(cx.in_name(scales_in), "scales")
                              : nullptr;
  if (attr_scales || (scales != nullptr && !scales->dims.empty() && scales->dims[0] != 0)) {
    const std::vector<float>& s = attr_scales ? *attr_scales : floats_of(*scales);
    if (s.size() != xs.rank()) {
      cx.fail("scales has " + str(Dim{s.size()}) + " entries for input " + to_string(xs));
    }
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (!(s[i] > 0.0F)) cx.fail("scale " + str(s[i]) + " on axis " + str(Dim{i}) + " is not positive");
      if (s[i] != std::floor(s[i]) || s[i] > 65536.0F) {
        cx.unsupported("scale " + str(s[i]) + " on axis " + str(Dim{i}) +
                       " is not supported; supported: whole factors 1..65536");
      }
      factors[i] = static_cast<Dim>(s[i]);
    }
  } else if (sizes_in >= 0 && cx.has_in(sizes_in)) {
    const std::vector<std::int64_t> sizes = cx.int_constant(cx.in_name(sizes_in), "sizes");
    if (sizes.size() != xs.rank()) {
      cx.fail("sizes " + list_string(sizes) + " has " + str(Dim{sizes.size()}) +
              " entries for input " + to_string(xs));
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const Dim in = xs.dims[i];
      if (sizes[i] < 0) cx.fail("sizes " + list_string(sizes) + " has a negative entry");
      const auto out = static_cast<Dim>(sizes[i]);
      if (in == 0 || out % in != 0 || out == 0) {
        cx.unsupported("size " + str(out) + " on axis " + str(Dim{i}) + " of input " +
                       to_string(xs) + " is not supported; supported: whole multiples");
      }
      factors[i] = out / in;
    }
  } else {
    cx.fail("has neither scales nor sizes");
  }
  Shape unmerged;
  Shape stretched;
  Shape out;
  for (std::size_t i = 0; i < xs.rank(); ++i) {
    if (!repeats(ctm, nearest, factors[i])) {
      cx.unsupported("coordinate_transformation_mode = " + ctm + " with nearest_mode = " + nearest +
                     " and factor " + str(factors[i]) + " on axis " + str(Dim{i}) +
                     " is not supported; supported: asymmetric with floor (or round_prefer_floor "
                     "up to factor 2), half_pixel or pytorch_half_pixel with round_prefer_floor or "
                     "round_prefer_ceil, tf_half_pixel_for_nn with floor");
    }
    unmerged.dims.push_back(xs.dims[i]);
    stretched.dims.push_back(xs.dims[i]);
    const std::optional<Dim> scaled = ir::checked_mul(xs.dims[i], factors[i]);
    if (!scaled) cx.fail("axis " + str(Dim{i}) + " of " + to_string(xs) + " overflows when scaled");
    out.dims.push_back(*scaled);
    if (factors[i] != 1) {
      unmerged.dims.push_back(1);
      stretched.dims.push_back(factors[i]);
    }
  }
  cx.define(cx.out_name(0), cx.reshape(cx.broadcast(cx.reshape(x, unmerged), stretched), out));
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
