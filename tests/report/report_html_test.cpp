// The auditor's HTML page (report/report_html.hpp): HTML escaping of every input-derived name
// (a node named `<script>alert(1)</script>` shows as text), every section present, the
// trusted-external boundary shown loudly, gate failures naming their groups and node ids, the
// layout each group runs in beside its layout contract, the page for a graph with nodes that have
// no admissible capsule (each named with its candidates, the other nodes placed), the page for a
// model the ONNX importer does not support (each unsupported node listed), the placement picture
// inlined from Graphviz's SVG or its absence explained, no script and no external asset, and the
// same bytes every time.
#include "nnplan/report/report_html.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../backend/capsule_fixtures.hpp"
#include "../backend/graph_plan_fixtures.hpp"
#include "../format/onnx/onnx_test_models.hpp"
#include "nnplan/backend/acceptance.hpp"
#include "nnplan/backend/profile.hpp"

namespace nnplan::report {
namespace {

using backend::BackendOp;
using backend::BackendProfile;
using backend::GraphEvaluation;
using backend::MaintainedProfile;
using backend::Provider;
using backend::TrustLevel;
using backend::fixtures::aligned_capsule;
using backend::fixtures::checked;
using backend::fixtures::GraphBuilder;
using backend::fixtures::shape;
using K = ir::OpKind;

const std::string kHostileName = "<script>alert(1)</script>";
const std::string kHostileShown = "&lt;script&gt;alert(1)&lt;/script&gt;";

// input [4,4] → relu (named kHostileName) → detach → relu 'r2' → tanh 't&"q'
ir::Graph hostile_chain() {
  GraphBuilder b;
  const ir::NodeId x = b.input(shape({4, 4}));
  const ir::NodeId r1 = b.add(K::relu, {x}, shape({4, 4}), {}, kHostileName);
  const ir::NodeId d = b.add(K::detach, {r1}, shape({4, 4}));
  const ir::NodeId r2 = b.add(K::relu, {d}, shape({4, 4}), {}, "r2");
  b.add(K::tanh, {r2}, shape({4, 4}), {}, "t&\"q");
  return std::move(b).build();
}

// Assurance `verified` over verified-trust capsules with guard and test evidence: the gate
// rejects both groups (relu nodes 1,3; tanh node 4).
BackendProfile verified_profile() {
  BackendProfile p = backend::make_profile(MaintainedProfile::checked_cpu);
  p.name = "verified_guarded_cpu";
  p.config.assurance = backend::AssurancePolicy::verified();
  p.registry = backend::fixtures::shared_registry_of(
      {aligned_capsule("guarded.relu", BackendOp::relu, Provider::reference, backend::Device::cpu,
                       TrustLevel::verified),
       aligned_capsule("guarded.tanh", BackendOp::tanh, Provider::reference, backend::Device::cpu,
                       TrustLevel::verified)});
  return p;
}

// Assurance `external` with relu run by a trusted-external torchlean capsule whose value
// evidence is a trusted boundary.
BackendProfile trusted_external_profile() {
  BackendProfile p = backend::make_profile(MaintainedProfile::checked_cpu);
  p.name = "external_cpu";
  p.config.assurance = backend::AssurancePolicy::external();
  backend::KernelCapsule relu = aligned_capsule("vendor.relu", BackendOp::relu, Provider::torchlean,
                                                backend::Device::cpu, TrustLevel::trusted_external);
  relu.value.evidence = {backend::EvidenceKind::trusted_boundary, "vendor binary without source"};
  p.registry = backend::fixtures::shared_registry_of(
      {relu, aligned_capsule("reference.tanh", BackendOp::tanh, Provider::reference,
                             backend::Device::cpu)},
      "vendor");
  return p;
}

struct Planned {
  BackendProfile profile;
  ir::CheckedGraph graph;
  GraphEvaluation evaluation;
};

Planned planned(BackendProfile profile) {
  ir::CheckedGraph graph = checked(hostile_chain());
  auto evaluation = backend::evaluate_graph(profile, graph);
  EXPECT_TRUE(evaluation.has_value()) << render(evaluation.error());
  return {std::move(profile), std::move(graph), std::move(*evaluation)};
}

std::string page(const Planned& p,
                 const ReportHtmlOptions& options = {.model = "m.onnx", .onnx_names = true}) {
  return report_html(p.profile, p.graph.graph(), p.evaluation, options);
}

bool has(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& fragment) {
  std::size_t n = 0;
  for (auto at = text.find(fragment); at != std::string::npos; at = text.find(fragment, at + 1))
    ++n;
  return n;
}

// What every page must never hold: a script, an event handler, or anything loaded from elsewhere.
void expect_self_contained(const std::string& html) {
  for (const std::string forbidden : {"<script", "http://", "https://", "src=", "<link", "@import",
                                      "url(", "onload", "onclick"}) {
    EXPECT_FALSE(has(html, forbidden)) << "page holds " << forbidden;
  }
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset="));
  EXPECT_TRUE(html.ends_with("</body>\n</html>\n"));
  EXPECT_EQ(count(html, "<style>"), 1u);
}

// --- escaping -----------------------------------------------------------------------------

struct EscapeCase {
  std::string text;
  std::string expected;
};

class HtmlEscape : public testing::TestWithParam<EscapeCase> {};

TEST_P(HtmlEscape, EscapesMarkupAndControls) {
  EXPECT_EQ(html_escape(GetParam().text), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, HtmlEscape,
                         testing::Values(EscapeCase{"plain_name.0", "plain_name.0"},
                                         EscapeCase{kHostileName, kHostileShown},
                                         EscapeCase{"a&b", "a&amp;b"},
                                         EscapeCase{"\"x\" 'y'", "&quot;x&quot; &#39;y&#39;"},
                                         EscapeCase{"line\nbreak", "line\\nbreak"},
                                         EscapeCase{"\x1b[8mhidden", "\\x1b[8mhidden"},
                                         EscapeCase{"caf\xc3\xa9", "caf\xc3\xa9"},
                                         EscapeCase{"", ""}));

TEST(ReportHtml, OnnxNodeNamesAreShownEscapedBesideNodeIds) {
  const std::string html = page(planned(backend::make_profile(MaintainedProfile::checked_cpu)));
  EXPECT_FALSE(has(html, kHostileName));
  EXPECT_FALSE(has(html, "t&\"q"));
  // In the group's summary line and in its node table, beside the node id.
  EXPECT_TRUE(
      has(html, "group 0: nodes 1,3 [relu,relu] op=relu capsule=<code>reference.relu</code>"))
      << html;
  EXPECT_TRUE(has(html, " onnx=<code>" + kHostileShown + ",r2</code>")) << html;
  EXPECT_TRUE(has(html, "<tr><td>1</td><td>relu</td><td>[4,4]</td><td><code>onnx=" + kHostileShown +
                            "</code></td></tr>"))
      << html;
  EXPECT_TRUE(has(html, "<code>onnx=t&amp;&quot;q</code>")) << html;
  EXPECT_TRUE(has(html, "<th>ONNX node</th>"));
  expect_self_contained(html);
}

TEST(ReportHtml, NamesOfAJsonGraphAreLabelsNotOnnxNames) {
  const std::string html =
      page(planned(backend::make_profile(MaintainedProfile::checked_cpu)), {.model = "g.json"});
  EXPECT_FALSE(has(html, "onnx="));
  EXPECT_TRUE(has(html, "<td><code>" + kHostileShown + "</code></td>")) << html;
  EXPECT_TRUE(has(html, "<th>name</th>"));
}

TEST(ReportHtml, TheModelPathIsEscapedInTitleAndHeading) {
  const std::string html = page(planned(backend::make_profile(MaintainedProfile::checked_cpu)),
                                {.model = "dir/" + kHostileName + ".json"});
  EXPECT_TRUE(has(html, "<title>nnplan report: dir/" + kHostileShown +
                            ".json (accepted under assurance checked)</title>"))
      << html;
  EXPECT_TRUE(has(html, "<h1>nnplan report: <code>dir/" + kHostileShown + ".json</code></h1>"));
  expect_self_contained(html);
}

// --- sections -----------------------------------------------------------------------------

TEST(ReportHtml, AcceptedPageHasEverySectionAndAnExpandableEntryPerGroup) {
  const Planned p = planned(backend::make_profile(MaintainedProfile::checked_cpu));
  const std::string html = page(p);
  for (const std::string id :
       {"verdict", "profile", "boundary", "gate", "coverage", "groups", "picture"}) {
    EXPECT_TRUE(has(html, " id=\"" + id + "\"")) << id;
  }
  EXPECT_TRUE(has(html,
                  "<p class=\"verdict accepted\" id=\"verdict\">gate: accepted under "
                  "assurance checked</p>"));
  EXPECT_TRUE(has(html,
                  "<code>profile=checked_cpu device=cpu assurance=checked "
                  "vjp=torchlean-tape</code>"));
  EXPECT_TRUE(has(html, "<tr><th>target</th><td><code>portable-cpu</code></td></tr>"));
  // relu (1), relu (3): one same-capsule run; tanh (4).
  ASSERT_EQ(p.evaluation.lowering.groups.size(), 2u);
  EXPECT_EQ(count(html, "<details class=\"group p-reference\" id=\"group-"), 2u);
  EXPECT_EQ(count(html, "<summary>"), 2u);
  EXPECT_TRUE(has(html, "group 0: nodes 1,3 [relu,relu] op=relu"));
  // Each group: four contracts with their evidence and disposition, then the numerics.
  EXPECT_EQ(count(html, "<table class=\"contracts\">"), 2u);
  EXPECT_TRUE(has(html, "<tr><th>shape</th><td>shape safety for relu</td>")) << html;
  EXPECT_TRUE(has(html, "<th>vjp</th><td>relu torchlean-tape VJP refines Spec.relu</td>"));
  EXPECT_TRUE(has(html, "covered by test suite reference.relu.forward_tests"));
  EXPECT_EQ(count(html, "<p>numerical policy: <code>round="), 2u);
  EXPECT_TRUE(has(html, "<tr><th>round</th><td>scalar-context</td></tr>")) << html;
  // Coverage as the text report counts it.
  EXPECT_TRUE(has(html, "<p>lowering=coalesced: 3 planned nodes in 2 groups</p>"));
  EXPECT_TRUE(has(html,
                  "<span class=\"swatch p-reference\"></span> reference</td><td>2</td>"
                  "<td>3</td>"));
  EXPECT_TRUE(has(html, "<span class=\"badge t-checked\">checked</span></td><td>2</td><td>3</td>"));
  EXPECT_TRUE(has(html, "trusted external boundary: none: no group runs a trusted-external"));
  EXPECT_TRUE(has(html, "gate: accepted under assurance checked: the evidence"));
  EXPECT_FALSE(has(html, "TRUSTED EXTERNAL"));
  // The provider's color comes from plan_dot's palette.
  EXPECT_TRUE(has(html, ".p-reference{--provider:#a6cee3}"));
}

// A plan whose capsules differ from the reference on NaN lists them under Caveats; the reference
// plan has no such section.
TEST(ReportHtml, CaveatsListTheCapsulesThatDifferOnNan) {
  const std::string fast = page(planned(backend::make_profile(MaintainedProfile::fast_cpu)));
  EXPECT_TRUE(has(fast, "<section id=\"caveats\">\n<h2>Caveats</h2>")) << fast;
  EXPECT_TRUE(has(fast, "<li><code>onednn.relu</code>: NaN becomes 0 (oneDNN&#39;s relu)</li>"))
      << fast;
  const std::string checked = page(planned(backend::make_profile(MaintainedProfile::checked_cpu)));
  EXPECT_FALSE(has(checked, "id=\"caveats\""));
}

// The caveats come first, before the profile: what an auditor must not miss. A forward-only
// capsule's VJP line says it computes no gradient.
TEST(ReportHtml, CaveatsComeFirstAndForwardOnlyVjpLinesSaySo) {
  const std::string fast = page(planned(backend::make_profile(MaintainedProfile::fast_cpu)));
  const std::size_t caveats = fast.find("<section id=\"caveats\">");
  const std::size_t profile = fast.find(" id=\"profile\"");
  ASSERT_NE(caveats, std::string::npos);
  ASSERT_NE(profile, std::string::npos);
  EXPECT_LT(caveats, profile);
  EXPECT_TRUE(has(fast,
                  "<th>vjp</th><td>forward only: this capsule computes no gradient (relu "
                  "none VJP refines Spec.relu)</td>"))
      << fast;
  EXPECT_FALSE(has(fast, "<td>relu none VJP refines Spec.relu</td>"));
  EXPECT_TRUE(has(fast,
                  "A claim that a capsule refines <code>Spec.&lt;op&gt;</code> names "
                  "TorchLean's Lean specification of that op."));
}

// --expanded writes every group open (no click, no JavaScript); by default every one is closed.
// Either way the page carries a print style sheet.
TEST(ReportHtml, ExpandedPageOpensEveryGroup) {
  const Planned p = planned(backend::make_profile(MaintainedProfile::checked_cpu));
  const std::string closed = page(p);
  const std::string open =
      page(p, {.model = "m.onnx", .onnx_names = true, .picture = {}, .expanded = true});
  EXPECT_EQ(count(open, "<details class=\"group "), 2u);
  EXPECT_EQ(count(open, "\" open>\n<summary>group "), 2u);
  EXPECT_EQ(count(closed, " open>"), 0u);
  EXPECT_TRUE(has(closed, "write the page with --expanded"));
  EXPECT_FALSE(has(open, "write the page with --expanded"));
  EXPECT_TRUE(has(open, "@media print{"));
}

TEST(ReportHtml, TrustedExternalBoundaryIsShownLoudly) {
  const std::string html = page(planned(trusted_external_profile()));
  EXPECT_TRUE(has(html,
                  "<p class=\"alarm\"><strong>TRUSTED EXTERNAL: the plan crosses a "
                  "trusted-external boundary at relu</strong>"))
      << html;
  EXPECT_TRUE(has(html,
                  "<strong>TRUSTED EXTERNAL</strong> <code>trusted external boundary: "
                  "relu</code>"));
  EXPECT_TRUE(has(html, "1 group of 2 (2 nodes) run capsules of trust"));
  EXPECT_TRUE(has(html, "<td><a href=\"#group-0\">group 0</a></td><td>1,3 [relu,relu]</td>"));
  EXPECT_TRUE(has(html, "value: trusted boundary: vendor binary without source"));
  EXPECT_TRUE(has(html, "<details class=\"group p-torchlean trusted-external\" id=\"group-0\">"));
  EXPECT_TRUE(has(html, "<span class=\"te\">TRUSTED EXTERNAL</span>"));
  EXPECT_TRUE(has(html, "<span class=\"badge t-trusted-external\">trusted-external</span>"));
  // The tanh group is not trusted-external.
  EXPECT_TRUE(has(html, "<details class=\"group p-reference\" id=\"group-1\">"));
  EXPECT_TRUE(has(html, "<tr><th>module</th><td><code>vendor</code></td></tr>"));
  expect_self_contained(html);
}

TEST(ReportHtml, GateFailuresNameTheirGroupsNodesAndObligations) {
  const Planned p = planned(verified_profile());
  ASSERT_FALSE(p.evaluation.accepted());
  const std::string html = page(p);
  EXPECT_TRUE(has(html,
                  "<p class=\"verdict rejected\" id=\"verdict\">gate: rejected under "
                  "assurance verified</p>"));
  EXPECT_TRUE(has(html,
                  "plan rejected by assurance policy verified: runtime-guard-evidence, "
                  "test-evidence"));
  EXPECT_TRUE(has(html,
                  "<h3>runtime-guard-evidence</h3>\n<p>groups <a href=\"#group-0\">0</a>,"
                  "<a href=\"#group-1\">1</a>; nodes 1,3,4</p>"))
      << html;
  EXPECT_TRUE(has(html, "<h3>test-evidence</h3>"));
  EXPECT_TRUE(has(html,
                  "<tr><td><code>guarded.tanh</code></td><td>layout</td><td>canonical-tensor "
                  "layout compatibility for tanh</td><td>guarded at runtime by "
                  "guarded.tanh.layout_guard</td><td>guarded</td></tr>"))
      << html;
  // Each group says which failures name it, and each contract whether the gate fails it.
  EXPECT_EQ(count(html,
                  "<span class=\"fails\">fails gate: runtime-guard-evidence "
                  "test-evidence</span>"),
            2u);
  EXPECT_EQ(count(html, "<td class=\"fails\">fails: runtime-guard-evidence</td>"), 4u);
  EXPECT_EQ(count(html, "<td class=\"fails\">fails: test-evidence</td>"), 4u);
  expect_self_contained(html);
}

// --- layouts ------------------------------------------------------------------------------

// The layouts a compiled plan runs in: group 0 channels-last in both its commands, one value
// reordered in and one out; every other group flat.
RunLayouts channels_last_first_group(const Planned& p) {
  RunLayouts layouts;
  layouts.groups.assign(p.evaluation.lowering.groups.size(), GroupLayout{.commands = 1});
  layouts.groups[0] = {.commands = 2, .channels_last = 2, .to_channels_last = 1, .to_flat = 1};
  return layouts;
}

TEST(ReportHtml, EachGroupSaysTheLayoutItRunsInBesideItsContract) {
  const Planned p = planned(backend::make_profile(MaintainedProfile::fast_cpu));
  ASSERT_GE(p.evaluation.lowering.groups.size(), 2u);
  ASSERT_EQ(p.evaluation.lowering.capsule(p.evaluation.lowering.groups[0]).name, "onednn.relu");
  const std::string html =
      page(p, {.model = "m.onnx", .onnx_names = true, .layouts = channels_last_first_group(p)});
  EXPECT_TRUE(has(html,
                  "<p class=\"layout\">layout: its contract claims <code>flat-row-major</code> at "
                  "its boundary, but on this machine it runs <strong>channels-last</strong> (the "
                  "channel axis last in memory): its operands and results lie channels-last; 1 "
                  "value it reads is reordered from flat to channels-last before it and 1 value it "
                  "writes is reordered back to flat for a flat reader or a graph output, each by a "
                  "reorder command of its own. The graph's inputs and outputs stay flat.</p>"))
      << html;
  EXPECT_TRUE(has(html,
                  "<p class=\"layout\">layout: its contract claims <code>flat-row-major</code>; on "
                  "this machine it runs flat (dense row-major), as claimed.</p>"))
      << html;
  EXPECT_EQ(count(html, "<p class=\"layout\">"), p.evaluation.lowering.groups.size());
  // The line sits in the group's details, after its contracts.
  const std::size_t group0 = html.find("id=\"group-0\"");
  const std::size_t line = html.find("<p class=\"layout\">", group0);
  EXPECT_LT(html.find("<table class=\"contracts\">", group0), line);
  EXPECT_LT(line, html.find("</details>", group0));
  // The caveats, before the profile, name the group that runs channels-last.
  EXPECT_TRUE(has(html, "<p id=\"layout-caveat\">Layouts: group <a href=\"#group-0\">0</a> of " +
                            std::to_string(p.evaluation.lowering.groups.size()) +
                            " runs channels-last (the channel axis last in memory) when this build "
                            "compiles the plan on this machine, where its contract claims a flat "
                            "row-major layout; 2 reorder commands change values between the two "
                            "layouts. Each group says how.</p>"))
      << html;
  EXPECT_LT(html.find("id=\"layout-caveat\""), html.find(" id=\"profile\""));
  EXPECT_FALSE(has(html, "Layouts as run: not computed"));
  expect_self_contained(html);
}

// A group channels-last in some commands, with no reorder: its neighbours run channels-last too.
TEST(ReportHtml, APartlyChannelsLastGroupWithoutReordersSaysSo) {
  const Planned p = planned(backend::make_profile(MaintainedProfile::fast_cpu));
  RunLayouts layouts = channels_last_first_group(p);
  layouts.groups[0] = {.commands = 3, .channels_last = 2, .to_channels_last = 0, .to_flat = 0};
  const std::string html =
      page(p, {.model = "m.onnx", .onnx_names = true, .layouts = std::move(layouts)});
  EXPECT_TRUE(has(html,
                  "it runs <strong>channels-last</strong> (the channel axis last in memory) in 2 "
                  "of its 3 commands (flat in the others): its operands and results lie "
                  "channels-last, and no value is reordered for it: what it reads comes from, and "
                  "what it writes goes to, commands that run channels-last too."))
      << html;
  EXPECT_TRUE(has(html, "; 0 reorder commands change values between the two layouts."));
}

// Without the layouts (the plan was not compiled), the page says so once and beside each layout
// contract, with the reason; no group is said to run flat.
TEST(ReportHtml, LayoutsNotComputedAreSaidSoWithTheReason) {
  const Planned p = planned(verified_profile());
  const std::string html =
      page(p, {.model = "m.onnx",
               .onnx_names = true,
               .layouts = {.groups = {},
                           .missing_reason = "the gate rejects the plan, so it is "
                                             "not compiled"}});
  EXPECT_TRUE(has(html,
                  "<p class=\"note\">Layouts as run: not computed for this page (the gate rejects "
                  "the plan, so it is not compiled). A layout contract is the capsule's "
                  "claim; the command buffer may still keep a value channels-last between "
                  "commands whose handlers run that layout (nnplan run --trace records each "
                  "command's layout).</p>"))
      << html;
  EXPECT_EQ(count(html,
                  "<p class=\"layout\">layout: its contract claims <code>canonical-tensor</code>; "
                  "the layout it runs in is chosen when the plan is compiled, which was not done "
                  "for this page (the gate rejects the plan, so it is not compiled).</p>"),
            2u)
      << html;
  EXPECT_FALSE(has(html, "it runs flat"));
  EXPECT_FALSE(has(html, "layout-caveat"));
  // Layouts for another plan (a group count that is not this one's) are not used.
  RunLayouts other;
  other.groups.resize(p.evaluation.lowering.groups.size() + 1);
  const std::string mismatched =
      page(p, {.model = "m.onnx", .onnx_names = true, .layouts = std::move(other)});
  EXPECT_TRUE(has(mismatched, "Layouts as run: not computed for this page. A layout contract"));
  EXPECT_FALSE(has(mismatched, "it runs flat"));
}

// --- a graph that cannot be planned -------------------------------------------------------

// input → relu 'act' → sin 'wave<script>…' → detach → cos 'c' → sin 's2' → relu 'out', planned
// for cuda: nothing runs sin or cos there.
ir::CheckedGraph unplaceable_graph() {
  GraphBuilder b;
  const ir::NodeId x = b.input(shape({4, 4}));
  const ir::NodeId act = b.add(K::relu, {x}, shape({4, 4}), {}, "act");
  const ir::NodeId wave = b.add(K::sin, {act}, shape({4, 4}), {}, "wave" + kHostileName);
  const ir::NodeId d = b.add(K::detach, {wave}, shape({4, 4}));
  const ir::NodeId c = b.add(K::cos, {d}, shape({4, 4}), {}, "c");
  const ir::NodeId s2 = b.add(K::sin, {c}, shape({4, 4}), {}, "s2");
  b.add(K::relu, {s2}, shape({4, 4}), {}, "out");
  return checked(std::move(b).build());
}

TEST(ReportHtml, UnplaceableNodesAreEachNamedAndTheOtherNodesPlaced) {
  const BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cuda);
  const ir::CheckedGraph graph = unplaceable_graph();
  auto evaluation = backend::evaluate_graph(profile, graph);
  ASSERT_FALSE(evaluation.has_value());
  const std::string html = unplanned_report_html(profile, graph.graph(), evaluation.error(),
                                                 {.model = "m.onnx", .onnx_names = true});
  EXPECT_TRUE(has(html,
                  "<p class=\"verdict rejected\" id=\"verdict\">no plan: no admissible backend "
                  "capsule for ops sin and cos on device cuda (3 nodes)</p>"))
      << html;
  EXPECT_TRUE(has(html, "<title>nnplan report: m.onnx (no plan)</title>"));
  EXPECT_TRUE(has(html,
                  "<p>nodes 2, 4 and 5 have no admissible capsule, so the graph has no "
                  "plan.</p>"))
      << html;
  // Every unplaceable node, with its op.
  EXPECT_TRUE(has(html, "<tr><td>2</td><td>sin</td><td>[4,4]</td><td><code>onnx=wave" +
                            kHostileShown + "</code></td><td>sin</td></tr>"))
      << html;
  EXPECT_TRUE(has(html,
                  "<tr><td>4</td><td>cos</td><td>[4,4]</td><td><code>onnx=c</code></td><td>cos"
                  "</td></tr>"));
  EXPECT_TRUE(has(html,
                  "<tr><td>5</td><td>sin</td><td>[4,4]</td><td><code>onnx=s2</code></td>"
                  "<td>sin</td></tr>"));
  // Each failing op once, with the planner's explanation of every candidate.
  EXPECT_TRUE(has(html,
                  "<h3>op sin: nodes 2 and 5</h3>\n<p class=\"fails\">no admissible "
                  "backend capsule for op sin on device cuda</p>"))
      << html;
  EXPECT_TRUE(has(html, "<h3>op cos: node 4</h3>"));
  EXPECT_TRUE(has(html,
                  "<tr><td><code>reference.sin</code></td><td>reference</td><td>cpu</td>"
                  "<td><code>wrong-device</code>: capsule runs on cpu, the config asks for "
                  "cuda</td></tr>"))
      << html;
  EXPECT_TRUE(has(html, "<td><code>reference.cos</code></td><td>reference</td><td>cpu</td>"));
  // The other nodes: where each would run, or that it has no runtime work.
  EXPECT_TRUE(has(html, "<section id=\"placement\">\n<h2>Placement of the other nodes</h2>"));
  EXPECT_TRUE(has(html,
                  "<tr><td>1</td><td>relu</td><td>[4,4]</td><td><code>onnx=act</code></td>"
                  "<td>relu</td><td><code>native_cuda.relu</code></td><td><span class=\"swatch "
                  "p-native-cuda\"></span> native-cuda</td><td><span class=\"badge "
                  "t-checked\">checked</span></td></tr>"))
      << html;
  EXPECT_TRUE(has(html,
                  "<tr><td>6</td><td>relu</td><td>[4,4]</td><td><code>onnx=out</code></td>"
                  "<td>relu</td><td><code>native_cuda.relu</code></td>"));
  EXPECT_TRUE(has(html,
                  "<tr><td>0</td><td>input</td><td>[4,4]</td><td></td><td colspan=\"4\">"
                  "no runtime work</td></tr>"))
      << html;
  EXPECT_TRUE(has(html,
                  "<tr><td>3</td><td>detach</td><td>[4,4]</td><td></td><td colspan=\"4\">"
                  "no runtime work</td></tr>"));
  // An unplaceable node is not in the placement table.
  EXPECT_FALSE(has(html, "<td><code>onnx=c</code></td><td>cos</td><td><code>"));
  EXPECT_TRUE(has(html, "<code>profile=checked_cuda device=cuda"));
  EXPECT_FALSE(has(html, "<details"));
  expect_self_contained(html);
}

TEST(ReportHtml, OneUnplaceableNodeKeepsThePlannersMessage) {
  const BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cuda);
  GraphBuilder b;
  const ir::NodeId x = b.input(shape({4, 4}));
  b.add(K::sin, {x}, shape({4, 4}), {}, "wave");
  const ir::CheckedGraph graph = checked(std::move(b).build());
  auto evaluation = backend::evaluate_graph(profile, graph);
  ASSERT_FALSE(evaluation.has_value());
  const std::string html = unplanned_report_html(profile, graph.graph(), evaluation.error(),
                                                 {.model = "g.json", .onnx_names = false});
  EXPECT_TRUE(has(html,
                  "<p class=\"verdict rejected\" id=\"verdict\">no plan: no admissible "
                  "backend capsule for op sin on device cuda</p>"))
      << html;
  EXPECT_TRUE(has(html, "<p>node 1 has no admissible capsule, so the graph has no plan.</p>"));
  EXPECT_TRUE(has(html,
                  "<tr><td>1</td><td>sin</td><td>[4,4]</td><td><code>wave</code></td>"
                  "<td>sin</td></tr>"));
  expect_self_contained(html);
}

// The capsules the other nodes would run on bring their NaN caveats, first on the page.
TEST(ReportHtml, TheUnplannedPageListsTheCaveatsOfTheOtherNodesCapsules) {
  BackendProfile profile = backend::make_profile(MaintainedProfile::fast_cpu);
  profile.config.preference = backend::BackendPreference::only(Provider::onednn);
  const ir::CheckedGraph graph = unplaceable_graph();
  auto evaluation = backend::evaluate_graph(profile, graph);
  ASSERT_FALSE(evaluation.has_value());
  const std::string html =
      unplanned_report_html(profile, graph.graph(), evaluation.error(), {.model = "m.onnx"});
  const std::size_t caveats = html.find("<section id=\"caveats\">");
  ASSERT_NE(caveats, std::string::npos) << html;
  EXPECT_LT(caveats, html.find(" id=\"profile\""));
  EXPECT_TRUE(has(html,
                  "NaN and infinity: where the capsules the other nodes would run on "
                  "compute what the reference provider does not"));
  EXPECT_TRUE(has(html, "<li><code>onednn.relu</code>: NaN becomes 0 (oneDNN&#39;s relu)</li>"))
      << html;
}

// An error that names no node (no registry to plan against) is shown in full.
TEST(ReportHtml, APlanningErrorWithoutANodeIsShownInFull) {
  BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cpu);
  profile.registry = nullptr;
  const ir::CheckedGraph graph = unplaceable_graph();
  const Error error = make_error(ErrorKind::invalid_input, "no registry to plan against");
  const std::string html = unplanned_report_html(profile, graph.graph(), error, {.model = "m"});
  EXPECT_TRUE(has(html,
                  "<p class=\"verdict rejected\" id=\"verdict\">no plan: no registry to "
                  "plan against</p>"));
  EXPECT_TRUE(has(html, "<p class=\"fails\">no registry to plan against</p>"));
  EXPECT_TRUE(has(html,
                  "Without a plan there are no groups, coverage, gate verdict or placement "
                  "picture to show."));
  EXPECT_FALSE(has(html, "id=\"placement\""));
  EXPECT_TRUE(has(html, "<tr><th>capsule modules</th><td><code>none (no registry)</code></td>"));
}

