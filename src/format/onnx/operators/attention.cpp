// Scaled dot-product attention as exporters write it: MatMul(q, kT), optionally scaled by a
// constant scalar (Mul, or Div of the scores), optionally masked causally (Where(mask, -inf, ·)
// with a constant mask that allows exactly j <= i on square scores), Softmax over the last axis,
// and MatMul(·, v). When every intermediate has exactly that one consumer and q, kT and v have one
// rank (at least 2) and equal leading axes, the whole chain is one scaled_dot_product_attention
// node over q, k = kT with its last two axes swapped back, and v; the later nodes are absorbed.
// A scaling done on q before the first MatMul (torch's nn.MultiheadAttention divides q by
// sqrt(E)) stays the IR nodes it was imported as, and the attention's scale is then 1. Anything
// else is left to the plain MatMul, Softmax and Where importers.
#include <cmath>
#include <numeric>
#include <optional>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

// The one node consuming tensor `name` (not a graph output), if that is how it is used.
std::optional<int> sole_consumer(const ImportContext& cx, std::string_view name) {
  const std::span<const int> users = cx.consumers(name);
  if (users.size() != 1 || cx.is_graph_output(name)) return std::nullopt;
  return users[0];
}

// The value of a constant float scalar (any rank, one element) named `name`, if it is one.
std::optional<float> scalar_of(const ImportContext& cx, const std::string& name) {
  const ConstPtr c = cx.constant(name);
  // Rank 0 or 1: a broadcast of it never raises the rank of the scores (rank 2 or more).
  if (c == nullptr || c->dtype != onnx::TensorProto_DataType_FLOAT || c->dims.size() > 1) {
    return std::nullopt;
  }
  const std::vector<float>& v = floats_of(*c);
  if (v.size() != 1) return std::nullopt;
  return v[0];
}

}  // namespace

bool import_attention(ImportContext& cx) {
  if (cx.input_count() != 2 || cx.output_count() != 1 || cx.node().attribute_size() != 0 ||
      cx.constant(cx.in_name(1)) != nullptr) {
    return false;
  }
  const std::optional<NodeId> q = cx.node_of(cx.in_name(0));
  const std::optional<NodeId> kt = cx.node_of(cx.in_name(1));
  if (!q || !kt) return false;
  const Shape qs = cx.shape_of(*q);
  const Shape ks = cx.shape_of(*kt);
  const std::size_t r = qs.rank();
  if (r < 2 || ks.rank() != r || qs.dims[r - 1] != ks.dims[r - 2]) return false;
  for (std::size_t i = 0; i + 2 < r; ++i)
    if (qs.dims[i] != ks.dims[i]) return false;
  Shape scores = qs;
  scores.dims[r - 1] = ks.dims[r - 1];

  std::vector<int> absorbed;
  std::string out(cx.out_name(0));
  std::optional<float> scale;
  bool causal = false;
  std::optional<int> next = sole_consumer(cx, out);
  if (!next) return false;
  // Walks on to the node consuming `out`: records it and moves `out` to its first output.
  const auto advance = [&](const onnx::NodeProto& n) {
    absorbed.push_back(*next);
    out = n.output(0);
    next = sole_consumer(cx, out);
  };
  const auto plain = [](const onnx::NodeProto& n, int inputs) {
    return is_default_domain(n.domain()) && n.input_size() == inputs && n.output_size() == 1;
  };
  if (const onnx::NodeProto& n = cx.other_node(*next);
      plain(n, 2) && n.attribute_size() == 0 && (n.op_type() == "Mul" || n.op_type() == "Div")) {
    const bool first = n.input(0) == out;
    const std::optional<float> c = scalar_of(cx, first ? n.input(1) : n.input(0));
    if (!c) return false;
    // Dividing by c equals multiplying by 1/c exactly only when c is a power of two.
    int exponent = 0;
    const bool power_of_two = std::isfinite(*c) && std::frexp(std::fabs(*c), &exponent) == 0.5F;
    if (n.op_type() == "Div" && (!first || !power_of_two)) return false;
    scale = n.op_type() == "Div" ? 1.0F / *c : *c;
    advance(n);
    if (!next) return false;
  }
  if (const onnx::NodeProto& n = cx.other_node(*next);
      plain(n, 3) && n.attribute_size() == 0 && n.op_type() == "Where") {
    // Only the causal mask: allowed exactly where j <= i on square [L, L] scores.
    const ConstPtr cond = cx.constant(n.input(0));
    if (cond == nullptr || cond->dtype != onnx::TensorProto_DataType_BOOL) return false;
    int blocked = 0;
    for (int i = 1; i <= 2 && blocked == 0; ++i) {
      if (const ConstPtr c = cx.constant(n.input(i)); c != nullptr && blocks(*c)) blocked = i;
    }
    if (blocked == 0 || n.input(3 - blocked) != out) return false;
    const Dim l = scores.dims[r - 2];
    if (l != scores.dims[r - 1] || Shape{cx.constant(n.input(blocked))->dims}.rank() > r ||
        ir::element_count(Shape{cx.constant(n.input(blocked))->dims}).value_or(0) != 1) {
      return false;
    }
    const std::vector<Dim>& cd = cond->dims;
    if (cd.size() < 2 || cd.size() > r || cd[cd.size() - 1] != l || cd[cd.size() - 2] != l ||
        std::accumulate(cd.begin(), cd.end() - 2, Dim{1}, std::multiplies<>()) != 1) {
      return false;
    }
    for (Dim i = 0; i < l; ++i) {
      for (Dim j = 0; j < l; ++j) {
        const bool first = cond->ints[i * l + j] != 0;
        if ((blocked == 1 ? !first : first) != (j <= i)) return false;
      }
    }
    causal = true;
    advance(n);
    if (!next) return false;
  }
  {
    const onnx::NodeProto& n = cx.other_node(*next);
    if (!plain(n, 1) || n.op_type() != "Softmax") return false;
    std::int64_t axis = cx.opset() >= 13 ? -1 : 1;
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.name() != "axis") return false;
      axis = a.i();
    }
    if (axis != -1 && axis != static_cast<std::int64_t>(r) - 1) return false;
    advance(n);
    if (!next) return false;
  }
  const onnx::NodeProto& mm = cx.other_node(*next);
  if (!plain(mm, 2) || mm.op_type() != "MatMul" || mm.input(0) != out || mm.input(1) == out) {
    return false;
  }
  const std::optional<NodeId> v = cx.node_of(mm.input(1));
  if (!v) return false;
  const Shape vs = cx.shape_of(*v);
  if (vs.rank() != r || vs.dims[r - 2] != scores.dims[r - 1]) return false;
  for (std::size_t i = 0; i + 2 < r; ++i)
    if (vs.dims[i] != qs.dims[i]) return false;
  const std::string result = mm.output(0);
  absorbed.push_back(*next);

  std::vector<std::uint32_t> perm(r);
  std::iota(perm.begin(), perm.end(), 0U);
  std::swap(perm[r - 1], perm[r - 2]);
  const NodeId k = cx.add(OpKind::permute, {*kt}, ir::PermuteParams{.perm = perm});
  const NodeId id = cx.add(OpKind::scaled_dot_product_attention, {*q, k, *v},
                           ir::AttentionParams{.causal = causal, .scale = scale.value_or(1.0F)});
  for (std::size_t i = 0; i + 1 < absorbed.size(); ++i)
    cx.absorb(absorbed[i]);
  cx.absorb(absorbed.back(), result, id);
  return true;
}

}  // namespace nnplan::format::onnx_import
