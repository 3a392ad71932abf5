// Registry (SPEC §4): ordered modules flattened in order, the two duplicate rules with their exact
// messages, replacement by module name (new modules first), and the per-op index.
#include "nnplan/backend/registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"
#include "nnplan/backend/builtin_modules.hpp"
#include "nnplan/backend/planner.hpp"

namespace nnplan::backend {
namespace {

using fixtures::aligned_capsule;

KernelCapsule cap(std::string name, BackendOp op = BackendOp::relu,
                  Provider provider = Provider::reference, Device device = Device::cpu) {
  return aligned_capsule(std::move(name), op, provider, device);
}

std::vector<std::string> module_names(const Registry& r) {
  std::vector<std::string> out;
  for (const CapsuleModule& m : r.modules())
    out.push_back(m.name);
  return out;
}

std::vector<std::string> capsule_names(const Registry& r) {
  std::vector<std::string> out;
  for (const KernelCapsule& c : r.capsules())
    out.push_back(c.name);
  return out;
}

struct CreateCase {
  std::string name;
  std::vector<CapsuleModule> modules;
  std::optional<std::string> error;  // exact message, or nullopt when valid
};

void PrintTo(const CreateCase& c, std::ostream* os) {
  *os << c.name;
}

class RegistryCreateTest : public ::testing::TestWithParam<CreateCase> {};

TEST_P(RegistryCreateTest, Validation) {
  const CreateCase& c = GetParam();
  auto r = Registry::create(c.modules);
  if (!c.error) {
    ASSERT_TRUE(r.has_value()) << r.error().message;
    return;
  }
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, ErrorKind::already_exists);
  EXPECT_EQ(r.error().message, *c.error);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, RegistryCreateTest,
    ::testing::Values(
        CreateCase{"empty", {}, std::nullopt},
        CreateCase{"empty_module", {{"m", {}}}, std::nullopt},
        CreateCase{"distinct", {{"a", {cap("a.relu")}}, {"b", {cap("b.relu")}}}, std::nullopt},
        CreateCase{"duplicate_module_name",
                   {{"acme", {cap("a.relu")}}, {"acme", {cap("b.relu")}}},
                   "duplicate backend capsule module 'acme'"},
        CreateCase{"duplicate_empty_modules",
                   {{"acme", {}}, {"acme", {}}},
                   "duplicate backend capsule module 'acme'"},
        CreateCase{"duplicate_identity_within_module",
                   {{"acme", {cap("x.relu"), cap("x.relu")}}},
                   "duplicate backend capsule identity 'x.relu' (op relu, provider reference, "
                   "device cpu) twice in module 'acme'"},
        CreateCase{"duplicate_identity_across_modules",
                   {{"a", {cap("x.relu")}}, {"b", {cap("y.relu"), cap("x.relu")}}},
                   "duplicate backend capsule identity 'x.relu' (op relu, provider reference, "
                   "device cpu) in module 'b'; module 'a' holds it too"},
        CreateCase{"identity_ignores_other_fields",
                   {{"a",
                     {aligned_capsule("x.relu", BackendOp::relu, Provider::reference, Device::cpu,
                                      TrustLevel::checked),
                      aligned_capsule("x.relu", BackendOp::relu, Provider::reference, Device::cpu,
                                      TrustLevel::verified, VjpMode::backend_vjp)}}},
                   "duplicate backend capsule identity 'x.relu' (op relu, provider reference, "
                   "device cpu) twice in module 'a'"},
        // Different providers (or devices, or ops) may share a name and an op.
        CreateCase{"same_name_other_provider",
                   {{"a", {cap("x.relu"), cap("x.relu", BackendOp::relu, Provider::torchlean)}}},
                   std::nullopt},
        CreateCase{
            "same_name_other_device",
            {{"a",
              {cap("x.relu"), cap("x.relu", BackendOp::relu, Provider::reference, Device::cuda)}}},
            std::nullopt},
        CreateCase{
            "same_name_other_op", {{"a", {cap("x"), cap("x", BackendOp::gelu)}}}, std::nullopt},
        CreateCase{
            "same_op_many_providers",
            {{"a", {cap("r.relu")}}, {"b", {cap("t.relu", BackendOp::relu, Provider::torchlean)}}},
            std::nullopt},
        // The module rule is checked as modules come, before a later identity clash.
        CreateCase{"module_name_reported_first",
                   {{"a", {cap("x.relu")}}, {"a", {cap("x.relu")}}},
                   "duplicate backend capsule module 'a'"}),
    [](const ::testing::TestParamInfo<CreateCase>& info) { return info.param.name; });

// With sources, the message leads with the file of the module it is about: the one read from a
// file when the other was not, else the later one.
TEST(Registry, DuplicatesNameTheSourcesOfTheirModules) {
  const auto from = [](std::string name, std::string source) {
    return CapsuleModule{
        .name = std::move(name), .capsules = {cap("x.relu")}, .source = std::move(source)};
  };
  struct Case {
    std::vector<CapsuleModule> modules;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{from("f", "r.json"), from("b", "")},
       "r.json: duplicate backend capsule identity 'x.relu' (op relu, provider reference, device "
       "cpu) in module 'f'; built-in module 'b' holds it too"},
      {{from("b", ""), from("f", "r.json")},
       "r.json: duplicate backend capsule identity 'x.relu' (op relu, provider reference, device "
       "cpu) in module 'f'; built-in module 'b' holds it too"},
      {{from("f", "r.json"), from("g", "r.json")},
       "r.json: duplicate backend capsule identity 'x.relu' (op relu, provider reference, device "
       "cpu) in module 'g'; module 'f' holds it too"},
      {{from("f", "a.json"), from("g", "b.json")},
       "b.json: duplicate backend capsule identity 'x.relu' (op relu, provider reference, device "
       "cpu) in module 'g'; module 'f' of a.json holds it too"},
      {{CapsuleModule{.name = "m", .capsules = {}, .source = "a.json"},
        CapsuleModule{.name = "m", .capsules = {}, .source = "b.json"}},
       "b.json: duplicate backend capsule module 'm'; a.json has a module of that name too"},
      {{CapsuleModule{.name = "m", .capsules = {}, .source = ""},
        CapsuleModule{.name = "m", .capsules = {}, .source = "b.json"}},
       "b.json: duplicate backend capsule module 'm'"},
  };
  for (const Case& c : cases) {
    auto r = Registry::create(c.modules);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().kind, ErrorKind::already_exists);
    EXPECT_EQ(r.error().message, c.message);
    EXPECT_TRUE(r.error().context.empty());
  }
}

