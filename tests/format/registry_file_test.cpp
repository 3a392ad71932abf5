// Registry files `nnplan.capsules.v1` (SPEC §4): the canonical writer round-trips the built-in
// modules byte for byte, the SPEC example reads field by field, optional fields take their
// defaults, misaligned capsules are kept, and every malformed document is an invalid_input error
// whose one-line message names the source, module, capsule and field.
#include "nnplan/format/registry_file.hpp"
#include "nnplan/format/limits.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "nnplan/backend/builtin_modules.hpp"
#include "registry_fixtures.hpp"

namespace nnplan::format {
namespace {

using namespace nnplan::backend;
using fixtures::kMinimalRegistry;
using Json = nlohmann::ordered_json;

// SPEC §4's example, verbatim.
constexpr std::string_view kSpecExample = R"json({"format": "nnplan.capsules.v1",
 "modules": [{"name": "acme", "capsules": [{
   "name": "acme.relu", "op": "relu", "provider": "external", "device": "external",
   "trust": "checked", "supports_forward": true, "vjp": "torchlean-tape",
   "contracts": {
     "shape":  {"claim": {"kind": "shape-safety", "op": "relu"},
                "summary": "...", "evidence": {"kind": "runtime-guard", "name": "..."}},
     "layout": {"claim": {"kind": "layout-compatibility", "op": "relu", "layout": "flat-row-major"},
                "summary": "...", "evidence": {"kind": "runtime-guard", "name": "..."}},
     "value":  {"claim": {"kind": "value-refinement", "op": "relu", "spec": "Spec.relu"},
                "summary": "...", "evidence": {"kind": "test-suite", "name": "..."}},
     "vjp":    {"claim": {"kind": "vjp-refinement", "op": "relu", "spec": "Spec.relu",
                          "mode": "torchlean-tape"},
                "summary": "...", "evidence": {"kind": "test-suite", "name": "..."},
                "provenance": [{"kind": "native-symbol", "path": "...", "symbol": "...",
                                "build_target": "..."}]}},
   "numerical": {"rounding": "nearest-even", "subnormals": "implementation-defined",
                 "contraction": "n/a", "reduction": "n/a"},
   "notes": ""}]}]}
)json";

