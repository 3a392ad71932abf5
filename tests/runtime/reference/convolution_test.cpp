// The reference provider's convolution family: conv (cross-correlation) and conv_transpose (its
// adjoint), against hand-computed values, a float64 oracle written out per element (a scatter
// for conv_transpose), the float32 accumulation order the kernels document, the adjoint identity
// between the two, their shape guards, and finite differences.
#include <gtest/gtest.h>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace {

using namespace testing;

using Ints = std::vector<std::uint32_t>;

const HandlerDefinition& conv_handler() {
  return handler_for(convolution_handlers(), backend::BackendOp::conv);
}
const HandlerDefinition& conv_transpose_handler() {
  return handler_for(convolution_handlers(), backend::BackendOp::conv_transpose);
}

// Parameters with the same kernel, stride, padding and dilation on every spatial axis.
ir::ConvParams uniform(std::uint32_t rank, std::uint32_t kernel, std::uint32_t stride,
                       std::uint32_t before, std::uint32_t after, std::uint32_t dilation,
                       std::uint32_t in_channels, std::uint32_t out_channels,
                       std::uint32_t groups = 1, std::uint32_t channel_axis = 1) {
  return {.spatial_rank = rank,
          .kernel = Ints(rank, kernel),
          .stride = Ints(rank, stride),
          .padding = Ints(rank, before),
          .dilation = Ints(rank, dilation),
          .padding_after = Ints(rank, after),
          .groups = groups,
          .channel_axis = channel_axis,
          .in_channels = in_channels,
          .out_channels = out_channels};
}

ir::ConvParams transposed(ir::ConvParams p, Ints output_padding) {
  p.output_padding = std::move(output_padding);
  return p;
}

// The output shape, from ONNX's formulas (independent of ir/check.cpp).
ir::Shape out_shape(const ir::Shape& in, const ir::ConvParams& p, bool is_transposed) {
  ir::Shape out = in;
  out.dims[p.channel_axis] = p.out_channels;
  for (std::size_t d = 0; d < p.spatial_rank; ++d) {
    const std::int64_t x = static_cast<std::int64_t>(in.dims[p.channel_axis + 1 + d]);
    const std::int64_t k = p.kernel[d];
    const std::int64_t s = p.stride[d];
    const std::int64_t dil = p.dilation[d];
    const std::int64_t pads = std::int64_t{p.padding[d]} + p.padding_after[d];
    const std::int64_t y = is_transposed
                               ? s * (x - 1) + p.output_padding[d] + (k - 1) * dil + 1 - pads
                               : (x + pads - dil * (k - 1) - 1) / s + 1;
    out.dims[p.channel_axis + 1 + d] = static_cast<ir::Dim>(y);
  }
  return out;
}

ir::Node conv_node(ir::OpKind kind, const ir::Shape& in, const ir::ConvParams& p) {
  return {.id = 1,
          .kind = kind,
          .parents = {0},
          .shape = out_shape(in, p, kind == ir::OpKind::conv_transpose),
          .params = p};
}

ir::Shape weight_shape(const ir::ConvParams& p, bool is_transposed) {
  ir::Shape w;
  w.dims.push_back(is_transposed ? p.in_channels : p.out_channels);
  w.dims.push_back(is_transposed ? p.out_channels / p.groups : p.in_channels / p.groups);
  for (std::uint32_t k : p.kernel)
    w.dims.push_back(k);
  return w;
}

ir::WeightStore conv_store(const Tensor& w, const Tensor* bias) {
  ir::WeightStore store;
  store.tensors[{1, "weight"}] = ir::WeightTensor::adopt<float>(w.shape, w.floats());
  if (bias != nullptr) {
    store.tensors[{1, "bias"}] = ir::WeightTensor::adopt<float>(bias->shape, bias->floats());
  }
  return store;
}

// Spatial coordinates of a flat index within one channel, row-major.
std::vector<std::int64_t> coords_of(std::size_t flat, const std::vector<std::int64_t>& extents) {
  std::vector<std::int64_t> c(extents.size());
  for (std::size_t d = extents.size(); d-- > 0;) {
    c[d] = static_cast<std::int64_t>(flat) % extents[d];
    flat /= static_cast<std::size_t>(extents[d]);
  }
  return c;
}

// The flat index of spatial coordinates, or -1 when one lies outside its extent.
std::int64_t flat_of(const std::vector<std::int64_t>& c, const std::vector<std::int64_t>& extents) {
  std::int64_t flat = 0;
  for (std::size_t d = 0; d < c.size(); ++d) {
    if (c[d] < 0 || c[d] >= extents[d]) return -1;
    flat = flat * extents[d] + c[d];
  }
  return flat;
}

// The parts of a conv-like layout: the leading count, channels and spatial extents.
struct Layout {
  std::size_t lead = 1;
  std::size_t channels = 1;
  std::vector<std::int64_t> spatial;
  std::size_t plane = 1;
};

Layout layout_of(const ir::Shape& s, std::size_t channel_axis) {
  Layout l;
  for (std::size_t i = 0; i < channel_axis; ++i)
    l.lead *= s.dims[i];
  l.channels = s.dims[channel_axis];
  for (std::size_t i = channel_axis + 1; i < s.rank(); ++i) {
    l.spatial.push_back(static_cast<std::int64_t>(s.dims[i]));
    l.plane *= s.dims[i];
  }
  return l;
}

