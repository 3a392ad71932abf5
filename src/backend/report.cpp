#include "nnplan/backend/report.hpp"

#include <algorithm>
#include <vector>

namespace nnplan::backend {

std::string kernel_line(const KernelCapsule& c) {
  std::string out = "  ";
  out += to_string(c.op);
  out += ": ";
  out += c.name;
  out += " provider=";
  out += to_string(c.provider);
  out += " trust=";
  out += to_string(c.trust_level);
  out += " vjp=";
  out += to_string(c.vjp_mode);
  out += " numeric=[";
  out += label(c.numerical);
  out += "]";
  return out;
}

std::string detail_lines(const KernelCapsule& c) {
  std::string out;
  for (std::size_t i = 0; i < kContractFieldNames.size(); ++i) {
    const auto field = static_cast<ContractField>(i);
    const ContractDescriptor& d = c.contract(field);
    out += "    ";
    out += to_string(field);
    out += ": ";
    out += label(d.claim);
    out += "; ";
    out += label(d.evidence);
    out += "\n";
  }
  out += "    numerical: ";
  out += label(c.numerical);
  out += "\n";
  return out;
}

std::string profile_summary(const BackendProfile& p) {
  std::string out = "profile=";
  out += p.name;
  out += " device=";
  out += to_string(p.config.device);
  out += " assurance=";
  out += label(p.config.assurance);
  out += " vjp=";
  out += to_string(p.config.vjp_mode);
  return out;
}

std::string boundary_line(const ExecutionPlan& plan) {
  std::vector<BackendOp> ops;
  for (std::size_t i = 0; i < plan.kernels.size(); ++i) {
    const KernelCapsule& c = plan.capsule(i);
    if (c.trust_level == TrustLevel::trusted_external && std::ranges::find(ops, c.op) == ops.end()) {
      ops.push_back(c.op);
    }
  }
  std::string out = "trusted external boundary: ";
  if (ops.empty()) return out + "none";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (i != 0) out += ", ";
    out += to_string(ops[i]);
  }
  return out;
}

std::string plan_report(const BackendProfile& profile, const ExecutionPlan& plan) {
  std::string out = profile_summary(profile) + "\n" + boundary_line(plan) + "\n";
  for (std::size_t i = 0; i < plan.kernels.size(); ++i) {
    out += kernel_line(plan.capsule(i));
    out += "\n";
    out += detail_lines(plan.capsule(i));
  }
  return out;
}

}  // namespace nnplan::backend
