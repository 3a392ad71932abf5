// The auditor's HTML page (report/report_html.hpp): HTML escaping of every input-derived name
// (a node named `<script>alert(1)</script>` shows as text), every section present, the
// trusted-external boundary shown loudly, gate failures naming their groups and node ids, the
// page for a node without an admissible capsule, the placement picture inlined from Graphviz's
// SVG or its absence explained, no script and no external asset, and the same bytes every time.
#include "nnplan/report/report_html.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../backend/capsule_fixtures.hpp"
#include "../backend/graph_plan_fixtures.hpp"
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

TEST(ReportHtml, NodeWithoutAnAdmissibleCapsuleGetsAPageNamingItAndEveryCandidate) {
  const BackendProfile profile = backend::make_profile(MaintainedProfile::checked_cuda);
  GraphBuilder b;
  const ir::NodeId x = b.input(shape({4, 4}));
  b.add(K::sin, {x}, shape({4, 4}), {}, "wave" + kHostileName);
  const ir::CheckedGraph graph = checked(std::move(b).build());
  auto evaluation = backend::evaluate_graph(profile, graph);
  ASSERT_FALSE(evaluation.has_value());
  const std::string html = unplanned_report_html(profile, graph.graph(), evaluation.error(),
                                                 {.model = "m.onnx", .onnx_names = true});
  EXPECT_TRUE(has(html,
                  "<p class=\"verdict rejected\" id=\"verdict\">no plan: no admissible "
                  "backend capsule for op sin on device cuda</p>"))
      << html;
  EXPECT_TRUE(has(html, "<p>node 1 has no admissible capsule.</p>"));
  EXPECT_TRUE(has(html, "<tr><td>1</td><td>sin</td><td>[4,4]</td><td><code>onnx=wave" +
                            kHostileShown + "</code></td></tr>"))
      << html;
  EXPECT_TRUE(has(html,
                  "<tr><td><code>reference.sin</code></td><td>reference</td><td>cpu</td>"
                  "<td><code>wrong-device</code>: capsule runs on cpu, the config asks for "
                  "cuda</td></tr>"))
      << html;
  EXPECT_TRUE(has(html, "<code>profile=checked_cuda device=cuda"));
  EXPECT_FALSE(has(html, "<details"));
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
