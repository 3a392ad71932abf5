// GELU: the Gelu operator (opset 20), and the element-wise patterns exporters write for it before
// opset 20, each imported as one `gelu` node:
// - exact, as torch.onnx writes it: `Div(x, sqrt(2)) -> Erf -> Add(., 1) -> Mul(x, .) ->
//   Mul(., 0.5)`, with Mul(x, 1/sqrt(2)) for the Div, and with the 0.5 applied to x first:
//   `Mul(Mul(x, 0.5), Add(Erf(..), 1))`;
// - tanh: `0.5*x*(1 + Tanh(sqrt(2/pi)*(x + 0.044715*x^3)))` with x^3 written Pow(x, 3) or as x*x*x
//   (torch writes Mul(x, Mul(x, x))), in the same two arrangements of the 0.5.
// Add and Mul are matched with their operands in either order. The constants must be float
// scalars (of rank at most x's): 0.5, 1 and the exponent 3 exactly; sqrt(2), 1/sqrt(2),
// sqrt(2/pi) and 0.044715, which exporters round to float, within 1e-6 relative. Every
// intermediate result must be consumed once, by the pattern's next node, and be no graph output.
//
// The importer tries the match at a node that can start a pattern (a Div or Mul by one of the
// constants, Mul(x, x), Pow(x, 3)): it follows the chain of single consumers from that node to the
// final Mul and matches the whole pattern backwards from there. It matches only when the current
// node is the pattern's first in graph order, so no node of it has been imported yet; the other
// nodes are then absorbed into it (ImportContext::absorb), the final Mul's output naming the
// gelu node. Constants the pattern reads that come later in the graph (torch writes a Constant node
// just before each use) are decoded ahead without being imported. Anything else falls back to the
// node-by-node import, where Erf is an `erf` node of its own.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::GeluApproximation;
using ir::NodeId;
using ir::OpKind;

namespace {

constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kInvSqrt2 = 0.7071067811865476;
constexpr double kSqrt2OverPi = 0.7978845608028654;
constexpr double kKappa = 0.044715;
constexpr double kRounded = 1e-6;  // relative tolerance of a constant exporters round to float
constexpr int kLongestChain = 10;  // more nodes than the longest pattern (tanh with x*x*x: 10)

// A graph node as the matcher keeps it: copied out of the reused message it was parsed into.
struct Seen {
  int index = -1;
  std::string op;
  std::vector<std::string> in;
  std::string out;
};

// The value of a float scalar constant `name`, whether already imported or the output of a later
// Constant node; its rank in `rank`.
std::optional<float> scalar_value(const ImportContext& cx, const std::string& name,
                                  std::size_t& rank) {
  ConstPtr c = cx.constant(name);
  if (c == nullptr) {
    const int p = cx.producer(name);
    if (p <= cx.node_index()) return std::nullopt;
    const onnx::NodeProto* n = cx.peek_node(p);
    if (n == nullptr || n->op_type() != "Constant" || !is_default_domain(n->domain()) ||
        n->attribute_size() != 1 || n->input_size() != 0) {
      return std::nullopt;
    }
    const onnx::AttributeProto& a = n->attribute(0);
    if (a.name() == "value_float") {
      rank = 0;
      return a.f();
    }
    if (a.name() != "value" || !a.has_t()) return std::nullopt;
    auto decoded = decode_tensor(a.t(), name, /*stable=*/false);
    if (!decoded) return std::nullopt;  // reported when the import reaches that node
    c = std::move(*decoded);
  }
  rank = c->dims.size();
  if (c->dtype == onnx::TensorProto_DataType_INT64 ||
      c->dtype == onnx::TensorProto_DataType_INT32) {
    // Pow's exponent may be an integer.
    if (c->ints.size() != 1) return std::nullopt;
    return static_cast<float>(c->ints[0]);
  }
  if (c->dtype != onnx::TensorProto_DataType_FLOAT) return std::nullopt;
  const std::vector<float>& v = floats_of(*c);
  if (v.size() != 1) return std::nullopt;
  return v[0];
}

class GeluMatcher {
 public:
  explicit GeluMatcher(ImportContext& cx) : cx_(cx) {}

  // Whether the nodes ending at `root` are a GELU that starts at the current node.
  std::optional<GeluApproximation> match(const Seen& root) {
    for (const GeluApproximation form : {GeluApproximation::none, GeluApproximation::tanh}) {
      form_ = form;
      x_.clear();
      nodes_.clear();
      max_const_rank_ = 0;
      if (gelu(root) && whole(root)) return form;
    }
    return std::nullopt;
  }
  const std::string& x() const { return x_; }
  const std::vector<Seen>& nodes() const { return nodes_; }

