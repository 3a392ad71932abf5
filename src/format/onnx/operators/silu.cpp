// SiLU: exporters write x * sigmoid(x) (torch's nn.SiLU, EfficientNet's activation) as
// `Sigmoid(x) -> Mul(x, .)`, the Mul's operands in either order. Where the Sigmoid's value is read
// by that Mul alone and is no graph output, the two nodes import as one `silu` node, named after
// the Sigmoid, whose value the Mul's output names (the Mul is absorbed: ImportContext::absorb).
// The reference provider computes the same bits as the two nodes would; a convolution followed by
// it is one fused command under fast_cpu. Any other Sigmoid is a `sigmoid` node.
#include <span>
#include <string>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

namespace {

struct SiluMul {
  int index = -1;   // the Mul's graph index; -1 when the current Sigmoid makes no SiLU
  std::string out;  // its output
};

// The Mul that, with the current Sigmoid, makes a SiLU.
SiluMul silu_mul(const ImportContext& cx) {
  if (cx.input_count() != 1 || !cx.has_in(0) || cx.output_count() != 1 ||
      cx.node().attribute_size() != 0) {
    return {};
  }
  const std::string x(cx.in_name(0));
  const std::string s(cx.out_name(0));
  if (s.empty() || !cx.node_of(x) || cx.is_graph_output(s)) return {};
  const std::span<const int> users = cx.consumers(s);
  if (users.size() != 1 || users[0] <= cx.node_index()) return {};
  const onnx::NodeProto* m = cx.peek_node(users[0]);
  if (m == nullptr || m->op_type() != "Mul" || !is_default_domain(m->domain()) ||
      m->attribute_size() != 0 || m->input_size() != 2 || m->output_size() != 1 ||
      m->output(0).empty()) {
    return {};
  }
  const bool pair =
      (m->input(0) == x && m->input(1) == s) || (m->input(0) == s && m->input(1) == x);
  if (!pair) return {};
  return {.index = users[0], .out = m->output(0)};
}

}  // namespace

void import_sigmoid_or_silu(ImportContext& cx) {
  const SiluMul mul = silu_mul(cx);
  if (mul.index < 0) {
    import_unary(cx, ir::OpKind::sigmoid);
    return;
  }
  const ir::NodeId silu = cx.add(ir::OpKind::silu, {cx.tensor(cx.in_name(0))});
  cx.absorb(mul.index, mul.out, silu);
}

}  // namespace nnplan::format::onnx_import
