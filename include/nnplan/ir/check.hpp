// Well-formedness and shape inference (SPEC §6). A CheckedGraph has ids equal to indices,
// parents below each node, arity within bounds, parameters of the right kind, and declared shapes
// equal to the shapes inferred from the parents. Errors name the node id, its kind and what is
// wrong, e.g. `node 4 (matmul): inner dimensions differ: [2,3] x [4,5]`.
#pragma once

#include <utility>

#include "nnplan/error.hpp"
#include "nnplan/ir/graph.hpp"

namespace nnplan::ir {

// The shape a node of `node.kind` with `node.params` produces from its parents' declared shapes,
// or an error naming the node. `graph` supplies the parents; the node need not be in it (a node
// being proposed), because its parents, arity and parameters are validated first.
[[nodiscard]] Expected<Shape> infer_shape(const Graph& graph, const Node& node);

// A graph that passed `check`; obtainable only through `check`.
class CheckedGraph {
 public:
  [[nodiscard]] const Graph& graph() const { return graph_; }
  [[nodiscard]] Graph release() && { return std::move(graph_); }

 private:
  friend Expected<CheckedGraph> check(Graph graph);
  explicit CheckedGraph(Graph graph) : graph_(std::move(graph)) {}
  Graph graph_;
};

// Validates every rule: input_id and output_id first, then each node in id order, its structure
// (id, parents, arity, parameters) before its declared shape against the inferred one, so the
// error reported is the one at the lowest node. Errors are `invalid_input`; `position` is the
// offending node id (the index when the id itself is wrong), and is empty for an empty graph or an
// input_id/output_id that names no node. Allocates nothing per node when the graph is valid.
[[nodiscard]] Expected<CheckedGraph> check(Graph graph);

}  // namespace nnplan::ir
