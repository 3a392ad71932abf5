// SPEC §11 "Evidence resolves": every evidence item of a capsule this build executes resolves, and
// each test-suite item names a GoogleTest suite of this very binary, defined in the file the
// handler names; capsules without a kernel here are declared-not-built, registry-file capsules
// external, and planted evidence that names nothing is unresolved with its message.
#include "nnplan/runtime/evidence.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "nnplan/backend/builtin_modules.hpp"
#include "nnplan/backend/op_mapping.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/format/registry_file.hpp"
#include "nnplan/ir/op_kind.hpp"

namespace nnplan::runtime {
namespace {

using backend::BackendOp;
using backend::ContractField;
using backend::EvidenceKind;
using backend::KernelCapsule;
using backend::Provider;

// The GoogleTest suite of this binary named `name`, or null.
const ::testing::TestSuite* suite_named(const std::string& name) {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    if (unit.GetTestSuite(i)->name() == name) return unit.GetTestSuite(i);
  }
  return nullptr;
}

bool ends_with_path(std::string_view file, std::string_view relative) {
  return file == relative || (file.size() > relative.size() && file.ends_with(relative) &&
                              file[file.size() - relative.size() - 1] == '/');
}

const KernelCapsule& builtin_capsule(std::string_view name) {
  const backend::Registry& r = backend::builtin_registry();
  for (const KernelCapsule& c : r.capsules()) {
    if (c.name == name) return c;
  }
  ADD_FAILURE() << "no built-in capsule " << name;
  return r.capsule(0);
}

TEST(EvidenceResolution, EveryCapsuleThisBuildExecutesResolves) {
  const backend::BackendProfile profile =
      backend::make_profile(backend::MaintainedProfile::checked_cpu);
  const backend::Registry& registry = *profile.registry;
  const HandlerRegistry& handlers = builtin_handlers();
  const std::vector<EvidenceItem> items = resolve_evidence(registry, handlers);
  ASSERT_EQ(items.size(), registry.size() * 4);
  std::size_t executed = 0;
  std::size_t suites = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const EvidenceItem& item = items[i];
    const KernelCapsule& capsule = registry.capsule(item.capsule);
    ASSERT_EQ(item.capsule, i / 4);
    ASSERT_EQ(item.field, static_cast<ContractField>(i % 4));
    EXPECT_EQ(item.evidence, capsule.contract(item.field).evidence);
    const HandlerDefinition* handler = handlers.find(capsule);
    if (handler == nullptr) continue;
    if (item.field == ContractField::shape) ++executed;
    const std::string where = capsule.name + " " + std::string(to_string(item.field));
    EXPECT_EQ(item.status, EvidenceStatus::resolved) << where << ": " << item.detail;
    if (item.evidence.kind == EvidenceKind::runtime_guard) {
      const GuardFn own =
          item.field == ContractField::shape ? handler->shape_guard : handler->layout_guard;
      EXPECT_EQ(item.guard, own) << where;
      EXPECT_EQ(item.target, item.evidence.name) << where;
      const RegisteredGuard* guard = handlers.find_guard(item.evidence.name);
      ASSERT_NE(guard, nullptr) << where;
      EXPECT_EQ(guard->capsule, identity_of(capsule)) << where;
      EXPECT_EQ(item.detail, "guard registered by handler " + std::string(handler->symbol));
    } else {
      ASSERT_EQ(item.evidence.kind, EvidenceKind::test_suite) << where;
      const std::string_view named = item.field == ContractField::vjp
                                         ? handler->vjp_tests.source
                                         : handler->forward_tests.source;
      EXPECT_EQ(item.file, named) << where;
      const ::testing::TestSuite* suite = suite_named(item.target);
      ASSERT_NE(suite, nullptr) << where << ": no GoogleTest suite " << item.target
                                << " in this binary";
      ASSERT_GT(suite->total_test_count(), 0) << where;
      for (int t = 0; t < suite->total_test_count(); ++t) {
        EXPECT_TRUE(ends_with_path(suite->GetTestInfo(t)->file(), item.file))
            << where << ": " << item.target << "." << suite->GetTestInfo(t)->name()
            << " is defined in " << suite->GetTestInfo(t)->file() << ", not " << item.file;
      }
      ++suites;
    }
  }
  // Every handler of the build but the onednn ones (profile fast_cpu's, below) is a capsule of
  // the profile, with its two suites.
  std::size_t checked_handlers = 0;
  for (const auto& [identity, handler] : handlers.handlers()) {
    if (identity.provider != backend::Provider::onednn) ++checked_handlers;
  }
  EXPECT_EQ(executed, checked_handlers);
  EXPECT_EQ(suites, 2 * checked_handlers);
  EXPECT_GT(executed, 40u);
}