std::filesystem::path data_dir() {
  return std::filesystem::path(NNPLAN_SOURCE_DIR) / "tests" / "data" / "registries";
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The SPEC example after an RFC 6902 JSON patch, e.g. a removal or a replaced value.
std::string patched(std::string_view patch) {
  return Json::parse(kSpecExample).patch(Json::parse(patch)).dump();
}

// The SPEC example with its first occurrence of `from` replaced by `to`.
std::string edited(std::string_view from, std::string_view to) {
  std::string text(kSpecExample);
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

ContractDescriptor spec_descriptor(Claim claim, EvidenceKind evidence) {
  return {.claim = std::move(claim),
          .summary = "...",
          .evidence = {.kind = evidence, .name = "..."},
          .provenance = {}};
}

// ---------------------------------------------------------------------------------------------
// Round trips and the canonical form.

std::vector<CapsuleModule> builtins_with_libtorch() {
  std::vector<CapsuleModule> modules = builtin_modules();
  modules.push_back(libtorch_module());
  return modules;
}

// `modules` as read from `source`: the reader records where each module came from.
std::vector<CapsuleModule> read_from(std::vector<CapsuleModule> modules, std::string_view source) {
  for (CapsuleModule& m : modules)
    m.source = std::string(source);
  return modules;
}

TEST(RegistryFileRoundTrip, BuiltinsAndLibtorchReadBackEqual) {
  const std::vector<CapsuleModule> modules = builtins_with_libtorch();
  const std::string text = write_registry_json(modules);
  const auto parsed = parse_registry_json(text, "<memory>");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(*parsed, read_from(modules, "<memory>"));
  EXPECT_EQ(write_registry_json(*parsed), text);
}

TEST(RegistryFileRoundTrip, FusedCapsulesKeepTheirPattern) {
  const std::vector<CapsuleModule> modules = {backend::onednn_module()};
  const std::string text = write_registry_json(modules);
  EXPECT_NE(text.find(R"("pattern": [)"), std::string::npos);
  const auto parsed = parse_registry_json(text, "<memory>");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(*parsed, read_from(modules, "<memory>"));
  EXPECT_EQ(write_registry_json(*parsed), text);
  // A capsule of one op writes no pattern field.
  const std::vector<CapsuleModule> plain = {backend::reference_module()};
  EXPECT_EQ(write_registry_json(plain).find("pattern"), std::string::npos);
}

TEST(RegistryFileRoundTrip, CanonicalTextIsAFixedPoint) {
  // Non-canonical input (SPEC spacing, defaults omitted) becomes canonical after one pass.
  for (const std::string_view input : {kSpecExample, kMinimalRegistry}) {
    const auto first = parse_registry_json(input, "<memory>");
    ASSERT_TRUE(first.has_value()) << first.error().message;
    const std::string canonical = write_registry_json(*first);
    const auto second = parse_registry_json(canonical, "<memory>");
    ASSERT_TRUE(second.has_value()) << second.error().message;
    EXPECT_EQ(*second, *first);
    EXPECT_EQ(write_registry_json(*second), canonical);
  }
}

// One capsule per evidence kind, provenance kind, trust, vjp mode and numerical spelling, so that
// every branch of the writer and the reader is exercised.
std::vector<CapsuleModule> kitchen_sink() {
  CapsuleModule m{.name = "sink", .capsules = {}};
  const EvidenceKind kinds[] = {EvidenceKind::theorem,       EvidenceKind::checker,
                                EvidenceKind::runtime_guard, EvidenceKind::test_suite,
                                EvidenceKind::fuzz_oracle,   EvidenceKind::trusted_boundary,
                                EvidenceKind::not_provided};
  for (std::size_t i = 0; i < std::size(kinds); ++i) {
    const auto op = static_cast<BackendOp>(i * 5 % kBackendOpCount);
    const auto vjp = static_cast<VjpMode>(i % 3);
    const std::string evidence_name =
        kinds[i] == EvidenceKind::not_provided ? "" : "evidence " + std::to_string(i);
    KernelCapsule c{
        .name = "sink.c" + std::to_string(i),
        .op = op,
        .provider = static_cast<Provider>(i * 3 % kProviderNames.size()),
        .device = static_cast<Device>(i % kDeviceNames.size()),
        .trust_level = static_cast<TrustLevel>(i % 4),
        .supports_forward = i % 2 == 0,
        .vjp_mode = vjp,
        .shape = {.claim = Claim::shape_safety(op),
                  .summary = "",
                  .evidence = {kinds[i], evidence_name},
                  .provenance = {{.kind = ProvenanceKind::source_file, .path = "a/b.cc"}}},
        .layout = {.claim = Claim::layout_compatibility(op, static_cast<Layout>(i % 3)),
                   .summary = "layout \"quoted\" \\ and ünïcode",
                   .evidence = {kinds[(i + 1) % 7],
                                kinds[(i + 1) % 7] == EvidenceKind::not_provided ? "" : "g"},
                   .provenance = {{.kind = ProvenanceKind::native_symbol,
                                   .path = "k.cu",
                                   .symbol = "k_fwd",
                                   .build_target = i % 2 == 0 ? "kernels" : ""}}},
        .value = {.claim = Claim::value_refinement(op, spec_name(op)),
                  .summary = "value",
                  .evidence = {kinds[(i + 2) % 7],
                               kinds[(i + 2) % 7] == EvidenceKind::not_provided ? "" : "t"},
                  .provenance = {{.kind = ProvenanceKind::note, .text = "see the design note"}}},
        .vjp = {.claim = Claim::vjp_refinement(op, vjp, spec_name(op)),
                .summary = "vjp",
                .evidence = {EvidenceKind::not_provided, ""},
                .provenance = {}},
        .numerical = {.rounding = static_cast<Rounding>(i % 5),
                      .subnormals = static_cast<Subnormals>(i % 4),
                      .contraction = static_cast<Contraction>(i % 5),
                      .reduction = static_cast<ReductionOrder>((i + 2) % 5)},
        .notes = i == 3 ? "line one\nline two" : "",
    };
    m.capsules.push_back(std::move(c));
  }
  return {m, CapsuleModule{.name = "empty", .capsules = {}}};
}

TEST(RegistryFileRoundTrip, EveryKindAndSpellingReadsBackEqual) {
  const std::vector<CapsuleModule> modules = kitchen_sink();
  const std::string text = write_registry_json(modules);
  const auto parsed = parse_registry_json(text, "<memory>");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(*parsed, read_from(modules, "<memory>"));
  EXPECT_EQ(write_registry_json(*parsed), text);
}

TEST(RegistryFileRoundTrip, EmptyModuleListIsValid) {
  const std::string text = write_registry_json({});
  EXPECT_EQ(text, "{\n  \"format\": \"nnplan.capsules.v1\",\n  \"modules\": []\n}\n");
  const auto parsed = parse_registry_json(text, "<memory>");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_TRUE(parsed->empty());
}

// The canonical export of the libtorch module, kept as a file and compared exactly: it pins key
// order, two-space indentation, the trailing newline, `build_target` and `provenance: []`.
TEST(RegistryFileWriter, LibtorchModuleMatchesCanonicalFile) {
  const CapsuleModule module = libtorch_module();
  const std::string expected = slurp(data_dir() / "libtorch.canonical.json");
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(write_registry_json({&module, 1}), expected);
}

TEST(RegistryFileWriter, KeysFollowSpecOrder) {
  const auto parsed = parse_registry_json(kMinimalRegistry, "<memory>");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  const Json doc = Json::parse(write_registry_json(*parsed));
  const auto keys = [](const Json& object) {
    std::vector<std::string> out;
    for (const auto& [key, value] : object.items())
      out.push_back(key);
    return out;
  };
  using Keys = std::vector<std::string>;
  EXPECT_EQ(keys(doc), (Keys{"format", "modules"}));
  EXPECT_EQ(keys(doc["modules"][0]), (Keys{"name", "capsules"}));
  const Json& capsule = doc["modules"][0]["capsules"][0];
  EXPECT_EQ(keys(capsule), (Keys{"name", "op", "provider", "device", "trust", "supports_forward",
                                 "vjp", "contracts", "numerical", "notes"}));
  EXPECT_EQ(keys(capsule["contracts"]), (Keys{"shape", "layout", "value", "vjp"}));
  EXPECT_EQ(keys(capsule["contracts"]["vjp"]),
            (Keys{"claim", "summary", "evidence", "provenance"}));
  EXPECT_EQ(keys(capsule["contracts"]["vjp"]["claim"]), (Keys{"kind", "op", "spec", "mode"}));
  EXPECT_EQ(keys(capsule["contracts"]["layout"]["claim"]), (Keys{"kind", "op", "layout"}));
  EXPECT_EQ(keys(capsule["contracts"]["vjp"]["evidence"]), (Keys{"kind"}));
  EXPECT_EQ(keys(capsule["numerical"]),
            (Keys{"rounding", "subnormals", "contraction", "reduction"}));
}

TEST(RegistryFileWriter, BuildTargetOnlyWhenSet) {
  CapsuleModule module = libtorch_module();
  module.capsules[0].value.provenance[0].build_target.clear();
  const std::string text = write_registry_json({&module, 1});
  EXPECT_EQ(text.find("build_target"), std::string::npos);
  const auto parsed = parse_registry_json(text, "<memory>");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->at(0), read_from({module}, "<memory>")[0]);
}

TEST(RegistryFileWriter, InvalidUtf8IsEscapedNotThrown) {
  CapsuleModule module = libtorch_module();
  module.capsules[0].notes = "bad \xff byte";
  const std::string text = write_registry_json({&module, 1});
  EXPECT_NE(text.find("bad \\\\xff byte"), std::string::npos) << text;
  EXPECT_TRUE(parse_registry_json(text, "<memory>").has_value());
}

// ---------------------------------------------------------------------------------------------
// Reading well-formed documents.

TEST(RegistryFileSpecExample, ParsesFieldByField) {
  const auto parsed = parse_registry_json(kSpecExample, "spec.json");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 1u);
  const CapsuleModule& module = parsed->at(0);
  EXPECT_EQ(module.name, "acme");
  ASSERT_EQ(module.capsules.size(), 1u);
  const KernelCapsule& c = module.capsules[0];
  EXPECT_EQ(c.name, "acme.relu");
  EXPECT_EQ(c.op, BackendOp::relu);
  EXPECT_EQ(c.provider, Provider::external);
  EXPECT_EQ(c.device, Device::external);
  EXPECT_EQ(c.trust_level, TrustLevel::checked);
  EXPECT_TRUE(c.supports_forward);
  EXPECT_EQ(c.vjp_mode, VjpMode::torchlean_tape);
  EXPECT_EQ(c.shape,
            spec_descriptor(Claim::shape_safety(BackendOp::relu), EvidenceKind::runtime_guard));
  EXPECT_EQ(c.layout,
            spec_descriptor(Claim::layout_compatibility(BackendOp::relu, Layout::flat_row_major),
                            EvidenceKind::runtime_guard));
  EXPECT_EQ(c.value, spec_descriptor(Claim::value_refinement(BackendOp::relu, "Spec.relu"),
                                     EvidenceKind::test_suite));
  ContractDescriptor vjp =
      spec_descriptor(Claim::vjp_refinement(BackendOp::relu, VjpMode::torchlean_tape, "Spec.relu"),
                      EvidenceKind::test_suite);
  vjp.provenance.push_back({.kind = ProvenanceKind::native_symbol,
                            .path = "...",
                            .symbol = "...",
                            .build_target = "...",
                            .text = ""});
  EXPECT_EQ(c.vjp, vjp);
  EXPECT_EQ(c.numerical, (NumericalPolicy{.rounding = Rounding::nearest_even,
                                          .subnormals = Subnormals::implementation_defined,
                                          .contraction = Contraction::na,
                                          .reduction = ReductionOrder::na}));
  EXPECT_EQ(c.notes, "");
  EXPECT_TRUE(contracts_aligned(c));
}

