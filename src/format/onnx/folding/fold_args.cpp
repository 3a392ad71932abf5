#include "fold_args.hpp"

#include <algorithm>

#include "../constant_folding.hpp"
#include "../import_context.hpp"
#include "nnplan/format/limits.hpp"

namespace nnplan::format::onnx_import::folding {

bool foldable_dtype(int t) {
  return t == kF32 || t == kI64 || t == kI32 || t == kBool;
}

ConstTensor& FoldArgs::in(int i) const {
  if (!has(i)) cx.fail("input " + str(i) + " is missing");
  return *inputs_[static_cast<std::size_t>(i)];
}

std::string FoldArgs::quoted(int i) const {
  return quoted_name(cx.in_name(i));
}

DimList FoldArgs::input_dims(int i) const {
  if (has(i)) return inputs_[static_cast<std::size_t>(i)]->dims;
  if (!cx.has_in(i)) cx.fail("input " + str(i) + " is missing");
  const ir::Shape s = cx.tensor_shape(cx.in_name(i));
  return DimList(s.dims.begin(), s.dims.end());
}

std::vector<std::int64_t> FoldArgs::ints(int i, std::string_view role) const {
  if (!cx.has_in(i)) cx.fail(std::string(role) + " (input " + str(i) + ") is missing");
  return cx.int_constant(cx.in_name(i), role);
}

int FoldArgs::same_dtype(std::initializer_list<int> indices) const {
  int first = -1;
  int dtype = 0;
  for (const int i : indices) {
    if (!has(i)) continue;
    if (first < 0) {
      first = i;
      dtype = in(i).dtype;
    } else if (in(i).dtype != dtype) {
      cx.fail("inputs " + quoted(first) + " (" + dtype_name(dtype) + ") and " + quoted(i) + " (" +
              dtype_name(in(i).dtype) + ") have different data types");
    }
  }
  return dtype;
}

std::size_t FoldArgs::count(const DimList& dims, int dtype) const {
  if (dims.size() > kMaxRank) {
    cx.fail("the result would have rank " + str(Dim{dims.size()}) + "; the limit is " +
            str(Dim{kMaxRank}));
  }
  std::optional<Dim> n = 1;
  for (const Dim d : dims)
    if (n) n = ir::checked_mul(*n, d);
  if (n == Dim{0}) {
    // An empty tensor is small whatever its other dimensions, which still meet the IR's limit.
    for (const Dim d : dims) {
      if (d > kMaxDim) {
        cx.fail("the result would have dimension " + str(d) + "; the limit is " + str(kMaxDim) +
                " (2^48)");
      }
    }
    return 0;
  }
  if (!n || *n > kMaxFoldedElements) {
    if (imports_ && dtype == kF32) throw FoldDeclined{};
    cx.unsupported("folding it would make a tensor of shape " + list_string(dims) + " (" +
                   (n ? str(*n) : std::string("more than 2^64")) +
                   " elements); constant folding is limited to " + str(kMaxFoldedElements) +
                   " (2^24) elements per tensor");
  }
  return static_cast<std::size_t>(*n);
}

ConstTensor FoldArgs::make(int dtype, DimList dims) const {
  ConstTensor out;
  out.dtype = dtype;
  const std::size_t n = count(dims, dtype);
  out.dims = std::move(dims);
  if (dtype == kF32) {
    out.floats.assign(n, 0.0f);
  } else {
    out.ints.assign(n, 0);
  }
  return out;
}

DimList FoldArgs::broadcast(std::initializer_list<const DimList*> shapes) const {
  ir::Shape out;
  bool first = true;
  for (const DimList* s : shapes) {
    const ir::Shape next{ir::Dims(s->begin(), s->end())};
    out = first ? next : cx.broadcast_shapes(out, next);
    first = false;
  }
  return DimList(out.dims.begin(), out.dims.end());
}

std::vector<std::int64_t> strides_of(const DimList& dims) {
  std::vector<std::int64_t> s(dims.size(), 1);
  for (std::size_t i = dims.size(); i > 1; --i)
    s[i - 2] = s[i - 1] * static_cast<std::int64_t>(dims[i - 1]);
  return s;
}

std::vector<std::int64_t> broadcast_strides(const DimList& in, const DimList& out) {
  const std::vector<std::int64_t> own = strides_of(in);
  std::vector<std::int64_t> s(out.size(), 0);
  const std::size_t lead = out.size() - in.size();
  for (std::size_t i = 0; i < in.size(); ++i)
    s[lead + i] = in[i] == 1 && out[lead + i] != 1 ? 0 : own[i];
  return s;
}

StridedWalk::StridedWalk(DimList dims, std::vector<std::vector<std::int64_t>> strides,
                         std::vector<std::int64_t> offsets)
    : dims_(std::move(dims)),
      strides_(std::move(strides)),
      offsets_(std::move(offsets)),
      index_(dims_.size(), 0) {}

void StridedWalk::next() {
  for (std::size_t axis = dims_.size(); axis > 0; --axis) {
    const std::size_t d = axis - 1;
    for (std::size_t k = 0; k < offsets_.size(); ++k)
      offsets_[k] += strides_[k][d];
    if (++index_[d] < dims_[d]) return;
    for (std::size_t k = 0; k < offsets_.size(); ++k)
      offsets_[k] -= strides_[k][d] * static_cast<std::int64_t>(dims_[d]);
    index_[d] = 0;
  }
}

ConstTensor take_strided(const FoldArgs& a, ConstTensor& src, DimList dims,
                         std::vector<std::int64_t> strides, std::int64_t offset) {
  ConstTensor out = a.make(src.dtype, dims);
  const std::size_t n = is_float(src) ? out.floats.size() : out.ints.size();
  StridedWalk walk(std::move(dims), {std::move(strides)}, {offset});
  if (is_float(src)) {
    const std::vector<float>& from = floats_of(src);
    for (std::size_t i = 0; i < n; ++i, walk.next())
      out.floats[i] = from[walk.at(0)];
  } else {
    for (std::size_t i = 0; i < n; ++i, walk.next())
      out.ints[i] = src.ints[walk.at(0)];
  }
  return out;
}

ConstTensor with_dims(const FoldArgs& a, ConstTensor& src, DimList dims) {
  (void)a.count(dims, src.dtype);
  ConstTensor out;
  out.dtype = src.dtype;
  out.dims = std::move(dims);
  if (is_float(src)) {
    out.floats = floats_of(src);
  } else {
    out.ints = src.ints;
  }
  return out;
}

void copy_elements(ConstTensor& dst, std::size_t to, ConstTensor& src, std::size_t from,
                   std::size_t n) {
  if (is_float(src)) {
    const std::vector<float>& f = floats_of(src);
    std::copy_n(f.begin() + static_cast<std::ptrdiff_t>(from), n,
                dst.floats.begin() + static_cast<std::ptrdiff_t>(to));
  } else {
    std::copy_n(src.ints.begin() + static_cast<std::ptrdiff_t>(from), n,
                dst.ints.begin() + static_cast<std::ptrdiff_t>(to));
  }
}

}  // namespace nnplan::format::onnx_import::folding
