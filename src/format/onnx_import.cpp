// ONNX import: a ModelProto, decoded by the protobuf classes ONNX generates from its own schema
// (Debian's libonnx-dev), becomes an ir::Graph plus the payloads of its constants and weights.
// The graph's nodes stay serialized until the importer reaches them (onnx_model_split.hpp); a
// second thread reads them a few batches ahead and numbers their values (onnx_node_reader.hpp):
// the importer maps value numbers to IR nodes in an array, and keeps names (copies: a node's
// names may live only while it is imported) only in the tables of the rarer kinds of value.
//
// The importer walks graph.node once, in the file's (topological) order. Every ONNX tensor name
// resolves to one of: an IR node that produces it, a constant known at import time (initializers
// and Constant outputs; materialized as a `const` node only when consumed as a plain tensor, and
// folded straight into linear/conv2d/batch_norm2d_nchw_eval payloads when consumed there), or a
// pending Pad (zero padding waiting to be folded into the Conv or pooling node that consumes it).
// Each IR node is added through ir::CheckedGraphBuilder, which checks it and infers its shape, so
// the result is checked by construction.
//
// Failures are reported from deep inside the operator handlers; they throw a private
// ImportFailure that import_onnx catches and returns as an Error, so no exception crosses the API
// and the dozens of handler steps need no error plumbing each.
//
// Semantic assumption (docs/onnx-support.md): `avg_pool2d_pad` divides by the full window
// (kH*kW), counting the zero padding, as PyTorch's AvgPool2d with count_include_pad=True does.
// ONNX AveragePool with pads and count_include_pad=0 is therefore rejected, and a zero Pad folds
// into a following AveragePool exactly. `max_pool2d_pad` pads with -inf, as ONNX MaxPool does; a
// zero Pad folds into MaxPool only when its input is non-negative by construction.
#include "nnplan/format/onnx_import.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>

#include "bounded_file.hpp"
#include "name_table.hpp"
#include "nnplan/format/limits.hpp"
#include "nnplan/ir/check.hpp"
#include "nnplan/large_memory.hpp"
#include "onnx_model_split.hpp"
#include "onnx_node_reader.hpp"
#include "onnx_ops.hpp"

namespace nnplan::format {
namespace {

static_assert(std::endian::native == std::endian::little,
              "ONNX raw_data is little-endian; the importer copies it as is");

using detail::find_onnx_op;
using detail::kSupportedOps;
using detail::NamePool;
using detail::OnnxOp;
using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

constexpr std::int64_t kMaxOpset = 17;

// Little-endian `T`s read one by one from bytes of any alignment (ONNX raw_data), so that a
// vector is built straight from the bytes: one allocation, no zero-fill before the copy.
template <class T>
struct RawIter {
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = const T*;
  using reference = T;
  const char* p = nullptr;
  T operator*() const {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  }
  RawIter& operator++() {
    p += sizeof(T);
    return *this;
  }
  RawIter operator++(int) {
    RawIter old = *this;
    p += sizeof(T);
    return old;
  }
  difference_type operator-(const RawIter& o) const {
    return (p - o.p) / static_cast<difference_type>(sizeof(T));
  }
  bool operator==(const RawIter& o) const { return p == o.p; }
};
template <class T>
std::vector<T> raw_vector(std::string_view raw) {
  return std::vector<T>(RawIter<T>{raw.data()}, RawIter<T>{raw.data() + raw.size()});
}

// `std::string + std::string_view`, which C++26 adds to the standard library: the importer's
// messages quote node names, which are views into the node being read.
std::string operator+(std::string lhs, std::string_view rhs) {
  lhs.append(rhs);
  return lhs;
}

struct ImportFailure {
  Error error;
};

std::string str(std::int64_t v) {
  return std::to_string(v);
}
std::string str(std::uint64_t v) {
  return std::to_string(v);
}
std::string str(int v) {
  return std::to_string(v);
}
std::string str(unsigned v) {
  return std::to_string(v);
}

std::string str(float v) {
  std::array<char, 64> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), r.ptr);
}

template <class T>
std::string list_string(const std::vector<T>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i != 0) out += ',';
    out += str(v[i]);
  }
  return out + "]";
}

std::string supported_list() {
  std::string out;
  for (const std::string_view op : kSupportedOps) {
    if (!out.empty()) out += ", ";
    out += op;
  }
  return out;
}

