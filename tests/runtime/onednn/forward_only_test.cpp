// The vjp evidence of every onednn capsule (onednn.forward_only_tests): each onednn handler in
// builtin_handlers() is forward-only (no VJP), names this file for its VJP suite, and its
// capsule record says vjp mode none; every capsule of backend::onednn_module() has a handler.
#include <gtest/gtest.h>

#include <string>

#include "nnplan/backend/builtin_modules.hpp"
#include "nnplan/runtime/handler_registry.hpp"

namespace nnplan::runtime {
namespace {

TEST(onednn_forward_only_tests, EveryOnednnHandlerIsForwardOnly) {
  std::size_t count = 0;
  for (const auto& [identity, handler] : builtin_handlers().handlers()) {
    if (identity.provider != backend::Provider::onednn) continue;
    SCOPED_TRACE(identity.name);
    ++count;
    EXPECT_EQ(handler.vjp, nullptr);
    EXPECT_NE(handler.prepare, nullptr);
    EXPECT_EQ(handler.vjp_tests.source, "tests/runtime/onednn/forward_only_test.cpp");
    const backend::KernelCapsule* declared = builtin_handlers().declaration(identity);
    ASSERT_NE(declared, nullptr);
    EXPECT_EQ(declared->vjp_mode, backend::VjpMode::none);
    EXPECT_EQ(declared->vjp.evidence.name, "onednn.forward_only_tests");
  }
  EXPECT_EQ(count, backend::onednn_module().capsules.size());
}

TEST(onednn_forward_only_tests, EveryOnednnCapsuleHasAHandler) {
  for (const backend::KernelCapsule& c : backend::onednn_module().capsules) {
    SCOPED_TRACE(c.name);
    EXPECT_NE(builtin_handlers().find(c), nullptr);
  }
}

}  // namespace
}  // namespace nnplan::runtime
