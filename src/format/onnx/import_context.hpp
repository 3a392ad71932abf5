// The state of one ONNX import and the steps every operator importer shares.
//
// The importer walks graph.node once, in the file's (topological) order, parsing each node into
// one reused message. Every ONNX tensor name resolves to one of: an IR node that produces it (a
// standard hash map by name), a constant known at import time (initializers, Constant outputs and
// the results of constant folding, constant_folding.hpp; materialized as a `const` node only when
// consumed as a plain tensor, and folded straight into linear/conv/conv_transpose/batch_norm_eval/
// layernorm payloads when consumed there), or a pending Pad (zero padding waiting to be folded
// into the Conv or pooling node that consumes it). A node's inputs
// resolve to the definitions before it: what a node defines takes effect when it is done. Each IR
// node is added through ir::CheckedGraphBuilder, which checks it and infers its shape, so the
// result is checked by construction.
//
// Failures are reported from deep inside the operator importers: they throw ImportFailure, so the
// many steps need no error plumbing each. An `unsupported` failure of a graph node is caught by
// run(), which records the node, marks its outputs unavailable and goes on: a later node that
// consumes an unavailable tensor is skipped (counted, not listed), and at the end one
// `unsupported` Error lists every recorded node (unsupported_summary.cpp). Any other failure, and
// a model-level one, stops the import at once: import_onnx catches it and returns its Error.
#pragma once

#include <google/protobuf/arena.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "message_format.hpp"
#include "model_split.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "nnplan/ir/check.hpp"
#include "tensor_decoding.hpp"

namespace nnplan::format::onnx_import {

// The default-domain opset every operator row was written against: a row ending at kMaxOpset reads
// its operator as ONNX defines it up to opset 17.
inline constexpr std::int64_t kMaxOpset = 17;
// The highest default-domain opset a model may declare. Opsets 18..20 are read only for the
// operators whose rows reach them (operator_table.cpp): those whose definition did not change after
// 17, or changed in a way the importer reads (docs/onnx-support.md lists which).
inline constexpr std::int64_t kMaxModelOpset = 20;

// What an operator importer or the model's interface reports: thrown, caught by run() (an
// unsupported node) or by import_onnx.
struct ImportFailure {
  Error error;
  std::string reason;  // the message without the source and node prefix
};

// `std::string + std::string_view`, which C++26 adds to the standard library: messages quote
// node names, which are views into the node being imported.
inline std::string operator+(std::string lhs, std::string_view rhs) {
  lhs.append(rhs);
  return lhs;
}

bool is_default_domain(std::string_view domain);

// Hashes std::string and std::string_view alike, so that a table keyed by std::string is searched
// with a view without a copy.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class Value>
using NameMap = std::unordered_map<std::string, Value, NameHash, std::equal_to<>>;
using NameSet = std::unordered_set<std::string, NameHash, std::equal_to<>>;

// Zero padding of H and W by `padding`, waiting for the Conv or pooling node consuming it.
struct PendingPad {
  std::string input;                     // the tensor the Pad node padded
  std::optional<ir::NodeId> input_node;  // the IR node `input` named at the Pad, if any
  std::uint32_t padding = 0;
  std::string pad_node;  // the Pad node's name, for messages
};

// What the import is reading, for the message of a failure no step reported itself (out of
// memory): a stage of the model's interface, or graph node `node`.
struct ImportProgress {
  std::string_view stage = "the protobuf bytes";
  int node = -1;
  [[nodiscard]] std::string describe() const;
};

class ImportContext {
 public:
  // `model_bytes`: the mapped file the model was read from, which payloads viewing its
  // initializers keep alive; null when the bytes belong to the caller (payloads are copied).
  ImportContext(const onnx::ModelProto& model, const OnnxNodes& nodes, std::string_view source,
                const OnnxImportOptions& options, ImportProgress& progress,
                std::shared_ptr<const ir::WeightBytes> model_bytes);

