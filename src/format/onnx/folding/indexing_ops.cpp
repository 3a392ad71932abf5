// Folding of the operators that select or rearrange elements: Gather, Slice, Concat, Transpose
// and Expand.
#include <algorithm>
#include <limits>
#include <numeric>

#include "../import_context.hpp"
#include "evaluators.hpp"
#include "nnplan/format/limits.hpp"

namespace nnplan::format::onnx_import::folding {

ConstTensor fold_gather(FoldArgs& a) {
  a.cx.allow_attrs({"axis"});
  a.cx.require_inputs(2, 2);
  ConstTensor& data = a.in(0);
  const ConstTensor& indices = a.in(1);
  if (!is_int(indices)) {
    a.cx.fail("indices " + a.quoted(1) + " have data type " + dtype_name(indices.dtype) +
              ", expected int64 or int32");
  }
  if (data.dims.empty())
    a.cx.fail("data " + a.quoted(0) + " is a scalar; Gather needs rank 1 or more");
  const std::uint32_t axis = a.cx.norm_axis(a.cx.attr_int("axis", 0), data.dims.size());
  const Dim extent = data.dims[axis];
  DimList dims(data.dims.begin(), data.dims.begin() + axis);
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  dims.insert(dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  ConstTensor out = a.make(data.dtype, dims);
  std::size_t outer = 1;
  for (std::uint32_t i = 0; i < axis; ++i)
    outer *= static_cast<std::size_t>(data.dims[i]);
  std::size_t inner = 1;
  for (std::size_t i = axis + 1; i < data.dims.size(); ++i)
    inner *= static_cast<std::size_t>(data.dims[i]);
  std::vector<std::size_t> picks;
  for (const std::int64_t index : indices.ints) {
    const std::int64_t e = static_cast<std::int64_t>(extent);
    if (index < -e || index >= e) {
      a.cx.fail("index " + str(index) + " of " + a.quoted(1) + " is out of range for axis " +
                str(axis) + " of size " + str(extent) + " of " + a.quoted(0));
    }
    picks.push_back(static_cast<std::size_t>(index < 0 ? index + e : index));
  }
  if (out.floats.empty() && out.ints.empty()) return out;
  std::size_t to = 0;
  for (std::size_t o = 0; o < outer; ++o) {
    for (const std::size_t p : picks) {
      copy_elements(out, to, data, (o * static_cast<std::size_t>(extent) + p) * inner, inner);
      to += inner;
    }
  }
  return out;
}

ConstTensor fold_slice(FoldArgs& a) {
  ConstTensor& data = a.in(0);
  std::vector<std::int64_t> starts;
  std::vector<std::int64_t> ends;
  std::vector<std::int64_t> axes;
  std::vector<std::int64_t> steps;
  if (a.cx.opset() < 10) {
    a.cx.allow_attrs({"starts", "ends", "axes"});
    a.cx.require_inputs(1, 1);
    starts = a.cx.attr_ints("starts").value_or(std::vector<std::int64_t>{});
    ends = a.cx.attr_ints("ends").value_or(std::vector<std::int64_t>{});
    if (const auto given = a.cx.attr_ints("axes")) axes = *given;
  } else {
    a.cx.allow_attrs({});
    a.cx.require_inputs(3, 5);
    starts = a.ints(1, "starts");
    ends = a.ints(2, "ends");
    if (a.cx.has_in(3)) axes = a.ints(3, "axes");
    if (a.cx.has_in(4)) steps = a.ints(4, "steps");
  }
  const std::size_t rank = data.dims.size();
  if (starts.size() != ends.size() || starts.size() > rank) {
    a.cx.fail("starts " + list_string(starts) + " and ends " + list_string(ends) +
              " must have one entry per sliced axis of " + list_string(data.dims));
  }
  if (axes.empty()) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) {
    a.cx.fail("axes " + list_string(axes) + " and steps " + list_string(steps) +
              " must have as many entries as starts " + list_string(starts));
  }
  DimList dims = data.dims;
  std::vector<std::int64_t> strides = strides_of(data.dims);
  std::int64_t offset = 0;
  std::vector<bool> seen(rank, false);
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const std::uint32_t axis = a.cx.norm_axis(axes[k], rank);
    if (seen[axis]) a.cx.fail("axes " + list_string(axes) + " repeat axis " + str(axis));
    seen[axis] = true;
    const std::int64_t step = steps[k];
    if (step == 0) a.cx.fail("steps " + list_string(steps) + " has a 0");
    if (step == std::numeric_limits<std::int64_t>::min()) {
      a.cx.fail("steps " + list_string(steps) + " holds -2^63, which has no magnitude in int64");
    }
    const auto d = static_cast<std::int64_t>(data.dims[axis]);
    // ONNX's rule: a negative bound counts from the end, then both clamp to the axis (to
    // [0, d] going forward, to [-1, d-1] going backward).
    std::int64_t s = starts[k] < 0 ? starts[k] + d : starts[k];
    std::int64_t e = ends[k] < 0 ? ends[k] + d : ends[k];
    Dim n = 0;
    if (d == 0) {
      s = 0;
    } else if (step > 0) {
      s = std::clamp<std::int64_t>(s, 0, d);
      e = std::clamp<std::int64_t>(e, 0, d);
      if (e > s) n = static_cast<Dim>((e - s - 1) / step + 1);
    } else {
      s = std::clamp<std::int64_t>(s, 0, d - 1);
      e = std::clamp<std::int64_t>(e, -1, d - 1);
      if (s > e) n = static_cast<Dim>((s - e - 1) / -step + 1);
    }
    dims[axis] = n;
    if (n > 0) offset += s * strides[axis];
    // Only an axis that keeps two or more elements ever steps, and then step * (n - 1) < d.
    strides[axis] = n > 1 ? step * strides[axis] : 0;
  }
  return take_strided(a, data, std::move(dims), std::move(strides), offset);
}

