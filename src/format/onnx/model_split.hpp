// Reading a serialized ONNX ModelProto with its graph's nodes and its initializers' raw_data left
// in the file's bytes.
//
// `split_onnx_model` walks the message framing with protobuf's public CodedInputStream, decoding
// the tags itself (field numbers from ONNX's generated classes), parses every field except
// `graph.node` and the initializers' `raw_data` with ONNX's generated classes as usual, and keeps
// each node as the span of its serialized NodeProto; `OnnxNodes::at` parses one node into a reused
// message when the importer reaches it, so a corrupt node is reported by its position, after the
// problems of the nodes before it, and the weights are never copied for a graph-only import.
// Parsing the pieces is equivalent to parsing the whole message: protobuf defines a serialized
// message as the concatenation of its fields, and merging the fields piece by piece in file order
// (repeated fields append, later scalars win) gives the same message. The same holds one level down
// for each initializer, a TensorProto whose raw_data field is kept as a range. Input the walk does
// not recognize (a node field with another wire type, a malformed tag, a truncated length) is left
// to the full parse, so the split never accepts what protobuf would reject nor rejects what it
// would accept.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace nnplan::format::onnx_import {

// The nodes of an ONNX graph, either held by a parsed GraphProto or as serialized NodeProtos.
class OnnxNodes {
 public:
  // The nodes of a fully parsed graph.
  explicit OnnxNodes(const onnx::GraphProto& graph) : graph_(&graph) {}
  // Serialized nodes: `serialized[i]` is the byte range of node i's NodeProto within `bytes`, for
  // the first serialized.size() of `count` nodes (a graph over the node limit keeps no more).
  struct Range {
    std::uint32_t offset = 0;
    std::uint32_t size = 0;
  };
  // `raw[k]`, where set, is the range of graph initializer k's raw_data (see initializer_raw_data).
  OnnxNodes(std::span<const std::byte> bytes, std::vector<Range> serialized, int count,
            std::vector<std::optional<Range>> raw = {})
      : bytes_(bytes), serialized_(std::move(serialized)), count_(count), raw_(std::move(raw)) {}

  [[nodiscard]] int size() const { return graph_ != nullptr ? graph_->node_size() : count_; }
  // Node i: a reference into the parsed graph, or `scratch` parsed from node i's bytes; null when
  // those bytes are not a valid NodeProto or were not kept. Valid until `scratch` is used again.
  [[nodiscard]] const onnx::NodeProto* at(int i, onnx::NodeProto& scratch) const;
  // The model's bytes the serialized nodes lie in (empty for a parsed graph).
  [[nodiscard]] std::span<const std::byte> bytes() const { return bytes_; }
  // True when the nodes are serialized (parsed node by node), false for a parsed graph.
  [[nodiscard]] bool serialized() const { return graph_ == nullptr; }

  // The raw_data of graph initializer k, when the split left it in the file's bytes instead of
  // copying it into the message (whose raw_data is then unset); nullopt otherwise: the message's
  // own raw_data field, if any, holds it.
  [[nodiscard]] std::optional<std::span<const std::byte>> initializer_raw_data(int k) const;

 private:
  const onnx::GraphProto* graph_ = nullptr;
  std::span<const std::byte> bytes_;
  std::vector<Range> serialized_;
  int count_ = 0;
  std::vector<std::optional<Range>> raw_;  // by initializer index
};

// Splits `bytes` (at most INT_MAX bytes) as described above: fills `model` (empty on entry) with
// every field but the graph's nodes and the initializers' raw_data, and returns the nodes and those
// raw_data fields as ranges of `bytes`, which must outlive them. (An initializer's raw_data is
// its weights, nearly all of a real model's bytes; leaving it in place saves copying them into
// the message, and the importer reads them from the file's bytes.) Past `max_kept` nodes (the
// caller's node limit) the rest are counted, not kept, so a hostile file of millions of empty nodes
// costs no memory beyond the limit before the caller rejects it. nullopt when the framing is not
// the plain form this walk reads or a piece fails to parse; the caller then parses the whole
// message, whose outcome is protobuf's own verdict.
[[nodiscard]] std::optional<OnnxNodes> split_onnx_model(std::span<const std::byte> bytes,
                                                        onnx::ModelProto& model,
                                                        std::size_t max_kept);

}  // namespace nnplan::format::onnx_import
