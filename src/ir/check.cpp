#include "nnplan/ir/check.hpp"

#include "nnplan/ir/op_table.hpp"

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace nnplan::ir {
namespace {

using Status = std::expected<void, Error>;

std::string str(std::uint64_t value) {
  return std::to_string(value);
}

// "1 parent", "3 nodes".
std::string count_of(std::uint64_t n, std::string_view noun) {
  std::string out = str(n) + " " + std::string(noun);
  if (n != 1) out += 's';
  return out;
}

std::string perm_string(const std::vector<std::uint32_t>& perm) {
  std::string out = "[";
  for (std::size_t i = 0; i < perm.size(); ++i) {
    if (i != 0) out += ',';
    out += str(perm[i]);
  }
  out += ']';
  return out;
}

std::unexpected<Error> fail(const Node& node, std::string what) {
  Error error = make_error(ErrorKind::invalid_input, describe(node) + ": " + what);
  error.position = node.id;
  return std::unexpected(std::move(error));
}

template <class T>
constexpr std::size_t kIndexOf = kParamsIndex<T>;

// How messages name each OpParams alternative, in variant order.
constexpr std::array<std::string_view, std::variant_size_v<OpParams>> kParamsNames = {
    "no",   "const",  "permute",  "seed",    "pool",   "broadcast",
    "axis", "conv2d", "channels", "reshape", "flatten"};
static_assert(kIndexOf<FlattenParams> + 1 == kParamsNames.size());

std::string arity_phrase(Arity arity) {
  if (arity.max == kUnbounded) return "at least " + str(arity.min);
  if (arity.min == arity.max) return str(arity.min);
  return str(arity.min) + ".." + str(arity.max);
}

// Parents exist and are below the node, their number fits the kind, and the parameters are the
// kind's alternative. Everything `infer_into` relies on to index parents and read parameters.
// `count` is how many nodes of the graph exist for the node's parents (a builder's node under test
// is already at the end of the array).
Status check_structure(const Node& node, std::size_t count) {
  // A kind outside the table (a cast, not a parse) is named by its number: describe() would
  // only say "<invalid>".
  if (static_cast<std::size_t>(node.kind) >= kOpKindCount) {
    Error error =
        make_error(ErrorKind::invalid_input, "node " + str(node.id) + ": unknown op kind " +
                                                 str(static_cast<std::size_t>(node.kind)));
    error.position = node.id;
    return std::unexpected(std::move(error));
  }
  for (const NodeId parent : node.parents) {
    if (parent >= count) {
      return fail(node, "parent " + str(parent) + " does not exist (the graph has " +
                            count_of(count, "node") + ")");
    }
    if (parent >= node.id) {
      return fail(
          node, "parent " + str(parent) + " is not below the node (parents must have smaller ids)");
    }
  }
  const OpKindTraits& traits = op_traits(node.kind);
  const Arity arity = traits.arity;
  const std::size_t parents = node.parents.size();
  if (parents < arity.min || parents > arity.max) {
    return fail(node, "has " + count_of(parents, "parent") + ", expected " + arity_phrase(arity));
  }
  const std::size_t want = traits.params;
  if (node.params.index() != want) {
    const std::string expected =
        want == kIndexOf<std::monostate> ? "none" : std::string(kParamsNames[want]) + " parameters";
    return fail(node, "has " + std::string(kParamsNames[node.params.index()]) +
                          " parameters, expected " + expected);
  }
  if (traits.shape_rule == ShapeRule::pool) {
    const std::uint32_t padding = std::get_if<PoolParams>(&node.params)->padding;
    if (padding != 0) {
      return fail(node, "padding " + str(padding) + " is not allowed (only " +
                            std::string(to_string(node.kind)) + "_pad takes padding)");
    }
  }
  return {};
}

template <class T>
const T& params_of(const Node& node) {
  const T* params = std::get_if<T>(&node.params);
  assert(params != nullptr && "check_structure guarantees the alternative");
  return *params;
}

void assign(Shape& out, const Shape& from) {
  out.dims.assign(from.dims.begin(), from.dims.end());
}

std::string axis_out_of_range(std::uint32_t axis, const Shape& shape) {
  return "axis " + str(axis) + " is out of range for " + to_string(shape) + " (rank " +
         str(shape.rank()) + ")";
}

struct Window {
  std::uint32_t kh = 1;
  std::uint32_t kw = 1;
  std::uint32_t stride = 1;
  std::uint32_t padding = 0;
};

// conv2d and the pools on (C,H,W) or (N,C,H,W). `conv` is null for pools, which keep C.
Status infer_window(const Node& node, const Shape& in, Window w, const Conv2dParams* conv,
                    Shape& out) {
  if (in.rank() != 3 && in.rank() != 4) {
    return fail(node, "expects a parent of shape (C,H,W) or (N,C,H,W), found " + to_string(in));
  }
  if (w.kh == 0 || w.kw == 0) {
    return fail(node, "kernel " + str(w.kh) + "x" + str(w.kw) +
                          " is not allowed (kernel dimensions must be at least 1)");
  }
  if (w.stride == 0) return fail(node, "stride 0 is not allowed (must be at least 1)");
  const std::size_t c = in.rank() - 3;
  if (conv != nullptr && in.dims[c] != conv->in_channels) {
    return fail(node, "parent " + to_string(in) + " has " + str(in.dims[c]) +
                          " channels, expected in_channels " + str(conv->in_channels));
  }
  const Dim pad2 = Dim{2} * w.padding;  // cannot overflow: padding is 32-bit
  const std::optional<Dim> h = checked_add(in.dims[c + 1], pad2);
  const std::optional<Dim> wd = checked_add(in.dims[c + 2], pad2);
  if (!h || !wd) {
    return fail(node, "padded input of " + to_string(in) + " with padding " + str(w.padding) +
                          " overflows 64 bits");
  }
  if (*h < w.kh || *wd < w.kw) {
    return fail(node, "kernel " + str(w.kh) + "x" + str(w.kw) + " does not fit input " +
                          str(in.dims[c + 1]) + "x" + str(in.dims[c + 2]) + " with padding " +
                          str(w.padding));
  }
  assign(out, in);
  if (conv != nullptr) out.dims[c] = conv->out_channels;
  out.dims[c + 1] = (*h - w.kh) / w.stride + 1;
  out.dims[c + 2] = (*wd - w.kw) / w.stride + 1;
  return {};
}

Status infer_permute(const Node& node, const Shape& in, const std::vector<std::uint32_t>& perm,
                     Shape& out) {
  const std::size_t rank = in.rank();
  if (perm.size() != rank) {
    return fail(node, "perm " + perm_string(perm) + " has " + str(perm.size()) +
                          (perm.size() == 1 ? " entry" : " entries") +
                          ", expected one per axis of " + to_string(in));
  }
  // Most tensors have few axes; a bit mask covers them without allocating.
  std::uint64_t seen_small = 0;
  std::vector<bool> seen_large(rank > 64 ? rank : 0, false);
  for (const std::uint32_t axis : perm) {
    if (axis >= rank) {
      return fail(node, "perm " + perm_string(perm) + " names axis " + str(axis) +
                            ", out of range for " + to_string(in) + " (rank " + str(rank) + ")");
    }
    bool repeated = false;
    if (rank <= 64) {
      const std::uint64_t bit = std::uint64_t{1} << axis;
      repeated = (seen_small & bit) != 0;
      seen_small |= bit;
    } else {
      repeated = seen_large[axis];
      seen_large[axis] = true;
    }
    if (repeated) {
      return fail(node, "perm " + perm_string(perm) + " repeats axis " + str(axis) +
                            " (expected a permutation of the axes)");
    }
  }
  out.dims.resize(rank);
  for (std::size_t i = 0; i < rank; ++i)
    out.dims[i] = in.dims[perm[i]];
  return {};
}

Status infer_broadcast(const Node& node, const Shape& in, const BroadcastParams& p, Shape& out) {
  if (in != p.from) {
    return fail(node, "parent shape " + to_string(in) + " differs from broadcast source " +
                          to_string(p.from));
  }
  const std::string what = "cannot broadcast " + to_string(p.from) + " to " + to_string(p.to);
  if (p.from.rank() > p.to.rank()) {
    return fail(node, what + ": source rank " + str(p.from.rank()) + " exceeds target rank " +
                          str(p.to.rank()));
  }
  const std::size_t offset = p.to.rank() - p.from.rank();
  for (std::size_t i = 0; i < p.from.rank(); ++i) {
    const Dim f = p.from.dims[i];
    const Dim t = p.to.dims[offset + i];
    if (f != t && f != 1) {
      return fail(node, what + ": source dimension " + str(i) + " is " + str(f) + ", target has " +
                            str(t) + " (must be equal or 1)");
    }
  }
  assign(out, p.to);
  return {};
}

// Element-wise ops on two parents: broadcasting is an op of its own.
Status same_shapes(const Node& node, const Shape& a, const Shape& b) {
  if (a == b) return {};
  return fail(node, "parent shapes differ: " + to_string(a) + " and " + to_string(b) +
                        " (broadcasting must be explicit)");
}

Status infer_matmul(const Node& node, const Shape& a, const Shape& b, Shape& out) {
  const std::string pair = to_string(a) + " x " + to_string(b);
  if (a.rank() == 2 && b.rank() == 2) {
    if (a.dims[1] != b.dims[0]) return fail(node, "inner dimensions differ: " + pair);
    out.dims.assign({a.dims[0], b.dims[1]});
    return {};
  }
  if (a.rank() == 3 && b.rank() == 3) {
    if (a.dims[0] != b.dims[0]) return fail(node, "batch dimensions differ: " + pair);
    if (a.dims[2] != b.dims[1]) return fail(node, "inner dimensions differ: " + pair);
    out.dims.assign({a.dims[0], a.dims[1], b.dims[2]});
    return {};
  }
  return fail(node, "expects two rank-2 or two rank-3 parents, found " + pair);
}

Status infer_concat(const Graph& graph, const Node& node, std::uint32_t axis, Shape& out) {
  const Shape& first = graph.nodes[node.parents[0]].shape;
  if (axis >= first.rank()) return fail(node, axis_out_of_range(axis, first));
  assign(out, first);
  for (std::size_t i = 1; i < node.parents.size(); ++i) {
    const Shape& next = graph.nodes[node.parents[i]].shape;
    if (next.rank() != first.rank()) {
      return fail(node, "parents differ in rank: " + to_string(first) + " and " + to_string(next));
    }
    for (std::size_t d = 0; d < first.rank(); ++d) {
      if (d != axis && next.dims[d] != first.dims[d]) {
        return fail(node, "parents differ outside axis " + str(axis) + ": " + to_string(first) +
                              " and " + to_string(next));
      }
    }
    const std::optional<Dim> total = checked_add(out.dims[axis], next.dims[axis]);
    if (!total) {
      return fail(node, "concatenated axis " + str(axis) + " overflows 64 bits (at parent " +
                            str(node.parents[i]) + ")");
    }
    out.dims[axis] = *total;
  }
  return {};
}

Status infer_reshape(const Node& node, const Shape& in, const ReshapeParams& p, Shape& out) {
  if (in != p.in) {
    return fail(node,
                "parent shape " + to_string(in) + " differs from reshape input " + to_string(p.in));
  }
  const std::optional<Dim> from = element_count(p.in);
  const std::optional<Dim> to = element_count(p.out);
  if (!from) return fail(node, "element count of " + to_string(p.in) + " overflows 64 bits");
  if (!to) return fail(node, "element count of " + to_string(p.out) + " overflows 64 bits");
  if (*from != *to) {
    return fail(node, "reshape from " + to_string(p.in) + " to " + to_string(p.out) +
                          " changes the element count: " + str(*from) + " vs " + str(*to));
  }
  assign(out, p.out);
  return {};
}

// Fills `out` with the node's shape; check_structure(node, ...) must have passed, and `out` is
// not node.shape when the kind's shape rule reads the declared shape.
Status infer_into(const Graph& graph, const Node& node, Shape& out) {
  const auto parent = [&](std::size_t i) -> const Shape& {
    return graph.nodes[node.parents[i]].shape;
  };
  Status status;
  switch (op_traits(node.kind).shape_rule) {
    case ShapeRule::declared:
      assign(out, node.shape);
      break;
    case ShapeRule::const_value:
      assign(out, params_of<ConstParams>(node).value_shape);
      break;
    case ShapeRule::keep_probability:
      if (parent(0).rank() != 0) {
        return fail(node,
                    "keep-probability parent must be a scalar, found " + to_string(parent(0)));
      }
      assign(out, node.shape);
      break;
    case ShapeRule::same_as_parent:
      assign(out, parent(0));
      return {};  // a parent's shape, whose element count was checked when it was added
    case ShapeRule::elementwise_binary:
      if (Status same = same_shapes(node, parent(0), parent(1)); !same) return same;
      assign(out, parent(0));
      return {};  // a parent's shape: nothing to overflow
    case ShapeRule::paired_to_scalar:
      if (Status same = same_shapes(node, parent(0), parent(1)); !same) return same;
      out.dims.clear();
      return {};  // a scalar: nothing to overflow
    case ShapeRule::pool:
    case ShapeRule::padded_pool: {
      const PoolParams& p = params_of<PoolParams>(node);
      status = infer_window(node, parent(0), {p.kh, p.kw, p.stride, p.padding}, nullptr, out);
      break;
    }
    case ShapeRule::conv2d: {
      const Conv2dParams& p = params_of<Conv2dParams>(node);
      status = infer_window(node, parent(0), {p.kh, p.kw, p.stride, p.padding}, &p, out);
      break;
    }
    case ShapeRule::broadcast:
      status = infer_broadcast(node, parent(0), params_of<BroadcastParams>(node), out);
      break;
    case ShapeRule::reduce_axis: {
      const std::uint32_t axis = params_of<AxisParams>(node).axis;
      if (axis >= parent(0).rank()) return fail(node, axis_out_of_range(axis, parent(0)));
      assign(out, parent(0));
      out.dims.erase(out.dims.begin() + axis);
      break;
    }
    case ShapeRule::reduce_all:
      out.dims.clear();
      break;
    case ShapeRule::matmul:
      status = infer_matmul(node, parent(0), parent(1), out);
      break;
    case ShapeRule::linear: {
      const Shape& in = parent(0);
      if (in.rank() == 0) return fail(node, "expects a parent of rank at least 1, found []");
      if (node.shape.rank() != in.rank()) {
        return fail(node, "declared shape " + to_string(node.shape) + " has rank " +
                              str(node.shape.rank()) + ", expected the rank of parent " +
                              to_string(in) + " (" + str(in.rank()) + ")");
      }
      assign(out, in);
      out.dims.back() = node.shape.dims.back();
      break;
    }
    case ShapeRule::batch_norm: {
      const Shape& in = parent(0);
      const std::uint32_t channels = params_of<ChannelsParams>(node).channels;
      if (in.rank() != 4) {
        return fail(node, "expects a parent of shape (N,C,H,W), found " + to_string(in));
      }
      if (in.dims[1] != channels) {
        return fail(node, "parent " + to_string(in) + " has " + str(in.dims[1]) +
                              " channels, expected channels " + str(channels));
      }
      assign(out, in);
      break;
    }
    case ShapeRule::along_axis: {
      const std::uint32_t axis = params_of<AxisParams>(node).axis;
      if (axis >= parent(0).rank()) return fail(node, axis_out_of_range(axis, parent(0)));
      assign(out, parent(0));
      break;
    }
    case ShapeRule::reshape:
      status = infer_reshape(node, parent(0), params_of<ReshapeParams>(node), out);
      break;
    case ShapeRule::flatten: {
      const Shape& in = params_of<FlattenParams>(node).in;
      if (parent(0) != in) {
        return fail(node, "parent shape " + to_string(parent(0)) + " differs from flatten input " +
                              to_string(in));
      }
      const std::optional<Dim> count = element_count(in);
      if (!count) return fail(node, "element count of " + to_string(in) + " overflows 64 bits");
      out.dims.assign({*count});
      break;
    }
    case ShapeRule::concat:
      status = infer_concat(graph, node, params_of<AxisParams>(node).axis, out);
      break;
    case ShapeRule::swap_first_two:
      if (parent(0).rank() < 2) {
        return fail(node, "expects a parent of rank at least 2, found " + to_string(parent(0)));
      }
      assign(out, parent(0));
      std::swap(out.dims[0], out.dims[1]);
      break;
    case ShapeRule::transpose_last_two:
      if (parent(0).rank() != 3) {
        return fail(node, "expects a parent of rank 3, found " + to_string(parent(0)));
      }
      assign(out, parent(0));
      std::swap(out.dims[1], out.dims[2]);
      break;
    case ShapeRule::permute:
      status = infer_permute(node, parent(0), params_of<PermuteParams>(node).perm, out);
      break;
  }
  if (!status) return status;
  if (!element_count(out)) {
    return fail(node, "shape " + to_string(out) + " has more elements than fit in 64 bits");
  }
  return {};
}

// input_id / output_id name an existing node (and input_id an `input` node).
Status check_endpoint(const Graph& graph, std::string_view field, NodeId id, bool must_be_input) {
  if (id >= graph.nodes.size()) {
    return std::unexpected(
        make_error(ErrorKind::invalid_input, std::string(field) + " " + str(id) +
                                                 " does not name a node (the graph has " +
                                                 count_of(graph.nodes.size(), "node") + ")"));
  }
  const Node& node = graph.nodes[id];
  if (must_be_input && node.kind != OpKind::input) {
    Error error =
        make_error(ErrorKind::invalid_input, std::string(field) + " " + str(id) + " names " +
                                                 describe(node) + ", expected an input node");
    error.position = id;
    return std::unexpected(std::move(error));
  }
  return {};
}

}  // namespace

Expected<Shape> infer_shape(const Graph& graph, const Node& node) {
  if (Status s = check_structure(node, graph.nodes.size()); !s) {
    return std::unexpected(std::move(s.error()));
  }
  Shape out;
  if (Status s = infer_into(graph, node, out); !s) return std::unexpected(std::move(s.error()));
  return out;
}

Expected<NodeId> CheckedGraphBuilder::add(Node node) {
  return add(node.kind, node.parents, std::move(node.params), node.shape, node.source_name);
}

Expected<NodeId> CheckedGraphBuilder::add(OpKind kind, const Parents& parents, OpParams&& params,
                                          const Shape& declared, std::string_view source_name) {
  // Built at the end of the array and checked there (the checks read only the nodes before it),
  // then dropped again if it fails.
  Node& node = graph_.nodes.emplace_back();
  node.id = static_cast<NodeId>(graph_.nodes.size() - 1);
  node.kind = kind;
  node.parents = parents;
  if (!std::holds_alternative<std::monostate>(params)) node.params = std::move(params);
  // Kinds whose shape is (partly) declared infer into a separate buffer; every other kind
  // infers straight into the node.
  const bool declared_kind = reads_declared_shape(op_traits(kind).shape_rule);
  if (declared_kind) node.shape = declared;
  Status s = check_structure(node, node.id);
  if (s) s = infer_into(graph_, node, declared_kind ? inferred_ : node.shape);
  if (!s) {
    graph_.nodes.pop_back();
    return std::unexpected(std::move(s.error()));
  }
  if (declared_kind) node.shape.dims.assign(inferred_.dims.begin(), inferred_.dims.end());
  node.source_name = source_name;
  return node.id;
}

Expected<CheckedGraph> CheckedGraphBuilder::finish(NodeId input_id, NodeId output_id) && {
  graph_.input_id = input_id;
  graph_.output_id = output_id;
  if (graph_.nodes.empty()) {
    return std::unexpected(make_error(ErrorKind::invalid_input, "graph has no nodes"));
  }
  if (Status s = check_endpoint(graph_, "input_id", input_id, true); !s) {
    return std::unexpected(std::move(s.error()));
  }
  if (Status s = check_endpoint(graph_, "output_id", output_id, false); !s) {
    return std::unexpected(std::move(s.error()));
  }
  return CheckedGraph(std::move(graph_));
}

Expected<CheckedGraph> check(Graph graph) {
  if (graph.nodes.empty()) {
    return std::unexpected(make_error(ErrorKind::invalid_input, "graph has no nodes"));
  }
  // The endpoints read only ids and kinds, so they can be checked before any node.
  if (Status s = check_endpoint(graph, "input_id", graph.input_id, true); !s) {
    return std::unexpected(std::move(s.error()));
  }
  if (Status s = check_endpoint(graph, "output_id", graph.output_id, false); !s) {
    return std::unexpected(std::move(s.error()));
  }
  // One pass in id order: a node's structure, then its shape. Inference reads only the parents'
  // declared shapes, which the node's own structure check has made safe to index, so the first
  // error reported is the one at the lowest node. One buffer serves every inferred shape, so a
  // valid graph costs no allocation per node once the buffer has grown.
  Shape inferred;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (node.id != i) {
      Error error =
          make_error(ErrorKind::invalid_input, describe(node) + ": id differs from its index " +
                                                   str(i) + " (ids must equal indices)");
      error.position = i;
      return std::unexpected(std::move(error));
    }
    if (Status s = check_structure(node, graph.nodes.size()); !s) {
      return std::unexpected(std::move(s.error()));
    }
    if (Status s = infer_into(graph, node, inferred); !s) {
      return std::unexpected(std::move(s.error()));
    }
    if (inferred != node.shape) {
      return fail(node, "declared shape " + to_string(node.shape) + " differs from inferred " +
                            to_string(inferred));
    }
  }
  return CheckedGraph(std::move(graph));
}

}  // namespace nnplan::ir
