// The nnplan.plan.v1 artifact: digests, the fixed key layout, determinism, the failure shapes,
// the streamed writer, the strict envelope reader, and diff_artifacts' difference lines (arrays
// aligned, values cut short).
#include "nnplan/format/plan_artifact.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../ir/graph_fixtures.hpp"
#include "nnplan/backend/acceptance.hpp"
#include "nnplan/ir/check.hpp"

namespace nnplan::format {
namespace {

using backend::BackendProfile;
using backend::MaintainedProfile;
using ir::OpKind;
using ir::fixtures::GraphBuilder;
using ir::fixtures::shape;
using Json = nlohmann::ordered_json;

constexpr std::string_view kDigest =
    "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

ir::CheckedGraph checked(ir::Graph graph) {
  auto c = ir::check(std::move(graph));
  EXPECT_TRUE(c.has_value()) << (c ? "" : render(c.error()));
  return std::move(*c);
}

// input [2,3] -> relu -> relu -> sin: the relus coalesce; sin has no cuda capsule.
ir::Graph relu_relu_sin() {
  GraphBuilder b;
  const auto x = b.input(shape({2, 3}));
  const auto r1 = b.add(OpKind::relu, {x}, shape({2, 3}), {}, "act1");
  const auto r2 = b.add(OpKind::relu, {r1}, shape({2, 3}), {}, "act2");
  b.add(OpKind::sin, {r2}, shape({2, 3}), {}, "wave");
  return std::move(b).build();
}

std::string artifact_for(const BackendProfile& profile, const ir::CheckedGraph& graph) {
  return plan_artifact_json(profile, kDigest, graph.graph(),
                            backend::evaluate_graph(profile, graph));
}

std::vector<std::string> keys_of(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items())
    keys.push_back(item.key());
  return keys;
}

TEST(PlanArtifactDigest, Sha256KnownVectors) {
  EXPECT_EQ(sha256_digest(""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_digest("abc"), kDigest);
}

TEST(PlanArtifactDigest, UnreadableFileNamesThePath) {
  const auto d = file_digest("/nonexistent/graph.json");
  ASSERT_FALSE(d.has_value());
  EXPECT_THAT(d.error().message, testing::HasSubstr("/nonexistent/graph.json: cannot read"));
}

TEST(PlanArtifactWriter, AcceptedPlanHasTheFixedKeyLayout) {
  const BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cpu);
  const ir::CheckedGraph graph = checked(relu_relu_sin());
  const std::string text = artifact_for(profile, graph);
  const Json doc = Json::parse(text);
  EXPECT_THAT(keys_of(doc), testing::ElementsAre("format", "profile", "graph", "accepted",
                                                 "gate_failures", "groups", "audit", "error"));
  EXPECT_THAT(keys_of(doc["profile"]),
              testing::ElementsAre("name", "device", "preference", "assurance", "vjp", "target",
                                   "lowering", "modules"));
  EXPECT_EQ(doc["format"], "nnplan.plan.v1");
  EXPECT_EQ(doc["graph"]["digest"], kDigest);
  EXPECT_EQ(doc["graph"]["nodes"], 4);
  EXPECT_EQ(doc["accepted"], true);
  EXPECT_EQ(doc["error"], nullptr);
  ASSERT_EQ(doc["groups"].size(), 2u);
  EXPECT_THAT(keys_of(doc["groups"][0]),
              testing::ElementsAre("node_ids", "kinds", "op", "capsule", "provider", "device",
                                   "trust", "grouping"));
  EXPECT_EQ(doc["groups"][0]["node_ids"], Json::parse("[1,2]"));
  EXPECT_EQ(doc["groups"][0]["grouping"], "same-capsule-run");
  EXPECT_EQ(doc["groups"][1]["capsule"], "reference.sin");
  // One audit entry per distinct capsule, with every field and contract spelled out.
  const Json& kernels = doc["audit"]["kernels"];
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_THAT(keys_of(kernels[0]), testing::ElementsAre("op", "capsule", "provider", "device",
                                                        "trust", "vjp", "contracts", "numerical"));
  EXPECT_THAT(keys_of(kernels[0]["contracts"]),
              testing::ElementsAre("shape", "layout", "value", "vjp"));
  EXPECT_THAT(keys_of(kernels[0]["contracts"]["value"]),
              testing::ElementsAre("claim", "evidence", "disposition", "summary", "provenance"));
  EXPECT_THAT(keys_of(kernels[0]["contracts"]["value"]["evidence"]),
              testing::ElementsAre("kind", "name", "label"));
  EXPECT_EQ(kernels[0]["contracts"]["value"]["claim"], "relu forward refines Spec.relu");
  EXPECT_EQ(kernels[0]["contracts"]["value"]["disposition"], "tested");
  EXPECT_THAT(keys_of(kernels[0]["numerical"]),
              testing::ElementsAre("label", "rounding", "subnormals", "contraction", "reduction"));
  EXPECT_EQ(doc["audit"]["trusted_external_ops"], Json::array());
}

// input [2,3] -> relu -> sin -> relu: three groups, the first and last on one capsule.
ir::Graph relu_sin_relu() {
  GraphBuilder b;
  const auto x = b.input(shape({2, 3}));
  const auto r1 = b.add(OpKind::relu, {x}, shape({2, 3}));
  const auto s = b.add(OpKind::sin, {r1}, shape({2, 3}));
  b.add(OpKind::relu, {s}, shape({2, 3}));
  return std::move(b).build();
}

// SPEC §8: one audit row per group, each the index of its capsule's shared entry.
TEST(PlanArtifactWriter, AuditKeepsOneRowPerGroupReferringToSharedEntries) {
  const BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cpu);
  const Json doc = Json::parse(artifact_for(profile, checked(relu_sin_relu())));
  EXPECT_THAT(keys_of(doc["audit"]),
              testing::ElementsAre("kernels", "rows", "trusted_external_ops"));
  ASSERT_EQ(doc["groups"].size(), 3u);
  ASSERT_EQ(doc["audit"]["kernels"].size(), 2u);
  EXPECT_EQ(doc["audit"]["rows"], Json::parse("[0,1,0]"));
  for (std::size_t g = 0; g < doc["groups"].size(); ++g) {
    const std::size_t entry = doc["audit"]["rows"][g].get<std::size_t>();
    EXPECT_EQ(doc["audit"]["kernels"][entry]["capsule"], doc["groups"][g]["capsule"]) << g;
  }
}

