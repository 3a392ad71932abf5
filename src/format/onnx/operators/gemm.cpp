// Gemm (Y = alpha * A'·B' + beta * C, A' and B' transposed under transA and transB): A permuted
// first under transA; with a constant B, a `linear` node whose weight is B as [out,in] and whose
// bias is C when C is a constant row and alpha and beta are 1; otherwise `matmul` (B permuted for
// transB = 1). The product is scaled by alpha and C by beta where they are not 1 (each a
// `scale`, rounded as ONNX's reference computes alpha * (A·B) + beta * C), and C, when not folded,
// added after broadcasting.
#include <optional>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_gemm(ImportContext& cx) {
  cx.allow_attrs({"alpha", "beta", "transA", "transB", "broadcast"});
  cx.require_inputs(2, 3);
  const std::int64_t trans_a = cx.attr_int("transA", 0);
  const std::int64_t trans_b = cx.attr_int("transB", 0);
  const float alpha = cx.attr_float("alpha", 1.0f);
  const float beta = cx.attr_float("beta", 1.0f);
  if (trans_a != 0 && trans_a != 1) cx.fail_attr("transA", str(trans_a), "0, 1");
  if (trans_b != 0 && trans_b != 1) cx.fail_attr("transB", str(trans_b), "0, 1");
  NodeId a = cx.tensor(cx.in_name(0));
  if (cx.shape_of(a).rank() != 2)
    cx.fail("input A " + to_string(cx.shape_of(a)) + " is not a matrix");
  if (trans_a != 0) a = cx.add(OpKind::permute, {a}, ir::PermuteParams{.perm = {1, 0}});
  const Shape sa = cx.shape_of(a);
  const bool scaled = alpha != 1.0f || beta != 1.0f;
  const Dim k = sa.dims[1];
  NodeId y = 0;
  ConstPtr bc = cx.constant(cx.in_name(1));
  bool bias_done = false;
  if (bc != nullptr) {
    cx.require_float(*bc);
    if (bc->dims.size() != 2) cx.fail("input B " + list_string(bc->dims) + " is not a matrix");
    const Dim n = trans_b != 0 ? bc->dims[0] : bc->dims[1];
    const Dim kb = trans_b != 0 ? bc->dims[1] : bc->dims[0];
    if (kb != k) {
      cx.fail("inner dimensions differ: " + to_string(sa) + " x " + list_string(bc->dims) +
              " (transB = " + str(trans_b) + ")");
    }
    // B as linear's [out, in] weight: as it is under transB, else its bytes seen transposed (a
    // strided view, no copy).
    const ir::WeightTensor w = trans_b != 0
                                   ? cx.payload_tensor(bc, Shape{{n, k}}, cx.in_name(1))
                                   : cx.payload_tensor_transposed(bc, Shape{{k, n}}, cx.in_name(1));
    std::optional<ir::WeightTensor> bias;
    if (ConstPtr cc = cx.has_in(2) && !scaled ? cx.constant(cx.in_name(2)) : nullptr;
        cc != nullptr) {
      cx.require_float(*cc);
      Dim count = 1;
      for (const Dim d : cc->dims)
        count *= d;
      const bool row = cc->dims.empty() || cc->dims.back() == n || cc->dims.back() == 1;
      bool leading_ones = true;
      for (std::size_t i = 0; i + 1 < cc->dims.size(); ++i)
        leading_ones = leading_ones && cc->dims[i] == 1;
      if (row && leading_ones && cc->dims.size() <= 2) {
        bias = ir::WeightTensor();
        if (cx.keep_payloads()) {
          const std::vector<float>& b = floats_of(*cc);
          std::vector<float> values(n);
          for (Dim j = 0; j < n; ++j)
            values[j] = b[count == 1 ? 0 : j];
          bias = cx.payload_values(Shape{{n}}, std::move(values));
        }
        bias_done = true;
      }
    }
    const Shape out{{sa.dims[0], n}};
    y = cx.add(OpKind::linear, {a}, {}, out);
    cx.set_payload(y, "weight", w);
    if (bias) cx.set_payload(y, "bias", std::move(*bias));
  } else {
    NodeId b = cx.tensor(cx.in_name(1));
    if (cx.shape_of(b).rank() != 2) {
      cx.fail("input B " + to_string(cx.shape_of(b)) + " is not a matrix");
    }
    if (trans_b != 0) b = cx.add(OpKind::permute, {b}, ir::PermuteParams{.perm = {1, 0}});
    y = cx.add(OpKind::matmul, {a, b});
  }
  if (alpha != 1.0f) y = cx.add(OpKind::scale, {y}, ir::ScaleParams{.factor = alpha});
  if (cx.has_in(2) && !bias_done) {
    NodeId c = cx.tensor(cx.in_name(2));
    const Shape out = cx.shape_of(y);
    if (cx.broadcast_shapes(cx.shape_of(c), out) != out) {
      cx.fail("input C " + to_string(cx.shape_of(c)) + " does not broadcast to " + to_string(out));
    }
    if (beta != 1.0f) c = cx.add(OpKind::scale, {c}, ir::ScaleParams{.factor = beta});
    c = cx.broadcast(c, out);
    y = cx.add(OpKind::add, {y, c});
  }
  cx.define(cx.out_name(0), y);
}

}  // namespace nnplan::format::onnx_import
