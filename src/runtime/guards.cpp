// The guards every provider shares (guards.hpp): the dense row-major view check, the IR shape
// rule over a call's operands and payloads, and the helpers shape guards build messages with.
#include "runtime/guards.hpp"

#include <cstdint>
#include <string>

#include "nnplan/backend/op_mapping.hpp"
#include "nnplan/ir/check.hpp"
#include "nnplan/ir/payload_shapes.hpp"
#include "nnplan/ir/weights.hpp"

namespace nnplan::runtime {
namespace {

// Whether `p` is aligned to the elements of `dtype`.
bool aligned(const std::byte* p, DType dtype) {
  return reinterpret_cast<std::uintptr_t>(p) % ir::size_of(dtype) == 0;
}

// What a pointer must be aligned to, for messages: "a float" for float32.
std::string alignment_word(DType dtype) {
  return dtype == DType::float32 ? "a float" : "an " + std::string(ir::to_string(dtype));
}

// Whether the byte ranges [a, a + n) and [b, b + m) share a byte.
bool overlaps(const std::byte* a, std::size_t n, const std::byte* b, std::size_t m) {
  if (n == 0 || m == 0) return false;
  const auto ua = reinterpret_cast<std::uintptr_t>(a);
  const auto ub = reinterpret_cast<std::uintptr_t>(b);
  return ua < ub + m && ub < ua + n;
}

Expected<void> check_views(const KernelCall& call, bool in_place_allowed) {
  const auto bad = [](std::string what) {
    return std::unexpected(make_error(ErrorKind::invalid_input, std::move(what)));
  };
  const std::size_t out_n = call.output.size();
  const std::size_t out_bytes = out_n * ir::size_of(call.output.dtype);
  if (call.output.bytes == nullptr && out_n > 0) return bad("the output buffer is null");
  if (!aligned(call.output.bytes, call.output.dtype)) {
    return bad("the output buffer is not aligned to " + alignment_word(call.output.dtype));
  }
  for (std::size_t i = 0; i < call.inputs.size(); ++i) {
    const TensorRef& in = call.inputs[i];
    const std::size_t n = in.size();
    if (in.bytes == nullptr && n > 0) return bad("input " + std::to_string(i) + " is null");
    if (!aligned(in.bytes, in.dtype)) {
      return bad("input " + std::to_string(i) + " is not aligned to " + alignment_word(in.dtype));
    }
    const std::size_t in_bytes = n * ir::size_of(in.dtype);
    const bool same_buffer = in.bytes == call.output.bytes && in_bytes == out_bytes;
    if (in_place_allowed && same_buffer) continue;
    if (overlaps(in.bytes, in_bytes, call.output.bytes, out_bytes)) {
      return bad("the output buffer overlaps input " + std::to_string(i) +
                 " (canonical-tensor layout needs disjoint operands)");
    }
  }
  return {};
}

}  // namespace

Expected<void> canonical_layout_guard(const KernelCall& call) {
  return check_views(call, false);
}

Expected<void> canonical_layout_guard_in_place(const KernelCall& call) {
  return check_views(call, true);
}

Error operand_error(std::string_view operand, const ir::Shape& shape, std::string_view needs) {
  return make_error(ErrorKind::invalid_input, std::string(operand) + " has shape " +
                                                  ir::to_string(shape) + "; " + std::string(needs));
}

Expected<void> check_arity_and_output(const KernelCall& call, std::size_t count) {
  if (call.inputs.size() != count) {
    return std::unexpected(make_error(ErrorKind::invalid_input,
                                      std::to_string(call.inputs.size()) + " inputs given; " +
                                          std::string(ir::to_string(call.node.kind)) + " takes " +
                                          std::to_string(count)));
  }
  if (*call.output.shape != call.node.shape) {
    return std::unexpected(operand_error("the output", *call.output.shape,
                                         "the node declares " + ir::to_string(call.node.shape)));
  }
  return {};
}

Expected<void> ir_shape_guard(const KernelCall& call, backend::BackendOp op) {
  const ir::Node& node = call.node;
  const std::string kind(ir::to_string(node.kind));
  const auto invalid = [](std::string what) {
    return std::unexpected(make_error(ErrorKind::invalid_input, std::move(what)));
  };
  if (backend::backend_op_of(node.kind) != op) {
    return invalid("node kind " + kind + " does not run on the " +
                   std::string(backend::to_string(op)) + " kernel");
  }
  if (call.inputs.size() != node.parents.size()) {
    return invalid(std::to_string(call.inputs.size()) + " inputs given; " + kind + " takes " +
                   std::to_string(node.parents.size()));
  }
  std::vector<const ir::Shape*> shapes;
  for (const TensorRef& in : call.inputs)
    shapes.push_back(in.shape);
  const Expected<ir::Shape> inferred = ir::infer_shape(node, shapes);
  if (!inferred) return std::unexpected(inferred.error());
  if (*inferred != node.shape) {
    return invalid(ir::describe(node) + ": its inputs give the shape " + ir::to_string(*inferred) +
                   ", the node declares " + ir::to_string(node.shape));
  }
  if (*call.output.shape != node.shape) {
    return std::unexpected(operand_error("the output", *call.output.shape,
                                         "the node declares " + ir::to_string(node.shape)));
  }
  for (const ir::PayloadSlot& slot : ir::op_traits(node.kind).payloads) {
    const std::string name(slot.name);
    if (slot.attribute) {
      if (slot.required && !call.weights.attribute(slot.name)) {
        return invalid(kind + " needs the attribute " + name);
      }
      continue;
    }
    const ir::WeightTensor* tensor = call.weights.find(slot.name);
    if (tensor == nullptr && (!slot.required || ir::given_as_value(slot, node.parents.size()))) {
      continue;
    }
    auto want = ir::payload_shape(node, slot.shape, shapes);
    if (!want) return std::unexpected(std::move(want.error()));
    const std::string dtype = slot.int64 ? "int64" : "float32";
    if (tensor == nullptr) {
      return invalid("payload " + name + " is missing; " + kind + " needs one of shape " +
                     ir::to_string(*want));
    }
    const auto want_dtype = slot.int64 ? ir::DType::int64 : ir::DType::float32;
    const std::optional<ir::Dim> count = ir::element_count(tensor->shape());
    if (tensor->dtype() != want_dtype || tensor->shape() != *want || !count ||
        tensor->size() != *count) {
      return std::unexpected(operand_error("payload " + name, tensor->shape(),
                                           kind + " needs " + dtype + " " + ir::to_string(*want)));
    }
  }
  return {};
}

}  // namespace nnplan::runtime