TEST(EvidenceResolution, EveryOnednnGuardAndVjpSuiteResolves) {
  const backend::BackendProfile profile =
      backend::make_profile(backend::MaintainedProfile::fast_cpu);
  const HandlerRegistry& handlers = builtin_handlers();
  std::size_t onednn = 0;
  for (const EvidenceItem& item : resolve_evidence(*profile.registry, handlers)) {
    const KernelCapsule& capsule = profile.registry->capsule(item.capsule);
    if (capsule.provider != backend::Provider::onednn) continue;
    const std::string where = capsule.name + " " + std::string(to_string(item.field));
    if (item.field == ContractField::value) {
      // A fuzz oracle under tests/fuzz/ (resolved where the oracle is in the tree).
      EXPECT_EQ(item.evidence.kind, EvidenceKind::fuzz_oracle) << where;
      continue;
    }
    ++onednn;
    EXPECT_EQ(item.status, EvidenceStatus::resolved) << where << ": " << item.detail;
    if (item.field == ContractField::vjp) {
      EXPECT_EQ(item.file, "tests/runtime/onednn/forward_only_test.cpp") << where;
      EXPECT_NE(suite_named(item.target), nullptr) << where;
    }
  }
#ifdef NNPLAN_HAVE_ONEDNN
  EXPECT_EQ(onednn, 3 * backend::onednn_module().capsules.size());
#else
  EXPECT_EQ(onednn, 0u);
#endif
}

TEST(EvidenceResolution, NoMaintainedProfileHasUnresolvedEvidence) {
  for (std::size_t p = 0; p < backend::kMaintainedProfileNames.size(); ++p) {
    const backend::BackendProfile profile =
        backend::make_profile(static_cast<backend::MaintainedProfile>(p));
    const auto items = resolve_evidence(*profile.registry, builtin_handlers());
    const auto counts = evidence_counts(items);
    EXPECT_EQ(counts[static_cast<std::size_t>(EvidenceStatus::unresolved)], 0u) << profile.name;
    EXPECT_EQ(counts[static_cast<std::size_t>(EvidenceStatus::external)], 0u) << profile.name;
    // Four rows resolve for each capsule of the profile this build has a handler for.
    std::size_t handled = 0;
    for (const backend::KernelCapsule& c : profile.registry->capsules()) {
      handled += builtin_handlers().find(c) != nullptr ? 1 : 0;
    }
    EXPECT_EQ(counts[static_cast<std::size_t>(EvidenceStatus::resolved)], 4 * handled)
        << profile.name;
  }
}

TEST(EvidenceResolution, ConvLinesSayWhereTheyResolve) {
  const backend::Registry& registry = backend::builtin_registry();
  const std::vector<EvidenceItem> items = resolve_evidence(registry, builtin_handlers());
  std::vector<EvidenceItem> conv;
  for (const EvidenceItem& item : items) {
    if (registry.capsule(item.capsule).name == "reference.conv") conv.push_back(item);
  }
  ASSERT_EQ(conv.size(), 4u);
  EXPECT_EQ(conv[0].detail, "guard registered by handler nnplan::runtime::reference::conv_forward");
  EXPECT_EQ(conv[1].target, "reference.conv.layout_guard");
  EXPECT_EQ(conv[2].detail,
            "GoogleTest suite reference_conv_forward_tests in "
            "tests/runtime/reference/convolution_test.cpp (ctest --test-dir build -R "
            "nnplan_tests, or build/bin/nnplan_tests "
            "--gtest_filter='reference_conv_forward_tests.*')");
  EXPECT_EQ(conv[3].target, "reference_conv_vjp_tests");
  EXPECT_EQ(conv[3].file, "tests/runtime/reference/convolution_test.cpp");
}