  // The whole import (model_interface.cpp): the interface, every node, the output.
  ImportedModel run();

  // ---- errors ----
  // A model-level failure: `reason` after the source.
  [[noreturn]] void fail_model(const std::string& reason,
                               ErrorKind kind = ErrorKind::invalid_input) const;
  // A failure of the current node (a model-level one between nodes).
  [[noreturn]] void fail(const std::string& reason,
                         ErrorKind kind = ErrorKind::invalid_input) const;
  [[noreturn]] void unsupported(const std::string& reason) const {
    fail(reason, ErrorKind::unsupported);
  }
  // An attribute value the importer does not support, and the values it does.
  [[noreturn]] void fail_attr(const std::string& name, const std::string& value,
                              const std::string& supported) const {
    unsupported("attribute " + name + " = " + value + " is not supported; supported: " + supported);
  }

  // ---- the current node ----
  std::int64_t opset() const { return opset_; }
  const onnx::NodeProto& node() const { return *node_; }
  std::string_view op_type() const { return node_->op_type(); }
  // The current node's name (`<op_type>_<index>` when it has none).
  std::string_view node_name() const { return node_->name().empty() ? unnamed_ : node_->name(); }
  // The current node's index in graph.node (-1 between nodes).
  int node_index() const { return progress_.node; }

  // ---- attributes ----
  const onnx::AttributeProto* attr(std::string_view name) const;
  // Rejects every attribute not in `names`.
  void allow_attrs(std::initializer_list<std::string_view> names) const;
  std::int64_t attr_int(std::string_view name, std::int64_t def) const;
  float attr_float(std::string_view name, float def) const;
  std::string attr_string(std::string_view name, std::string def) const;
  std::optional<std::vector<std::int64_t>> attr_ints(std::string_view name) const;
  std::optional<std::vector<float>> attr_floats(std::string_view name) const;
  // A required data-type attribute (Cast's `to`): an int, or before opset 6 a string naming the
  // type ("FLOAT"); fails when absent or naming no type.
  int attr_data_type(std::string_view name) const;

  // ---- inputs and outputs ----
  // Views into the current node's names (empty for an absent one), valid while it is imported.
  std::string_view in_name(int i) const {
    return i < node_->input_size() ? std::string_view(node_->input(i)) : std::string_view();
  }
  bool has_in(int i) const { return !in_name(i).empty(); }
  int input_count() const { return node_->input_size(); }
  int output_count() const { return node_->output_size(); }
  std::string_view out_name(int i) const {
    return i < node_->output_size() ? std::string_view(node_->output(i)) : std::string_view();
  }
  // Rejects an input count (trailing absent inputs not counted) outside [min, max].
  void require_inputs(int min, int max) const;
  // Rejects any output past the first that a node or the graph uses; `names` are the outputs'
  // names in the operator's signature.
  void only_first_output(std::initializer_list<std::string_view> names) const;
  // Whether a node or the graph output uses tensor `name`.
  bool used(std::string_view name) const;
  // The indices of the nodes consuming tensor `name`, once per use, in node order.
  std::span<const int> consumers(std::string_view name) const;
  // Graph node `index`, parsed into a second reused message (valid until the next call).
  const onnx::NodeProto& other_node(int index) const;
  // The same, or null when its bytes are corrupt (reported when the import reaches it): for a
  // pattern looking ahead, which must not report a later node's problem early.
  const onnx::NodeProto* peek_node(int index) const;
  // The index of the graph node whose output `name` is, or -1 (a graph input, an initializer, or
  // nothing).
  int producer(std::string_view name) const;
  bool is_graph_output(std::string_view name) const { return graph_outputs_.contains(name); }

