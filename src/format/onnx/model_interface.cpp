// The model's interface: its ir_version and default-domain opset, its one graph output, its
// initializers (constants) and its graph inputs (IR input nodes, with shapes fixed by
// OnnxImportOptions::input_shapes where the model leaves them dynamic).
#include <algorithm>
#include <vector>

#include "import_context.hpp"
#include "nnplan/format/limits.hpp"
#include "nnplan/spelling_hint.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void ImportContext::read_interface() {
  step("the model's opsets and outputs");
  if (!model_.has_ir_version() || model_.ir_version() <= 0) {
    fail_model("not a valid ONNX model: ir_version is missing");
  }
  check_opsets();
  check_functions();
  bool found = false;
  for (const auto& o : model_.opset_import()) {
    if (is_default_domain(o.domain())) {
      opset_ = o.version();
      found = true;
    }
  }
  if (!found && model_.opset_import_size() > 0) {
    // A valid model of other domains only (ONNX's training operators): nothing nnplan reads.
    std::string domains;
    for (const auto& o : model_.opset_import())
      domains += (domains.empty() ? "" : ", ") + quoted_name(o.domain());
    fail_model("model imports no opset of the default ONNX domain, only " + domains +
                   "; supported: the default ONNX domain",
               ErrorKind::unsupported);
  }
  if (!found) fail_model("model imports no opset of the default ONNX domain");
  if (opset_ > kMaxModelOpset || opset_ < 1) {
    fail_model("opset " + str(opset_) +
                   " of the default ONNX domain is not supported; supported: 1.." +
                   str(kMaxModelOpset),
               opset_ < 1 ? ErrorKind::invalid_input : ErrorKind::unsupported);
  }
  const onnx::GraphProto& g = model_.graph();
  if (g.output_size() == 0) fail_model("model has no graph outputs");
  for (const auto& o : g.output())
    graph_outputs_.insert(o.name());
  if (static_cast<std::size_t>(nodes_.size()) > kMaxGraphNodes) {
    fail_model("graph has " + str(nodes_.size()) + " nodes; the limit is " + str(kMaxGraphNodes) +
               " (2^26)");
  }
  // Initializers become IR nodes only where a node consumes them as a plain tensor: not reserved,
  // so that unused ones cost no node.
  graph_.reserve(static_cast<std::size_t>(nodes_.size()) + g.input_size());
  values_.reserve(static_cast<std::size_t>(nodes_.size()) + g.input_size());
  // One output per node is the common case: check_node records each output's producer.
  producers_.reserve(static_cast<std::size_t>(nodes_.size()));

  step("the initializers");
  for (int k = 0; k < g.initializer_size(); ++k) {
    const onnx::TensorProto& t = g.initializer(k);
    if (t.name().empty()) fail_model("an initializer has no name");
    auto c = decode_tensor(t, t.name(), /*stable=*/true, nodes_.initializer_raw_data(k));
    if (!c) fail_model(c.error().reason, c.error().kind);
    // Undecoded bytes lie in the model's bytes (split out of the file, not in the parsed proto).
    if (!(*c)->raw_floats.empty() && nodes_.initializer_raw_data(k)) (*c)->raw_owner = model_bytes_;
    read_external(**c);
    if ((*c)->external && !options_.external_data_dir.empty()) {
      const std::filesystem::path file = options_.external_data_dir / (*c)->external->location;
      if (std::ranges::find(external_data_files_, file) == external_data_files_.end()) {
        external_data_files_.push_back(file);
      }
    }
    consts_[t.name()] = std::move(*c);
  }
  if (g.sparse_initializer_size() > 0) {
    fail_model("sparse initializers are not supported", ErrorKind::unsupported);
  }
  step("the graph inputs");
  read_inputs();
}

