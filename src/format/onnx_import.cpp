// ONNX import: the model is split (onnx/model_split.hpp), its interface read
// (onnx/model_interface.cpp), and each graph node, parsed when the import reaches it, imported by
// the function its op type and the model's opset select in onnx/operator_table.hpp, unless it
// folds (onnx/constant_folding.hpp) or a pattern importer already absorbed it. An unsupported
// node is recorded and the import goes on (every such node is reported at the end); a malformed
// one stops it. No exception leaves this file's functions: an ImportFailure becomes its Error,
// running out of memory a resource_exhausted Error naming what was being read, any other
// exception an internal Error.
//
// Semantic assumption (docs/onnx-support.md): `avg_pool` divides by the full window, counting the
// zero padding, as PyTorch's AvgPool with count_include_pad=True does. ONNX AveragePool with pads
// and count_include_pad=0 is therefore rejected, and a zero Pad folds into a following
// AveragePool exactly. `max_pool` pads with -inf, as ONNX MaxPool does; a zero Pad folds into
// MaxPool only when its input is non-negative by construction.
#include "nnplan/format/onnx_import.hpp"

#include "nnplan/exception_boundary.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <exception>
#include <new>
#include <optional>
#include <string>

#include "bounded_file.hpp"
#include "message_text.hpp"
#include "nnplan/format/limits.hpp"
#include "nnplan/ir/shape.hpp"
#include "onnx/constant_folding.hpp"
#include "onnx/import_context.hpp"
#include "onnx/model_split.hpp"
#include "onnx/operator_table.hpp"