// --- a model the importer does not support -------------------------------------------------

// x [1,4] → Det 'det' → a; x → Mish named `<b>it's (x)</b>` → b; Add 'add' (a, b) → y, as the
// ONNX importer refuses it: one note per unsupported node, then the rest.
Error two_unsupported_nodes() {
  format::onnx_test::Model m;
  m.input("x", {1, 4}).output("y");
  m.node("Det", {"x"}, {"a"}, "det");
  m.node("Mish", {"x"}, {"b"}, "<b>it's (x)</b>");
  m.node("Add", {"a", "b"}, {"y"}, "add");
  return format::onnx_test::unsupported_error(m);
}

TEST(ReportHtml, UnsupportedModelPageListsEveryUnsupportedNode) {
  const Error error = two_unsupported_nodes();
  ASSERT_EQ(error.kind, ErrorKind::unsupported);
  const std::string html =
      unsupported_model_html(backend::make_profile(MaintainedProfile::fast_cpu), error,
                             {.model = "m.onnx", .onnx_names = true});
  EXPECT_TRUE(has(html, "<title>nnplan report: m.onnx (not imported)</title>"));
  EXPECT_TRUE(has(html,
                  "<p class=\"verdict rejected\" id=\"verdict\">not imported: m.onnx: nnplan "
                  "does not support 2 nodes of this model (opset 17)</p>"))
      << html;
  EXPECT_TRUE(has(html, "<section id=\"unsupported\">\n<h2>Unsupported nodes</h2>"));
  EXPECT_TRUE(has(html,
                  "<tr><th>node</th><th>name</th><th>op type</th><th>why</th></tr>\n"
                  "<tr><td>0</td><td><code>det</code></td><td><code>Det</code></td><td>operator "
                  "Det is not supported</td></tr>\n"
                  "<tr><td>1</td><td><code>&lt;b&gt;it&#39;s (x)&lt;/b&gt;</code></td><td><code>"
                  "Mish</code></td><td>operator Mish is not supported</td></tr>\n</table>"))
      << html;
  EXPECT_TRUE(has(html, "<li>1 node depends on them and was not imported</li>")) << html;
  EXPECT_TRUE(has(html,
                  "<details class=\"supported\">\n<summary>supported operators</summary>"
                  "\n<p>Abs, Acos, "))
      << html;
  EXPECT_TRUE(has(html,
                  "The import made no graph, so no other node of the model has a "
                  "placement here"));
  EXPECT_TRUE(has(html, "<code>profile=fast_cpu device=cpu"));
  EXPECT_FALSE(has(html, "<b>"));
  EXPECT_FALSE(has(html, "id=\"groups\""));
  expect_self_contained(html);
  // --expanded opens the list of supported operators too.
  const std::string open = unsupported_model_html(
      backend::make_profile(MaintainedProfile::fast_cpu), error,
      {.model = "m.onnx", .onnx_names = true, .picture = {}, .expanded = true});
  EXPECT_TRUE(has(open, "<details class=\"supported\" open>"));
}

