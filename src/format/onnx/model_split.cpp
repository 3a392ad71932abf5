// The framing walk behind `split_onnx_model` (see the header for why and what it guarantees).
#include "model_split.hpp"

#include <google/protobuf/io/coded_stream.h>

#include "../message_text.hpp"
#include "wire_check.hpp"
#include "wire_format.hpp"

#include <limits>
#include <string>

namespace nnplan::format::onnx_import {
namespace {

using namespace wire;

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

// The fields of a GraphProto and a ModelProto the importer reads; the others (doc strings,
// value_info, metadata, training_info, quantization annotations, unknown fields) were checked by
// check_wire and are dropped without being built.
bool graph_field_read(int number) {
  return number == onnx::GraphProto::kNameFieldNumber ||
         number == onnx::GraphProto::kInputFieldNumber ||
         number == onnx::GraphProto::kOutputFieldNumber ||
         number == onnx::GraphProto::kSparseInitializerFieldNumber;
}
bool model_field_read(int number) {
  return number == onnx::ModelProto::kIrVersionFieldNumber ||
         number == onnx::ModelProto::kOpsetImportFieldNumber ||
         number == onnx::ModelProto::kProducerNameFieldNumber ||
         number == onnx::ModelProto::kProducerVersionFieldNumber ||
         number == onnx::ModelProto::kFunctionsFieldNumber;
}

// Walks the GraphProto payload `graph`: node fields become ranges (offset by `base`, the payload's
// offset in the model), initializers are split (split_tensor), and every other run of fields is
// merged into `out`, except fields the importer does not read, which are dropped.
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
    if (!node && !initializer && graph_field_read(f.number)) continue;
    if ((node || initializer) && !f.delimited) return false;  // check_wire refused it already
    if (!merge(out, graph.subspan(run_begin, f.begin - run_begin), kGraphDepth)) return false;
    run_begin = f.end;
    if (!node && !initializer) continue;  // a field the importer does not read: dropped
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

std::string OnnxNodes::label(int i) const {
  if (graph_ != nullptr || static_cast<std::size_t>(i) >= serialized_.size()) return {};
  const Range r = serialized_[static_cast<std::size_t>(i)];
  CodedInputStream in(as_u8(bytes_.data() + r.offset), static_cast<int>(r.size));
  std::string_view name;
  std::string_view op;
  Field f;
  bool done = false;
  const auto text = [&](const Field& field) {
    return std::string_view(
        reinterpret_cast<const char*>(bytes_.data()) + r.offset + field.payload_begin,
        static_cast<std::size_t>(field.end - field.payload_begin));
  };
  while (next_field(in, static_cast<int>(r.size), f, done)) {
    if (!f.delimited) continue;
    if (f.number == onnx::NodeProto::kNameFieldNumber) name = text(f);
    if (f.number == onnx::NodeProto::kOpTypeFieldNumber) op = text(f);
  }
  if (name.empty() && op.empty()) return {};
  if (name.empty()) return "; " + detail::capped_name(op);
  if (op.empty()) return "; " + detail::quoted_name(name);
  return "; " + detail::quoted_name(name) + ", " + detail::capped_name(op);
}

const onnx::NodeProto* OnnxNodes::at(int i, onnx::NodeProto& scratch, std::string* problem) const {
  if (graph_ != nullptr) return &graph_->node(i);
  if (static_cast<std::size_t>(i) >= serialized_.size()) return nullptr;
  const Range r = serialized_[static_cast<std::size_t>(i)];
  const std::byte* data = bytes_.data() + r.offset;
  if (std::optional<std::string> p =
          check_wire(bytes_.subspan(r.offset, r.size), *onnx::NodeProto::descriptor(),
                     budget_at_depth(kNodeDepth))) {
    if (problem != nullptr) *problem = std::move(*p);
    return nullptr;
  }
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

SplitModel split_onnx_model(std::span<const std::byte> bytes, onnx::ModelProto& model,
                            std::size_t max_kept) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return {};  // past protobuf's INT_MAX bytes: the full parse gives the verdict
  }
  static constexpr int kGraphNodePath[] = {onnx::ModelProto::kGraphFieldNumber,
                                           onnx::GraphProto::kNodeFieldNumber};
  if (std::optional<std::string> problem = check_wire(
          bytes, *onnx::ModelProto::descriptor(), budget_at_depth(kModelDepth), kGraphNodePath)) {
    return {.refusal = std::move(*problem)};
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
      if (model_field_read(f.number)) {
        rest.append(reinterpret_cast<const char*>(bytes.data()) + f.begin,
                    static_cast<std::size_t>(f.end - f.begin));
      }
      continue;
    }
    if (!f.delimited) return {};  // check_wire refused it already
    if (!split_graph(bytes.subspan(f.payload_begin, f.end - f.payload_begin),
                     static_cast<std::uint32_t>(f.payload_begin), *model.mutable_graph(), nodes,
                     max_kept, count, raw)) {
      return {};
    }
  }
  if (!done || !merge(model, std::as_bytes(std::span(rest)), kModelDepth)) return {};
  raw.resize(static_cast<std::size_t>(model.graph().initializer_size()));
  return {.nodes = OnnxNodes(bytes, std::move(nodes), count, std::move(raw))};
}

}  // namespace nnplan::format::onnx_import
