// Reference kernels: the convolution family. conv is the cross-correlation of ONNX Conv and
// torch convNd, conv_transpose its adjoint (ONNX ConvTranspose, torch conv_transposeNd); both take
// any spatial rank, groups, dilation, asymmetric padding and any number of batch-like axes before
// the channel axis. Each output element is one float32 accumulator starting at 0, its products
// added in a fixed order (input channel ascending, then kernel taps in row-major order), the
// bias added last.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/providers/reference/reference_handlers.hpp"
#include "runtime/providers/reference/row_major.hpp"

namespace nnplan::runtime::reference {
namespace {

// One kernel tap on one spatial axis: the dense positions t in [lo, hi) whose strided partner
// t * stride + off lies inside the strided extent.
struct AxisTap {
  std::ptrdiff_t off = 0;
  std::size_t lo = 0;
  std::size_t hi = 0;
};

// The geometry of one conv or conv_transpose call. Both relate a "dense" spatial position t to a
// "strided" one t * stride + k * dilation - padding: for conv the dense side is the output and
// the strided side the input, for conv_transpose the other way round.
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
  std::vector<std::size_t> kernel;
  std::vector<std::size_t> stride;
  std::vector<std::size_t> dense_strides;    // row-major, within one channel
  std::vector<std::size_t> strided_strides;  // row-major, within one channel
  std::vector<std::size_t> tap_begin;        // per axis: its first entry in `taps`
  std::vector<AxisTap> taps;                 // per axis, one per kernel index
};

std::vector<std::size_t> spatial_strides(const ir::Shape& s, std::size_t first) {
  std::vector<std::size_t> strides(s.rank() - first, 1);
  for (std::size_t i = strides.size(); i-- > 1;) {
    strides[i - 1] = strides[i] * static_cast<std::size_t>(s.dims[first + i]);
  }
  return strides;
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
  const ir::Shape& dense = transposed ? in : out;
  const ir::Shape& strided = transposed ? out : in;
  g.dense_strides = spatial_strides(dense, first);
  g.strided_strides = spatial_strides(strided, first);
  for (std::size_t d = 0; d < g.rank; ++d) {
    g.kernel.push_back(p.kernel[d]);
    g.stride.push_back(p.stride[d]);
    g.kernel_size *= p.kernel[d];
    g.tap_begin.push_back(g.taps.size());
    const auto s = static_cast<std::ptrdiff_t>(p.stride[d]);
    const auto dense_ext = static_cast<std::ptrdiff_t>(dense.dims[first + d]);
    const auto strided_ext = static_cast<std::ptrdiff_t>(strided.dims[first + d]);
    for (std::size_t k = 0; k < p.kernel[d]; ++k) {
      AxisTap tap;
      tap.off = static_cast<std::ptrdiff_t>(k * p.dilation[d]) -
                static_cast<std::ptrdiff_t>(p.padding[d]);
      // The smallest t with t * s + off >= 0 and the largest with t * s + off < strided_ext.
      const std::ptrdiff_t lo = tap.off >= 0 ? 0 : (-tap.off + s - 1) / s;
      const std::ptrdiff_t last = strided_ext - 1 - tap.off;
      const std::ptrdiff_t hi = last < 0 ? 0 : std::min(last / s + 1, dense_ext);
      tap.lo = static_cast<std::size_t>(lo);
      tap.hi = static_cast<std::size_t>(std::max(hi, lo));
      g.taps.push_back(tap);
    }
  }
  return g;
}

// Walks the kernel taps in row-major order and, for each tap, the dense positions whose strided
// partner is in range, in row-major order, one run along the last spatial axis at a time:
// run(tap, dense_offset, strided_offset, count), the run's j-th element at dense_offset + j and
// strided_offset + j * (the last axis's stride). Scratch counters live in the walker, so a call
// allocates nothing per tap.
class TapWalker {
 public:
  explicit TapWalker(const Geometry& g) : g_(g), k_(g.rank, 0), t_(g.rank, 0) {}

