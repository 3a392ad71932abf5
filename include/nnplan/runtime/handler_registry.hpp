// The handler registry (SPEC §11 "Command buffer"): which code runs each capsule in this build.
// A handler is registered under exactly one capsule identity (name, op, provider, device), and its
// guards under the names the capsule's runtime-guard evidence uses (`<capsule>.shape_guard`,
// `<capsule>.layout_guard`). compile() binds each planned capsule to the handler of its identity
// or refuses it (`unbound-capsule`); nothing is ever looked up by op alone, so no capsule runs
// another capsule's code.
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/capsule.hpp"
#include "nnplan/error.hpp"
#include "nnplan/runtime/kernel.hpp"

namespace nnplan::runtime {

struct CapsuleIdentity {
  std::string name;
  backend::BackendOp op = backend::BackendOp::add;
  backend::Provider provider = backend::Provider::reference;
  backend::Device device = backend::Device::cpu;

  auto operator<=>(const CapsuleIdentity&) const = default;
  bool operator==(const CapsuleIdentity&) const = default;
};

[[nodiscard]] CapsuleIdentity identity_of(const backend::KernelCapsule& capsule);

// A registered guard: the function and the handler (capsule) it belongs to.
struct RegisteredGuard {
  GuardFn check = nullptr;
  CapsuleIdentity capsule;
};

class HandlerRegistry {
 public:
  // Registers `handler` for `capsule` and its guards as `<name>.shape_guard` and
  // `<name>.layout_guard`. `declaration`, when given, is the capsule record the handler was
  // written to (its contracts, evidence and numerical policy): compile binds the handler only to
  // a planned capsule equal to it, so a registry file that reuses the identity with other claims
  // does not borrow this code. already_exists when the identity or a guard name is taken;
  // invalid_input when the handler lacks its forward kernel or a guard, or the declaration's
  // identity is not `capsule`, or the handler declares LayoutSupport::channels_last without its
  // takes_channels_last.
  [[nodiscard]] Expected<void> add(CapsuleIdentity capsule, HandlerDefinition handler,
                                   std::optional<backend::KernelCapsule> declaration = {});

  // The handler registered for exactly this capsule's identity, or null.
  [[nodiscard]] const HandlerDefinition* find(const backend::KernelCapsule& capsule) const;
  [[nodiscard]] const HandlerDefinition* find(const CapsuleIdentity& capsule) const;
  // The capsule record the handler of `capsule` was registered with, or null when none was given.
  [[nodiscard]] const backend::KernelCapsule* declaration(const CapsuleIdentity& capsule) const;
  // The guard registered under `name`, or null.
  [[nodiscard]] const RegisteredGuard* find_guard(std::string_view name) const;

  // Registers the reorder of `provider` (SPEC §12): the handler of the commands that change a
  // value between the layouts its handlers run on (kernel.hpp, TensorLayout). It belongs to no
  // capsule: it copies every element to its place in the other layout and computes nothing.
  // already_exists when the provider has one; invalid_input without a forward kernel.
  [[nodiscard]] Expected<void> add_reorder(backend::Provider provider, HandlerDefinition handler);
  // The reorder registered for `provider`, or null.
  [[nodiscard]] const HandlerDefinition* reorder(backend::Provider provider) const;

  [[nodiscard]] const std::map<CapsuleIdentity, HandlerDefinition>& handlers() const {
    return handlers_;
  }

 private:
  std::map<CapsuleIdentity, HandlerDefinition> handlers_;
  std::map<CapsuleIdentity, backend::KernelCapsule> declarations_;
  std::map<std::string, RegisteredGuard, std::less<>> guards_;
  std::map<backend::Provider, HandlerDefinition> reorders_;
};

// The handlers this build contains: every reference capsule a graph can reach (and the providers
// linked into the build). Built once, immutable.
[[nodiscard]] const HandlerRegistry& builtin_handlers();

}  // namespace nnplan::runtime