namespace nnplan::format {

namespace onnx_import {

void ImportContext::step(std::string_view stage) {
  progress_.stage = stage;
  if (options_.test_before_reading) options_.test_before_reading(progress_.describe());
}

ImportedModel ImportContext::run() {
  read_interface();
  try {
    for (int i = 0; i < nodes_.size(); ++i) {
      progress_.node = i;
      if (options_.test_before_reading) options_.test_before_reading(progress_.describe());
      try {
        import_node(i);
      } catch (ImportFailure& f) {
        // A node nnplan does not support is recorded and the import goes on; a malformed one
        // stops it. node_ is null when the node's bytes could not be parsed.
        if (f.error.kind != ErrorKind::unsupported || node_ == nullptr) throw;
        record_unsupported(i, f.reason);
      }
    }
    progress_.node = -1;
    node_ = nullptr;
    if (unsupported_nodes_ > 0) fail_unsupported_summary();
    return finish();
  } catch (ImportFailure& f) {
    note_open_dims(f.error);
    throw;
  }
}

// A failure past the inputs of a model whose open dimensions took open_dim_size may come from
// that size (a kernel wider than a 1-pixel image): the note says so and how to plan others.
void ImportContext::note_open_dims(Error& error) const {
  // Something nnplan does not support is unsupported at every size.
  if (error.kind == ErrorKind::unsupported) return;
  std::string dims;
  for (const SymbolicDim& d : symbolic_dims_) {
    if (!d.fixed) dims += (dims.empty() ? "" : ", ") + describe(d);
  }
  if (dims.empty()) return;
  error.notes.push_back("the dimensions the model leaves open were planned at " +
                        str(*options_.open_dim_size) + " (" + dims +
                        "), which this failure may come from; plan the sizes you run with " +
                        input_shape_flags(symbolic_dims_, graph_.graph()));
}

void ImportContext::refuse_operator() const {
  if (const std::int64_t last = last_opset_of(node_->op_type()); last != 0 && last < opset_) {
    unsupported("operator " + capped_name(node_->op_type()) + " is supported up to opset " +
                str(last) + "; its definition changed after that, and the model's opset is " +
                str(opset_));
  }
  if (const std::int64_t first = first_opset_of(node_->op_type()); first > opset_) {
    fail("operator " + capped_name(node_->op_type()) + " does not exist before opset " +
         str(first) + "; a model that uses it declares that opset or a later one");
  }
  if (folds_op_type(node_->op_type())) {
    // An operator evaluated only at import (ConstantOfShape, Range): its output's shape is its
    // inputs' values, unknown before the run when one of them is computed at run time.
    for (int i = 0; i < node_->input_size(); ++i) {
      if (has_in(i) && constant(in_name(i)) == nullptr) {
        unsupported("input " + quoted_name(in_name(i)) + " is computed at run time; " +
                    capped_name(node_->op_type()) +
                    "'s output shape would depend on its values, and nnplan plans static "
                    "shapes (it evaluates " +
                    capped_name(node_->op_type()) + " at import when its inputs are constants)");
      }
    }
  }
  unsupported("operator " + capped_name(node_->op_type()) + " is not supported");
}

void ImportContext::import_node(int index) {
  std::string problem;
  node_ = nodes_.at(index, *scratch_, &problem);
  if (node_ == nullptr) fail_corrupt_node(index, problem);
  if (node_->name().empty()) unnamed_ = node_->op_type() + "_" + str(index);
  check_node(index);
  // A node consuming what an unsupported node would have produced cannot be imported: the shapes
  // of its inputs are unknown. What needs no shape is still checked, its domain and whether
  // nnplan has its operator at this opset, so a node failing either is listed in its own right;
  // the summary counts the others (they may well be supported themselves).
  const bool dependent = depends_on_unsupported();
  if (!is_default_domain(node_->domain())) {
    unsupported("domain " + quoted_name(node_->domain()) +
                " is not supported; supported: the default ONNX domain");
  }
  if (dependent) {
    if (find_operator(node_->op_type(), opset_) == nullptr && !folds_op_type(node_->op_type())) {
      refuse_operator();
    }
    for (const std::string& out : node_->output())
      if (!out.empty()) unavailable_.insert(out);
    ++dependent_nodes_;
    return;
  }
  if (const auto a = absorbed_.find(index); a != absorbed_.end()) {
    if (!a->second.first.empty()) values_.insert_or_assign(a->second.first, a->second.second);
    return;
  }
  defined_.clear();
  // A node over constants is evaluated now (onnx/constant_folding.hpp) rather than imported.
  if (!fold_node(*this)) {
    const OperatorImporter* importer = find_operator(node_->op_type(), opset_);
    if (importer == nullptr) refuse_operator();
    importer->import(*this);
  }
  // The node's outputs name what it defined from now on, and nothing else: an output it did not
  // define as an IR node is a constant, a pending Pad, or unused.
  for (const std::string& out : node_->output()) {
    if (out.empty()) continue;
    const auto def = std::find_if(defined_.rbegin(), defined_.rend(),
                                  [&out](const auto& d) { return d.first == out; });
    const auto it = values_.find(std::string_view(out));
    if (def == defined_.rend()) {
      if (it != values_.end()) values_.erase(it);
    } else if (it != values_.end()) {
      it->second = def->second;
    } else {
      values_.emplace(out, def->second);
    }
  }
}

}  // namespace onnx_import

std::span<const std::string_view> supported_onnx_ops() {
  return onnx_import::supported_op_types();
}

namespace {

// The Error for the exception being handled (call only in a catch block): out of memory is
// resource_exhausted, anything else internal, each naming what was being read.
Error error_from_exception(std::string_view source,
                           const onnx_import::ImportProgress& progress) noexcept {
  try {
    const std::string prefix = source.empty() ? std::string() : std::string(source) + ": ";
    try {
      throw;
    } catch (const std::bad_alloc&) {
      Error error = out_of_memory_error("reading " + progress.describe());
      error.message.insert(0, prefix);
      return error;
    } catch (const std::exception& e) {
      return make_error(ErrorKind::internal, prefix + "internal error while reading " +
                                                 progress.describe() + ": " + e.what());
    } catch (...) {
      return make_error(ErrorKind::internal, prefix + "internal error while reading " +
                                                 progress.describe() + ": an unknown exception");
    }
  } catch (...) {
    // Building the message failed: one that needs no allocation (short strings live in place).
    return Error{.kind = ErrorKind::resource_exhausted, .message = "out of memory"};
  }
}

// `owner`: the mapping `bytes` lie in, which the payloads keep alive as views into it; null
// when the bytes are the caller's (payloads are copied out of them).
Expected<ImportedModel> import_bytes(std::span<const std::byte> bytes, std::string_view source,
                                     const OnnxImportOptions& options,
                                     onnx_import::ImportProgress& progress,
                                     const std::string& prefix,
                                     std::shared_ptr<const ir::WeightBytes> owner) {
  // Here rather than in each caller, so that every importer's input shapes meet the limits of a
  // declared one.
  if (auto ok = check_input_shapes(options); !ok) {
    Error error = std::move(ok.error());
    error.message.insert(0, prefix);
    return std::unexpected(std::move(error));
  }
  if (bytes.empty()) {
    return std::unexpected(make_error(ErrorKind::invalid_input,
                                      prefix + "not a valid ONNX model: the input is empty"));
  }
  if (bytes.size() > kMaxOnnxFileBytes) {
    return std::unexpected(make_error(
        ErrorKind::invalid_input, prefix +
                                      "not a valid ONNX model: " + std::to_string(bytes.size()) +
                                      " bytes exceed protobuf's message limit of " +
                                      std::to_string(kMaxOnnxFileBytes) + " bytes"));
  }
  if (options.test_before_reading) options.test_before_reading(progress.describe());
  // Every message of the model and its nodes comes from the arena, freed at once at the end.
  google::protobuf::Arena arena;
  onnx::ModelProto& model = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  // The graph's nodes stay serialized until the importer reaches them; input the split does not
  // take gets protobuf's full parse and its verdict.
  onnx_import::SplitModel parts = onnx_import::split_onnx_model(bytes, model, kMaxGraphNodes);
  if (!parts.refusal.empty()) {
    return std::unexpected(
        make_error(ErrorKind::invalid_input, prefix + "not a valid ONNX model: " + parts.refusal));
  }
  std::optional<onnx_import::OnnxNodes>& split = parts.nodes;
  if (!split) {
    if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return std::unexpected(make_error(
          ErrorKind::invalid_input,
          prefix + "not a valid ONNX model: the protobuf bytes are truncated or corrupt (" +
              std::to_string(bytes.size()) + " bytes)"));
    }
    split.emplace(model.graph());
  }
  try {
    return onnx_import::ImportContext(model, *split, source, options, progress, std::move(owner))
        .run();
  } catch (onnx_import::ImportFailure& f) {
    return std::unexpected(std::move(f.error));
  }
}

}  // namespace

