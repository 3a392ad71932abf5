// KernelCapsule (SPEC §2): the audit record of one (operation, provider, device) implementation:
// its trust level, forward and VJP support, the four contract descriptors and the numerical
// policy. Registries hold capsules; plans refer to them by CapsuleId.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nnplan/backend/contract.hpp"
#include "nnplan/backend/numerical_policy.hpp"
#include "nnplan/backend/vocabulary.hpp"

namespace nnplan::backend {

// Index of a capsule in the flattened registry it belongs to.
using CapsuleId = std::uint32_t;

struct KernelCapsule {
  std::string name;
  BackendOp op = BackendOp::add;
  Provider provider = Provider::reference;
  Device device = Device::cpu;
  TrustLevel trust_level = TrustLevel::verified;
  bool supports_forward = true;
  VjpMode vjp_mode = VjpMode::none;
  ContractDescriptor shape;
  ContractDescriptor layout;
  ContractDescriptor value;
  ContractDescriptor vjp;
  NumericalPolicy numerical;
  std::string notes;
  // A fused capsule's pattern (SPEC §7): the chain of backend ops it runs as one kernel, root
  // first (`op` is pattern[0]); empty for a capsule of one op. Its four contracts speak for the
  // whole chain.
  std::vector<BackendOp> pattern;

  bool operator==(const KernelCapsule&) const = default;

  [[nodiscard]] bool is_fused() const { return !pattern.empty(); }

  [[nodiscard]] const ContractDescriptor& contract(ContractField field) const;
};

// The first contract field whose claim does not match its slot (shape safety for the op in
// `shape`, a layout claim for the op in `layout`, a forward refinement of the op in `value`, a
// VJP refinement of the op in the capsule's vjp mode in `vjp`), or nullopt when all four align.
[[nodiscard]] std::optional<ContractField> first_misaligned_field(const KernelCapsule& capsule);

// Every contract field whose claim does not match its slot, in field order (shape, layout, value,
// vjp); empty when all four align.
[[nodiscard]] std::vector<ContractField> misaligned_fields(const KernelCapsule& capsule);

[[nodiscard]] inline bool contracts_aligned(const KernelCapsule& capsule) {
  return !first_misaligned_field(capsule).has_value();
}

// Two capsules are the same registration when name, op, provider and device are equal.
[[nodiscard]] inline bool same_identity(const KernelCapsule& a, const KernelCapsule& b) {
  return a.name == b.name && a.op == b.op && a.provider == b.provider && a.device == b.device;
}

}  // namespace nnplan::backend