std::string dtype_name(int t) {
  switch (t) {
    case onnx::TensorProto_DataType_FLOAT:
      return "float32";
    case onnx::TensorProto_DataType_DOUBLE:
      return "float64";
    case onnx::TensorProto_DataType_FLOAT16:
      return "float16";
    default:
      break;
  }
  if (!onnx::TensorProto_DataType_IsValid(t)) return "unknown data type " + str(t);
  std::string name = onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t));
  for (char& c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

// A tensor whose value is known at import time: float32 data, or integers (int64, int32, bool)
// for shape-like inputs (Reshape shape, ReduceSum axes, Pad pads). Other data types are kept
// with their dtype only, so that a use can name it.
struct ConstTensor {
  std::vector<Dim> dims;
  int dtype = 0;
  // Float data, decoded on first use (Importer::floats_of) from `raw_floats` when that is set: the
  // raw_data of an initializer, still in the file's bytes or the parsed message, which outlive the
  // import. A weight that only becomes a payload is then decoded once, straight into it, or never
  // when the import keeps no payloads.
  std::vector<float> floats;
  std::string_view raw_floats;
  std::vector<std::int64_t> ints;
  std::string source;          // the tensor name, or the Constant node's name
  std::optional<NodeId> node;  // the `const` node, once materialized
};
using ConstPtr = std::shared_ptr<ConstTensor>;

// Zero padding of H and W by `padding`, waiting for the Conv or pooling node consuming it.
struct PendingPad {
  std::string input;              // the tensor the Pad node padded
  std::uint32_t input_value = 0;  // its value number (onnx_node_reader.hpp)
  std::uint32_t padding = 0;
  std::string pad_node;  // the Pad node's name, for messages
};

bool is_default_domain(std::string_view domain) {
  return domain.empty() || domain == "ai.onnx";
}

class Importer {
 public:
  // `thread`, when given, is started early for the node reader's worker (onnx_node_reader.hpp).
  Importer(const onnx::ModelProto& model, const detail::OnnxNodes& nodes, std::string_view source,
           const OnnxImportOptions& options, detail::ReaderThread* thread = nullptr)
      : model_(model), nodes_(nodes), source_(source), options_(options), thread_(thread) {}

  ImportedModel run();

 private:
  // ---- errors ----
  [[noreturn]] void fail_model(const std::string& reason) const {
    std::string msg = source_.empty() ? reason : std::string(source_) + ": " + reason;
    throw ImportFailure{make_error(ErrorKind::invalid_input, std::move(msg))};
  }
  [[noreturn]] void fail(const std::string& reason) const {
    if (cur_ == nullptr) fail_model(reason);
    fail_model("node '" + std::string(cur_name()) + "' (" + std::string(cur_->op_type) +
               ", opset " + str(opset_) + "): " + reason);
  }
  [[noreturn]] void fail_attr(const std::string& name, const std::string& value,
                              const std::string& supported) const {
    fail("attribute " + name + " = " + value + " is not supported; supported: " + supported);
  }

  // The current node's name (`<op_type>_<index>` when it has none); valid while it is imported.
  std::string_view cur_name() const { return cur_->name.empty() ? unnamed_ : cur_->name; }

  // ---- attributes ----
  const onnx::AttributeProto* attr(std::string_view name) const {
    for (const auto& a : cur_->proto->attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  void allow_attrs(std::initializer_list<std::string_view> names) const {
    for (const auto& a : cur_->proto->attribute()) {
      if (std::find(names.begin(), names.end(), a.name()) == names.end()) {
        fail("attribute " + a.name() + " is not supported for " + std::string(cur_->op_type));
      }
    }
  }
  const onnx::AttributeProto* typed(std::string_view name,
                                    onnx::AttributeProto_AttributeType type) const {
    const onnx::AttributeProto* a = attr(name);
    if (a != nullptr && a->type() != type &&
        a->type() != onnx::AttributeProto_AttributeType_UNDEFINED) {
      fail("attribute " + std::string(name) + " has type " +
           onnx::AttributeProto_AttributeType_Name(a->type()) + ", expected " +
           onnx::AttributeProto_AttributeType_Name(type));
    }
    return a;
  }
  std::int64_t attr_int(std::string_view name, std::int64_t def) const {
    const auto* a = typed(name, onnx::AttributeProto_AttributeType_INT);
    return a == nullptr ? def : a->i();
  }
  float attr_float(std::string_view name, float def) const {
    const auto* a = typed(name, onnx::AttributeProto_AttributeType_FLOAT);
    return a == nullptr ? def : a->f();
  }
  std::string attr_string(std::string_view name, std::string def) const {
    const auto* a = typed(name, onnx::AttributeProto_AttributeType_STRING);
    return a == nullptr ? def : a->s();
  }
  std::optional<std::vector<std::int64_t>> attr_ints(std::string_view name) const {
    const auto* a = typed(name, onnx::AttributeProto_AttributeType_INTS);
    if (a == nullptr) return std::nullopt;
    return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
  }

  // ---- node inputs and outputs ----
  // Views into the current node's names (empty for an absent one), valid while it is imported: a
  // table that keeps one as a key keeps a copy (keep()).
  std::string_view in_name(int i) const {
    return static_cast<std::size_t>(i) < cur_->inputs.size()
               ? cur_->inputs[static_cast<std::size_t>(i)]
               : std::string_view();
  }
  bool has_in(int i) const { return !in_name(i).empty(); }
  // The value number (onnx_node_reader.hpp) of `name`, one of the current node's own input or
  // output views; kNoValue for any other name.
  std::uint32_t value_of(std::string_view name) const {
    if (cur_ != nullptr) {
      for (std::size_t k = 0; k < cur_->inputs.size(); ++k)
        if (cur_->inputs[k].data() == name.data() && cur_->inputs[k].size() == name.size())
          return cur_->input_values[k];
      for (std::size_t k = 0; k < cur_->outputs.size(); ++k)
        if (cur_->outputs[k].data() == name.data() && cur_->outputs[k].size() == name.size())
          return cur_->output_values[k];
    }
    return detail::kNoValue;
  }
  // The IR node holding value `v`; kNoNode when none does (yet): no value, or one defined as
  // something else (a constant, a pending Pad, a rejected graph input), which the tables by name
  // hold.
  static constexpr NodeId kNoNode = 0xFFFFFFFFu;
  NodeId node_of(std::uint32_t v) const {
    return v < value_nodes_.size() ? value_nodes_[v] : kNoNode;
  }
  void set_value_node(std::uint32_t v, NodeId id) {
    if (v == detail::kNoValue) return;
    if (v >= value_nodes_.size())
      value_nodes_.resize(std::max<std::size_t>(v + 1, 2 * value_nodes_.size()), kNoNode);
    value_nodes_[v] = id;
  }
  int input_count() const { return static_cast<int>(cur_->inputs.size()); }
  int output_count() const { return static_cast<int>(cur_->outputs.size()); }
  std::string_view out_name(int i) const {
    return static_cast<std::size_t>(i) < cur_->outputs.size()
               ? cur_->outputs[static_cast<std::size_t>(i)]
               : std::string_view();
  }
  bool used(std::string_view name) const {
    index_consumers();
    return !name.empty() && (tensor_slots_.contains(name) || graph_outputs_.contains(name));
  }
  // Builds the consumer index on first use: only Pad, Dropout and the weights moved into payloads
  // need it, so a graph without them never pays for it.
  void index_consumers() const {
    if (consumers_indexed_) return;
    consumers_indexed_ = true;
    // Consumers as one flat array (counting sort by tensor slot): no vector per tensor.
    std::vector<std::uint32_t> use_slots;
    std::vector<int> use_nodes;
    for (int i = 0; i < nodes_.size(); ++i) {
      // A corrupt node is reported when the import reaches it, so that the first problem in node
      // order is the one reported, with or without payloads; here it uses nothing.
      const onnx::NodeProto* node = nodes_.at(i, probe_);
      if (node == nullptr) continue;
      for (const std::string& in : node->input()) {
        if (in.empty()) continue;
        auto it = tensor_slots_.find(in);
        if (it == tensor_slots_.end()) {
          it = tensor_slots_
                   .emplace(names_.keep(in), static_cast<std::uint32_t>(tensor_slots_.size()))
                   .first;
          consumer_offsets_.push_back(0);
        }
        ++consumer_offsets_[it->second];
        use_slots.push_back(it->second);
        use_nodes.push_back(i);
      }
    }
    // Counts to start offsets, plus the end.
    std::uint32_t start = 0;
    for (std::uint32_t& c : consumer_offsets_)
      start += std::exchange(c, start);
    consumer_offsets_.push_back(start);
    consumer_nodes_.resize(use_slots.size());
    std::vector<std::uint32_t> next(consumer_offsets_.begin(), consumer_offsets_.end() - 1);
    for (std::size_t k = 0; k < use_slots.size(); ++k)
      consumer_nodes_[next[use_slots[k]]++] = use_nodes[k];
  }
  // The indices of the nodes consuming tensor `name`, once per use, in node order.
  std::span<const int> consumers(std::string_view name) const {
    index_consumers();
    const auto it = tensor_slots_.find(name);
    if (it == tensor_slots_.end()) return {};
    return std::span<const int>(consumer_nodes_)
        .subspan(consumer_offsets_[it->second],
                 consumer_offsets_[it->second + 1] - consumer_offsets_[it->second]);
  }
  void require_inputs(int min, int max) const {
    int n = input_count();
    while (n > 0 && in_name(n - 1).empty())
      --n;
    if (n < min || n > max) {
      fail("has " + str(n) + " inputs, expected " +
           (min == max ? str(min) : str(min) + ".." + str(max)));
    }
  }
  // Rejects any output past the first that a node or the graph uses.
  void only_first_output(std::initializer_list<std::string_view> names) const {
    for (int i = 1; i < output_count(); ++i) {
      if (used(out_name(i))) {
        const std::string what =
            static_cast<std::size_t>(i) < names.size() ? std::string(names.begin()[i]) + " " : "";
        fail("output " + str(i) + " " + what + "('" + std::string(out_name(i)) +
             "') is used; only the first output is supported");
      }
    }
  }

  // ---- tensors ----
  // An operand that must be known at import time (a weight, a shape, axes) is not.
  [[noreturn]] void fail_not_constant(std::string_view name, std::string_view role) const {
    const std::string what =
        graph_inputs_.contains(name) ? "' is a graph input, not a constant" : "' is not a constant";
    fail(std::string(role) + " '" + name + what +
         " (an initializer or a Constant output); it must be one");
  }
  // A graph input the IR cannot hold as a tensor fails with `reason` once a node consumes it as
  // one, so that an op needing a constant there (Reshape's shape) names that problem instead.
  [[noreturn]] void fail_rejected_input(std::string_view name) const {
    fail_model(rejected_inputs_.at(name));
  }
  // `split_raw`: the tensor's raw_data where the split left it in the file (an initializer's).
  // `stable`: `t` (an initializer) outlives the import, so float data may stay undecoded.
  ConstPtr read_tensor(const onnx::TensorProto& t, std::string source, bool stable,
                       std::optional<std::span<const std::byte>> split_raw = std::nullopt) const;
  ConstPtr constant(std::string_view name) const {
    const auto it = consts_.find(name);
    return it == consts_.end() ? nullptr : it->second;
  }
  ConstPtr float_constant(std::string_view name, std::string_view role) const {
    ConstPtr c = constant(name);
    if (c == nullptr) fail_not_constant(name, role);
    require_float(*c);
    return c;
  }
  void require_float(const ConstTensor& c) const {
    if (c.dtype != onnx::TensorProto_DataType_FLOAT) {
      fail("tensor '" + c.source + "' has data type " + dtype_name(c.dtype) +
           "; only float32 tensors are supported");
    }
  }
  std::vector<std::int64_t> int_constant(std::string_view name, std::string_view role) const {
    ConstPtr c = constant(name);
    if (c == nullptr) fail_not_constant(name, role);
    if (c->dtype != onnx::TensorProto_DataType_INT64 &&
        c->dtype != onnx::TensorProto_DataType_INT32) {
      fail(std::string(role) + " '" + name + "' has data type " + dtype_name(c->dtype) +
           ", expected int64");
    }
    return c->ints;
  }
  // The float data of constant `c`, named `name` here: moved out when this is its only use (no
  // other name aliases it, one consuming input, not the graph output), else copied.
  std::vector<float> take_floats(const ConstPtr& c, std::string_view name) const {
    if (!options_.keep_payloads) return {};
    floats_of(*c);
    if (c.use_count() == 2 && !c->node && consumers(name).size() == 1 &&
        !graph_outputs_.contains(name)) {
      return std::move(c->floats);
    }
    return c->floats;
  }
  // The float data of `c`, decoded now if it was not yet.
  const std::vector<float>& floats_of(ConstTensor& c) const {
    if (!c.raw_floats.empty()) {
      c.floats = raw_vector<float>(c.raw_floats);
      c.raw_floats = {};
    }
    return c.floats;
  }
  // A copy of the float data of `c` for a payload; nothing when the import keeps no payloads.
  std::vector<float> payload_floats(ConstTensor& c) const {
    return options_.keep_payloads ? floats_of(c) : std::vector<float>();
  }
  // The IR node holding tensor `name`, materializing a constant as a `const` node.
  NodeId tensor(std::string_view name) { return tensor(name, value_of(name)); }
  // The same for a name whose value number is `v` (kNoValue: look it up by name only).
  NodeId tensor(std::string_view name, std::uint32_t v);
  const Shape& shape_of(NodeId id) const { return graph_.graph().nodes[id].shape; }
  Shape tensor_shape(std::string_view name) {
    if (ConstPtr c = constant(name); c != nullptr && !c->node) return Shape{c->dims};
    return shape_of(tensor(name));
  }
  // Output `name` (one of the current node's) is IR node `id`.
  void define(std::string_view name, NodeId id) { set_value_node(value_of(name), id); }
  std::optional<PendingPad> take_pad(std::string_view name) {
    const auto it = pads_.find(name);
    if (it == pads_.end()) return std::nullopt;
    return it->second;
  }

  // ---- node emission ----
  NodeId add(OpKind kind, const ir::Parents& parents, ir::OpParams params = {},
             const Shape& declared = {}, const std::string* source = nullptr);
  NodeId reshape(NodeId id, const Shape& to) {
    if (shape_of(id) == to) return id;
    return add(OpKind::reshape, {id}, ir::ReshapeParams{.in = shape_of(id), .out = to});
  }
  NodeId broadcast(NodeId id, const Shape& to) {
    if (shape_of(id) == to) return id;
    return add(OpKind::broadcast_to, {id}, ir::BroadcastParams{.from = shape_of(id), .to = to});
  }
  Shape broadcast_shapes(const Shape& a, const Shape& b) const;
  std::uint32_t norm_axis(std::int64_t axis, std::size_t rank, bool inclusive = false) const {
    const auto r = static_cast<std::int64_t>(rank);
    const std::int64_t a = axis < 0 ? axis + r : axis;
    if (a < 0 || a > r || (a == r && !inclusive)) {
      fail("axis " + str(axis) + " is out of range for rank " + str(r));
    }
    return static_cast<std::uint32_t>(a);
  }
  std::uint32_t window_padding(const Shape& in, std::uint32_t kh, std::uint32_t kw,
                               std::uint32_t stride) const;
  std::uint32_t equal_strides() const {
    const auto strides = attr_ints("strides").value_or(std::vector<std::int64_t>{1, 1});
    if (strides.size() != 2 || strides[0] != strides[1] || strides[0] < 1 ||
        strides[0] > std::numeric_limits<std::uint32_t>::max()) {
      fail_attr("strides", list_string(strides), "equal positive strides on H and W");
    }
    return static_cast<std::uint32_t>(strides[0]);
  }
  void require_rank4(const Shape& s, std::string_view what) const {
    if (s.rank() != 4) {
      fail("input " + to_string(s) + " is not (N,C,H,W); only 2-D " + std::string(what) +
           " is supported");
    }
  }

  // ---- operators ----
  void import_node();
  void unary(OpKind kind);
  NodeId combine(OpKind kind, NodeId a, NodeId b, bool divide);
  void binary(OpKind kind, bool divide = false);
  void variadic(OpKind kind);
  void matmul();
  void gemm();
  void conv();
  void pool(bool max);
  void global_pool(bool max);
  void batch_norm();
  void softmax();
  void layer_norm();
  void reshape_op();
  void flatten();
  void squeeze(bool unsqueeze);
  void concat();
  void transpose();
  void reduce(OpKind kind);
  void pad();
  void constant_node();
  void alias(std::string_view from, std::string_view to);

  // Node i, read into `scratch`; a node whose bytes are not a valid NodeProto fails the import.
  const onnx::NodeProto& node_at(int i, onnx::NodeProto& scratch) const {
    const onnx::NodeProto* node = nodes_.at(i, scratch);
    if (node == nullptr) fail_corrupt_node(i);
    return *node;
  }
  [[noreturn]] void fail_corrupt_node(int i) const {
    fail_model("not a valid ONNX model: the protobuf bytes of graph node " + str(i) +
               " (0-based) are truncated or corrupt");
  }
  std::string_view keep(std::string_view name) { return names_.keep(name); }
  // map[name] = value, copying `name` into names_ only when it is a new key.
  template <class Map, class Value>
  void set_named(Map& map, std::string_view name, Value value) {
    if (const auto it = map.find(name); it != map.end()) {
      it->second = std::move(value);
    } else {
      map.emplace(keep(name), std::move(value));
    }
  }

  const onnx::ModelProto& model_;  // every field but the graph's nodes
  const detail::OnnxNodes& nodes_;
  onnx::NodeProto node_;           // the node being imported, when read from bytes
  mutable onnx::NodeProto probe_;  // another node looked at meanwhile
  mutable NamePool names_;
  std::string_view source_;
  const OnnxImportOptions& options_;
  detail::ReaderThread* thread_;
  std::int64_t opset_ = 0;

  // Checks every node as it is added (shape inferred from its parents), so the imported graph
  // is checked by construction.
  ir::CheckedGraphBuilder graph_;
  PayloadStore payloads_;
  // Value number -> IR node (kNoNode: none), for the numbers the node reader gives names.
  std::vector<NodeId> value_nodes_;
  // Keys of the tables by name below view names held by model_ (graph inputs, outputs,
  // initializers) or copies in names_ (names from nodes, see in_name).
  std::unordered_map<std::string_view, ConstPtr> consts_;
  std::unordered_map<std::string_view, PendingPad> pads_;
  // Consumers of each tensor in one flat array: tensor_slots_ numbers the consumed tensors, and
  // slot s's consumer node indices are consumer_nodes_[consumer_offsets_[s] ..
  // consumer_offsets_[s + 1]).
  mutable bool consumers_indexed_ = false;
  mutable std::unordered_map<std::string_view, std::uint32_t> tensor_slots_;
  mutable std::vector<std::uint32_t> consumer_offsets_;
  mutable std::vector<int> consumer_nodes_;
  std::unordered_set<std::string_view> graph_outputs_;
  std::unordered_set<std::string_view> graph_inputs_;  // graph inputs that are not initializers
  // Graph inputs that are not float32 tensors, with the reason, in graph order.
  std::unordered_map<std::string_view, std::string> rejected_inputs_;
  std::vector<std::string_view> rejected_order_;

  const detail::OnnxNodeView* cur_ = nullptr;
  std::string unnamed_;  // the current node's name when it has none: `<op_type>_<index>`
};

ConstPtr Importer::read_tensor(const onnx::TensorProto& t, std::string source, bool stable,
                               std::optional<std::span<const std::byte>> split_raw) const {
  auto c = std::make_shared<ConstTensor>();
  c->source = std::move(source);
  c->dtype = t.data_type();
  const std::string& name = c->source;
  if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL || t.external_data_size() > 0) {
    fail("tensor '" + name +
         "' keeps its data in an external file (external_data); external data is not supported");
  }
  if (t.has_segment()) fail("tensor '" + name + "' is segmented; segments are not supported");
  if (static_cast<std::size_t>(t.dims_size()) > kMaxRank) {
    fail("tensor '" + name + "' has rank " + str(t.dims_size()) + "; the limit is " +
         str(kMaxRank));
  }
  Dim count = 1;
  for (const std::int64_t d : t.dims()) {
    if (d < 0) fail("tensor '" + name + "' has negative dimension " + str(d));
    if (static_cast<Dim>(d) > kMaxDim) {
      fail("tensor '" + name + "' has dimension " + str(d) + "; the limit is " + str(kMaxDim) +
           " (2^48)");
    }
    c->dims.push_back(static_cast<Dim>(d));
    const auto next = ir::checked_mul(count, static_cast<Dim>(d));
    if (!next) fail("tensor '" + name + "' has more elements than fit in 64 bits");
    count = *next;
  }
  // Bounds every byte count below (count * width cannot wrap). The data itself must then be
  // present in the model, so nothing is allocated for a size the tensor merely claims.
  if (count > kMaxTensorElements) {
    fail("tensor '" + name + "' has " + str(count) + " elements; the limit is " +
         str(kMaxTensorElements) + " (2^48) per tensor");
  }
  const bool has_raw = split_raw.has_value() || t.has_raw_data();
  const std::string_view raw =
      split_raw
          ? std::string_view(reinterpret_cast<const char*>(split_raw->data()), split_raw->size())
          : std::string_view(t.raw_data());
  const auto check_count = [&](std::size_t have, std::string_view field, std::size_t width) {
    const Dim need = count * width;
    if (have != need) {
      fail("tensor '" + name + "': " + std::string(field) + " holds " + str(Dim{have}) +
           (width == 1 ? " values" : " bytes") + ", dims " + list_string(c->dims) + " of " +
           dtype_name(c->dtype) + " need " + str(need));
    }
  };
  switch (t.data_type()) {
    case onnx::TensorProto_DataType_FLOAT:
      if (has_raw) {
        check_count(raw.size(), "raw_data", 4);
        if (stable) {
          c->raw_floats = raw;
        } else {
          c->floats = raw_vector<float>(raw);
        }
      } else {
        check_count(static_cast<std::size_t>(t.float_data_size()), "float_data", 1);
        c->floats.assign(t.float_data().begin(), t.float_data().end());
      }
      break;
    case onnx::TensorProto_DataType_INT64:
      if (has_raw) {
        check_count(raw.size(), "raw_data", 8);
        c->ints = raw_vector<std::int64_t>(raw);
      } else {
        check_count(static_cast<std::size_t>(t.int64_data_size()), "int64_data", 1);
        c->ints.assign(t.int64_data().begin(), t.int64_data().end());
      }
      break;
    case onnx::TensorProto_DataType_INT32:
    case onnx::TensorProto_DataType_BOOL:
      if (has_raw) {
        const std::size_t width = t.data_type() == onnx::TensorProto_DataType_BOOL ? 1 : 4;
        check_count(raw.size(), "raw_data", width);
        c->ints.resize(count);
        for (Dim i = 0; i < count; ++i) {
          if (width == 1) {
            c->ints[i] = static_cast<unsigned char>(raw[i]);
          } else {
            std::int32_t v = 0;
            std::memcpy(&v, raw.data() + i * 4, 4);
            c->ints[i] = v;
          }
        }
      } else {
        check_count(static_cast<std::size_t>(t.int32_data_size()), "int32_data", 1);
        c->ints.assign(t.int32_data().begin(), t.int32_data().end());
      }
      break;
    default:
      break;  // kept with its dtype; any use names it
  }
  return c;
}

NodeId Importer::add(OpKind kind, const ir::Parents& parents, ir::OpParams params,
                     const Shape& declared, const std::string* source) {
  Expected<NodeId> id = graph_.add(kind, parents, std::move(params), declared,
                                   source != nullptr ? std::string_view(*source) : cur_name());
  if (!id) fail("cannot be represented: " + id.error().message);
  return *id;
}

NodeId Importer::tensor(std::string_view name, std::uint32_t v) {
  if (const NodeId id = node_of(v); id != kNoNode) return id;
  if (rejected_inputs_.contains(name)) fail_rejected_input(name);
  if (pads_.contains(name)) {
    fail("input '" + name + "' comes from Pad node '" + pads_.at(name).pad_node +
         "' with nonzero pads, which can only be folded into a Conv, MaxPool or AveragePool");
  }
  ConstPtr c = constant(name);
  if (c == nullptr) {
    if (name.empty()) fail("a required input is missing");
    fail("input '" + name + "' is not produced by any earlier node, graph input or initializer");
  }
  if (!c->node) {
    require_float(*c);
    const NodeId id = add(OpKind::const_, {}, ir::ConstParams{.value_shape = Shape{c->dims}},
                          Shape{c->dims}, &c->source);
    payloads_.tensors[{id, "value"}] =
        PayloadTensor{.shape = Shape{c->dims}, .data = payload_floats(*c)};
    c->node = id;
  }
  return *c->node;
}

Shape Importer::broadcast_shapes(const Shape& a, const Shape& b) const {
  const std::size_t rank = std::max(a.rank(), b.rank());
  Shape out{ir::Dims(rank, 1)};
  for (std::size_t i = 0; i < rank; ++i) {
    const Dim da = i + a.rank() >= rank ? a.dims[i + a.rank() - rank] : 1;
    const Dim db = i + b.rank() >= rank ? b.dims[i + b.rank() - rank] : 1;
    if (da != db && da != 1 && db != 1) {
      fail("shapes " + to_string(a) + " and " + to_string(b) + " do not broadcast");
    }
    out.dims[i] = da == 1 ? db : da;
  }
  return out;
}

std::uint32_t Importer::window_padding(const Shape& in, std::uint32_t kh, std::uint32_t kw,
                                       std::uint32_t stride) const {
  const std::string auto_pad = attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    const auto pads = attr_ints("pads").value_or(std::vector<std::int64_t>{0, 0, 0, 0});
    if (pads.size() != 4 || pads[0] < 0 || pads[0] > std::numeric_limits<std::uint16_t>::max() ||
        !std::all_of(pads.begin(), pads.end(), [&](std::int64_t p) { return p == pads[0]; })) {
      fail_attr("pads", list_string(pads), "equal non-negative pads on every side of H and W");
    }
    return static_cast<std::uint32_t>(pads[0]);
  }
  if (auto_pad == "VALID") return 0;
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    std::optional<Dim> common;
    for (int d = 0; d < 2; ++d) {
      const Dim size = in.dims[2 + d];
      const Dim k = d == 0 ? kh : kw;
      const Dim out = (size + stride - 1) / stride;
      const Dim need = out == 0 ? 0 : (out - 1) * stride + k;
      const Dim total = need > size ? need - size : 0;
      if (total % 2 != 0 || (common && *common != total / 2)) {
        fail_attr("auto_pad", auto_pad,
                  "NOTSET, VALID, or SAME_* where the padding is symmetric and equal on H and W "
                  "(here it is not)");
      }
      common = total / 2;
    }
    return static_cast<std::uint32_t>(*common);
  }
  fail_attr("auto_pad", auto_pad, "NOTSET, VALID, SAME_UPPER, SAME_LOWER");
}