// What the oracles index by: the input and output layouts, the kernel's extents and tap count,
// and the input and output channels per group.
struct OracleGeometry {
  Layout in;
  Layout out;
  std::vector<std::int64_t> kernel;
  std::size_t taps = 1;
  std::size_t cin_g = 1;
  std::size_t cout_g = 1;
};

OracleGeometry oracle_geometry(const Tensor& x, const ir::ConvParams& p, bool is_transposed) {
  OracleGeometry g{.in = layout_of(x.shape, p.channel_axis),
                   .out = layout_of(out_shape(x.shape, p, is_transposed), p.channel_axis),
                   .kernel = {p.kernel.begin(), p.kernel.end()}};
  for (std::uint32_t k : p.kernel)
    g.taps *= k;
  g.cin_g = p.in_channels / p.groups;
  g.cout_g = p.out_channels / p.groups;
  return g;
}

// The spatial position tap k reaches from position `at`: at*stride + k*dilation - padding.
std::vector<std::int64_t> tap_target(const std::vector<std::int64_t>& at,
                                     const std::vector<std::int64_t>& k, const ir::ConvParams& p) {
  std::vector<std::int64_t> t(at.size());
  for (std::size_t d = 0; d < at.size(); ++d) {
    t[d] = at[d] * p.stride[d] + k[d] * p.dilation[d] - p.padding[d];
  }
  return t;
}

// Per output element with accumulator type T: acc = 0, then over the group's input channels
// ascending and the kernel taps row-major, the input position the tap reads, skipping taps
// that read none; the bias last. conv reads z*stride + k*dilation - padding (nothing in the
// padding); conv_transpose (is_transposed) reads (z + padding - k*dilation) / stride when that
// divides and lies in range, which in float32 is the order its kernel documents.
template <class T>
std::vector<T> per_element_oracle(const Tensor& x, const ir::ConvParams& p,
                                  const std::vector<float>& w, const float* bias,
                                  bool is_transposed) {
  const auto [in, out, kernel, taps, cin_g, cout_g] = oracle_geometry(x, p, is_transposed);
  std::vector<T> y;
  for (std::size_t n = 0; n < out.lead; ++n) {
    for (std::size_t o = 0; o < p.out_channels; ++o) {
      const std::size_t grp = o / cout_g;
      for (std::size_t i = 0; i < out.plane; ++i) {
        const std::vector<std::int64_t> at = coords_of(i, out.spatial);
        T acc = 0;
        for (std::size_t cl = 0; cl < cin_g; ++cl) {
          const std::size_t c = grp * cin_g + cl;
          for (std::size_t kk = 0; kk < taps; ++kk) {
            const std::vector<std::int64_t> k = coords_of(kk, kernel);
            std::vector<std::int64_t> src(at.size());
            bool hit = true;
            if (is_transposed) {
              for (std::size_t d = 0; d < at.size(); ++d) {
                const std::int64_t num = at[d] + p.padding[d] - k[d] * p.dilation[d];
                hit = hit && num >= 0 && num % p.stride[d] == 0;
                src[d] = hit ? num / p.stride[d] : -1;
              }
            } else {
              src = tap_target(at, k, p);
            }
            const std::int64_t f = hit ? flat_of(src, in.spatial) : -1;
            if (f < 0) continue;
            const std::size_t wi = is_transposed ? (c * cout_g + (o - grp * cout_g)) * taps + kk
                                                 : (o * cin_g + cl) * taps + kk;
            acc = acc + static_cast<T>(x.floats()[(n * in.channels + c) * in.plane + f]) *
                            static_cast<T>(w[wi]);
          }
        }
        if (bias != nullptr) acc = acc + static_cast<T>(bias[o]);
        y.push_back(acc);
      }
    }
  }
  return y;
}

// conv per output element with accumulator type T.
template <class T>
std::vector<T> naive_conv(const Tensor& x, const ir::ConvParams& p, const std::vector<float>& w,
                          const float* bias) {
  return per_element_oracle<T>(x, p, w, bias, false);
}

// conv_transpose by scattering, in float64: every input element times every tap of its group's
// weights lands on output position i*stride + k*dilation - padding when that is in range.
std::vector<double> scatter_conv_transpose(const Tensor& x, const ir::ConvParams& p,
                                           const std::vector<float>& w, const float* bias) {
  const auto [in, out, kernel, taps, cin_g, cout_g] = oracle_geometry(x, p, true);
  std::vector<double> y(out.lead * out.channels * out.plane, 0.0);
  for (std::size_t n = 0; n < in.lead; ++n) {
    for (std::size_t c = 0; c < p.in_channels; ++c) {
      const std::size_t grp = c / cin_g;
      for (std::size_t i = 0; i < in.plane; ++i) {
        const std::vector<std::int64_t> at = coords_of(i, in.spatial);
        const double xv = x.floats()[(n * in.channels + c) * in.plane + i];
        for (std::size_t ol = 0; ol < cout_g; ++ol) {
          const std::size_t o = grp * cout_g + ol;
          for (std::size_t kk = 0; kk < taps; ++kk) {
            const std::int64_t f = flat_of(tap_target(at, coords_of(kk, kernel), p), out.spatial);
            if (f < 0) continue;
            y[(n * out.channels + o) * out.plane + f] += xv * w[(c * cout_g + ol) * taps + kk];
          }
        }
      }
    }
  }
  if (bias != nullptr) {
    for (std::size_t n = 0; n < out.lead; ++n) {
      for (std::size_t o = 0; o < out.channels; ++o) {
        for (std::size_t i = 0; i < out.plane; ++i)
          y[(n * out.channels + o) * out.plane + i] += bias[o];
      }
    }
  }
  return y;
}