  // ---- tensors ----
  // The IR node holding tensor `name`, materializing a constant as a `const` node.
  ir::NodeId tensor(std::string_view name) { return tensor(name, node_of(name)); }
  // The same for `name` whose producing IR node, if any, was already looked up as `node`.
  ir::NodeId tensor(std::string_view name, std::optional<ir::NodeId> node);
  // The IR node that defines `name` before the current node, if any.
  std::optional<ir::NodeId> node_of(std::string_view name) const;
  const ir::Shape& shape_of(ir::NodeId id) const { return graph_.graph().nodes[id].shape; }
  const ir::Node& ir_node(ir::NodeId id) const { return graph_.graph().nodes[id]; }
  // The shape of tensor `name`, without materializing a constant.
  ir::Shape tensor_shape(std::string_view name);

  // The constant tensor `name` is, or null. A folded constant read while a node is imported
  // becomes the provenance of every IR node that node emits (ImportedModel::folded_sources).
  ConstPtr constant(std::string_view name) const;
  // A float32 constant that operand `role` (a weight, bias or statistic) must be; a graph input
  // there fails as fail_parameter_input.
  ConstPtr float_constant(std::string_view name, std::string_view role) const;
  // The IR node of tensor `name` (a constant materialized as a `const` node) that operand `role`
  // (a weight given as a value, a grid) takes as float32; unsupported naming its dtype otherwise.
  ir::NodeId float_value(std::string_view name, std::string_view role);
  void require_float(const ConstTensor& c) const;
  // The values of an int64 (or int32) constant that operand `role` must be.
  std::vector<std::int64_t> int_constant(std::string_view name, std::string_view role) const;
  // The node's axes: its constant input `input` when present (opset 13 on), else its `axes`
  // attribute, else none.
  std::vector<std::int64_t> axes_operand(int input) const;
  // Fails: operand `role` named `name` must be a constant and is not.
  [[noreturn]] void fail_not_constant(std::string_view name, std::string_view role) const;
  // Fails: parameter operand `role` named `name` is a graph input with no initializer, as in a
  // model exported without its parameters (torch.onnx.export(..., export_params=False)).
  [[noreturn]] void fail_parameter_input(std::string_view name, std::string_view role) const;
  // The float32 payload of shape `shape` holding the data of constant `c`: a view of its bytes
  // where they lie undecoded in a mapped file (the model's or its external data's; no copy),
  // else its decoded values, moved out when `name` is given and this is the only use of `c` by
  // that name (no other name aliases it, one consuming input, not the graph output), else
  // copied. An empty tensor when the import keeps no payloads (set_payload then drops it).
  ir::WeightTensor payload_tensor(const ConstPtr& c, ir::Shape shape,
                                  std::string_view name = {}) const;
  // payload_tensor of `c` as `shape`, seen transposed (`linear`'s [out, in] weight from a
  // MatMul's [in, out] operand): a strided view where the bytes lie in a mapped file; an owned
  // row-major copy where payload_tensor had to make one anyway, so that it is the only copy.
  ir::WeightTensor payload_tensor_transposed(const ConstPtr& c, ir::Shape shape,
                                             std::string_view name = {}) const;
  // A payload made of new values (a broadcast bias).
  ir::WeightTensor payload_values(ir::Shape shape, std::vector<float> values) const {
    return options_.keep_payloads ? ir::WeightTensor::adopt(std::move(shape), std::move(values))
                                  : ir::WeightTensor();
  }
  bool keep_payloads() const { return options_.keep_payloads; }
  // Decodes a Constant node's value tensor.
  ConstPtr decode_constant(const onnx::TensorProto& t);
  // Reads the external float32 data of `c` into c.raw_floats when the import keeps payloads
  // (external_data.hpp); fails naming the tensor when it cannot.
  void read_external(ConstTensor& c);

