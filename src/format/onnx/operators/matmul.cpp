// MatMul: by a constant matrix B, a `linear` node whose weight is B seen transposed; otherwise
// `matmul` on 2-D operands, or on 3-D operands whose leading (batch) dimensions are broadcast and
// flattened, with rank-1 operands promoted and their dimension removed again, as numpy does.
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_mat_mul(ImportContext& cx) {
  cx.allow_attrs({});
  cx.require_inputs(2, 2);
  if (import_attention(cx)) return;
  const Shape as = cx.tensor_shape(cx.in_name(0));
  ConstPtr bc = cx.constant(cx.in_name(1));
  if (bc != nullptr && bc->dims.size() == 2 && as.rank() >= 2) {
    // x · B with a constant B [in,out] is a linear layer with weight B transposed [out,in].
    cx.require_float(*bc);
    const Dim n = bc->dims[0];
    const Dim p = bc->dims[1];
    if (as.dims.back() != n) {
      cx.fail("inner dimensions differ: " + to_string(as) + " x " + list_string(bc->dims));
    }
    const NodeId a = cx.tensor(cx.in_name(0));
    // B's bytes seen transposed (a strided view, no copy).
    ir::WeightTensor w = cx.payload_tensor_transposed(bc, Shape{{n, p}}, cx.in_name(1));
    Shape out = as;
    out.dims.back() = p;
    const NodeId id = cx.add(OpKind::linear, {a}, {}, out);
    cx.set_payload(id, "weight", std::move(w));
    cx.define(cx.out_name(0), id);
    return;
  }
  NodeId a = cx.tensor(cx.in_name(0));
  NodeId b = cx.tensor(cx.in_name(1));
  Shape sa = cx.shape_of(a);
  Shape sb = cx.shape_of(b);
  if (sa.rank() == 0 || sb.rank() == 0) cx.fail("MatMul operands must have rank at least 1");
  const bool a_vec = sa.rank() == 1;
  const bool b_vec = sb.rank() == 1;
  if (a_vec) sa.dims.insert(sa.dims.begin(), 1);
  if (b_vec) sb.dims.push_back(1);
  a = cx.reshape(a, sa);
  b = cx.reshape(b, sb);
  const Dim m = sa.dims[sa.rank() - 2];
  const Dim n = sa.dims.back();
  const Dim p = sb.dims.back();
  if (sb.dims[sb.rank() - 2] != n) {
    cx.fail("inner dimensions differ: " + to_string(cx.shape_of(a)) + " x " +
            to_string(cx.shape_of(b)));
  }
  NodeId mm = 0;
  Shape result;
  if (sa.rank() == 2 && sb.rank() == 2) {
    mm = cx.add(OpKind::matmul, {a, b});
    result = cx.shape_of(mm);
  } else {
    const Shape batch = cx.broadcast_shapes(Shape{{sa.dims.begin(), sa.dims.end() - 2}},
                                            Shape{{sb.dims.begin(), sb.dims.end() - 2}});
    Dim count = 1;
    for (const Dim d : batch.dims)
      count *= d;
    Shape fa = batch;
    fa.dims.insert(fa.dims.end(), {m, n});
    Shape fb = batch;
    fb.dims.insert(fb.dims.end(), {n, p});
    a = cx.reshape(cx.broadcast(a, fa), Shape{{count, m, n}});
    b = cx.reshape(cx.broadcast(b, fb), Shape{{count, n, p}});
    mm = cx.add(OpKind::matmul, {a, b});
    result = batch;
    result.dims.insert(result.dims.end(), {m, p});
  }
  if (a_vec) result.dims.erase(result.dims.end() - 2);
  if (b_vec) result.dims.pop_back();
  cx.define(cx.out_name(0), cx.reshape(mm, result));
}

}  // namespace nnplan::format::onnx_import
