#include "nnplan/backend/capsule.hpp"

#include <array>

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

namespace {

bool aligned(const KernelCapsule& c, ContractField field) {
  switch (field) {
    case ContractField::shape:
      return c.shape.claim.kind == ClaimKind::shape_safety && c.shape.claim.op == c.op;
    case ContractField::layout:
      return c.layout.claim.kind == ClaimKind::layout_compatibility && c.layout.claim.op == c.op;
    case ContractField::value:
      return c.value.claim.kind == ClaimKind::value_refinement && c.value.claim.op == c.op;
    case ContractField::vjp:
      return c.vjp.claim.kind == ClaimKind::vjp_refinement && c.vjp.claim.op == c.op &&
             c.vjp.claim.mode == c.vjp_mode;
  }
  return false;
}

constexpr std::array kFields = {ContractField::shape, ContractField::layout, ContractField::value,
                                ContractField::vjp};

}  // namespace

std::optional<ContractField> first_misaligned_field(const KernelCapsule& c) {
  for (const ContractField field : kFields) {
    if (!aligned(c, field)) return field;
  }
  return std::nullopt;
}

std::vector<ContractField> misaligned_fields(const KernelCapsule& c) {
  std::vector<ContractField> out;
  for (const ContractField field : kFields) {
    if (!aligned(c, field)) out.push_back(field);
  }
  return out;
}

}  // namespace nnplan::backend