// conv_transpose in the documented float32 order (its gather form).
std::vector<float> gather_conv_transpose(const Tensor& x, const ir::ConvParams& p,
                                         const std::vector<float>& w, const float* bias) {
  return per_element_oracle<float>(x, p, w, bias, true);
}

Expected<Tensor> run(ir::OpKind kind, const Tensor& x, const ir::ConvParams& p, const Tensor& w,
                     const Tensor* bias = nullptr) {
  const HandlerDefinition& h = kind == ir::OpKind::conv ? conv_handler() : conv_transpose_handler();
  return run_forward(h, conv_node(kind, x.shape, p), {x}, conv_store(w, bias));
}

// ---- conv, hand-computed

TEST(reference_conv_forward_tests, HandComputedOneDimensional) {
  const Tensor x = tensor({1, 1, 5}, {1, 2, 3, 4, 5});
  const Tensor w = tensor({1, 1, 3}, {1, 2, 3});
  const Tensor b = tensor({1}, {0.5F});
  auto plain = run(ir::OpKind::conv, x, uniform(1, 3, 1, 0, 0, 1, 1, 1), w);
  ASSERT_TRUE(plain.has_value()) << plain.error().message;
  EXPECT_EQ(plain->shape, shape_of({1, 1, 3}));
  EXPECT_EQ(plain->floats(), (std::vector<float>{14, 20, 26}));
  auto biased = run(ir::OpKind::conv, x, uniform(1, 3, 1, 0, 0, 1, 1, 1), w, &b);
  ASSERT_TRUE(biased.has_value()) << biased.error().message;
  EXPECT_EQ(biased->floats(), (std::vector<float>{14.5F, 20.5F, 26.5F}));
}

TEST(reference_conv_forward_tests, HandComputedStridePaddingDilation) {
  const Tensor x = tensor({1, 1, 5}, {1, 2, 3, 4, 5});
  const Tensor w = tensor({1, 1, 3}, {1, 2, 3});
  // Stride 2 over [0,1,2,3,4,5,0].
  auto strided = run(ir::OpKind::conv, x, uniform(1, 3, 2, 1, 1, 1, 1, 1), w);
  ASSERT_TRUE(strided.has_value()) << strided.error().message;
  EXPECT_EQ(strided->floats(), (std::vector<float>{8, 20, 14}));
  // Dilation 2: taps 0, 2 and 4.
  auto dilated = run(ir::OpKind::conv, x, uniform(1, 3, 1, 0, 0, 2, 1, 1), w);
  ASSERT_TRUE(dilated.has_value()) << dilated.error().message;
  EXPECT_EQ(dilated->floats(), (std::vector<float>{22}));
  // Two zeros before, none after: windows of [0,0,1,2,3,4].
  const Tensor x4 = tensor({1, 1, 4}, {1, 2, 3, 4});
  const Tensor w2 = tensor({1, 1, 2}, {1, 10});
  auto asymmetric = run(ir::OpKind::conv, x4, uniform(1, 2, 1, 2, 0, 1, 1, 1), w2);
  ASSERT_TRUE(asymmetric.has_value()) << asymmetric.error().message;
  EXPECT_EQ(asymmetric->floats(), (std::vector<float>{0, 10, 21, 32, 43}));
}

