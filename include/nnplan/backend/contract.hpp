// Contract descriptors (SPEC §2): what a capsule claims about one aspect of its kernel (shape,
// layout, value, VJP), a one-line summary, the single piece of evidence behind the claim, and
// provenance (where the code lives). Provenance is never evidence. nnplan never manufactures
// evidence: a theorem or checker here is only a reference by name to evidence kept elsewhere.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/vocabulary.hpp"

namespace nnplan::backend {

// The four contract fields of a capsule, in report order.
enum class ContractField : std::uint8_t { shape, layout, value, vjp };
inline constexpr auto kContractFieldNames =
    enum_names<ContractField::vjp>({"shape", "layout", "value", "vjp"});
[[nodiscard]] constexpr std::string_view to_string(ContractField v) {
  return enum_name(kContractFieldNames, v);
}
[[nodiscard]] inline Expected<ContractField> parse_contract_field(std::string_view s) {
  return parse_enum<ContractField>(kContractFieldNames, s, "contract field");
}

enum class Layout : std::uint8_t { canonical_tensor, flat_row_major, libtorch_cuda_view };
inline constexpr auto kLayoutNames = enum_names<Layout::libtorch_cuda_view>(
    {"canonical-tensor", "flat-row-major", "libtorch-cuda-view"});
[[nodiscard]] constexpr std::string_view to_string(Layout v) {
  return enum_name(kLayoutNames, v);
}
[[nodiscard]] inline Expected<Layout> parse_layout(std::string_view s) {
  return parse_enum<Layout>(kLayoutNames, s, "layout");
}

// Claim kinds, spelled as in `nnplan.capsules.v1`.
enum class ClaimKind : std::uint8_t {
  shape_safety,
  layout_compatibility,
  value_refinement,
  vjp_refinement
};
inline constexpr auto kClaimKindNames = enum_names<ClaimKind::vjp_refinement>(
    {"shape-safety", "layout-compatibility", "value-refinement", "vjp-refinement"});
[[nodiscard]] constexpr std::string_view to_string(ClaimKind v) {
  return enum_name(kClaimKindNames, v);
}
[[nodiscard]] inline Expected<ClaimKind> parse_claim_kind(std::string_view s) {
  return parse_enum<ClaimKind>(kClaimKindNames, s, "claim kind");
}

// One claim. `layout` is meaningful for layout claims, `spec` for value and VJP claims, `mode`
// for VJP claims; the other fields keep their defaults.
struct Claim {
  ClaimKind kind = ClaimKind::shape_safety;
  BackendOp op = BackendOp::add;
  Layout layout = Layout::canonical_tensor;
  std::string spec;
  VjpMode mode = VjpMode::none;

  bool operator==(const Claim&) const = default;

  [[nodiscard]] static Claim shape_safety(BackendOp op) {
    return {.kind = ClaimKind::shape_safety, .op = op};
  }
  [[nodiscard]] static Claim layout_compatibility(BackendOp op, Layout layout) {
    return {.kind = ClaimKind::layout_compatibility, .op = op, .layout = layout};
  }
  [[nodiscard]] static Claim value_refinement(BackendOp op, std::string spec) {
    return {.kind = ClaimKind::value_refinement, .op = op, .spec = std::move(spec)};
  }
  [[nodiscard]] static Claim vjp_refinement(BackendOp op, VjpMode mode, std::string spec) {
    return {.kind = ClaimKind::vjp_refinement, .op = op, .spec = std::move(spec), .mode = mode};
  }
};

// `shape safety for relu`, `flat-row-major layout compatibility for relu`,
// `relu forward refines Spec.relu`, `relu backend-vjp VJP refines Spec.relu`.
[[nodiscard]] std::string label(const Claim& claim);

enum class EvidenceKind : std::uint8_t {
  theorem,
  checker,
  runtime_guard,
  test_suite,
  fuzz_oracle,
  trusted_boundary,
  not_provided,
};
inline constexpr auto kEvidenceKindNames =
    enum_names<EvidenceKind::not_provided>({"theorem", "checker", "runtime-guard", "test-suite",
                                            "fuzz-oracle", "trusted-boundary", "not-provided"});
[[nodiscard]] constexpr std::string_view to_string(EvidenceKind v) {
  return enum_name(kEvidenceKindNames, v);
}
[[nodiscard]] inline Expected<EvidenceKind> parse_evidence_kind(std::string_view s) {
  return parse_enum<EvidenceKind>(kEvidenceKindNames, s, "evidence kind");
}

// The coarse disposition of a piece of evidence, used by the recheck and the gate.
enum class Disposition : std::uint8_t {
  proved,
  checked,
  guarded,
  tested,
  fuzzed,
  trusted,
  missing
};
inline constexpr auto kDispositionNames = enum_names<Disposition::missing>(
    {"proved", "checked", "guarded", "tested", "fuzzed", "trusted", "missing"});
[[nodiscard]] constexpr std::string_view to_string(Disposition v) {
  return enum_name(kDispositionNames, v);
}
[[nodiscard]] inline Expected<Disposition> parse_disposition(std::string_view s) {
  return parse_enum<Disposition>(kDispositionNames, s, "disposition");
}

// One piece of evidence. `name` is the theorem, checker, guard, suite or oracle name, or the
// reason of a trusted boundary; it is empty for `not-provided`.
struct Evidence {
  EvidenceKind kind = EvidenceKind::not_provided;
  std::string name;