// Every gate failure names the groups and node ids whose obligations failed.
TEST(PlanArtifactWriter, GateFailuresNameTheirGroupsAndNodes) {
  BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cpu);
  profile.config.assurance.allow_runtime_guards = false;
  const Json doc = Json::parse(artifact_for(profile, checked(relu_sin_relu())));
  EXPECT_EQ(doc["accepted"], false);
  EXPECT_EQ(doc["error"], nullptr);
  ASSERT_EQ(doc["gate_failures"].size(), 1u);
  const Json& f = doc["gate_failures"][0];
  EXPECT_THAT(keys_of(f), testing::ElementsAre("kind", "groups", "node_ids", "obligations"));
  EXPECT_EQ(f["kind"], "runtime-guard-evidence");
  EXPECT_EQ(f["groups"], Json::parse("[0,1,2]"));
  EXPECT_EQ(f["node_ids"], Json::parse("[1,2,3]"));
  // Obligations stay once per distinct capsule: relu's and sin's guarded shape and layout.
  EXPECT_EQ(f["obligations"].size(), 4u);
}

TEST(PlanArtifactWriter, SameInputsGiveByteIdenticalOutput) {
  const BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cpu);
  const ir::CheckedGraph graph = checked(relu_relu_sin());
  EXPECT_EQ(artifact_for(profile, graph), artifact_for(profile, graph));
}

TEST(PlanArtifactWriter, VerifiedPolicyFailsAtPlanningWithEmptyGroups) {
  auto profile = backend::apply_overrides(
      backend::make_profile(MaintainedProfile::checked_cpu),
      backend::ProfileOverrides{.assurance = backend::AssurancePreset::verified});
  ASSERT_TRUE(profile.has_value());
  // Every reference capsule is `checked`, so under `verified` nothing is admissible: the
  // failure is a planning error, not a gate rejection.
  const Json doc = Json::parse(artifact_for(*profile, checked(relu_relu_sin())));
  EXPECT_EQ(doc["accepted"], false);
  EXPECT_EQ(doc["error"]["kind"], "no-admissible-capsule");
  EXPECT_EQ(doc["error"]["node_id"], 1);
  EXPECT_EQ(doc["error"]["op"], "relu");
  EXPECT_EQ(doc["groups"], Json::array());
  EXPECT_EQ(doc["gate_failures"], Json::array());
}