void ImportContext::read_inputs() {
  const onnx::GraphProto& g = model_.graph();
  for (const auto& [name, dims] : options_.input_shapes) {
    const bool is_input = std::any_of(g.input().begin(), g.input().end(), [&](const auto& in) {
      return in.name() == name && !consts_.contains(name);
    });
    if (!is_input) {
      std::string names;
      std::vector<std::string> inputs;
      for (const auto& in : g.input()) {
        if (consts_.contains(in.name())) continue;
        names += (names.empty() ? "" : ", ") + quoted_name(in.name());
        inputs.push_back(in.name());
      }
      // Not found, not malformed: the name is the caller's, so the command line says it as a
      // usage error.
      fail_model("an input shape is given for " + quoted_name(name) +
                     ", which is not a graph input; " + did_you_mean(name, inputs) +
                     "inputs: " + (names.empty() ? "none" : names),
                 ErrorKind::not_found);
    }
  }
  for (const onnx::ValueInfoProto& in : g.input()) {
    if (consts_.contains(in.name())) {  // an initializer with a default: a constant
      values_.erase(in.name());
      continue;
    }
    graph_inputs_.insert(in.name());
    std::string rejected;
    ir::DType dtype = ir::DType::float32;
    if (!in.type().has_tensor_type()) {
      rejected = "input " + quoted_name(in.name()) +
                 " is not a tensor; only float32, int64 and bool tensors are supported";
    } else if (const int t = in.type().tensor_type().elem_type();
               t == onnx::TensorProto_DataType_INT64) {
      dtype = ir::DType::int64;
    } else if (t == onnx::TensorProto_DataType_BOOL) {
      dtype = ir::DType::boolean;
    } else if (t != onnx::TensorProto_DataType_FLOAT) {
      rejected = "input " + quoted_name(in.name()) + " has data type " + dtype_name(t) +
                 "; only float32, int64 and bool tensors are supported";
    }
    if (!rejected.empty()) {
      // Reported when consumed (tensor()), or at the end if never consumed.
      values_.erase(in.name());
      if (rejected_inputs_.emplace(in.name(), std::move(rejected)).second)
        rejected_order_.push_back(in.name());
      continue;
    }
    const auto& tt = in.type().tensor_type();
    const auto fixed = options_.input_shapes.find(in.name());
    Shape shape;
    if (!tt.has_shape()) {
      if (fixed == options_.input_shapes.end()) {
        fail_model("input " + quoted_name(in.name()) + " has no shape; fix it with --input-shape " +
                       in.name() + "=D0,D1,...",
                   ErrorKind::unsupported);
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
          fail_model("input shape " + list_string(fixed->second) + " given for input " +
                     quoted_name(in.name()) + " has rank " + str(Dim{fixed->second.size()}) +
                     ", the model's has rank " + str(dims.size()));
        }
        for (int i = 0; i < dims.size(); ++i) {
          const auto& d = dims[i];
          if (d.has_dim_value() && d.dim_value() >= 0 &&
              static_cast<Dim>(d.dim_value()) != fixed->second[i]) {
            fail_model("input shape " + list_string(fixed->second) + " given for input " +
                       quoted_name(in.name()) + " has " + str(fixed->second[i]) + " at dimension " +
                       str(i) + ", the model fixes it to " + str(d.dim_value()));
          }
          if (!d.has_dim_value() || d.dim_value() < 0) {
            add_symbolic_dim(in.name(), i, d.dim_param(), fixed->second[i], /*fixed=*/true);
          }
        }
        shape.dims = fixed->second;
      } else {
        if (static_cast<std::size_t>(dims.size()) > kMaxRank) {
          fail_model("input " + quoted_name(in.name()) + " has rank " + str(dims.size()) +
                     "; the limit is " + str(kMaxRank));
        }
        for (int i = 0; i < dims.size(); ++i) {
          const auto& d = dims[i];
          if (d.has_dim_value() && d.dim_value() > 0 && static_cast<Dim>(d.dim_value()) > kMaxDim) {
            fail_model("dimension " + str(i) + " of input " + quoted_name(in.name()) + " is " +
                       str(d.dim_value()) + "; the limit is " + str(kMaxDim) + " (2^48)");
          }
          if (!d.has_dim_value() || d.dim_value() < 0) {
            // A named dimension an input shape gave another input takes that size: "batch" is
            // one number.
            if (const auto given = fixed_size_of(d.dim_param())) {
              add_symbolic_dim(in.name(), i, d.dim_param(), *given, /*fixed=*/true);
              shape.dims.push_back(*given);
              continue;
            }
            if (!options_.open_dim_size) {
              const std::string what = d.has_dim_param() ? " (" + quoted_name(d.dim_param()) + ")"
                                                         : std::string(" (unknown)");
              fail_model("dimension " + str(i) + " of input " + quoted_name(in.name()) +
                             " is dynamic" + what + "; fix it with --input-shape " + in.name() +
                             "=" + example,
                         ErrorKind::unsupported);
            }
            add_symbolic_dim(in.name(), i, d.dim_param(), *options_.open_dim_size,
                             /*fixed=*/false);
            shape.dims.push_back(*options_.open_dim_size);
            continue;
          }
          shape.dims.push_back(static_cast<Dim>(d.dim_value()));
        }
      }
    }
    values_[in.name()] = add(OpKind::input, {}, {}, shape, in.name(), dtype);
  }
  if (graph_.graph().nodes.empty()) {
    if (!rejected_order_.empty()) fail_rejected_input(rejected_order_.front());
    fail_model("model has no graph input (the IR needs one)", ErrorKind::unsupported);
  }
}