TEST(reference_conv_forward_tests, HandComputedTwoDimensionalWithBias) {
  const Tensor x = tensor({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor w = tensor({2, 1, 2, 2}, {1, 0, 0, 1, 1, 1, 1, 1});
  const Tensor b = tensor({2}, {0, -1});
  auto y = run(ir::OpKind::conv, x, uniform(2, 2, 1, 0, 0, 1, 1, 2), w, &b);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->shape, shape_of({1, 2, 2, 2}));
  EXPECT_EQ(y->floats(), (std::vector<float>{6, 8, 12, 14, 11, 15, 23, 27}));
}

TEST(reference_conv_forward_tests, HandComputedGroups) {
  // groups = 2: output 0 sees channel 0 only, output 1 channel 1 only.
  const Tensor x = tensor({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor w = tensor({2, 1, 2}, {1, 1, 1, -1});
  auto y = run(ir::OpKind::conv, x, uniform(1, 2, 1, 0, 0, 1, 2, 2, 2), w);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{3, 5, -1, -1}));
  // Depthwise: groups = channels = 3.
  const Tensor x3 = tensor({1, 3, 3}, {1, 2, 3, 1, 0, 1, 2, 2, 2});
  const Tensor w3 = tensor({3, 1, 2}, {1, 2, 3, 4, 0.5F, 0.5F});
  auto depthwise = run(ir::OpKind::conv, x3, uniform(1, 2, 1, 0, 0, 1, 3, 3, 3), w3);
  ASSERT_TRUE(depthwise.has_value()) << depthwise.error().message;
  EXPECT_EQ(depthwise->floats(), (std::vector<float>{5, 8, 3, 4, 2, 2}));
}

TEST(reference_conv_forward_tests, HandComputedThreeDimensional) {
  const Tensor x = tensor({1, 1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const Tensor w = tensor({1, 1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto y = run(ir::OpKind::conv, x, uniform(3, 2, 1, 0, 0, 1, 1, 1), w);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->shape, shape_of({1, 1, 1, 1, 1}));
  EXPECT_EQ(y->floats(), (std::vector<float>{204}));
}

TEST(reference_conv_forward_tests, HandComputedChannelAxis) {
  // channel_axis 2 behind two leading axes [2,2]: each of the four rows is convolved alone.
  const Tensor x = tensor({2, 2, 1, 3}, {1, 2, 4, 0, 3, 9, 5, 5, 5, -1, 0, 1});
  const Tensor w = tensor({1, 1, 2}, {1, -1});
  auto y = run(ir::OpKind::conv, x, uniform(1, 2, 1, 0, 0, 1, 1, 1, 1, 2), w);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->shape, shape_of({2, 2, 1, 2}));
  EXPECT_EQ(y->floats(), (std::vector<float>{-1, -2, -3, -6, 0, 0, -1, -1}));
  // channel_axis 0: no leading axes at all.
  const Tensor x0 = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor w0 = tensor({1, 2, 2}, {1, 1, 1, 0});
  auto y0 = run(ir::OpKind::conv, x0, uniform(1, 2, 1, 0, 0, 1, 2, 1, 1, 0), w0);
  ASSERT_TRUE(y0.has_value()) << y0.error().message;
  EXPECT_EQ(y0->shape, shape_of({1, 2}));
  EXPECT_EQ(y0->floats(), (std::vector<float>{7, 10}));
}

// ---- conv, oracle

struct ConvCase {
  ir::Shape in;
  ir::ConvParams p;
  bool bias;
};

std::vector<ConvCase> conv_cases() {
  std::vector<ConvCase> cases;
  cases.push_back({shape_of({2, 4, 9}), uniform(1, 3, 2, 1, 0, 1, 4, 6, 2), true});
  cases.push_back({shape_of({3, 7}), uniform(1, 2, 1, 0, 0, 3, 3, 2, 1, 0), false});
  ir::ConvParams mixed = uniform(2, 1, 1, 0, 0, 1, 3, 4);
  mixed.kernel = {3, 2};
  mixed.stride = {2, 1};
  mixed.padding = {1, 0};
  mixed.padding_after = {0, 1};
  mixed.dilation = {1, 2};
  cases.push_back({shape_of({2, 3, 7, 6}), mixed, true});
  cases.push_back({shape_of({1, 4, 5, 5}), uniform(2, 3, 1, 1, 1, 1, 4, 8, 4), true});
  ir::ConvParams volume = uniform(3, 1, 1, 0, 0, 1, 2, 3);
  volume.kernel = {2, 3, 2};
  volume.stride = {1, 2, 1};
  volume.padding = {1, 0, 1};
  volume.padding_after = {0, 1, 1};
  volume.dilation = {1, 1, 2};
  cases.push_back({shape_of({1, 2, 4, 5, 3}), volume, true});
  cases.push_back({shape_of({2, 3, 4, 6}), uniform(1, 3, 1, 2, 1, 1, 4, 2, 2, 2), false});
  ir::ConvParams wide = uniform(2, 1, 1, 0, 0, 1, 3, 5);
  wide.kernel = {5, 3};
  wide.stride = {3, 2};
  wide.padding = {2, 1};
  wide.padding_after = {1, 0};
  cases.push_back({shape_of({1, 3, 12, 11}), wide, true});
  cases.push_back({shape_of({1, 1, 3, 3, 3, 3}), uniform(4, 2, 1, 0, 1, 1, 1, 2), true});
  return cases;
}

// Each case, with seeded tensors from `seed` on, against the float64 oracle and, bit for bit,
// the documented float32 order: conv against naive_conv, conv_transpose against the scatter and
// the gather form.
void expect_matches_oracles(ir::OpKind kind, const std::vector<ConvCase>& cases,
                            std::uint32_t seed) {
  const bool is_transposed = kind == ir::OpKind::conv_transpose;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(ir::to_string(c.in));
    const Tensor x = random_tensor(c.in, seed++);
    const Tensor w = random_tensor(weight_shape(c.p, is_transposed), seed++);
    const Tensor b = random_tensor(shape_of({c.p.out_channels}), seed++);
    auto y = run(kind, x, c.p, w, c.bias ? &b : nullptr);
    ASSERT_TRUE(y.has_value()) << y.error().message;
    const float* bias = c.bias ? b.floats().data() : nullptr;
    const std::vector<double> want = is_transposed
                                         ? scatter_conv_transpose(x, c.p, w.floats(), bias)
                                         : naive_conv<double>(x, c.p, w.floats(), bias);
    const std::vector<float> order = is_transposed ? gather_conv_transpose(x, c.p, w.floats(), bias)
                                                   : naive_conv<float>(x, c.p, w.floats(), bias);
    EXPECT_TRUE(near_all(y->floats(), want, 1e-5, 1e-6));
    EXPECT_TRUE(same_bits(y->floats(), order));
  }
}

TEST(reference_conv_forward_tests, MatchesFloat64OracleAndFixedOrder) {
  expect_matches_oracles(ir::OpKind::conv, conv_cases(), 500);
}

TEST(reference_conv_forward_tests, SecondRunIsBitIdentical) {
  const ConvCase c = conv_cases()[2];
  const Tensor x = random_tensor(c.in, 31);
  const Tensor w = random_tensor(weight_shape(c.p, false), 32);
  const Tensor b = random_tensor(shape_of({c.p.out_channels}), 33);
  EXPECT_TRUE(deterministic(conv_handler(), conv_node(ir::OpKind::conv, x.shape, c.p), {x},
                            conv_store(w, &b)));
}

// The error a call of `kind` on input `in` with weight (and bias) shapes gives, or "accepted".
std::string conv_guard_message(ir::OpKind kind, const ir::Shape& in, const ir::ConvParams& p,
                               const ir::Shape& node_shape, const ir::Shape* w,
                               const ir::Shape* bias = nullptr) {
  const HandlerDefinition& h = kind == ir::OpKind::conv ? conv_handler() : conv_transpose_handler();
  const ir::Node node{.id = 1, .kind = kind, .parents = {0}, .shape = node_shape, .params = p};
  ir::WeightStore store;
  if (w != nullptr)
    store.tensors[{1, "weight"}] = ir::WeightTensor::adopt<float>(*w, zeros(*w).floats());
  if (bias != nullptr)
    store.tensors[{1, "bias"}] = ir::WeightTensor::adopt<float>(*bias, zeros(*bias).floats());
  return testing::guard_message(h, node, {zeros(in)}, store);
}

TEST(reference_conv_forward_tests, ShapeGuardNamesTheOperand) {
  const ir::OpKind k = ir::OpKind::conv;
  const ir::ConvParams p = uniform(1, 3, 1, 0, 0, 1, 1, 2);
  const ir::Shape in = shape_of({1, 1, 5});
  const ir::Shape out = shape_of({1, 2, 3});
  const ir::Shape w = shape_of({2, 1, 3});
  EXPECT_EQ(conv_guard_message(k, in, p, out, &w), "accepted");
  EXPECT_EQ(conv_guard_message(k, in, uniform(2, 3, 1, 0, 0, 1, 1, 2), out, &w),
            "input 0 has shape [1,1,5]; conv needs rank 4 (channel_axis 1, then 2 spatial axes)");
  EXPECT_EQ(conv_guard_message(k, shape_of({1, 3, 5}), p, out, &w),
            "input 0 has shape [1,3,5]; conv needs in_channels 1 on axis 1");
  const ir::Shape w_wrong = shape_of({2, 1, 4});
  EXPECT_EQ(conv_guard_message(k, in, p, out, &w_wrong),
            "the weight has shape [2,1,4]; conv needs float32 [2,1,3] (out_channels, "
            "in_channels/groups, kernel...)");
  EXPECT_EQ(conv_guard_message(k, in, p, out, nullptr),
            "the weight is missing; conv needs one of shape [2,1,3] (out_channels, "
            "in_channels/groups, kernel...)");
  const ir::Shape b_wrong = shape_of({3});
  EXPECT_EQ(conv_guard_message(k, in, p, out, &w, &b_wrong),
            "the bias has shape [3]; conv needs float32 [2] (out_channels)");
  EXPECT_EQ(conv_guard_message(k, in, p, shape_of({1, 2, 4}), &w),
            "the output has shape [1,2,4]; conv of input 0 [1,1,5] gives [1,2,3]");
  EXPECT_EQ(conv_guard_message(k, shape_of({1, 1, 2}), p, shape_of({1, 2, 1}), &w),
            "input 0 has shape [1,1,2]; conv needs axis 2 padded (0+0) to at least the window 3");
  ir::ConvParams long_kernel = p;
  long_kernel.kernel = {3, 3};
  EXPECT_EQ(conv_guard_message(k, in, long_kernel, out, &w),
            "kernel [3,3] has 2 entries; conv needs one per spatial axis (1)");
  ir::ConvParams zero_stride = p;
  zero_stride.stride = {0};
  EXPECT_EQ(conv_guard_message(k, in, zero_stride, out, &w),
            "stride [0] holds 0; conv needs every entry at least 1");
  EXPECT_EQ(conv_guard_message(k, shape_of({1, 3, 5}), uniform(1, 3, 1, 0, 0, 1, 3, 2, 2), out, &w),
            "groups 2 with in_channels 3 and out_channels 2; conv needs groups dividing both, "
            "all at least 1");
  const ir::Node relu{.id = 1, .kind = ir::OpKind::relu, .parents = {0}, .shape = in};
  auto wrong_kind = run_forward(conv_handler(), relu, {zeros(in)});
  ASSERT_FALSE(wrong_kind.has_value());
  EXPECT_EQ(wrong_kind.error().message, "the node is a relu; this handler runs conv");
}

// ---- conv, VJP

TEST(reference_conv_vjp_tests, MatchesFiniteDifferences) {
  std::vector<ConvCase> cases = conv_cases();
  cases.erase(cases.begin() + 6);  // the widest case adds nothing the others do not probe
  std::uint32_t seed = 600;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(ir::to_string(c.in));
    const Tensor w = random_tensor(weight_shape(c.p, false), seed++);
    const Tensor b = random_tensor(shape_of({c.p.out_channels}), seed++);
    EXPECT_TRUE(check_vjp(conv_handler(), conv_node(ir::OpKind::conv, c.in, c.p),
                          {random_tensor(c.in, seed++)}, conv_store(w, c.bias ? &b : nullptr)));
  }
}

TEST(reference_conv_vjp_tests, HandComputedGradients) {
  // x [1,1,3], w [1,1,2], stride 1: y = [x0 w0 + x1 w1, x1 w0 + x2 w1] + b.
  const Tensor x = tensor({1, 1, 3}, {1, 2, 3});
  const Tensor w = tensor({1, 1, 2}, {10, 20});
  const Tensor b = tensor({1}, {0});
  const ir::ConvParams p = uniform(1, 2, 1, 0, 0, 1, 1, 1);
  const ir::Node node = conv_node(ir::OpKind::conv, x.shape, p);
  const ir::WeightStore store = conv_store(w, &b);
  const Tensor y = tensor({1, 1, 2}, {50, 80});
  const Tensor g = tensor({1, 1, 2}, {1, -1});
  const VjpGradients grads = run_vjp(conv_handler(), node, {x}, y, g, store);
  ASSERT_EQ(grads.weights.size(), 2U);
  EXPECT_EQ(grads.inputs[0].floats(), (std::vector<float>{10, 20 - 10, -20}));
  EXPECT_EQ(grads.weights[0].floats(), (std::vector<float>{1 - 2, 2 - 3}));
  EXPECT_EQ(grads.weights[1].floats(), (std::vector<float>{0}));
}

// ---- conv_transpose, hand-computed

TEST(reference_conv_transpose_forward_tests, HandComputedStrideTwoOutputPadding) {
  const Tensor x = tensor({1, 1, 2}, {1, 2});
  const Tensor w = tensor({1, 1, 3}, {1, 10, 100});
  const Tensor b = tensor({1}, {0.5F});
  // Input 0 lands on outputs 0..2, input 1 on 2..4; output_padding adds output 5.
  const ir::ConvParams p = transposed(uniform(1, 3, 2, 0, 0, 1, 1, 1), {1});
  auto y = run(ir::OpKind::conv_transpose, x, p, w);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->shape, shape_of({1, 1, 6}));
  EXPECT_EQ(y->floats(), (std::vector<float>{1, 10, 102, 20, 200, 0}));
  auto biased = run(ir::OpKind::conv_transpose, x, p, w, &b);
  ASSERT_TRUE(biased.has_value()) << biased.error().message;
  EXPECT_EQ(biased->floats(), (std::vector<float>{1.5F, 10.5F, 102.5F, 20.5F, 200.5F, 0.5F}));
  // Padding 1 on both sides cuts the first and the last of those.
  auto padded =
      run(ir::OpKind::conv_transpose, x, transposed(uniform(1, 3, 2, 1, 1, 1, 1, 1), {1}), w);
  ASSERT_TRUE(padded.has_value()) << padded.error().message;
  EXPECT_EQ(padded->floats(), (std::vector<float>{10, 102, 20, 200}));
  // Padding 1 before only, no output_padding: the same four.
  auto asymmetric =
      run(ir::OpKind::conv_transpose, x, transposed(uniform(1, 3, 2, 1, 0, 1, 1, 1), {0}), w);
  ASSERT_TRUE(asymmetric.has_value()) << asymmetric.error().message;
  EXPECT_EQ(asymmetric->floats(), (std::vector<float>{10, 102, 20, 200}));
}