TEST(PlanArtifactWriter, NoAdmissibleCapsuleNamesNodeOpAndCandidates) {
  const BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cuda);
  const Json doc = Json::parse(artifact_for(profile, checked(relu_relu_sin())));
  EXPECT_EQ(doc["accepted"], false);
  EXPECT_EQ(doc["groups"], Json::array());
  EXPECT_EQ(doc["audit"], Json::parse(R"({"kernels":[],"rows":[],"trusted_external_ops":[]})"));
  const Json& error = doc["error"];
  EXPECT_THAT(keys_of(error),
              testing::ElementsAre("kind", "node_id", "op", "message", "candidates"));
  EXPECT_EQ(error["kind"], "no-admissible-capsule");
  EXPECT_EQ(error["node_id"], 3);
  EXPECT_EQ(error["op"], "sin");
  EXPECT_EQ(error["message"],
            "no admissible backend capsule for op sin on device cuda; at node 3 (sin 'wave')");
  ASSERT_EQ(error["candidates"].size(), 1u);
  EXPECT_EQ(error["candidates"][0]["capsule"], "reference.sin");
  EXPECT_EQ(error["candidates"][0]["reasons"][0]["code"], "wrong-device");
}

TEST(PlanArtifactWriter, MalformedGraphHasNullOpAndUnknownsAsNull) {
  const BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cpu);
  Error error = make_error(ErrorKind::invalid_input, "g.json: node 1 (relu): bad");
  error.position = 1;
  const Json doc =
      Json::parse(malformed_graph_artifact_json(profile, std::nullopt, std::nullopt, error));
  EXPECT_EQ(doc["graph"], Json::parse(R"({"digest":null,"nodes":null})"));
  EXPECT_EQ(doc["error"], Json::parse(R"({"kind":"malformed-graph","node_id":1,"op":null,
                                          "message":"g.json: node 1 (relu): bad",
                                          "candidates":[]})"));
}

TEST(PlanArtifactReader, ReadsBackTheRecordedProfile) {
  BackendProfile profile = backend::make_profile(MaintainedProfile::libtorch_forward_cuda);
  profile.lowering = backend::LoweringMode::singleton;
  GraphBuilder b;
  b.add(OpKind::relu, {b.input(shape({4}))}, shape({4}));
  const std::string text = artifact_for(profile, checked(std::move(b).build()));
  const auto artifact = parse_plan_artifact(text, "plan.json");
  ASSERT_TRUE(artifact.has_value()) << render(artifact.error());
  EXPECT_EQ(artifact->profile.name, "libtorch_forward_cuda");
  EXPECT_EQ(artifact->profile.device, backend::Device::cuda);
  EXPECT_EQ(artifact->profile.preference,
            backend::BackendPreference::prefer(backend::Provider::libtorch));
  EXPECT_EQ(artifact->profile.assurance, backend::AssurancePreset::external);
  EXPECT_EQ(artifact->profile.vjp_mode, backend::VjpMode::torchlean_tape);
  EXPECT_EQ(artifact->profile.target, backend::TargetPreset::linux_cuda_libtorch);
  EXPECT_EQ(artifact->profile.lowering, backend::LoweringMode::singleton);
  EXPECT_THAT(artifact->profile.modules,
              testing::ElementsAre("libtorch", "attention", "native-cuda", "reference"));
  EXPECT_EQ(artifact->digest, std::string(kDigest));
  EXPECT_EQ(artifact->nodes, 2u);
  EXPECT_TRUE(artifact->accepted);
  EXPECT_EQ(artifact->document, text);
}

// The reader keeps only the envelope: what grows with the graph is checked, then dropped, and the
// text is kept only when asked for.
TEST(PlanArtifactReader, KeepsTheEnvelopeAndTheTextOnlyWhenAsked) {
  const BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cpu);
  const std::string text = artifact_for(profile, checked(relu_relu_sin()));
  const auto kept = parse_plan_artifact(text, "plan.json");
  ASSERT_TRUE(kept.has_value()) << render(kept.error());
  EXPECT_EQ(kept->document, text);
  const auto dropped = parse_plan_artifact(text, "plan.json", KeepDocument::no);
  ASSERT_TRUE(dropped.has_value()) << render(dropped.error());
  EXPECT_EQ(dropped->document, "");
  EXPECT_EQ(dropped->profile, kept->profile);
  EXPECT_EQ(dropped->digest, kept->digest);
  EXPECT_EQ(dropped->accepted, kept->accepted);
}