void Importer::alias(std::string_view from, std::string_view to) {
  if (to.empty()) return;
  if (const NodeId id = node_of(value_of(from)); id != kNoNode) {
    set_value_node(value_of(to), id);
  } else if (const auto p = pads_.find(from); p != pads_.end()) {
    set_named(pads_, to, PendingPad(p->second));
  } else if (ConstPtr c = constant(from)) {
    set_named(consts_, to, c);
  } else {
    tensor(from);  // fails with the reason
  }
}

void Importer::unary(OpKind kind) {
  allow_attrs({});
  require_inputs(1, 1);
  define(out_name(0), add(kind, {tensor(in_name(0))}));
}

NodeId Importer::combine(OpKind kind, NodeId a, NodeId b, bool divide) {
  if (!divide && shape_of(a) == shape_of(b)) return add(kind, {a, b});  // nothing to broadcast
  const Shape out = broadcast_shapes(shape_of(a), shape_of(b));
  if (divide) b = add(OpKind::inv, {b});
  a = broadcast(a, out);
  b = broadcast(b, out);
  return add(kind, {a, b});
}

void Importer::binary(OpKind kind, bool divide) {
  allow_attrs({});
  require_inputs(2, 2);
  const NodeId a = tensor(in_name(0));
  const NodeId b = tensor(in_name(1));
  define(out_name(0), combine(kind, a, b, divide));
}