TEST(RegistryFileDefaults, OptionalFieldsTakeSpecDefaults) {
  const auto parsed = parse_registry_json(kMinimalRegistry, "<memory>");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  const KernelCapsule& c = parsed->at(0).capsules.at(0);
  EXPECT_TRUE(c.supports_forward);
  EXPECT_EQ(c.vjp_mode, VjpMode::none);
  EXPECT_EQ(c.numerical, NumericalPolicy{});
  EXPECT_EQ(label(c.numerical),
            "round=unspecified,subnormal=unspecified,contract=unspecified,"
            "reduce=unspecified");
  EXPECT_EQ(c.notes, "");
  for (const ContractField field :
       {ContractField::shape, ContractField::layout, ContractField::value, ContractField::vjp}) {
    EXPECT_EQ(c.contract(field).summary, "") << to_string(field);
    EXPECT_TRUE(c.contract(field).provenance.empty()) << to_string(field);
  }
  EXPECT_EQ(c.vjp.evidence, (Evidence{.kind = EvidenceKind::not_provided, .name = ""}));
  EXPECT_TRUE(contracts_aligned(c));
}

TEST(RegistryFileDefaults, PartialNumericalPolicyKeepsOtherDefaults) {
  const auto parsed =
      parse_registry_json(patched(R"([{"op": "replace", "path": "/modules/0/capsules/0/numerical",
                   "value": {"reduction": "fixed-tree"}}])"),
                          "<memory>");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->at(0).capsules.at(0).numerical,
            (NumericalPolicy{.reduction = ReductionOrder::fixed_tree}));
}

struct MisalignedCase {
  std::string name;
  std::string text;
  ContractField field;
};

void PrintTo(const MisalignedCase& c, std::ostream* out) {
  *out << c.name;
}

class RegistryFileMisaligned : public ::testing::TestWithParam<MisalignedCase> {};

// SPEC §4: a misaligned capsule is kept (it shows up in listings) but never admissible.
TEST_P(RegistryFileMisaligned, LoadsButIsNotAligned) {
  const MisalignedCase& c = GetParam();
  const auto parsed = parse_registry_json(c.text, "<memory>");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  const KernelCapsule& capsule = parsed->at(0).capsules.at(0);
  EXPECT_FALSE(contracts_aligned(capsule));
  EXPECT_EQ(first_misaligned_field(capsule), c.field);
  const auto registry = Registry::create(*parsed);
  ASSERT_TRUE(registry.has_value()) << registry.error().message;
  EXPECT_EQ(registry->size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    RegistryFile, RegistryFileMisaligned,
    ::testing::Values(MisalignedCase{"value_claim_in_shape_field", patched(R"([{"op": "replace",
                                    "path": "/modules/0/capsules/0/contracts/shape/claim",
                                    "value": {"kind": "value-refinement", "op": "relu",
                                              "spec": "Spec.relu"}}])"),
                                     ContractField::shape},
                      MisalignedCase{"layout_claim_for_other_op", patched(R"([{"op": "replace",
                                    "path": "/modules/0/capsules/0/contracts/layout/claim/op",
                                    "value": "gelu"}])"),
                                     ContractField::layout},
                      MisalignedCase{
                          "vjp_claim_mode_differs_from_capsule",
                          patched(R"([{"op": "replace", "path": "/modules/0/capsules/0/vjp",
                                    "value": "backend-vjp"}])"),
                          ContractField::vjp}),
    [](const ::testing::TestParamInfo<MisalignedCase>& info) { return info.param.name; });

