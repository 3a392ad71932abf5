// The reference max_pool_indices kernel (ONNX MaxPool's Indices): hand cases (ONNX's
// maxpool_with_argmax_2d_precomputed_strides and its column-major twin), the first of equal
// maxima, padding skipped and a window of padding only, a float64-free brute-force oracle over
// 1-D to 3-D windows with stride, dilation and uneven padding, and the index that reads back the
// max_pool's own value.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace max_pool_indices_test {
namespace {

using backend::BackendOp;
using namespace testing;

ir::Node indices_node(const ir::Shape& out, ir::MaxPoolIndicesParams p) {
  return {.id = 1,
          .kind = ir::OpKind::max_pool_indices,
          .parents = {0},
          .shape = out,
          .params = std::move(p),
          .dtype = ir::DType::int64};
}

ir::MaxPoolIndicesParams window(std::vector<std::uint32_t> kernel,
                                std::vector<std::uint32_t> stride,
                                std::vector<std::uint32_t> before = {},
                                std::vector<std::uint32_t> after = {},
                                std::vector<std::uint32_t> dilation = {},
                                std::uint32_t storage_order = 0) {
  const std::size_t r = kernel.size();
  return {.spatial_rank = static_cast<std::uint32_t>(r),
          .kernel = kernel,
          .stride = stride,
          .padding = before.empty() ? std::vector<std::uint32_t>(r, 0) : before,
          .padding_after = after.empty() ? std::vector<std::uint32_t>(r, 0) : after,
          .dilation = dilation.empty() ? std::vector<std::uint32_t>(r, 1) : dilation,
          .storage_order = storage_order};
}

std::vector<std::int64_t> run(const Tensor& x, const ir::Shape& out,
                              const ir::MaxPoolIndicesParams& p) {
  const auto y = run_forward(handler(BackendOp::max_pool_indices), indices_node(out, p), {x});
  EXPECT_TRUE(y.has_value()) << y.error().message;
  return y ? y->ints() : std::vector<std::int64_t>{};
}

// ONNX's test: X = 1..25 in a 5x5 image, kernel 2, stride 2: the maxima sit at the bottom right
// of each window; column-major counts down the columns first.
TEST(reference_max_pool_indices_forward_tests, OnnxCase) {
  std::vector<float> v(25);
  for (int i = 0; i < 25; ++i)
    v[i] = static_cast<float>(i + 1);
  const Tensor x = Tensor::of(shape_of({1, 1, 5, 5}), v);
  EXPECT_EQ(run(x, shape_of({1, 1, 2, 2}), window({2, 2}, {2, 2})),
            (std::vector<std::int64_t>{6, 8, 16, 18}));
  EXPECT_EQ(run(x, shape_of({1, 1, 2, 2}), window({2, 2}, {2, 2}, {}, {}, {}, 1)),
            (std::vector<std::int64_t>{6, 16, 8, 18}));
}

// Ties go to the first tap in row-major order; padding is never picked; the index counts the
// leading axes too; a window of padding only gives -1.
TEST(reference_max_pool_indices_forward_tests, TiesPaddingAndLeadingAxes) {
  const Tensor tie = Tensor::of(shape_of({1, 2, 1, 3}), std::vector<float>{5, 5, 1, -3, -7, -3});
  EXPECT_EQ(run(tie, shape_of({1, 2, 1, 2}), window({1, 2}, {1, 1})),
            (std::vector<std::int64_t>{0, 1, 3, 5}));
  // A NaN in a window is its pick (max_pool's value there is NaN); the first of two.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor with_nan = Tensor::of(shape_of({1, 1, 4}), std::vector<float>{1, nan, 9, nan});
  EXPECT_EQ(run(with_nan, shape_of({1, 1, 2}), window({3}, {1})),
            (std::vector<std::int64_t>{1, 1}));
  // Negative values beside padding: the padding (below every value) is skipped.
  const Tensor neg = Tensor::of(shape_of({1, 1, 3}), std::vector<float>{-4, -2, -9});
  EXPECT_EQ(run(neg, shape_of({1, 1, 4}), window({2}, {1}, {1}, {1})),
            (std::vector<std::int64_t>{0, 1, 1, 2}));
  // Dilation 3 over one element padded by 1 and 2: both taps fall in the padding.
  const Tensor one = Tensor::of(shape_of({1, 1, 1}), std::vector<float>{2});
  EXPECT_EQ(run(one, shape_of({1, 1, 1}), window({2}, {1}, {1}, {2}, {3})),
            (std::vector<std::int64_t>{-1}));
}

// Every window of random inputs against a brute-force search, and each index reads the window's
// maximum.
TEST(reference_max_pool_indices_forward_tests, MatchesBruteForce) {
  struct Case {
    ir::Shape in;
    ir::MaxPoolIndicesParams p;
  };
  const std::vector<Case> cases = {
      {shape_of({2, 3, 11}), window({3}, {2}, {1}, {2}, {2})},
      {shape_of({1, 2, 7, 6}), window({3, 2}, {2, 1}, {1, 0}, {2, 1}, {1, 2})},
      {shape_of({1, 1, 4, 5, 3}), window({2, 2, 2}, {1, 2, 1}, {0, 1, 1}, {1, 0, 1})},
  };
  std::uint32_t seed = 90;
  for (const Case& c : cases) {
    const Tensor x = random_tensor(c.in, seed++);
    const std::size_t r = c.p.spatial_rank;
    const std::size_t first = c.in.rank() - r;
    ir::Shape out = c.in;
    for (std::size_t i = 0; i < r; ++i) {
      const ir::Dim padded = c.in.dims[first + i] + c.p.padding[i] + c.p.padding_after[i];
      const ir::Dim span = ir::Dim{c.p.dilation[i]} * (c.p.kernel[i] - 1) + 1;
      out.dims[first + i] = (padded - span) / c.p.stride[i] + 1;
    }
    const std::vector<std::int64_t> got = run(x, out, c.p);
    // Brute force: every output element's window, in row-major tap order.
    std::size_t at = 0;
    std::vector<ir::Dim> o(out.rank(), 0);
    for (; at < got.size(); ++at) {
      std::int64_t want = -1;
      float best = 0;
      std::vector<ir::Dim> t(r, 0);
      while (true) {
        std::int64_t flat = 0;
        bool inside = true;
        for (std::size_t a = 0; a < c.in.rank(); ++a) {
          std::int64_t coord = static_cast<std::int64_t>(o[a]);
          if (a >= first) {
            const std::size_t i = a - first;
            coord = static_cast<std::int64_t>(o[a] * c.p.stride[i] + t[i] * c.p.dilation[i]) -
                    static_cast<std::int64_t>(c.p.padding[i]);
            inside = inside && coord >= 0 && coord < static_cast<std::int64_t>(c.in.dims[a]);
          }
          flat = flat * static_cast<std::int64_t>(c.in.dims[a]) + coord;
        }
        if (inside && (want < 0 || x.floats()[static_cast<std::size_t>(flat)] > best)) {  // no NaN
          want = flat;
          best = x.floats()[static_cast<std::size_t>(flat)];
        }
        std::size_t a = r;
        while (a > 0 && ++t[a - 1] == c.p.kernel[a - 1]) {
          t[a - 1] = 0;
          --a;
        }
        if (a == 0) break;
      }
      EXPECT_EQ(got[at], want) << "output element " << at;
      for (std::size_t a = out.rank(); a-- > 0;) {
        if (++o[a] < out.dims[a]) break;
        o[a] = 0;
      }
    }
  }
}

// Indices carry no derivative: the kernel has no VJP and the capsule's VJP mode is none.
TEST(reference_max_pool_indices_vjp_tests, forward_only) {
  EXPECT_EQ(handler(BackendOp::max_pool_indices).vjp, nullptr);
  EXPECT_FALSE(backend::requires_vjp(BackendOp::max_pool_indices));
}

TEST(reference_max_pool_indices_forward_tests, ShapeGuard) {
  const ir::Node node = indices_node(shape_of({1, 1, 3, 3}), window({2, 2}, {2, 2}));
  EXPECT_EQ(
      guard_message(handler(BackendOp::max_pool_indices), node, {zeros(shape_of({1, 1, 4, 4}))}),
      "node 1 (max_pool_indices): its inputs give the shape [1,1,2,2], the node declares "
      "[1,1,3,3]");
}

}  // namespace
}  // namespace max_pool_indices_test
}  // namespace nnplan::runtime::reference