  // ---- definitions ----
  // Output `name` of the current node is IR node `id`, from the next node on.
  void define(std::string_view name, ir::NodeId id) { defined_.emplace_back(name, id); }
  // Output `to` is whatever `from` is: an IR node, a pending Pad or a constant.
  void alias(std::string_view from, std::string_view to);
  void define_constant(std::string_view name, ConstPtr c) { consts_[std::string(name)] = c; }
  void define_pad(std::string_view name, PendingPad pad) {
    pads_[std::string(name)] = std::move(pad);
  }
  // The pending Pad that tensor `name` is, if any.
  std::optional<PendingPad> pad_of(std::string_view name) const;
  // Graph node `index`, after the current one, is part of the pattern the current node imports:
  // it is checked but not imported, and its output `out`, if given, is IR node `id` (an
  // intermediate of the pattern, consumed only inside it, names nothing).
  void absorb(int index, std::string_view out = {}, ir::NodeId id = 0) {
    absorbed_[index] = {std::string(out), id};
  }

  // ---- node emission ----
  // `dtype` declares the node's dtype (a const's, a cast's); without it the node makes the dtype
  // its kind's rule infers.
  ir::NodeId add(ir::OpKind kind, const ir::Parents& parents, ir::OpParams params = {},
                 const ir::Shape& declared = {}, std::string_view source = {},
                 std::optional<ir::DType> dtype = std::nullopt);
  void set_payload(ir::NodeId id, const std::string& slot, ir::WeightTensor tensor) {
    if (options_.keep_payloads) payloads_.tensors[{id, slot}] = std::move(tensor);
  }
  void set_attribute(ir::NodeId id, const std::string& name, double value) {
    payloads_.attributes[{id, name}] = value;
  }
  ir::NodeId reshape(ir::NodeId id, const ir::Shape& to);
  // `x` with `before` and `after` entries of `value` on axis `axis`: float32 `const` blocks
  // concatenated on each side (x itself when both are 0).
  ir::NodeId pad_with(ir::NodeId x, std::size_t axis, ir::Dim before, ir::Dim after, float value);
  // A scalar const node holding `value`, float32 or int64.
  ir::NodeId float_scalar(float value);
  ir::NodeId int64_scalar(std::int64_t value);
  // An int64 const node of `shape` whose elements, in row-major order, are first, first + step,
  // ... (a table of positions along an axis; the caller bounds its size).
  ir::NodeId int64_range(const ir::Shape& shape, std::int64_t first, std::int64_t step);
  ir::NodeId broadcast(ir::NodeId id, const ir::Shape& to);
  ir::Shape broadcast_shapes(const ir::Shape& a, const ir::Shape& b) const;
  // `a kind b` with both broadcast to their common shape (`divide`: b inverted first).
  ir::NodeId combine(ir::OpKind kind, ir::NodeId a, ir::NodeId b, bool divide);

  // ---- attribute rules shared by several operators ----
  std::uint32_t norm_axis(std::int64_t axis, std::size_t rank, bool inclusive = false) const;
  // Refuses auto_pad SAME_UPPER or SAME_LOWER on a window op that `folded`'s Pad node feeds: the
  // SAME padding depends on the padded input's size, which the folded op does not see.
  void refuse_same_auto_pad(const PendingPad& folded) const;

 private:
  // Records that the import now reads `stage` (for ImportProgress), and runs the test seam.
  void step(std::string_view stage);
  void read_interface();   // model_interface.cpp
  void read_inputs();      // model_interface.cpp
  void add_symbolic_dim(const std::string& input, int axis, const std::string& name, ir::Dim size,
                        bool fixed);  // model_interface.cpp
  std::optional<ir::Dim> fixed_size_of(const std::string& name) const;  // model_interface.cpp
  void note_open_dims(Error& error) const;                              // onnx_import.cpp
  ImportedModel finish();  // model_interface.cpp
  void import_node(int index);
  // Whether the current node consumes a tensor of a node recorded as unsupported.
  bool depends_on_unsupported() const;
  // Fails the current node, whose operator nnplan neither imports nor folds at the model's opset:
  // unsupported (naming the last opset it is read at, when the model's is later), or invalid
  // when the operator does not exist yet at the model's opset.
  [[noreturn]] void refuse_operator() const;
  // Records the current node, graph node `index`, as unsupported for `reason`; its outputs become
  // unavailable.
  void record_unsupported(int index, const std::string& reason);
  // Throws the one `unsupported` Error listing what was recorded (unsupported_summary.cpp).
  [[noreturn]] void fail_unsupported_summary() const;
  // The ONNX checker's rules (checker_rules.cpp): on opset_import, on model-local functions, and
  // on the current node, graph node `index` (its attributes and outputs).
  void check_opsets() const;
  void check_functions() const;
  void check_node(int index);
  void index_consumers() const;
  [[noreturn]] void fail_rejected_input(std::string_view name) const;
  // Node i could not be parsed: `problem` is what check_wire found, or empty for bytes protobuf
  // rejects.
  [[noreturn]] void fail_corrupt_node(int i, const std::string& problem) const;

