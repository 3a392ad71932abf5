#include "import_context.hpp"

#include <algorithm>

#include "constant_folding.hpp"
#include "nnplan/format/limits.hpp"
#include "nnplan/ir/op_table.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

bool is_default_domain(std::string_view domain) {
  return domain.empty() || domain == "ai.onnx";
}

std::string ImportProgress::describe() const {
  if (node >= 0) return "graph node " + std::to_string(node) + " (0-based)";
  return std::string(stage);
}

ImportContext::ImportContext(const onnx::ModelProto& model, const OnnxNodes& nodes,
                             std::string_view source, const OnnxImportOptions& options,
                             ImportProgress& progress,
                             std::shared_ptr<const ir::WeightBytes> model_bytes)
    : model_(model),
      nodes_(nodes),
      source_(source),
      options_(options),
      progress_(progress),
      scratch_(google::protobuf::Arena::CreateMessage<onnx::NodeProto>(&arena_)),
      probe_(google::protobuf::Arena::CreateMessage<onnx::NodeProto>(&arena_)),
      external_files_(options.external_data_dir),
      model_bytes_(std::move(model_bytes)) {}

// ---- errors ----

void ImportContext::fail_model(const std::string& reason, ErrorKind kind) const {
  std::string msg = source_.empty() ? reason : std::string(source_) + ": " + reason;
  throw ImportFailure{.error = make_error(kind, std::move(msg)), .reason = reason};
}

void ImportContext::fail(const std::string& reason, ErrorKind kind) const {
  if (node_ == nullptr) fail_model(reason, kind);
  const std::string msg = "node " + quoted_name(node_name()) + " (" +
                          capped_name(node_->op_type()) + ", opset " + str(opset_) + "): " + reason;
  throw ImportFailure{
      .error = make_error(kind, source_.empty() ? msg : std::string(source_) + ": " + msg),
      .reason = reason};
}

void ImportContext::fail_rejected_input(std::string_view name) const {
  fail_model(rejected_inputs_.find(name)->second, ErrorKind::unsupported);
}

void ImportContext::fail_corrupt_node(int i, const std::string& problem) const {
  if (problem.empty()) {
    fail_model("not a valid ONNX model: the protobuf bytes of graph node " + str(i) +
               " (0-based) are truncated or corrupt");
  }
  fail_model("not a valid ONNX model: graph node " + str(i) + " (0-based" + nodes_.label(i) +
             "): " + problem);
}

void ImportContext::fail_not_constant(std::string_view name, std::string_view role) const {
  const std::string what =
      graph_inputs_.contains(name) ? " is a graph input, not a constant" : " is not a constant";
  unsupported(std::string(role) + " " + quoted_name(name) + what +
              " (an initializer or a Constant output); it must be one");
}

void ImportContext::fail_parameter_input(std::string_view name, std::string_view role) const {
  unsupported(std::string(role) + " " + quoted_name(name) +
              " is a graph input, not an initializer: the model was exported without its "
              "parameters (torch.onnx.export(..., export_params=False)); export it with "
              "export_params=True");
}

// ---- attributes ----

