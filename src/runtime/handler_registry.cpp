#include "nnplan/runtime/handler_registry.hpp"

#include "runtime/providers/reference/reference_provider.hpp"
#ifdef NNPLAN_HAVE_ONEDNN
#include "runtime/providers/onednn/onednn_provider.hpp"
#endif

namespace nnplan::runtime {

CapsuleIdentity identity_of(const backend::KernelCapsule& capsule) {
  return {.name = capsule.name,
          .op = capsule.op,
          .provider = capsule.provider,
          .device = capsule.device};
}

Expected<void> HandlerRegistry::add(CapsuleIdentity capsule, HandlerDefinition handler,
                                    std::optional<backend::KernelCapsule> declaration) {
  const auto refuse = [&](ErrorKind kind, std::string what) {
    return std::unexpected(make_error(kind, "handler for capsule '" + capsule.name + "': " + what));
  };
  if (handler.forward == nullptr) return refuse(ErrorKind::invalid_input, "no forward kernel");
  if (handler.shape_guard == nullptr || handler.layout_guard == nullptr) {
    return refuse(ErrorKind::invalid_input, "a shape and a layout guard are required");
  }
  if (handler.layouts == LayoutSupport::channels_last && handler.takes_channels_last == nullptr) {
    return refuse(ErrorKind::invalid_input,
                  "it runs channels-last where it prefers, but has no takes_channels_last to say "
                  "where");
  }
  if (handlers_.contains(capsule)) return refuse(ErrorKind::already_exists, "registered twice");
  if (declaration && identity_of(*declaration) != capsule) {
    return refuse(ErrorKind::invalid_input,
                  "its declaration is the record of capsule '" + declaration->name + "'");
  }
  const std::string shape_name = capsule.name + ".shape_guard";
  const std::string layout_name = capsule.name + ".layout_guard";
  if (guards_.contains(shape_name) || guards_.contains(layout_name)) {
    return refuse(ErrorKind::already_exists, "its guard names are taken by another handler");
  }
  guards_.emplace(shape_name, RegisteredGuard{handler.shape_guard, capsule});
  guards_.emplace(layout_name, RegisteredGuard{handler.layout_guard, capsule});
  if (declaration) declarations_.emplace(capsule, std::move(*declaration));
  handlers_.emplace(std::move(capsule), handler);
  return {};
}

const HandlerDefinition* HandlerRegistry::find(const CapsuleIdentity& capsule) const {
  const auto it = handlers_.find(capsule);
  return it == handlers_.end() ? nullptr : &it->second;
}

const HandlerDefinition* HandlerRegistry::find(const backend::KernelCapsule& capsule) const {
  return find(identity_of(capsule));
}

const backend::KernelCapsule* HandlerRegistry::declaration(const CapsuleIdentity& capsule) const {
  const auto it = declarations_.find(capsule);
  return it == declarations_.end() ? nullptr : &it->second;
}

const RegisteredGuard* HandlerRegistry::find_guard(std::string_view name) const {
  const auto it = guards_.find(name);
  return it == guards_.end() ? nullptr : &it->second;
}

Expected<void> HandlerRegistry::add_reorder(backend::Provider provider, HandlerDefinition handler) {
  const std::string who = "reorder of provider " + std::string(backend::to_string(provider));
  if (handler.forward == nullptr) {
    return std::unexpected(make_error(ErrorKind::invalid_input, who + ": no forward kernel"));
  }
  if (!reorders_.emplace(provider, handler).second) {
    return std::unexpected(make_error(ErrorKind::already_exists, who + ": registered twice"));
  }
  return {};
}

const HandlerDefinition* HandlerRegistry::reorder(backend::Provider provider) const {
  const auto it = reorders_.find(provider);
  return it == reorders_.end() ? nullptr : &it->second;
}

const HandlerRegistry& builtin_handlers() {
  static const HandlerRegistry registry = [] {
    HandlerRegistry r;
    reference::register_reference_handlers(r);
#ifdef NNPLAN_HAVE_ONEDNN
    onednn::register_onednn_handlers(r);
#endif
    return r;
  }();
  return registry;
}

}  // namespace nnplan::runtime
