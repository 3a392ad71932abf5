// Shared builders for the IR tests: shapes from brace lists and a graph builder that assigns ids
// in order, so a test spells a graph as the sequence of its nodes.
#pragma once

#include <cctype>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nnplan/ir/graph.hpp"
#include "nnplan/ir/op_table.hpp"

namespace nnplan::ir::fixtures {

inline Shape shape(std::initializer_list<Dim> dims) {
  return Shape{std::vector<Dim>(dims)};
}

// Appends nodes with id = index. input_id stays 0 and output_ids is the last node alone unless set.
class GraphBuilder {
 public:
  NodeId add(OpKind kind, std::vector<NodeId> parents, Shape declared, OpParams params = {},
             std::string source_name = {}) {
    const auto id = static_cast<NodeId>(graph_.nodes.size());
    graph_.nodes.push_back(Node{.id = id,
                                .kind = kind,
                                .parents = std::move(parents),
                                .shape = std::move(declared),
                                .params = std::move(params),
                                .source_name = std::move(source_name)});
    graph_.output_ids.assign({id});
    return id;
  }
  NodeId input(Shape declared) { return add(OpKind::input, {}, std::move(declared)); }
  Graph& graph() { return graph_; }
  Graph build() && { return std::move(graph_); }

 private:
  Graph graph_;
};

// The common shape of a case: `input` nodes of the given shapes, then one `kind` node whose
// parents are all of them. With no inputs, a lone [1] input comes first so the graph has its
// input node and the op stands alone. The inputs are float32, except those the kind takes as bool
// (every input of a `logical` kind, the condition of `select`) or int64 (the indices of
// `indexed`); the op node declares the dtype
// its kind makes of them (int64 for an `indices` kind, bool for a comparison; a cast casts to
// int64).
inline Graph one_op(std::vector<Shape> inputs, OpKind kind, Shape declared, OpParams params = {}) {
  GraphBuilder b;
  std::vector<NodeId> parents;
  if (inputs.empty()) b.input(shape({1}));
  for (Shape& s : inputs)
    parents.push_back(b.input(std::move(s)));
  b.add(kind, std::move(parents), std::move(declared), std::move(params));
  Graph g = std::move(b).build();
  const DTypeRule rule = op_traits(kind).dtype_rule;
  if (rule == DTypeRule::logical) {
    for (Node& n : g.nodes)
      n.dtype = DType::boolean;
  }
  if (rule == DTypeRule::select && g.nodes.size() > 1) g.nodes[0].dtype = DType::boolean;
  if (rule == DTypeRule::indexed && g.nodes.size() > 2) g.nodes[1].dtype = DType::int64;
  if (rule == DTypeRule::scatter && g.nodes.size() > 3) g.nodes[1].dtype = DType::int64;
  if (rule == DTypeRule::batch_indexed && g.nodes.size() > 2) {
    g.nodes[g.nodes.size() - 2].dtype = DType::int64;
  }
  if (kind == OpKind::mod) {
    for (Node& n : g.nodes)
      n.dtype = DType::int64;
  }
  if (rule == DTypeRule::comparison) g.nodes.back().dtype = DType::boolean;
  if (rule == DTypeRule::indices || (rule == DTypeRule::declared && kind == OpKind::cast)) {
    g.nodes.back().dtype = DType::int64;
  }
  return g;
}

// A gtest-safe parameter name.
inline std::string test_name(std::string_view text) {
  std::string out;
  for (char ch : text) {
    out += std::isalnum(static_cast<unsigned char>(ch)) != 0 ? ch : '_';
  }
  return out.empty() ? std::string("empty") : out;
}

}  // namespace nnplan::ir::fixtures