TEST(PlanArtifactReader, RepeatedKeyDeepInsideGroupsOrAuditIsRefused) {
  const BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cpu);
  const std::string text = artifact_for(profile, checked(relu_relu_sin()));
  for (const std::string_view field : {"\"capsule\": ", "\"claim\": "}) {
    std::string forged = text;
    const auto at = forged.find(field);
    ASSERT_NE(at, std::string::npos) << field;
    // The same key twice in one group (or contract): nlohmann would keep the last.
    forged.insert(at, std::string(field) + "\"lab.forged\", ");
    const auto artifact = parse_plan_artifact(forged, "plan.json");
    ASSERT_FALSE(artifact.has_value()) << field;
    EXPECT_THAT(artifact.error().message, testing::HasSubstr("appears more than once"));
    EXPECT_THAT(artifact.error().message, testing::StartsWith("plan.json: "));
  }
}

TEST(PlanArtifactDiffArtifacts, PaddedArtifactIsNotBuiltPastTwiceThePlansSize) {
  std::string padded = R"({"a": [)";
  for (int i = 0; i < 10000; ++i)
    padded += "[],";
  padded += "[]]}";
  const std::vector<std::string> lines = diff_artifacts(padded, R"({"a": [1]})");
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_THAT(lines[0], testing::HasSubstr("JSON document holds more than 4102 elements"));
}

TEST(PlanArtifactDiffArtifacts, BoundedDiffKeepsTheFirstLinesAndCountsAll) {
  std::string expected = R"({"a": [)";
  std::string actual = R"({"a": [)";
  for (int i = 0; i < 500; ++i) {
    expected += (i == 0 ? "" : ",") + std::to_string(i);
    actual += (i == 0 ? "" : ",") + std::string("\"x\"");
  }
  expected += "]}";
  actual += "]}";
  const ArtifactDiff diff = diff_artifacts(expected, actual, 7);
  EXPECT_EQ(diff.total, 500U);
  ASSERT_EQ(diff.lines.size(), 7U);
  EXPECT_EQ(diff.lines[0], R"(a[0]: artifact has 0, re-planning gives "x")");
  EXPECT_EQ(diff_artifacts(expected, actual).size(), 500U);
}

TEST(PlanArtifactDiffArtifacts, RepeatedKeysAreADifferenceNotResolved) {
  const std::vector<std::string> lines = diff_artifacts(R"({"a": 1})", R"({"a": 2, "a": 1})");
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_THAT(lines[0], testing::HasSubstr("appears more than once"));
}

// `patch` cases apply a JSON merge patch to a valid artifact (null removes a key); `raw` cases
// parse the text as it is.
enum class Input { patch, raw };

struct ReaderErrorCase {
  std::string label;
  Input input;
  std::string text;
  std::string fragment;
};

class PlanArtifactReaderErrors : public testing::TestWithParam<ReaderErrorCase> {};