TEST(EvidenceResolution, ListedSourcesExistInTheRepository) {
  const EvidenceSources sources = this_build_sources();
  const std::filesystem::path root = NNPLAN_SOURCE_DIR;
  EXPECT_GT(sources.test_files.size(), 50u);
  for (std::string_view file : sources.test_files) {
    EXPECT_TRUE(std::filesystem::is_regular_file(root / file)) << file;
  }
  for (std::string_view file : sources.fuzz_targets) {
    EXPECT_TRUE(file.starts_with("tests/fuzz/") && file.ends_with(".cpp")) << file;
    EXPECT_TRUE(std::filesystem::is_regular_file(root / file)) << file;
  }
  for (std::string_view name : sources.oracles)
    EXPECT_TRUE(name.starts_with("onednn.") && name.ends_with(".oracle")) << name;
  EXPECT_TRUE(std::filesystem::is_regular_file(root / kConformanceTable));
  EXPECT_NE(std::ranges::find(sources.oracles, "onednn.conv.oracle"), sources.oracles.end());
  EXPECT_NE(std::ranges::find(sources.test_files, "tests/runtime/evidence_test.cpp"),
            sources.test_files.end());
  EXPECT_NE(std::ranges::find(sources.fuzz_targets, "tests/fuzz/fuzz_registry.cpp"),
            sources.fuzz_targets.end());
}

// SPEC §12: every onednn capsule's value evidence is a fuzz oracle, a row of the conformance
// table this build compiles, whether or not the build links oneDNN.
TEST(EvidenceResolution, EveryOnednnValueOracleIsARowOfTheConformanceTable) {
  const EvidenceSources sources = this_build_sources();
  const backend::CapsuleModule module = backend::onednn_module();
  ASSERT_FALSE(module.capsules.empty());
  for (const KernelCapsule& capsule : module.capsules) {
    const backend::Evidence& evidence = capsule.value.evidence;
    EXPECT_EQ(evidence.kind, EvidenceKind::fuzz_oracle) << capsule.name;
    EXPECT_EQ(evidence.name, capsule.name + ".oracle");
    EXPECT_NE(std::ranges::find(sources.oracles, evidence.name), sources.oracles.end())
        << capsule.name;
  }
}

TEST(EvidenceResolution, EveryReferenceCapsuleAGraphReachesHasAHandler) {
  const backend::Registry& registry = backend::builtin_registry();
  const HandlerRegistry& handlers = builtin_handlers();
  std::vector<BackendOp> reachable;
  for (std::size_t k = 0; k < ir::kOpKindCount; ++k) {
    if (auto op = backend::backend_op_of(static_cast<ir::OpKind>(k))) reachable.push_back(*op);
  }
  std::vector<std::string> planning_only;
  for (backend::CapsuleId id = 0; id < registry.size(); ++id) {
    const KernelCapsule& c = registry.capsule(id);
    if (c.provider != Provider::reference) continue;
    const bool reached = std::ranges::find(reachable, c.op) != reachable.end();
    EXPECT_EQ(graph_reaches(c.op), reached) << c.name;
    if (reached) {
      EXPECT_NE(handlers.find(c), nullptr) << c.name << " is reachable from a graph";
      continue;
    }
    planning_only.push_back(c.name);
    EXPECT_EQ(handlers.find(c), nullptr) << c.name;
    for (const EvidenceItem& item :
         resolve_capsule_evidence(c, id, origin_of(registry, id), handlers, this_build_sources())) {
      EXPECT_EQ(item.status, EvidenceStatus::declared_not_built) << c.name;
      EXPECT_EQ(item.detail, "no graph op lowers to " + std::string(to_string(c.op)) +
                                 ", so this build has no handler for " + c.name +
                                 "; it is kept for planning");
    }
  }
  EXPECT_EQ(planning_only,
            (std::vector<std::string>{"reference.scatter_add", "reference.smooth_max_pool"}));
}

