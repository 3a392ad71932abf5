// The operators that select part of a float tensor along its axes, each into `slice` nodes (one
// per axis that changes; none when nothing does): Slice (constant starts, ends, axes and steps as
// inputs from opset 10, as attributes before; bounds as numpy normalizes them; positive steps
// only), Split (one slice per used output; the sizes from the `split` input from opset 13, the
// attribute before, or equal parts), and Gather with constant indices (a contiguous ascending run
// of indices is a slice, reshaped to the indices' shape, so that a scalar index drops the axis;
// any other list is a `gather` node with the indices, normalized, as its int64 payload). Gather
// with indices given at run time (an embedding lookup of token ids), or of int64 or bool data, is a
// `gather` node whose indices are its second parent, an int64 value: negative indices count from
// the end, and the kernel's guard refuses one out of range before the launch. Slices of int64
// shape tensors never get here: they fold at import time.
#include <cstdint>
#include <limits>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

// `x[start:end:step]` along `axis`, or `x` itself when that keeps every element.
NodeId slice(ImportContext& cx, NodeId x, std::uint32_t axis, Dim start, Dim end, Dim step = 1) {
  const Dim extent = cx.shape_of(x).dims[axis];
  if (start == 0 && end >= extent && step == 1) return x;
  return cx.add(OpKind::slice, {x},
                ir::SliceParams{.axis = axis, .start = start, .end = end, .step = step});
}

// An ONNX Slice bound on an axis of `extent` (negative counts from the end) clamped to
// [0, extent], as the operator does for a positive step.
Dim clamp_bound(std::int64_t v, Dim extent) {
  const auto e = static_cast<std::int64_t>(extent);
  if (v < 0) v = v < -e ? 0 : v + e;
  return static_cast<Dim>(std::min(v, e));
}

}  // namespace

void import_slice(ImportContext& cx) {
  std::vector<std::int64_t> starts;
  std::vector<std::int64_t> ends;
  std::vector<std::int64_t> axes;
  std::vector<std::int64_t> steps;
  if (cx.opset() < 10) {
    cx.allow_attrs({"starts", "ends", "axes"});
    cx.require_inputs(1, 1);
    const auto s = cx.attr_ints("starts");
    const auto e = cx.attr_ints("ends");
    if (!s || !e) cx.fail("attributes starts and ends are required");
    starts = *s;
    ends = *e;
    axes = cx.attr_ints("axes").value_or(std::vector<std::int64_t>{});
  } else {
    cx.allow_attrs({});
    cx.require_inputs(3, 5);
    starts = cx.int_constant(cx.in_name(1), "starts");
    ends = cx.int_constant(cx.in_name(2), "ends");
    if (cx.has_in(3)) axes = cx.int_constant(cx.in_name(3), "axes");
    if (cx.has_in(4)) steps = cx.int_constant(cx.in_name(4), "steps");
  }
  NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  if (ends.size() != starts.size()) {
    cx.fail("starts " + list_string(starts) + " and ends " + list_string(ends) +
            " differ in length");
  }
  if (axes.empty()) {
    for (std::size_t i = 0; i < starts.size(); ++i)
      axes.push_back(static_cast<std::int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) {
    cx.fail("starts " + list_string(starts) + ", axes " + list_string(axes) + " and steps " +
            list_string(steps) + " differ in length");
  }
  std::vector<bool> seen(xs.rank(), false);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::uint32_t axis = cx.norm_axis(axes[i], xs.rank());
    if (seen[axis]) cx.fail("axes " + list_string(axes) + " repeat axis " + str(axis));
    seen[axis] = true;
    if (steps[i] == 0) cx.fail("steps " + list_string(steps) + " has a 0 step");
    if (steps[i] < 0) {
      cx.unsupported("steps " + list_string(steps) + " has negative step " + str(steps[i]) +
                     " on axis " + str(axis) + "; only positive steps are supported");
    }
    const Dim extent = xs.dims[axis];
    x = slice(cx, x, axis, clamp_bound(starts[i], extent), clamp_bound(ends[i], extent),
              static_cast<Dim>(steps[i]));
  }
  cx.define(cx.out_name(0), x);
}