// A long node name is cut by the importer and followed by its length; the row keeps both. A
// note that is not a node's line is listed as it is.
TEST(ReportHtml, UnsupportedNodeLinesWithCutNamesAndOtherNotes) {
  Error error = make_error(ErrorKind::unsupported, "big.onnx: nnplan does not support 3 nodes");
  error.notes = {"node 7 'nnnn...' (20000000 bytes) (Mish): operator Mish is not supported",
                 "node 9 'a' (b' (Det): operator Det is not supported",
                 "graph input 'mask' has data type BOOL, which nnplan does not support",
                 "... and 1 more"};
  const std::string html = unsupported_model_html(
      backend::make_profile(MaintainedProfile::checked_cpu), error, {.model = "big.onnx"});
  EXPECT_TRUE(has(html,
                  "<tr><td>7</td><td><code>nnnn... (20000000 bytes)</code></td><td><code>"
                  "Mish</code></td><td>operator Mish is not supported</td></tr>"))
      << html;
  EXPECT_TRUE(has(html, "<tr><td>9</td><td><code>a&#39; (b</code></td><td><code>Det</code></td>"))
      << html;
  EXPECT_TRUE(has(html,
                  "<li>graph input &#39;mask&#39; has data type BOOL, which nnplan does not "
                  "support</li>\n<li>... and 1 more</li>"))
      << html;
  EXPECT_FALSE(has(html, "supported operators</summary>"));
}

