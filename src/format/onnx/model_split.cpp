// The framing walk behind `split_onnx_model` (see the header for why and what it guarantees).
#include "model_split.hpp"

#include <google/protobuf/io/coded_stream.h>

#include <limits>
#include <string>

namespace nnplan::format::onnx_import {
namespace {

using google::protobuf::io::CodedInputStream;

// Wire types of the protobuf encoding: a tag is (field number << 3) | wire type.
enum WireType : std::uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

constexpr std::uint32_t make_tag(int field_number, WireType wire) {
  return (static_cast<std::uint32_t>(field_number) << 3U) | wire;
}
constexpr std::uint32_t tag_wire_type(std::uint32_t tag) {
  return tag & 7U;
}
constexpr int tag_field_number(std::uint32_t tag) {
  return static_cast<int>(tag >> 3U);
}

bool skip_field(CodedInputStream& in, std::uint32_t tag);

// Skips the fields of a group up to its end-group tag (or the end of the buffer), which is left
// as the stream's last tag.
bool skip_group_fields(CodedInputStream& in) {
  while (true) {
    const std::uint32_t tag = in.ReadTag();
    if (tag == 0 || tag_wire_type(tag) == kEndGroup) return true;
    if (!skip_field(in, tag)) return false;
  }
}

// Skips the value of the field whose tag `in` has just read; false when the tag or the value is
// malformed. A group spends one level of the stream's recursion budget and must end with the
// end-group tag of its own field number.
bool skip_field(CodedInputStream& in, std::uint32_t tag) {
  const int number = tag_field_number(tag);
  if (number == 0) return false;
  switch (tag_wire_type(tag)) {
    case kVarint: {
      std::uint64_t value = 0;
      return in.ReadVarint64(&value);
    }
    case kFixed64: {
      std::uint64_t value = 0;
      return in.ReadLittleEndian64(&value);
    }
    case kLengthDelimited: {
      std::uint32_t length = 0;
      return in.ReadVarint32(&length) && in.Skip(static_cast<int>(length));
    }
    case kStartGroup: {
      if (!in.IncrementRecursionDepth()) return false;
      if (!skip_group_fields(in)) return false;
      in.DecrementRecursionDepth();
      return in.LastTagWas(make_tag(number, kEndGroup));
    }
    case kFixed32: {
      std::uint32_t value = 0;
      return in.ReadLittleEndian32(&value);
    }
    default:  // an end-group tag without its start, or wire type 6 or 7
      return false;
  }
}

const std::uint8_t* as_u8(const std::byte* p) {
  return reinterpret_cast<const std::uint8_t*>(p);
}

// One field of a message: its byte range (tag included) within the walked buffer, the field
// number, and for a length-delimited field the range of its payload.
struct Field {
  int begin = 0;
  int end = 0;
  int number = 0;
  bool delimited = false;
  int payload_begin = 0;
};

// Reads the next field of `in` into `f`; false at the end of the buffer or on malformed framing
// (`done` tells which).
bool next_field(CodedInputStream& in, int size, Field& f, bool& done) {
  f.begin = in.CurrentPosition();
  done = f.begin == size;
  if (done) return false;
  const std::uint32_t tag = in.ReadTag();
  if (tag == 0) return false;
  const std::uint32_t wire = tag_wire_type(tag);
  f.number = tag_field_number(tag);
  f.delimited = wire == kLengthDelimited;
  if (wire == kEndGroup) return false;
  if (f.delimited) {
    std::uint32_t length = 0;
    if (!in.ReadVarint32(&length)) return false;
    f.payload_begin = in.CurrentPosition();
    if (length > static_cast<std::uint32_t>(size - f.payload_begin)) return false;
    if (!in.Skip(static_cast<int>(length))) return false;
  } else if (!skip_field(in, tag)) {
    return false;
  }
  f.end = in.CurrentPosition();
  return true;
}

// Nesting: the full parse of a ModelProto starts with protobuf's default recursion budget and
// spends one level on each message or group it enters, so a graph's fields are read with one
// level less and a node's with two. Each piece here is read with the budget the full parse would
// have left at that depth, so that nesting rejects (or accepts) exactly what it would.
int budget_at_depth(int depth) {
  return CodedInputStream::GetDefaultRecursionLimit() - depth;
}
constexpr int kModelDepth = 0;
constexpr int kGraphDepth = 1;
constexpr int kNodeDepth = 2;
constexpr int kTensorDepth = 2;  // a graph initializer

// The tag of a graph's node field.
constexpr std::uint32_t kNodeTag = make_tag(onnx::GraphProto::kNodeFieldNumber, kLengthDelimited);

// Merges `bytes` (whole fields of `message`, read at nesting `depth`) into it.
bool merge(google::protobuf::MessageLite& message, std::span<const std::byte> bytes, int depth) {
  if (bytes.empty()) return true;
  CodedInputStream in(as_u8(bytes.data()), static_cast<int>(bytes.size()));
  in.SetRecursionLimit(budget_at_depth(depth));
  return message.MergeFromCodedStream(&in) && in.ConsumedEntireMessage();
}

// Walks the TensorProto payload `tensor` (an initializer at offset `base` of the model): its
// raw_data fields are left where they are, the last one's range returned in `raw` (protobuf keeps
// the last of a repeated scalar field), and every other run of fields is merged into `out`.
bool split_tensor(std::span<const std::byte> tensor, std::uint32_t base, onnx::TensorProto& out,
                  std::optional<OnnxNodes::Range>& raw) {
  const int size = static_cast<int>(tensor.size());
  CodedInputStream in(as_u8(tensor.data()), size);
  in.SetRecursionLimit(budget_at_depth(kTensorDepth));
  int run_begin = 0;
  Field f;
  bool done = false;
  while (next_field(in, size, f, done)) {
    if (f.number != onnx::TensorProto::kRawDataFieldNumber) continue;
    if (!f.delimited) return false;
    if (!merge(out, tensor.subspan(run_begin, f.begin - run_begin), kTensorDepth)) return false;
    run_begin = f.end;
    raw = OnnxNodes::Range{.offset = base + static_cast<std::uint32_t>(f.payload_begin),
                           .size = static_cast<std::uint32_t>(f.end - f.payload_begin)};
  }
  return done && merge(out, tensor.subspan(run_begin, size - run_begin), kTensorDepth);
}

// Walks the GraphProto payload `graph`: node fields become ranges (offset by `base`, the payload's
// offset in the model), initializers are split (split_tensor), and every other run of fields is
// merged into `out`.
bool split_graph(std::span<const std::byte> graph, std::uint32_t base, onnx::GraphProto& out,
                 std::vector<OnnxNodes::Range>& nodes, std::size_t max_kept, int& count,
                 std::vector<std::optional<OnnxNodes::Range>>& raw) {
  const auto counted = [&] { ++count; };
  const int size = static_cast<int>(graph.size());
  CodedInputStream in(as_u8(graph.data()), size);
  in.SetRecursionLimit(budget_at_depth(kGraphDepth));  // skipping groups spends it too
  int run_begin = 0;  // the start of the current run of fields merged as they are
  Field f;
  bool done = false;
  while (next_field(in, size, f, done)) {
    const bool node = f.number == onnx::GraphProto::kNodeFieldNumber;
    const bool initializer = f.number == onnx::GraphProto::kInitializerFieldNumber;
    if (!node && !initializer) continue;
    if (!f.delimited) return false;  // protobuf's own parser decides what that means
    if (!merge(out, graph.subspan(run_begin, f.begin - run_begin), kGraphDepth)) return false;
    run_begin = f.end;
    if (initializer) {
      // Earlier runs may have added initializers too: this one's index is the current count.
      raw.resize(static_cast<std::size_t>(out.initializer_size()));
      std::optional<OnnxNodes::Range>& range = raw.emplace_back();
      if (!split_tensor(graph.subspan(f.payload_begin, f.end - f.payload_begin),
                        base + static_cast<std::uint32_t>(f.payload_begin), *out.add_initializer(),
                        range)) {
        return false;
      }
      continue;
    }
    counted();  // at most one node per 2 bytes of a 2 GiB message: fits an int
    if (nodes.size() < max_kept) {
      nodes.push_back({.offset = base + static_cast<std::uint32_t>(f.payload_begin),
                       .size = static_cast<std::uint32_t>(f.end - f.payload_begin)});
    }
    // Nodes come in a run: while the next tag is a node's (ExpectTag, protobuf's inline check
    // for a repeated field), take them here; anything else goes back to next_field.
    while (in.ExpectTag(kNodeTag)) {
      std::uint32_t length = 0;
      if (!in.ReadVarint32(&length)) return false;
      const int payload = in.CurrentPosition();
      if (length > static_cast<std::uint32_t>(size - payload) ||
          !in.Skip(static_cast<int>(length))) {
        return false;
      }
      counted();
      if (nodes.size() < max_kept) {
        nodes.push_back({.offset = base + static_cast<std::uint32_t>(payload), .size = length});
      }
    }
    run_begin = in.CurrentPosition();
  }
  return done && merge(out, graph.subspan(run_begin, size - run_begin), kGraphDepth);
}

}  // namespace

std::optional<std::span<const std::byte>> OnnxNodes::initializer_raw_data(int k) const {
  if (k < 0 || static_cast<std::size_t>(k) >= raw_.size() || !raw_[static_cast<std::size_t>(k)]) {
    return std::nullopt;
  }
  const Range r = *raw_[static_cast<std::size_t>(k)];
  return bytes_.subspan(r.offset, r.size);
}

const onnx::NodeProto* OnnxNodes::at(int i, onnx::NodeProto& scratch) const {
  if (graph_ != nullptr) return &graph_->node(i);
  if (static_cast<std::size_t>(i) >= serialized_.size()) return nullptr;
  const Range r = serialized_[static_cast<std::size_t>(i)];
  const std::byte* data = bytes_.data() + r.offset;
  // Each level of nesting takes at least two bytes (a tag and a length, or a start and an end
  // tag), so a node shorter than twice its budget cannot come near it: ParseFromArray, whose
  // budget is larger, decides such a node exactly as the node-level budget would.
  if (r.size < 2 * static_cast<std::uint32_t>(budget_at_depth(kNodeDepth))) {
    if (!scratch.ParseFromArray(data, static_cast<int>(r.size))) return nullptr;
    return &scratch;
  }
  CodedInputStream in(as_u8(data), static_cast<int>(r.size));
  in.SetRecursionLimit(budget_at_depth(kNodeDepth));
  scratch.Clear();
  if (!scratch.MergeFromCodedStream(&in) || !in.ConsumedEntireMessage()) return nullptr;
  return &scratch;
}

std::optional<OnnxNodes> split_onnx_model(std::span<const std::byte> bytes, onnx::ModelProto& model,
                                          std::size_t max_kept) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return std::nullopt;  // past protobuf's INT_MAX bytes: the full parse gives the verdict
  }
  const int size = static_cast<int>(bytes.size());
  CodedInputStream in(as_u8(bytes.data()), size);
  in.SetRecursionLimit(budget_at_depth(kModelDepth));
  std::string rest;  // the model's fields other than graph: a few small ones
  std::vector<OnnxNodes::Range> nodes;
  std::vector<std::optional<OnnxNodes::Range>> raw;
  int count = 0;
  Field f;
  bool done = false;
  while (next_field(in, size, f, done)) {
    if (f.number != onnx::ModelProto::kGraphFieldNumber) {
      rest.append(reinterpret_cast<const char*>(bytes.data()) + f.begin,
                  static_cast<std::size_t>(f.end - f.begin));
      continue;
    }
    if (!f.delimited) return std::nullopt;
    if (!split_graph(bytes.subspan(f.payload_begin, f.end - f.payload_begin),
                     static_cast<std::uint32_t>(f.payload_begin), *model.mutable_graph(), nodes,
                     max_kept, count, raw)) {
      return std::nullopt;
    }
  }
  if (!done || !merge(model, std::as_bytes(std::span(rest)), kModelDepth)) return std::nullopt;
  raw.resize(static_cast<std::size_t>(model.graph().initializer_size()));
  return OnnxNodes(bytes, std::move(nodes), count, std::move(raw));
}

}  // namespace nnplan::format::onnx_import