TEST(EvidenceResolution, CapsulesWithoutKernelsHereAreDeclaredNotBuilt) {
  const backend::BackendProfile profile =
      backend::make_profile(backend::MaintainedProfile::libtorch_forward_cuda);
  const backend::Registry& registry = *profile.registry;
  std::size_t seen = 0;
  bool flash = false;
  bool libtorch = false;
  for (const EvidenceItem& item : resolve_evidence(registry, builtin_handlers())) {
    const KernelCapsule& c = registry.capsule(item.capsule);
    if (c.provider == Provider::reference) continue;
    ++seen;
    flash = flash || c.name == "native_cuda.flash_attention";
    libtorch = libtorch || c.name == "libtorch.sdpa_forward";
    EXPECT_TRUE(origin_of(registry, item.capsule).built_in) << c.name;
    EXPECT_EQ(item.status, EvidenceStatus::declared_not_built) << c.name;
    EXPECT_EQ(item.detail,
              "this build has no handler for " + c.name + " (provider " +
                  std::string(to_string(c.provider)) + ", device cuda); it is kept " +
                  "for planning and run refuses it as unprobed-provider or unbound-capsule");
    EXPECT_TRUE(item.target.empty() && item.file.empty() && item.guard == nullptr) << c.name;
  }
  EXPECT_TRUE(flash);
  EXPECT_TRUE(libtorch);
  EXPECT_GT(seen, 4u * 40u);
}

TEST(EvidenceResolution, RegistryFileCapsulesAreExternal) {
  const std::string path =
      std::string(NNPLAN_SOURCE_DIR) + "/tests/fuzz/corpus/fuzz_registry/acme.json";
  auto modules = format::read_registry_file(path);
  ASSERT_TRUE(modules) << modules.error().message;
  // A file's copy of the built-in reference module replaces it and is the user's word too, though
  // a handler exists for its identities.
  auto copy = format::parse_registry_json(
      format::write_registry_json(std::vector{backend::reference_module()}), "copy.json");
  ASSERT_TRUE(copy) << copy.error().message;
  modules->push_back(std::move(copy->front()));
  auto registry = backend::builtin_registry().with_modules(std::move(*modules));
  ASSERT_TRUE(registry) << registry.error().message;
  std::size_t acme = 0;
  std::size_t reference = 0;
  for (const EvidenceItem& item : resolve_evidence(*registry, builtin_handlers())) {
    const std::string& module = registry->module_of(item.capsule);
    if (module == "acme") {
      ++acme;
      EXPECT_EQ(item.status, EvidenceStatus::external);
      EXPECT_EQ(item.detail, "capsule of module 'acme' from " + path +
                                 ": the user's word; nnplan does not resolve it");
    } else if (module == "reference") {
      ++reference;
      EXPECT_EQ(item.status, EvidenceStatus::external);
      EXPECT_EQ(item.detail,
                "capsule of module 'reference' from copy.json: the user's word; nnplan does not "
                "resolve it");
    } else {
      EXPECT_TRUE(origin_of(*registry, item.capsule).built_in) << module;
    }
  }
  EXPECT_EQ(acme, 4u);
  EXPECT_EQ(reference, 4 * backend::reference_module().capsules.size());
  // A module made in code that is not one of nnplan's is external as well.
  backend::CapsuleModule made{.name = "made", .capsules = {builtin_capsule("reference.relu")}};
  made.capsules[0].name = "made.relu";
  auto with_made = backend::Registry::create({made});
  ASSERT_TRUE(with_made);
  EXPECT_EQ(resolve_evidence(*with_made, builtin_handlers())[2].detail,
            "capsule of module 'made' not built into nnplan: the user's word; nnplan does not "
            "resolve it");
}

void planted_forward(const KernelCall&) {}
Expected<void> planted_shape_guard(const KernelCall&) {
  return {};
}
Expected<void> planted_layout_guard(const KernelCall&) {
  return {};
}

backend::ContractDescriptor& contract_of(KernelCapsule& c, ContractField field) {
  switch (field) {
    case ContractField::shape:
      return c.shape;
    case ContractField::layout:
      return c.layout;
    case ContractField::value:
      return c.value;
    case ContractField::vjp:
      break;
  }
  return c.vjp;
}

struct PlantedEvidence {
  EvidenceKind kind;
  std::string_view name;
};

struct PlantedCase {
  std::string_view label;
  ContractField field;
  PlantedEvidence evidence;
  std::string_view forward_file;
  std::string_view vjp_file;
  EvidenceStatus status;
  std::string_view target;
  std::string_view detail;
};