TEST(RegistryFileDuplicates, AreLeftToRegistryCreate) {
  const std::string text = patched(R"([{"op": "copy", "from": "/modules/0/capsules/0",
                   "path": "/modules/0/capsules/-"}])");
  const auto parsed = parse_registry_json(text, "<memory>");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->at(0).capsules.size(), 2u);
  const auto registry = Registry::create(*parsed);
  ASSERT_FALSE(registry.has_value());
  EXPECT_EQ(registry.error().message,
            "<memory>: duplicate backend capsule identity 'acme.relu' (op relu, provider "
            "external, device external) twice in module 'acme'");
}

// Registry-level errors name the file a module came from, and a clash with a built-in module
// names the file's module and the built-in one, whichever order they are validated in.
TEST(RegistryFileDuplicates, MessagesNameTheFilesAndModules) {
  const auto read = [](std::string_view text, std::string_view source) {
    auto modules = parse_registry_json(text, source);
    EXPECT_TRUE(modules.has_value()) << modules.error().message;
    return modules.value_or(std::vector<CapsuleModule>{});
  };
  const auto concat = [](std::vector<CapsuleModule> a, const std::vector<CapsuleModule>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const std::string acme(kMinimalRegistry);
  using Edits = std::vector<std::pair<std::string_view, std::string_view>>;
  const auto edited = [&acme](const Edits& edits) {
    std::string text = acme;
    for (const auto& [from, to] : edits)
      text.replace(text.find(from), from.size(), to);
    return text;
  };
  struct Case {
    std::string name;
    std::vector<CapsuleModule> modules;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"identity_against_builtin",
       read(edited({{R"("name": "acme.relu")", R"("name": "reference.relu")"},
                    {R"("provider": "external")", R"("provider": "reference")"},
                    {R"("device": "external")", R"("device": "cpu")"}}),
            "r.json"),
       "r.json: duplicate backend capsule identity 'reference.relu' (op relu, provider reference, "
       "device cpu) in module 'acme'; built-in module 'reference' holds it too"},
      {"identity_across_files",
       concat(read(acme, "a.json"),
              read(edited({{R"("name": "acme")", R"("name": "acme2")"}}), "b.json")),
       "b.json: duplicate backend capsule identity 'acme.relu' (op relu, provider external, device "
       "external) in module 'acme2'; module 'acme' of a.json holds it too"},
      {"module_across_files", concat(read(acme, "a.json"), read(acme, "b.json")),
       "b.json: duplicate backend capsule module 'acme'; a.json has a module of that name too"},
      {"module_within_file", concat(read(acme, "a.json"), read(acme, "a.json")),
       "a.json: duplicate backend capsule module 'acme'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_FALSE(c.modules.empty());
    const auto registry = builtin_registry().with_modules(c.modules);
    ASSERT_FALSE(registry.has_value());
    EXPECT_EQ(registry.error().kind, ErrorKind::already_exists);
    EXPECT_EQ(registry.error().message, c.message);
  }
}

// ---------------------------------------------------------------------------------------------
// Malformed documents: one row each, with the expected kind and a message fragment that carries
// the location.

struct MalformedCase {
  std::string name;
  std::string text;
  ErrorKind kind;
  std::string fragment;
};

// Failure output names the row instead of dumping its bytes.
void PrintTo(const MalformedCase& c, std::ostream* out) {
  *out << c.name;
}

class RegistryFileMalformed : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(RegistryFileMalformed, IsRejectedWithLocation) {
  const MalformedCase& c = GetParam();
  const auto parsed = parse_registry_json(c.text, "reg.json");
  ASSERT_FALSE(parsed.has_value()) << "accepted:\n" << c.text;
  const Error& error = parsed.error();
  EXPECT_EQ(error.kind, c.kind) << error.message;
  EXPECT_NE(error.message.find(c.fragment), std::string::npos)
      << "message: " << error.message << "\nwanted: " << c.fragment;
  EXPECT_TRUE(error.message.starts_with("reg.json: ")) << error.message;
  // DESIGN.md message style: one line, no trailing period, bounded length (an unknown op's
  // message lists the whole backend vocabulary, some 900 characters).
  EXPECT_EQ(error.message.find('\n'), std::string::npos) << error.message;
  EXPECT_FALSE(error.message.ends_with(".")) << error.message;
  EXPECT_LT(error.message.size(), 1500u) << error.message;
}

constexpr std::string_view kAt = "reg.json: module 'acme' capsule 'acme.relu': ";
constexpr std::string_view kCapsulePath = "/modules/0/capsules/0";

std::string at(std::string_view rest) {
  return std::string(kAt) + std::string(rest);
}

// A patch that replaces (or adds) one value under the first capsule.
std::string set_in_capsule(std::string_view pointer, std::string_view value_json,
                           std::string_view op = "replace") {
  return patched(R"([{"op": ")" + std::string(op) + R"(", "path": ")" + std::string(kCapsulePath) +
                 std::string(pointer) + R"(", "value": )" + std::string(value_json) + "}]");
}

std::string remove_in_capsule(std::string_view pointer) {
  return patched(R"([{"op": "remove", "path": ")" + std::string(kCapsulePath) +
                 std::string(pointer) + R"("}])");
}

constexpr ErrorKind kInvalid = ErrorKind::invalid_input;