  template <class Run>
  void each(Run&& run) {
    std::fill(k_.begin(), k_.end(), 0);
    for (std::size_t kk = 0; kk < g_.kernel_size; ++kk) {
      walk_tap(kk, run);
      for (std::size_t d = g_.rank; d-- > 0;) {
        if (++k_[d] < g_.kernel[d]) break;
        k_[d] = 0;
      }
    }
  }

 private:
  const AxisTap& tap(std::size_t d) const { return g_.taps[g_.tap_begin[d] + k_[d]]; }

  template <class Run>
  void walk_tap(std::size_t kk, Run& run) {
    const std::size_t r = g_.rank;
    for (std::size_t d = 0; d < r; ++d) {
      if (tap(d).lo >= tap(d).hi) return;
      t_[d] = tap(d).lo;
    }
    const std::size_t count = tap(r - 1).hi - tap(r - 1).lo;
    for (;;) {
      std::size_t dense = 0;
      std::ptrdiff_t strided = 0;
      for (std::size_t d = 0; d < r; ++d) {
        dense += t_[d] * g_.dense_strides[d];
        strided += (static_cast<std::ptrdiff_t>(t_[d] * g_.stride[d]) + tap(d).off) *
                   static_cast<std::ptrdiff_t>(g_.strided_strides[d]);
      }
      run(kk, dense, static_cast<std::size_t>(strided), count);
      std::size_t d = r - 1;
      for (; d > 0; --d) {
        if (++t_[d - 1] < tap(d - 1).hi) break;
        t_[d - 1] = tap(d - 1).lo;
      }
      if (d == 0) return;
    }
  }

  const Geometry& g_;
  std::vector<std::size_t> k_;  // the tap's kernel index per axis
  std::vector<std::size_t> t_;  // the dense position per axis
};

const ir::ConvParams& params_of(const ir::Node& node) {
  return std::get<ir::ConvParams>(node.params);
}

// The gradient buffer of payload `name`, or null when it is not wanted.
float* weight_grad(const VjpCall& call, std::string_view name) {
  for (std::size_t k = 0; k < call.weights.tensors.size(); ++k) {
    if (call.weights.tensors[k].name == name) return call.weight_grads[k].data;
  }
  return nullptr;
}

const float* bias_of(const NodeWeights& w) {
  const format::PayloadTensor* b = w.find("bias");
  return b == nullptr ? nullptr : b->data.data();
}

Expected<void> fail(std::string message) {
  return std::unexpected(make_error(ErrorKind::invalid_input, std::move(message)));
}

std::string list_string(const std::vector<std::uint32_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i == 0 ? "" : ",") + std::to_string(v[i]);
  return s + "]";
}

