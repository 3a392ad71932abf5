#include "nnplan/runtime/evidence.hpp"

#include <algorithm>

#include "nnplan/backend/builtin_modules.hpp"
#include "nnplan/backend/op_mapping.hpp"
#include "nnplan/ir/op_kind.hpp"

namespace nnplan::runtime {
namespace {

#include "runtime/evidence_sources.inc"

using backend::ContractField;
using backend::EvidenceKind;
using backend::KernelCapsule;

std::string dotted_to_underscored(std::string_view name) {
  std::string out(name);
  std::ranges::replace(out, '.', '_');
  return out;
}

bool listed(std::span<const std::string_view> files, std::string_view file) {
  return std::ranges::find(files, file) != files.end();
}

// What a theorem, checker, trusted boundary or missing evidence is, since nothing here runs it.
std::string not_checkable_detail(const backend::Evidence& evidence) {
  switch (evidence.kind) {
    case EvidenceKind::theorem:
      return "a theorem named by the capsule; nnplan does not check proofs";
    case EvidenceKind::checker:
      return "a checker named by the capsule; nnplan does not run it";
    case EvidenceKind::trusted_boundary:
      return "trusted boundary: the capsule's word";
    case EvidenceKind::not_provided:
      return "no evidence recorded";
    case EvidenceKind::runtime_guard:
    case EvidenceKind::test_suite:
    case EvidenceKind::fuzz_oracle:
      break;
  }
  return "";
}

void resolve_guard(const KernelCapsule& capsule, const HandlerDefinition& handler,
                   const HandlerRegistry& handlers, EvidenceItem& item) {
  const std::string& name = item.evidence.name;
  const RegisteredGuard* guard = handlers.find_guard(name);
  if (guard == nullptr) {
    item.detail = "no guard named " + name + " is registered in this build; the handler " +
                  std::string(handler.symbol) + " registers " + capsule.name + ".shape_guard and " +
                  capsule.name + ".layout_guard";
    return;
  }
  if (guard->capsule != identity_of(capsule)) {
    item.detail = "guard " + name + " is registered by the handler of capsule " +
                  guard->capsule.name + ", not by this capsule's handler " +
                  std::string(handler.symbol);
    return;
  }
  item.status = EvidenceStatus::resolved;
  item.target = name;
  item.guard = guard->check;
  item.detail = "guard registered by handler " + std::string(handler.symbol);
}

void resolve_suite(const KernelCapsule& capsule, const HandlerDefinition& handler,
                   const EvidenceSources& sources, EvidenceItem& item) {
  const bool vjp = item.field == ContractField::vjp;
  const std::string_view file = vjp ? handler.vjp_tests.source : handler.forward_tests.source;
  const std::string_view which = vjp ? "vjp" : "forward";
  const std::string suite = gtest_suite_name(item.evidence.name);
  if (file.empty()) {
    item.detail = "the handler " + std::string(handler.symbol) + " of capsule " + capsule.name +
                  " names no file for its " + std::string(which) +
                  " tests; set its TestSuiteRef to the file defining GoogleTest suite " + suite;
    return;
  }
  if (!listed(sources.test_files, file)) {
    item.detail = "the handler " + std::string(handler.symbol) + " names " + std::string(file) +
                  " for GoogleTest suite " + suite +
                  ", which is not a source of nnplan_tests in this build";
    return;
  }
  item.status = EvidenceStatus::resolved;
  item.target = suite;
  item.file = std::string(file);
  item.detail = "GoogleTest suite " + suite + " in " + item.file +
                " (ctest --test-dir build -R nnplan_tests, or build/bin/nnplan_tests "
                "--gtest_filter='" +
                suite + ".*')";
}

// A libFuzzer target first, then a row of the conformance table (run by the `conformance` CTest
// entry and by nnplan_oracles): either is a program a reader can run that compares or exercises
// the capsule.
void resolve_fuzz(const EvidenceSources& sources, EvidenceItem& item) {
  const std::string file = fuzz_target_file(item.evidence.name);
  if (listed(sources.fuzz_targets, file)) {
    item.status = EvidenceStatus::resolved;
    item.target = file;
    item.detail = "fuzz target " + file + " (built with -DNNPLAN_FUZZ=ON)";
    return;
  }
  if (listed(sources.oracles, item.evidence.name)) {
    item.status = EvidenceStatus::resolved;
    item.target = std::string(kConformanceTable);
    item.detail = "conformance row " + item.evidence.name + " in " + item.target +
                  " (ctest --test-dir build -R conformance, or build/bin/nnplan_oracles " +
                  item.evidence.name + " [--cases N] [--seed S])";
    return;
  }
  item.detail = "no fuzz target " + file + " and no row " + item.evidence.name +
                " of the conformance table " + std::string(kConformanceTable) +
                " in this build; add a libFuzzer target under tests/fuzz/ or a row to the table";
}

std::string not_built_detail(const KernelCapsule& capsule) {
  if (capsule.provider == backend::Provider::reference && !graph_reaches(capsule.op)) {
    return "no graph op lowers to " + std::string(to_string(capsule.op)) +
           ", so this build has no handler for " + capsule.name + "; it is kept for planning";
  }
  return "this build has no handler for " + capsule.name + " (provider " +
         std::string(to_string(capsule.provider)) + ", device " +
         std::string(to_string(capsule.device)) +
         "); it is kept for planning and run refuses it as unprobed-provider or unbound-capsule";
}

}  // namespace

EvidenceSources this_build_sources() {
  return {
      .test_files = kBuildTestFiles, .fuzz_targets = kBuildFuzzTargets, .oracles = kBuildOracles};
}

std::string gtest_suite_name(std::string_view evidence_name) {
  return dotted_to_underscored(evidence_name);
}

std::string fuzz_target_file(std::string_view evidence_name) {
  return "tests/fuzz/" + dotted_to_underscored(evidence_name) + ".cpp";
}

bool is_builtin_capsule(const backend::Registry& registry, backend::CapsuleId id) {
  return origin_of(registry, id).built_in;
}

CapsuleOrigin origin_of(const backend::Registry& registry, backend::CapsuleId id) {
  static const std::vector<backend::CapsuleModule> builtins = [] {
    std::vector<backend::CapsuleModule> modules = backend::builtin_modules();
    modules.push_back(backend::libtorch_module());
    modules.push_back(backend::onednn_module());
    return modules;
  }();
  const std::string& name = registry.module_of(id);
  const auto module = std::ranges::find(registry.modules(), name, &backend::CapsuleModule::name);
  const std::string_view source = module->source;
  return {.module = name,
          .source = source,
          .built_in = source.empty() && std::ranges::find(builtins, *module) != builtins.end()};
}

bool graph_reaches(backend::BackendOp op) {
  for (std::size_t i = 0; i < ir::kOpKindCount; ++i) {
    if (backend::backend_op_of(static_cast<ir::OpKind>(i)) == op) return true;
  }
  return false;
}

CapsuleEvidence resolve_capsule_evidence(const KernelCapsule& capsule, backend::CapsuleId id,
                                         const CapsuleOrigin& origin,
                                         const HandlerRegistry& handlers,
                                         const EvidenceSources& sources) {
  const HandlerDefinition* handler = handlers.find(capsule);
  CapsuleEvidence items;
  for (std::size_t f = 0; f < items.size(); ++f) {
    EvidenceItem& item = items[f];
    item.capsule = id;
    item.field = static_cast<ContractField>(f);
    item.evidence = capsule.contract(item.field).evidence;
    if (!origin.built_in) {
      item.status = EvidenceStatus::external;
      item.detail = "capsule of module '" + std::string(origin.module) + "' " +
                    (origin.source.empty() ? std::string("not built into nnplan")
                                           : "from " + std::string(origin.source)) +
                    ": the user's word; nnplan does not resolve it";
      continue;
    }
    if (handler == nullptr) {
      item.status = EvidenceStatus::declared_not_built;
      item.detail = not_built_detail(capsule);
      continue;
    }
    switch (item.evidence.kind) {
      case EvidenceKind::runtime_guard:
        resolve_guard(capsule, *handler, handlers, item);
        break;
      case EvidenceKind::test_suite:
        resolve_suite(capsule, *handler, sources, item);
        break;
      case EvidenceKind::fuzz_oracle:
        resolve_fuzz(sources, item);
        break;
      case EvidenceKind::theorem:
      case EvidenceKind::checker:
      case EvidenceKind::trusted_boundary:
      case EvidenceKind::not_provided:
        item.status = EvidenceStatus::not_checkable;
        item.detail = not_checkable_detail(item.evidence);
        break;
    }
  }
  return items;
}

std::vector<EvidenceItem> resolve_evidence(const backend::Registry& registry,
                                           const HandlerRegistry& handlers,
                                           const EvidenceSources& sources) {
  std::vector<EvidenceItem> items;
  items.reserve(registry.size() * backend::kContractFieldNames.size());
  for (backend::CapsuleId id = 0; id < registry.size(); ++id) {
    for (EvidenceItem& item : resolve_capsule_evidence(
             registry.capsule(id), id, origin_of(registry, id), handlers, sources)) {
      items.push_back(std::move(item));
    }
  }
  return items;
}

std::array<std::size_t, kEvidenceStatusCount> evidence_counts(std::span<const EvidenceItem> items) {
  std::array<std::size_t, kEvidenceStatusCount> counts{};
  for (const EvidenceItem& item : items)
    ++counts[static_cast<std::size_t>(item.status)];
  return counts;
}

}  // namespace nnplan::runtime