  // Graph node `index` when it is a default-domain node without attributes, of one output, that
  // the import has not reached yet (or the current node).
  std::optional<Seen> seen(int index) const {
    if (index < cx_.node_index()) return std::nullopt;
    const onnx::NodeProto* n = index == cx_.node_index() ? &cx_.node() : cx_.peek_node(index);
    if (n == nullptr || !is_default_domain(n->domain()) || n->attribute_size() != 0 ||
        n->output_size() != 1 || n->output(0).empty()) {
      return std::nullopt;
    }
    return Seen{.index = index,
                .op = n->op_type(),
                .in = std::vector<std::string>(n->input().begin(), n->input().end()),
                .out = n->output(0)};
  }

 private:
  // The producer of `name` when it is an `op` node of `inputs` inputs; recorded as matched.
  std::optional<Seen> node(const std::string& name, std::string_view op, std::size_t inputs) {
    std::optional<Seen> n = seen(cx_.producer(name));
    if (!n || n->op != op || n->in.size() != inputs) return std::nullopt;
    for (const std::string& in : n->in)
      if (in.empty()) return std::nullopt;
    nodes_.push_back(*n);
    return n;
  }

  bool is_x(const std::string& name) {
    if (!x_.empty()) return name == x_;
    if (!cx_.node_of(name)) return false;  // x is an IR node defined before the pattern
    x_ = name;
    return true;
  }

  bool is_const(const std::string& name, double value, double tolerance) {
    std::size_t rank = 0;
    const std::optional<float> v = scalar_value(cx_, name, rank);
    if (!v) return false;
    max_const_rank_ = std::max(max_const_rank_, rank);
    return tolerance == 0 ? *v == value : std::abs(*v - value) <= tolerance * std::abs(value);
  }

  // Runs `f`, undoing what it matched when it fails.
  template <class F>
  bool attempt(F f) {
    const std::size_t n = nodes_.size();
    const std::string x = x_;
    if (f()) return true;
    nodes_.resize(n);
    x_ = x;
    return false;
  }

  // `a op b` where `a` and `b` match either way round.
  template <class A, class B>
  bool either(const Seen& n, A a, B b) {
    return attempt([&] { return a(n.in[0]) && b(n.in[1]); }) ||
           attempt([&] { return a(n.in[1]) && b(n.in[0]); });
  }
  auto constant(double value, double tolerance = 0) {
    return [this, value, tolerance](const std::string& s) { return is_const(s, value, tolerance); };
  }
  auto input() {
    return [this](const std::string& s) { return is_x(s); };
  }

  // The final Mul: Mul(Mul(x, A), 0.5) or Mul(Mul(x, 0.5), A), A the branch of the form.
  bool gelu(const Seen& root) {
    if (root.op != "Mul" || root.in.size() != 2) return false;
    nodes_.push_back(root);
    const auto half_after = [&](const std::string& s) {
      const auto p = node(s, "Mul", 2);
      return p && either(*p, input(), [&](const std::string& a) { return branch(a); });
    };
    const auto half_first = [&](const std::string& s) {
      const auto h = node(s, "Mul", 2);
      return h && either(*h, input(), constant(0.5));
    };
    return either(root, half_after, constant(0.5)) ||
           either(root, half_first, [&](const std::string& a) { return branch(a); });
  }

  // Add(Erf(x / sqrt(2)), 1) or Add(Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)), 1).
  bool branch(const std::string& name) {
    const auto a = node(name, "Add", 2);
    if (!a) return false;
    if (form_ == GeluApproximation::none) {
      return either(
          *a, [&](const std::string& s) { return erf(s); }, constant(1));
    }
    return either(
        *a, [&](const std::string& s) { return tanh(s); }, constant(1));
  }

  bool erf(const std::string& name) {
    const auto e = node(name, "Erf", 1);
    if (!e) return false;
    if (const auto d = node(e->in[0], "Div", 2)) {
      return is_x(d->in[0]) && is_const(d->in[1], kSqrt2, kRounded);
    }
    const auto m = node(e->in[0], "Mul", 2);
    return m && either(*m, input(), constant(kInvSqrt2, kRounded));
  }

  bool tanh(const std::string& name) {
    const auto t = node(name, "Tanh", 1);
    const auto s = t ? node(t->in[0], "Mul", 2) : std::nullopt;
    return s && either(
                    *s,
                    [&](const std::string& i_name) {
                      const auto i = node(i_name, "Add", 2);
                      return i && either(*i, input(), [&](const std::string& k_name) {
                               const auto k = node(k_name, "Mul", 2);
                               return k && either(
                                               *k, [&](const std::string& c) { return cube(c); },
                                               constant(kKappa, kRounded));
                             });
                    },
                    constant(kSqrt2OverPi, kRounded));
  }

