// Registry (SPEC §4): an ordered list of named capsule modules, flattened in order, validated
// (no repeated module name, no repeated capsule identity) and indexed by op so that planning
// looks only at the capsules that implement the op at hand. A Registry is immutable; invariants
// hold by construction (`Registry::create` is the only way to make one).
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "nnplan/backend/capsule.hpp"
#include "nnplan/error.hpp"

namespace nnplan::backend {

struct CapsuleModule {
  std::string name;
  std::vector<KernelCapsule> capsules;
  // Where the module was read from: the source a registry file reader was given (its path);
  // empty for the modules built into nnplan and those made in code. Duplicate messages name it.
  std::string source = {};

  bool operator==(const CapsuleModule&) const = default;
};

class Registry {
 public:
  // Validates and indexes. Errors (kind already_exists) name the module's source when it has
  // one, and for an identity both modules that hold it:
  //   `b.json: duplicate backend capsule module 'acme'; a.json has a module of that name too`
  //   `r.json: duplicate backend capsule identity 'reference.relu' (op relu, provider reference,
  //   device cpu) in module 'acme'; built-in module 'reference' holds it too`
  // A fused capsule whose pattern has fewer than two ops or does not start with its op is
  // invalid_input, naming the capsule and its module.
  [[nodiscard]] static Expected<Registry> create(std::vector<CapsuleModule> modules);

  // The registry extended with `modules`: the new modules first, then the old ones whose name
  // none of the new ones takes (replacement, not duplication). Validated like `create`.
  [[nodiscard]] Expected<Registry> with_modules(std::vector<CapsuleModule> modules) const;

  [[nodiscard]] const std::vector<CapsuleModule>& modules() const { return modules_; }
  // All capsules, flattened in module order; a CapsuleId indexes this span.
  [[nodiscard]] std::span<const KernelCapsule> capsules() const { return capsules_; }
  [[nodiscard]] const KernelCapsule& capsule(CapsuleId id) const { return capsules_[id]; }
  // The ids of the single-op capsules implementing `op`, in registry order (fused capsules are
  // never chosen for one node; the fused lowering finds them through `fused()`).
  [[nodiscard]] std::span<const CapsuleId> implementing(BackendOp op) const {
    const auto i = static_cast<std::size_t>(op);
    return std::span<const CapsuleId>(by_op_).subspan(op_begin_[i],
                                                      op_begin_[i + 1] - op_begin_[i]);
  }
  // The ids of the fused capsules (those with a pattern), in registry order.
  [[nodiscard]] std::span<const CapsuleId> fused() const { return fused_; }
  // The module a capsule came from.
  [[nodiscard]] const std::string& module_of(CapsuleId id) const {
    return modules_[module_index_[id]].name;
  }
  [[nodiscard]] std::size_t size() const { return capsules_.size(); }

 private:
  Registry() = default;

  std::vector<CapsuleModule> modules_;
  std::vector<KernelCapsule> capsules_;
  std::vector<std::uint32_t> module_index_;
  std::vector<CapsuleId> by_op_;
  std::vector<CapsuleId> fused_;
  std::array<std::uint32_t, kBackendOpCount + 1> op_begin_{};
};

}  // namespace nnplan::backend