TEST_P(PlanArtifactReaderErrors, NamesSourceAndField) {
  const ReaderErrorCase& c = GetParam();
  std::string text = c.text;
  if (c.input == Input::patch) {
    const BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cpu);
    Json doc = Json::parse(artifact_for(profile, checked(relu_relu_sin())));
    doc.merge_patch(Json::parse(c.text));
    text = doc.dump(2);
  }
  const auto artifact = parse_plan_artifact(text, "plan.json");
  ASSERT_FALSE(artifact.has_value()) << text;
  EXPECT_EQ(artifact.error().kind, ErrorKind::invalid_input);
  EXPECT_THAT(artifact.error().message, testing::StartsWith("plan.json: "));
  EXPECT_THAT(artifact.error().message, testing::HasSubstr(c.fragment));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PlanArtifactReaderErrors,
    testing::Values(
        ReaderErrorCase{"not_json", Input::raw, "{\"format\": ", "invalid JSON at line 1"},
        ReaderErrorCase{"array", Input::raw, "[1, 2]",
                        "not an nnplan.plan.v1 artifact: expected a JSON object, found array"},
        ReaderErrorCase{"no_format", Input::raw, R"({"profile": {}})",
                        "not an nnplan.plan.v1 artifact: no format field"},
        ReaderErrorCase{"ir_graph", Input::patch, R"({"format": "torchlean.ir.v1"})",
                        "not an nnplan.plan.v1 artifact: format is 'torchlean.ir.v1'"},
        ReaderErrorCase{"ops_plan", Input::patch, R"({"format": "nnplan.ops-plan.v1"})",
                        "format is 'nnplan.ops-plan.v1'"},
        ReaderErrorCase{"unknown_key", Input::patch, R"({"extra": 1})",
                        "field extra: unknown field; valid:"},
        ReaderErrorCase{"missing_groups", Input::patch, R"({"groups": null})",
                        "field groups: missing"},
        ReaderErrorCase{"groups_object", Input::patch, R"({"groups": {}})",
                        "field groups: expected an array, found object"},
        ReaderErrorCase{"unknown_device", Input::patch, R"({"profile": {"device": "gpu"}})",
                        "field profile.device: unknown device 'gpu'; valid: cpu"},
        ReaderErrorCase{"bad_preference", Input::patch, R"({"profile": {"preference": "fastest"}})",
                        "field profile.preference:"},
        ReaderErrorCase{"bad_assurance", Input::patch, R"({"profile": {"assurance": "paranoid"}})",
                        "field profile.assurance: unknown assurance policy 'paranoid'"},
        ReaderErrorCase{"bad_lowering", Input::patch, R"({"profile": {"lowering": "fusion"}})",
                        "field profile.lowering: unknown lowering mode 'fusion'"},
        ReaderErrorCase{"profile_extra", Input::patch, R"({"profile": {"registry": "x"}})",
                        "field profile.registry: unknown field"},
        ReaderErrorCase{"module_number", Input::patch, R"({"profile": {"modules": [1]}})",
                        "field profile.modules[0]: expected a string, found number"},
        ReaderErrorCase{"bad_digest", Input::patch, R"({"graph": {"digest": "md5:abc"}})",
                        "field graph.digest: expected null or \"sha256:\""},
        ReaderErrorCase{"negative_nodes", Input::patch, R"({"graph": {"nodes": -1}})",
                        "field graph.nodes: expected null or a non-negative integer"},
        ReaderErrorCase{"accepted_string", Input::patch, R"({"accepted": "yes"})",
                        "field accepted: expected a boolean"},
        ReaderErrorCase{"accepted_with_error", Input::patch,
                        R"({"error": {"kind": "malformed-graph"}})",
                        "field accepted: is true but the artifact records an error"},
        ReaderErrorCase{"error_string", Input::patch, R"({"error": "boom"})",
                        "field error: expected null or an object, found string"}),
    [](const testing::TestParamInfo<ReaderErrorCase>& info) { return info.param.label; });

struct DiffCase {
  std::string label;
  std::string expected;
  std::string actual;
  std::vector<std::string> lines;
};

class PlanArtifactDiff : public testing::TestWithParam<DiffCase> {};