  // Pow(x, 3), or x*x*x as Mul(x, Mul(x, x)) either way round.
  bool cube(const std::string& name) {
    if (const auto p = node(name, "Pow", 2)) return is_x(p->in[0]) && is_const(p->in[1], 3, 0);
    const auto c = node(name, "Mul", 2);
    return c && either(*c, input(), [&](const std::string& q_name) {
             const auto q = node(q_name, "Mul", 2);
             return q && is_x(q->in[0]) && is_x(q->in[1]);
           });
  }

  // The matched nodes are the current one and later ones, each once; every result but the root's
  // is consumed once, by a node of the pattern, and is no graph output; the constants broadcast
  // into x without changing its shape.
  bool whole(const Seen& root) const {
    std::vector<int> indices;
    for (const Seen& n : nodes_)
      indices.push_back(n.index);
    std::sort(indices.begin(), indices.end());
    if (std::adjacent_find(indices.begin(), indices.end()) != indices.end()) return false;
    if (indices.front() != cx_.node_index()) return false;
    for (const Seen& n : nodes_) {
      if (n.index == root.index) continue;
      const std::span<const int> users = cx_.consumers(n.out);
      if (cx_.is_graph_output(n.out) || users.size() != 1 ||
          !std::binary_search(indices.begin(), indices.end(), users[0])) {
        return false;
      }
    }
    const std::optional<NodeId> x = cx_.node_of(x_);
    return x && max_const_rank_ <= cx_.shape_of(*x).rank();
  }

  ImportContext& cx_;
  GeluApproximation form_ = GeluApproximation::none;
  std::string x_;
  std::vector<Seen> nodes_;
  std::size_t max_const_rank_ = 0;
};

// Whether the current node can start a GELU pattern: a Div or Mul by one of its constants (known
// by now: the current node's inputs are defined before it), Mul(x, x), or Pow(x, 3).
bool may_start_gelu(const ImportContext& cx) {
  if (cx.input_count() != 2 || !cx.has_in(0) || !cx.has_in(1) || cx.output_count() != 1 ||
      cx.node().attribute_size() != 0) {
    return false;
  }
  const auto near = [](std::optional<float> v, double ref, double tolerance) {
    return v && std::abs(*v - ref) <= tolerance * std::abs(ref);
  };
  const auto value = [&](int i) -> std::optional<float> {
    if (cx.constant(cx.in_name(i)) == nullptr) return std::nullopt;  // no look-ahead here
    std::size_t rank = 0;
    return scalar_value(cx, std::string(cx.in_name(i)), rank);
  };
  if (cx.op_type() == "Div") return near(value(1), kSqrt2, kRounded);
  if (cx.op_type() == "Pow") return value(1) == 3.0f;
  if (cx.in_name(0) == cx.in_name(1)) return true;
  for (int i = 0; i < 2; ++i)
    if (value(i) == 0.5f || near(value(i), kInvSqrt2, kRounded)) return true;
  return false;
}

}  // namespace

bool import_gelu_pattern(ImportContext& cx) {
  if (!may_start_gelu(cx)) return false;
  GeluMatcher m(cx);
  std::optional<Seen> at = m.seen(cx.node_index());
  for (int step = 0; at && step < kLongestChain; ++step) {
    if (const std::optional<GeluApproximation> form = m.match(*at)) {
      const NodeId g =
          cx.add(OpKind::gelu, {cx.tensor(m.x())}, ir::GeluParams{.approximate = *form});
      for (const Seen& n : m.nodes()) {
        if (n.index == at->index) {
          cx.absorb(n.index, n.out, g);
        } else if (n.index != cx.node_index()) {
          cx.absorb(n.index);
        }
      }
      return true;
    }
    const std::span<const int> users = cx.consumers(at->out);
    if (users.size() != 1 || cx.is_graph_output(at->out)) return false;
    at = m.seen(users[0]);
  }
  return false;
}

void import_mul_or_gelu(ImportContext& cx) {
  if (!import_gelu_pattern(cx)) import_binary(cx, OpKind::mul_elem);
}

void import_div_or_gelu(ImportContext& cx) {
  if (!import_gelu_pattern(cx)) import_div(cx);
}

void import_erf(ImportContext& cx) {
  import_unary(cx, OpKind::erf);
}

void import_gelu(ImportContext& cx) {
  cx.allow_attrs({"approximate"});
  cx.require_inputs(1, 1);
  const std::string approximate = cx.attr_string("approximate", "none");
  GeluApproximation form = GeluApproximation::none;
  if (approximate == "tanh") {
    form = GeluApproximation::tanh;
  } else if (approximate != "none") {
    cx.fail("attribute approximate = " + quoted_name(approximate) +
            " is not a GELU approximation; ONNX defines 'none' and 'tanh'");
  }
  cx.define(cx.out_name(0),
            cx.add(OpKind::gelu, {cx.tensor(cx.in_name(0))}, ir::GeluParams{.approximate = form}));
}

}  // namespace nnplan::format::onnx_import
