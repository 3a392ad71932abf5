// Reference kernels: the convolution family. conv is the cross-correlation of ONNX Conv and
// torch convNd, conv_transpose its adjoint (ONNX ConvTranspose, torch conv_transposeNd); both take
// any spatial rank, groups, dilation, asymmetric padding and any number of batch-like axes before
// the channel axis. Each output element is one float32 accumulator starting at 0, its products
// added in a fixed order (input channel ascending, then kernel taps in row-major order), the
// bias added last.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "nnplan/ir/payload_shapes.hpp"
#include "runtime/providers/reference/reference_handlers.hpp"
#include "runtime/providers/reference/row_major.hpp"

namespace nnplan::runtime::reference {
namespace {

// One kernel tap's box: the dense positions whose strided partner lies inside the strided
// extent, as runs of `count` along the last spatial axis, one per position of the outer axes in
// row-major order (`outer` indexes this box's extents in Geometry::outer_extents); the first run
// starts at dense0 and strided0.
struct TapBox {
  std::size_t tap = 0;  // the kernel position, row-major
  std::size_t dense0 = 0;
  std::size_t strided0 = 0;
  std::size_t count = 0;
  std::size_t outer = 0;
};

// The geometry of one conv or conv_transpose call. Both relate a "dense" spatial position t to a
// "strided" one t * stride + k * dilation - padding: for conv the dense side is the output and
// the strided side the input, for conv_transpose the other way round. Everything the loops index
// by is computed here, once per call.
struct Geometry {
  std::size_t lead = 1;  // the product of the axes before the channel axis
  std::size_t in_channels = 1;
  std::size_t out_channels = 1;
  std::size_t groups = 1;
  std::size_t in_per_group = 1;
  std::size_t out_per_group = 1;
  std::size_t in_plane = 1;   // elements of one input channel
  std::size_t out_plane = 1;  // elements of one output channel
  std::size_t kernel_size = 1;
  std::size_t rank = 1;
  std::size_t last_stride = 1;             // the stride of the last spatial axis
  std::vector<std::size_t> dense_steps;    // per outer axis: one dense position, in elements
  std::vector<std::size_t> strided_steps;  // per outer axis: one dense position's strided step
  std::vector<TapBox> boxes;               // the taps with a non-empty box, row-major
  std::vector<std::size_t> outer_extents;  // rank - 1 per box
};

std::vector<std::size_t> spatial_strides(const ir::Shape& s, std::size_t first) {
  std::vector<std::size_t> strides(s.rank() - first, 1);
  for (std::size_t i = strides.size(); i-- > 1;) {
    strides[i - 1] = strides[i] * static_cast<std::size_t>(s.dims[first + i]);
  }
  return strides;
}

// One tap on one spatial axis: the dense positions [lo, hi) whose partner t * stride + off lies
// in [0, strided_extent).
struct AxisRange {
  std::ptrdiff_t off = 0;
  std::size_t lo = 0;
  std::size_t hi = 0;
};

AxisRange axis_range(std::size_t k, std::size_t stride, std::size_t dilation, std::size_t padding,
                     std::size_t dense_extent, std::size_t strided_extent) {
  const auto s = static_cast<std::ptrdiff_t>(stride);
  AxisRange a;
  a.off = static_cast<std::ptrdiff_t>(k * dilation) - static_cast<std::ptrdiff_t>(padding);
  const std::ptrdiff_t lo = a.off >= 0 ? 0 : (-a.off + s - 1) / s;
  const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(strided_extent) - 1 - a.off;
  const std::ptrdiff_t hi =
      last < 0 ? 0 : std::min(last / s + 1, static_cast<std::ptrdiff_t>(dense_extent));
  a.lo = static_cast<std::size_t>(lo);
  a.hi = static_cast<std::size_t>(std::max(hi, lo));
  return a;
}

Geometry geometry(const ir::ConvParams& p, const ir::Shape& in, const ir::Shape& out,
                  bool transposed) {
  Geometry g;
  const std::size_t ca = p.channel_axis;
  const std::size_t first = ca + 1;
  g.lead = extent_product(in, 0, ca);
  g.in_channels = p.in_channels;
  g.out_channels = p.out_channels;
  g.groups = p.groups;
  g.in_per_group = g.in_channels / g.groups;
  g.out_per_group = g.out_channels / g.groups;
  g.in_plane = extent_product(in, first, in.rank());
  g.out_plane = extent_product(out, first, out.rank());
  g.rank = p.spatial_rank;
  g.last_stride = p.stride[g.rank - 1];
  const ir::Shape& dense = transposed ? in : out;
  const ir::Shape& strided = transposed ? out : in;
  const std::vector<std::size_t> dense_strides = spatial_strides(dense, first);
  const std::vector<std::size_t> strided_strides = spatial_strides(strided, first);
  for (std::size_t d = 0; d + 1 < g.rank; ++d) {
    g.dense_steps.push_back(dense_strides[d]);
    g.strided_steps.push_back(p.stride[d] * strided_strides[d]);
  }
  for (std::uint32_t k : p.kernel)
    g.kernel_size *= k;
  // Kernel positions in row-major order; a tap whose box is empty on some axis has no runs.
  std::vector<std::size_t> k(g.rank, 0);
  std::vector<AxisRange> ranges(g.rank);
  for (std::size_t tap = 0; tap < g.kernel_size; ++tap) {
    bool empty = false;
    TapBox box{.tap = tap, .outer = g.outer_extents.size()};
    std::ptrdiff_t strided0 = 0;
    for (std::size_t d = 0; d < g.rank; ++d) {
      ranges[d] = axis_range(k[d], p.stride[d], p.dilation[d], p.padding[d], dense.dims[first + d],
                             strided.dims[first + d]);
      empty = empty || ranges[d].lo >= ranges[d].hi;
      box.dense0 += ranges[d].lo * dense_strides[d];
      strided0 += (static_cast<std::ptrdiff_t>(ranges[d].lo * p.stride[d]) + ranges[d].off) *
                  static_cast<std::ptrdiff_t>(strided_strides[d]);
    }
    if (!empty) {
      box.strided0 = static_cast<std::size_t>(strided0);
      box.count = ranges[g.rank - 1].hi - ranges[g.rank - 1].lo;
      for (std::size_t d = 0; d + 1 < g.rank; ++d) {
        g.outer_extents.push_back(ranges[d].hi - ranges[d].lo);
      }
      g.boxes.push_back(box);
    }
    for (std::size_t d = g.rank; d-- > 0;) {
      if (++k[d] < p.kernel[d]) break;
      k[d] = 0;
    }
  }
  return g;
}

// Walks the taps in row-major order and, for each, its runs in row-major order:
// run(tap, dense_offset, strided_offset, count), the run's j-th element at dense_offset + j and
// strided_offset + j * last_stride. `counter` is scratch of rank - 1 entries, allocated by the
// caller once per call.
template <class Run>
void for_each_run(const Geometry& g, std::vector<std::size_t>& counter, Run&& run) {
  const std::size_t outer = g.rank - 1;
  for (const TapBox& b : g.boxes) {
    const std::size_t* extent = g.outer_extents.data() + b.outer;
    std::fill(counter.begin(), counter.end(), 0);
    std::size_t dense = b.dense0;
    std::size_t strided = b.strided0;
    for (;;) {
      run(b.tap, dense, strided, b.count);
      std::size_t d = outer;
      for (; d > 0; --d) {
        dense += g.dense_steps[d - 1];
        strided += g.strided_steps[d - 1];
        if (++counter[d - 1] < extent[d - 1]) break;
        dense -= extent[d - 1] * g.dense_steps[d - 1];
        strided -= extent[d - 1] * g.strided_steps[d - 1];
        counter[d - 1] = 0;
      }
      if (d == 0) break;
    }
  }
}

const ir::ConvParams& params_of(const ir::Node& node) {
  return std::get<ir::ConvParams>(node.params);
}

Expected<void> fail(std::string message) {
  return std::unexpected(make_error(ErrorKind::invalid_input, std::move(message)));
}

std::string list_string(const std::vector<std::uint32_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i == 0 ? "" : ",") + std::to_string(v[i]);
  return s + "]";
}

// The shape guard of conv and conv_transpose: parameters the kernel indexes by, the input's rank
// and channels, the output extents the node's parameters give, and the weight and bias shapes
// (payloads, or the inputs standing for them).
Expected<void> conv_family_guard(const KernelCall& call, ir::OpKind kind) {
  const std::string op(ir::to_string(kind));
  const bool transposed = kind == ir::OpKind::conv_transpose;
  if (call.node.kind != kind) {
    return fail("the node is a " + std::string(ir::to_string(call.node.kind)) +
                "; this handler runs " + op);
  }
  if (call.node.parents.empty() || call.node.parents.size() > 3) {
    return fail(op +
                " takes one to three parents (the input, then the weight and the bias as "
                "values), found " +
                std::to_string(call.node.parents.size()));
  }
  if (auto ok = check_arity_and_output(call, call.node.parents.size()); !ok) return ok;
  const auto* pp = std::get_if<ir::ConvParams>(&call.node.params);
  if (pp == nullptr) return fail("the node carries no conv parameters; " + op + " needs them");
  const ir::ConvParams& p = *pp;
  const std::size_t r = p.spatial_rank;
  if (r == 0) return fail(op + " needs spatial_rank at least 1, found 0");
  const auto check_list = [&](std::string_view name, const std::vector<std::uint32_t>& v,
                              bool positive) -> Expected<void> {
    if (v.size() != r) {
      return fail(std::string(name) + " " + list_string(v) + " has " + std::to_string(v.size()) +
                  " entries; " + op + " needs one per spatial axis (" + std::to_string(r) + ")");
    }
    if (positive && std::find(v.begin(), v.end(), 0U) != v.end()) {
      return fail(std::string(name) + " " + list_string(v) + " holds 0; " + op +
                  " needs every entry at least 1");
    }
    return {};
  };
  if (auto ok = check_list("kernel", p.kernel, true); !ok) return ok;
  if (auto ok = check_list("stride", p.stride, true); !ok) return ok;
  if (auto ok = check_list("padding", p.padding, false); !ok) return ok;
  if (auto ok = check_list("dilation", p.dilation, true); !ok) return ok;
  if (auto ok = check_list("padding_after", p.padding_after, false); !ok) return ok;
  if (transposed) {
    if (auto ok = check_list("output_padding", p.output_padding, false); !ok) return ok;
  }
  if (p.groups == 0 || p.in_channels == 0 || p.out_channels == 0 || p.in_channels % p.groups != 0 ||
      p.out_channels % p.groups != 0) {
    return fail("groups " + std::to_string(p.groups) + " with in_channels " +
                std::to_string(p.in_channels) + " and out_channels " +
                std::to_string(p.out_channels) + "; " + op +
                " needs groups dividing both, all at least 1");
  }
  const ir::Shape& x = *call.inputs[0].shape;
  const std::size_t ca = p.channel_axis;
  if (x.rank() != ca + 1 + r) {
    return std::unexpected(operand_error("input 0", x,
                                         op + " needs rank " + std::to_string(ca + 1 + r) +
                                             " (channel_axis " + std::to_string(ca) + ", then " +
                                             std::to_string(r) + " spatial axes)"));
  }
  if (x.dims[ca] != p.in_channels) {
    return std::unexpected(operand_error("input 0", x,
                                         op + " needs in_channels " +
                                             std::to_string(p.in_channels) + " on axis " +
                                             std::to_string(ca)));
  }
  ir::Shape want = x;
  want.dims[ca] = p.out_channels;
  for (std::size_t d = 0; d < r; ++d) {
    const ir::Dim in = x.dims[ca + 1 + d];
    const ir::Dim before = p.padding[d];
    const ir::Dim after = p.padding_after[d];
    const ir::Dim window = ir::Dim{p.dilation[d]} * (p.kernel[d] - 1) + 1;
    if (!transposed) {
      if (in + before + after < window) {
        return std::unexpected(
            operand_error("input 0", x,
                          op + " needs axis " + std::to_string(ca + 1 + d) + " padded (" +
                              std::to_string(before) + "+" + std::to_string(after) +
                              ") to at least the window " + std::to_string(window)));
      }
      want.dims[ca + 1 + d] = (in + before + after - window) / p.stride[d] + 1;
      continue;
    }
    const ir::Dim full = in == 0 ? 0 : (in - 1) * p.stride[d] + window + p.output_padding[d];
    if (full <= before + after) {
      return std::unexpected(operand_error("input 0", x,
                                           op + " needs axis " + std::to_string(ca + 1 + d) +
                                               " to outgrow its padding " + std::to_string(before) +
                                               "+" + std::to_string(after)));
    }
    want.dims[ca + 1 + d] = full - before - after;
  }
  if (*call.output.shape != want) {
    return std::unexpected(
        operand_error("the output", *call.output.shape,
                      op + " of input 0 " + ir::to_string(x) + " gives " + ir::to_string(want)));
  }
  const ir::Shape* const parents[] = {&x};
  auto want_w = ir::payload_shape(
      call.node,
      transposed ? ir::PayloadShape::conv_transpose_weight : ir::PayloadShape::conv_weight,
      parents);
  if (!want_w) return std::unexpected(std::move(want_w.error()));
  const std::string layout = transposed ? " (in_channels, out_channels/groups, kernel...)"
                                        : " (out_channels, in_channels/groups, kernel...)";
  // A slot's dtype and shape: its value parent's, else its payload's; null when neither.
  const auto given = [&](std::string_view name) -> std::optional<std::pair<ir::DType, ir::Shape>> {
    if (const TensorRef* v = weight_value(call, name)) return std::pair{v->dtype, *v->shape};
    if (const ir::WeightTensor* t = call.weights.find(name)) {
      return std::pair{t->dtype(), t->shape()};
    }
    return std::nullopt;
  };
  const auto w = given("weight");
  if (!w) {
    return fail("the weight is missing; " + op + " needs one of shape " + ir::to_string(*want_w) +
                layout);
  }
  if (w->first != ir::DType::float32 || w->second != *want_w) {
    return std::unexpected(operand_error("the weight", w->second,
                                         op + " needs float32 " + ir::to_string(*want_w) + layout));
  }
  if (const auto b = given("bias")) {
    auto want_b = ir::payload_shape(call.node, ir::PayloadShape::conv_bias, parents);
    if (!want_b) return std::unexpected(std::move(want_b.error()));
    if (b->first != ir::DType::float32 || b->second != *want_b) {
      return std::unexpected(
          operand_error("the bias", b->second,
                        op + " needs float32 " + ir::to_string(*want_b) + " (out_channels)"));
    }
  }
  return {};
}

Expected<void> conv_shape_guard(const KernelCall& call) {
  return conv_family_guard(call, ir::OpKind::conv);
}

Expected<void> conv_transpose_shape_guard(const KernelCall& call) {
  return conv_family_guard(call, ir::OpKind::conv_transpose);
}

// The output channels a forward pass accumulates together: each input run is read once for up
// to this many output planes. Every output element keeps its own accumulator and order.
constexpr std::size_t kBlock = 4;

// The row of kernel_size taps in w that pairs output channel o (in group grp) with the group's
// input channel cl: conv's weight is (out_channels, in_channels/groups, kernel...),
// conv_transpose's (in_channels, out_channels/groups, kernel...).
template <bool Transposed>
std::size_t weight_row(const Geometry& g, std::size_t grp, std::size_t cl, std::size_t o) {
  if constexpr (Transposed) {
    return (grp * g.in_per_group + cl) * g.out_per_group + (o - grp * g.out_per_group);
  } else {
    return o * g.in_per_group + cl;
  }
}

// The output channels o0 .. o0 + B - 1 (all in group grp) at leading index n of conv, or of
// conv_transpose when Transposed: the runs' dense side is conv's output and conv_transpose's
// input, the strided side the other, stepping last_stride along the last spatial axis.
template <bool Transposed, std::size_t B>
void forward_block(const Geometry& g, std::vector<std::size_t>& counter, const float* x,
                   const float* w, const float* bias, float* y, std::size_t n, std::size_t grp,
                   std::size_t o0) {
  const std::size_t xs = Transposed ? 1 : g.last_stride;
  const std::size_t ys = Transposed ? g.last_stride : 1;
  float* yp[B];
  for (std::size_t i = 0; i < B; ++i) {
    yp[i] = y + (n * g.out_channels + o0 + i) * g.out_plane;
    std::fill(yp[i], yp[i] + g.out_plane, 0.0F);
  }
  for (std::size_t cl = 0; cl < g.in_per_group; ++cl) {
    const std::size_t c = grp * g.in_per_group + cl;
    const float* xp = x + (n * g.in_channels + c) * g.in_plane;
    const float* wp[B];
    for (std::size_t i = 0; i < B; ++i)
      wp[i] = w + weight_row<Transposed>(g, grp, cl, o0 + i) * g.kernel_size;
    for_each_run(g, counter,
                 [&](std::size_t tap, std::size_t dense, std::size_t strided, std::size_t count) {
                   float wv[B];
                   float* yr[B];
                   for (std::size_t i = 0; i < B; ++i) {
                     wv[i] = wp[i][tap];
                     yr[i] = yp[i] + (Transposed ? strided : dense);
                   }
                   const float* xr = xp + (Transposed ? dense : strided);
                   for (std::size_t j = 0; j < count; ++j) {
                     const float xv = xr[j * xs];
                     for (std::size_t i = 0; i < B; ++i)
                       yr[i][j * ys] = yr[i][j * ys] + xv * wv[i];
                   }
                 });
  }
  if (bias != nullptr) {
    for (std::size_t i = 0; i < B; ++i) {
      for (std::size_t q = 0; q < g.out_plane; ++q)
        yp[i][q] = yp[i][q] + bias[o0 + i];
    }
  }
}

// Calls block(n, grp, o0, size) over every leading index, group and block of the group's output
// channels: blocks of kBlock, then single channels for the rest.
template <class Block>
void for_each_output_block(const Geometry& g, Block&& block) {
  for (std::size_t n = 0; n < g.lead; ++n) {
    for (std::size_t grp = 0; grp < g.groups; ++grp) {
      std::size_t ol = 0;
      for (; ol + kBlock <= g.out_per_group; ol += kBlock) {
        block(n, grp, grp * g.out_per_group + ol, kBlock);
      }
      for (; ol < g.out_per_group; ++ol)
        block(n, grp, grp * g.out_per_group + ol, 1);
    }
  }
}

// conv's forward pass, or conv_transpose's when Transposed: the output planes are the
// accumulators, filled block by block of output channels.
template <bool Transposed>
void conv_family_forward(const KernelCall& call) {
  const ir::ConvParams& p = params_of(call.node);
  const Geometry g = geometry(p, *call.inputs[0].shape, *call.output.shape, Transposed);
  std::vector<std::size_t> counter(g.rank - 1);
  const float* x = call.inputs[0].data<float>();
  const float* w = slot_data(call, "weight");
  const float* bias = slot_data(call, "bias");
  float* y = call.output.data<float>();
  for_each_output_block(g, [&](std::size_t n, std::size_t grp, std::size_t o0, std::size_t size) {
    if (size == kBlock) {
      forward_block<Transposed, kBlock>(g, counter, x, w, bias, y, n, grp, o0);
    } else {
      forward_block<Transposed, 1>(g, counter, x, w, bias, y, n, grp, o0);
    }
  });
}

// conv's VJP, or conv_transpose's when Transposed: per leading index, group and output channel
// o, db[o] over the output plane, then per input channel of the group its runs, adding to dx
// and (when wanted) to dw. The dw products keep each op's operand order (g * x for conv, x * g
// for conv_transpose).
template <bool Transposed>
void conv_family_vjp(const VjpCall& call) {
  const ir::ConvParams& p = params_of(call.node);
  const Geometry g = geometry(p, *call.inputs[0].shape, *call.output.shape, Transposed);
  std::vector<std::size_t> counter(g.rank - 1);
  const std::size_t xs = Transposed ? 1 : g.last_stride;
  const std::size_t gs = Transposed ? g.last_stride : 1;
  const float* x = call.inputs[0].data<float>();
  const float* w = slot_data(call, "weight");
  const float* gy = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  float* dw = weight_grad(call, "weight");
  float* db = weight_grad(call, "bias");
  for (std::size_t n = 0; n < g.lead; ++n) {
    for (std::size_t grp = 0; grp < g.groups; ++grp) {
      for (std::size_t ol = 0; ol < g.out_per_group; ++ol) {
        const std::size_t o = grp * g.out_per_group + ol;
        const float* gp = gy + (n * g.out_channels + o) * g.out_plane;
        if (db != nullptr) {
          float acc = db[o];
          for (std::size_t i = 0; i < g.out_plane; ++i)
            acc = acc + gp[i];
          db[o] = acc;
        }
        for (std::size_t cl = 0; cl < g.in_per_group; ++cl) {
          const std::size_t c = grp * g.in_per_group + cl;
          const float* xp = x + (n * g.in_channels + c) * g.in_plane;
          float* dxp = dx + (n * g.in_channels + c) * g.in_plane;
          const std::size_t row = weight_row<Transposed>(g, grp, cl, o) * g.kernel_size;
          const float* wp = w + row;
          float* dwp = dw == nullptr ? nullptr : dw + row;
          for_each_run(
              g, counter,
              [&](std::size_t tap, std::size_t dense, std::size_t strided, std::size_t count) {
                const float wv = wp[tap];
                const float* gr = gp + (Transposed ? strided : dense);
                const std::size_t x_offset = Transposed ? dense : strided;
                float* dxr = dxp + x_offset;
                for (std::size_t j = 0; j < count; ++j)
                  dxr[j * xs] = dxr[j * xs] + gr[j * gs] * wv;
                if (dwp != nullptr) {
                  const float* xr = xp + x_offset;
                  float acc = dwp[tap];
                  for (std::size_t j = 0; j < count; ++j) {
                    if constexpr (Transposed) {
                      acc = acc + xr[j * xs] * gr[j * gs];
                    } else {
                      acc = acc + gr[j * gs] * xr[j * xs];
                    }
                  }
                  dwp[tap] = acc;
                }
              });
        }
      }
    }
  }
}

}  // namespace

