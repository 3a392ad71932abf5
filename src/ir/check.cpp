#include "nnplan/ir/check.hpp"

#include "nnplan/ir/op_table.hpp"
#include "nnplan/ir/payload_shapes.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace nnplan::ir {
namespace {

using Status = std::expected<void, Error>;

std::string str(std::uint64_t value) {
  return std::to_string(value);
}
// The shortest decimal that reads back as `value`.
std::string number(float value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

// "1 parent", "3 nodes".
std::string count_of(std::uint64_t n, std::string_view noun) {
  std::string out = str(n) + " " + std::string(noun);
  if (n != 1) out += 's';
  return out;
}

std::string perm_string(const std::vector<std::uint32_t>& perm) {
  std::string out = "[";
  for (std::size_t i = 0; i < perm.size(); ++i) {
    if (i != 0) out += ',';
    out += str(perm[i]);
  }
  out += ']';
  return out;
}

std::unexpected<Error> fail(const Node& node, std::string what) {
  Error error = make_error(ErrorKind::invalid_input, describe(node) + ": " + what);
  error.position = node.id;
  return std::unexpected(std::move(error));
}

template <class T>
constexpr std::size_t kIndexOf = kParamsIndex<T>;

// How messages name each OpParams alternative, in variant order.
constexpr std::array<std::string_view, std::variant_size_v<OpParams>> kParamsNames = {
    "no",          "const",     "permute",   "seed",
    "pool",        "broadcast", "axis",      "conv",
    "channel",     "reshape",   "flatten",   "transpose",
    "mask",        "gelu",      "clamp",     "scale",
    "slice",       "attention", "alpha",     "top_k",
    "cum_sum",     "scatter",   "gather_nd", "recurrent",
    "grid_sample", "resize",    "roi_align", "max_pool_indices",
    "hard_sigmoid"};
static_assert(kIndexOf<HardSigmoidParams> + 1 == kParamsNames.size());

std::string arity_phrase(Arity arity) {
  if (arity.max == kUnbounded) return "at least " + str(arity.min);
  if (arity.min == arity.max) return str(arity.min);
  return str(arity.min) + ".." + str(arity.max);
}

// Parents exist and are below the node, their number fits the kind, and the parameters are the
// kind's alternative. Everything `infer_into` relies on to index parents and read parameters.
// `count` is how many nodes of the graph exist for the node's parents (a builder's node under test
// is already at the end of the array); without `check_ids` the parents' ids are not read (their
// shapes come from elsewhere).
Status check_structure(const Node& node, std::size_t count, bool check_ids = true) {
  // A kind outside the table (a cast, not a parse) is named by its number: describe() would
  // only say "<invalid>".
  if (static_cast<std::size_t>(node.kind) >= kOpKindCount) {
    Error error =
        make_error(ErrorKind::invalid_input, "node " + str(node.id) + ": unknown op kind " +
                                                 str(static_cast<std::size_t>(node.kind)));
    error.position = node.id;
    return std::unexpected(std::move(error));
  }
  for (const NodeId parent : node.parents) {
    if (!check_ids) break;
    if (parent >= count) {
      return fail(node, "parent " + str(parent) + " does not exist (the graph has " +
                            count_of(count, "node") + ")");
    }
    if (parent >= node.id) {
      return fail(
          node, "parent " + str(parent) + " is not below the node (parents must have smaller ids)");
    }
  }
  const OpKindTraits& traits = op_traits(node.kind);
  const Arity arity = traits.arity;
  const std::size_t parents = node.parents.size();
  if (parents < arity.min || parents > arity.max) {
    return fail(node, "has " + count_of(parents, "parent") + ", expected " + arity_phrase(arity));
  }
  const std::size_t want = traits.params;
  if (node.params.index() != want) {
    const std::string expected =
        want == kIndexOf<std::monostate> ? "none" : std::string(kParamsNames[want]) + " parameters";
    return fail(node, "has " + std::string(kParamsNames[node.params.index()]) +
                          " parameters, expected " + expected);
  }
  return {};
}

template <class T>
const T& params_of(const Node& node) {
  const T* params = std::get_if<T>(&node.params);
  assert(params != nullptr && "check_structure guarantees the alternative");
  return *params;
}

void assign(Shape& out, const Shape& from) {
  out.dims.assign(from.dims.begin(), from.dims.end());
}

std::string axis_out_of_range(std::uint32_t axis, const Shape& shape) {
  return "axis " + str(axis) + " is out of range for " + to_string(shape) + " (rank " +
         str(shape.rank()) + ")";
}

std::string list_string(const std::vector<std::uint32_t>& values) {
  return perm_string(values);
}

// The per-axis lists of a window op each hold one entry per spatial axis; `positive` lists must
// hold no 0.
Status check_window_list(const Node& node, std::string_view field,
                         const std::vector<std::uint32_t>& values, std::uint32_t spatial_rank,
                         bool positive) {
  if (values.size() != spatial_rank) {
    return fail(node, std::string(field) + " " + list_string(values) + " has " +
                          str(values.size()) + (values.size() == 1 ? " entry" : " entries") +
                          ", expected spatial_rank " + str(spatial_rank));
  }
  if (positive) {
    for (const std::uint32_t v : values) {
      if (v == 0) {
        return fail(node, std::string(field) + " " + list_string(values) +
                              " holds 0 (each entry must be at least 1)");
      }
    }
  }
  return {};
}

// The extent of one spatial axis of a conv or pool: `in` padded by `before` and `after`, a window
// of `kernel` taps `dilation` apart, moved by `stride`.
Status window_extent(const Node& node, std::size_t axis, Dim in, std::uint32_t kernel,
                     std::uint32_t stride, std::uint32_t before, std::uint32_t after,
                     std::uint32_t dilation, Dim& out) {
  // 32-bit factors: the padded size and the dilated window fit 64 bits whenever `in` does.
  const std::optional<Dim> padded = checked_add(in, Dim{before} + Dim{after});
  const Dim window = Dim{dilation} * (Dim{kernel} - 1) + 1;
  if (!padded) {
    return fail(node,
                "padded extent of axis " + str(axis) + " (" + str(in) + ") overflows 64 bits");
  }
  if (*padded < window) {
    return fail(node, "window of " + str(window) + " on axis " + str(axis) +
                          " does not fit its padded extent " + str(*padded) + " (input " + str(in) +
                          ", padding " + str(before) + "+" + str(after) + ")");
  }
  out = (*padded - window) / stride + 1;
  return {};
}

// The per-axis lists of a dilated window with padding before and after (conv, conv_transpose,
// max_pool_indices): a positive spatial_rank, and one entry per spatial axis in each list,
// kernel, stride and dilation positive.
template <class P>
Status check_dilated_window(const Node& node, const P& p) {
  const std::uint32_t r = p.spatial_rank;
  if (r == 0) return fail(node, "spatial_rank 0 is not allowed (must be at least 1)");
  if (Status s = check_window_list(node, "kernel", p.kernel, r, true); !s) return s;
  if (Status s = check_window_list(node, "stride", p.stride, r, true); !s) return s;
  if (Status s = check_window_list(node, "padding", p.padding, r, false); !s) return s;
  if (Status s = check_window_list(node, "dilation", p.dilation, r, true); !s) return s;
  return check_window_list(node, "padding_after", p.padding_after, r, false);
}

// conv and conv_transpose: the axes before channel_axis are kept, the channel axis maps
// in_channels to out_channels, and the spatial_rank axes after it are the window's.
Status infer_conv(const Node& node, const Shape& in, const ConvParams& p, bool transposed,
                  Shape& out) {
  const std::uint32_t r = p.spatial_rank;
  if (Status s = check_dilated_window(node, p); !s) return s;
  if (transposed) {
    if (Status s = check_window_list(node, "output_padding", p.output_padding, r, false); !s) {
      return s;
    }
  } else if (!p.output_padding.empty()) {
    // conv has no output_padding field: a graph holding one would not survive writing.
    return fail(node, "output_padding " + list_string(p.output_padding) +
                          " is taken only by conv_transpose (expected [])");
  }
  const Dim expected_rank = Dim{p.channel_axis} + 1 + r;
  if (in.rank() != expected_rank) {
    return fail(node, "expects a parent of rank " + str(expected_rank) + " (channel_axis " +
                          str(p.channel_axis) + ", then " + str(r) + " spatial axes), found " +
                          to_string(in));
  }
  if (in.dims[p.channel_axis] != p.in_channels) {
    return fail(node, "parent " + to_string(in) + " has " + str(in.dims[p.channel_axis]) +
                          " channels on axis " + str(p.channel_axis) + ", expected in_channels " +
                          str(p.in_channels));
  }
  if (p.groups == 0) return fail(node, "groups 0 is not allowed (must be at least 1)");
  if (p.in_channels % p.groups != 0 || p.out_channels % p.groups != 0) {
    return fail(node, "groups " + str(p.groups) + " does not divide in_channels " +
                          str(p.in_channels) + " and out_channels " + str(p.out_channels));
  }
  if (p.in_channels == 0 || p.out_channels == 0) {
    return fail(node, "in_channels and out_channels must be at least 1");
  }
  assign(out, in);
  out.dims[p.channel_axis] = p.out_channels;
  for (std::uint32_t i = 0; i < r; ++i) {
    const std::size_t axis = p.channel_axis + 1 + i;
    const Dim x = in.dims[axis];
    if (!transposed) {
      if (Status s = window_extent(node, axis, x, p.kernel[i], p.stride[i], p.padding[i],
                                   p.padding_after[i], p.dilation[i], out.dims[axis]);
          !s) {
        return s;
      }
      continue;
    }
    if (p.output_padding[i] >= std::max(p.stride[i], p.dilation[i])) {
      return fail(node, "output_padding " + list_string(p.output_padding) +
                            " must be below the stride or the dilation on each axis");
    }
    if (x == 0) return fail(node, "axis " + str(axis) + " of " + to_string(in) + " is empty");
    // (x-1)*stride + dilation*(kernel-1) + output_padding + 1 - padding - padding_after
    const std::optional<Dim> grown = checked_mul(x - 1, Dim{p.stride[i]});
    const std::optional<Dim> full =
        grown ? checked_add(*grown, Dim{p.dilation[i]} * (Dim{p.kernel[i]} - 1) +
                                        Dim{p.output_padding[i]} + 1)
              : std::nullopt;
    if (!full) {
      return fail(node, "transposed extent of axis " + str(axis) + " overflows 64 bits");
    }
    const Dim cut = Dim{p.padding[i]} + Dim{p.padding_after[i]};
    if (*full <= cut) {
      return fail(node, "padding " + str(p.padding[i]) + "+" + str(p.padding_after[i]) +
                            " leaves nothing of axis " + str(axis) + " (transposed extent " +
                            str(*full) + ")");
    }
    out.dims[axis] = *full - cut;
  }
  return {};
}

// The pools' windows over the last `r` axes of `in` (the leading axes kept), each axis padded by
// `before` and `after`, taps `dilation` apart.
Status trailing_windows(const Node& node, const Shape& in, std::uint32_t r,
                        const std::vector<std::uint32_t>& kernel,
                        const std::vector<std::uint32_t>& stride,
                        const std::vector<std::uint32_t>& before,
                        const std::vector<std::uint32_t>& after,
                        const std::vector<std::uint32_t>& dilation, Shape& out) {
  if (in.rank() < r) {
    return fail(node, "expects a parent with at least spatial_rank " + str(r) + " axes, found " +
                          to_string(in));
  }
  assign(out, in);
  const std::size_t first = in.rank() - r;
  for (std::uint32_t i = 0; i < r; ++i) {
    if (Status s = window_extent(node, first + i, in.dims[first + i], kernel[i], stride[i],
                                 before[i], after[i], dilation[i], out.dims[first + i]);
        !s) {
      return s;
    }
  }
  return {};
}

// max_pool and avg_pool: a window over the last spatial_rank axes, the leading axes kept.
Status infer_pool(const Node& node, const Shape& in, const PoolParams& p, Shape& out) {
  const std::uint32_t r = p.spatial_rank;
  if (r == 0) return fail(node, "spatial_rank 0 is not allowed (must be at least 1)");
  if (Status s = check_window_list(node, "kernel", p.kernel, r, true); !s) return s;
  if (Status s = check_window_list(node, "stride", p.stride, r, true); !s) return s;
  if (Status s = check_window_list(node, "padding", p.padding, r, false); !s) return s;
  return trailing_windows(node, in, r, p.kernel, p.stride, p.padding, p.padding,
                          std::vector<std::uint32_t>(r, 1), out);
}

// max_pool_indices: a dilated window over the last spatial_rank axes with its own padding before
// and after; storage_order 0 or 1.
Status infer_max_pool_indices(const Node& node, const Shape& in, const MaxPoolIndicesParams& p,
                              Shape& out) {
  const std::uint32_t r = p.spatial_rank;
  if (Status s = check_dilated_window(node, p); !s) return s;
  if (p.storage_order > 1) {
    return fail(node, "storage_order " + str(p.storage_order) +
                          " is neither 0 (row-major) nor 1 (column-major)");
  }
  return trailing_windows(node, in, r, p.kernel, p.stride, p.padding, p.padding_after, p.dilation,
                          out);
}

Status infer_permute(const Node& node, const Shape& in, const std::vector<std::uint32_t>& perm,
                     Shape& out) {
  const std::size_t rank = in.rank();
  if (perm.size() != rank) {
    return fail(node, "perm " + perm_string(perm) + " has " + str(perm.size()) +
                          (perm.size() == 1 ? " entry" : " entries") +
                          ", expected one per axis of " + to_string(in));
  }
  // Most tensors have few axes; a bit mask covers them without allocating.
  std::uint64_t seen_small = 0;
  std::vector<bool> seen_large(rank > 64 ? rank : 0, false);
  for (const std::uint32_t axis : perm) {
    if (axis >= rank) {
      return fail(node, "perm " + perm_string(perm) + " names axis " + str(axis) +
                            ", out of range for " + to_string(in) + " (rank " + str(rank) + ")");
    }
    bool repeated = false;
    if (rank <= 64) {
      const std::uint64_t bit = std::uint64_t{1} << axis;
      repeated = (seen_small & bit) != 0;
      seen_small |= bit;
    } else {
      repeated = seen_large[axis];
      seen_large[axis] = true;
    }
    if (repeated) {
      return fail(node, "perm " + perm_string(perm) + " repeats axis " + str(axis) +
                            " (expected a permutation of the axes)");
    }
  }
  out.dims.resize(rank);
  for (std::size_t i = 0; i < rank; ++i)
    out.dims[i] = in.dims[perm[i]];
  return {};
}

Status infer_broadcast(const Node& node, const Shape& in, const BroadcastParams& p, Shape& out) {
  if (in != p.from) {
    return fail(node, "parent shape " + to_string(in) + " differs from broadcast source " +
                          to_string(p.from));
  }
  const std::string what = "cannot broadcast " + to_string(p.from) + " to " + to_string(p.to);
  if (p.from.rank() > p.to.rank()) {
    return fail(node, what + ": source rank " + str(p.from.rank()) + " exceeds target rank " +
                          str(p.to.rank()));
  }
  const std::size_t offset = p.to.rank() - p.from.rank();
  for (std::size_t i = 0; i < p.from.rank(); ++i) {
    const Dim f = p.from.dims[i];
    const Dim t = p.to.dims[offset + i];
    if (f != t && f != 1) {
      return fail(node, what + ": source dimension " + str(i) + " is " + str(f) + ", target has " +
                            str(t) + " (must be equal or 1)");
    }
  }
  assign(out, p.to);
  return {};
}

// Element-wise ops on two parents: broadcasting is an op of its own.
Status same_shapes(const Node& node, const Shape& a, const Shape& b) {
  if (a == b) return {};
  return fail(node, "parent shapes differ: " + to_string(a) + " and " + to_string(b) +
                        " (broadcasting must be explicit)");
}

// numpy's broadcasting of every parent's shape: the ranks aligned at the right, each axis the
// extent all parents share where they are not 1 (equal, where).
template <class ParentShape>
Status infer_broadcast_operands(const ParentShape& parent, const Node& node, Shape& out) {
  std::size_t rank = 0;
  for (std::size_t i = 0; i < node.parents.size(); ++i)
    rank = std::max(rank, parent(i).rank());
  out.dims.assign(rank, 1);
  for (std::size_t i = 0; i < node.parents.size(); ++i) {
    const Shape& p = parent(i);
    const std::size_t offset = rank - p.rank();
    for (std::size_t a = 0; a < p.rank(); ++a) {
      Dim& o = out.dims[offset + a];
      if (p.dims[a] == o || p.dims[a] == 1) continue;
      if (o != 1) {
        return fail(node, "parent " + str(i) + " " + to_string(p) + " does not broadcast with " +
                              "the other parents: its dimension " + str(a) + " is " +
                              str(p.dims[a]) + " where another has " + str(o) +
                              " (each must be equal or 1)");
      }
      o = p.dims[a];
    }
  }
  return {};
}

// Indices along `axis` (GatherElements, ScatterElements): data and indices of one rank, `axis`
// below it, and each other axis of the indices no longer than the data's (every index there
// addresses an element inside the data).
Status check_indices_along_axis(const Node& node, const Shape& data, const Shape& indices,
                                std::uint32_t axis) {
  if (data.rank() != indices.rank()) {
    return fail(node, "indices " + to_string(indices) + " and data " + to_string(data) +
                          " differ in rank; " + std::string(to_string(node.kind)) +
                          " takes indices of the data's rank");
  }
  if (axis >= data.rank()) return fail(node, axis_out_of_range(axis, data));
  for (std::size_t a = 0; a < data.rank(); ++a) {
    if (a != axis && indices.dims[a] > data.dims[a]) {
      return fail(node, "indices " + to_string(indices) + " are longer than data " +
                            to_string(data) + " on axis " + str(a) +
                            " (only `axis` may index past the data's extent)");
    }
  }
  return {};
}

// ONNX's GatherElements: the indices fit the data along `axis`; the indices' shape.
Status infer_gather_elements(const Node& node, const Shape& data, const Shape& indices,
                             std::uint32_t axis, Shape& out) {
  if (Status ok = check_indices_along_axis(node, data, indices, axis); !ok) return ok;
  assign(out, indices);
  return {};
}

// ONNX's ScatterElements: indices of the data's rank, each axis but `axis` no longer than the
// data's, and updates of the indices' shape; the data's shape.
Status infer_scatter_elements(const Node& node, const Shape& data, const Shape& indices,
                              const Shape& updates, std::uint32_t axis, Shape& out) {
  if (Status ok = check_indices_along_axis(node, data, indices, axis); !ok) return ok;
  if (updates != indices) {
    return fail(node, "updates " + to_string(updates) + " differ from the indices' shape " +
                          to_string(indices));
  }
  assign(out, data);
  return {};
}

// ONNX's ScatterND: indices (..., k) with 1 <= k <= the data's rank, and updates of shape
// indices[:-1] + data[k:]; the data's shape.
Status infer_scatter_nd(const Node& node, const Shape& data, const Shape& indices,
                        const Shape& updates, Shape& out) {
  const Dim k = indices.rank() == 0 ? 0 : indices.dims.back();
  if (indices.rank() == 0 || k < 1 || k > data.rank()) {
    return fail(node, "indices " + to_string(indices) + " must end in an axis of 1 to " +
                          str(data.rank()) + " (the data " + to_string(data) +
                          "'s rank): each row names one element or slice");
  }
  Shape want;
  want.dims.assign(indices.dims.begin(), indices.dims.end() - 1);
  want.dims.insert(want.dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(k),
                   data.dims.end());
  if (updates != want) {
    return fail(node, "updates " + to_string(updates) + " are not " + to_string(want) +
                          " (the indices' leading shape, then the data's from axis " + str(k) +
                          ")");
  }
  assign(out, data);
  return {};
}

// ONNX's GatherND: the first batch_dims axes of data and indices equal, indices (..., k) with
// batch_dims + k at most the data's rank; the indices' leading shape, then the data's from axis
// batch_dims + k.
Status infer_gather_nd(const Node& node, const Shape& data, const Shape& indices,
                       std::uint32_t batch_dims, Shape& out) {
  const Dim k = indices.rank() == 0 ? 0 : indices.dims.back();
  if (indices.rank() <= batch_dims || k < 1 || batch_dims + k > data.rank()) {
    return fail(node, "indices " + to_string(indices) + " must end in an axis of 1 to " +
                          str(data.rank() > batch_dims ? data.rank() - batch_dims : 0) + " after " +
                          str(batch_dims) + " batch axes (the data is " + to_string(data) + ")");
  }
  for (std::size_t a = 0; a < batch_dims; ++a) {
    if (data.dims[a] != indices.dims[a]) {
      return fail(node, "indices " + to_string(indices) + " and data " + to_string(data) +
                            " differ on batch axis " + str(a));
    }
  }
  out.dims.assign(indices.dims.begin(), indices.dims.end() - 1);
  out.dims.insert(out.dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(batch_dims + k),
                  data.dims.end());
  return {};
}

// torch.matmul: the last two axes multiply, the axes before them broadcast, and a rank-1
// operand is promoted to a matrix (a row on the left, a column on the right) whose added axis the
// result drops.
Status infer_matmul(const Node& node, const Shape& a, const Shape& b, Shape& out) {
  const std::string pair = to_string(a) + " x " + to_string(b);
  if (a.rank() == 0 || b.rank() == 0) {
    return fail(node, "expects parents of rank at least 1, found " + pair);
  }
  const std::size_t ar = a.rank();
  const std::size_t br = b.rank();
  const Dim m = ar == 1 ? 1 : a.dims[ar - 2];
  const Dim ka = a.dims[ar - 1];
  const Dim kb = br == 1 ? b.dims[0] : b.dims[br - 2];
  const Dim n = br == 1 ? 1 : b.dims[br - 1];
  if (ka != kb) return fail(node, "inner dimensions differ: " + pair);
  const std::size_t a_batch = ar > 2 ? ar - 2 : 0;
  const std::size_t b_batch = br > 2 ? br - 2 : 0;
  const std::size_t batch = std::max(a_batch, b_batch);
  out.dims.assign(batch, 1);
  for (std::size_t i = 0; i < batch; ++i) {
    // Aligned from the right, as broadcasting does.
    const Dim da = i + a_batch >= batch ? a.dims[i + a_batch - batch] : 1;
    const Dim db = i + b_batch >= batch ? b.dims[i + b_batch - batch] : 1;
    if (da != db && da != 1 && db != 1) {
      return fail(node, "batch dimensions do not broadcast: " + pair);
    }
    out.dims[i] = da == 1 ? db : da;
  }
  if (ar != 1) out.dims.push_back(m);
  if (br != 1) out.dims.push_back(n);
  return {};
}

template <class ParentShape>
Status infer_concat(const ParentShape& parent_shape, const Node& node, std::uint32_t axis,
                    Shape& out) {
  const Shape& first = parent_shape(0);
  if (axis >= first.rank()) return fail(node, axis_out_of_range(axis, first));
  assign(out, first);
  for (std::size_t i = 1; i < node.parents.size(); ++i) {
    const Shape& next = parent_shape(i);
    if (next.rank() != first.rank()) {
      return fail(node, "parents differ in rank: " + to_string(first) + " and " + to_string(next));
    }
    for (std::size_t d = 0; d < first.rank(); ++d) {
      if (d != axis && next.dims[d] != first.dims[d]) {
        return fail(node, "parents differ outside axis " + str(axis) + ": " + to_string(first) +
                              " and " + to_string(next));
      }
    }
    const std::optional<Dim> total = checked_add(out.dims[axis], next.dims[axis]);
    if (!total) {
      return fail(node, "concatenated axis " + str(axis) + " overflows 64 bits (at parent " +
                            str(node.parents[i]) + ")");
    }
    out.dims[axis] = *total;
  }
  return {};
}

Status infer_reshape(const Node& node, const Shape& in, const ReshapeParams& p, Shape& out) {
  if (in != p.in) {
    return fail(node,
                "parent shape " + to_string(in) + " differs from reshape input " + to_string(p.in));
  }
  const std::optional<Dim> from = element_count(p.in);
  const std::optional<Dim> to = element_count(p.out);
  if (!from) return fail(node, "element count of " + to_string(p.in) + " overflows 64 bits");
  if (!to) return fail(node, "element count of " + to_string(p.out) + " overflows 64 bits");
  if (*from != *to) {
    return fail(node, "reshape from " + to_string(p.in) + " to " + to_string(p.out) +
                          " changes the element count: " + str(*from) + " vs " + str(*to));
  }
  assign(out, p.out);
  return {};
}

// hard_masked_softmax: the mask's shape is the parent's trailing axes (the leading ones
// broadcast) and holds one flag per element.
Status infer_masked_softmax(const Node& node, const Shape& in, const MaskParams& p, Shape& out) {
  if (in.rank() == 0) return fail(node, "expects a parent of rank at least 1, found []");
  const Shape& m = p.shape;
  if (m.rank() == 0 || m.rank() > in.rank()) {
    return fail(node, "mask shape " + to_string(m) + " must have rank 1.." + str(in.rank()) +
                          " to broadcast to " + to_string(in));
  }
  const std::size_t offset = in.rank() - m.rank();
  for (std::size_t i = 0; i < m.rank(); ++i) {
    if (m.dims[i] != in.dims[offset + i]) {
      return fail(node, "mask shape " + to_string(m) + " does not match the trailing axes of " +
                            to_string(in));
    }
  }
  const std::optional<Dim> count = element_count(m);
  if (!count || *count != p.allowed.size()) {
    return fail(node, "mask has " + str(p.allowed.size()) + " entries, its shape " + to_string(m) +
                          " needs " + (count ? str(*count) : std::string("more than 2^64")));
  }
  assign(out, in);
  return {};
}

// slice: Python's start:end:step on `axis`, bounds clamped to its extent.
Status infer_slice(const Node& node, const Shape& in, const SliceParams& p, Shape& out) {
  if (p.axis >= in.rank()) return fail(node, axis_out_of_range(p.axis, in));
  if (p.step == 0) return fail(node, "step 0 is not allowed (must be at least 1)");
  const Dim extent = in.dims[p.axis];
  const Dim start = std::min<Dim>(p.start, extent);
  const Dim end = std::min<Dim>(p.end, extent);
  assign(out, in);
  out.dims[p.axis] = end > start ? (end - start - 1) / p.step + 1 : 0;
  return {};
}

// gather: the declared shape is the parent's with `axis` replaced by the indices' shape, whose
// rank is whatever the declared rank leaves for it.
Status infer_gather(const Node& node, const Shape& in, std::uint32_t axis, Shape& out) {
  if (axis >= in.rank()) return fail(node, axis_out_of_range(axis, in));
  const Shape& declared = node.shape;
  const std::size_t kept = in.rank() - 1;
  bool fits = declared.rank() >= kept;
  const std::size_t index_rank = fits ? declared.rank() - kept : 0;
  for (std::size_t i = 0; fits && i < axis; ++i)
    fits = declared.dims[i] == in.dims[i];
  for (std::size_t i = axis + 1; fits && i < in.rank(); ++i)
    fits = declared.dims[i - 1 + index_rank] == in.dims[i];
  if (!fits) {
    return fail(node, "declared shape " + to_string(declared) + " is not parent " + to_string(in) +
                          " with axis " + str(axis) + " replaced by the indices' shape");
  }
  assign(out, declared);
  return {};
}

// top_k: the declared shape is the parent's with `axis` cut to k, at most the axis' extent.
Status infer_top_k(const Node& node, const Shape& in, std::uint32_t axis, Shape& out) {
  if (axis >= in.rank()) return fail(node, axis_out_of_range(axis, in));
  const Shape& declared = node.shape;
  bool fits = declared.rank() == in.rank() && declared.dims[axis] <= in.dims[axis];
  for (std::size_t i = 0; fits && i < in.rank(); ++i)
    fits = i == axis || declared.dims[i] == in.dims[i];
  if (!fits) {
    return fail(node, "declared shape " + to_string(declared) + " is not parent " + to_string(in) +
                          " with axis " + str(axis) + " cut to k (at most " + str(in.dims[axis]) +
                          ")");
  }
  assign(out, declared);
  return {};
}

// gather with its indices as parent 1: the declared shape's index axes are that parent's shape.
Status infer_gather_by_value(const Node& node, const Shape& in, const Shape& indices,
                             std::uint32_t axis) {
  const std::size_t index_rank = node.shape.rank() + 1 - in.rank();
  const Shape taken{{node.shape.dims.begin() + axis,
                     node.shape.dims.begin() + static_cast<std::ptrdiff_t>(axis + index_rank)}};
  if (taken != indices) {
    return fail(node, "declared shape " + to_string(node.shape) + " is not parent " +
                          to_string(in) + " with axis " + str(axis) +
                          " replaced by the indices' shape " + to_string(indices));
  }
  return {};
}

// rnn, gru, lstm: X [seq, batch, input] with each extent at least 1, hidden_size at least 1,
// each initial state [directions, batch, hidden]; the result Y [seq, directions, batch, hidden].
// linear_before_reset is gru's alone.
Status infer_recurrent(const Node& node, const Shape& x, std::span<const Shape* const> states,
                       Shape& out) {
  const auto& p = params_of<RecurrentParams>(node);
  if (p.hidden_size == 0) return fail(node, "hidden_size is 0; it is at least 1");
  if (p.linear_before_reset && node.kind != OpKind::gru) {
    return fail(node, "linear_before_reset is gru's; " + std::string(to_string(node.kind)) +
                          " takes false");
  }
  if (x.rank() != 3 || x.dims[0] == 0 || x.dims[1] == 0 || x.dims[2] == 0) {
    return fail(node, "parent 0 (X) has shape " + to_string(x) +
                          "; it is [seq_length, batch, input_size], each at least one");
  }
  const Dim dirs = direction_count(p.direction);
  const Shape state{{dirs, x.dims[1], p.hidden_size}};
  for (std::size_t i = 0; i < states.size(); ++i) {
    if (*states[i] != state) {
      return fail(node, "parent " + str(i + 1) + " (initial " + (i == 0 ? "h" : "c") +
                            ") has shape " + to_string(*states[i]) + "; expected " +
                            to_string(state));
    }
  }
  assign(out, Shape{{x.dims[0], dirs, x.dims[1], p.hidden_size}});
  return {};
}

// grid_sample: X [N, C, H, W] and grid [N, H_out, W_out, 2] give [N, C, H_out, W_out].
// Whether `mode` interpolates (nearest, linear, cubic: grid_sample and resize) rather than pools
// (avg, max: roi_align).
bool interpolates(SampleMode mode) {
  return mode == SampleMode::nearest || mode == SampleMode::linear || mode == SampleMode::cubic;
}

Status infer_grid_sample(const Node& node, const Shape& x, const Shape& grid, Shape& out) {
  if (!interpolates(params_of<GridSampleParams>(node).mode)) {
    return fail(node, "mode is avg or max; grid_sample takes nearest, linear or cubic");
  }
  if (x.rank() != 4 || x.dims[2] == 0 || x.dims[3] == 0) {
    return fail(node, "parent 0 (X) has shape " + to_string(x) +
                          "; it is [N, C, H, W] with H and W at least 1");
  }
  if (grid.rank() != 4 || grid.dims[0] != x.dims[0] || grid.dims[3] != 2) {
    return fail(node, "parent 1 (grid) has shape " + to_string(grid) + "; it is [" +
                          str(x.dims[0]) + ", H_out, W_out, 2] for X " + to_string(x));
  }
  assign(out, Shape{{x.dims[0], x.dims[1], grid.dims[1], grid.dims[2]}});
  return {};
}

// max_unpool: the declared shape has X's rank (at least 3) and X's N and C; the indices have X's
// shape.
Status infer_max_unpool(const Node& node, const Shape& x, const Shape& indices, Shape& out) {
  const Shape& declared = node.shape;
  if (x.rank() < 3 || declared.rank() != x.rank() || declared.dims[0] != x.dims[0] ||
      declared.dims[1] != x.dims[1]) {
    return fail(node, "declared shape " + to_string(declared) + " is not X " + to_string(x) +
                          " with its N and C and other spatial extents (X of rank 3 or more)");
  }
  if (indices != x) {
    return fail(node, "parent 1 (the indices) has shape " + to_string(indices) + "; it is X's, " +
                          to_string(x));
  }
  assign(out, declared);
  return {};
}

// resize: the declared shape, of X's rank; with `scales` (one positive number per axis) each
// extent is floor(input * scale); without, any extent, but an empty axis stays empty.
Status infer_resize(const Node& node, const Shape& x, Shape& out) {
  const Shape& declared = node.shape;
  const auto& p = params_of<ResizeParams>(node);
  if (!interpolates(p.mode)) {
    return fail(node, "mode is avg or max; resize takes nearest, linear or cubic");
  }
  if (p.coordinate_transformation_mode == CoordinateTransformation::output_half_pixel) {
    return fail(node,
                "coordinate_transformation_mode is output_half_pixel, RoiAlign's; resize takes "
                "half_pixel, pytorch_half_pixel, align_corners, asymmetric or "
                "tf_half_pixel_for_nn");
  }
  if (declared.rank() != x.rank()) {
    return fail(node,
                "declared shape " + to_string(declared) + " is not of X's rank, " + to_string(x));
  }
  if (!p.scales.empty() && p.scales.size() != x.rank()) {
    return fail(node, "has " + str(p.scales.size()) + " scales for X " + to_string(x) +
                          "; it needs one per axis, or none when the sizes were given");
  }
  for (std::size_t i = 0; i < x.rank(); ++i) {
    if (!p.scales.empty()) {
      const double scale = p.scales[i];
      if (!(scale > 0) || !std::isfinite(scale)) {
        return fail(node, "scale " + number(p.scales[i]) + " on axis " + str(i) +
                              " is not a positive number");
      }
      const double want = std::floor(static_cast<double>(x.dims[i]) * scale);
      if (static_cast<double>(declared.dims[i]) != want) {
        // `want` may be past any dimension (a huge scale): said as a number, never converted.
        std::array<char, 32> buffer{};
        const auto printed = std::to_chars(buffer.data(), buffer.data() + buffer.size(), want);
        return fail(node, "declared shape " + to_string(declared) + " has " +
                              str(declared.dims[i]) + " on axis " + str(i) + " where X " +
                              to_string(x) + " scaled by " + number(p.scales[i]) + " has " +
                              std::string(buffer.data(), printed.ptr));
      }
    }
    if (x.dims[i] == 0 && declared.dims[i] != 0) {
      return fail(node, "axis " + str(i) + " of X " + to_string(x) +
                            " is empty; it cannot be resized to " + str(declared.dims[i]));
    }
  }
  assign(out, declared);
  return {};
}

// roi_align: X [N, C, H, W], rois [R, 4] and batch indices [R] give the declared
// [R, C, output_height, output_width], its height and width at least 1.
Status infer_roi_align(const Node& node, const Shape& x, const Shape& rois, const Shape& batch,
                       Shape& out) {
  const auto& p = params_of<RoiAlignParams>(node);
  if (p.mode != SampleMode::avg && p.mode != SampleMode::max) {
    return fail(node, "mode is an interpolation; roi_align takes avg or max");
  }
  if (p.coordinate_transformation_mode != CoordinateTransformation::half_pixel &&
      p.coordinate_transformation_mode != CoordinateTransformation::output_half_pixel) {
    return fail(node,
                "coordinate_transformation_mode is Resize's; roi_align takes half_pixel or "
                "output_half_pixel");
  }
  if (!(p.spatial_scale > 0) || !std::isfinite(p.spatial_scale)) {
    return fail(node, "spatial_scale " + number(p.spatial_scale) + " is not a positive number");
  }
  if (x.rank() != 4 || x.dims[2] == 0 || x.dims[3] == 0) {
    return fail(node, "parent 0 (X) has shape " + to_string(x) +
                          "; it is [N, C, H, W] with H and W at least 1");
  }
  if (rois.rank() != 2 || rois.dims[1] != 4) {
    return fail(node, "parent 1 (rois) has shape " + to_string(rois) + "; it is [R, 4]");
  }
  if (batch != Shape{{rois.dims[0]}}) {
    return fail(node, "parent 2 (batch indices) has shape " + to_string(batch) + "; it is [" +
                          str(rois.dims[0]) + "], one per roi");
  }
  const Shape& declared = node.shape;
  if (declared.rank() != 4 || declared.dims[0] != rois.dims[0] || declared.dims[1] != x.dims[1] ||
      declared.dims[2] == 0 || declared.dims[3] == 0) {
    return fail(node, "declared shape " + to_string(declared) + " is not [" + str(rois.dims[0]) +
                          ", " + str(x.dims[1]) +
                          ", output_height, output_width] with both at least 1");
  }
  assign(out, declared);
  return {};
}

// scaled_dot_product_attention: q (..., L, E), k (..., S, E), v (..., S, Ev) with equal leading
// axes give (..., L, Ev).
Status infer_attention(const Node& node, const Shape& q, const Shape& k, const Shape& v,
                       Shape& out) {
  const std::string shapes = to_string(q) + ", " + to_string(k) + ", " + to_string(v);
  if (q.rank() < 2 || k.rank() != q.rank() || v.rank() != q.rank()) {
    return fail(node, "expects q, k, v of one rank, at least 2, found " + shapes);
  }
  const std::size_t r = q.rank();
  for (std::size_t i = 0; i + 2 < r; ++i) {
    if (k.dims[i] != q.dims[i] || v.dims[i] != q.dims[i]) {
      return fail(node, "leading axes of q, k, v differ: " + shapes);
    }
  }
  if (k.dims[r - 1] != q.dims[r - 1]) {
    return fail(node, "q and k differ in their last axis (E): " + shapes);
  }
  if (v.dims[r - 2] != k.dims[r - 2]) {
    return fail(node, "k and v differ in their sequence axis (S): " + shapes);
  }
  assign(out, q);
  out.dims[r - 1] = v.dims[r - 1];
  return {};
}

// Fills `out` with the node's shape; check_structure(node, ...) must have passed, and `out` is
// not node.shape when the kind's shape rule reads the declared shape.
// `parent(i)` is the shape of the node's parent i.
template <class ParentShape>
Status infer_into(const ParentShape& parent, const Node& node, Shape& out) {
  Status status;
  switch (op_traits(node.kind).shape_rule) {
    case ShapeRule::declared:
      assign(out, node.shape);
      break;
    case ShapeRule::const_value:
      assign(out, params_of<ConstParams>(node).value_shape);
      break;
    case ShapeRule::keep_probability:
      if (parent(0).rank() != 0) {
        return fail(node,
                    "keep-probability parent must be a scalar, found " + to_string(parent(0)));
      }
      assign(out, node.shape);
      break;
    case ShapeRule::same_as_parent:
      assign(out, parent(0));
      return {};  // a parent's shape, whose element count was checked when it was added
    case ShapeRule::elementwise_binary:
      if (Status same = same_shapes(node, parent(0), parent(1)); !same) return same;
      assign(out, parent(0));
      return {};  // a parent's shape: nothing to overflow
    case ShapeRule::paired_to_scalar:
      if (Status same = same_shapes(node, parent(0), parent(1)); !same) return same;
      out.dims.clear();
      return {};  // a scalar: nothing to overflow
    case ShapeRule::scalar_epsilon:
      if (parent(1).rank() != 0) {
        return fail(node, "epsilon parent must be a scalar, found " + to_string(parent(1)));
      }
      assign(out, parent(0));
      return {};  // a parent's shape
    case ShapeRule::pool:
      status = infer_pool(node, parent(0), params_of<PoolParams>(node), out);
      break;
    case ShapeRule::conv:
      status = infer_conv(node, parent(0), params_of<ConvParams>(node), false, out);
      break;
    case ShapeRule::conv_transpose:
      status = infer_conv(node, parent(0), params_of<ConvParams>(node), true, out);
      break;
    case ShapeRule::broadcast:
      status = infer_broadcast(node, parent(0), params_of<BroadcastParams>(node), out);
      break;
    case ShapeRule::reduce_axis: {
      const std::uint32_t axis = params_of<AxisParams>(node).axis;
      if (axis >= parent(0).rank()) return fail(node, axis_out_of_range(axis, parent(0)));
      assign(out, parent(0));
      out.dims.erase(out.dims.begin() + axis);
      break;
    }
    case ShapeRule::reduce_all:
      out.dims.clear();
      break;
    case ShapeRule::matmul:
      status = infer_matmul(node, parent(0), parent(1), out);
      break;
    case ShapeRule::linear: {
      const Shape& in = parent(0);
      if (in.rank() == 0) return fail(node, "expects a parent of rank at least 1, found []");
      if (node.shape.rank() != in.rank()) {
        return fail(node, "declared shape " + to_string(node.shape) + " has rank " +
                              str(node.shape.rank()) + ", expected the rank of parent " +
                              to_string(in) + " (" + str(in.rank()) + ")");
      }
      assign(out, in);
      out.dims.back() = node.shape.dims.back();
      break;
    }
    case ShapeRule::batch_norm: {
      const Shape& in = parent(0);
      const ChannelAxisParams& p = params_of<ChannelAxisParams>(node);
      if (p.channel_axis >= in.rank()) return fail(node, axis_out_of_range(p.channel_axis, in));
      if (in.dims[p.channel_axis] != p.channels) {
        return fail(node, "parent " + to_string(in) + " has " + str(in.dims[p.channel_axis]) +
                              " channels on axis " + str(p.channel_axis) + ", expected channels " +
                              str(p.channels));
      }
      assign(out, in);
      break;
    }
    case ShapeRule::masked_softmax:
      status = infer_masked_softmax(node, parent(0), params_of<MaskParams>(node), out);
      break;
    case ShapeRule::along_axis: {
      const std::uint32_t axis = std::visit(
          [](const auto& p) -> std::uint32_t {
            if constexpr (requires { p.axis; }) {
              return p.axis;
            } else {
              return 0;
            }
          },
          node.params);
      if (axis >= parent(0).rank()) return fail(node, axis_out_of_range(axis, parent(0)));
      assign(out, parent(0));
      break;
    }
    case ShapeRule::reshape:
      status = infer_reshape(node, parent(0), params_of<ReshapeParams>(node), out);
      break;
    case ShapeRule::flatten: {
      const Shape& in = params_of<FlattenParams>(node).in;
      if (parent(0) != in) {
        return fail(node, "parent shape " + to_string(parent(0)) + " differs from value_shape " +
                              to_string(in));
      }
      const std::optional<Dim> count = element_count(in);
      if (!count) return fail(node, "element count of " + to_string(in) + " overflows 64 bits");
      out.dims.assign({*count});
      break;
    }
    case ShapeRule::concat:
      status = infer_concat(parent, node, params_of<AxisParams>(node).axis, out);
      break;
    case ShapeRule::transpose: {
      const TransposeParams& p = params_of<TransposeParams>(node);
      if (p.axis1 >= parent(0).rank()) return fail(node, axis_out_of_range(p.axis1, parent(0)));
      if (p.axis2 >= parent(0).rank()) return fail(node, axis_out_of_range(p.axis2, parent(0)));
      assign(out, parent(0));
      std::swap(out.dims[p.axis1], out.dims[p.axis2]);
      break;
    }
    case ShapeRule::slice:
      status = infer_slice(node, parent(0), params_of<SliceParams>(node), out);
      break;
    case ShapeRule::gather:
      status = infer_gather(node, parent(0), params_of<AxisParams>(node).axis, out);
      if (status && node.parents.size() == 2) {
        status =
            infer_gather_by_value(node, parent(0), parent(1), params_of<AxisParams>(node).axis);
      }
      break;
    case ShapeRule::attention:
      status = infer_attention(node, parent(0), parent(1), parent(2), out);
      break;
    case ShapeRule::broadcast_operands:
      status = infer_broadcast_operands(parent, node, out);
      break;
    case ShapeRule::scatter_elements:
      status = infer_scatter_elements(node, parent(0), parent(1), parent(2),
                                      params_of<ScatterParams>(node).axis, out);
      break;
    case ShapeRule::scatter_nd:
      status = infer_scatter_nd(node, parent(0), parent(1), parent(2), out);
      break;
    case ShapeRule::gather_nd:
      status = infer_gather_nd(node, parent(0), parent(1),
                               params_of<GatherNdParams>(node).batch_dims, out);
      break;
    case ShapeRule::top_k:
      status = infer_top_k(node, parent(0), params_of<TopKParams>(node).axis, out);
      break;
    case ShapeRule::gather_elements:
      status =
          infer_gather_elements(node, parent(0), parent(1), params_of<AxisParams>(node).axis, out);
      break;
    case ShapeRule::permute:
      status = infer_permute(node, parent(0), params_of<PermuteParams>(node).perm, out);
      break;
    case ShapeRule::max_unpool:
      status = infer_max_unpool(node, parent(0), parent(1), out);
      break;
    case ShapeRule::resize:
      status = infer_resize(node, parent(0), out);
      break;
    case ShapeRule::roi_align:
      status = infer_roi_align(node, parent(0), parent(1), parent(2), out);
      break;
    case ShapeRule::max_pool_indices:
      status = infer_max_pool_indices(node, parent(0), params_of<MaxPoolIndicesParams>(node), out);
      break;
    case ShapeRule::grid_sample:
      status = infer_grid_sample(node, parent(0), parent(1), out);
      break;
    case ShapeRule::recurrent: {
      std::array<const Shape*, 2> states{};
      for (std::size_t i = 1; i < node.parents.size() && i <= states.size(); ++i)
        states[i - 1] = &parent(i);
      status = infer_recurrent(
          node, parent(0), std::span<const Shape* const>(states.data(), node.parents.size() - 1),
          out);
      break;
    }
  }
  if (!status) return status;
  if (!element_count(out)) {
    return fail(node, "shape " + to_string(out) + " has more elements than fit in 64 bits");
  }
  // A float32 weight given as a value (SPEC §6) has the shape its payload would have.
  for (const PayloadSlot& slot : op_traits(node.kind).payloads) {
    if (slot.int64 || slot.attribute || !given_as_value(slot, node.parents.size())) continue;
    const Shape* const parents[] = {&parent(0)};
    const Expected<Shape> want = payload_shape(node, slot.shape, parents);
    if (!want) return std::unexpected(want.error());
    const Shape& given = parent(slot.value_parent);
    if (given != *want) {
      return fail(node, "parent " + str(slot.value_parent) + " (the " + std::string(slot.name) +
                            ") has shape " + to_string(given) + "; expected " + to_string(*want));
    }
  }
  return {};
}

// The dtype rule (SPEC §6), each kind's DTypeRule in the op table: `declared` kinds (input,
// const, cast) make the dtype they declare; `as_parent` kinds (reshape, flatten) take a parent of
// any dtype and make its dtype; `indices` kinds (argmax, argmin) take float32 and make int64;
// `comparison` kinds take parents of one dtype and make bool; `logical` kinds take and make bool;
// `select` (where) takes a bool condition and two values of one dtype and makes that dtype;
// `indexed` (gather_elements, gather with indices as parent 1) takes data of any dtype and int64
// indices and makes the data's, and one float32 parent (gather by payload) makes float32; every
// other kind takes float32 parents and makes float32. `parent(i)` is parent i's node. Returns the
// dtype the node makes.
template <class ParentNode>
Expected<DType> infer_dtype(const ParentNode& parent, const Node& node) {
  const DTypeRule rule = op_traits(node.kind).dtype_rule;
  if (rule == DTypeRule::declared) return node.dtype;
  if (rule == DTypeRule::as_parent && !node.parents.empty()) return parent(0).dtype;
  if (rule == DTypeRule::arithmetic) {
    // mod takes int64 only (ONNX's fmod 0 is integer-only); fmod and cum_sum float32 or int64.
    const bool ints_only = node.kind == OpKind::mod;
    const DType first = node.parents.empty() ? DType::int64 : parent(0).dtype;
    for (std::size_t i = 0; i < node.parents.size(); ++i) {
      const DType d = parent(i).dtype;
      const bool taken = ints_only ? d == DType::int64 : d == DType::int64 || d == DType::float32;
      if (!taken || d != first) {
        const Node& p = parent(i);
        return fail(node,
                    "parent " + str(i) + " (" + describe(p) + ") has dtype " +
                        std::string(to_string(d)) + "; " + std::string(to_string(node.kind)) +
                        " takes " +
                        (ints_only ? "int64 values" : "float32 or int64 values of one dtype"));
      }
    }
    return first;
  }
  if (rule == DTypeRule::scatter) {
    if (parent(1).dtype != DType::int64) {
      const Node& p = parent(1);
      return fail(node, "parent 1 (" + describe(p) + ") has dtype " +
                            std::string(to_string(p.dtype)) + "; " +
                            std::string(to_string(node.kind)) + " takes int64 indices");
    }
    if (parent(2).dtype != parent(0).dtype) {
      const Node& p = parent(2);
      return fail(node, "parent 2 (" + describe(p) + ") has dtype " +
                            std::string(to_string(p.dtype)) + "; " +
                            std::string(to_string(node.kind)) +
                            " takes updates of the data's dtype, " +
                            std::string(to_string(parent(0).dtype)));
    }
    const auto* p = std::get_if<ScatterParams>(&node.params);
    if (parent(0).dtype == DType::boolean && p != nullptr &&
        p->reduction != ScatterReduction::none) {
      return fail(node, std::string(to_string(node.kind)) +
                            " adds or multiplies float32 or int64 data, not bool; bool data takes "
                            "reduction none");
    }
    return parent(0).dtype;
  }
  if (rule == DTypeRule::batch_indexed && !node.parents.empty()) {
    const std::size_t last = node.parents.size() - 1;
    for (std::size_t i = 0; i <= last; ++i) {
      const DType want = i == last ? DType::int64 : DType::float32;
      if (parent(i).dtype != want) {
        const Node& p = parent(i);
        return fail(node, "parent " + str(i) + " (" + describe(p) + ") has dtype " +
                              std::string(to_string(p.dtype)) + "; " +
                              std::string(to_string(node.kind)) + " takes " +
                              (i == last ? "int64 batch indices" : "float32 values") + " there");
      }
    }
    return DType::float32;
  }
  if (rule == DTypeRule::indexed && node.parents.size() == 2) {
    if (parent(1).dtype != DType::int64) {
      const Node& p = parent(1);
      return fail(node, "parent 1 (" + describe(p) + ") has dtype " +
                            std::string(to_string(p.dtype)) + "; " +
                            std::string(to_string(node.kind)) + " takes int64 indices");
    }
    return parent(0).dtype;
  }
  const auto wrong = [&](std::size_t i, std::string_view takes) -> Expected<DType> {
    const Node& p = parent(i);
    return fail(node, "parent " + str(i) + " (" + describe(p) + ") has dtype " +
                          std::string(to_string(p.dtype)) + "; " +
                          std::string(to_string(node.kind)) + " takes " + std::string(takes));
  };
  if (rule == DTypeRule::comparison || rule == DTypeRule::select) {
    const std::size_t first = rule == DTypeRule::select ? 1 : 0;
    if (rule == DTypeRule::select && parent(0).dtype != DType::boolean) {
      return wrong(0, "a bool condition as parent 0");
    }
    const DType values = node.parents.size() > first ? parent(first).dtype : DType::float32;
    for (std::size_t i = first + 1; i < node.parents.size(); ++i) {
      if (parent(i).dtype != values) {
        return wrong(i, "values of one dtype (parent " + str(first) + " is " +
                            std::string(to_string(values)) + ")");
      }
    }
    return rule == DTypeRule::comparison ? DType::boolean : values;
  }
  const DType takes = rule == DTypeRule::logical ? DType::boolean : DType::float32;
  for (std::size_t i = 0; i < node.parents.size(); ++i) {
    if (parent(i).dtype != takes) return wrong(i, std::string(to_string(takes)) + " values");
  }
  if (rule == DTypeRule::indices) return DType::int64;
  return takes;
}

// The node's declared dtype is the one it makes.
template <class ParentNode>
Status check_dtype(const ParentNode& parent, const Node& node) {
  const Expected<DType> inferred = infer_dtype(parent, node);
  if (!inferred) return std::unexpected(inferred.error());
  if (node.dtype != *inferred) {
    return fail(node, "declared dtype " + std::string(to_string(node.dtype)) +
                          " differs from inferred " + std::string(to_string(*inferred)));
  }
  return {};
}

// input_id and each output id name an existing node (and input_id an `input` node).
Status check_endpoint(const Graph& graph, std::string_view field, NodeId id, bool must_be_input) {
  if (id >= graph.nodes.size()) {
    return std::unexpected(
        make_error(ErrorKind::invalid_input, std::string(field) + " " + str(id) +
                                                 " does not name a node (the graph has " +
                                                 count_of(graph.nodes.size(), "node") + ")"));
  }
  const Node& node = graph.nodes[id];
  if (must_be_input && node.kind != OpKind::input) {
    Error error =
        make_error(ErrorKind::invalid_input, std::string(field) + " " + str(id) + " names " +
                                                 describe(node) + ", expected an input node");
    error.position = id;
    return std::unexpected(std::move(error));
  }
  return {};
}

// The graph has at least one output, each naming an existing node.
Status check_outputs(const Graph& graph) {
  if (graph.output_ids.empty()) {
    return std::unexpected(make_error(ErrorKind::invalid_input,
                                      "output_ids is empty (a graph has at least one output)"));
  }
  for (std::size_t i = 0; i < graph.output_ids.size(); ++i) {
    if (Status s = check_endpoint(graph, "output_ids[" + str(i) + "]", graph.output_ids[i], false);
        !s) {
      return s;
    }
  }
  return {};
}

// The parent shapes of `node` in `graph` (check_structure has checked the ids).
auto parents_in(const Graph& graph, const Node& node) {
  return
      [&graph, &node](std::size_t i) -> const Shape& { return graph.nodes[node.parents[i]].shape; };
}
auto parent_nodes_in(const Graph& graph, const Node& node) {
  return [&graph, &node](std::size_t i) -> const Node& { return graph.nodes[node.parents[i]]; };
}

}  // namespace

Expected<Shape> infer_shape(const Node& node, std::span<const Shape* const> parent_shapes) {
  if (parent_shapes.size() != node.parents.size()) {
    return fail(node, str(parent_shapes.size()) + " parent shapes given for " +
                          count_of(node.parents.size(), "parent"));
  }
  for (const Shape* shape : parent_shapes) {
    if (shape == nullptr) return fail(node, "a parent's shape is not given");
  }
  // The ids are the caller's business here: each parent's shape is given.
  if (Status s = check_structure(node, 0, /*check_ids=*/false); !s) {
    return std::unexpected(std::move(s.error()));
  }
  const auto parent = [&parent_shapes](std::size_t i) -> const Shape& { return *parent_shapes[i]; };
  Shape out;
  if (Status s = infer_into(parent, node, out); !s) return std::unexpected(std::move(s.error()));
  return out;
}

Expected<Shape> infer_shape(const Graph& graph, const Node& node) {
  if (Status s = check_structure(node, graph.nodes.size()); !s) {
    return std::unexpected(std::move(s.error()));
  }
  Shape out;
  if (Status s = infer_into(parents_in(graph, node), node, out); !s) {
    return std::unexpected(std::move(s.error()));
  }
  return out;
}

Expected<NodeId> CheckedGraphBuilder::add(Node node) {
  return add(node.kind, node.parents, std::move(node.params), node.shape, node.source_name,
             node.dtype);
}

Expected<NodeId> CheckedGraphBuilder::add(OpKind kind, const Parents& parents, OpParams&& params,
                                          const Shape& declared, std::string_view source_name,
                                          std::optional<DType> dtype) {
  // Built at the end of the array and checked there (the checks read only the nodes before it),
  // then dropped again if it fails.
  Node& node = graph_.nodes.emplace_back();
  node.id = static_cast<NodeId>(graph_.nodes.size() - 1);
  node.kind = kind;
  node.parents = parents;
  if (!std::holds_alternative<std::monostate>(params)) node.params = std::move(params);
  // Kinds whose shape is (partly) declared infer into a separate buffer; every other kind
  // infers straight into the node.
  const bool declared_kind = reads_declared_shape(op_traits(kind).shape_rule);
  if (declared_kind) node.shape = declared;
  node.dtype = dtype.value_or(DType::float32);
  Status s = check_structure(node, node.id);
  if (s && !dtype) {
    // No declaration: the node makes what the dtype rule infers.
    const Expected<DType> inferred = infer_dtype(parent_nodes_in(graph_, node), node);
    if (inferred) node.dtype = *inferred;
  }
  if (s) s = infer_into(parents_in(graph_, node), node, declared_kind ? inferred_ : node.shape);
  if (s) s = check_dtype(parent_nodes_in(graph_, node), node);
  if (!s) {
    graph_.nodes.pop_back();
    return std::unexpected(std::move(s.error()));
  }
  if (declared_kind) node.shape.dims.assign(inferred_.dims.begin(), inferred_.dims.end());
  node.source_name = source_name;
  return node.id;
}

Expected<CheckedGraph> CheckedGraphBuilder::finish(NodeId input_id,
                                                   std::vector<NodeId> output_ids) && {
  graph_.input_id = input_id;
  graph_.output_ids = std::move(output_ids);
  if (graph_.nodes.empty()) {
    return std::unexpected(make_error(ErrorKind::invalid_input, "graph has no nodes"));
  }
  if (Status s = check_endpoint(graph_, "input_id", input_id, true); !s) {
    return std::unexpected(std::move(s.error()));
  }
  if (Status s = check_outputs(graph_); !s) return std::unexpected(std::move(s.error()));
  return CheckedGraph(std::move(graph_));
}

Expected<CheckedGraph> check(Graph graph) {
  if (graph.nodes.empty()) {
    return std::unexpected(make_error(ErrorKind::invalid_input, "graph has no nodes"));
  }
  // The endpoints read only ids and kinds, so they can be checked before any node.
  if (Status s = check_endpoint(graph, "input_id", graph.input_id, true); !s) {
    return std::unexpected(std::move(s.error()));
  }
  if (Status s = check_outputs(graph); !s) return std::unexpected(std::move(s.error()));
  // One pass in id order: a node's structure, then its shape. Inference reads only the parents'
  // declared shapes, which the node's own structure check has made safe to index, so the first
  // error reported is the one at the lowest node. One buffer serves every inferred shape, so a
  // valid graph costs no allocation per node once the buffer has grown.
  Shape inferred;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (node.id != i) {
      Error error =
          make_error(ErrorKind::invalid_input, describe(node) + ": id differs from its index " +
                                                   str(i) + " (ids must equal indices)");
      error.position = i;
      return std::unexpected(std::move(error));
    }
    if (Status s = check_structure(node, graph.nodes.size()); !s) {
      return std::unexpected(std::move(s.error()));
    }
    if (Status s = infer_into(parents_in(graph, node), node, inferred); !s) {
      return std::unexpected(std::move(s.error()));
    }
    if (inferred != node.shape) {
      return fail(node, "declared shape " + to_string(node.shape) + " differs from inferred " +
                            to_string(inferred));
    }
    if (Status s = check_dtype(parent_nodes_in(graph, node), node); !s) {
      return std::unexpected(std::move(s.error()));
    }
  }
  return CheckedGraph(std::move(graph));
}

}  // namespace nnplan::ir
