// Shared by the elementwise family's files (elementwise_unary.cpp, elementwise_binary.cpp,
// random_sources.cpp): the node-kind check their shape guards start with, and the table row of
// an in-place-safe element-wise handler.
#pragma once

#include <string>
#include <string_view>

#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {

// The node is of `kind`, the kind this kernel runs.
inline Expected<void> check_kind(const KernelCall& call, ir::OpKind kind) {
  if (call.node.kind == kind) return {};
  return std::unexpected(make_error(ErrorKind::invalid_input,
                                    "node kind " + std::string(ir::to_string(call.node.kind)) +
                                        " does not run on the " + std::string(ir::to_string(kind)) +
                                        " kernel"));
}

// A handler that reads element i before it writes element i, so its output may share an
// input's buffer: the in-place canonical layout guard, `tests` for both suites.
constexpr HandlerDefinition in_place_handler(std::string_view symbol, ForwardFn forward, VjpFn vjp,
                                             GuardFn shape_guard, TestSuiteRef tests) {
  return {.symbol = symbol,
          .forward = forward,
          .vjp = vjp,
          .shape_guard = shape_guard,
          .layout_guard = canonical_layout_guard_in_place,
          .in_place_safe = true,
          .forward_tests = tests,
          .vjp_tests = tests};
}

}  // namespace nnplan::runtime::reference
