// The operators that only change a tensor's shape, each into a `reshape` node (none when the
// shape stays): Reshape (a constant shape input, or the `shape` attribute before opset 5, with 0
// copying a dimension and one -1 inferred), Flatten (to 2-D at `axis`), Squeeze and Unsqueeze
// (axes from the input or, before opset 13, the attribute).
#include <optional>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::Shape;

void import_reshape(ImportContext& cx) {
  cx.allow_attrs({"allowzero", "shape", "consumed_inputs"});
  if (const std::int64_t z = cx.attr_int("allowzero", 0); z != 0) {
    cx.fail_attr("allowzero", str(z), "0");
  }
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  std::vector<std::int64_t> target;
  if (cx.has_in(1)) {
    cx.require_inputs(2, 2);
    target = cx.int_constant(cx.in_name(1), "shape");
  } else if (const auto s = cx.attr_ints("shape")) {
    target = *s;
  } else {
    cx.fail("has no shape input");
  }
  Shape out{ir::Dims(target.size(), 1)};
  std::optional<std::size_t> infer;
  Dim known = 1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    const std::int64_t t = target[i];
    if (t == -1) {
      if (infer) cx.fail("shape " + list_string(target) + " has more than one -1");
      infer = i;
      continue;
    }
    if (t < -1) cx.fail("shape " + list_string(target) + " has negative entry " + str(t));
    if (t == 0) {
      if (i >= xs.rank()) {
        cx.fail("shape " + list_string(target) + ": entry " + str(Dim{i}) +
                " is 0 (copy) but the input " + to_string(xs) + " has no such dimension");
      }
      out.dims[i] = xs.dims[i];
    } else {
      out.dims[i] = static_cast<Dim>(t);
    }
    known *= out.dims[i];
  }
  const Dim total = ir::element_count(xs).value_or(0);
  if (infer) {
    if (known == 0 || total % known != 0) {
      cx.fail("cannot reshape " + to_string(xs) + " to " + list_string(target));
    }
    out.dims[*infer] = total / known;
  }
  if (ir::element_count(out).value_or(0) != total) {
    cx.fail("cannot reshape " + to_string(xs) + " to " + list_string(target) +
            ": element counts differ");
  }
  cx.define(cx.out_name(0), cx.reshape(x, out));
}

void import_flatten(ImportContext& cx) {
  cx.allow_attrs({"axis"});
  cx.require_inputs(1, 1);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", 1), xs.rank(), true);
  Dim rows = 1;
  Dim cols = 1;
  for (std::size_t i = 0; i < xs.rank(); ++i)
    (i < axis ? rows : cols) *= xs.dims[i];
  cx.define(cx.out_name(0), cx.reshape(x, Shape{{rows, cols}}));
}

namespace {

void squeeze(ImportContext& cx, bool unsqueeze) {
  cx.allow_attrs({"axes"});
  cx.require_inputs(1, 2);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  std::vector<std::int64_t> axes = cx.axes_operand(1);
  Shape out;
  if (unsqueeze) {
    const std::size_t rank = xs.rank() + axes.size();
    std::vector<bool> inserted(rank, false);
    for (const std::int64_t a : axes) {
      const std::uint32_t n = cx.norm_axis(a, rank);
      if (inserted[n]) cx.fail("axes " + list_string(axes) + " repeat axis " + str(n));
      inserted[n] = true;
    }
    std::size_t next = 0;
    for (std::size_t i = 0; i < rank; ++i)
      out.dims.push_back(inserted[i] ? 1 : xs.dims[next++]);
  } else {
    std::vector<bool> removed(xs.rank(), false);
    for (const std::int64_t a : axes) {
      const std::uint32_t n = cx.norm_axis(a, xs.rank());
      if (xs.dims[n] != 1) cx.fail("cannot squeeze axis " + str(n) + " of " + to_string(xs));
      removed[n] = true;
    }
    for (std::size_t i = 0; i < xs.rank(); ++i) {
      const bool drop = axes.empty() ? xs.dims[i] == 1 : removed[i];
      if (!drop) out.dims.push_back(xs.dims[i]);
    }
  }
  cx.define(cx.out_name(0), cx.reshape(x, out));
}

}  // namespace

void import_squeeze(ImportContext& cx) {
  squeeze(cx, false);
}

void import_unsqueeze(ImportContext& cx) {
  squeeze(cx, true);
}

}  // namespace nnplan::format::onnx_import