  const onnx::ModelProto& model_;  // every field but the graph's nodes
  const OnnxNodes& nodes_;
  std::string_view source_;
  const OnnxImportOptions& options_;
  ImportProgress& progress_;
  std::int64_t opset_ = 0;

  // The node being imported and another node looked at meanwhile, parsed into messages on one
  // arena and reused from node to node.
  google::protobuf::Arena arena_;
  onnx::NodeProto* scratch_ = nullptr;
  onnx::NodeProto* probe_ = nullptr;
  const onnx::NodeProto* node_ = nullptr;
  std::string unnamed_;  // the current node's name when it has none: `<op_type>_<index>`
  // What the current node defined, applied when it is done.
  std::vector<std::pair<std::string_view, ir::NodeId>> defined_;

  ExternalDataFiles external_files_;
  std::shared_ptr<const ir::WeightBytes> model_bytes_;
  ir::CheckedGraphBuilder graph_;
  ir::WeightStore payloads_;
  NameMap<ir::NodeId> values_;  // tensor name -> the IR node that produces it
  NameMap<ConstPtr> consts_;
  NameMap<PendingPad> pads_;
  std::unordered_map<int, std::pair<std::string, ir::NodeId>> absorbed_;  // absorb()
  // Consumers of each tensor, built on first use (consumers()): only Pad, Dropout and the
  // weights moved into payloads need them.
  mutable bool consumers_indexed_ = false;
  mutable NameMap<std::vector<int>> consumers_;
  mutable NameMap<int> producer_of_;  // node output -> the graph node producing it, with consumers_
  // The folded nodes behind the constants node `folded_reads_node_` read (constant()), merged
  // in node order, and what every IR node emitted so far got from them.
  mutable std::vector<FoldedSource> folded_reads_;
  mutable int folded_reads_node_ = -1;
  std::map<ir::NodeId, std::vector<std::string>> folded_sources_;
  std::vector<std::filesystem::path> external_data_files_;  // ImportedModel::external_data_files
  NameSet graph_outputs_;
  NameSet graph_inputs_;    // graph inputs that are not initializers
  std::vector<SymbolicDim> symbolic_dims_;         // read_inputs
  std::vector<SymbolicDim> symbolic_output_dims_;  // finish
  NameMap<int> producers_;  // node output -> the graph node producing it (check_node)
  // Graph inputs that are not float32 tensors, with the reason, in graph order.
  NameMap<std::string> rejected_inputs_;
  std::vector<std::string> rejected_order_;

  // Nodes recorded as unsupported: the first kMaxListedUnsupported lines (`node 12 'Conv_3'
  // (Conv): <reason>`), how many there were, the tensors they leave unavailable, and how many
  // later nodes were skipped for consuming one.
  std::vector<std::string> unsupported_lines_;
  std::size_t unsupported_nodes_ = 0;
  NameSet unavailable_;
  std::size_t dependent_nodes_ = 0;
};

// The most unsupported nodes one Error lists; the rest are counted ("... and 12 more").
inline constexpr std::size_t kMaxListedUnsupported = 1000;

}  // namespace nnplan::format::onnx_import