void import_split(ImportContext& cx) {
  const bool split_input = cx.opset() >= 13 || cx.opset() == 1;
  if (cx.opset() >= 18) {
    cx.allow_attrs({"axis", "num_outputs"});
  } else if (split_input && cx.opset() != 1) {
    cx.allow_attrs({"axis"});
  } else {
    cx.allow_attrs({"axis", "split"});
  }
  cx.require_inputs(1, split_input ? 2 : 1);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", 0), xs.rank());
  const Dim extent = xs.dims[axis];
  const auto outputs = static_cast<Dim>(cx.output_count());
  if (outputs == 0) cx.fail("has no outputs");
  std::vector<std::int64_t> sizes;
  if (split_input && cx.has_in(1)) {
    sizes = cx.int_constant(cx.in_name(1), "split");
  } else if (const auto s = cx.attr_ints("split")) {
    sizes = *s;
  } else if (cx.attr("num_outputs") != nullptr) {
    // Opset 18: parts of ceil(extent / n), the last one smaller.
    const std::int64_t n = cx.attr_int("num_outputs", 0);
    if (n < 1 || static_cast<Dim>(n) != outputs) {
      cx.fail("attribute num_outputs = " + str(n) + " differs from its " + str(outputs) +
              " outputs");
    }
    const Dim part = (extent + outputs - 1) / outputs;
    for (Dim i = 0; i < outputs; ++i) {
      const Dim begin = std::min(extent, i * part);
      sizes.push_back(static_cast<std::int64_t>(std::min(extent, begin + part) - begin));
    }
  } else {
    if (extent % outputs != 0) {
      cx.fail("axis " + str(axis) + " of " + to_string(xs) + " does not split into " +
              str(outputs) + " equal parts");
    }
    sizes.assign(outputs, static_cast<std::int64_t>(extent / outputs));
  }
  if (sizes.size() != outputs) {
    cx.fail("split " + list_string(sizes) + " has " + str(Dim{sizes.size()}) + " entries for " +
            str(outputs) + " outputs");
  }
  Dim total = 0;
  for (const std::int64_t s : sizes) {
    if (s < 0) cx.fail("split " + list_string(sizes) + " has a negative size");
    // Each size is at most the extent, so the sum cannot wrap.
    if (static_cast<Dim>(s) > extent) {
      cx.fail("split " + list_string(sizes) + " has a size past the extent " + str(extent) +
              " of axis " + str(axis) + " of " + to_string(xs));
    }
    total += static_cast<Dim>(s);
  }
  if (total != extent) {
    cx.fail("split " + list_string(sizes) + " sums to " + str(total) + ", not to the extent " +
            str(extent) + " of axis " + str(axis) + " of " + to_string(xs));
  }
  Dim begin = 0;
  for (int i = 0; i < cx.output_count(); ++i) {
    const Dim end = begin + static_cast<Dim>(sizes[static_cast<std::size_t>(i)]);
    if (cx.used(cx.out_name(i))) cx.define(cx.out_name(i), slice(cx, x, axis, begin, end));
    begin = end;
  }
}

namespace {

// Gather with its indices as an int64 value: the runtime tensor, or the constant (checked here)
// as an int64 `const` node.
void gather_by_value(ImportContext& cx, NodeId x, std::uint32_t axis) {
  const std::string_view name = cx.in_name(1);
  const Shape xs = cx.shape_of(x);
  NodeId index = 0;
  if (const ConstPtr ic = cx.constant(name)) {
    std::vector<std::int64_t> values = cx.int_constant(name, "indices");
    const auto extent = static_cast<std::int64_t>(xs.dims[axis]);
    for (const std::int64_t i : values) {
      if (i < -extent || i >= extent) {
        cx.fail("index " + str(i) + " is out of range for axis " + str(axis) + " of " +
                to_string(xs));
      }
    }
    const Shape shape{ic->dims};
    index = cx.add(OpKind::const_, {}, ir::ConstParams{.value_shape = shape}, shape, {},
                   ir::DType::int64);
    cx.set_payload(index, "value", ir::WeightTensor::adopt(shape, std::move(values)));
  } else {
    index = cx.tensor(name);
    const ir::DType dtype = cx.ir_node(index).dtype;
    if (dtype != ir::DType::int64) {
      cx.unsupported("indices " + quoted_name(name) + " have dtype " +
                     std::string(ir::to_string(dtype)) + "; supported: int64");
    }
  }
  Shape out;
  out.dims.assign(xs.dims.begin(), xs.dims.begin() + axis);
  const Shape is = cx.shape_of(index);
  out.dims.insert(out.dims.end(), is.dims.begin(), is.dims.end());
  out.dims.insert(out.dims.end(), xs.dims.begin() + axis + 1, xs.dims.end());
  cx.define(cx.out_name(0), cx.add(OpKind::gather, {x, index}, ir::AxisParams{.axis = axis}, out));
}

}  // namespace

void import_gather(ImportContext& cx) {
  cx.allow_attrs({"axis"});
  cx.require_inputs(2, 2);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  if (xs.rank() == 0) cx.fail("data is a scalar");
  const std::uint32_t axis = cx.norm_axis(cx.attr_int("axis", 0), xs.rank());
  const ConstPtr ic = cx.constant(cx.in_name(1));
  if (ic == nullptr || cx.ir_node(x).dtype != ir::DType::float32) {
    gather_by_value(cx, x, axis);
    return;
  }
  std::vector<std::int64_t> indices = cx.int_constant(cx.in_name(1), "indices");
  const auto extent = static_cast<std::int64_t>(xs.dims[axis]);
  for (std::int64_t& i : indices) {
    if (i < -extent || i >= extent) {
      cx.fail("index " + str(i) + " is out of range for axis " + str(axis) + " of " +
              to_string(xs));
    }
    if (i < 0) i += extent;
  }
  bool contiguous = true;
  for (std::size_t i = 1; i < indices.size(); ++i)
    contiguous = contiguous && indices[i] == indices[i - 1] + 1;
  Shape out;
  out.dims.assign(xs.dims.begin(), xs.dims.begin() + axis);
  out.dims.insert(out.dims.end(), ic->dims.begin(), ic->dims.end());
  out.dims.insert(out.dims.end(), xs.dims.begin() + axis + 1, xs.dims.end());
  if (!contiguous) {
    const NodeId g = cx.add(OpKind::gather, {x}, ir::AxisParams{.axis = axis}, out);
    if (cx.keep_payloads()) {
      cx.set_payload(g, "indices", ir::WeightTensor::adopt(Shape{ic->dims}, std::move(indices)));
    }
    cx.define(cx.out_name(0), g);
    return;
  }
  const Dim start = indices.empty() ? 0 : static_cast<Dim>(indices.front());
  const NodeId s = slice(cx, x, axis, start, start + indices.size());
  cx.define(cx.out_name(0), cx.reshape(s, out));
}

}  // namespace nnplan::format::onnx_import