TEST(reference_conv_transpose_forward_tests, HandComputedTwoDimensionalAndDilation) {
  const Tensor x = tensor({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor w = tensor({1, 1, 2, 2}, {1, 1, 1, 1});
  auto y =
      run(ir::OpKind::conv_transpose, x, transposed(uniform(2, 2, 1, 0, 0, 1, 1, 1), {0, 0}), w);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->shape, shape_of({1, 1, 3, 3}));
  EXPECT_EQ(y->floats(), (std::vector<float>{1, 3, 2, 4, 10, 6, 3, 7, 4}));
  const Tensor x1 = tensor({1, 1, 2}, {1, 2});
  const Tensor w1 = tensor({1, 1, 2}, {1, 10});
  auto dilated =
      run(ir::OpKind::conv_transpose, x1, transposed(uniform(1, 2, 1, 0, 0, 2, 1, 1), {0}), w1);
  ASSERT_TRUE(dilated.has_value()) << dilated.error().message;
  EXPECT_EQ(dilated->floats(), (std::vector<float>{1, 2, 10, 20}));
}

TEST(reference_conv_transpose_forward_tests, HandComputedGroups) {
  // groups 2, 2 -> 4 channels: input channel 0 feeds outputs 0 and 1, channel 1 outputs 2, 3.
  const Tensor x = tensor({1, 2, 2}, {1, 2, 3, 4});
  const Tensor w = tensor({2, 2, 1}, {2, 3, -1, 1});
  auto y =
      run(ir::OpKind::conv_transpose, x, transposed(uniform(1, 1, 1, 0, 0, 1, 2, 4, 2), {0}), w);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{2, 4, 3, 6, -3, -4, 3, 4}));
}