const onnx::AttributeProto* ImportContext::attr(std::string_view name) const {
  for (const auto& a : node_->attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

void ImportContext::allow_attrs(std::initializer_list<std::string_view> names) const {
  for (const auto& a : node_->attribute()) {
    if (std::find(names.begin(), names.end(), a.name()) == names.end()) {
      unsupported("attribute " + quoted_name(a.name()) + " is not supported for " +
                  capped_name(node_->op_type()));
    }
  }
}

namespace {

// `a` when it is absent or of `type` (or of no declared type); fails otherwise.
const onnx::AttributeProto* typed(const ImportContext& cx, const onnx::AttributeProto* a,
                                  std::string_view name, onnx::AttributeProto_AttributeType type) {
  if (a != nullptr && a->type() != type &&
      a->type() != onnx::AttributeProto_AttributeType_UNDEFINED) {
    cx.fail("attribute " + std::string(name) + " has type " +
            onnx::AttributeProto_AttributeType_Name(a->type()) + ", expected " +
            onnx::AttributeProto_AttributeType_Name(type));
  }
  return a;
}

}  // namespace

std::int64_t ImportContext::attr_int(std::string_view name, std::int64_t def) const {
  const auto* a = typed(*this, attr(name), name, onnx::AttributeProto_AttributeType_INT);
  return a == nullptr ? def : a->i();
}

float ImportContext::attr_float(std::string_view name, float def) const {
  const auto* a = typed(*this, attr(name), name, onnx::AttributeProto_AttributeType_FLOAT);
  return a == nullptr ? def : a->f();
}

std::string ImportContext::attr_string(std::string_view name, std::string def) const {
  const auto* a = typed(*this, attr(name), name, onnx::AttributeProto_AttributeType_STRING);
  return a == nullptr ? def : a->s();
}

std::optional<std::vector<std::int64_t>> ImportContext::attr_ints(std::string_view name) const {
  const auto* a = typed(*this, attr(name), name, onnx::AttributeProto_AttributeType_INTS);
  if (a == nullptr) return std::nullopt;
  return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<float>> ImportContext::attr_floats(std::string_view name) const {
  const auto* a = typed(*this, attr(name), name, onnx::AttributeProto_AttributeType_FLOATS);
  if (a == nullptr) return std::nullopt;
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

int ImportContext::attr_data_type(std::string_view name) const {
  const onnx::AttributeProto* a = attr(name);
  if (a == nullptr) fail("attribute " + std::string(name) + " is missing");
  if (a->type() == onnx::AttributeProto_AttributeType_STRING) {
    onnx::TensorProto_DataType parsed{};
    if (!onnx::TensorProto_DataType_Parse(a->s(), &parsed)) {
      fail("attribute " + std::string(name) + " = " + quoted_name(a->s()) + " names no data type");
    }
    return parsed;
  }
  return static_cast<int>(attr_int(name, 0));
}

// ---- inputs and outputs ----

void ImportContext::require_inputs(int min, int max) const {
  int n = input_count();
  while (n > 0 && in_name(n - 1).empty())
    --n;
  if (n < min || n > max) {
    fail("has " + str(n) + " inputs, expected " +
         (min == max ? str(min) : str(min) + ".." + str(max)));
  }
}

void ImportContext::only_first_output(std::initializer_list<std::string_view> names) const {
  for (int i = 1; i < output_count(); ++i) {
    if (used(out_name(i))) {
      const std::string what =
          static_cast<std::size_t>(i) < names.size() ? std::string(names.begin()[i]) + " " : "";
      unsupported("output " + str(i) + " " + what + "(" + quoted_name(out_name(i)) +
                  ") is used; only the first output is supported");
    }
  }
}

bool ImportContext::used(std::string_view name) const {
  index_consumers();
  return !name.empty() && (consumers_.contains(name) || graph_outputs_.contains(name));
}

void ImportContext::index_consumers() const {
  if (consumers_indexed_) return;
  consumers_indexed_ = true;
  for (int i = 0; i < nodes_.size(); ++i) {
    // A corrupt node is reported when the import reaches it, so that the first problem in node
    // order is the one reported, with or without payloads; here it uses nothing.
    const onnx::NodeProto* node = nodes_.at(i, *probe_);
    if (node == nullptr) continue;
    for (const std::string& in : node->input()) {
      if (in.empty()) continue;
      auto it = consumers_.find(std::string_view(in));
      if (it == consumers_.end()) it = consumers_.emplace(in, std::vector<int>()).first;
      it->second.push_back(i);
    }
    for (const std::string& out : node->output()) {
      if (!out.empty()) producer_of_.emplace(out, i);  // the first: check_node refuses a second
    }
  }
}

int ImportContext::producer(std::string_view name) const {
  index_consumers();
  const auto it = producer_of_.find(name);
  return it == producer_of_.end() ? -1 : it->second;
}

std::span<const int> ImportContext::consumers(std::string_view name) const {
  index_consumers();
  const auto it = consumers_.find(name);
  if (it == consumers_.end()) return {};
  return it->second;
}

const onnx::NodeProto& ImportContext::other_node(int index) const {
  std::string problem;
  const onnx::NodeProto* node = nodes_.at(index, *probe_, &problem);
  if (node == nullptr) fail_corrupt_node(index, problem);
  return *node;
}

const onnx::NodeProto* ImportContext::peek_node(int index) const {
  return nodes_.at(index, *probe_);
}

// ---- tensors ----

std::optional<NodeId> ImportContext::node_of(std::string_view name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

NodeId ImportContext::tensor(std::string_view name, std::optional<NodeId> node) {
  if (node) return *node;
  if (rejected_inputs_.contains(name)) fail_rejected_input(name);
  if (const auto pad = pads_.find(name); pad != pads_.end()) {
    unsupported("input " + quoted_name(name) + " comes from Pad node " +
                quoted_name(pad->second.pad_node) +
                " with nonzero pads, which can only be folded into a Conv, MaxPool or "
                "AveragePool");
  }
  ConstPtr c = constant(name);
  if (c == nullptr) {
    if (name.empty()) fail("a required input is missing");
    fail("input " + quoted_name(name) +
         " is not produced by any earlier node, graph input or initializer");
  }
  if (!c->node) {
    if (c->dtype == onnx::TensorProto_DataType_INT64 ||
        c->dtype == onnx::TensorProto_DataType_BOOL) {
      // An int64 or bool constant is a const node of that dtype.
      if (c->external) {
        unsupported("tensor " + quoted_name(c->source) + " of " + dtype_name(c->dtype) +
                    " keeps its values in an external file; nnplan reads only float32 tensors "
                    "from external data: store it in the model");
      }
      const bool is_bool = c->dtype == onnx::TensorProto_DataType_BOOL;
      const NodeId id =
          add(OpKind::const_, {}, ir::ConstParams{.value_shape = Shape{c->dims}}, Shape{c->dims},
              c->source, is_bool ? ir::DType::boolean : ir::DType::int64);
      if (is_bool) {
        const std::vector<std::uint8_t> bytes(c->ints.begin(), c->ints.end());
        set_payload(id, "value", ir::WeightTensor::of_bools(Shape{c->dims}, bytes));
      } else {
        set_payload(id, "value", ir::WeightTensor::of_ints(Shape{c->dims}, c->ints));
      }
      c->node = id;
      return id;
    }
    if (c->dtype != onnx::TensorProto_DataType_FLOAT) {
      unsupported("tensor " + quoted_name(c->source) + " has data type " + dtype_name(c->dtype) +
                  "; only float32, int64 and bool tensors are supported");
    }
    const NodeId id = add(OpKind::const_, {}, ir::ConstParams{.value_shape = Shape{c->dims}},
                          Shape{c->dims}, c->source);
    set_payload(id, "value", payload_tensor(c, Shape{c->dims}));
    c->node = id;
  }
  return *c->node;
}

Shape ImportContext::tensor_shape(std::string_view name) {
  if (ConstPtr c = constant(name); c != nullptr && !c->node) return Shape{c->dims};
  return shape_of(tensor(name));
}

ConstPtr ImportContext::constant(std::string_view name) const {
  const auto it = consts_.find(name);
  if (it == consts_.end()) return nullptr;
  if (folded_reads_node_ != progress_.node) {
    folded_reads_.clear();
    folded_reads_node_ = progress_.node;
  }
  merge_folded(folded_reads_, it->second->folded_from);
  return it->second;
}

ConstPtr ImportContext::float_constant(std::string_view name, std::string_view role) const {
  ConstPtr c = constant(name);
  if (c == nullptr && graph_inputs_.contains(name)) fail_parameter_input(name, role);
  if (c == nullptr) fail_not_constant(name, role);
  require_float(*c);
  return c;
}

ir::NodeId ImportContext::float_value(std::string_view name, std::string_view role) {
  const ir::NodeId id = tensor(name);
  const ir::DType dtype = ir_node(id).dtype;
  if (dtype != ir::DType::float32) {
    unsupported(std::string(role) + " " + quoted_name(name) + " has dtype " +
                std::string(ir::to_string(dtype)) + "; supported: float32");
  }
  return id;
}

void ImportContext::require_float(const ConstTensor& c) const {
  if (c.dtype != onnx::TensorProto_DataType_FLOAT) {
    unsupported("tensor " + quoted_name(c.source) + " has data type " + dtype_name(c.dtype) +
                "; only float32 tensors are supported");
  }
}

std::vector<std::int64_t> ImportContext::int_constant(std::string_view name,
                                                      std::string_view role) const {
  ConstPtr c = constant(name);
  if (c == nullptr) fail_not_constant(name, role);
  if (c->external) {
    unsupported(std::string(role) + " " + quoted_name(name) +
                " keeps its values in an external file; nnplan reads only float32 weights from "
                "external data: store it in the model");
  }
  if (c->dtype != onnx::TensorProto_DataType_INT64 &&
      c->dtype != onnx::TensorProto_DataType_INT32) {
    unsupported(std::string(role) + " " + quoted_name(name) + " has data type " +
                dtype_name(c->dtype) + ", expected int64");
  }
  return c->ints;
}

ir::WeightTensor ImportContext::payload_tensor(const ConstPtr& c, Shape shape,
                                               std::string_view name) const {
  if (!options_.keep_payloads) return {};
  if (!c->raw_floats.empty()) {
    // A view of the mapped file's bytes (aligned or not); copied when the bytes are the caller's.
    return ir::WeightTensor::view(std::move(shape), ir::DType::float32,
                                  reinterpret_cast<const std::byte*>(c->raw_floats.data()),
                                  c->raw_floats.size() / 4, c->raw_owner);
  }
  if (!name.empty() && c.use_count() == 2 && !c->node && consumers(name).size() == 1 &&
      !graph_outputs_.contains(name)) {
    return ir::WeightTensor::adopt(std::move(shape), std::move(c->floats));
  }
  return ir::WeightTensor::of_floats(std::move(shape), c->floats);
}

ir::WeightTensor ImportContext::payload_tensor_transposed(const ConstPtr& c, Shape shape,
                                                          std::string_view name) const {
  ir::WeightTensor t = payload_tensor(c, std::move(shape), name).transposed();
  const bool mapped = !c->raw_floats.empty() && c->raw_owner != nullptr;
  return mapped ? t : t.contiguous();
}

ConstPtr ImportContext::decode_constant(const onnx::TensorProto& t) {
  auto c = decode_tensor(t, std::string(node_name()), /*stable=*/false);
  if (!c) fail(c.error().reason, c.error().kind);
  read_external(**c);
  return std::move(*c);
}

void ImportContext::read_external(ConstTensor& c) {
  if (!c.external || !options_.keep_payloads || c.dtype != onnx::TensorProto_DataType_FLOAT) {
    return;  // planning reads no data; other types are refused where used (int_constant)
  }
  Dim count = 1;
  for (const Dim d : c.dims)
    count *= d;  // bounded by kMaxTensorElements (decode_tensor)
  auto bytes = external_files_.read(*c.external, c.source, count * 4);
  if (!bytes) fail(bytes.error());
  c.raw_floats = bytes->bytes;
  c.raw_owner = std::move(bytes->owner);
}

// ---- definitions ----

void ImportContext::alias(std::string_view from, std::string_view to) {
  if (to.empty()) return;
  if (const std::optional<NodeId> id = node_of(from)) {
    define(to, *id);
  } else if (const auto p = pads_.find(from); p != pads_.end()) {
    define_pad(to, PendingPad(p->second));
  } else if (ConstPtr c = constant(from)) {
    define_constant(to, c);
  } else {
    tensor(from);  // fails with the reason
  }
}

std::optional<PendingPad> ImportContext::pad_of(std::string_view name) const {
  const auto it = pads_.find(name);
  if (it == pads_.end()) return std::nullopt;
  return it->second;
}

// ---- node emission ----

NodeId ImportContext::add(OpKind kind, const ir::Parents& parents, ir::OpParams params,
                          const Shape& declared, std::string_view source,
                          std::optional<ir::DType> dtype) {
  Expected<NodeId> id =
      graph_.add(kind, parents, std::move(params), declared,
                 source.empty() && node_ != nullptr ? node_name() : source, dtype);
  if (!id) {
    // A valid model whose int64 (or bool) value reaches an op nnplan runs on float32 only: a
    // limit of nnplan's, not a fault of the model.
    const ir::DTypeRule rule = ir::op_traits(kind).dtype_rule;
    const bool float_only = rule == ir::DTypeRule::float32 || rule == ir::DTypeRule::indices;
    for (const ir::NodeId p : parents) {
      if (p >= graph_.graph().nodes.size()) continue;
      const ir::Node& parent = graph_.graph().nodes[p];
      if (parent.dtype != ir::DType::float32 && float_only) {
        unsupported("its input (" + std::string(ir::to_string(parent.kind)) + " node '" +
                    parent.source_name + "') has dtype " +
                    std::string(ir::to_string(parent.dtype)) + "; nnplan runs " +
                    (node_ != nullptr ? capped_name(op_type()) : std::string(ir::to_string(kind))) +
                    " on float32 values only");
      }
    }
    fail("cannot be represented: " + id.error().message);
  }
  if (folded_reads_node_ == progress_.node && !folded_reads_.empty()) {
    std::vector<std::string>& names = folded_sources_[*id];
    for (const FoldedSource& f : folded_reads_)
      names.push_back(f.name);
  }
  return *id;
}

NodeId ImportContext::reshape(NodeId id, const Shape& to) {
  if (shape_of(id) == to) return id;
  return add(OpKind::reshape, {id}, ir::ReshapeParams{.in = shape_of(id), .out = to});
}

NodeId ImportContext::pad_with(NodeId x, std::size_t axis, Dim before, Dim after, float value) {
  const auto side = [&](Dim extent) {
    Shape s = shape_of(x);
    s.dims[axis] = extent;
    const std::optional<Dim> count = ir::element_count(s);
    if (!count || *count > kMaxFoldedElements) {
      unsupported("padding axis " + str(Dim{axis}) + " of " + to_string(shape_of(x)) + " by " +
                  str(extent) + " needs a constant block of more than " + str(kMaxFoldedElements) +
                  " elements; supported: up to that many");
    }
    const NodeId c = add(OpKind::const_, {}, ir::ConstParams{.value_shape = s}, s);
    if (options_.keep_payloads) {
      set_payload(c, "value", payload_values(s, std::vector<float>(*count, value)));
    }
    return c;
  };
  ir::Parents parents;
  if (before > 0) parents.push_back(side(before));
  parents.push_back(x);
  if (after > 0) parents.push_back(side(after));
  if (parents.size() == 1) return x;
  return add(OpKind::concat, parents, ir::AxisParams{.axis = static_cast<std::uint32_t>(axis)});
}

NodeId ImportContext::float_scalar(float value) {
  const NodeId c = add(OpKind::const_, {}, ir::ConstParams{.value_shape = Shape{}}, Shape{});
  set_payload(c, "value", ir::WeightTensor::of_floats(Shape{}, std::span(&value, 1)));
  return c;
}

NodeId ImportContext::int64_scalar(std::int64_t value) {
  const NodeId c = add(OpKind::const_, {}, ir::ConstParams{.value_shape = Shape{}}, Shape{}, {},
                       ir::DType::int64);
  set_payload(c, "value", ir::WeightTensor::of_ints(Shape{}, std::span(&value, 1)));
  return c;
}

NodeId ImportContext::int64_range(const Shape& shape, std::int64_t first, std::int64_t step) {
  const NodeId c =
      add(OpKind::const_, {}, ir::ConstParams{.value_shape = shape}, shape, {}, ir::DType::int64);
  if (options_.keep_payloads) {
    std::vector<std::int64_t> values(ir::element_count(shape).value_or(0));
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = first + static_cast<std::int64_t>(i) * step;
    set_payload(c, "value", ir::WeightTensor::adopt(shape, std::move(values)));
  }
  return c;
}

NodeId ImportContext::broadcast(NodeId id, const Shape& to) {
  if (shape_of(id) == to) return id;
  return add(OpKind::broadcast_to, {id}, ir::BroadcastParams{.from = shape_of(id), .to = to});
}

Shape ImportContext::broadcast_shapes(const Shape& a, const Shape& b) const {
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

NodeId ImportContext::combine(OpKind kind, NodeId a, NodeId b, bool divide) {
  if (!divide && shape_of(a) == shape_of(b)) return add(kind, {a, b});  // nothing to broadcast
  const Shape out = broadcast_shapes(shape_of(a), shape_of(b));
  if (divide) b = add(OpKind::inv, {b});
  a = broadcast(a, out);
  b = broadcast(b, out);
  return add(kind, {a, b});
}

// ---- attribute rules shared by several operators ----

std::uint32_t ImportContext::norm_axis(std::int64_t axis, std::size_t rank, bool inclusive) const {
  const auto r = static_cast<std::int64_t>(rank);
  const std::int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a > r || (a == r && !inclusive)) {
    fail("axis " + str(axis) + " is out of range for rank " + str(r));
  }
  return static_cast<std::uint32_t>(a);
}

void ImportContext::refuse_same_auto_pad(const PendingPad& folded) const {
  const std::string auto_pad = attr_string("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    unsupported("attribute auto_pad = " + auto_pad + " after the folded Pad node " +
                quoted_name(folded.pad_node) + " is not supported; export with explicit pads");
  }
}

std::vector<std::int64_t> ImportContext::axes_operand(int input) const {
  if (has_in(input)) return int_constant(in_name(input), "axes");
  if (const auto a = attr_ints("axes")) return *a;
  return {};
}

}  // namespace nnplan::format::onnx_import
