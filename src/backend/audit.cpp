#include "nnplan/backend/audit.hpp"

#include <algorithm>

#include "nnplan/backend/lowering.hpp"

namespace nnplan::backend {

KernelAudit audit_kernel(const KernelCapsule& c) {
  return {.op = c.op,
          .capsule = c.name,
          .provider = c.provider,
          .device = c.device,
          .trust = c.trust_level,
          .vjp_mode = c.vjp_mode,
          .shape = c.shape,
          .layout = c.layout,
          .value = c.value,
          .vjp = c.vjp,
          .numerical = c.numerical};
}

std::vector<ObligationReport> obligations_of(const KernelCapsule& c) {
  std::vector<ObligationReport> out;
  out.reserve(kContractFieldNames.size());
  for (std::size_t i = 0; i < kContractFieldNames.size(); ++i) {
    const auto field = static_cast<ContractField>(i);
    const ContractDescriptor& d = c.contract(field);
    out.push_back({.op = c.op,
                   .capsule = c.name,
                   .field = field,
                   .claim = label(d.claim),
                   .evidence = d.evidence,
                   .disposition = disposition(d.evidence.kind)});
  }
  return out;
}

void ExecutionAudit::add_row(CapsuleId id, std::vector<std::uint8_t>& seen) {
  rows_.push_back(id);
  if (seen[id] == 0) {
    seen[id] = 1;
    distinct_.push_back(id);
  }
}

ExecutionAudit::ExecutionAudit(const ExecutionPlan& plan) : registry_(plan.registry) {
  rows_.reserve(plan.kernels.size());
  // A registry is small (hundreds of capsules); one flag per capsule makes dedup O(rows).
  std::vector<std::uint8_t> seen(registry_ ? registry_->size() : 0, 0);
  for (const PlannedKernel& k : plan.kernels)
    add_row(k.capsule, seen);
}

ExecutionAudit::ExecutionAudit(const GraphLoweringPlan& plan) : registry_(plan.registry) {
  rows_.reserve(plan.groups.size());
  std::vector<std::uint8_t> seen(registry_ ? registry_->size() : 0, 0);
  for (const LoweredKernelGroup& g : plan.groups)
    add_row(g.capsule, seen);
}

KernelAudit ExecutionAudit::row(std::size_t i) const {
  return audit_kernel(capsule(i));
}

std::vector<TrustLevel> ExecutionAudit::trust_levels() const {
  std::vector<TrustLevel> out;
  out.reserve(rows_.size());
  for (CapsuleId id : rows_)
    out.push_back(registry_->capsule(id).trust_level);
  return out;
}

std::vector<std::string> ExecutionAudit::capsule_names() const {
  std::vector<std::string> out;
  out.reserve(rows_.size());
  for (CapsuleId id : rows_)
    out.push_back(registry_->capsule(id).name);
  return out;
}

std::vector<BackendOp> ExecutionAudit::trusted_external_ops() const {
  std::vector<BackendOp> out;
  for (CapsuleId id : distinct_) {
    const KernelCapsule& c = registry_->capsule(id);
    if (c.trust_level == TrustLevel::trusted_external &&
        std::ranges::find(out, c.op) == out.end()) {
      out.push_back(c.op);
    }
  }
  return out;
}

bool ExecutionAudit::has_trusted_external() const {
  return std::ranges::any_of(distinct_, [&](CapsuleId id) {
    return registry_->capsule(id).trust_level == TrustLevel::trusted_external;
  });
}

std::vector<ObligationReport> recheck(const ExecutionAudit& audit) {
  std::vector<ObligationReport> out;
  out.reserve(audit.size() * kContractFieldNames.size());
  for (std::size_t i = 0; i < audit.size(); ++i) {
    for (ObligationReport& r : obligations_of(audit.capsule(i)))
      out.push_back(std::move(r));
  }
  return out;
}

}  // namespace nnplan::backend