  bool operator==(const Evidence&) const = default;
};

[[nodiscard]] constexpr Disposition disposition(EvidenceKind kind) {
  switch (kind) {
    case EvidenceKind::theorem:
      return Disposition::proved;
    case EvidenceKind::checker:
      return Disposition::checked;
    case EvidenceKind::runtime_guard:
      return Disposition::guarded;
    case EvidenceKind::test_suite:
      return Disposition::tested;
    case EvidenceKind::fuzz_oracle:
      return Disposition::fuzzed;
    case EvidenceKind::trusted_boundary:
      return Disposition::trusted;
    case EvidenceKind::not_provided:
      return Disposition::missing;
  }
  return Disposition::missing;
}

// `proved by X`, `accepted by checker X`, `guarded at runtime by X`, `covered by test suite X`,
// `compared by fuzz oracle X`, `trusted boundary: X`, `no evidence recorded`.
[[nodiscard]] std::string label(const Evidence& evidence);

enum class ProvenanceKind : std::uint8_t { source_file, native_symbol, note };
inline constexpr auto kProvenanceKindNames =
    enum_names<ProvenanceKind::note>({"source-file", "native-symbol", "note"});
[[nodiscard]] constexpr std::string_view to_string(ProvenanceKind v) {
  return enum_name(kProvenanceKindNames, v);
}
[[nodiscard]] inline Expected<ProvenanceKind> parse_provenance_kind(std::string_view s) {
  return parse_enum<ProvenanceKind>(kProvenanceKindNames, s, "provenance kind");
}

// Where the code behind a claim lives: a source file (`path`), a native symbol (`path`, `symbol`,
// optional `build_target`) or a free note (`text`).
struct Provenance {
  ProvenanceKind kind = ProvenanceKind::note;
  std::string path;
  std::string symbol;
  std::string build_target;
  std::string text;

  bool operator==(const Provenance&) const = default;
};

struct ContractDescriptor {
  Claim claim;
  std::string summary;
  Evidence evidence;
  std::vector<Provenance> provenance;

  bool operator==(const ContractDescriptor&) const = default;
};

// A value claim whose results differ from the reference provider's where NaN or an infinity is
// involved says how after this phrase in its summary ("...; NaN and infinity differ from the
// reference: NaN becomes 0 (oneDNN's relu)"); the report gathers these as its caveats.
inline constexpr std::string_view kSpecialValueCaveat =
    "NaN and infinity differ from the reference: ";

// What follows kSpecialValueCaveat in the claim's summary, or empty when it says none.
[[nodiscard]] inline std::string_view special_value_caveat(const ContractDescriptor& value) {
  const std::string_view summary = value.summary;
  const std::size_t at = summary.find(kSpecialValueCaveat);
  return at == std::string_view::npos ? std::string_view()
                                      : summary.substr(at + kSpecialValueCaveat.size());
}

}  // namespace nnplan::backend
