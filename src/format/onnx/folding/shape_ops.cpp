// Folding of the operators that compute or change shapes: Shape, Size, Reshape, Squeeze,
// Unsqueeze, ConstantOfShape and Range.
#include <algorithm>
#include <cmath>
#include <limits>

#include "../constant_folding.hpp"
#include "../import_context.hpp"
#include "evaluators.hpp"
#include "nnplan/format/limits.hpp"

namespace nnplan::format::onnx_import::folding {
namespace {

ConstTensor int64_vector(std::vector<std::int64_t> values) {
  ConstTensor out;
  out.dtype = kI64;
  out.dims = {values.size()};
  out.ints = std::move(values);
  return out;
}

// The dimensions that shape operand `values` (named by input `i`) gives, each non-negative.
DimList dims_from(const FoldArgs& a, int i, const std::vector<std::int64_t>& values) {
  if (values.size() > kMaxRank) {
    a.cx.fail("shape " + a.quoted(i) + " has " + str(Dim{values.size()}) +
              " entries; the limit is " + str(Dim{kMaxRank}) + " (the maximum rank)");
  }
  DimList dims;
  for (const std::int64_t v : values) {
    if (v < 0)
      a.cx.fail("shape " + a.quoted(i) + " " + list_string(values) + " has negative entry " +
                str(v));
    dims.push_back(static_cast<Dim>(v));
  }
  return dims;
}

}  // namespace

ConstTensor fold_shape(FoldArgs& a) {
  a.cx.allow_attrs(a.cx.opset() >= 15 ? std::initializer_list<std::string_view>{"start", "end"}
                                      : std::initializer_list<std::string_view>{});
  a.cx.require_inputs(1, 1);
  const DimList dims = a.input_dims(0);
  const auto rank = static_cast<std::int64_t>(dims.size());
  // Out-of-range start and end clamp to the rank, as ONNX says.
  const auto bound = [rank](std::int64_t v) {
    if (v < 0) v = std::max<std::int64_t>(v + rank, 0);
    return std::min(v, rank);
  };
  const std::int64_t start = bound(a.cx.attr_int("start", 0));
  const std::int64_t end = bound(a.cx.attr_int("end", rank));
  std::vector<std::int64_t> values;
  for (std::int64_t i = start; i < end; ++i)
    values.push_back(static_cast<std::int64_t>(dims[static_cast<std::size_t>(i)]));
  return int64_vector(std::move(values));
}

ConstTensor fold_size(FoldArgs& a) {
  a.cx.allow_attrs({});
  a.cx.require_inputs(1, 1);
  const DimList dims = a.input_dims(0);
  const std::optional<Dim> n = ir::element_count(ir::Shape{ir::Dims(dims.begin(), dims.end())});
  if (!n || *n > static_cast<Dim>(std::numeric_limits<std::int64_t>::max())) {
    a.cx.fail("the element count of " + list_string(dims) + " does not fit in int64");
  }
  ConstTensor out;
  out.dtype = kI64;
  out.ints = {static_cast<std::int64_t>(*n)};
  return out;
}

ConstTensor fold_reshape(FoldArgs& a) {
  a.cx.allow_attrs({"allowzero", "shape", "consumed_inputs"});
  ConstTensor& x = a.in(0);
  const bool allowzero = a.cx.attr_int("allowzero", 0) != 0;
  std::vector<std::int64_t> target;
  if (a.cx.has_in(1)) {
    a.cx.require_inputs(2, 2);
    target = a.ints(1, "shape");
  } else if (const auto s = a.cx.attr_ints("shape")) {
    target = *s;
  } else {
    a.cx.fail("has no shape input");
  }
  const std::string spelled = list_string(target);
  if (target.size() > kMaxRank) {
    a.cx.fail("shape has " + str(Dim{target.size()}) + " entries; the limit is " +
              str(Dim{kMaxRank}) + " (the maximum rank)");
  }
  if (allowzero && std::find(target.begin(), target.end(), 0) != target.end() &&
      std::find(target.begin(), target.end(), -1) != target.end()) {
    a.cx.fail("shape " + spelled + " has both 0 and -1, which allowzero = 1 forbids");
  }
  DimList out(target.size(), 1);
  std::optional<std::size_t> infer;
  Dim known = 1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    const std::int64_t t = target[i];
    if (t == -1) {
      if (infer) a.cx.fail("shape " + spelled + " has more than one -1");
      infer = i;
      continue;
    }
    if (t < -1) a.cx.fail("shape " + spelled + " has negative entry " + str(t));
    if (t == 0 && !allowzero) {
      if (i >= x.dims.size()) {
        a.cx.fail("shape " + spelled + ": entry " + str(Dim{i}) + " is 0 (copy) but the input " +
                  list_string(x.dims) + " has no such dimension");
      }
      out[i] = x.dims[i];
    } else {
      out[i] = static_cast<Dim>(t);
    }
    const std::optional<Dim> k = ir::checked_mul(known, out[i]);
    if (!k) a.cx.fail("cannot reshape " + list_string(x.dims) + " to " + spelled);
    known = *k;
  }
  const Dim total =
      ir::element_count(ir::Shape{ir::Dims(x.dims.begin(), x.dims.end())}).value_or(0);
  if (infer) {
    if (known == 0 || total % known != 0) {
      a.cx.fail("cannot reshape " + list_string(x.dims) + " to " + spelled);
    }
    out[*infer] = total / known;
  }
  if (ir::element_count(ir::Shape{ir::Dims(out.begin(), out.end())}) != total) {
    a.cx.fail("cannot reshape " + list_string(x.dims) + " to " + spelled +
              ": element counts differ");
  }
  return with_dims(a, x, std::move(out));
}