std::vector<MalformedCase> malformed_cases() {
  const std::string long_op(200, 'x');
  return {
      // Not JSON at all.
      {"invalid_json", R"({"format": "nnplan.capsules.v1", "modules": [}])", kInvalid,
       "reg.json: invalid JSON at line 1, column 46: syntax error while parsing value"},
      {"truncated_json", std::string(kSpecExample.substr(0, kSpecExample.size() - 6)), kInvalid,
       "reg.json: invalid JSON at line 19, column 15: syntax error while parsing object - "
       "unexpected end of input; expected '}'"},
      {"trailing_content", std::string(kSpecExample) + "{}", kInvalid,
       "reg.json: content after the end of the JSON document at line 20, column 1"},
      {"comment", "// registry\n" + std::string(kSpecExample), kInvalid,
       "reg.json: invalid JSON at line 1, column 1"},
      {"invalid_utf8", edited("\"notes\": \"\"", "\"notes\": \"\xff\""), kInvalid,
       // The offending byte is escaped so that the message stays valid UTF-8.
       "reg.json: invalid JSON at line 19, column 14: syntax error while parsing value - invalid "
       "string: ill-formed UTF-8 byte; last read: '\"\\xff'"},
      {"number_overflow", edited("\"notes\": \"\"", "\"notes\": 1e999"), kInvalid,
       "reg.json: invalid JSON at line 19, column 17: number overflow parsing '1e999'"},
      {"empty_text", "", kInvalid,
       "reg.json: empty document; expected a JSON object with fields format and modules"},
      {"whitespace_only", " \n\t\r\n", kInvalid, "reg.json: empty document"},
      // The document.
      {"top_level_array", "[]", kInvalid,
       "reg.json: expected a JSON object with fields format and modules, found array"},
      {"top_level_string", R"("nnplan.capsules.v1")", kInvalid,
       "reg.json: expected a JSON object with fields format and modules, found string"},
      {"missing_format", patched(R"([{"op": "remove", "path": "/format"}])"), kInvalid,
       "reg.json: field format: required field is missing"},
      {"wrong_format", patched(R"([{"op": "replace", "path": "/format",
                                    "value": "nnplan.capsules.v2"}])"),
       kInvalid,
       "reg.json: field format: expected 'nnplan.capsules.v1', found 'nnplan.capsules.v2'"},
      // The format is checked before the fields, so another document is named for what it is.
      {"wrong_format_with_other_fields",
       R"({"format": "nnplan.plan.v1", "profile": {}, "groups": []})", kInvalid,
       "reg.json: field format: expected 'nnplan.capsules.v1', found 'nnplan.plan.v1'"},
      {"capsule_listing",
       R"({"format": "nnplan.capsule-listing.v1", "profile": "checked_cpu", "capsules": []})",
       kInvalid,
       "reg.json: not an nnplan.capsules.v1 registry: format is 'nnplan.capsule-listing.v1', a "
       "filtered capsule listing (what nnplan capsules --json prints with --op, --provider or "
       "--device); nnplan capsules --json without filters writes a registry that loads"},
      {"format_not_string", patched(R"([{"op": "replace", "path": "/format", "value": 1}])"),
       kInvalid, "reg.json: field format: expected string, found number"},
      {"missing_modules", patched(R"([{"op": "remove", "path": "/modules"}])"), kInvalid,
       "reg.json: field modules: required field is missing"},
      {"modules_not_array", patched(R"([{"op": "replace", "path": "/modules", "value": {}}])"),
       kInvalid, "reg.json: field modules: expected array, found object"},
      {"unknown_top_level_field", patched(R"([{"op": "add", "path": "/version", "value": 1}])"),
       kInvalid, "reg.json: field version: unknown field; valid: format, modules"},
      {"repeated_top_level_key",
       edited(R"({"format": "nnplan.capsules.v1",)",
              R"({"format": "nnplan.capsules.v1", "format": "nnplan.capsules.v1",)"),
       kInvalid, "reg.json: field format: field appears more than once"},
      // Modules.
      {"module_not_object",
       patched(R"([{"op": "replace", "path": "/modules/0", "value": "acme"}])"), kInvalid,
       "reg.json: module #0: expected object, found string"},
      {"module_missing_name", patched(R"([{"op": "remove", "path": "/modules/0/name"}])"), kInvalid,
       "reg.json: module #0: field name: required field is missing"},
      {"module_empty_name",
       patched(R"([{"op": "replace", "path": "/modules/0/name", "value": ""}])"), kInvalid,
       "reg.json: module #0: field name: must not be empty"},
      {"second_module_name_not_string",
       patched(R"([{"op": "add", "path": "/modules/-", "value": {"name": 3, "capsules": []}}])"),
       kInvalid, "reg.json: module #1: field name: expected string, found number"},
      {"unknown_module_field",
       patched(R"([{"op": "add", "path": "/modules/0/version", "value": 2}])"), kInvalid,
       "reg.json: module 'acme': field version: unknown field for module; valid: name, capsules"},
      {"capsules_not_array",
       patched(R"([{"op": "replace", "path": "/modules/0/capsules", "value": null}])"), kInvalid,
       "reg.json: module 'acme': field capsules: expected array, found null"},
      {"module_missing_capsules", patched(R"([{"op": "remove", "path": "/modules/0/capsules"}])"),
       kInvalid, "reg.json: module 'acme': field capsules: required field is missing"},
      // Capsules.
      {"capsule_not_object",
       patched(R"([{"op": "add", "path": "/modules/0/capsules/0", "value": []}])"), kInvalid,
       "reg.json: module 'acme' capsule #0: expected object, found array"},
      {"capsule_missing_name", remove_in_capsule("/name"), kInvalid,
       "reg.json: module 'acme' capsule #0: field name: required field is missing"},
      {"capsule_name_with_newline", set_in_capsule("/name", R"("acme\nrelu")"), kInvalid,
       "reg.json: module 'acme' capsule 'acme\\nrelu': field name: must not contain control "
       "characters"},
      {"capsule_missing_op", remove_in_capsule("/op"), kInvalid,
       at("field op: required field is missing")},
      {"unknown_op", set_in_capsule("/op", R"("rleu")"), kInvalid,
       at("field op: unknown backend op 'rleu'; did you mean 'relu'? valid: rand_uniform, "
          "bernoulli_mask, add,")},
      {"op_not_string", set_in_capsule("/op", "11"), kInvalid,
       at("field op: expected string, found number")},
      {"long_unknown_op_is_shortened", set_in_capsule("/op", "\"" + long_op + "\""), kInvalid,
       at("field op: unknown backend op '" + long_op.substr(0, 64) + "...'; valid:")},
      {"control_characters_escaped", set_in_capsule("/op", R"("re\nlu\u0001")"), kInvalid,
       at("field op: unknown backend op 're\\nlu\\x01'")},
      {"supports_forward_string", set_in_capsule("/supports_forward", R"("yes")"), kInvalid,
       at("field supports_forward: expected boolean, found string")},
      {"unknown_provider", set_in_capsule("/provider", R"("acme")"), kInvalid,
       at("field provider: unknown provider 'acme'; valid: reference, torchlean, native-cuda,")},
      {"unknown_device", set_in_capsule("/device", R"("npu")"), kInvalid,
       at("field device: unknown device 'npu'; valid: cpu, cuda, rocm, metal, wasm, tpu, "
          "trainium, custom, external")},
      {"unknown_trust", set_in_capsule("/trust", R"("trusted")"), kInvalid,
       at("field trust: unknown trust level 'trusted'; did you mean 'trusted-external'? valid: "
          "verified, checked, fuzzed, trusted-external")},
      {"unknown_vjp_mode", set_in_capsule("/vjp", R"("tape")"), kInvalid,
       at("field vjp: unknown vjp mode 'tape'; valid: none, torchlean-tape, backend-vjp")},
      {"unknown_capsule_field", set_in_capsule("/trust_level", R"("checked")", "add"), kInvalid,
       at("field trust_level: unknown field for capsule; valid: name, op, provider, device, "
          "trust, supports_forward, vjp, contracts, numerical, notes, pattern")},
      {"repeated_capsule_key",
       edited(R"("op": "relu", "provider")", R"("op": "relu", "op": "gelu", "provider")"), kInvalid,
       at("field op: field appears more than once")},
      {"notes_wrong_type", set_in_capsule("/notes", "5"), kInvalid,
       at("field notes: expected string, found number")},
      {"pattern_not_array", set_in_capsule("/pattern", R"("relu")", "add"), kInvalid,
       at("field pattern: expected array, found string")},
      {"pattern_element_not_string", set_in_capsule("/pattern", R"(["relu", 3])", "add"), kInvalid,
       at("field pattern[1]: expected string, found number")},
      {"pattern_unknown_op", set_in_capsule("/pattern", R"(["relu", "frobnicate"])", "add"),
       kInvalid, at("field pattern[1]: unknown backend op 'frobnicate'")},
      {"pattern_of_one_op", set_in_capsule("/pattern", R"(["relu"])", "add"), kInvalid,
       at("field pattern: a fused capsule's pattern lists at least two ops in chain order (for "
          "example [\"conv\", \"relu\"]); it lists 1; a capsule of one op leaves the field out")},
      {"pattern_not_rooted_at_op", set_in_capsule("/pattern", R"(["add", "relu"])", "add"),
       kInvalid,
       at("field pattern: the pattern starts with add but the capsule's op is relu; a fused "
          "capsule's op is its pattern's first (root) op")},
      {"second_capsule_named",
       patched(R"([{"op": "copy", "from": "/modules/0/capsules/0", "path": "/modules/0/capsules/-"},
                   {"op": "replace", "path": "/modules/0/capsules/1/name", "value": "acme.gelu"},
                   {"op": "replace", "path": "/modules/0/capsules/1/trust", "value": "x"}])"),
       kInvalid, "reg.json: module 'acme' capsule 'acme.gelu': field trust: unknown trust level"},
      // Contracts and descriptors.
      {"contracts_missing", remove_in_capsule("/contracts"), kInvalid,
       at("field contracts: required field is missing")},
      {"contracts_not_object", set_in_capsule("/contracts", "[]"), kInvalid,
       at("field contracts: expected object, found array")},
      {"contracts_missing_vjp", remove_in_capsule("/contracts/vjp"), kInvalid,
       at("field contracts.vjp: required field is missing")},
      {"contracts_unknown_field", set_in_capsule("/contracts/grad", "{}", "add"), kInvalid,
       at("field contracts.grad: unknown field; valid: shape, layout, value, vjp")},
      {"descriptor_not_object", set_in_capsule("/contracts/value", R"("tested")"), kInvalid,
       at("field contracts.value: expected object, found string")},
      {"descriptor_unknown_field", set_in_capsule("/contracts/value/proof", R"("x")", "add"),
       kInvalid,
       at("field contracts.value.proof: unknown field for contract descriptor; valid: claim, "
          "summary, evidence, provenance")},
      {"descriptor_missing_claim", remove_in_capsule("/contracts/value/claim"), kInvalid,
       at("field contracts.value.claim: required field is missing")},
      {"descriptor_missing_evidence", remove_in_capsule("/contracts/shape/evidence"), kInvalid,
       at("field contracts.shape.evidence: required field is missing")},
      {"summary_wrong_type", set_in_capsule("/contracts/layout/summary", "false"), kInvalid,
       at("field contracts.layout.summary: expected string, found boolean")},
      // Claims.
      {"unknown_claim_kind", set_in_capsule("/contracts/shape/claim/kind", R"("shape")"), kInvalid,
       at("field contracts.shape.claim.kind: unknown claim kind 'shape'; did you mean "
          "'shape-safety'? valid: shape-safety, layout-compatibility, value-refinement, "
          "vjp-refinement")},
      {"claim_missing_kind", remove_in_capsule("/contracts/shape/claim/kind"), kInvalid,
       at("field contracts.shape.claim.kind: required field is missing")},
      {"claim_missing_layout", remove_in_capsule("/contracts/layout/claim/layout"), kInvalid,
       at("field contracts.layout.claim.layout: required field is missing")},
      {"claim_unknown_layout", set_in_capsule("/contracts/layout/claim/layout", R"("row-major")"),
       kInvalid,
       at("field contracts.layout.claim.layout: unknown layout 'row-major'; valid: "
          "canonical-tensor, flat-row-major, libtorch-cuda-view")},
      {"claim_field_of_other_kind",
       set_in_capsule("/contracts/shape/claim/layout", R"("flat-row-major")", "add"), kInvalid,
       at("field contracts.shape.claim.layout: unknown field for claim kind shape-safety; valid: "
          "kind, op")},
      {"claim_missing_op", remove_in_capsule("/contracts/value/claim/op"), kInvalid,
       at("field contracts.value.claim.op: required field is missing")},
      {"claim_empty_spec", set_in_capsule("/contracts/value/claim/spec", R"("")"), kInvalid,
       at("field contracts.value.claim.spec: must not be empty")},
      {"vjp_claim_missing_mode", remove_in_capsule("/contracts/vjp/claim/mode"), kInvalid,
       at("field contracts.vjp.claim.mode: required field is missing")},
      // Evidence.
      {"theorem_without_name",
       set_in_capsule("/contracts/value/evidence", R"({"kind": "theorem"})"), kInvalid,
       at("field contracts.value.evidence.name: required field is missing")},
      {"checker_with_empty_name",
       set_in_capsule("/contracts/value/evidence", R"({"kind": "checker", "name": ""})"), kInvalid,
       at("field contracts.value.evidence.name: must not be empty")},
      {"trusted_boundary_without_reason",
       set_in_capsule("/contracts/value/evidence", R"({"kind": "trusted-boundary"})"), kInvalid,
       at("field contracts.value.evidence.reason: required field is missing")},
      {"trusted_boundary_with_name",
       set_in_capsule("/contracts/value/evidence", R"({"kind": "trusted-boundary", "name": "x"})"),
       kInvalid,
       at("field contracts.value.evidence.name: unknown field for evidence kind "
          "trusted-boundary; valid: kind, reason")},
      {"not_provided_with_name",
       set_in_capsule("/contracts/vjp/evidence", R"({"kind": "not-provided", "name": "x"})"),
       kInvalid,
       at("field contracts.vjp.evidence.name: unknown field for evidence kind not-provided; "
          "valid: kind")},
      {"unknown_evidence_kind", set_in_capsule("/contracts/value/evidence/kind", R"("proof")"),
       kInvalid,
       at("field contracts.value.evidence.kind: unknown evidence kind 'proof'; valid: theorem, "
          "checker, runtime-guard, test-suite, fuzz-oracle, trusted-boundary, not-provided")},
      {"evidence_not_object", set_in_capsule("/contracts/value/evidence", R"("tests")"), kInvalid,
       at("field contracts.value.evidence: expected object, found string")},
      // Provenance.
      {"unknown_provenance_kind", set_in_capsule("/contracts/vjp/provenance/0/kind", R"("url")"),
       kInvalid,
       at("field contracts.vjp.provenance[0].kind: unknown provenance kind 'url'; valid: "
          "source-file, native-symbol, note")},
      {"provenance_missing_symbol", remove_in_capsule("/contracts/vjp/provenance/0/symbol"),
       kInvalid, at("field contracts.vjp.provenance[0].symbol: required field is missing")},
      {"second_provenance_entry",
       set_in_capsule("/contracts/vjp/provenance/-", R"({"kind": "note", "path": "x"})", "add"),
       kInvalid,
       at("field contracts.vjp.provenance[1].path: unknown field for provenance kind note; "
          "valid: kind, text")},
      {"repeated_provenance_key",
       edited(R"("symbol": "...",)", R"("symbol": "...", "symbol": "other",)"), kInvalid,
       at("field contracts.vjp.provenance[0].symbol: field appears more than once")},
      {"provenance_not_array", set_in_capsule("/contracts/vjp/provenance", "{}"), kInvalid,
       at("field contracts.vjp.provenance: expected array, found object")},
      {"build_target_wrong_type", set_in_capsule("/contracts/vjp/provenance/0/build_target", "[]"),
       kInvalid,
       at("field contracts.vjp.provenance[0].build_target: expected string, found array")},
      // Numerical policy.
      {"unknown_numerical_value", set_in_capsule("/numerical/rounding", R"("banker")"), kInvalid,
       at("field numerical.rounding: unknown rounding 'banker'; valid: scalar-context, "
          "nearest-even, directed, implementation-defined, unspecified")},
      {"unknown_reduction_value", set_in_capsule("/numerical/reduction", R"("left")"), kInvalid,
       at("field numerical.reduction: unknown reduction 'left'; valid: fixed-left,")},
      {"unknown_numerical_field", set_in_capsule("/numerical/fma", R"("fused")", "add"), kInvalid,
       at("field numerical.fma: unknown field for numerical policy; valid: rounding, subnormals, "
          "contraction, reduction")},
      {"numerical_not_object", set_in_capsule("/numerical", R"("strict")"), kInvalid,
       at("field numerical: expected object, found string")},
  };
}

