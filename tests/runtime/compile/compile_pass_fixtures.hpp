// Shared by the compile pass tests (tests/runtime/compile/): small graphs planned under
// checked_cpu, and a handler registry in which chosen reference capsules run channels-last.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "../../ir/graph_fixtures.hpp"
#include "../runtime_test_support.hpp"
#include "nnplan/runtime/handler_registry.hpp"
#include "runtime/compile/compile_passes.hpp"

namespace nnplan::runtime::testing {

// x -> relu -> tanh on `shape` (x named "x"), planned under checked_cpu.
inline std::shared_ptr<const backend::PlannedModel> relu_tanh_model(ir::Shape shape) {
  ir::fixtures::GraphBuilder b;
  const ir::NodeId x = b.add(ir::OpKind::input, {}, shape, {}, "x");
  const ir::NodeId r = b.add(ir::OpKind::relu, {x}, shape);
  b.add(ir::OpKind::tanh, {r}, shape);
  return planned_cpu(checked_graph(std::move(b).build()));
}

inline void no_forward(const KernelCall&) {}
inline bool always_channels_last(const PrepareCall&) {
  return true;
}

// The built-in handlers, with the capsules named in `channels_last` preferring channels-last and
// a reorder for the reference provider (the reference provider registers none).
inline HandlerRegistry channels_last_registry(const std::set<std::string>& channels_last) {
  HandlerRegistry registry;
  for (const auto& [identity, handler] : builtin_handlers().handlers()) {
    HandlerDefinition h = handler;
    if (channels_last.contains(identity.name)) {
      h.layouts = LayoutSupport::channels_last;
      h.takes_channels_last = always_channels_last;
    }
    EXPECT_TRUE(registry.add(identity, h).has_value()) << identity.name;
  }
  HandlerDefinition reorder{.symbol = "test::reorder", .forward = no_forward};
  EXPECT_TRUE(registry.add_reorder(backend::Provider::reference, reorder).has_value());
  return registry;
}

}  // namespace nnplan::runtime::testing