// Max and Min take one or more inputs: one is the identity, more fold left pairwise.
void Importer::variadic(OpKind kind) {
  allow_attrs({});
  const int n = input_count();
  if (n < 1) fail("has no inputs");
  if (n == 1) return alias(in_name(0), out_name(0));
  NodeId acc = tensor(in_name(0));
  for (int i = 1; i < n; ++i)
    acc = combine(kind, acc, tensor(in_name(i)), false);
  define(out_name(0), acc);
}

void Importer::matmul() {
  allow_attrs({});
  require_inputs(2, 2);
  const Shape as = tensor_shape(in_name(0));
  ConstPtr bc = constant(in_name(1));
  if (bc != nullptr && bc->dims.size() == 2 && as.rank() >= 2) {
    // x · B with a constant B [in,out] is a linear layer with weight B transposed [out,in].
    require_float(*bc);
    const Dim n = bc->dims[0];
    const Dim p = bc->dims[1];
    if (as.dims.back() != n) {
      fail("inner dimensions differ: " + to_string(as) + " x " + list_string(bc->dims));
    }
    const NodeId a = tensor(in_name(0));
    PayloadTensor w{.shape = Shape{{p, n}}};
    if (options_.keep_payloads) {
      const std::vector<float>& b = floats_of(*bc);
      w.data.resize(n * p);
      for (Dim i = 0; i < n; ++i)
        for (Dim j = 0; j < p; ++j)
          w.data[j * n + i] = b[i * p + j];
    }
    Shape out = as;
    out.dims.back() = p;
    const NodeId id = add(OpKind::linear, {a}, {}, out);
    payloads_.tensors[{id, "weight"}] = std::move(w);
    define(out_name(0), id);
    return;
  }
  NodeId a = tensor(in_name(0));
  NodeId b = tensor(in_name(1));
  Shape sa = shape_of(a);
  Shape sb = shape_of(b);
  if (sa.rank() == 0 || sb.rank() == 0) fail("MatMul operands must have rank at least 1");
  const bool a_vec = sa.rank() == 1;
  const bool b_vec = sb.rank() == 1;
  if (a_vec) sa.dims.insert(sa.dims.begin(), 1);
  if (b_vec) sb.dims.push_back(1);
  a = reshape(a, sa);
  b = reshape(b, sb);
  const Dim m = sa.dims[sa.rank() - 2];
  const Dim n = sa.dims.back();
  const Dim p = sb.dims.back();
  if (sb.dims[sb.rank() - 2] != n) {
    fail("inner dimensions differ: " + to_string(shape_of(a)) + " x " + to_string(shape_of(b)));
  }
  NodeId mm = 0;
  Shape result;
  if (sa.rank() == 2 && sb.rank() == 2) {
    mm = add(OpKind::matmul, {a, b});
    result = shape_of(mm);
  } else {
    const Shape batch = broadcast_shapes(Shape{{sa.dims.begin(), sa.dims.end() - 2}},
                                         Shape{{sb.dims.begin(), sb.dims.end() - 2}});
    Dim count = 1;
    for (const Dim d : batch.dims)
      count *= d;
    Shape fa = batch;
    fa.dims.insert(fa.dims.end(), {m, n});
    Shape fb = batch;
    fb.dims.insert(fb.dims.end(), {n, p});
    a = reshape(broadcast(a, fa), Shape{{count, m, n}});
    b = reshape(broadcast(b, fb), Shape{{count, n, p}});
    mm = add(OpKind::matmul, {a, b});
    result = batch;
    result.dims.insert(result.dims.end(), {m, p});
  }
  if (a_vec) result.dims.erase(result.dims.end() - 2);
  if (b_vec) result.dims.pop_back();
  define(out_name(0), reshape(mm, result));
}

void Importer::gemm() {
  allow_attrs({"alpha", "beta", "transA", "transB", "broadcast"});
  require_inputs(2, 3);
  const std::int64_t trans_a = attr_int("transA", 0);
  const std::int64_t trans_b = attr_int("transB", 0);
  const float alpha = attr_float("alpha", 1.0f);
  const float beta = attr_float("beta", 1.0f);
  if (trans_a != 0) fail_attr("transA", str(trans_a), "0");
  if (trans_b != 0 && trans_b != 1) fail_attr("transB", str(trans_b), "0, 1");
  if (alpha != 1.0f) fail_attr("alpha", str(alpha), "1");
  if (has_in(2) && beta != 1.0f) fail_attr("beta", str(beta), "1");
  const NodeId a = tensor(in_name(0));
  const Shape sa = shape_of(a);
  if (sa.rank() != 2) fail("input A " + to_string(sa) + " is not a matrix");
  const Dim k = sa.dims[1];
  NodeId y = 0;
  ConstPtr bc = constant(in_name(1));
  std::optional<Dim> n_out;
  bool bias_done = false;
  if (bc != nullptr) {
    require_float(*bc);
    if (bc->dims.size() != 2) fail("input B " + list_string(bc->dims) + " is not a matrix");
    const Dim n = trans_b != 0 ? bc->dims[0] : bc->dims[1];
    const Dim kb = trans_b != 0 ? bc->dims[1] : bc->dims[0];
    if (kb != k) {
      fail("inner dimensions differ: " + to_string(sa) + " x " + list_string(bc->dims) +
           " (transB = " + str(trans_b) + ")");
    }
    PayloadTensor w{.shape = Shape{{n, k}}};
    if (trans_b != 0) {
      w.data = take_floats(bc, in_name(1));
    } else if (options_.keep_payloads) {
      const std::vector<float>& b = floats_of(*bc);
      w.data.resize(n * k);
      for (Dim i = 0; i < k; ++i)
        for (Dim j = 0; j < n; ++j)
          w.data[j * k + i] = b[i * n + j];
    }
    std::optional<PayloadTensor> bias;
    if (ConstPtr cc = has_in(2) ? constant(in_name(2)) : nullptr; cc != nullptr) {
      require_float(*cc);
      Dim count = 1;
      for (const Dim d : cc->dims)
        count *= d;
      const bool row = cc->dims.empty() || cc->dims.back() == n || cc->dims.back() == 1;
      bool leading_ones = true;
      for (std::size_t i = 0; i + 1 < cc->dims.size(); ++i)
        leading_ones = leading_ones && cc->dims[i] == 1;
      if (row && leading_ones && cc->dims.size() <= 2) {
        bias = PayloadTensor{.shape = Shape{{n}}};
        if (options_.keep_payloads) {
          const std::vector<float>& b = floats_of(*cc);
          bias->data.resize(n);
          for (Dim j = 0; j < n; ++j)
            bias->data[j] = b[count == 1 ? 0 : j];
        }
        bias_done = true;
      }
    }
    const Shape out{{sa.dims[0], n}};
    y = add(OpKind::linear, {a}, {}, out);
    payloads_.tensors[{y, "weight"}] = std::move(w);
    if (bias) payloads_.tensors[{y, "bias"}] = std::move(*bias);
    n_out = n;
  } else {
    NodeId b = tensor(in_name(1));
    if (shape_of(b).rank() != 2) fail("input B " + to_string(shape_of(b)) + " is not a matrix");
    if (trans_b != 0) b = add(OpKind::permute, {b}, ir::PermuteParams{.perm = {1, 0}});
    y = add(OpKind::matmul, {a, b});
  }
  if (has_in(2) && !bias_done) {
    NodeId c = tensor(in_name(2));
    const Shape out = shape_of(y);
    if (broadcast_shapes(shape_of(c), out) != out) {
      fail("input C " + to_string(shape_of(c)) + " does not broadcast to " + to_string(out));
    }
    c = broadcast(c, out);
    y = add(OpKind::add, {y, c});
  }
  define(out_name(0), y);
}