// y[n,o,t] = (sum over the group's input channels c ascending, then the kernel taps k in
// row-major order, of x[n,c,t*stride + k*dilation - padding] * w[o,c,k]) + bias[o]: one
// accumulator per output element starting at 0, taps that fall in the padding skipped, the bias
// added last. The output planes are the accumulators; the loops over independent output
// positions (and a block of output channels) run innermost.
void conv_forward(const KernelCall& call) {
  conv_family_forward<false>(call);
}

// Each gradient element is its own accumulator, added to in this order: dx[n,c,i] over the
// group's output channels o ascending, then the taps k row-major (g[n,o,t] * w[o,c,k] for the t
// with t*stride + k*dilation - padding = i); dw[o,c,k] over n ascending, then the output
// positions t row-major (g[n,o,t] * x[n,c,t*stride + k*dilation - padding]); db[o] over n, then
// t (g[n,o,t]).
void conv_vjp(const VjpCall& call) {
  conv_family_vjp<false>(call);
}

// The gather form of the transpose: y[n,o,z] = (sum over the group's input channels c
// ascending, then the kernel taps k in row-major order, of x[n,c,i] * w[c,o,k] for the input
// position i with i*stride + k*dilation - padding = z, when there is one in range) + bias[o]. A
// tap reaches a given z from at most one i, so scattering each input run into the output planes,
// channel by channel and tap by tap, adds every output's products in exactly that order; the
// accumulator starts at 0 and the bias comes last.
void conv_transpose_forward(const KernelCall& call) {
  conv_family_forward<true>(call);
}