TEST(EvidenceResolution, PlantedEvidenceResolvesOnlyToWhatExists) {
  const std::string_view here = "tests/runtime/evidence_test.cpp";
  const std::string_view missing = "tests/runtime/reference/missing_test.cpp";
  const PlantedCase cases[] = {
      {"own guard",
       ContractField::shape,
       {EvidenceKind::runtime_guard, "reference.relu.shape_guard"},
       here,
       here,
       EvidenceStatus::resolved,
       "reference.relu.shape_guard",
       "guard registered by handler planted::relu_forward"},
      {"unregistered guard",
       ContractField::shape,
       {EvidenceKind::runtime_guard, "reference.relu.bounds_guard"},
       here,
       here,
       EvidenceStatus::unresolved,
       "",
       "no guard named reference.relu.bounds_guard is registered in this build; the handler "
       "planted::relu_forward registers reference.relu.shape_guard and "
       "reference.relu.layout_guard"},
      {"another capsule's guard",
       ContractField::layout,
       {EvidenceKind::runtime_guard, "reference.add.layout_guard"},
       here,
       here,
       EvidenceStatus::unresolved,
       "",
       "guard reference.add.layout_guard is registered by the handler of capsule reference.add, "
       "not by this capsule's handler planted::relu_forward"},
      {"suite in a listed file",
       ContractField::value,
       {EvidenceKind::test_suite, "reference.relu.forward_tests"},
       here,
       missing,
       EvidenceStatus::resolved,
       "reference_relu_forward_tests",
       "GoogleTest suite reference_relu_forward_tests in tests/runtime/evidence_test.cpp (ctest "
       "--test-dir build -R nnplan_tests, or build/bin/nnplan_tests "
       "--gtest_filter='reference_relu_forward_tests.*')"},
      {"suite file missing",
       ContractField::vjp,
       {EvidenceKind::test_suite, "reference.relu.vjp_tests"},
       here,
       missing,
       EvidenceStatus::unresolved,
       "",
       "the handler planted::relu_forward names tests/runtime/reference/missing_test.cpp for "
       "GoogleTest suite reference_relu_vjp_tests, which is not a source of nnplan_tests in this "
       "build"},
      {"no suite file named",
       ContractField::vjp,
       {EvidenceKind::test_suite, "reference.relu.vjp_tests"},
       here,
       "",
       EvidenceStatus::unresolved,
       "",
       "the handler planted::relu_forward of capsule reference.relu names no file for its vjp "
       "tests; set its TestSuiteRef to the file defining GoogleTest suite "
       "reference_relu_vjp_tests"},
      {"listed fuzz target",
       ContractField::value,
       {EvidenceKind::fuzz_oracle, "reference.relu.value_fuzz"},
       here,
       here,
       EvidenceStatus::resolved,
       "tests/fuzz/reference_relu_value_fuzz.cpp",
       "fuzz target tests/fuzz/reference_relu_value_fuzz.cpp (built with -DNNPLAN_FUZZ=ON)"},
      {"unlisted fuzz target",
       ContractField::value,
       {EvidenceKind::fuzz_oracle, "reference.relu.other_fuzz"},
       here,
       here,
       EvidenceStatus::unresolved,
       "",
       "no fuzz target tests/fuzz/reference_relu_other_fuzz.cpp and no row "
       "reference.relu.other_fuzz of the conformance table tests/oracles/conformance_table.cpp in "
       "this build; add a libFuzzer target under tests/fuzz/ or a row to the table"},
      {"listed conformance row",
       ContractField::value,
       {EvidenceKind::fuzz_oracle, "reference.relu.oracle"},
       here,
       here,
       EvidenceStatus::resolved,
       "tests/oracles/conformance_table.cpp",
       "conformance row reference.relu.oracle in tests/oracles/conformance_table.cpp (ctest "
       "--test-dir build -R conformance, or build/bin/nnplan_oracles reference.relu.oracle "
       "[--cases N] [--seed S])"},
      {"no row in the conformance table",
       ContractField::value,
       {EvidenceKind::fuzz_oracle, "reference.relu.unbuilt_oracle"},
       here,
       here,
       EvidenceStatus::unresolved,
       "",
       "no fuzz target tests/fuzz/reference_relu_unbuilt_oracle.cpp and no row "
       "reference.relu.unbuilt_oracle of the conformance table tests/oracles/conformance_table.cpp "
       "in this build; add a libFuzzer target under tests/fuzz/ or a row to the table"},
      {"theorem",
       ContractField::value,
       {EvidenceKind::theorem, "Relu.refines"},
       here,
       here,
       EvidenceStatus::not_checkable,
       "",
       "a theorem named by the capsule; nnplan does not check proofs"},
      {"checker",
       ContractField::shape,
       {EvidenceKind::checker, "shape_checker"},
       here,
       here,
       EvidenceStatus::not_checkable,
       "",
       "a checker named by the capsule; nnplan does not run it"},
      {"trusted boundary",
       ContractField::value,
       {EvidenceKind::trusted_boundary, "vendor code"},
       here,
       here,
       EvidenceStatus::not_checkable,
       "",
       "trusted boundary: the capsule's word"},
      {"not provided",
       ContractField::vjp,
       {EvidenceKind::not_provided, ""},
       here,
       here,
       EvidenceStatus::not_checkable,
       "",
       "no evidence recorded"},
  };
  const std::vector<std::string_view> test_files = {here};
  const std::vector<std::string_view> fuzz_targets = {"tests/fuzz/reference_relu_value_fuzz.cpp"};
  const std::vector<std::string_view> oracles = {"reference.relu.oracle"};
  const EvidenceSources sources{
      .test_files = test_files, .fuzz_targets = fuzz_targets, .oracles = oracles};
  const CapsuleOrigin origin{.module = "reference", .source = "", .built_in = true};
  for (const PlantedCase& tc : cases) {
    HandlerRegistry handlers;
    const HandlerDefinition planted{.symbol = "planted::relu_forward",
                                    .forward = planted_forward,
                                    .shape_guard = planted_shape_guard,
                                    .layout_guard = planted_layout_guard,
                                    .forward_tests = {.source = tc.forward_file},
                                    .vjp_tests = {.source = tc.vjp_file}};
    KernelCapsule capsule = builtin_capsule("reference.relu");
    ASSERT_TRUE(handlers.add(identity_of(capsule), planted));
    ASSERT_TRUE(handlers.add(identity_of(builtin_capsule("reference.add")),
                             HandlerDefinition{.symbol = "planted::add_forward",
                                               .forward = planted_forward,
                                               .shape_guard = planted_shape_guard,
                                               .layout_guard = planted_layout_guard}));
    const backend::Evidence evidence{tc.evidence.kind, std::string(tc.evidence.name)};
    contract_of(capsule, tc.field).evidence = evidence;
    const CapsuleEvidence items = resolve_capsule_evidence(capsule, 7, origin, handlers, sources);
    const EvidenceItem& item = items[static_cast<std::size_t>(tc.field)];
    EXPECT_EQ(item.capsule, 7u) << tc.label;
    EXPECT_EQ(item.evidence, evidence) << tc.label;
    EXPECT_EQ(item.status, tc.status) << tc.label;
    EXPECT_EQ(item.target, tc.target) << tc.label;
    EXPECT_EQ(item.detail, tc.detail) << tc.label;
    const bool own_guard = tc.label == "own guard";
    EXPECT_EQ(item.guard, own_guard ? planted_shape_guard : nullptr) << tc.label;
  }
}

TEST(EvidenceResolution, CountsPerStatus) {
  std::vector<EvidenceItem> items(6);
  items[0].status = EvidenceStatus::resolved;
  items[1].status = EvidenceStatus::resolved;
  items[2].status = EvidenceStatus::external;
  items[3].status = EvidenceStatus::not_checkable;
  items[4].status = EvidenceStatus::declared_not_built;
  items[5].status = EvidenceStatus::resolved;
  EXPECT_EQ(evidence_counts(items), (std::array<std::size_t, kEvidenceStatusCount>{3, 0, 1, 1, 1}));
  EXPECT_EQ(gtest_suite_name("a.b.c_d"), "a_b_c_d");
  EXPECT_EQ(fuzz_target_file("onednn.conv.oracle"), "tests/fuzz/onednn_conv_oracle.cpp");
  EXPECT_EQ(to_string(EvidenceStatus::declared_not_built), "declared-not-built");
}

}  // namespace
}  // namespace nnplan::runtime