// The shape guard of conv and conv_transpose: parameters the kernel indexes by, the input's rank
// and channels, the output extents the node's parameters give, and the payload shapes.
Expected<void> conv_family_guard(const KernelCall& call, ir::OpKind kind) {
  const std::string op(ir::to_string(kind));
  const bool transposed = kind == ir::OpKind::conv_transpose;
  if (call.node.kind != kind) {
    return fail("the node is a " + std::string(ir::to_string(call.node.kind)) +
                "; this handler runs " + op);
  }
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
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
  if (p.groups == 0 || p.in_channels == 0 || p.out_channels == 0 ||
      p.in_channels % p.groups != 0 || p.out_channels % p.groups != 0) {
    return fail("groups " + std::to_string(p.groups) + " with in_channels " +
                std::to_string(p.in_channels) + " and out_channels " +
                std::to_string(p.out_channels) + "; " + op +
                " needs groups dividing both, all at least 1");
  }
  const ir::Shape& x = *call.inputs[0].shape;
  const std::size_t ca = p.channel_axis;
  if (x.rank() != ca + 1 + r) {
    return std::unexpected(operand_error(
        "input 0", x,
        op + " needs rank " + std::to_string(ca + 1 + r) + " (channel_axis " +
            std::to_string(ca) + ", then " + std::to_string(r) + " spatial axes)"));
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
        return std::unexpected(operand_error(
            "input 0", x,
            op + " needs axis " + std::to_string(ca + 1 + d) + " padded (" +
                std::to_string(before) + "+" + std::to_string(after) + ") to at least the window " +
                std::to_string(window)));
      }
      want.dims[ca + 1 + d] = (in + before + after - window) / p.stride[d] + 1;
      continue;
    }
    const ir::Dim full = in == 0 ? 0 : (in - 1) * p.stride[d] + window + p.output_padding[d];
    if (full <= before + after) {
      return std::unexpected(operand_error(
          "input 0", x,
          op + " needs axis " + std::to_string(ca + 1 + d) + " to outgrow its padding " +
              std::to_string(before) + "+" + std::to_string(after)));
    }
    want.dims[ca + 1 + d] = full - before - after;
  }
  if (*call.output.shape != want) {
    return std::unexpected(operand_error("the output", *call.output.shape,
                                         op + " of input 0 " + ir::to_string(x) + " gives " +
                                             ir::to_string(want)));
  }
  ir::Shape want_w;
  want_w.dims.push_back(transposed ? p.in_channels : p.out_channels);
  want_w.dims.push_back(transposed ? p.out_channels / p.groups : p.in_channels / p.groups);
  for (std::uint32_t k : p.kernel) want_w.dims.push_back(k);
  const std::string layout = transposed ? " (in_channels, out_channels/groups, kernel...)"
                                        : " (out_channels, in_channels/groups, kernel...)";
  const format::PayloadTensor* w = call.weights.find("weight");
  if (w == nullptr) {
    return fail("the weight is missing; " + op + " needs one of shape " + ir::to_string(want_w) +
                layout);
  }
  if (w->dtype != format::PayloadDtype::float32 || w->shape != want_w) {
    return std::unexpected(operand_error(
        "the weight", w->shape, op + " needs float32 " + ir::to_string(want_w) + layout));
  }
  if (const format::PayloadTensor* b = call.weights.find("bias"); b != nullptr) {
    ir::Shape want_b;
    want_b.dims.push_back(p.out_channels);
    if (b->dtype != format::PayloadDtype::float32 || b->shape != want_b) {
      return std::unexpected(operand_error(
          "the bias", b->shape, op + " needs float32 " + ir::to_string(want_b) + " (out_channels)"));
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

}  // namespace

// y[n,o,t] = (sum over the group's input channels c ascending, then the kernel taps k in
// row-major order, of x[n,c,t*stride + k*dilation - padding] * w[o,c,k]) + bias[o]: one
// accumulator starting at 0, taps that fall in the padding skipped, the bias added last. Each
// output channel's plane is the accumulator array; the loops over independent output positions
// run innermost.
void conv_forward(const KernelCall& call) {
  const ir::ConvParams& p = params_of(call.node);
  const Geometry g = geometry(p, *call.inputs[0].shape, *call.output.shape, false);
  TapWalker walk(g);
  const std::size_t s = g.stride[g.rank - 1];
  const float* x = call.inputs[0].data;
  const float* w = call.weights.find("weight")->data.data();
  const float* bias = bias_of(call.weights);
  float* y = call.output.data;
  for (std::size_t n = 0; n < g.lead; ++n) {
    for (std::size_t grp = 0; grp < g.groups; ++grp) {
      for (std::size_t ol = 0; ol < g.out_per_group; ++ol) {
        const std::size_t o = grp * g.out_per_group + ol;
        float* yp = y + (n * g.out_channels + o) * g.out_plane;
        std::fill(yp, yp + g.out_plane, 0.0F);
        for (std::size_t cl = 0; cl < g.in_per_group; ++cl) {
          const std::size_t c = grp * g.in_per_group + cl;
          const float* xp = x + (n * g.in_channels + c) * g.in_plane;
          const float* wp = w + (o * g.in_per_group + cl) * g.kernel_size;
          walk.each([&](std::size_t kk, std::size_t dense, std::size_t strided, std::size_t count) {
            const float wv = wp[kk];
            float* yr = yp + dense;
            const float* xr = xp + strided;
            for (std::size_t j = 0; j < count; ++j) yr[j] = yr[j] + xr[j * s] * wv;
          });
        }
        if (bias != nullptr) {
          for (std::size_t i = 0; i < g.out_plane; ++i) yp[i] = yp[i] + bias[o];
        }
      }
    }
  }
}

// Each gradient element is its own accumulator, added to in this order: dx[n,c,i] over the
// group's output channels o ascending, then the taps k row-major (g[n,o,t] * w[o,c,k] for the t
// with t*stride + k*dilation - padding = i); dw[o,c,k] over n ascending, then the output
// positions t row-major (g[n,o,t] * x[n,c,t*stride + k*dilation - padding]); db[o] over n, then
// t (g[n,o,t]).
void conv_vjp(const VjpCall& call) {
  const ir::ConvParams& p = params_of(call.node);
  const Geometry g = geometry(p, *call.inputs[0].shape, *call.output.shape, false);
  TapWalker walk(g);
  const std::size_t s = g.stride[g.rank - 1];
  const float* x = call.inputs[0].data;
  const float* w = call.weights.find("weight")->data.data();
  const float* gy = call.output_grad.data;
  float* dx = call.input_grads[0].data;
  float* dw = weight_grad(call, "weight");
  float* db = weight_grad(call, "bias");
  for (std::size_t n = 0; n < g.lead; ++n) {
    for (std::size_t grp = 0; grp < g.groups; ++grp) {
      for (std::size_t ol = 0; ol < g.out_per_group; ++ol) {
        const std::size_t o = grp * g.out_per_group + ol;
        const float* gp = gy + (n * g.out_channels + o) * g.out_plane;
        if (db != nullptr) {
          float acc = db[o];
          for (std::size_t i = 0; i < g.out_plane; ++i) acc = acc + gp[i];
          db[o] = acc;
        }
        for (std::size_t cl = 0; cl < g.in_per_group; ++cl) {
          const std::size_t c = grp * g.in_per_group + cl;
          const float* xp = x + (n * g.in_channels + c) * g.in_plane;
          float* dxp = dx + (n * g.in_channels + c) * g.in_plane;
          const float* wp = w + (o * g.in_per_group + cl) * g.kernel_size;
          float* dwp = dw == nullptr ? nullptr : dw + (o * g.in_per_group + cl) * g.kernel_size;
          walk.each([&](std::size_t kk, std::size_t dense, std::size_t strided, std::size_t count) {
            const float wv = wp[kk];
            const float* gr = gp + dense;
            float* dxr = dxp + strided;
            for (std::size_t j = 0; j < count; ++j) dxr[j * s] = dxr[j * s] + gr[j] * wv;
            if (dwp != nullptr) {
              const float* xr = xp + strided;
              float acc = dwp[kk];
              for (std::size_t j = 0; j < count; ++j) acc = acc + gr[j] * xr[j * s];
              dwp[kk] = acc;
            }
          });
        }
      }
    }
  }
}

// The gather form of the transpose: y[n,o,z] = (sum over the group's input channels c
// ascending, then the kernel taps k in row-major order, of x[n,c,i] * w[c,o,k] for the input
// position i with i*stride + k*dilation - padding = z, when there is one in range) + bias[o]. A
// tap reaches a given z from at most one i, so scattering each input run into the output plane,
// channel by channel and tap by tap, adds every output's products in exactly that order; the
// accumulator starts at 0 and the bias comes last.
void conv_transpose_forward(const KernelCall& call) {
  const ir::ConvParams& p = params_of(call.node);
  const Geometry g = geometry(p, *call.inputs[0].shape, *call.output.shape, true);
  TapWalker walk(g);
  const std::size_t s = g.stride[g.rank - 1];
  const float* x = call.inputs[0].data;
  const float* w = call.weights.find("weight")->data.data();
  const float* bias = bias_of(call.weights);
  float* y = call.output.data;
  for (std::size_t n = 0; n < g.lead; ++n) {
    for (std::size_t grp = 0; grp < g.groups; ++grp) {
      for (std::size_t ol = 0; ol < g.out_per_group; ++ol) {
        const std::size_t o = grp * g.out_per_group + ol;
        float* yp = y + (n * g.out_channels + o) * g.out_plane;
        std::fill(yp, yp + g.out_plane, 0.0F);
        for (std::size_t cl = 0; cl < g.in_per_group; ++cl) {
          const std::size_t c = grp * g.in_per_group + cl;
          const float* xp = x + (n * g.in_channels + c) * g.in_plane;
          const float* wp = w + (c * g.out_per_group + ol) * g.kernel_size;
          walk.each([&](std::size_t kk, std::size_t dense, std::size_t strided, std::size_t count) {
            const float wv = wp[kk];
            const float* xr = xp + dense;
            float* yr = yp + strided;
            for (std::size_t j = 0; j < count; ++j) yr[j * s] = yr[j * s] + xr[j] * wv;
          });
        }
        if (bias != nullptr) {
          for (std::size_t i = 0; i < g.out_plane; ++i) yp[i] = yp[i] + bias[o];
        }
      }
    }
  }
}

// Each gradient element is its own accumulator, added to in this order: dx[n,c,i] over the
// group's output channels o ascending, then the taps k row-major (g[n,o,i*stride + k*dilation -
// padding] * w[c,o,k] where that lies in the output); dw[c,o,k] over n ascending, then the input
// positions i row-major (x[n,c,i] * g[n,o,i*stride + k*dilation - padding]); db[o] over n, then
// the output positions (g[n,o,z]).
void conv_transpose_vjp(const VjpCall& call) {
  const ir::ConvParams& p = params_of(call.node);
  const Geometry g = geometry(p, *call.inputs[0].shape, *call.output.shape, true);
  TapWalker walk(g);
  const std::size_t s = g.stride[g.rank - 1];
  const float* x = call.inputs[0].data;
  const float* w = call.weights.find("weight")->data.data();
  const float* gy = call.output_grad.data;
  float* dx = call.input_grads[0].data;
  float* dw = weight_grad(call, "weight");
  float* db = weight_grad(call, "bias");
  for (std::size_t n = 0; n < g.lead; ++n) {
    for (std::size_t grp = 0; grp < g.groups; ++grp) {
      for (std::size_t ol = 0; ol < g.out_per_group; ++ol) {
        const std::size_t o = grp * g.out_per_group + ol;
        const float* gp = gy + (n * g.out_channels + o) * g.out_plane;
        if (db != nullptr) {
          float acc = db[o];
          for (std::size_t i = 0; i < g.out_plane; ++i) acc = acc + gp[i];
          db[o] = acc;
        }
        for (std::size_t cl = 0; cl < g.in_per_group; ++cl) {
          const std::size_t c = grp * g.in_per_group + cl;
          const float* xp = x + (n * g.in_channels + c) * g.in_plane;
          float* dxp = dx + (n * g.in_channels + c) * g.in_plane;
          const float* wp = w + (c * g.out_per_group + ol) * g.kernel_size;
          float* dwp = dw == nullptr ? nullptr : dw + (c * g.out_per_group + ol) * g.kernel_size;
          walk.each([&](std::size_t kk, std::size_t dense, std::size_t strided, std::size_t count) {
            const float wv = wp[kk];
            const float* gr = gp + strided;
            float* dxr = dxp + dense;
            for (std::size_t j = 0; j < count; ++j) dxr[j] = dxr[j] + gr[j * s] * wv;
            if (dwp != nullptr) {
              const float* xr = xp + dense;
              float acc = dwp[kk];
              for (std::size_t j = 0; j < count; ++j) acc = acc + xr[j] * gr[j * s];
              dwp[kk] = acc;
            }
          });
        }
      }
    }
  }
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

std::span<const ReferenceHandler> convolution_handlers() { return kHandlers; }

}  // namespace nnplan::runtime::reference