INSTANTIATE_TEST_SUITE_P(RegistryFile, RegistryFileMalformed,
                         ::testing::ValuesIn(malformed_cases()),
                         [](const ::testing::TestParamInfo<MalformedCase>& info) {
                           return info.param.name;
                         });

// ---------------------------------------------------------------------------------------------
// Files on disk.

TEST(RegistryFileRead, LoadsDataFileNextToBuiltins) {
  const auto modules = read_registry_file(data_dir() / "acme.json");
  ASSERT_TRUE(modules.has_value()) << modules.error().message;
  ASSERT_EQ(modules->size(), 1u);
  const KernelCapsule& c = modules->at(0).capsules.at(0);
  EXPECT_EQ(c.name, "acme.relu");
  EXPECT_EQ(c.notes, "an external accelerator's relu");
  EXPECT_EQ(c.vjp.provenance.size(), 2u);
  EXPECT_TRUE(contracts_aligned(c));
  const auto registry = builtin_registry().with_modules(*modules);
  ASSERT_TRUE(registry.has_value()) << registry.error().message;
  EXPECT_EQ(registry->modules().front().name, "acme");
}

TEST(RegistryFileRead, MalformedFileNamesPathModuleCapsuleAndField) {
  const std::filesystem::path path = data_dir() / "bad_trust.json";
  const auto modules = read_registry_file(path);
  ASSERT_FALSE(modules.has_value());
  EXPECT_EQ(modules.error().kind, ErrorKind::invalid_input);
  EXPECT_EQ(modules.error().message,
            path.string() +
                ": module 'acme' capsule 'acme.relu': field trust: unknown trust level 'trusted'; "
                "did you mean 'trusted-external'? valid: verified, checked, fuzzed, "
                "trusted-external");
}