void Importer::conv() {
  allow_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  require_inputs(2, 3);
  const std::optional<PendingPad> folded = take_pad(in_name(0));
  const NodeId x = folded ? tensor(folded->input, folded->input_value) : tensor(in_name(0));
  const Shape& xs = shape_of(x);
  if (xs.rank() != 4) {
    fail("input " + to_string(xs) + " is not (N,C,H,W); only 2-D convolution is supported");
  }
  const std::int64_t group = attr_int("group", 1);
  if (group != 1) fail_attr("group", str(group), "1");
  if (const auto d = attr_ints("dilations");
      d && !std::all_of(d->begin(), d->end(), [](std::int64_t v) { return v == 1; })) {
    fail_attr("dilations", list_string(*d), "[1,1]");
  }
  ConstPtr w = float_constant(in_name(1), "weight");
  if (w->dims.size() != 4)
    fail("weight '" + in_name(1) + "' " + list_string(w->dims) + " is not [M,C,kH,kW]");
  const Dim out_c = w->dims[0];
  const Dim in_c = w->dims[1];
  const Dim kh = w->dims[2];
  const Dim kw = w->dims[3];
  if (in_c != xs.dims[1]) {
    fail("weight '" + in_name(1) + "' " + list_string(w->dims) + " expects " + str(in_c) +
         " input channels, input " + to_string(xs) + " has " + str(xs.dims[1]));
  }
  if (const auto ks = attr_ints("kernel_shape");
      ks && (ks->size() != 2 || Dim((*ks)[0]) != kh || Dim((*ks)[1]) != kw)) {
    fail_attr("kernel_shape", list_string(*ks),
              "the weight's kernel [" + str(kh) + "," + str(kw) + "]");
  }
  constexpr Dim kMax = std::numeric_limits<std::uint32_t>::max();
  if (out_c > kMax || in_c > kMax || kh > kMax || kw > kMax) fail("weight is too large");
  const std::uint32_t stride = equal_strides();
  std::uint32_t padding =
      window_padding(xs, static_cast<std::uint32_t>(kh), static_cast<std::uint32_t>(kw), stride);
  if (folded) padding += folded->padding;
  PayloadTensor weight{.shape = Shape{w->dims}, .data = take_floats(w, in_name(1))};
  std::optional<PayloadTensor> bias;
  if (has_in(2)) {
    ConstPtr b = float_constant(in_name(2), "bias");
    if (b->dims != std::vector<Dim>{out_c}) {
      fail("bias '" + in_name(2) + "' " + list_string(b->dims) + " is not [" + str(out_c) + "]");
    }
    bias = PayloadTensor{.shape = Shape{b->dims}, .data = payload_floats(*b)};
  }
  const NodeId id = add(OpKind::conv2d, {x},
                        ir::Conv2dParams{.in_channels = static_cast<std::uint32_t>(in_c),
                                         .out_channels = static_cast<std::uint32_t>(out_c),
                                         .kh = static_cast<std::uint32_t>(kh),
                                         .kw = static_cast<std::uint32_t>(kw),
                                         .stride = stride,
                                         .padding = padding});
  payloads_.tensors[{id, "weight"}] = std::move(weight);
  if (bias) payloads_.tensors[{id, "bias"}] = std::move(*bias);
  define(out_name(0), id);
}

