// Audit and recheck (SPEC §8). An execution audit has one row per selected kernel (per lowered
// group for graphs); a row copies the capsule's op, name, provider, device, trust, VJP mode, four
// contract descriptors and numerical policy. Rows are stored as capsule ids and materialized on
// demand, so auditing a million groups copies no strings; the audit shares the registry the ids
// index. The recheck expands a row into four
// obligation reports (shape, layout, value, vjp) with the disposition of their evidence.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nnplan/backend/capsule.hpp"
#include "nnplan/backend/planner.hpp"

namespace nnplan::backend {

// The audit record of one selected kernel.
struct KernelAudit {
  BackendOp op = BackendOp::add;
  std::string capsule;
  Provider provider = Provider::reference;
  Device device = Device::cpu;
  TrustLevel trust = TrustLevel::verified;
  VjpMode vjp_mode = VjpMode::none;
  ContractDescriptor shape;
  ContractDescriptor layout;
  ContractDescriptor value;
  ContractDescriptor vjp;
  NumericalPolicy numerical;

  bool operator==(const KernelAudit&) const = default;
};

[[nodiscard]] KernelAudit audit_kernel(const KernelCapsule& capsule);

// One obligation of one row: the claim in one contract field and the evidence discharging it.
struct ObligationReport {
  BackendOp op = BackendOp::add;
  std::string capsule;
  ContractField field = ContractField::shape;
  std::string claim;  // claim label
  Evidence evidence;
  Disposition disposition = Disposition::missing;

  bool operator==(const ObligationReport&) const = default;
};

// The four obligation reports of one capsule, in field order.
[[nodiscard]] std::vector<ObligationReport> obligations_of(const KernelCapsule& capsule);

struct GraphLoweringPlan;

class ExecutionAudit {
 public:
  explicit ExecutionAudit(const ExecutionPlan& plan);
  // One row per lowered group; equal to ExecutionAudit(plan.to_execution_plan()) without building
  // that intermediate plan.
  explicit ExecutionAudit(const GraphLoweringPlan& plan);

  [[nodiscard]] std::size_t size() const { return rows_.size(); }
  [[nodiscard]] KernelAudit row(std::size_t i) const;
  [[nodiscard]] const KernelCapsule& capsule(std::size_t i) const {
    return registry_->capsule(rows_[i]);
  }
  // The capsule id of row i.
  [[nodiscard]] CapsuleId capsule_id(std::size_t i) const { return rows_[i]; }
  // Distinct capsules of the rows, in first-appearance order: audits and gate verdicts are
  // computed once per entry and hold for every row using it.
  [[nodiscard]] const std::vector<CapsuleId>& distinct_capsules() const { return distinct_; }
  [[nodiscard]] const Registry& registry() const { return *registry_; }
  [[nodiscard]] const std::shared_ptr<const Registry>& shared_registry() const { return registry_; }

  // Trust level of each row.
  [[nodiscard]] std::vector<TrustLevel> trust_levels() const;
  // Capsule name of each row.
  [[nodiscard]] std::vector<std::string> capsule_names() const;
  // The distinct ops whose kernel is trusted-external, in row order.
  [[nodiscard]] std::vector<BackendOp> trusted_external_ops() const;
  [[nodiscard]] bool has_trusted_external() const;

 private:
  // Appends a row; `seen` flags the capsules already in distinct_.
  void add_row(CapsuleId id, std::vector<std::uint8_t>& seen);

  std::shared_ptr<const Registry> registry_;
  std::vector<CapsuleId> rows_;
  std::vector<CapsuleId> distinct_;
};

// Every row expanded into its four obligation reports, in row order.
[[nodiscard]] std::vector<ObligationReport> recheck(const ExecutionAudit& audit);

}  // namespace nnplan::backend
