// HandlerRegistry::add and add_reorder refuse what compile could not bind honestly: a handler
// without its forward kernel or guards, one that runs channels-last where it prefers without
// saying where, an identity or reorder registered twice. Each message names the capsule or
// provider.
#include "nnplan/runtime/handler_registry.hpp"

#include <gtest/gtest.h>

namespace nnplan::runtime {
namespace {

void forward(const KernelCall&) {}
Expected<void> guard(const KernelCall&) {
  return {};
}
bool anywhere(const PrepareCall&) {
  return true;
}

CapsuleIdentity identity(std::string name) {
  return {.name = std::move(name),
          .op = backend::BackendOp::relu,
          .provider = backend::Provider::onednn,
          .device = backend::Device::cpu};
}

HandlerDefinition complete() {
  return {
      .symbol = "test::forward", .forward = forward, .shape_guard = guard, .layout_guard = guard};
}

std::string refusal(const Expected<void>& added) {
  return added ? std::string("accepted") : added.error().message;
}

TEST(HandlerRegistry, RefusesIncompleteHandlers) {
  HandlerRegistry r;
  HandlerDefinition no_forward = complete();
  no_forward.forward = nullptr;
  EXPECT_EQ(refusal(r.add(identity("t.a"), no_forward)),
            "handler for capsule 't.a': no forward kernel");
  HandlerDefinition no_guard = complete();
  no_guard.layout_guard = nullptr;
  EXPECT_EQ(refusal(r.add(identity("t.b"), no_guard)),
            "handler for capsule 't.b': a shape and a layout guard are required");
  HandlerDefinition unsaid = complete();
  unsaid.layouts = LayoutSupport::channels_last;
  const auto added = r.add(identity("t.c"), unsaid);
  ASSERT_FALSE(added.has_value());
  EXPECT_EQ(added.error().kind, ErrorKind::invalid_input);
  EXPECT_EQ(added.error().message,
            "handler for capsule 't.c': it runs channels-last where it prefers, but has no "
            "takes_channels_last to say where");
  EXPECT_TRUE(r.handlers().empty());
}

TEST(HandlerRegistry, AcceptsAChannelsLastHandlerThatSaysWhere) {
  HandlerRegistry r;
  HandlerDefinition h = complete();
  h.layouts = LayoutSupport::channels_last;
  h.takes_channels_last = anywhere;
  ASSERT_TRUE(r.add(identity("t.d"), h).has_value());
  ASSERT_NE(r.find(identity("t.d")), nullptr);
  EXPECT_EQ(r.find(identity("t.d"))->layouts, LayoutSupport::channels_last);
  const auto twice = r.add(identity("t.d"), h);
  ASSERT_FALSE(twice.has_value());
  EXPECT_EQ(twice.error().kind, ErrorKind::already_exists);
  EXPECT_EQ(twice.error().message, "handler for capsule 't.d': registered twice");
}

TEST(HandlerRegistry, OneReorderPerProvider) {
  HandlerRegistry r;
  EXPECT_EQ(r.reorder(backend::Provider::onednn), nullptr);
  HandlerDefinition no_forward = complete();
  no_forward.forward = nullptr;
  EXPECT_EQ(refusal(r.add_reorder(backend::Provider::onednn, no_forward)),
            "reorder of provider onednn: no forward kernel");
  ASSERT_TRUE(r.add_reorder(backend::Provider::onednn, complete()).has_value());
  ASSERT_NE(r.reorder(backend::Provider::onednn), nullptr);
  EXPECT_EQ(r.reorder(backend::Provider::reference), nullptr);
  EXPECT_EQ(refusal(r.add_reorder(backend::Provider::onednn, complete())),
            "reorder of provider onednn: registered twice");
}

// The build's own registry: onednn (when built) has its reorder; the reference provider runs
// flat only and has none.
TEST(HandlerRegistry, BuiltinReorders) {
  EXPECT_EQ(builtin_handlers().reorder(backend::Provider::reference), nullptr);
#ifdef NNPLAN_HAVE_ONEDNN
  ASSERT_NE(builtin_handlers().reorder(backend::Provider::onednn), nullptr);
  EXPECT_EQ(builtin_handlers().reorder(backend::Provider::onednn)->symbol,
            "nnplan::runtime::onednn::reorder_forward");
#endif
}

}  // namespace
}  // namespace nnplan::runtime
