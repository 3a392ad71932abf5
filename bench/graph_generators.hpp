// Graph generators for the graph-planning benchmarks: valid `ir::Graph`s of any size, built in
// memory without I/O. Both shapes of workload the issue asks for:
//   - chain graphs: one input, then a repeating MLP-like block of runtime ops where every node
//     reads the previous one (plus the block's input for the residual ops);
//   - seeded random DAGs that mix every IR kind: each node's parents are drawn uniformly from the
//     earlier nodes of the shape its kind needs (one pool of node ids per shape class).
// Every generated graph passes ir::check; the benchmarks check that before timing anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "nnplan/ir/graph.hpp"

namespace nnplan::bench {

enum class GraphShape : std::uint8_t { chain, random_dag };

[[nodiscard]] constexpr std::string_view to_string(GraphShape shape) {
  return shape == GraphShape::chain ? "chain" : "random_dag";
}

// `n` nodes (n >= 1): node 0 is an input [4,4]; nodes 1.. repeat a 12-node block of linear,
// relu, relu, add (residual), layernorm, flatten, reshape, matmul, tanh, sigmoid, mul_elem
// (residual), softmax. Coalesced lowering folds relu+relu and flatten+reshape, so a block is 10
// groups.
[[nodiscard]] ir::Graph chain_graph(std::size_t n);

// `n` nodes (at least one; every float32 kind appears once n >= 80): nine input nodes, one per
// shape class, then each IR kind that makes float32 once in enum order (argmax and argmin make
// int64 and are left out), then kinds drawn uniformly at random.
// Deterministic for a given (n, seed).
[[nodiscard]] ir::Graph random_dag(std::size_t n, std::uint64_t seed);

[[nodiscard]] ir::Graph make_graph(GraphShape shape, std::size_t n, std::uint64_t seed = 20261129);

}  // namespace nnplan::bench
