// Shared builders for the backend tests: an aligned capsule from a handful of fields, a one-module
// registry, the rejection codes of a candidate, and a gtest-safe name for parameterized cases.
#pragma once

#include <cctype>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "nnplan/backend/admissibility.hpp"
#include "nnplan/backend/capsule.hpp"
#include "nnplan/backend/registry.hpp"
#include "nnplan/error.hpp"

namespace nnplan::backend {

// gtest prints a capsule parameter by its name instead of a byte dump.
inline void PrintTo(const KernelCapsule& capsule, std::ostream* os) {
  *os << capsule.name;
}

}  // namespace nnplan::backend

namespace nnplan::backend::fixtures {

// A capsule whose four contracts are aligned with its op and vjp mode, with guard and test
// evidence named after the capsule.
inline KernelCapsule aligned_capsule(std::string name, BackendOp op, Provider provider,
                                     Device device, TrustLevel trust = TrustLevel::checked,
                                     VjpMode vjp = VjpMode::torchlean_tape) {
  const std::string spec = "Spec." + std::string(to_string(op));
  KernelCapsule c{
      .name = name,
      .op = op,
      .provider = provider,
      .device = device,
      .trust_level = trust,
      .supports_forward = true,
      .vjp_mode = vjp,
      .shape = {.claim = Claim::shape_safety(op),
                .summary = "shapes guarded",
                .evidence = {EvidenceKind::runtime_guard, name + ".shape_guard"},
                .provenance = {}},
      .layout = {.claim = Claim::layout_compatibility(op, Layout::canonical_tensor),
                 .summary = "canonical layout guarded",
                 .evidence = {EvidenceKind::runtime_guard, name + ".layout_guard"},
                 .provenance = {}},
      .value = {.claim = Claim::value_refinement(op, spec),
                .summary = "forward tested",
                .evidence = {EvidenceKind::test_suite, name + ".forward_tests"},
                .provenance = {}},
      .vjp = {.claim = Claim::vjp_refinement(op, vjp, spec),
              .summary = "vjp tested",
              .evidence = {EvidenceKind::test_suite, name + ".vjp_tests"},
              .provenance = {}},
      .numerical = {},
      .notes = "",
  };
  return c;
}

// `capsule` with a value claim sitting in its shape field (SPEC §2's example of misalignment).
inline KernelCapsule value_claim_in_shape_field(KernelCapsule capsule) {
  capsule.shape.claim = capsule.value.claim;
  return capsule;
}

// A registry of one module; the caller guarantees the capsules are distinct identities.
inline Registry registry_of(std::vector<KernelCapsule> capsules, std::string module = "test") {
  std::vector<CapsuleModule> modules;
  modules.push_back({.name = std::move(module), .capsules = std::move(capsules)});
  return Registry::create(std::move(modules)).value();
}

// The same registry as a shared value, as plans hold it.
inline std::shared_ptr<const Registry> shared_registry_of(std::vector<KernelCapsule> capsules,
                                                          std::string module = "test") {
  return std::make_shared<const Registry>(registry_of(std::move(capsules), std::move(module)));
}

inline std::vector<std::string> codes(const std::vector<ReasonReport>& reasons) {
  std::vector<std::string> out;
  for (const ReasonReport& r : reasons)
    out.push_back(r.code);
  return out;
}

inline std::vector<std::string> codes(const std::vector<Rejection>& rejections) {
  std::vector<std::string> out;
  for (const Rejection& r : rejections)
    out.emplace_back(to_string(r.reason));
  return out;
}

inline std::vector<std::string> candidate_names(const Error& error) {
  std::vector<std::string> out;
  for (const CandidateReport& c : error.candidates)
    out.push_back(c.capsule);
  return out;
}

// gtest parameter names may hold only letters, digits and underscores.
inline std::string test_name(std::string_view text) {
  std::string out;
  for (char ch : text) {
    out += std::isalnum(static_cast<unsigned char>(ch)) != 0 ? ch : '_';
  }
  return out.empty() ? std::string("empty") : out;
}

}  // namespace nnplan::backend::fixtures
