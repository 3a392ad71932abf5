// LRN, local response normalization across channels, as ONNX defines it:
//   y = x / (bias + alpha / size * s)^beta, s the sum of x^2 over the channels
//   [c - floor((size-1)/2), c + ceil((size-1)/2)] that exist,
// over existing kinds: x*x (`mul_elem`), the channel axis moved last (`permute`), zero `const`
// blocks concatenated on its two sides, an `avg_pool` of `size` along it (s / size), the channel
// axis moved back, then `scale` by alpha, `add` of bias, `pow` by beta and a product with the
// inverse (Div's form). float32 throughout; the sum / size then times alpha rounds where ONNX's
// reference multiplies alpha / size by the sum: a few units in the last place apart.
#include <cmath>
#include <vector>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_lrn(ImportContext& cx) {
  cx.allow_attrs({"alpha", "beta", "bias", "size"});
  cx.require_inputs(1, 1);
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  if (xs.rank() < 3) {
    cx.fail("input " + quoted_name(cx.in_name(0)) + " has shape " + to_string(xs) +
            "; LRN takes (N, C, D1, ...)");
  }
  const float alpha = cx.attr_float("alpha", 1e-4F);
  const float beta = cx.attr_float("beta", 0.75F);
  const float bias = cx.attr_float("bias", 1.0F);
  const std::int64_t size = cx.attr_int("size", 0);
  if (size < 1 || size > 0xFFFF) cx.fail("size is " + str(size) + "; it is 1 to 65535");
  if (!std::isfinite(alpha) || !std::isfinite(beta) || !std::isfinite(bias)) {
    cx.unsupported("alpha, beta and bias are " + str(alpha) + ", " + str(beta) + ", " + str(bias) +
                   "; supported: finite numbers");
  }
  const std::size_t r = xs.rank();
  std::vector<std::uint32_t> last(r);  // channels last: 0, 2, ..., r-1, 1
  std::vector<std::uint32_t> back(r);  // and back: 0, r-1, 1, ..., r-2
  last[0] = 0;
  back[0] = 0;
  for (std::size_t a = 1; a + 1 < r; ++a)
    last[a] = static_cast<std::uint32_t>(a + 1);
  last[r - 1] = 1;
  back[1] = static_cast<std::uint32_t>(r - 1);
  for (std::size_t a = 2; a < r; ++a)
    back[a] = static_cast<std::uint32_t>(a - 1);
  const NodeId squares = cx.add(OpKind::mul_elem, {x, x});
  NodeId t = cx.add(OpKind::permute, {squares}, ir::PermuteParams{.perm = last});
  const auto s = static_cast<Dim>(size);
  t = cx.pad_with(t, r - 1, (s - 1) / 2, s / 2, 0.0F);  // floor and ceil of (size - 1) / 2
  t = cx.add(OpKind::avg_pool, {t},
             ir::PoolParams{.spatial_rank = 1,
                            .kernel = {static_cast<std::uint32_t>(size)},
                            .stride = {1},
                            .padding = {0}});
  t = cx.add(OpKind::permute, {t}, ir::PermuteParams{.perm = back});
  t = cx.add(OpKind::scale, {t}, ir::ScaleParams{.factor = alpha});
  t = cx.add(OpKind::add, {t, cx.broadcast(cx.float_scalar(bias), xs)});
  t = cx.add(OpKind::pow, {t, cx.broadcast(cx.float_scalar(beta), xs)});
  cx.define(cx.out_name(0), cx.add(OpKind::mul_elem, {x, cx.add(OpKind::inv, {t})}));
}

}  // namespace nnplan::format::onnx_import