// ---- conv_transpose, oracle

std::vector<ConvCase> conv_transpose_cases() {
  std::vector<ConvCase> cases;
  cases.push_back({shape_of({2, 4, 5}), transposed(uniform(1, 3, 2, 1, 0, 1, 4, 6, 2), {1}), true});
  cases.push_back(
      {shape_of({3, 4}), transposed(uniform(1, 2, 1, 0, 0, 2, 3, 2, 1, 0), {1}), false});
  ir::ConvParams mixed = transposed(uniform(2, 1, 1, 0, 0, 1, 3, 4), {1, 0});
  mixed.kernel = {3, 2};
  mixed.stride = {2, 1};
  mixed.padding = {1, 0};
  mixed.padding_after = {0, 1};
  mixed.dilation = {1, 2};
  cases.push_back({shape_of({1, 3, 4, 3}), mixed, true});
  cases.push_back(
      {shape_of({1, 4, 4, 4}), transposed(uniform(2, 3, 2, 1, 1, 1, 4, 4, 4), {1, 1}), false});
  ir::ConvParams volume = transposed(uniform(3, 1, 1, 0, 0, 1, 2, 3), {1, 0, 1});
  volume.kernel = {2, 2, 3};
  volume.stride = {2, 1, 1};
  volume.padding = {0, 1, 1};
  volume.padding_after = {1, 0, 0};
  volume.dilation = {1, 1, 2};
  cases.push_back({shape_of({1, 2, 3, 2, 3}), volume, true});
  cases.push_back(
      {shape_of({2, 2, 4, 5}), transposed(uniform(1, 2, 3, 1, 2, 1, 4, 6, 2, 2), {2}), true});
  // Six output channels in one group: a block of four and two single channels.
  ir::ConvParams six = transposed(uniform(2, 1, 1, 0, 0, 1, 3, 6), {1, 1});
  six.kernel = {2, 3};
  six.stride = {1, 2};
  six.padding = {0, 1};
  six.padding_after = {1, 0};
  six.dilation = {2, 1};
  cases.push_back({shape_of({1, 3, 5, 4}), six, true});
  return cases;
}