// An unsupported error without node lines (a model-level refusal) is its message.
TEST(ReportHtml, UnsupportedModelWithoutNodeLinesShowsTheMessage) {
  const Error error =
      make_error(ErrorKind::unsupported, "m.onnx: opset 99 is not supported; supported: up to 17");
  const std::string html = unsupported_model_html(
      backend::make_profile(MaintainedProfile::checked_cpu), error, {.model = "m.onnx"});
  EXPECT_TRUE(has(html, "not imported: m.onnx: opset 99 is not supported; supported: up to 17"));
  EXPECT_TRUE(has(html, "<p>The importer does not support something this model uses:</p>"));
  EXPECT_FALSE(has(html, "<table class=\"unsupported\">"));
  expect_self_contained(html);
}

// --- picture ------------------------------------------------------------------------------

// What `dot -Tsvg` writes, in miniature: declaration, doctype, comments, namespaced root.
const std::string kDotSvg =
    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
    "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\"\n"
    " \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
    "<!-- Generated by graphviz version 2.43.0 (0)\n -->\n"
    "<svg width=\"62pt\" height=\"44pt\"\n"
    " viewBox=\"0.00 0.00 62.00 44.00\" xmlns=\"http://www.w3.org/2000/svg\" "
    "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
    "<g id=\"node1\" class=\"node\"><title>n1</title>"
    "<text x=\"1\" y=\"2\">1: relu onnx=&lt;script&gt;</text></g>\n"
    "</svg>\n";

