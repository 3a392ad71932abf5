// The guards every reference capsule shares: the canonical-tensor layout guard and the helpers
// the per-family shape guards build their messages with.
#include <cstdint>
#include <string>

#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {
namespace {

bool aligned(const float* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(float) == 0;
}

// Whether [a, a + n) and [b, b + m) share an element.
bool overlaps(const float* a, std::size_t n, const float* b, std::size_t m) {
  if (n == 0 || m == 0) return false;
  const auto ua = reinterpret_cast<std::uintptr_t>(a);
  const auto ub = reinterpret_cast<std::uintptr_t>(b);
  return ua < ub + m * sizeof(float) && ub < ua + n * sizeof(float);
}

Expected<void> check_views(const KernelCall& call, bool in_place_allowed) {
  const auto bad = [](std::string what) {
    return std::unexpected(make_error(ErrorKind::invalid_input, std::move(what)));
  };
  const std::size_t out_n = call.output.size();
  if (call.output.data == nullptr && out_n > 0) return bad("the output buffer is null");
  if (!aligned(call.output.data)) return bad("the output buffer is not aligned to a float");
  for (std::size_t i = 0; i < call.inputs.size(); ++i) {
    const TensorRef& in = call.inputs[i];
    const std::size_t n = in.size();
    if (in.data == nullptr && n > 0) return bad("input " + std::to_string(i) + " is null");
    if (!aligned(in.data)) {
      return bad("input " + std::to_string(i) + " is not aligned to a float");
    }
    const bool same_buffer = in.data == call.output.data && n == out_n;
    if (in_place_allowed && same_buffer) continue;
    if (overlaps(in.data, n, call.output.data, out_n)) {
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
                                                  ir::to_string(shape) + "; " +
                                                  std::string(needs));
}

Expected<void> check_arity_and_output(const KernelCall& call, std::size_t count) {
  if (call.inputs.size() != count) {
    return std::unexpected(make_error(
        ErrorKind::invalid_input, std::to_string(call.inputs.size()) + " inputs given; " +
                                      std::string(ir::to_string(call.node.kind)) + " takes " +
                                      std::to_string(count)));
  }
  if (*call.output.shape != call.node.shape) {
    return std::unexpected(operand_error("the output", *call.output.shape,
                                         "the node declares " + ir::to_string(call.node.shape)));
  }
  return {};
}

}  // namespace nnplan::runtime::reference
