// The nodes of a valid model that nnplan does not support, gathered over the whole import and
// reported as one `unsupported` Error: the message names the source, the count and the opset;
// each note is one unsupported node (`node 12 'Conv_3' (Conv): attribute group = 32 is not
// supported; supported: 1`, at most kMaxListedUnsupported of them, then "... and N more"), then
// the graph inputs of an unsupported data type that no node consumes, how many nodes were skipped
// for depending on them, and the supported operators, once.
#include <string>

#include "import_context.hpp"
#include "operator_table.hpp"

namespace nnplan::format::onnx_import {

namespace {

std::string count_of(std::size_t n, std::string_view one, std::string_view many) {
  return str(std::uint64_t{n}) + " " + std::string(n == 1 ? one : many);
}

}  // namespace

bool ImportContext::depends_on_unsupported() const {
  if (unavailable_.empty()) return false;
  for (const std::string& in : node_->input())
    if (!in.empty() && unavailable_.contains(in)) return true;
  return false;
}

void ImportContext::record_unsupported(int index, const std::string& reason) {
  ++unsupported_nodes_;
  if (unsupported_lines_.size() < kMaxListedUnsupported) {
    unsupported_lines_.push_back("node " + str(index) + " " + quoted_name(node_name()) + " (" +
                                 capped_name(node_->op_type()) + "): " + reason);
  }
  // Whatever the node defined before it failed is dropped: its outputs are unavailable.
  for (const std::string& out : node_->output()) {
    if (out.empty()) continue;
    values_.erase(out);
    consts_.erase(out);
    pads_.erase(out);
    unavailable_.insert(out);
  }
}

void ImportContext::fail_unsupported_summary() const {
  std::string header = "nnplan does not support " +
                       count_of(unsupported_nodes_, "node", "nodes") + " of this model (opset " +
                       str(opset_) + ")";
  Error error = make_error(ErrorKind::unsupported,
                           source_.empty() ? header : std::string(source_) + ": " + header);
  error.notes = unsupported_lines_;
  if (unsupported_nodes_ > unsupported_lines_.size()) {
    error.notes.push_back("... and " + str(std::uint64_t{unsupported_nodes_ -
                                                         unsupported_lines_.size()}) +
                          " more");
  }
  // A graph input no node consumes is still one the model declares (finish() refuses it too).
  for (const std::string& name : rejected_order_) {
    if (consumers(name).empty()) error.notes.push_back(rejected_inputs_.find(name)->second);
  }
  error.notes.push_back(dependent_nodes_ == 0
                            ? std::string("no other node depends on them")
                            : count_of(dependent_nodes_, "node depends", "nodes depend") +
                                  " on them and " + (dependent_nodes_ == 1 ? "was" : "were") +
                                  " not imported");
  std::string supported;
  for (const std::string_view op : supported_op_types()) {
    if (!supported.empty()) supported += ", ";
    supported += op;
  }
  error.notes.push_back("supported operators: " + supported +
                        "; and, evaluated at import when their inputs are constants, "
                        "ConstantOfShape, Range, Shape and Size");
  throw ImportFailure{.error = std::move(error), .reason = header};
}

}  // namespace nnplan::format::onnx_import