// Each gradient element is its own accumulator, added to in this order: dx[n,c,i] over the
// group's output channels o ascending, then the taps k row-major (g[n,o,i*stride + k*dilation -
// padding] * w[c,o,k] where that lies in the output); dw[c,o,k] over n ascending, then the input
// positions i row-major (x[n,c,i] * g[n,o,i*stride + k*dilation - padding]); db[o] over n, then
// the output positions (g[n,o,z]).
void conv_transpose_vjp(const VjpCall& call) {
  conv_family_vjp<true>(call);
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/convolution_test.cpp"};

constexpr ReferenceHandler kHandlers[] = {
    {.op = backend::BackendOp::conv,
     .handler = {.symbol = "nnplan::runtime::reference::conv_forward",
                 .forward = conv_forward,
                 .vjp = conv_vjp,
                 .shape_guard = conv_shape_guard,
                 .layout_guard = canonical_layout_guard,
                 .forward_tests = kTests,
                 .vjp_tests = kTests}},
    {.op = backend::BackendOp::conv_transpose,
     .handler = {.symbol = "nnplan::runtime::reference::conv_transpose_forward",
                 .forward = conv_transpose_forward,
                 .vjp = conv_transpose_vjp,
                 .shape_guard = conv_transpose_shape_guard,
                 .layout_guard = canonical_layout_guard,
                 .forward_tests = kTests,
                 .vjp_tests = kTests}},
};

}  // namespace

std::span<const ReferenceHandler> convolution_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::reference