namespace {

ConstTensor squeeze(FoldArgs& a, bool unsqueeze) {
  a.cx.allow_attrs({"axes"});
  a.cx.require_inputs(1, 2);
  ConstTensor& x = a.in(0);
  const std::vector<std::int64_t> axes = a.cx.axes_operand(1);
  DimList out;
  if (unsqueeze) {
    if (x.dims.size() + axes.size() > kMaxRank) {
      a.cx.fail("unsqueezing " + list_string(x.dims) + " at " + str(Dim{axes.size()}) +
                " axes passes the rank limit of " + str(Dim{kMaxRank}));
    }
    const std::size_t rank = x.dims.size() + axes.size();
    std::vector<bool> inserted(rank, false);
    for (const std::int64_t axis : axes) {
      const std::uint32_t n = a.cx.norm_axis(axis, rank);
      if (inserted[n]) a.cx.fail("axes " + list_string(axes) + " repeat axis " + str(n));
      inserted[n] = true;
    }
    std::size_t next = 0;
    for (std::size_t i = 0; i < rank; ++i)
      out.push_back(inserted[i] ? 1 : x.dims[next++]);
  } else {
    std::vector<bool> removed(x.dims.size(), false);
    for (const std::int64_t axis : axes) {
      const std::uint32_t n = a.cx.norm_axis(axis, x.dims.size());
      if (x.dims[n] != 1) {
        a.cx.fail("cannot squeeze axis " + str(n) + " of " + list_string(x.dims));
      }
      removed[n] = true;
    }
    for (std::size_t i = 0; i < x.dims.size(); ++i) {
      const bool drop = axes.empty() ? x.dims[i] == 1 : removed[i];
      if (!drop) out.push_back(x.dims[i]);
    }
  }
  return with_dims(a, x, std::move(out));
}

}  // namespace

ConstTensor fold_squeeze(FoldArgs& a) {
  return squeeze(a, false);
}

ConstTensor fold_unsqueeze(FoldArgs& a) {
  return squeeze(a, true);
}

