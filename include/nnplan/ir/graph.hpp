// The IR graph (SPEC §6): an op-tagged DAG whose node ids equal their array index and whose
// parents have smaller ids. Each node declares its output shape and carries the parameters of its
// kind. Weights of `const`, `linear`, `conv2d` and `batch_norm2d_nchw_eval` live outside the
// graph, in payloads keyed by node id (see format/payload_file.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "nnplan/ir/op_kind.hpp"
#include "nnplan/large_memory.hpp"
#include "nnplan/ir/shape.hpp"

namespace nnplan::ir {

using NodeId = std::uint32_t;

// A node's parents: up to two held inline (small_vector.hpp); only concat and sum take more.
using Parents = SmallVector<NodeId, 2>;

// Parameters by kind; `std::monostate` for kinds without parameters.
struct ConstParams {  // const
  Shape value_shape;
  bool operator==(const ConstParams&) const = default;
};
struct PermuteParams {  // permute
  std::vector<std::uint32_t> perm;
  bool operator==(const PermuteParams&) const = default;
};
struct SeedParams {  // rand_uniform, bernoulli_mask
  std::uint64_t seed = 0;
  bool operator==(const SeedParams&) const = default;
};
struct PoolParams {  // max_pool2d, avg_pool2d (padding 0), and their _pad forms
  std::uint32_t kh = 1;
  std::uint32_t kw = 1;
  std::uint32_t stride = 1;
  std::uint32_t padding = 0;
  bool operator==(const PoolParams&) const = default;
};
struct BroadcastParams {  // broadcast_to
  Shape from;
  Shape to;
  bool operator==(const BroadcastParams&) const = default;
};
struct AxisParams {  // reduce_sum, reduce_mean, softmax, layernorm, concat
  std::uint32_t axis = 0;
  bool operator==(const AxisParams&) const = default;
};
struct Conv2dParams {  // conv2d
  std::uint32_t in_channels = 1;
  std::uint32_t out_channels = 1;
  std::uint32_t kh = 1;
  std::uint32_t kw = 1;
  std::uint32_t stride = 1;
  std::uint32_t padding = 0;
  bool operator==(const Conv2dParams&) const = default;
};
struct ChannelsParams {  // batch_norm2d_nchw_eval
  std::uint32_t channels = 1;
  bool operator==(const ChannelsParams&) const = default;
};
struct ReshapeParams {  // reshape
  Shape in;
  Shape out;
  bool operator==(const ReshapeParams&) const = default;
};
struct FlattenParams {  // flatten
  Shape in;
  bool operator==(const FlattenParams&) const = default;
};

using OpParams = std::variant<std::monostate, ConstParams, PermuteParams, SeedParams, PoolParams,
                              BroadcastParams, AxisParams, Conv2dParams, ChannelsParams,
                              ReshapeParams, FlattenParams>;

struct Node {
  NodeId id = 0;
  OpKind kind = OpKind::input;
  Parents parents;
  Shape shape;  // the declared output shape
  OpParams params;
  // The name of the node in the model it came from (an ONNX node name); empty when none.
  std::string source_name;

  bool operator==(const Node&) const = default;
};

// The node array: past 2 MiB (about ten thousand nodes) it sits in huge pages
// (large_memory.hpp), so building a large graph does not fault in one 4 KiB page at a time.
using Nodes = std::vector<Node, LargeAllocator<Node>>;

struct Graph {
  NodeId input_id = 0;
  NodeId output_id = 0;
  Nodes nodes;

  bool operator==(const Graph&) const = default;
};

// `node 7 (conv2d)` or `node 7 (conv2d 'model/conv1')`: how messages name a node.
[[nodiscard]] std::string describe(const Node& node);

}  // namespace nnplan::ir
