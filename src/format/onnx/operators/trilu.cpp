// Trilu: the upper (upper = 1, the default) or lower triangle of the last two axes of its input,
// counting from diagonal k (the optional input 1, a constant int64 scalar, default 0; positive k
// is above the main diagonal), with the rest zero (false for bool). Exact and of any dtype: one
// `where` node choosing between the input and a zero scalar of its dtype, under a constant bool
// mask of the last two axes' shape that the kernel broadcasts over the leading axes.
#include <cstdint>
#include <vector>

#include "../constant_folding.hpp"
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_trilu(ImportContext& cx) {
  cx.allow_attrs({"upper"});
  cx.require_inputs(1, 2);
  const std::int64_t upper = cx.attr_int("upper", 1);
  if (upper != 0 && upper != 1) cx.fail("upper is " + str(upper) + "; it is 0 or 1");
  std::int64_t k = 0;
  if (cx.input_count() == 2 && !cx.in_name(1).empty()) {
    const std::vector<std::int64_t> ks = cx.int_constant(cx.in_name(1), "k");
    if (ks.size() != 1) cx.fail("k has " + str(Dim{ks.size()}) + " elements; it is a scalar");
    k = ks[0];
  }
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  if (xs.rank() < 2) {
    cx.fail("input " + quoted_name(cx.in_name(0)) + " has shape " + to_string(xs) +
            "; Trilu takes a tensor of rank 2 or more");
  }
  const Dim rows = xs.dims[xs.rank() - 2];
  const Dim cols = xs.dims[xs.rank() - 1];
  const std::optional<Dim> count = ir::element_count(Shape{{rows, cols}});
  if (!count || *count > kMaxFoldedElements) {
    cx.unsupported("its mask of the last two axes, [" + str(rows) + "," + str(cols) +
                   "], would hold more than " + str(kMaxFoldedElements) +
                   " entries; supported: up to that many");
  }
  const Shape mask_shape{{rows, cols}};
  const NodeId mask = cx.add(OpKind::const_, {}, ir::ConstParams{.value_shape = mask_shape},
                             mask_shape, {}, ir::DType::boolean);
  const ir::DType dtype = cx.ir_node(x).dtype;
  const NodeId zero =
      cx.add(OpKind::const_, {}, ir::ConstParams{.value_shape = Shape{}}, Shape{}, {}, dtype);
  if (cx.keep_payloads()) {
    std::vector<std::uint8_t> keep(static_cast<std::size_t>(*count));
    // Element (i, j) is kept where j - i >= k (upper) or j - i <= k (lower); i and j are at
    // most 2^48, so j - i fits an int64 and any k compares with it.
    for (Dim i = 0; i < rows; ++i) {
      for (Dim j = 0; j < cols; ++j) {
        const auto diff = static_cast<std::int64_t>(j) - static_cast<std::int64_t>(i);
        keep[i * cols + j] = (upper == 1 ? diff >= k : diff <= k) ? 1 : 0;
      }
    }
    cx.set_payload(mask, "value", ir::WeightTensor::of_bools(mask_shape, keep));
    cx.set_payload(zero, "value", ir::WeightTensor::zeros(Shape{}, dtype));
  }
  cx.define(cx.out_name(0), cx.add(OpKind::where, {mask, x, zero}, {}, xs));
}

}  // namespace nnplan::format::onnx_import