// The size input_shapes gives the dimension named `name` of some graph input, if any does.
std::optional<Dim> ImportContext::fixed_size_of(const std::string& name) const {
  if (name.empty()) return std::nullopt;
  for (const onnx::ValueInfoProto& in : model_.graph().input()) {
    const auto fixed = options_.input_shapes.find(in.name());
    if (fixed == options_.input_shapes.end() || !in.type().has_tensor_type() ||
        !in.type().tensor_type().has_shape()) {
      continue;
    }
    const auto& dims = in.type().tensor_type().shape().dim();
    for (int i = 0; i < dims.size() && static_cast<std::size_t>(i) < fixed->second.size(); ++i) {
      if (dims[i].dim_param() == name) return fixed->second[static_cast<std::size_t>(i)];
    }
  }
  return std::nullopt;
}

// One dynamic dimension, given `size`. Inputs that name the same dim_param get the same size: a
// model's "batch" is one number, so two inputs given two batches are refused here, naming both.
void ImportContext::add_symbolic_dim(const std::string& input, int axis, const std::string& name,
                                     Dim size, bool fixed) {
  if (!name.empty()) {
    for (const SymbolicDim& other : symbolic_dims_) {
      if (other.name != name || other.size == size) continue;
      fail_model("dimension " + quoted_name(name) + " is " + str(other.size) + " in input " +
                     quoted_name(other.input) + " (axis " + str(Dim{other.axis}) + ") but " +
                     str(size) + " in input " + quoted_name(input) + " (axis " + str(axis) +
                     "); the model names both " + quoted_name(name) + ", one size",
                 ErrorKind::invalid_input);
    }
  }
  symbolic_dims_.push_back({.input = input,
                            .axis = static_cast<std::size_t>(axis),
                            .name = name,
                            .size = size,
                            .fixed = fixed});
}

ImportedModel ImportContext::finish() {
  step("the graph outputs");
  std::vector<NodeId> output_ids;
  output_ids.reserve(static_cast<std::size_t>(model_.graph().output_size()));
  std::vector<std::string> output_names;
  for (const auto& output : model_.graph().output()) {
    const std::string& out = output.name();
    const std::optional<NodeId> out_node = node_of(out);
    if (rejected_inputs_.contains(out)) fail_rejected_input(out);
    if (pads_.contains(out)) {
      fail_model("graph output " + quoted_name(out) + " comes from a nonzero Pad",
                 ErrorKind::unsupported);
    }
    if (!out_node && !consts_.contains(out)) {
      fail_model("graph output " + quoted_name(out) +
                 " is not produced by any node, input or initializer");
    }
    output_ids.push_back(tensor(out, out_node));
    output_names.push_back(out);
    if (output.type().has_tensor_type() && output.type().tensor_type().has_shape()) {
      const auto& declared = output.type().tensor_type().shape().dim();
      const ir::Shape& inferred = shape_of(output_ids.back());
      for (int i = 0; i < declared.size() && static_cast<std::size_t>(i) < inferred.rank(); ++i) {
        if (declared[i].has_dim_value() && declared[i].dim_value() >= 0) continue;
        symbolic_output_dims_.push_back({.input = out,
                                         .axis = static_cast<std::size_t>(i),
                                         .name = declared[i].dim_param(),
                                         .size = inferred.dims[static_cast<std::size_t>(i)],
                                         .fixed = false});
      }
    }
  }
  // A graph input no node consumed is still one the model declares: not dropped silently.
  if (!rejected_order_.empty()) fail_rejected_input(rejected_order_.front());

  // Every node was checked as it was added; these checks guard the importer itself.
  step("the imported graph");
  const auto internal = [&](const Error& e) {
    throw ImportFailure{make_error(
        ErrorKind::internal,
        std::string(source_) + ": internal error: the imported graph fails a check: " + e.message)};
  };
  if (!options_.keep_payloads) {
    payloads_ = {};  // shapes without data: not kept
  } else if (Expected<void> ok = ir::check_weights(graph_.graph(), payloads_); !ok) {
    internal(ok.error());
  }
  // Node 0 is the first graph input.
  Expected<ir::CheckedGraph> checked = std::move(graph_).finish(0, std::move(output_ids));
  if (!checked) internal(checked.error());

  ImportedModel result{
      .checked = std::move(*checked), .payloads = std::move(payloads_), .opset = opset_};
  result.folded_sources = std::move(folded_sources_);
  result.external_data_files = std::move(external_data_files_);
  result.output_names = std::move(output_names);
  result.symbolic_dims = std::move(symbolic_dims_);
  result.symbolic_output_dims = std::move(symbolic_output_dims_);
  result.producer = model_.producer_name();
  if (!model_.producer_version().empty()) {
    result.producer += (result.producer.empty() ? "" : " ") + model_.producer_version();
  }
  return result;
}

}  // namespace nnplan::format::onnx_import