TEST_P(PlanArtifactDiff, ListsEveryDifference) {
  const DiffCase& c = GetParam();
  EXPECT_EQ(diff_artifacts(c.expected, c.actual), c.lines);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PlanArtifactDiff,
    testing::Values(
        DiffCase{"equal", R"({"a":1,"b":[1,2]})", R"({"a":1,"b":[1,2]})", {}},
        DiffCase{"key_order_alone", R"({"a":1,"b":2})", R"({"b":2,"a":1})", {}},
        DiffCase{
            "scalar",
            R"({"groups":[{"capsule":"lab.relu"}]})",
            R"({"groups":[{"capsule":"reference.relu"}]})",
            {R"(groups[0].capsule: artifact has "lab.relu", re-planning gives "reference.relu")"}},
        DiffCase{"type_change",
                 R"({"error":null})",
                 R"({"error":{"kind":"x"}})",
                 {R"(error: artifact has null, re-planning gives {"kind":"x"})"}},
        DiffCase{"missing_and_extra_keys",
                 R"({"a":1,"b":2})",
                 R"({"a":1,"c":3})",
                 {"b: artifact has 2, re-planning gives nothing",
                  "c: artifact has nothing, re-planning gives 3"}},
        // Unmatched elements between two equal ones are paired in order and compared field by
        // field; the rest are reported whole.
        DiffCase{"longer",
                 R"({"g":{"ids":[1,2]}})",
                 R"({"g":{"ids":[1,5,3]}})",
                 {"g.ids[1]: artifact has 2, re-planning gives 5",
                  "g.ids[2]: artifact has nothing, re-planning gives 3"}},
        DiffCase{
            "shorter", R"([1,2])", R"([1])", {"$[1]: artifact has 2, re-planning gives nothing"}},
        DiffCase{"removed_in_the_middle",
                 R"([{"k":1},{"k":2},{"k":3},{"k":4}])",
                 R"([{"k":1},{"k":3},{"k":4}])",
                 {R"($[1]: artifact has {"k":2}, re-planning gives nothing)"}},
        DiffCase{"inserted_in_the_middle",
                 R"([{"k":1},{"k":3}])",
                 R"([{"k":1},{"k":2},{"k":3}])",
                 {R"($[1]: artifact has nothing, re-planning gives {"k":2})"}},
        DiffCase{"repeated_element_removed",
                 R"({"rows":[0,0,1,0,0]})",
                 R"({"rows":[0,0,1,0]})",
                 {"rows[4]: artifact has 0, re-planning gives nothing"}},
        DiffCase{"moved_element",
                 R"([1,2,3])",
                 R"([2,3,1])",
                 {"$[0]: artifact has 1, re-planning gives nothing",
                  "$[2]: artifact has nothing, re-planning gives 1"}},
        DiffCase{"changed_element_between_equal_ones",
                 R"([{"c":"a"},{"c":"lab.relu","t":1},{"c":"b"}])",
                 R"([{"c":"a"},{"c":"reference.relu","t":1},{"c":"b"}])",
                 {R"($[1].c: artifact has "lab.relu", re-planning gives "reference.relu")"}},
        DiffCase{"removed_and_inserted_apart",
                 R"(["a","x","b","c"])",
                 R"(["a","b","c","y"])",
                 {R"($[1]: artifact has "x", re-planning gives nothing)",
                  R"($[3]: artifact has nothing, re-planning gives "y")"}},
        // Quoted values and keys are cut to 80 bytes of compact JSON, on a UTF-8 boundary.
        DiffCase{"long_value_cut",
                 R"({"m":")" + std::string(100, 'x') + R"("})",
                 R"({"m":"y"})",
                 {"m: artifact has \"" + std::string(79, 'x') +
                  R"(... (102 bytes), re-planning gives "y")"}},
        DiffCase{"long_value_cut_on_utf8_boundary",
                 "[\"" + std::string(78, 'x') + "\xc3\xa9\"]",
                 "[]",
                 {"$[0]: artifact has \"" + std::string(78, 'x') +
                  "... (82 bytes), re-planning gives nothing"}},
        DiffCase{"long_odd_key_cut",
                 R"({")" + std::string(100, ' ') + R"(":1})",
                 R"({")" + std::string(100, ' ') + R"(":2})",
                 {"$[\"" + std::string(79, ' ') +
                  "... (102 bytes)]: artifact has 1, re-planning gives 2"}},
        DiffCase{"odd_key",
                 R"({"a b":1})",
                 R"({"a b":2})",
                 {R"($["a b"]: artifact has 1, re-planning gives 2)"}},
        DiffCase{"root_scalar", "true", "false", {"$: artifact has true, re-planning gives false"}},
        DiffCase{"not_json",
                 "{",
                 "{}",
                 {"$: artifact has invalid JSON at line 1, column 2: syntax error while parsing "
                  "object key - unexpected end of input; expected string literal, re-planning "
                  "gives a JSON document"}}),
    [](const testing::TestParamInfo<DiffCase>& info) { return info.param.label; });

// Past kMaxAlignedCells the unmatched middle is compared by position, and the length line says so.
TEST(PlanArtifactDiffLarge, ArraysTooLargeToAlignAreComparedByPosition) {
  Json expected = Json::array();
  Json actual = Json::array();
  for (int i = 0; i < 3000; ++i)
    expected.push_back(i);
  for (int i = 0; i < 2999; ++i)
    actual.push_back(10000 + i);
  const std::vector<std::string> lines = diff_artifacts(expected.dump(), actual.dump());
  ASSERT_EQ(lines.size(), 3001u);
  EXPECT_EQ(lines[0],
            "$: artifact has 3000 entries, re-planning gives 2999 entries (too many to align; "
            "compared by position)");
  EXPECT_EQ(lines[1], "$[0]: artifact has 0, re-planning gives 10000");
  EXPECT_EQ(lines.back(), "$[2999]: artifact has 2999, re-planning gives nothing");
}