ConstTensor fold_concat(FoldArgs& a) {
  a.cx.allow_attrs({"axis"});
  const int n = a.cx.input_count();
  if (n == 0) a.cx.fail("has no inputs");
  if (a.cx.attr("axis") == nullptr) a.cx.fail("attribute axis is missing");
  ConstTensor& first = a.in(0);
  const std::size_t rank = first.dims.size();
  if (rank == 0) a.cx.fail("input " + a.quoted(0) + " is a scalar; Concat needs rank 1 or more");
  const std::uint32_t axis = a.cx.norm_axis(a.cx.attr_int("axis", 0), rank);
  DimList dims = first.dims;
  dims[axis] = 0;
  for (int i = 0; i < n; ++i) {
    const ConstTensor& c = a.in(i);
    if (c.dtype != first.dtype) {
      a.cx.fail("inputs " + a.quoted(0) + " (" + dtype_name(first.dtype) + ") and " + a.quoted(i) +
                " (" + dtype_name(c.dtype) + ") have different data types");
    }
    bool fits = c.dims.size() == rank;
    for (std::size_t d = 0; fits && d < rank; ++d)
      fits = d == axis || c.dims[d] == first.dims[d];
    if (!fits) {
      a.cx.fail("input " + a.quoted(i) + " of shape " + list_string(c.dims) +
                " does not concatenate with " + a.quoted(0) + " of shape " +
                list_string(first.dims) + " on axis " + str(axis));
    }
    dims[axis] += c.dims[axis];
  }
  ConstTensor out = a.make(first.dtype, dims);
  if (out.floats.empty() && out.ints.empty()) return out;
  std::size_t outer = 1;
  for (std::uint32_t d = 0; d < axis; ++d)
    outer *= static_cast<std::size_t>(dims[d]);
  std::size_t inner = 1;
  for (std::size_t d = axis + 1; d < rank; ++d)
    inner *= static_cast<std::size_t>(dims[d]);
  std::size_t to = 0;
  for (std::size_t o = 0; o < outer; ++o) {
    for (int i = 0; i < n; ++i) {
      ConstTensor& c = a.in(i);
      const std::size_t block = static_cast<std::size_t>(c.dims[axis]) * inner;
      copy_elements(out, to, c, o * block, block);
      to += block;
    }
  }
  return out;
}

ConstTensor fold_transpose(FoldArgs& a) {
  a.cx.allow_attrs({"perm"});
  a.cx.require_inputs(1, 1);
  ConstTensor& x = a.in(0);
  const std::size_t rank = x.dims.size();
  std::vector<std::int64_t> perm(rank);
  for (std::size_t i = 0; i < rank; ++i)
    perm[i] = static_cast<std::int64_t>(rank - 1 - i);
  if (const auto given = a.cx.attr_ints("perm")) perm = *given;
  std::vector<bool> seen(rank, false);
  bool valid = perm.size() == rank;
  for (std::size_t i = 0; valid && i < rank; ++i) {
    valid = perm[i] >= 0 && static_cast<std::size_t>(perm[i]) < rank &&
            !seen[static_cast<std::size_t>(perm[i])];
    if (valid) seen[static_cast<std::size_t>(perm[i])] = true;
  }
  if (!valid) {
    a.cx.fail("perm " + list_string(perm) + " is not a permutation of the " + str(Dim{rank}) +
              " axes of " + list_string(x.dims));
  }
  const std::vector<std::int64_t> own = strides_of(x.dims);
  DimList dims(rank);
  std::vector<std::int64_t> strides(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    dims[i] = x.dims[static_cast<std::size_t>(perm[i])];
    strides[i] = own[static_cast<std::size_t>(perm[i])];
  }
  return take_strided(a, x, std::move(dims), std::move(strides), 0);
}

ConstTensor fold_expand(FoldArgs& a) {
  a.cx.allow_attrs({});
  a.cx.require_inputs(2, 2);
  ConstTensor& x = a.in(0);
  const std::vector<std::int64_t> shape = a.ints(1, "shape");
  if (shape.size() > kMaxRank) {
    a.cx.fail("shape " + a.quoted(1) + " has " + str(Dim{shape.size()}) +
              " entries; the limit is " + str(Dim{kMaxRank}) + " (the maximum rank)");
  }
  DimList to;
  for (const std::int64_t v : shape) {
    if (v < 0) a.cx.fail("shape " + list_string(shape) + " has negative entry " + str(v));
    to.push_back(static_cast<Dim>(v));
  }
  DimList dims = a.broadcast({&x.dims, &to});
  std::vector<std::int64_t> strides = broadcast_strides(x.dims, dims);
  return take_strided(a, x, std::move(dims), std::move(strides), 0);
}

}  // namespace nnplan::format::onnx_import::folding
