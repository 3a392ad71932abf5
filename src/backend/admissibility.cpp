#include "nnplan/backend/admissibility.hpp"

namespace nnplan::backend {
namespace {

std::string quoted(std::string_view s) {
  return "'" + std::string(s) + "'";
}

// The claim a field should hold, for the misalignment message.
std::string expected_claim(const KernelCapsule& c, ContractField field) {
  const std::string op(to_string(c.op));
  switch (field) {
    case ContractField::shape:
      return "shape safety for " + op;
    case ContractField::layout:
      return "a layout compatibility claim for " + op;
    case ContractField::value:
      return "a forward refinement claim for " + op;
    case ContractField::vjp:
      return "a " + std::string(to_string(c.vjp_mode)) + " VJP refinement claim for " + op;
  }
  return {};
}

}  // namespace

std::vector<Rejection> rejection_reasons(const ExecutionConfig& config, const KernelCapsule& c,
                                         const Availability* availability) {
  std::vector<Rejection> out;
  if (!c.supports_forward) {
    out.push_back({RejectionReason::forward_unsupported, "capsule does not support forward"});
  }
  // One reason naming every misaligned field, so a capsule is fixed in one edit, not one per run.
  if (const std::vector<ContractField> fields = misaligned_fields(c); !fields.empty()) {
    std::string detail;
    for (const ContractField field : fields) {
      if (!detail.empty()) detail += "; ";
      detail += std::string(to_string(field)) + " field holds " +
                quoted(label(c.contract(field).claim)) + ", expected " + expected_claim(c, field);
    }
    out.push_back({RejectionReason::contracts_misaligned, std::move(detail)});
  }
  if (!admits_trust(config.assurance, c.trust_level)) {
    out.push_back(
        {RejectionReason::trust_not_admitted, "trust " + std::string(to_string(c.trust_level)) +
                                                  " is not admitted by assurance policy " +
                                                  std::string(label(config.assurance))});
  }
  if (!admits_provider(config.preference, c.provider)) {
    out.push_back({RejectionReason::provider_excluded,
                   "provider " + std::string(to_string(c.provider)) + " is excluded by '" +
                       to_string(config.preference) + "'"});
  }
  if (c.device != config.device) {
    out.push_back({RejectionReason::wrong_device,
                   "capsule runs on " + std::string(to_string(c.device)) +
                       ", the config asks for " + std::string(to_string(config.device))});
  }
  if (!vjp_fits(config.vjp_mode, c.op, c.vjp_mode)) {
    out.push_back({RejectionReason::vjp_incompatible,
                   "capsule vjp " + std::string(to_string(c.vjp_mode)) +
                       " does not serve config vjp " + std::string(to_string(config.vjp_mode))});
  }
  if (availability != nullptr) {
    if (!availability->has_device(c.device)) {
      out.push_back(
          {RejectionReason::unavailable_device,
           "device " + std::string(to_string(c.device)) + " is not available on the target"});
    }
    if (!availability->has_provider(c.provider)) {
      out.push_back(
          {RejectionReason::unavailable_provider,
           "provider " + std::string(to_string(c.provider)) + " is not available on the target"});
    }
  }
  return out;
}

}  // namespace nnplan::backend