ConstTensor fold_constant_of_shape(FoldArgs& a) {
  a.cx.allow_attrs({"value"});
  a.cx.require_inputs(1, 1);
  DimList dims = dims_from(a, 0, a.ints(0, "shape"));
  ConstTensor value;
  value.dtype = kF32;
  value.floats = {0.0f};
  if (const onnx::AttributeProto* v = a.cx.attr("value")) {
    if (!v->has_t()) a.cx.fail("attribute value holds no tensor");
    const ConstPtr c = a.cx.decode_constant(v->t());
    if (!foldable_dtype(c->dtype)) {
      a.cx.fail_attr("value", "of data type " + dtype_name(c->dtype),
                     "a float32, int64, int32 or bool tensor");
    }
    const std::size_t n = is_float(*c) ? floats_of(*c).size() : c->ints.size();
    if (n != 1) a.cx.fail("attribute value holds " + str(Dim{n}) + " values, expected 1");
    value = *c;
  }
  ConstTensor out = a.make(value.dtype, std::move(dims));
  if (is_float(value)) {
    std::fill(out.floats.begin(), out.floats.end(), value.floats[0]);
  } else {
    std::fill(out.ints.begin(), out.ints.end(), value.ints[0]);
  }
  return out;
}

ConstTensor fold_range(FoldArgs& a) {
  a.cx.allow_attrs({});
  a.cx.require_inputs(3, 3);
  const int dtype = a.same_dtype({0, 1, 2});
  for (int i = 0; i < 3; ++i) {
    ConstTensor& c = a.in(i);
    const std::size_t n = is_float(c) ? floats_of(c).size() : c.ints.size();
    if (n != 1) {
      a.cx.fail("input " + a.quoted(i) + " has shape " + list_string(c.dims) +
                "; Range takes scalars");
    }
  }
  if (dtype == kBool) a.cx.fail("Range takes numbers, not bool");
  if (dtype == kF32) {
    const float start = floats_of(a.in(0))[0];
    const float limit = floats_of(a.in(1))[0];
    const float delta = floats_of(a.in(2))[0];
    if (delta == 0.0f || !std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) {
      a.cx.fail("cannot make a range from " + str(start) + " to " + str(limit) + " by " +
                str(delta));
    }
    const double steps = std::ceil((static_cast<double>(limit) - start) / delta);
    const double n = std::max(steps, 0.0);
    if (n >= 9223372036854775808.0) {
      a.cx.unsupported("a range from " + str(start) + " to " + str(limit) + " by " + str(delta) +
                       " has more than 2^63 elements; constant folding is limited to " +
                       str(kMaxFoldedElements) + " (2^24) elements per tensor");
    }
    const auto elements = static_cast<Dim>(n);
    ConstTensor out = a.make(kF32, {elements});
    for (std::size_t i = 0; i < out.floats.size(); ++i)
      out.floats[i] = start + static_cast<float>(i) * delta;
    return out;
  }
  const std::int64_t start = a.in(0).ints[0];
  const std::int64_t limit = a.in(1).ints[0];
  const std::int64_t delta = a.in(2).ints[0];
  if (delta == 0) a.cx.fail("Range delta " + a.quoted(2) + " is 0");
  // In unsigned arithmetic: limit - start and the values on the way are exact modulo 2^64, and
  // every value lies between start and limit.
  const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  Dim elements = 0;
  if (delta > 0 && limit > start) elements = (u(limit) - u(start) - 1) / u(delta) + 1;
  if (delta < 0 && limit < start) elements = (u(start) - u(limit) - 1) / (0 - u(delta)) + 1;
  ConstTensor out = a.make(dtype, {elements});
  for (std::size_t i = 0; i < out.ints.size(); ++i)
    out.ints[i] = static_cast<std::int64_t>(u(start) + static_cast<std::uint64_t>(i) * u(delta));
  return out;
}

}  // namespace nnplan::format::onnx_import::folding