// Equal first and last elements are set aside before aligning, so one element removed from a
// large array is still one line.
TEST(PlanArtifactDiffLarge, OneRemovedElementOfALargeArrayIsOneLine) {
  Json expected = Json::array();
  for (int i = 0; i < 200000; ++i)
    expected.push_back(i);
  Json actual = expected;
  actual.erase(actual.begin() + 123456);
  EXPECT_EQ(diff_artifacts(expected.dump(), actual.dump()),
            std::vector<std::string>{"$[123456]: artifact has 123456, re-planning gives nothing"});
}

// input [2,3] -> relu -> sin -> relu under a checked policy that takes no runtime guards and no
// tests: two gate failures, so one can be removed.
std::string two_gate_failures_artifact() {
  BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cpu);
  profile.config.assurance.allow_runtime_guards = false;
  profile.config.assurance.allow_test_evidence = false;
  return artifact_for(profile, checked(relu_sin_relu()));
}

TEST(PlanArtifactDiffArtifacts, OneRemovedOrForgedGateFailureIsOneLine) {
  const std::string fresh = two_gate_failures_artifact();
  const Json doc = Json::parse(fresh);
  ASSERT_GE(doc["gate_failures"].size(), 2u) << doc["gate_failures"].dump();
  Json removed = doc;
  removed["gate_failures"].erase(removed["gate_failures"].begin() + 1);
  const std::vector<std::string> lines = diff_artifacts(removed.dump(2), fresh);
  ASSERT_EQ(lines.size(), 1u) << testing::PrintToString(lines);
  EXPECT_THAT(lines[0], testing::StartsWith("gate_failures[1]: artifact has nothing, re-planning "
                                            "gives {\"kind\":\"" +
                                            doc["gate_failures"][1]["kind"].get<std::string>()));
  EXPECT_THAT(lines[0], testing::EndsWith(" bytes)"));
  Json forged = doc;
  forged["gate_failures"].insert(forged["gate_failures"].begin(),
                                 Json{{"kind", "missing-evidence"}});
  EXPECT_EQ(
      diff_artifacts(forged.dump(2), fresh),
      std::vector<std::string>{
          R"(gate_failures[0]: artifact has {"kind":"missing-evidence"}, re-planning gives nothing)"});
}

// Only audit.kernels[*].capsule counts: groups and obligations name capsules too.
TEST(PlanArtifactCapsules, NamesTheAuditKernelsInOrder) {
  const std::string text = two_gate_failures_artifact();
  EXPECT_EQ(recorded_capsules(text), (std::vector<std::string>{"reference.relu", "reference.sin"}));
  EXPECT_EQ(recorded_capsules(R"({"audit":{"kernels":[{"capsule":"a"},{"op":"x"},{"capsule":"b"}]},
                                  "groups":[{"capsule":"c"}],
                                  "kernels":[{"capsule":"d"}]})"),
            (std::vector<std::string>{"a", "b"}));
  // Broken text: the names before the break.
  EXPECT_EQ(recorded_capsules(R"({"audit":{"kernels":[{"capsule":"a"},{"capsule":)"),
            std::vector<std::string>{"a"});
  EXPECT_EQ(recorded_capsules("[1,2]"), std::vector<std::string>{});
}

TEST(PlanArtifactWriter, StreamedBytesEqualTheDocument) {
  const BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cpu);
  GraphBuilder b;
  auto x = b.input(shape({2, 3}));
  for (int i = 0; i < 3000; ++i)
    x = b.add(i % 3 == 0 ? OpKind::sin : OpKind::relu, {x}, shape({2, 3}));
  auto graph = std::make_shared<const ir::CheckedGraph>(checked(std::move(b).build()));
  const auto model = backend::plan_model(profile, graph);
  ASSERT_TRUE(model.has_value());
  std::string streamed;
  std::size_t pieces = 0;
  write_plan_artifact(profile, kDigest, graph->graph(), model, false, {},
                      [&](std::string_view piece) {
                        streamed += piece;
                        ++pieces;
                      });
  EXPECT_EQ(streamed, plan_artifact_json(profile, kDigest, graph->graph(), model));
  EXPECT_GT(pieces, 1u);
}

}  // namespace
}  // namespace nnplan::format
