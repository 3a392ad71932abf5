// The constant-folding evaluators: each computes the one output of the node FoldArgs holds, as
// ONNX defines it, from constant inputs (Shape and Size from a static shape), or fails naming the
// reason. One file per family; constant_folding.cpp maps op types to them.
#pragma once

#include "../tensor_decoding.hpp"
#include "fold_args.hpp"

namespace nnplan::format::onnx_import::folding {

// shape_ops.cpp: Shape (start and end from opset 15), Size, Reshape (0 copies a dimension, or
// with allowzero is a 0; one -1 inferred), Squeeze and Unsqueeze (axes from the input from opset
// 13, the attribute before), ConstantOfShape, Range.
ConstTensor fold_shape(FoldArgs& a);
ConstTensor fold_size(FoldArgs& a);
ConstTensor fold_reshape(FoldArgs& a);
ConstTensor fold_squeeze(FoldArgs& a);
ConstTensor fold_unsqueeze(FoldArgs& a);
ConstTensor fold_constant_of_shape(FoldArgs& a);
ConstTensor fold_range(FoldArgs& a);

// indexing_ops.cpp: Gather, Slice (attributes before opset 10, inputs from 10), Concat,
// Transpose, Expand.
ConstTensor fold_gather(FoldArgs& a);
ConstTensor fold_slice(FoldArgs& a);
ConstTensor fold_concat(FoldArgs& a);
ConstTensor fold_transpose(FoldArgs& a);
ConstTensor fold_expand(FoldArgs& a);

// elementwise_ops.cpp, all with numpy broadcasting: Add, Sub, Mul, Div (integers overflow-checked,
// division truncating toward zero), Mod (fmod 0 and 1), Equal, Less, Greater, And, Or, Not, Where,
// Cast, and the unary Abs, Neg, Sqrt, Reciprocal, Exp, Log.
ConstTensor fold_add(FoldArgs& a);
ConstTensor fold_sub(FoldArgs& a);
ConstTensor fold_mul(FoldArgs& a);
ConstTensor fold_div(FoldArgs& a);
ConstTensor fold_mod(FoldArgs& a);
ConstTensor fold_equal(FoldArgs& a);
ConstTensor fold_less(FoldArgs& a);
ConstTensor fold_greater(FoldArgs& a);
ConstTensor fold_and(FoldArgs& a);
ConstTensor fold_or(FoldArgs& a);
ConstTensor fold_not(FoldArgs& a);
ConstTensor fold_where(FoldArgs& a);
ConstTensor fold_cast(FoldArgs& a);
ConstTensor fold_abs(FoldArgs& a);
ConstTensor fold_neg(FoldArgs& a);
ConstTensor fold_sqrt(FoldArgs& a);
ConstTensor fold_reciprocal(FoldArgs& a);
ConstTensor fold_exp(FoldArgs& a);
ConstTensor fold_log(FoldArgs& a);

}  // namespace nnplan::format::onnx_import::folding