TEST(RegistryFileRead, MissingFileNamesThePath) {
  const std::filesystem::path path = "/nonexistent/nnplan/registry.json";
  const auto modules = read_registry_file(path);
  ASSERT_FALSE(modules.has_value());
  EXPECT_EQ(modules.error().kind, ErrorKind::invalid_input);
  EXPECT_EQ(modules.error().message,
            "/nonexistent/nnplan/registry.json: cannot read registry file: no such file or "
            "directory");
}

TEST(RegistryFileRead, DirectoryIsRejected) {
  const auto modules = read_registry_file(data_dir());
  ASSERT_FALSE(modules.has_value());
  EXPECT_EQ(modules.error().kind, ErrorKind::invalid_input);
  EXPECT_EQ(modules.error().message,
            data_dir().string() + ": cannot read registry file: is a directory");
}

class RegistryFileTemp : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("nnplan_registry_file_" + std::string(info->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

TEST_F(RegistryFileTemp, WrittenFileReadsBackEqual) {
  const std::vector<CapsuleModule> modules = builtins_with_libtorch();
  const std::filesystem::path path = dir_ / "export.json";
  std::ofstream(path, std::ios::binary) << write_registry_json(modules);
  const auto read = read_registry_file(path);
  ASSERT_TRUE(read.has_value()) << read.error().message;
  EXPECT_EQ(*read, read_from(modules, path.string()));
}

TEST_F(RegistryFileTemp, EmptyFileIsRejected) {
  const std::filesystem::path path = dir_ / "empty.json";
  std::ofstream(path, std::ios::binary).flush();
  const auto read = read_registry_file(path);
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(
      read.error().message,
      path.string() + ": empty document; expected a JSON object with fields format and modules");
}

TEST_F(RegistryFileTemp, FileOverSizeLimitIsRejected) {
  const std::filesystem::path path = dir_ / "huge.json";
  std::ofstream(path, std::ios::binary).flush();
  // Sparse: costs no disk space, but its size is over the limit.
  std::filesystem::resize_file(path, kMaxRegistryFileBytes + 1);
  const auto read = read_registry_file(path);
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().kind, ErrorKind::invalid_input);
  EXPECT_EQ(read.error().message, path.string() +
                                      ": registry file is 67108865 bytes; the limit is 67108864 "
                                      "bytes (64 MiB)");
}

TEST_F(RegistryFileTemp, FilesReadTogetherKeepTheirOrderAndSources) {
  const std::filesystem::path a = dir_ / "a.json";
  const std::filesystem::path b = dir_ / "b.json";
  std::ofstream(a, std::ios::binary) << kSpecExample;
  std::ofstream(b, std::ios::binary) << R"({"format": "nnplan.capsules.v1", "modules": [
    {"name": "empty", "capsules": []}]})";
  const std::vector<std::filesystem::path> paths = {a, b};
  const auto read = read_registry_files(paths);
  ASSERT_TRUE(read.has_value()) << read.error().message;
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[0].name, "acme");
  EXPECT_EQ((*read)[0].source, a.string());
  EXPECT_EQ((*read)[1].name, "empty");
  EXPECT_EQ((*read)[1].source, b.string());
}