TEST(Registry, FlattensInModuleOrder) {
  auto r = Registry::create({{"first", {cap("f1"), cap("f2", BackendOp::add)}},
                             {"second", {}},
                             {"third", {cap("t1", BackendOp::add), cap("t2")}}});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(capsule_names(*r), (std::vector<std::string>{"f1", "f2", "t1", "t2"}));
  EXPECT_EQ(module_names(*r), (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_EQ(r->size(), 4u);
  EXPECT_EQ(r->module_of(0), "first");
  EXPECT_EQ(r->module_of(1), "first");
  EXPECT_EQ(r->module_of(2), "third");
  EXPECT_EQ(r->module_of(3), "third");
  EXPECT_EQ(r->capsule(2).name, "t1");
}

// implementing(op) lists exactly the capsules of that op, in registry order, for every op.
TEST(Registry, ImplementingIsTheOrderedFilter) {
  for (const Registry* r : {&builtin_registry()}) {
    for (std::size_t i = 0; i < kBackendOpCount; ++i) {
      const auto op = static_cast<BackendOp>(i);
      std::vector<CapsuleId> expected;
      for (CapsuleId id = 0; id < r->size(); ++id) {
        if (r->capsule(id).op == op) expected.push_back(id);
      }
      const auto got = r->implementing(op);
      EXPECT_EQ(std::vector<CapsuleId>(got.begin(), got.end()), expected) << to_string(op);
    }
  }
}

TEST(Registry, ImplementingKeepsInterleavedOrder) {
  auto r = Registry::create(
      {{"m",
        {cap("r1"), cap("a1", BackendOp::add), cap("r2"), cap("a2", BackendOp::add), cap("r3")}},
       {"n", {cap("r4"), cap("m1", BackendOp::matmul)}}});
  ASSERT_TRUE(r.has_value());
  auto names = [&](BackendOp op) {
    std::vector<std::string> out;
    for (CapsuleId id : r->implementing(op))
      out.push_back(r->capsule(id).name);
    return out;
  };
  EXPECT_EQ(names(BackendOp::relu), (std::vector<std::string>{"r1", "r2", "r3", "r4"}));
  EXPECT_EQ(names(BackendOp::add), (std::vector<std::string>{"a1", "a2"}));
  EXPECT_EQ(names(BackendOp::matmul), (std::vector<std::string>{"m1"}));
  EXPECT_TRUE(names(BackendOp::gelu).empty());
  EXPECT_TRUE(names(BackendOp::rand_uniform).empty());
  EXPECT_TRUE(names(BackendOp::scaled_dot_product_attention).empty());
}

TEST(Registry, EmptyRegistry) {
  auto r = Registry::create({});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->size(), 0u);
  for (std::size_t i = 0; i < kBackendOpCount; ++i) {
    EXPECT_TRUE(r->implementing(static_cast<BackendOp>(i)).empty());
  }
}

struct ReplaceCase {
  std::string name;
  std::vector<CapsuleModule> added;
  std::vector<std::string> modules;
};

void PrintTo(const ReplaceCase& c, std::ostream* os) {
  *os << c.name;
}

class WithModulesTest : public ::testing::TestWithParam<ReplaceCase> {};

// Base registry: a, b, c.
Registry abc() {
  return Registry::create({{"a", {cap("a.relu")}}, {"b", {cap("b.relu")}}, {"c", {cap("c.relu")}}})
      .value();
}

TEST_P(WithModulesTest, NewFirstSameNameReplaced) {
  const ReplaceCase& c = GetParam();
  auto r = abc().with_modules(c.added);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(module_names(*r), c.modules);
  // Exactly one module per name.
  for (const std::string& name : c.modules) {
    EXPECT_EQ(std::ranges::count(c.modules, name), 1) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, WithModulesTest,
    ::testing::Values(
        ReplaceCase{"nothing_added", {}, {"a", "b", "c"}},
        ReplaceCase{"new_module_first", {{"z", {cap("z.relu")}}}, {"z", "a", "b", "c"}},
        ReplaceCase{"replace_middle", {{"b", {cap("b2.relu")}}}, {"b", "a", "c"}},
        ReplaceCase{"replace_last", {{"c", {}}}, {"c", "a", "b"}},
        ReplaceCase{"replace_and_add",
                    {{"y", {cap("y.relu")}}, {"a", {cap("a2.relu")}}},
                    {"y", "a", "b", "c"}},
        ReplaceCase{"replace_all",
                    {{"c", {cap("c.relu")}}, {"b", {cap("b.relu")}}, {"a", {cap("a.relu")}}},
                    {"c", "b", "a"}}),
    [](const ::testing::TestParamInfo<ReplaceCase>& info) { return info.param.name; });

TEST(WithModules, ReplacementDropsTheOldCapsules) {
  auto r = abc().with_modules({{"b", {cap("b2.relu")}}});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(capsule_names(*r), (std::vector<std::string>{"b2.relu", "a.relu", "c.relu"}));
  // Replacing with the very same identities is not a duplicate.
  auto same = abc().with_modules({{"a", {cap("a.relu")}}});
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(capsule_names(*same), (std::vector<std::string>{"a.relu", "b.relu", "c.relu"}));
}

TEST(WithModules, ErrorsAreValidatedLikeCreate) {
  auto clash = abc().with_modules({{"z", {cap("b.relu")}}});
  ASSERT_FALSE(clash.has_value());
  EXPECT_EQ(clash.error().message,
            "duplicate backend capsule identity 'b.relu' (op relu, provider reference, device cpu) "
            "in module 'b'; module 'z' holds it too");
  auto twice = abc().with_modules({{"z", {}}, {"z", {}}});
  ASSERT_FALSE(twice.has_value());
  EXPECT_EQ(twice.error().message, "duplicate backend capsule module 'z'");
}

// A replacement module's capsule is the one the planner chooses.
TEST(WithModules, ReplacementCapsuleIsChosen) {
  KernelCapsule replacement = cap("reference.relu");
  replacement.notes = "replacement";
  replacement.trust_level = TrustLevel::verified;
  auto r = builtin_registry().with_modules({{"reference", {replacement}}});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(module_names(*r), (std::vector<std::string>{"reference", "attention", "native-cuda"}));
  EXPECT_EQ(r->size(), 1u + 2u + 44u);
  auto planned = plan_op(ExecutionConfig{}, *r, BackendOp::relu);
  ASSERT_TRUE(planned.has_value());
  EXPECT_EQ(r->capsule(planned->capsule).notes, "replacement");
  EXPECT_EQ(r->module_of(planned->capsule), "reference");
  // The replaced module's other capsules are gone: gelu has no cpu capsule any more.
  EXPECT_FALSE(plan_op(ExecutionConfig{}, *r, BackendOp::gelu).has_value());
}

// A new module put first wins over the built-in capsule of the same op.
TEST(WithModules, NewModuleCapsuleIsChosenFirst) {
  auto r = builtin_registry().with_modules(
      {{"acme", {cap("acme.relu", BackendOp::relu, Provider::torchlean)}}});
  ASSERT_TRUE(r.has_value());
  auto planned = plan_op(ExecutionConfig{}, *r, BackendOp::relu);
  ASSERT_TRUE(planned.has_value());
  EXPECT_EQ(r->capsule(planned->capsule).name, "acme.relu");
}

}  // namespace
}  // namespace nnplan::backend
