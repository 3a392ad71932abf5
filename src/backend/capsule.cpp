#include "nnplan/backend/capsule.hpp"

namespace nnplan::backend {

const ContractDescriptor& KernelCapsule::contract(ContractField field) const {
  switch (field) {
    case ContractField::shape:
      return shape;
    case ContractField::layout:
      return layout;
    case ContractField::value:
      return value;
    case ContractField::vjp:
      return vjp;
  }
  return shape;
}

std::optional<ContractField> first_misaligned_field(const KernelCapsule& c) {
  if (c.shape.claim.kind != ClaimKind::shape_safety || c.shape.claim.op != c.op) {
    return ContractField::shape;
  }
  if (c.layout.claim.kind != ClaimKind::layout_compatibility || c.layout.claim.op != c.op) {
    return ContractField::layout;
  }
  if (c.value.claim.kind != ClaimKind::value_refinement || c.value.claim.op != c.op) {
    return ContractField::value;
  }
  if (c.vjp.claim.kind != ClaimKind::vjp_refinement || c.vjp.claim.op != c.op ||
      c.vjp.claim.mode != c.vjp_mode) {
    return ContractField::vjp;
  }
  return std::nullopt;
}

}  // namespace nnplan::backend