// kMaxRegistryCapsules holds for all files together, counted before a file's modules are
// converted: the second file's capsules are empty objects, which would fail conversion, so the
// message can only be the count's.
TEST_F(RegistryFileTemp, CapsuleLimitHoldsForAllFilesTogether) {
  const std::filesystem::path a = dir_ / "a.json";
  const std::filesystem::path b = dir_ / "b.json";
  std::ofstream(a, std::ios::binary) << kSpecExample;
  std::string capsules;
  for (std::size_t i = 0; i < kMaxRegistryCapsules; ++i)
    capsules += i == 0 ? "{}" : ",{}";
  std::ofstream(b, std::ios::binary)
      << R"({"format": "nnplan.capsules.v1", "modules": [{"name": "bulk", "capsules": [)"
      << capsules << "]}]}";
  // Either file alone is within the limit.
  ASSERT_TRUE(read_registry_file(a).has_value());
  const auto alone = read_registry_file(b);
  ASSERT_FALSE(alone.has_value());
  EXPECT_NE(alone.error().message.find("capsule #0"), std::string::npos) << alone.error().message;

  const std::vector<std::filesystem::path> paths = {a, b};
  const auto read = read_registry_files(paths);
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().kind, ErrorKind::invalid_input);
  EXPECT_EQ(read.error().message,
            b.string() +
                ": module 'bulk': field capsules: brings the registry files read so far to 65537 "
                "capsules (1 in the files before this one); the limit is 65536 in all registry "
                "files together");
}

}  // namespace
}  // namespace nnplan::format