std::string describe(const SymbolicDim& dim) {
  return (dim.name.empty() ? std::string("unnamed") : "'" + detail::shown(dim.name) + "'") +
         " (input '" + detail::shown(dim.input) + "' axis " + std::to_string(dim.axis) +
         ") = " + std::to_string(dim.size);
}

std::string input_shape_flags(std::span<const SymbolicDim> dims, const ir::Graph& graph) {
  std::string flags;
  for (const ir::Node& n : graph.nodes) {
    if (n.kind != ir::OpKind::input) continue;
    bool open = false;
    std::string shape;
    for (std::size_t axis = 0; axis < n.shape.rank(); ++axis) {
      const auto d = std::ranges::find_if(dims, [&](const SymbolicDim& s) {
        return !s.fixed && s.input == n.source_name && s.axis == axis;
      });
      open = open || d != dims.end();
      shape += (axis == 0 ? "" : ",") +
               (d == dims.end() ? std::to_string(n.shape.dims[axis])
                                : "<" + (d->name.empty() ? std::string("size") : d->name) + ">");
    }
    if (open) {
      flags += (flags.empty() ? "" : " ") + ("--input-shape " + n.source_name + "=" + shape);
    }
  }
  return flags;
}

Expected<void> check_input_shapes(const OnnxImportOptions& options) {
  if (options.open_dim_size && (*options.open_dim_size == 0 || *options.open_dim_size > kMaxDim)) {
    return std::unexpected(
        make_error(ErrorKind::invalid_input, "the size of open dimensions must be 1.." +
                                                 std::to_string(kMaxDim) + "; got " +
                                                 std::to_string(*options.open_dim_size)));
  }
  for (const auto& [name, dims] : options.input_shapes) {
    const auto invalid = [&name](const std::string& problem) {
      return std::unexpected(make_error(
          ErrorKind::invalid_input, "input shape for '" + detail::shown(name) + "' " + problem));
    };
    if (dims.empty()) return invalid("has no dimensions");
    if (dims.size() > kMaxRank) {
      return invalid("has rank " + std::to_string(dims.size()) + "; the limit is " +
                     std::to_string(kMaxRank) + " (the maximum rank)");
    }
    std::optional<std::uint64_t> count = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == 0) return invalid("has 0 at dimension " + std::to_string(i));
      if (dims[i] > kMaxDim) {
        return invalid("has " + std::to_string(dims[i]) + " at dimension " + std::to_string(i) +
                       ", which exceeds the dimension limit of " + std::to_string(kMaxDim) +
                       " (2^48)");
      }
      if (count) count = ir::checked_mul(*count, dims[i]);
    }
    if (!count || *count > kMaxTensorElements) {
      return invalid("has " + (count ? std::to_string(*count) : std::string("more than 2^64")) +
                     " elements; the limit is " + std::to_string(kMaxTensorElements) +
                     " (2^48) per tensor");
    }
  }
  return {};
}

Expected<ImportedModel> import_onnx(std::span<const std::byte> bytes, std::string_view source,
                                    const OnnxImportOptions& options) noexcept {
  return import_onnx(bytes, source, options, nullptr);
}

Expected<ImportedModel> import_onnx(std::span<const std::byte> bytes, std::string_view source,
                                    const OnnxImportOptions& options,
                                    std::shared_ptr<const ir::WeightBytes> owner) noexcept {
  onnx_import::ImportProgress progress;
  try {
    const std::string prefix = source.empty() ? std::string() : std::string(source) + ": ";
    return import_bytes(bytes, source, options, progress, prefix, std::move(owner));
  } catch (...) {
    return std::unexpected(error_from_exception(source, progress));
  }
}

Expected<ImportedModel> import_onnx_file(const std::filesystem::path& path,
                                         const OnnxImportOptions& options) noexcept {
  onnx_import::ImportProgress progress{.stage = "the file"};
  try {
    auto bytes = detail::read_bounded_file(path, "ONNX model", kMaxOnnxFileBytes,
                                           detail::StreamCheck::protobuf);
    if (!bytes) return std::unexpected(std::move(bytes.error()));
    // Shared with every weight that views an initializer in it.
    auto owner = std::make_shared<const detail::FileBytes>(std::move(*bytes));
    const auto view = std::as_bytes(std::span(owner->text()));
    OnnxImportOptions beside = options;
    if (beside.external_data_dir.empty()) {
      beside.external_data_dir = path.has_parent_path() ? path.parent_path() : ".";
    }
    return import_onnx(view, path.string(), beside, std::move(owner));
  } catch (...) {
    return std::unexpected(error_from_exception(path.native(), progress));
  }
}

}  // namespace nnplan::format
