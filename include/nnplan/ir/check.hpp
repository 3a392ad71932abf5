// Well-formedness and shape inference (SPEC §6). A CheckedGraph has ids equal to indices,
// parents below each node, arity within bounds, parameters of the right kind, declared shapes
// equal to the shapes inferred from the parents, and declared dtypes equal to the inferred ones
// (`input` and `const` declare theirs; every other kind takes and makes float32 today). Errors name
// the node id, its kind and what is wrong, e.g. `node 4 (matmul): inner dimensions differ: [2,3] x
// [4,5]`. `check` verifies a whole graph; CheckedGraphBuilder checks one node at a time as a
// builder adds them.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "nnplan/error.hpp"
#include "nnplan/ir/graph.hpp"

namespace nnplan::ir {

// The shape a node of `node.kind` with `node.params` produces from its parents' declared shapes,
// or an error naming the node. `graph` supplies the parents; the node need not be in it (a node
// being proposed), because its parents, arity and parameters are validated first. The parents'
// shapes are taken as checked (as in a graph that passed `check`, or the nodes a
// CheckedGraphBuilder holds): a shape copied from a parent is not checked for overflow again.
[[nodiscard]] Expected<Shape> infer_shape(const Graph& graph, const Node& node);
// The same rule over shapes the caller gives (`parent_shapes[i]` the shape of parent i), for
// code that holds a node and its operands but no graph: every provider's shape guard starts
// here. The node's kind, arity and parameters are checked as ir::check does; its parents' ids
// are not read. invalid_input naming the node, with ir::check's messages.
[[nodiscard]] Expected<Shape> infer_shape(const Node& node,
                                          std::span<const Shape* const> parent_shapes);

// A graph that passed `check`; obtainable only through `check`.
class CheckedGraph {
 public:
  [[nodiscard]] const Graph& graph() const { return graph_; }
  [[nodiscard]] Graph release() && { return std::move(graph_); }

 private:
  friend Expected<CheckedGraph> check(Graph graph);
  friend class CheckedGraphBuilder;
  explicit CheckedGraph(Graph graph) : graph_(std::move(graph)) {}
  Graph graph_;
};

// Builds a CheckedGraph node by node, checking each node as it is added: its id is its index,
// its structure is checked against the nodes before it, and its shape is the one inferred from
// its parents (as `check` demands of a declared shape). `finish` checks the endpoints. The result
// has passed everything `check` verifies, without a second pass over the graph: for builders
// such as the ONNX importer that infer every shape as they go.
class CheckedGraphBuilder {
 public:
  void reserve(std::size_t nodes) { graph_.nodes.reserve(nodes); }
  // Appends `node` (its id is set to its index) with its shape inferred; kinds whose shape is
  // declared (input, rand_uniform, bernoulli_mask, linear's last dimension, gather) take it from
  // `node.shape`. On error nothing is appended.
  [[nodiscard]] Expected<NodeId> add(Node node);
  // The same, building the node in place from its parts: no Node is constructed and moved.
  // `parents` and `declared` must not refer into this builder's graph. `dtype` is the node's
  // declared dtype (ir::check's dtype rule applies to it); without one the node makes the dtype
  // the rule infers (float32 for an input or const).
  [[nodiscard]] Expected<NodeId> add(OpKind kind, const Parents& parents, OpParams&& params,
                                     const Shape& declared, std::string_view source_name,
                                     std::optional<DType> dtype = std::nullopt);
  // The nodes added so far.
  [[nodiscard]] const Graph& graph() const { return graph_; }
  [[nodiscard]] Expected<CheckedGraph> finish(NodeId input_id, std::vector<NodeId> output_ids) &&;

 private:
  Graph graph_;
  Shape inferred_;
};

// Validates every rule: input_id and output_ids first (at least one output), then each node in id
// order, its structure (id, parents, arity, parameters) before its declared shape and dtype against
// the inferred ones, so the error reported is the one at the lowest node. Errors are
// `invalid_input`; `position` is the offending node id (the index when the id itself is wrong), and
// is empty for an empty graph or an input_id/output_ids entry that names no node. Allocates nothing
// per node when the graph is valid.
[[nodiscard]] Expected<CheckedGraph> check(Graph graph);

}  // namespace nnplan::ir