TEST(reference_conv_transpose_forward_tests, MatchesFloat64ScatterAndFixedOrder) {
  expect_matches_oracles(ir::OpKind::conv_transpose, conv_transpose_cases(), 700);
}

TEST(reference_conv_transpose_forward_tests, IsTheAdjointOfConv) {
  // <conv(x), u> = <x, conv_transpose(u)> with one weight tensor, when output_padding restores
  // the conv's input extent.
  std::uint32_t seed = 800;
  for (const ConvCase& c : conv_cases()) {
    SCOPED_TRACE(ir::to_string(c.in));
    ir::ConvParams t = c.p;
    std::swap(t.in_channels, t.out_channels);
    const ir::Shape y_shape = out_shape(c.in, c.p, false);
    for (std::size_t d = 0; d < c.p.spatial_rank; ++d) {
      const std::uint64_t in = c.in.dims[c.p.channel_axis + 1 + d];
      const std::uint64_t window = std::uint64_t{c.p.dilation[d]} * (c.p.kernel[d] - 1) + 1;
      t.output_padding.push_back(static_cast<std::uint32_t>(
          (in + c.p.padding[d] + c.p.padding_after[d] - window) % c.p.stride[d]));
    }
    ASSERT_EQ(out_shape(y_shape, t, true), c.in);
    const Tensor x = random_tensor(c.in, seed++);
    const Tensor u = random_tensor(y_shape, seed++);
    const Tensor w = random_tensor(weight_shape(c.p, false), seed++);
    auto cx = run(ir::OpKind::conv, x, c.p, w);
    auto tu = run(ir::OpKind::conv_transpose, u, t, w);
    ASSERT_TRUE(cx.has_value()) << cx.error().message;
    ASSERT_TRUE(tu.has_value()) << tu.error().message;
    double lhs = 0;
    double rhs = 0;
    for (std::size_t i = 0; i < u.floats().size(); ++i)
      lhs += double{cx->floats()[i]} * u.floats()[i];
    for (std::size_t i = 0; i < x.floats().size(); ++i)
      rhs += double{x.floats()[i]} * tu->floats()[i];
    EXPECT_NEAR(lhs, rhs, 1e-4 * (1 + std::abs(lhs)));
  }
}

TEST(reference_conv_transpose_forward_tests, SecondRunIsBitIdentical) {
  const ConvCase c = conv_transpose_cases()[2];
  const Tensor x = random_tensor(c.in, 41);
  const Tensor w = random_tensor(weight_shape(c.p, true), 42);
  const Tensor b = random_tensor(shape_of({c.p.out_channels}), 43);
  EXPECT_TRUE(deterministic(conv_transpose_handler(),
                            conv_node(ir::OpKind::conv_transpose, x.shape, c.p), {x},
                            conv_store(w, &b)));
}

