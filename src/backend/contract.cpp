#include "nnplan/backend/contract.hpp"

namespace nnplan::backend {

std::string label(const Claim& claim) {
  const std::string op(to_string(claim.op));
  switch (claim.kind) {
    case ClaimKind::shape_safety:
      return "shape safety for " + op;
    case ClaimKind::layout_compatibility:
      return std::string(to_string(claim.layout)) + " layout compatibility for " + op;
    case ClaimKind::value_refinement:
      return op + " forward refines " + claim.spec;
    case ClaimKind::vjp_refinement:
      return op + " " + std::string(to_string(claim.mode)) + " VJP refines " + claim.spec;
  }
  return {};
}

std::string label(const Evidence& evidence) {
  switch (evidence.kind) {
    case EvidenceKind::theorem:
      return "proved by " + evidence.name;
    case EvidenceKind::checker:
      return "accepted by checker " + evidence.name;
    case EvidenceKind::runtime_guard:
      return "guarded at runtime by " + evidence.name;
    case EvidenceKind::test_suite:
      return "covered by test suite " + evidence.name;
    case EvidenceKind::fuzz_oracle:
      return "compared by fuzz oracle " + evidence.name;
    case EvidenceKind::trusted_boundary:
      return "trusted boundary: " + evidence.name;
    case EvidenceKind::not_provided:
      return "no evidence recorded";
  }
  return {};
}

}  // namespace nnplan::backend
