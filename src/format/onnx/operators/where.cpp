// Where: the condition, then the values taken where it is true and where it is false.
//
// As exporters write a causal or padding mask, Where(mask, -inf, scores) (or Where(mask, scores,
// -inf)) with a constant boolean mask whose only consumer is a Softmax over the last axis is one
// `hard_masked_softmax` node standing for both; the Softmax is absorbed. The blocking value may be
// -inf or the lowest float, either of which softmax turns into an exact zero weight. Every other
// Where is one `where` node over the three operands, which broadcast as numpy does (a constant
// operand a `const` node of its dtype); Where over constants folds at import time and never gets
// here.
#include <limits>
#include <optional>

#include "../constant_folding.hpp"
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

bool blocks(ConstTensor& c) {
  if (c.dtype != onnx::TensorProto_DataType_FLOAT) return false;
  const std::vector<float>& v = floats_of(c);
  return !v.empty() && std::ranges::all_of(v, [](float f) {
    return f == -std::numeric_limits<float>::infinity() ||
           f == std::numeric_limits<float>::lowest();
  });
}

namespace {

// The hard_masked_softmax pattern above, when the node is one: its node added and the Softmax
// absorbed. False, adding nothing, when it is not.
bool import_masked_softmax(ImportContext& cx) {
  // Each test below says which part of the pattern is missing.
  const auto refuse = [](const std::string& /*which_part_is_missing*/) { return false; };
  const ConstPtr cond = cx.constant(cx.in_name(0));
  if (cond == nullptr) return refuse("the condition is not a constant");
  if (cond->dtype != onnx::TensorProto_DataType_BOOL) return refuse("the condition is not bool");
  // `blocked` is the input (1 or 2) holding the blocking constant; the other holds the scores.
  int blocked = 0;
  for (int i = 1; i <= 2 && blocked == 0; ++i) {
    if (const ConstPtr c = cx.constant(cx.in_name(i)); c != nullptr && blocks(*c)) blocked = i;
  }
  if (blocked == 0) return refuse("neither branch is a constant -inf");
  const std::string_view scores_name = cx.in_name(3 - blocked);
  const NodeId x = cx.tensor(scores_name);
  const Shape xs = cx.shape_of(x);
  if (xs.rank() == 0) return refuse("the scores are a scalar");
  const Shape cs{cond->dims};
  const Shape bs{cx.constant(cx.in_name(blocked))->dims};
  if (cx.broadcast_shapes(cx.broadcast_shapes(cs, bs), xs) != xs) {
    return refuse("the condition " + to_string(cs) + " or the -inf " + to_string(bs) +
                  " broadcasts the scores " + to_string(xs) + " to a larger shape");
  }
  const std::string_view out = cx.out_name(0);
  const std::span<const int> users = cx.consumers(out);
  if (users.size() != 1 || cx.is_graph_output(out)) {
    return refuse("its output " + quoted_name(out) + " has " + str(Dim{users.size()}) +
                  " consumers" + (cx.is_graph_output(out) ? " and is a graph output" : ""));
  }
  const onnx::NodeProto& sm = cx.other_node(users[0]);
  if (sm.op_type() != "Softmax" || !is_default_domain(sm.domain()) || sm.input_size() != 1 ||
      sm.output_size() != 1) {
    return refuse("its output feeds " + capped_name(sm.op_type()) + ", not a Softmax");
  }
  std::int64_t axis = cx.opset() >= 13 ? -1 : 1;
  for (const onnx::AttributeProto& a : sm.attribute()) {
    if (a.name() != "axis") return refuse("the Softmax has attribute " + quoted_name(a.name()));
    axis = a.i();
  }
  const auto rank = static_cast<std::int64_t>(xs.rank());
  if (axis != -1 && axis != rank - 1) {
    return refuse("the Softmax is over axis " + str(axis) + ", not the last axis of " +
                  to_string(xs));
  }
  const std::string softmax_out = sm.output(0);

  // The mask covers the trailing axes of the scores that the condition spans once its leading
  // 1-dims are dropped (at least the last axis); the condition broadcasts over it.
  std::size_t lead = 0;
  while (lead < cs.rank() && cs.dims[lead] == 1)
    ++lead;
  const std::size_t k = std::max<std::size_t>(cs.rank() - lead, 1);
  Shape mask{ir::Dims(xs.dims.end() - static_cast<std::ptrdiff_t>(k), xs.dims.end())};
  const std::optional<Dim> elements = ir::element_count(mask);
  // The mask is a parameter held in the graph: as large as a folded constant may be.
  if (!elements || *elements > kMaxFoldedElements) {
    return refuse("the mask " + to_string(mask) + " would hold more than " +
                  str(kMaxFoldedElements) + " entries");
  }
  const Dim count = *elements;
  const Dim row = mask.dims[k - 1];
  std::vector<bool> allowed(count);
  for (Dim e = 0; e < count; ++e) {
    // The condition's element for mask element `e`: its axes align right against the mask's.
    Dim rest = e;
    Dim index = 0;
    Dim stride = 1;
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t axis_from_end = i;
      const Dim extent = mask.dims[k - 1 - i];
      const Dim coord = rest % extent;
      rest /= extent;
      if (axis_from_end < cs.rank()) {
        const Dim c_extent = cs.dims[cs.rank() - 1 - axis_from_end];
        index += (c_extent == 1 ? 0 : coord) * stride;
        stride *= c_extent;
      }
    }
    const bool selects_first = cond->ints[index] != 0;
    allowed[e] = blocked == 1 ? !selects_first : selects_first;
  }
  // A row the mask blocks everywhere is NaN in ONNX (softmax of -inf alone) but zeros in
  // hard_masked_softmax, so such a mask is not this pattern.
  for (Dim r = 0; row != 0 && r < count / row; ++r) {
    bool any = false;
    for (Dim j = 0; j < row && !any; ++j)
      any = allowed[r * row + j];
    if (!any) {
      return refuse("row " + str(r) +
                    " of the mask blocks every position, where ONNX gives NaN and "
                    "hard_masked_softmax zeros");
    }
  }
  const NodeId id = cx.add(OpKind::hard_masked_softmax, {x},
                           ir::MaskParams{.shape = mask, .allowed = std::move(allowed)});
  cx.absorb(users[0], softmax_out, id);
  return true;
}

}  // namespace

void import_where(ImportContext& cx) {
  cx.allow_attrs({});
  cx.require_inputs(3, 3);
  if (const ConstPtr cond = cx.constant(cx.in_name(0));
      cond != nullptr && cond->dtype != onnx::TensorProto_DataType_BOOL) {
    cx.fail("condition " + quoted_name(cx.in_name(0)) + " has data type " +
            dtype_name(cond->dtype) + ", expected bool");
  }
  if (import_masked_softmax(cx)) return;
  import_broadcasting(cx, OpKind::where);
}

}  // namespace nnplan::format::onnx_import