void Importer::pool(bool max) {
  if (max) {
    allow_attrs(
        {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  } else {
    allow_attrs({"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
  }
  require_inputs(1, 1);
  if (max && !out_name(1).empty()) {
    fail("has a second output Indices ('" + out_name(1) + "'); only the first output is supported");
  }
  const std::optional<PendingPad> folded = take_pad(in_name(0));
  const NodeId x = folded ? tensor(folded->input, folded->input_value) : tensor(in_name(0));
  const Shape& xs = shape_of(x);
  require_rank4(xs, max ? "max pooling" : "average pooling");
  const auto ks = attr_ints("kernel_shape");
  if (!ks) fail("attribute kernel_shape is missing");
  if (ks->size() != 2 || (*ks)[0] < 1 || (*ks)[1] < 1 || (*ks)[0] > 0xFFFF || (*ks)[1] > 0xFFFF) {
    fail_attr("kernel_shape", list_string(*ks), "two positive dimensions (2-D pooling)");
  }
  const auto kh = static_cast<std::uint32_t>((*ks)[0]);
  const auto kw = static_cast<std::uint32_t>((*ks)[1]);
  if (max) {
    if (const std::int64_t so = attr_int("storage_order", 0); so != 0) {
      fail_attr("storage_order", str(so), "0");
    }
    if (const auto d = attr_ints("dilations");
        d && !std::all_of(d->begin(), d->end(), [](std::int64_t v) { return v == 1; })) {
      fail_attr("dilations", list_string(*d), "[1,1]");
    }
  }
  const std::uint32_t stride = equal_strides();
  std::uint32_t padding = window_padding(xs, kh, kw, stride);
  if (!max) {
    const std::int64_t include = attr_int("count_include_pad", 0);
    if (include == 0 && padding > 0) {
      fail("attribute count_include_pad = 0 with padding " + str(padding) +
           " is not supported (avg_pool2d_pad counts the padding); supported: "
           "count_include_pad = 1, or no padding");
    }
  }
  if (folded) {
    if (max) {
      const OpKind producer = graph_.graph().nodes[x].kind;
      const bool non_negative = producer == OpKind::relu || producer == OpKind::sigmoid ||
                                producer == OpKind::exp || producer == OpKind::abs ||
                                producer == OpKind::sqrt;
      if (!non_negative) {
        fail("cannot fold the zero padding of Pad node '" + folded->pad_node +
             "': max pooling pads with -inf, which equals zero padding only for a non-negative "
             "input (Relu, Sigmoid, Exp, Abs or Sqrt output)");
      }
    }
    padding += folded->padding;
  }
  if (attr_int("ceil_mode", 0) != 0) {
    for (int d = 0; d < 2; ++d) {
      const Dim k = d == 0 ? kh : kw;
      const Dim span = xs.dims[2 + d] + 2 * Dim{padding};
      if (span >= k && (span - k) % stride != 0) {
        fail_attr("ceil_mode", "1",
                  "0, or 1 where it gives the same output size as 0 (here it does not)");
      }
    }
  }
  const OpKind kind = max ? (padding > 0 ? OpKind::max_pool2d_pad : OpKind::max_pool2d)
                          : (padding > 0 ? OpKind::avg_pool2d_pad : OpKind::avg_pool2d);
  define(out_name(0),
         add(kind, {x}, ir::PoolParams{.kh = kh, .kw = kw, .stride = stride, .padding = padding}));
}

void Importer::global_pool(bool max) {
  allow_attrs({});
  require_inputs(1, 1);
  const NodeId x = tensor(in_name(0));
  const Shape& xs = shape_of(x);
  require_rank4(xs, max ? "global max pooling" : "global average pooling");
  if (xs.dims[2] > 0xFFFF || xs.dims[3] > 0xFFFF) fail("input " + to_string(xs) + " is too large");
  const auto kh = static_cast<std::uint32_t>(xs.dims[2]);
  const auto kw = static_cast<std::uint32_t>(xs.dims[3]);
  define(out_name(0), add(max ? OpKind::max_pool2d : OpKind::avg_pool2d, {x},
                          ir::PoolParams{.kh = kh, .kw = kw, .stride = 1, .padding = 0}));
}

void Importer::batch_norm() {
  allow_attrs({"epsilon", "momentum", "training_mode", "spatial", "is_test", "consumed_inputs"});
  require_inputs(5, 5);
  if (const std::int64_t t = attr_int("training_mode", 0); t != 0) {
    fail_attr("training_mode", str(t), "0 (inference)");
  }
  if (const std::int64_t s = attr_int("spatial", 1); s != 1) fail_attr("spatial", str(s), "1");
  for (int i = 1; i < output_count(); ++i) {
    if (!out_name(i).empty()) {
      fail("has " + str(output_count()) +
           " outputs (training form); only the inference form with one output is supported");
    }
  }
  const NodeId x = tensor(in_name(0));
  const Shape& xs = shape_of(x);
  if (xs.rank() != 4) fail("input " + to_string(xs) + " is not (N,C,H,W)");
  const Dim c = xs.dims[1];
  if (c > std::numeric_limits<std::uint32_t>::max()) fail("too many channels");
  std::array<PayloadTensor, 4> p;
  constexpr std::array<std::string_view, 4> kRoles = {"scale", "bias", "mean", "var"};
  for (int i = 0; i < 4; ++i) {
    ConstPtr t = float_constant(in_name(i + 1), kRoles[static_cast<std::size_t>(i)]);
    if (t->dims != std::vector<Dim>{c}) {
      fail(std::string(kRoles[static_cast<std::size_t>(i)]) + " '" + in_name(i + 1) + "' " +
           list_string(t->dims) + " is not [" + str(c) + "]");
    }
    p[static_cast<std::size_t>(i)] =
        PayloadTensor{.shape = Shape{t->dims}, .data = payload_floats(*t)};
  }
  const float eps = attr_float("epsilon", 1e-5f);
  if (!std::isfinite(eps) || eps < 0) fail_attr("epsilon", str(eps), "finite, >= 0");
  const NodeId id = add(OpKind::batch_norm2d_nchw_eval, {x},
                        ir::ChannelsParams{.channels = static_cast<std::uint32_t>(c)});
  for (std::size_t i = 0; i < 4; ++i)
    payloads_.tensors[{id, std::string(kRoles[i])}] = std::move(p[i]);
  payloads_.attributes[{id, "epsilon"}] = static_cast<double>(eps);
  define(out_name(0), id);
}

void Importer::softmax() {
  allow_attrs({"axis"});
  require_inputs(1, 1);
  const NodeId x = tensor(in_name(0));
  const Shape xs = shape_of(x);
  if (xs.rank() == 0) fail("input is a scalar");
  if (opset_ >= 13) {
    const std::uint32_t axis = norm_axis(attr_int("axis", -1), xs.rank());
    define(out_name(0), add(OpKind::softmax, {x}, ir::AxisParams{.axis = axis}));
    return;
  }
  // Before opset 13 Softmax flattens to 2-D at `axis` and normalizes each row.
  const std::uint32_t axis = norm_axis(attr_int("axis", 1), xs.rank());
  if (axis + 1 == xs.rank()) {
    define(out_name(0), add(OpKind::softmax, {x}, ir::AxisParams{.axis = axis}));
    return;
  }
  Dim rows = 1;
  Dim cols = 1;
  for (std::size_t i = 0; i < xs.rank(); ++i)
    (i < axis ? rows : cols) *= xs.dims[i];
  const NodeId flat = reshape(x, Shape{{rows, cols}});
  const NodeId s = add(OpKind::softmax, {flat}, ir::AxisParams{.axis = 1});
  define(out_name(0), reshape(s, xs));
}

void Importer::layer_norm() {
  allow_attrs({"axis", "epsilon", "stash_type"});
  require_inputs(2, 3);
  only_first_output({"Y", "Mean", "InvStdDev"});
  const NodeId x = tensor(in_name(0));
  const Shape xs = shape_of(x);
  const std::uint32_t axis = norm_axis(attr_int("axis", -1), xs.rank());
  const float eps = attr_float("epsilon", 1e-5f);
  if (eps != 1e-5f) fail_attr("epsilon", str(eps), "1e-05 (the IR layernorm's epsilon)");
  // Y = layernorm(X) * Scale + B. Scale and B are constants that broadcast to the normalized
  // dims X.shape[axis:]; an all-ones Scale and an absent or all-zeros B emit nothing.
  const Shape normalized{ir::Dims(xs.dims.begin() + axis, xs.dims.end())};
  const auto affine = [&](int index, std::string_view role, float identity) -> ConstPtr {
    if (!has_in(index)) return nullptr;
    const std::string_view name = in_name(index);
    ConstPtr c = float_constant(name, role);
    const std::size_t rank = c->dims.size();
    bool fits = rank <= normalized.rank();
    for (std::size_t i = 0; fits && i < rank; ++i) {
      const Dim d = c->dims[rank - 1 - i];
      fits = d == 1 || d == normalized.dims[normalized.rank() - 1 - i];
    }
    if (!fits) {
      fail(std::string(role) + " '" + name + "' has shape " + list_string(c->dims) +
           ", which does not broadcast to the normalized dims " + to_string(normalized) +
           " (X.shape[" + str(axis) + ":])");
    }
    const bool trivial = std::ranges::all_of(floats_of(*c), [&](float f) { return f == identity; });
    return trivial ? nullptr : c;
  };
  const ConstPtr scale = affine(1, "Scale", 1.0f);
  const ConstPtr bias = affine(2, "B", 0.0f);
  NodeId y = add(OpKind::layernorm, {x}, ir::AxisParams{.axis = axis});
  if (scale != nullptr) {
    y = add(OpKind::mul_elem, {y, broadcast(tensor(in_name(1)), xs)});
  }
  if (bias != nullptr) {
    y = add(OpKind::add, {y, broadcast(tensor(in_name(2)), xs)});
  }
  define(out_name(0), y);
}

void Importer::reshape_op() {
  allow_attrs({"allowzero", "shape", "consumed_inputs"});
  if (const std::int64_t z = attr_int("allowzero", 0); z != 0) fail_attr("allowzero", str(z), "0");
  const NodeId x = tensor(in_name(0));
  const Shape xs = shape_of(x);
  std::vector<std::int64_t> target;
  if (has_in(1)) {
    require_inputs(2, 2);
    target = int_constant(in_name(1), "shape");
  } else if (const auto s = attr_ints("shape")) {
    target = *s;
  } else {
    fail("has no shape input");
  }
  Shape out{ir::Dims(target.size(), 1)};
  std::optional<std::size_t> infer;
  Dim known = 1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    const std::int64_t t = target[i];
    if (t == -1) {
      if (infer) fail("shape " + list_string(target) + " has more than one -1");
      infer = i;
      continue;
    }
    if (t < -1) fail("shape " + list_string(target) + " has negative entry " + str(t));
    if (t == 0) {
      if (i >= xs.rank()) {
        fail("shape " + list_string(target) + ": entry " + str(Dim{i}) +
             " is 0 (copy) but the input " + to_string(xs) + " has no such dimension");
      }
      out.dims[i] = xs.dims[i];
    } else {
      out.dims[i] = static_cast<Dim>(t);
    }
    known *= out.dims[i];
  }
  const Dim total = ir::element_count(xs).value_or(0);
  if (infer) {
    if (known == 0 || total % known != 0) {
      fail("cannot reshape " + to_string(xs) + " to " + list_string(target));
    }
    out.dims[*infer] = total / known;
  }
  if (ir::element_count(out).value_or(0) != total) {
    fail("cannot reshape " + to_string(xs) + " to " + list_string(target) +
         ": element counts differ");
  }
  define(out_name(0), reshape(x, out));
}

void Importer::flatten() {
  allow_attrs({"axis"});
  require_inputs(1, 1);
  const NodeId x = tensor(in_name(0));
  const Shape xs = shape_of(x);
  const std::uint32_t axis = norm_axis(attr_int("axis", 1), xs.rank(), true);
  Dim rows = 1;
  Dim cols = 1;
  for (std::size_t i = 0; i < xs.rank(); ++i)
    (i < axis ? rows : cols) *= xs.dims[i];
  define(out_name(0), reshape(x, Shape{{rows, cols}}));
}

void Importer::squeeze(bool unsqueeze) {
  allow_attrs({"axes"});
  require_inputs(1, 2);
  const NodeId x = tensor(in_name(0));
  const Shape xs = shape_of(x);
  std::vector<std::int64_t> axes;
  if (has_in(1)) {
    axes = int_constant(in_name(1), "axes");
  } else if (const auto a = attr_ints("axes")) {
    axes = *a;
  }
  Shape out;
  if (unsqueeze) {
    const std::size_t rank = xs.rank() + axes.size();
    std::vector<bool> inserted(rank, false);
    for (const std::int64_t a : axes) {
      const std::uint32_t n = norm_axis(a, rank);
      if (inserted[n]) fail("axes " + list_string(axes) + " repeat axis " + str(n));
      inserted[n] = true;
    }
    std::size_t next = 0;
    for (std::size_t i = 0; i < rank; ++i)
      out.dims.push_back(inserted[i] ? 1 : xs.dims[next++]);
  } else {
    std::vector<bool> removed(xs.rank(), false);
    for (const std::int64_t a : axes) {
      const std::uint32_t n = norm_axis(a, xs.rank());
      if (xs.dims[n] != 1) fail("cannot squeeze axis " + str(n) + " of " + to_string(xs));
      removed[n] = true;
    }
    for (std::size_t i = 0; i < xs.rank(); ++i) {
      const bool drop = axes.empty() ? xs.dims[i] == 1 : removed[i];
      if (!drop) out.dims.push_back(xs.dims[i]);
    }
  }
  define(out_name(0), reshape(x, out));
}

void Importer::concat() {
  allow_attrs({"axis"});
  int n = input_count();
  if (n == 0) fail("has no inputs");
  if (n == 1) {
    alias(in_name(0), out_name(0));
    return;
  }
  std::vector<NodeId> parents;
  for (int i = 0; i < n; ++i)
    parents.push_back(tensor(in_name(i)));
  const auto axis_attr = attr(std::string_view("axis"));
  if (axis_attr == nullptr) fail("attribute axis is missing");
  const std::uint32_t axis = norm_axis(attr_int("axis", 0), shape_of(parents[0]).rank());
  define(out_name(0), add(OpKind::concat, std::move(parents), ir::AxisParams{.axis = axis}));
}

void Importer::transpose() {
  allow_attrs({"perm"});
  require_inputs(1, 1);
  const NodeId x = tensor(in_name(0));
  const std::size_t rank = shape_of(x).rank();
  std::vector<std::uint32_t> perm;
  if (const auto p = attr_ints("perm")) {
    for (const std::int64_t v : *p) {
      if (v < 0 || static_cast<std::size_t>(v) >= rank) {
        fail_attr("perm", list_string(*p), "a permutation of the " + str(Dim{rank}) + " axes");
      }
      perm.push_back(static_cast<std::uint32_t>(v));
    }
  } else {
    for (std::size_t i = rank; i > 0; --i)
      perm.push_back(static_cast<std::uint32_t>(i - 1));
  }
  define(out_name(0), add(OpKind::permute, {x}, ir::PermuteParams{.perm = std::move(perm)}));
}

void Importer::reduce(OpKind kind) {
  allow_attrs({"axes", "keepdims", "noop_with_empty_axes"});
  require_inputs(1, 2);
  const NodeId x = tensor(in_name(0));
  const Shape xs = shape_of(x);
  std::vector<std::int64_t> axes;
  if (has_in(1)) {
    axes = int_constant(in_name(1), "axes");
  } else if (const auto a = attr_ints("axes")) {
    axes = *a;
  }
  if (axes.empty()) {
    if (attr_int("noop_with_empty_axes", 0) != 0) {
      alias(in_name(0), out_name(0));
      return;
    }
    for (std::size_t i = 0; i < xs.rank(); ++i)
      axes.push_back(static_cast<std::int64_t>(i));
  }
  std::vector<std::uint32_t> norm;
  for (const std::int64_t a : axes) {
    const std::uint32_t n = norm_axis(a, xs.rank());
    if (std::find(norm.begin(), norm.end(), n) != norm.end()) {
      fail("axes " + list_string(axes) + " repeat axis " + str(n));
    }
    norm.push_back(n);
  }
  // Reducing one axis at a time, highest first, keeps the remaining axis numbers valid; sums and
  // means of equal-sized groups compose exactly.
  std::sort(norm.rbegin(), norm.rend());
  NodeId y = x;
  Shape kept = xs;
  for (const std::uint32_t a : norm) {
    y = add(kind, {y}, ir::AxisParams{.axis = a});
    kept.dims[a] = 1;
  }
  if (attr_int("keepdims", 1) != 0) y = reshape(y, kept);
  define(out_name(0), y);
}

void Importer::pad() {
  allow_attrs({"mode", "pads", "value"});
  require_inputs(1, 3);
  const std::string mode = attr_string("mode", "constant");
  if (mode != "constant") fail_attr("mode", mode, "constant");
  std::vector<std::int64_t> pads;
  float value = attr_float("value", 0.0f);
  if (opset_ >= 11) {
    if (!has_in(1)) fail("has no pads input");
    pads = int_constant(in_name(1), "pads");
    if (has_in(2)) {
      ConstPtr v = float_constant(in_name(2), "constant_value");
      if (floats_of(*v).size() != 1) {
        fail("constant_value '" + in_name(2) + "' is not a scalar");
      }
      value = floats_of(*v)[0];
    }
  } else {
    pads = attr_ints("pads").value_or(std::vector<std::int64_t>{});
  }
  if (value != 0.0f) fail("constant value " + str(value) + " is not supported; supported: 0");
  const Shape xs = tensor_shape(in_name(0));
  if (pads.size() != 2 * xs.rank()) {
    fail("pads " + list_string(pads) + " do not have two entries per axis of " + to_string(xs));
  }
  if (std::all_of(pads.begin(), pads.end(), [](std::int64_t p) { return p == 0; })) {
    alias(in_name(0), out_name(0));
    return;
  }
  const std::size_t r = xs.rank();
  bool foldable = r == 4 && pads[2] > 0 && pads[2] <= 0xFFFF;
  for (std::size_t i = 0; foldable && i < r; ++i) {
    const bool spatial = i >= 2;
    foldable = pads[i] == (spatial ? pads[2] : 0) && pads[r + i] == (spatial ? pads[2] : 0);
  }
  if (!foldable) {
    fail("pads " + list_string(pads) +
         " are not supported; supported: all zero, or equal non-negative pads on H and W of an "
         "(N,C,H,W) tensor folded into a following Conv, MaxPool or AveragePool");
  }
  const std::string_view out = out_name(0);
  if (graph_outputs_.contains(out)) {
    fail("pads " + list_string(pads) +
         " are not supported on a graph output; supported: all zero, "
         "or folded into a following Conv, MaxPool or AveragePool");
  }
  {
    for (const int index : consumers(out)) {
      const onnx::NodeProto& consumer = node_at(index, probe_);
      const std::string& op = consumer.op_type();
      const bool window = op == "Conv" || op == "MaxPool" || op == "AveragePool";
      if (!window || consumer.input(0) != out || !is_default_domain(consumer.domain())) {
        const std::string name = consumer.name().empty() ? op + "_" + str(index) : consumer.name();
        fail("pads " + list_string(pads) + " cannot be folded: output '" + out +
             "' is consumed by node '" + name + "' (" + op +
             "); nonzero pads fold only into a following Conv, MaxPool or AveragePool");
      }
    }
  }
  set_named(pads_, out,
            PendingPad{.input = std::string(in_name(0)),
                       .input_value = value_of(in_name(0)),
                       .padding = static_cast<std::uint32_t>(pads[2]),
                       .pad_node = std::string(cur_name())});
  tensor(in_name(0));  // the padded tensor must exist
}

void Importer::constant_node() {
  allow_attrs({"value", "value_float", "value_floats", "value_int", "value_ints", "sparse_value",
               "value_string", "value_strings"});
  require_inputs(0, 0);
  if (cur_->proto->attribute_size() != 1) fail("needs exactly one value attribute");
  const onnx::AttributeProto& a = cur_->proto->attribute(0);
  ConstPtr c;
  if (a.name() == "value") {
    c = read_tensor(a.t(), std::string(cur_name()), false);
  } else {
    c = std::make_shared<ConstTensor>();
    c->source = cur_name();
    if (a.name() == "value_float") {
      c->dtype = onnx::TensorProto_DataType_FLOAT;
      c->floats = {a.f()};
    } else if (a.name() == "value_floats") {
      c->dtype = onnx::TensorProto_DataType_FLOAT;
      c->floats.assign(a.floats().begin(), a.floats().end());
      c->dims = {c->floats.size()};
    } else if (a.name() == "value_int") {
      c->dtype = onnx::TensorProto_DataType_INT64;
      c->ints = {a.i()};
    } else if (a.name() == "value_ints") {
      c->dtype = onnx::TensorProto_DataType_INT64;
      c->ints.assign(a.ints().begin(), a.ints().end());
      c->dims = {c->ints.size()};
    } else {
      fail("attribute " + a.name() +
           " is not supported; supported: value, value_float, "
           "value_floats, value_int, value_ints");
    }
  }
  if (!out_name(0).empty()) set_named(consts_, out_name(0), c);
}

void Importer::import_node() {
  const std::string_view op = cur_->op_type;
  if (!is_default_domain(cur_->domain)) {
    fail("domain '" + std::string(cur_->domain) +
         "' is not supported; supported: the default ONNX domain");
  }
  const std::optional<OnnxOp> known = find_onnx_op(op);
  if (!known) fail("operator " + op + " is not supported; supported: " + supported_list());
  switch (*known) {
    case OnnxOp::abs:
      return unary(OpKind::abs);
    case OnnxOp::add:
      return binary(OpKind::add);
    case OnnxOp::average_pool:
      return pool(false);
    case OnnxOp::batch_normalization:
      return batch_norm();
    case OnnxOp::concat:
      return concat();
    case OnnxOp::constant:
      return constant_node();
    case OnnxOp::conv:
      return conv();
    case OnnxOp::cos:
      return unary(OpKind::cos);
    case OnnxOp::div:
      return binary(OpKind::mul_elem, true);
    case OnnxOp::dropout: {
      allow_attrs({"ratio", "seed", "is_test", "consumed_inputs"});
      require_inputs(1, 3);
      if (has_in(2)) {
        ConstPtr t = constant(in_name(2));
        const bool inference =
            t != nullptr && ((!t->ints.empty() && t->ints[0] == 0) ||
                             (!floats_of(*t).empty() && floats_of(*t)[0] == 0.0f));
        if (!inference) {
          fail("input training_mode '" + in_name(2) +
               "' is not a constant false; only inference is supported");
        }
      }
      only_first_output({"output", "mask"});
      return alias(in_name(0), out_name(0));
    }
    case OnnxOp::exp:
      return unary(OpKind::exp);
    case OnnxOp::flatten:
      return flatten();
    case OnnxOp::gemm:
      return gemm();
    case OnnxOp::global_average_pool:
      return global_pool(false);
    case OnnxOp::global_max_pool:
      return global_pool(true);
    case OnnxOp::identity: {
      allow_attrs({});
      require_inputs(1, 1);
      return alias(in_name(0), out_name(0));
    }
    case OnnxOp::layer_normalization:
      return layer_norm();
    case OnnxOp::log:
      return unary(OpKind::log);
    case OnnxOp::mat_mul:
      return matmul();
    case OnnxOp::max:
      return variadic(OpKind::max_elem);
    case OnnxOp::max_pool:
      return pool(true);
    case OnnxOp::min:
      return variadic(OpKind::min_elem);
    case OnnxOp::mul:
      return binary(OpKind::mul_elem);
    case OnnxOp::pad:
      return pad();
    case OnnxOp::reciprocal:
      return unary(OpKind::inv);
    case OnnxOp::reduce_mean:
      return reduce(OpKind::reduce_mean);
    case OnnxOp::reduce_sum:
      return reduce(OpKind::reduce_sum);
    case OnnxOp::relu:
      return unary(OpKind::relu);
    case OnnxOp::reshape:
      return reshape_op();
    case OnnxOp::sigmoid:
      return unary(OpKind::sigmoid);
    case OnnxOp::sin:
      return unary(OpKind::sin);
    case OnnxOp::softmax:
      return softmax();
    case OnnxOp::sqrt:
      return unary(OpKind::sqrt);
    case OnnxOp::squeeze:
      return squeeze(false);
    case OnnxOp::sub:
      return binary(OpKind::sub);
    case OnnxOp::tanh:
      return unary(OpKind::tanh);
    case OnnxOp::transpose:
      return transpose();
    case OnnxOp::unsqueeze:
      return squeeze(true);
  }
}

ImportedModel Importer::run() {
  if (!model_.has_ir_version() || model_.ir_version() <= 0) {
    fail_model("not a valid ONNX model: ir_version is missing");
  }
  bool found = false;
  for (const auto& o : model_.opset_import()) {
    if (is_default_domain(o.domain())) {
      opset_ = o.version();
      found = true;
    }
  }
  if (!found) fail_model("model imports no opset of the default ONNX domain");
  if (opset_ > kMaxOpset || opset_ < 1) {
    fail_model("opset " + str(opset_) +
               " of the default ONNX domain is not supported; supported: 1.." + str(kMaxOpset));
  }
  const onnx::GraphProto& g = model_.graph();
  if (g.output_size() != 1) {
    std::string names;
    for (const auto& o : g.output())
      names += (names.empty() ? "'" : ", '") + o.name() + "'";
    fail_model("model has " + str(g.output_size()) + " graph outputs" +
               (names.empty() ? "" : " (" + names + ")") + "; the IR has exactly one output");
  }
  graph_outputs_.insert(g.output(0).name());
  if (static_cast<std::size_t>(nodes_.size()) > kMaxGraphNodes) {
    fail_model("graph has " + str(nodes_.size()) + " nodes; the limit is " + str(kMaxGraphNodes) +
               " (2^26)");
  }
  // The reader (onnx_node_reader.hpp) starts reading ahead now, on its worker for a large graph,
  // while the tables are set up and the initializers and inputs are read. Value numbers:
  // initializer k is k, graph input j is initializer_size() + j, and node outputs follow.
  std::vector<std::string_view> defined;
  defined.reserve(static_cast<std::size_t>(g.initializer_size() + g.input_size()));
  for (const auto& t : g.initializer())
    defined.emplace_back(t.name());
  for (const auto& in : g.input())
    defined.emplace_back(in.name());
  detail::OnnxNodeReader reader(nodes_, /*threaded=*/true, std::move(defined), thread_);
  {
    const auto tensors = static_cast<std::size_t>(nodes_.size()) + g.input_size() +
                         static_cast<std::size_t>(g.initializer_size());
    value_nodes_.assign(tensors, kNoNode);
    graph_.reserve(tensors);
  }
  for (int k = 0; k < g.initializer_size(); ++k) {
    const onnx::TensorProto& t = g.initializer(k);
    if (t.name().empty()) fail_model("an initializer has no name");
    consts_[t.name()] = read_tensor(t, t.name(), true, nodes_.initializer_raw_data(k));
  }
  if (g.sparse_initializer_size() > 0) fail_model("sparse initializers are not supported");
  // Inputs.
  for (const auto& [name, dims] : options_.input_shapes) {
    const bool is_input = std::any_of(g.input().begin(), g.input().end(), [&](const auto& in) {
      return in.name() == name && !consts_.contains(name);
    });
    if (!is_input) {
      std::string names;
      for (const auto& in : g.input()) {
        if (!consts_.contains(in.name())) names += (names.empty() ? "'" : ", '") + in.name() + "'";
      }
      fail_model("an input shape is given for '" + name +
                 "', which is not a graph input; inputs: " + (names.empty() ? "none" : names));
    }
  }
  for (int j = 0; j < g.input_size(); ++j) {
    const onnx::ValueInfoProto& in = g.input(j);
    if (consts_.contains(in.name())) continue;  // an initializer with a default: a constant
    graph_inputs_.insert(in.name());
    std::string rejected;
    if (!in.type().has_tensor_type()) {
      rejected = "input '" + in.name() + "' is not a tensor; only float32 tensors are supported";
    } else if (const int t = in.type().tensor_type().elem_type();
               t != onnx::TensorProto_DataType_FLOAT) {
      rejected = "input '" + in.name() + "' has data type " + dtype_name(t) +
                 "; only float32 tensors are supported";
    }
    if (!rejected.empty()) {
      // Reported when consumed (Importer::tensor), or at the end if never consumed.
      if (rejected_inputs_.emplace(in.name(), std::move(rejected)).second)
        rejected_order_.push_back(in.name());
      continue;
    }
    const auto& tt = in.type().tensor_type();
    const auto fixed = options_.input_shapes.find(in.name());
    Shape shape;
    if (!tt.has_shape()) {
      if (fixed == options_.input_shapes.end()) {
        fail_model("input '" + in.name() + "' has no shape; fix it with --input-shape " +
                   in.name() + "=D0,D1,...");
      }
      shape.dims = fixed->second;
    } else {
      const auto& dims = tt.shape().dim();
      std::string example;
      for (const auto& d : dims) {
        example += (example.empty() ? "" : ",") +
                   (d.has_dim_value() && d.dim_value() > 0 ? str(d.dim_value()) : std::string("1"));
      }
      if (fixed != options_.input_shapes.end()) {
        if (fixed->second.size() != static_cast<std::size_t>(dims.size())) {
          fail_model("input shape " + list_string(fixed->second) + " given for input '" +
                     in.name() + "' has rank " + str(Dim{fixed->second.size()}) +
                     ", the model's has rank " + str(dims.size()));
        }
        for (int i = 0; i < dims.size(); ++i) {
          const auto& d = dims[i];
          if (d.has_dim_value() && static_cast<Dim>(d.dim_value()) != fixed->second[i]) {
            fail_model("input shape " + list_string(fixed->second) + " given for input '" +
                       in.name() + "' has " + str(fixed->second[i]) + " at dimension " + str(i) +
                       ", the model fixes it to " + str(d.dim_value()));
          }
        }
        shape.dims = fixed->second;
      } else {
        if (static_cast<std::size_t>(dims.size()) > kMaxRank) {
          fail_model("input '" + in.name() + "' has rank " + str(dims.size()) + "; the limit is " +
                     str(kMaxRank));
        }
        for (int i = 0; i < dims.size(); ++i) {
          const auto& d = dims[i];
          if (d.has_dim_value() && d.dim_value() > 0 && static_cast<Dim>(d.dim_value()) > kMaxDim) {
            fail_model("dimension " + str(i) + " of input '" + in.name() + "' is " +
                       str(d.dim_value()) + "; the limit is " + str(kMaxDim) + " (2^48)");
          }
          if (!d.has_dim_value() || d.dim_value() < 0) {
            const std::string what =
                d.has_dim_param() ? " ('" + d.dim_param() + "')" : std::string(" (unknown)");
            fail_model("dimension " + str(i) + " of input '" + in.name() + "' is dynamic" + what +
                       "; fix it with --input-shape " + in.name() + "=" + example);
          }
          shape.dims.push_back(static_cast<Dim>(d.dim_value()));
        }
      }
    }
    const NodeId id = add(OpKind::input, {}, {}, shape, &in.name());
    set_value_node(static_cast<std::uint32_t>(g.initializer_size() + j), id);
  }
  if (graph_.graph().nodes.empty()) {
    if (!rejected_order_.empty()) fail_rejected_input(rejected_order_.front());
    fail_model("model has no graph input (the IR needs one)");
  }

  for (int i = 0; i < nodes_.size(); ++i) {
    cur_ = reader.next(i);
    if (cur_ == nullptr) fail_corrupt_node(i);
    if (cur_->name.empty()) {
      unnamed_ = std::string(cur_->op_type) + "_" + str(i);
    }
    import_node();
  }
  cur_ = nullptr;
  const std::string& out = g.output(0).name();
  const std::uint32_t out_value = reader.value_after_last_node(out);
  if (rejected_inputs_.contains(out)) fail_rejected_input(out);
  if (pads_.contains(out)) fail_model("graph output '" + out + "' comes from a nonzero Pad");
  if (node_of(out_value) == kNoNode && !consts_.contains(out)) {
    fail_model("graph output '" + out + "' is not produced by any node, input or initializer");
  }
  const NodeId output_id = tensor(out, out_value);
  // A graph input no node consumed is still one the model declares: not dropped silently.
  if (!rejected_order_.empty()) fail_rejected_input(rejected_order_.front());

  // Every node was checked as it was added; these checks guard the importer itself.
  const auto internal = [&](const Error& e) {
    throw ImportFailure{make_error(
        ErrorKind::internal,
        std::string(source_) + ": internal error: the imported graph fails a check: " + e.message)};
  };
  if (!options_.keep_payloads) {
    payloads_ = {};  // shapes without data: not kept
  } else if (Expected<void> ok = check_payloads(graph_.graph(), payloads_); !ok) {
    internal(ok.error());
  }
  // Node 0 is the first graph input.
  Expected<ir::CheckedGraph> checked = std::move(graph_).finish(0, output_id);
  if (!checked) internal(checked.error());

  ImportedModel result{
      .checked = std::move(*checked), .payloads = std::move(payloads_), .opset = opset_};
  result.producer = model_.producer_name();
  if (!model_.producer_version().empty()) {
    result.producer += (result.producer.empty() ? "" : " ") + model_.producer_version();
  }
  return result;
}

}  // namespace

std::span<const std::string_view> supported_onnx_ops() {
  return kSupportedOps;
}

Expected<ImportedModel> import_onnx(std::span<const std::byte> bytes, std::string_view source,
                                    const OnnxImportOptions& options) {
  const std::string prefix = source.empty() ? std::string() : std::string(source) + ": ";
  if (bytes.empty()) {
    return std::unexpected(make_error(ErrorKind::invalid_input,
                                      prefix + "not a valid ONNX model: the input is empty"));
  }
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return std::unexpected(make_error(ErrorKind::invalid_input,
                                      prefix + "not a valid ONNX model: " + str(Dim{bytes.size()}) +
                                          " bytes exceed protobuf's 2 GiB message limit"));
  }
  // Parsed into an arena: the message's many small objects come from a few large blocks, freed
  // at once when the import returns.
  google::protobuf::ArenaOptions arena_options;
  arena_options.start_block_size = std::clamp<std::size_t>(bytes.size(), 64 << 10, 64 << 20);
  arena_options.max_block_size = std::max<std::size_t>(arena_options.start_block_size, 64 << 20);
  // A large model's message (its initializers) takes tens of megabytes touched once.
  arena_options.block_alloc = allocate_large;
  arena_options.block_dealloc = free_large;
  // The node reader's thread starts while the model is split, as soon as the graph has the nodes
  // that make one worth it.
  std::optional<detail::ReaderThread> thread;
  google::protobuf::Arena arena(arena_options);
  onnx::ModelProto& model = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  // The graph's nodes stay serialized until the importer reads them (onnx_model_split.hpp); input
  // the split does not take gets protobuf's full parse and its verdict.
  std::optional<detail::OnnxNodes> split = detail::split_onnx_model(
      bytes, model, kMaxGraphNodes, [&thread] { thread.emplace(); },
      detail::OnnxNodeReader::kThreadedMinNodes);
  if (!split) {
    thread.reset();  // a fully parsed graph is read without a worker
    if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return std::unexpected(make_error(
          ErrorKind::invalid_input,
          prefix + "not a valid ONNX model: the protobuf bytes are truncated or corrupt (" +
              str(Dim{bytes.size()}) + " bytes)"));
    }
    split.emplace(model.graph());
  }
  const detail::OnnxNodes& nodes = *split;
  try {
    return Importer(model, nodes, source, options, thread ? &*thread : nullptr).run();
  } catch (ImportFailure& f) {
    return std::unexpected(std::move(f.error));
  }
}

Expected<ImportedModel> import_onnx_file(const std::filesystem::path& path,
                                         const OnnxImportOptions& options) {
  auto bytes = detail::read_bounded_file(path, "ONNX model", kMaxOnnxFileBytes);
  if (!bytes) return std::unexpected(std::move(bytes.error()));
  return import_onnx(std::as_bytes(std::span(*bytes)), path.string(), options);
}

}  // namespace nnplan::format