TEST(reference_conv_transpose_forward_tests, ShapeGuardNamesTheOperand) {
  const ir::OpKind k = ir::OpKind::conv_transpose;
  const ir::ConvParams p = transposed(uniform(1, 3, 2, 0, 0, 1, 2, 1), {1});
  const ir::Shape in = shape_of({1, 2, 2});
  const ir::Shape out = shape_of({1, 1, 6});
  const ir::Shape w = shape_of({2, 1, 3});
  EXPECT_EQ(conv_guard_message(k, in, p, out, &w), "accepted");
  EXPECT_EQ(conv_guard_message(k, shape_of({2, 2}), p, out, &w),
            "input 0 has shape [2,2]; conv_transpose needs rank 3 (channel_axis 1, then 1 "
            "spatial axes)");
  EXPECT_EQ(conv_guard_message(k, shape_of({1, 1, 2}), p, out, &w),
            "input 0 has shape [1,1,2]; conv_transpose needs in_channels 2 on axis 1");
  const ir::Shape w_swapped = shape_of({1, 2, 3});
  EXPECT_EQ(conv_guard_message(k, in, p, out, &w_swapped),
            "the weight has shape [1,2,3]; conv_transpose needs float32 [2,1,3] (in_channels, "
            "out_channels/groups, kernel...)");
  const ir::Shape b_wrong = shape_of({2});
  EXPECT_EQ(conv_guard_message(k, in, p, out, &w, &b_wrong),
            "the bias has shape [2]; conv_transpose needs float32 [1] (out_channels)");
  EXPECT_EQ(conv_guard_message(k, in, p, shape_of({1, 1, 5}), &w),
            "the output has shape [1,1,5]; conv_transpose of input 0 [1,2,2] gives [1,1,6]");
  EXPECT_EQ(conv_guard_message(k, in, transposed(uniform(1, 3, 2, 0, 0, 1, 2, 1), {}), out, &w),
            "output_padding [] has 0 entries; conv_transpose needs one per spatial axis (1)");
  EXPECT_EQ(
      conv_guard_message(k, shape_of({1, 2, 1}), transposed(uniform(1, 1, 1, 1, 0, 1, 2, 1), {0}),
                         shape_of({1, 1, 1}), &w),
      "input 0 has shape [1,2,1]; conv_transpose needs axis 2 to outgrow its padding 1+0");
}

// Weights as values (SPEC §6): the weight and bias as inputs 1 and 2 give the bits the payloads
// give, and the VJP adds their gradients into those inputs' gradients (finite differences probe
// every input, the weight and bias among them).
TEST(reference_conv_vjp_tests, WeightsAsValues) {
  std::uint32_t seed = 700;
  for (const ir::OpKind kind : {ir::OpKind::conv, ir::OpKind::conv_transpose}) {
    const bool transposed = kind == ir::OpKind::conv_transpose;
    for (const ConvCase& c : transposed ? conv_transpose_cases() : conv_cases()) {
      SCOPED_TRACE(std::string(ir::to_string(kind)) + " " + ir::to_string(c.in) +
                   (c.bias ? " with bias" : ""));
      const HandlerDefinition& h = transposed ? conv_transpose_handler() : conv_handler();
      const Tensor x = random_tensor(c.in, seed++);
      const Tensor w = random_tensor(weight_shape(c.p, transposed), seed++);
      const Tensor b = random_tensor(shape_of({c.p.out_channels}), seed++);
      const ir::Node payloads = conv_node(kind, c.in, c.p);
      ir::Node values = payloads;
      values.id = 3;
      values.parents = c.bias ? ir::Parents{0, 1, 2} : ir::Parents{0, 1};
      const std::vector<Tensor> inputs =
          c.bias ? std::vector<Tensor>{x, w, b} : std::vector<Tensor>{x, w};
      const auto want = run_forward(h, payloads, {x}, conv_store(w, c.bias ? &b : nullptr));
      const auto got = run_forward(h, values, inputs);
      ASSERT_TRUE(want.has_value() && got.has_value());
      EXPECT_TRUE(same_bits(*got, *want));
      EXPECT_TRUE(check_vjp(h, values, inputs));
    }
  }
}

// ---- conv_transpose, VJP

TEST(reference_conv_transpose_vjp_tests, MatchesFiniteDifferences) {
  std::uint32_t seed = 900;
  for (const ConvCase& c : conv_transpose_cases()) {
    SCOPED_TRACE(ir::to_string(c.in));
    const Tensor w = random_tensor(weight_shape(c.p, true), seed++);
    const Tensor b = random_tensor(shape_of({c.p.out_channels}), seed++);
    EXPECT_TRUE(check_vjp(conv_transpose_handler(),
                          conv_node(ir::OpKind::conv_transpose, c.in, c.p),
                          {random_tensor(c.in, seed++)}, conv_store(w, c.bias ? &b : nullptr)));
  }
}

TEST(reference_conv_transpose_vjp_tests, HandComputedGradients) {
  // x [1,1,2], w [1,1,2], stride 2: y = [x0 w0, x0 w1, x1 w0, x1 w1] + b.
  const Tensor x = tensor({1, 1, 2}, {1, 2});
  const Tensor w = tensor({1, 1, 2}, {10, 20});
  const Tensor b = tensor({1}, {0});
  const ir::ConvParams p = transposed(uniform(1, 2, 2, 0, 0, 1, 1, 1), {0});
  const ir::Node node = conv_node(ir::OpKind::conv_transpose, x.shape, p);
  ASSERT_EQ(node.shape, shape_of({1, 1, 4}));
  const ir::WeightStore store = conv_store(w, &b);
  const Tensor y = tensor({1, 1, 4}, {10, 20, 20, 40});
  const Tensor g = tensor({1, 1, 4}, {1, 2, 3, 4});
  const VjpGradients grads = run_vjp(conv_transpose_handler(), node, {x}, y, g, store);
  ASSERT_EQ(grads.weights.size(), 2U);
  EXPECT_EQ(grads.inputs[0].floats(), (std::vector<float>{10 + 40, 30 + 80}));
  EXPECT_EQ(grads.weights[0].floats(), (std::vector<float>{1 + 6, 2 + 8}));
  EXPECT_EQ(grads.weights[1].floats(), (std::vector<float>{10}));
}

}  // namespace
}  // namespace nnplan::runtime::reference
