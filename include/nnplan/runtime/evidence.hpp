// Evidence resolution (SPEC §11 "Evidence resolves"): where each piece of a capsule's evidence
// resolves in this build. A runtime-guard name resolves to the guard its capsule's handler
// registered, a test-suite name to the GoogleTest suite of that name (every '.' as '_') in
// nnplan_tests, defined in the file the handler's TestSuiteRef names, and a fuzz-oracle name to a
// libFuzzer target tests/fuzz/<name, '.' as '_'>.cpp or, failing that, to the row
// `<capsule>.oracle` of the conformance table tests/oracles/conformance_table.cpp (seeded
// comparisons of the capsule with the reference provider, run by a GoogleTest and the
// nnplan_oracles program; tests/oracles/oracle.hpp). Capsules from registry files are the user's
// word (`external`); built-in capsules without a handler in this build keep their declarations
// for planning only (`declared-not-built`). `nnplan capsules --evidence` prints the result.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/registry.hpp"
#include "nnplan/runtime/handler_registry.hpp"

namespace nnplan::runtime {

enum class EvidenceStatus : std::uint8_t {
  resolved,            // names something of this build a reader can run
  unresolved,          // names something this build should have and does not
  declared_not_built,  // a built-in capsule whose kernel this build does not contain
  external,            // a capsule from a user registry file: the user's word
  not_checkable,       // a theorem, checker, trusted boundary or missing evidence
};
inline constexpr auto kEvidenceStatusNames = enum_names<EvidenceStatus::not_checkable>(
    {"resolved", "unresolved", "declared-not-built", "external", "not-checkable"});
inline constexpr std::size_t kEvidenceStatusCount = kEvidenceStatusNames.size();
[[nodiscard]] constexpr std::string_view to_string(EvidenceStatus v) {
  return enum_name(kEvidenceStatusNames, v);
}

// One (capsule, contract field) row. `target` is what a resolved item resolves to (the guard
// name, the GoogleTest suite, the fuzz target's file) and `file` the test suite's source file;
// both are empty otherwise. `detail` says where it resolves or why it does not.
struct EvidenceItem {
  backend::CapsuleId capsule = 0;
  backend::ContractField field = backend::ContractField::shape;
  backend::Evidence evidence;
  EvidenceStatus status = EvidenceStatus::unresolved;
  std::string target;
  std::string file;
  // The registered guard a resolved runtime-guard item names; null otherwise.
  GuardFn guard = nullptr;
  std::string detail;

  bool operator==(const EvidenceItem&) const = default;
};

// A capsule's rows, one per contract field in field order.
using CapsuleEvidence = std::array<EvidenceItem, backend::kContractFieldNames.size()>;

// What this build can resolve against besides the handlers: the source files of nnplan_tests
// (paths relative to the repository root), the fuzz targets' files (tests/fuzz/<name>.cpp) and
// the fuzz-oracle names of the conformance table's rows (`onednn.conv.oracle`; empty when this
// build does not build the tests).
struct EvidenceSources {
  std::span<const std::string_view> test_files;
  std::span<const std::string_view> fuzz_targets;
  std::span<const std::string_view> oracles = {};
};

// The file that holds the conformance table.
inline constexpr std::string_view kConformanceTable = "tests/oracles/conformance_table.cpp";

// This build's lists, compiled in when the build is configured.
[[nodiscard]] EvidenceSources this_build_sources();

// `reference.conv.forward_tests` -> `reference_conv_forward_tests`.
[[nodiscard]] std::string gtest_suite_name(std::string_view evidence_name);
// `onednn.conv.oracle` -> `tests/fuzz/onednn_conv_oracle.cpp`.
[[nodiscard]] std::string fuzz_target_file(std::string_view evidence_name);

// Whether the capsule `id` of `registry` is one nnplan builds in: its module has no source and is
// one of backend::builtin_modules(), backend::libtorch_module() or backend::onednn_module(),
// capsule for capsule.
[[nodiscard]] bool is_builtin_capsule(const backend::Registry& registry, backend::CapsuleId id);

// Whether some ir::OpKind lowers to `op` (the backend_op column of ir/op_kinds.def).
[[nodiscard]] bool graph_reaches(backend::BackendOp op);

// Where a capsule came from: its module's name and source (the registry file it was read from,
// empty for modules made in code) and whether nnplan builds it in.
struct CapsuleOrigin {
  std::string_view module;
  std::string_view source;
  bool built_in = false;
};

// The origin of capsule `id` of `registry`.
[[nodiscard]] CapsuleOrigin origin_of(const backend::Registry& registry, backend::CapsuleId id);

// The four rows of one capsule (shape, layout, value, vjp), `id` being its index in its registry.
[[nodiscard]] CapsuleEvidence resolve_capsule_evidence(const backend::KernelCapsule& capsule,
                                                       backend::CapsuleId id,
                                                       const CapsuleOrigin& origin,
                                                       const HandlerRegistry& handlers,
                                                       const EvidenceSources& sources);

// Every capsule's four contracts, in registry order, then field order (shape, layout, value, vjp).
[[nodiscard]] std::vector<EvidenceItem> resolve_evidence(const backend::Registry& registry,
                                                         const HandlerRegistry& handlers,
                                                         const EvidenceSources& sources);
[[nodiscard]] inline std::vector<EvidenceItem> resolve_evidence(const backend::Registry& registry,
                                                                const HandlerRegistry& handlers) {
  return resolve_evidence(registry, handlers, this_build_sources());
}

// How many items have each status, indexed by EvidenceStatus.
[[nodiscard]] std::array<std::size_t, kEvidenceStatusCount> evidence_counts(
    std::span<const EvidenceItem> items);

}  // namespace nnplan::runtime