TEST(InlineSvg, DropsThePrologAndNamespacesAndKeepsTheDrawing) {
  const auto svg = inline_svg(kDotSvg);
  ASSERT_TRUE(svg.has_value());
  EXPECT_EQ(*svg,
            "<svg width=\"62pt\" height=\"44pt\"\n viewBox=\"0.00 0.00 62.00 44.00\">\n"
            "<g id=\"node1\" class=\"node\"><title>n1</title>"
            "<text x=\"1\" y=\"2\">1: relu onnx=&lt;script&gt;</text></g>\n</svg>");
}

struct RefusedSvgCase {
  std::string label;
  std::string document;
};

class InlineSvgRefuses : public testing::TestWithParam<RefusedSvgCase> {};

TEST_P(InlineSvgRefuses, MarkupGraphvizDoesNotWrite) {
  EXPECT_EQ(inline_svg(GetParam().document), std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, InlineSvgRefuses,
    testing::Values(RefusedSvgCase{"empty", ""}, RefusedSvgCase{"not_svg", "<html></html>"},
                    RefusedSvgCase{"unclosed", "<svg width=\"1\"><g></g>"},
                    RefusedSvgCase{"script", "<svg><SCRIPT>alert(1)</SCRIPT></svg>"},
                    RefusedSvgCase{"link", "<svg><a xlink:href=\"https://x\">x</a></svg>"},
                    RefusedSvgCase{"foreign", "<svg><foreignObject></foreignObject></svg>"},
                    RefusedSvgCase{"image", "<svg><image x=\"0\"/></svg>"},
                    RefusedSvgCase{"style", "<svg><style>*{}</style></svg>"}),
    [](const testing::TestParamInfo<RefusedSvgCase>& info) { return info.param.label; });

TEST(ReportHtml, PictureIsInlinedWhenGiven) {
  const Planned p = planned(backend::make_profile(MaintainedProfile::checked_cpu));
  const std::string html =
      page(p, {.model = "m.json", .onnx_names = false, .picture = {.svg = kDotSvg}});
  EXPECT_TRUE(has(html, "<div class=\"picture\">\n<svg width=\"62pt\" height=\"44pt\""));
  EXPECT_FALSE(has(html, "No placement picture"));
  EXPECT_FALSE(has(html, "<?xml"));
  expect_self_contained(html);
}

TEST(ReportHtml, MissingPictureSaysWhyInItsPlace) {
  const Planned p = planned(backend::make_profile(MaintainedProfile::checked_cpu));
  const std::string html = page(
      p, {.model = "m.json",
          .onnx_names = false,
          .picture = {.svg = {}, .missing_reason = "graphviz (dot) was not found on PATH <x>"}});
  EXPECT_TRUE(has(html,
                  "<p class=\"note\">No placement picture: graphviz (dot) was not found on "
                  "PATH &lt;x&gt;. <code>nnplan dot MODEL | dot -Tsvg</code> draws it"))
      << html;
  EXPECT_FALSE(has(html, "<svg"));
  const std::string refused = page(p, {.model = "m.json",
                                       .onnx_names = false,
                                       .picture = {.svg = "<svg><script>x</script></svg>"}});
  EXPECT_TRUE(has(refused, "No placement picture: the SVG given is not one Graphviz writes"));
  EXPECT_FALSE(has(refused, "<svg"));
  expect_self_contained(refused);
}

// --- determinism --------------------------------------------------------------------------

TEST(ReportHtml, SameInputsGiveTheSameBytes) {
  for (const BackendProfile& profile : {backend::make_profile(MaintainedProfile::checked_cpu),
                                        verified_profile(), trusted_external_profile()}) {
    const ReportHtmlOptions options{
        .model = "m.onnx", .onnx_names = true, .picture = {.svg = kDotSvg}};
    const std::string first = page(planned(profile), options);
    const std::string second = page(planned(profile), options);
    EXPECT_EQ(first, second) << profile.name;
    EXPECT_FALSE(first.empty());
  }
}

}  // namespace
}  // namespace nnplan::report
