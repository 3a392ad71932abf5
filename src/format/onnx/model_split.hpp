// Reading a serialized ONNX ModelProto with its graph's nodes and its initializers' raw_data left
// in the file's bytes.
//
// `split_onnx_model` first holds the bytes to the limits of wire_check.hpp (which builds nothing),
// then walks the message framing with protobuf's public CodedInputStream, decoding the tags
// itself (field numbers from ONNX's generated classes), parses every field the importer reads
// except `graph.node` and the initializers' `raw_data` with ONNX's generated classes as usual,
// drops the fields it does not read, and keeps
// each node as the span of its serialized NodeProto; `OnnxNodes::at` parses one node into a reused
// message when the importer reaches it, so a corrupt node is reported by its position, after the
// problems of the nodes before it, and the weights are never copied for a graph-only import.
// Parsing the pieces is equivalent to parsing the whole message: protobuf defines a serialized
// message as the concatenation of its fields, and merging the fields piece by piece in file order
// (repeated fields append, later scalars win) gives the same message. The same holds one level down
// for each initializer, a TensorProto whose raw_data field is kept as a range. Framing the walk
// does not recognize (a malformed tag, a truncated length) is left to the full parse. The split
// departs from protobuf's verdict only where ONNX's does: it refuses a known field of the wrong
// wire type (protobuf would keep it as an unknown field and the importer would see the field
// missing) and anything past the limits; and a dropped field is checked by check_wire's walk,
// not by protobuf's parser.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
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
  // those bytes are not a valid NodeProto, break a limit of check_wire (which runs first, so that
  // nothing past a limit is built; `problem`, when given, then says which) or were not kept.
  // Valid until `scratch` is used again.
  [[nodiscard]] const onnx::NodeProto* at(int i, onnx::NodeProto& scratch,
                                          std::string* problem = nullptr) const;
  // How messages name serialized node i before it is parsed: "; 'name', OpType" from the fields
  // of its bytes (names escaped and capped; either may be missing), empty when it has neither.
  [[nodiscard]] std::string label(int i) const;
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

// What split_onnx_model gives: the nodes; or a refusal, the problem check_wire found in the model
// (its graph's nodes excepted); or neither, when the framing is not the plain form the split reads
// (the caller then parses the whole message, whose outcome is protobuf's own verdict).
struct SplitModel {
  std::optional<OnnxNodes> nodes;
  std::string refusal;
};

// Checks `bytes` (at most INT_MAX bytes) with check_wire, then splits it as described above:
// fills `model` (empty on entry) with the fields the importer reads, except the graph's nodes
// and the initializers' raw_data (fields it does not read, such as metadata_props, value_info
// and doc strings, are checked and dropped without being built), and returns the nodes and those
// raw_data fields as ranges of `bytes`, which must outlive them. (An initializer's raw_data is
// its weights, nearly all of a real model's bytes; leaving it in place saves copying them into
// the message, and the importer reads them from the file's bytes.) Past `max_kept` nodes (the
// caller's node limit) the rest are counted, not kept, so a hostile file of millions of empty nodes
// costs no memory beyond the limit before the caller rejects it.
[[nodiscard]] SplitModel split_onnx_model(std::span<const std::byte> bytes, onnx::ModelProto& model,
                                          std::size_t max_kept);

}  // namespace nnplan::format::onnx_import
