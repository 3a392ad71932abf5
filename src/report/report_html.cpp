#include "nnplan/report/report_html.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "nnplan/backend/gate.hpp"
#include "nnplan/backend/op_mapping.hpp"
#include "nnplan/backend/planner.hpp"
#include "nnplan/backend/report.hpp"
#include "nnplan/report/plan_dot.hpp"
#include "nnplan/text_escape.hpp"

namespace nnplan::report {

using namespace nnplan::backend;

namespace {

// Appends html_escape(text) to `out`, without a copy when nothing needs escaping.
void put(std::string& out, std::string_view text) {
  const bool plain = !needs_escaping(text) && text.find_first_of("&<>\"'") == std::string::npos;
  if (plain) {
    out += text;
    return;
  }
  for (char c : escape_controls(text)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
}

// `<tag>text</tag>` with `text` escaped.
void element(std::string& out, std::string_view tag, std::string_view text) {
  out += '<';
  out += tag;
  out += '>';
  put(out, text);
  out += "</";
  out += tag;
  out += '>';
}

void cell(std::string& out, std::string_view text) {
  element(out, "td", text);
}

void code_cell(std::string& out, std::string_view text) {
  out += "<td><code>";
  put(out, text);
  out += "</code></td>";
}

std::string counted(std::size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

template <class T>
std::string joined(const std::vector<T>& values, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i != 0) out += separator;
    out += std::to_string(values[i]);
  }
  return out;
}

// The style sheet: one custom property per provider, from plan_dot's palette, so a group, its
// legend swatch and the picture share a color.
// A trust badge's color: green for verified, blue for checked, amber for fuzzed, red for
// trusted-external.
std::string_view trust_color(TrustLevel trust) {
  switch (trust) {
    case TrustLevel::verified:
      return "#15803d";
    case TrustLevel::checked:
      return "#1d4ed8";
    case TrustLevel::fuzzed:
      return "#b45309";
    case TrustLevel::trusted_external:
      return "#c00";
  }
  return "#c00";
}

std::string style_sheet() {
  std::string css =
      "body{font-family:Helvetica,Arial,sans-serif;color:#1a1a1a;max-width:75em;margin:1em auto;"
      "padding:0 1em;line-height:1.4}\n"
      "code{font-family:Menlo,Consolas,monospace;font-size:.92em}\n"
      "h2{border-bottom:1px solid #bbb;margin-top:1.6em}\n"
      "table{border-collapse:collapse;margin:.4em 0}\n"
      "th,td{border:1px solid #bbb;padding:.15em .5em;text-align:left;vertical-align:top}\n"
      "th{background:#eee}\n"
      ".verdict{display:inline-block;font-size:1.3em;font-weight:bold;padding:.3em .8em;"
      "border-radius:.3em;margin:.2em 0}\n"
      ".accepted{background:#d9f2de;color:#14532d;border:2px solid #14532d}\n"
      ".rejected{background:#fbdcdc;color:#7f1d1d;border:2px solid #7f1d1d}\n"
      ".alarm{background:#fbdcdc;border:3px solid #c00;color:#500;padding:.4em 1em;"
      "border-radius:.3em}\n"
      ".alarm strong,.te{color:#c00;font-weight:bold}\n"
      ".quiet{background:#eef6ee;border:1px solid #9c9;padding:.4em 1em;border-radius:.3em}\n"
      ".badge{display:inline-block;padding:0 .5em;border-radius:1em;font-size:.85em;"
      "font-weight:bold;color:#fff}\n"
      ".swatch{display:inline-block;width:1em;height:1em;border:1px solid #555;"
      "vertical-align:middle;background:var(--provider)}\n"
      "details.group{border:1px solid #999;border-left:.8em solid var(--provider);"
      "border-radius:.3em;margin:.3em 0}\n"
      "details.group>summary{background:var(--provider);padding:.2em .5em;cursor:pointer}\n"
      "details.group>div{padding:.2em .8em}\n"
      "details.trusted-external{border:3px solid #c00;border-left:.8em solid var(--provider)}\n"
      ".fails{color:#a00;font-weight:bold}\n"
      ".failure{border-left:4px solid #a00;padding-left:.8em;margin:.8em 0}\n"
      ".picture{overflow:auto;border:1px solid #bbb;padding:.5em}\n"
      ".note{font-style:italic}\n"
      "@media print{body{max-width:none;margin:0}details.group{break-inside:avoid}"
      "details.group>summary{cursor:auto}.picture{overflow:visible;border:none}"
      "footer{display:none}}\n";
  for (std::size_t i = 0; i < kTrustLevelNames.size(); ++i) {
    const auto trust = static_cast<TrustLevel>(i);
    css += ".t-" + std::string(to_string(trust)) +
           "{background:" + std::string(trust_color(trust)) + "}\n";
  }
  for (std::size_t i = 0; i < kProviderNames.size(); ++i) {
    const auto provider = static_cast<Provider>(i);
    css += ".p-" + std::string(to_string(provider)) +
           "{--provider:" + std::string(provider_color(provider)) + "}\n";
  }
  return css;
}

void open_page(std::string& out, const ReportHtmlOptions& options, std::string_view verdict) {
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  put(out, "nnplan report: " + options.model + " (" + std::string(verdict) + ")");
  out += "</title>\n<style>\n" + style_sheet() + "</style>\n</head>\n<body>\n";
  out += "<h1>nnplan report: <code>";
  put(out, options.model);
  out += "</code></h1>\n";
}

void close_page(std::string& out) {
  out +=
      "<footer><p class=\"note\">Written by nnplan report. The same model, flags and capsule "
      "registry give the same page.</p></footer>\n</body>\n</html>\n";
}

void trust_badge(std::string& out, TrustLevel trust) {
  out += "<span class=\"badge t-";
  out += to_string(trust);
  out += "\">";
  out += to_string(trust);
  out += "</span>";
}

void provider_swatch(std::string& out, Provider provider) {
  out += "<span class=\"swatch p-";
  out += to_string(provider);
  out += "\"></span> ";
  out += to_string(provider);
}

void profile_section(std::string& out, const BackendProfile& profile) {
  out += "<section id=\"profile\">\n<h2>Profile</h2>\n<p><code>";
  put(out, profile_summary(profile));
  out += "</code></p>\n<table>\n";
  const auto row = [&out](std::string_view name, std::string_view value) {
    out += "<tr><th>";
    out += name;
    out += "</th>";
    code_cell(out, value);
    out += "</tr>\n";
  };
  const auto preset = preset_of(profile.target);
  std::string modules = profile.registry == nullptr ? "none (no registry)" : "";
  if (profile.registry != nullptr) {
    for (const CapsuleModule& m : profile.registry->modules()) {
      if (!modules.empty()) modules += ", ";
      modules += m.name;
    }
  }
  row("profile", profile.name);
  row("device", to_string(profile.config.device));
  row("provider preference", to_string(profile.config.preference));
  row("assurance", label(profile.config.assurance));
  row("vjp", to_string(profile.config.vjp_mode));
  row("target", preset ? to_string(*preset) : "custom");
  row("lowering", to_string(profile.lowering));
  row("capsule modules", modules);
  out += "</table>\n</section>\n";
}

// The distinct names of `nodes`, in node order, separated by commas (a set of those seen, so a
// group of 300,000 named nodes costs no more than its length).
std::string node_names(const ir::Graph& graph, std::span<const PlannedNodeKernel> nodes) {
  std::unordered_set<std::string_view> seen;
  std::string out;
  for (const PlannedNodeKernel& k : nodes) {
    if (k.node_id >= graph.nodes.size()) continue;
    const std::string_view name = graph.nodes[k.node_id].source_name;
    if (name.empty() || !seen.insert(name).second) continue;
    if (!out.empty()) out += ',';
    out += name;
  }
  return out;
}

std::string group_node_list(std::span<const PlannedNodeKernel> nodes) {
  std::string ids;
  std::string kinds;
  for (const PlannedNodeKernel& k : nodes) {
    if (!ids.empty()) {
      ids += ',';
      kinds += ',';
    }
    ids += std::to_string(k.node_id);
    kinds += ir::to_string(k.kind);
  }
  return ids + " [" + kinds + "]";
}

// The obligations of `failures` as a table: capsule, field, claim, evidence, disposition.
void obligations_table(std::string& out, const std::vector<ObligationReport>& obligations) {
  out +=
      "<table>\n<tr><th>capsule</th><th>contract</th><th>claim</th><th>evidence</th>"
      "<th>disposition</th></tr>\n";
  for (const ObligationReport& o : obligations) {
    out += "<tr>";
    code_cell(out, o.capsule);
    cell(out, to_string(o.field));
    cell(out, o.claim);
    cell(out, label(o.evidence));
    cell(out, to_string(o.disposition));
    out += "</tr>\n";
  }
  out += "</table>\n";
}

void boundary_section(std::string& out, const GraphEvaluation& evaluation, const ir::Graph& graph,
                      const ReportHtmlOptions& options) {
  const GraphLoweringPlan& plan = evaluation.lowering;
  out += "<section id=\"boundary\">\n<h2>Trusted-external boundary</h2>\n";
  if (!evaluation.audit.has_trusted_external()) {
    out += "<p class=\"quiet\">";
    put(out, boundary_line(evaluation.audit));
    out += ": no group runs a trusted-external capsule.</p>\n</section>\n";
    return;
  }
  std::size_t groups = 0;
  std::size_t nodes = 0;
  for (const LoweredKernelGroup& g : plan.groups) {
    if (!g.has_trusted_external(*plan.registry)) continue;
    ++groups;
    nodes += g.count;
  }
  out += "<div class=\"alarm\">\n<p><strong>TRUSTED EXTERNAL</strong> <code>";
  put(out, boundary_line(evaluation.audit));
  out += "</code></p>\n<p>";
  out += counted(groups, "group") + " of " + std::to_string(plan.groups.size()) + " (" +
         counted(nodes, "node") +
         ") run capsules of trust <code>trusted-external</code>: their correctness rests on the "
         "provider's word, not on evidence nnplan can check.</p>\n";
  out += "<table>\n<tr><th>group</th><th>nodes</th><th>";
  out += options.onnx_names ? "ONNX nodes" : "names";
  out += "</th><th>op</th><th>capsule</th><th>provider</th><th>trusted boundaries</th></tr>\n";
  for (std::size_t i = 0; i < plan.groups.size(); ++i) {
    const LoweredKernelGroup& g = plan.groups[i];
    if (!g.has_trusted_external(*plan.registry)) continue;
    const KernelCapsule& c = plan.capsule(g);
    out += "<tr><td><a href=\"#group-" + std::to_string(i) + "\">group " + std::to_string(i) +
           "</a></td>";
    cell(out, group_node_list(plan.group_nodes(g)));
    code_cell(out, node_names(graph, plan.group_nodes(g)));
    cell(out, to_string(g.op));
    code_cell(out, c.name);
    cell(out, to_string(c.provider));
    out += "<td>";
    bool any = false;
    for (std::size_t f = 0; f < kContractFieldNames.size(); ++f) {
      const auto field = static_cast<ContractField>(f);
      const Evidence& e = c.contract(field).evidence;
      if (e.kind != EvidenceKind::trusted_boundary) continue;
      if (any) out += "<br>";
      out += to_string(field);
      out += ": ";
      put(out, label(e));
      any = true;
    }
    if (!any) out += "none named";
    out += "</td></tr>\n";
  }
  out += "</table>\n</div>\n</section>\n";
}

// Whether `layouts` describes the plan's groups (one entry per group).
bool layouts_known(const RunLayouts& layouts, const GraphLoweringPlan& plan) {
  return !plan.groups.empty() && layouts.groups.size() == plan.groups.size();
}

// Whether a contract layout names dense row-major storage, the layout the runtime calls flat.
bool flat_claim(Layout layout) {
  return layout == Layout::flat_row_major || layout == Layout::canonical_tensor;
}

// The NaN and infinity caveats of `capsules` (each listed once, in the order given): a paragraph
// `intro` and one item per capsule whose value claim differs from the reference provider there.
// Returns whether it wrote any.
bool special_value_caveats(std::string& out, const Registry& registry,
                           std::span<const CapsuleId> capsules, std::string_view intro) {
  bool any = false;
  for (CapsuleId id : capsules) {
    const KernelCapsule& c = registry.capsule(id);
    const std::string_view caveat = special_value_caveat(c.value);
    if (caveat.empty()) continue;
    if (!any) {
      out += "<p>";
      out += intro;
      out += "</p>\n<ul>\n";
      any = true;
    }
    out += "<li><code>";
    put(out, c.name);
    out += "</code>: ";
    put(out, caveat);
    out += "</li>\n";
  }
  if (any) out += "</ul>\n";
  return any;
}

// Links to the groups `indices`, the first 20 of them, then how many more.
std::string group_links(const std::vector<std::size_t>& indices) {
  constexpr std::size_t kShown = 20;
  std::string out;
  for (std::size_t k = 0; k < indices.size() && k < kShown; ++k) {
    const std::string g = std::to_string(indices[k]);
    out += (k == 0 ? "" : ", ") + ("<a href=\"#group-" + g + "\">" + g + "</a>");
  }
  if (indices.size() > kShown) out += " and " + std::to_string(indices.size() - kShown) + " more";
  return out;
}

// The sizes a plan of a model with open input dimensions was made for, as a caveat (nothing when
// the model has none).
void open_dims_caveat(std::string& body, std::span<const std::string> open_dims) {
  if (open_dims.empty()) return;
  body +=
      "<p id=\"open-dims-caveat\">Open dimensions: the model leaves input dimensions open, "
      "and this plan was made for ";
  for (std::size_t i = 0; i < open_dims.size(); ++i) {
    body += i == 0 ? "" : ", ";
    put(body, open_dims[i]);
  }
  body +=
      ". Other sizes are planned and gated again before they run (nnplan run, "
      "nnplan.Session); this page is the plan for these.</p>\n";
}

// What an auditor must not miss, first on the page: the capsules of the plan whose value claims
// differ from the reference provider on NaN or infinity, each with how, and the groups that run
// channels-last where their contracts claim a flat layout, and the sizes the plan was made for
// when the model leaves input dimensions open; no section when there is none of these.
void caveats_section(std::string& out, const GraphEvaluation& evaluation, const RunLayouts& layouts,
                     std::span<const std::string> open_dims) {
  const GraphLoweringPlan& plan = evaluation.lowering;
  std::string body;
  open_dims_caveat(body, open_dims);
  special_value_caveats(body, *plan.registry, evaluation.audit.distinct_capsules(),
                        "NaN and infinity: where the plan's capsules compute what the reference "
                        "provider does not (every other value within each capsule's stated "
                        "tolerance).");
  if (layouts_known(layouts, plan)) {
    std::vector<std::size_t> channels_last;
    std::size_t reorders = 0;
    for (std::size_t i = 0; i < plan.groups.size(); ++i) {
      const GroupLayout& l = layouts.groups[i];
      reorders += l.to_channels_last + l.to_flat;
      if (l.channels_last > 0 && flat_claim(plan.capsule(plan.groups[i]).layout.claim.layout)) {
        channels_last.push_back(i);
      }
    }
    if (!channels_last.empty()) {
      body += "<p id=\"layout-caveat\">Layouts: " +
              std::string(channels_last.size() == 1 ? "group " : "groups ") +
              group_links(channels_last) + " of " + std::to_string(plan.groups.size()) + " run" +
              (channels_last.size() == 1 ? "s" : "") +
              " channels-last (the channel axis last in memory) when this build compiles the "
              "plan on this machine, where " +
              (channels_last.size() == 1 ? "its contract claims" : "their contracts claim") +
              " a flat row-major layout; " + counted(reorders, "reorder command") +
              " change values between the two layouts. Each group says how.</p>\n";
    }
  }
  if (body.empty()) return;
  out += "<section id=\"caveats\">\n<h2>Caveats</h2>\n" + body + "</section>\n";
}

// The trust levels `policy` admits in planning and the evidence kinds its gate accepts, each as
// the command line spells them, comma-separated.
std::string admitted_trust(const AssurancePolicy& policy) {
  std::string out;
  for (std::size_t i = 0; i < kTrustLevelNames.size(); ++i) {
    const auto trust = static_cast<TrustLevel>(i);
    if (!admits_trust(policy, trust)) continue;
    out += (out.empty() ? "" : ", ") + std::string(to_string(trust));
  }
  return out;
}

std::string accepted_evidence(const AssurancePolicy& policy) {
  std::string out;
  for (std::size_t i = 0; i < kEvidenceKindNames.size(); ++i) {
    const auto kind = static_cast<EvidenceKind>(i);
    if (gate_failure_for(policy, disposition(kind))) continue;
    out += (out.empty() ? "" : ", ") + std::string(to_string(kind));
  }
  return out;
}

// What each assurance policy admits, computed from the policies themselves, and why `verified`
// admits nothing of this profile's registry when none of its capsules is verified.
void trust_section(std::string& out, const BackendProfile& profile) {
  out +=
      "<section id=\"trust\">\n<h2>Trust and assurance</h2>\n<p>Planning chooses only "
      "capsules whose trust level the assurance policy admits; the gate then accepts the plan "
      "only if every contract's evidence is of a kind the policy accepts. This plan's policy "
      "is <code>";
  put(out, label(profile.config.assurance));
  out +=
      "</code>.</p>\n<table>\n<tr><th>policy</th><th>trust levels admitted</th><th>evidence "
      "the gate accepts</th></tr>\n";
  for (std::size_t i = 0; i < kAssurancePresetNames.size(); ++i) {
    const auto preset = static_cast<AssurancePreset>(i);
    const AssurancePolicy policy = policy_of(preset);
    out += "<tr><td><code>";
    out += to_string(preset);
    out += "</code></td><td>";
    put(out, admitted_trust(policy));
    out += "</td><td>";
    put(out, accepted_evidence(policy));
    out += "</td></tr>\n";
  }
  out += "</table>\n";
  if (profile.registry != nullptr &&
      std::ranges::none_of(profile.registry->capsules(), [](const KernelCapsule& c) {
        return c.trust_level == TrustLevel::verified;
      })) {
    out +=
        "<p>No capsule of this profile's registry has trust <code>verified</code>, so "
        "<code>--assurance verified</code> admits none of them: it is for registries of "
        "capsules whose contracts are proved (theorem or checker evidence), loaded with "
        "<code>--registry</code>.</p>\n";
  }
  out += "</section>\n";
}

void gate_section(std::string& out, const BackendProfile& profile,
                  const GraphEvaluation& evaluation) {
  const std::string policy(label(profile.config.assurance));
  out += "<section id=\"gate\">\n<h2>Gate</h2>\n";
  if (evaluation.accepted()) {
    out += "<p>gate: accepted under assurance " + policy +
           ": the evidence of every obligation of every group is admitted by the policy.</p>\n"
           "</section>\n";
    return;
  }
  const Error error = gate_error(profile.config.assurance, evaluation.gate_failures);
  out += "<p class=\"fails\">";
  put(out, error.message);
  out += "</p>\n";
  for (const GateFailure& f : evaluation.gate_failures) {
    out += "<div class=\"failure\">\n<h3>";
    out += to_string(f.kind);
    out += "</h3>\n<p>groups ";
    for (std::size_t i = 0; i < f.groups.size(); ++i) {
      if (i != 0) out += ",";
      const std::string g = std::to_string(f.groups[i]);
      out += "<a href=\"#group-" + g + "\">" + g + "</a>";
    }
    if (!f.node_ids.empty()) out += "; nodes " + joined(f.node_ids, ",");
    out += "</p>\n";
    obligations_table(out, f.obligations);
    out += "</div>\n";
  }
  out += "</section>\n";
}

void coverage_section(std::string& out, const BackendProfile& profile,
                      const GraphLoweringPlan& plan) {
  std::array<std::size_t, kProviderNames.size()> provider_groups{};
  std::array<std::size_t, kProviderNames.size()> provider_nodes{};
  std::array<std::size_t, kTrustLevelNames.size()> trust_groups{};
  std::array<std::size_t, kTrustLevelNames.size()> trust_nodes{};
  for (const LoweredKernelGroup& g : plan.groups) {
    const KernelCapsule& c = plan.capsule(g);
    ++provider_groups[static_cast<std::size_t>(c.provider)];
    provider_nodes[static_cast<std::size_t>(c.provider)] += g.count;
    ++trust_groups[static_cast<std::size_t>(c.trust_level)];
    trust_nodes[static_cast<std::size_t>(c.trust_level)] += g.count;
  }
  out += "<section id=\"coverage\">\n<h2>Coverage</h2>\n<p>lowering=";
  out += to_string(profile.lowering);
  out += ": " + counted(plan.nodes.size(), "planned node") + " in " +
         counted(plan.groups.size(), "group") + "</p>\n";
  out += "<table>\n<tr><th>provider</th><th>groups</th><th>nodes</th></tr>\n";
  for (std::size_t i = 0; i < provider_groups.size(); ++i) {
    if (provider_groups[i] == 0) continue;
    out += "<tr><td>";
    provider_swatch(out, static_cast<Provider>(i));
    out += "</td><td>" + std::to_string(provider_groups[i]) + "</td><td>" +
           std::to_string(provider_nodes[i]) + "</td></tr>\n";
  }
  out += "</table>\n<table>\n<tr><th>trust</th><th>groups</th><th>nodes</th></tr>\n";
  for (std::size_t i = 0; i < trust_groups.size(); ++i) {
    if (trust_groups[i] == 0) continue;
    out += "<tr><td>";
    trust_badge(out, static_cast<TrustLevel>(i));
    out += "</td><td>" + std::to_string(trust_groups[i]) + "</td><td>" +
           std::to_string(trust_nodes[i]) + "</td></tr>\n";
  }
  out += "</table>\n</section>\n";
}

void provenance_text(std::string& out, const std::vector<Provenance>& provenance) {
  bool first = true;
  for (const Provenance& p : provenance) {
    if (!first) out += "<br>";
    first = false;
    out += to_string(p.kind);
    out += ": ";
    switch (p.kind) {
      case ProvenanceKind::source_file:
        put(out, p.path);
        break;
      case ProvenanceKind::native_symbol:
        put(out, p.symbol);
        out += " in ";
        put(out, p.path);
        if (!p.build_target.empty()) {
          out += " (build target ";
          put(out, p.build_target);
          out += ")";
        }
        break;
      case ProvenanceKind::note:
        put(out, p.text);
        break;
    }
  }
}

// The four contracts of `c` with their evidence, and whether the policy's gate fails each.
void contracts_table(std::string& out, const KernelCapsule& c, const AssurancePolicy& policy) {
  out +=
      "<table class=\"contracts\">\n<tr><th>contract</th><th>claim</th><th>summary</th>"
      "<th>evidence</th><th>disposition</th><th>gate</th><th>provenance</th></tr>\n";
  for (std::size_t f = 0; f < kContractFieldNames.size(); ++f) {
    const auto field = static_cast<ContractField>(f);
    const ContractDescriptor& d = c.contract(field);
    const Disposition disp = disposition(d.evidence.kind);
    out += "<tr>";
    element(out, "th", to_string(field));
    if (field == ContractField::vjp && c.vjp_mode == VjpMode::none) {
      // A forward-only capsule's VJP claim is about the gradient it does not compute.
      cell(out, "forward only: this capsule computes no gradient (" + label(d.claim) + ")");
    } else {
      cell(out, label(d.claim));
    }
    cell(out, d.summary);
    cell(out, label(d.evidence));
    cell(out, to_string(disp));
    if (const auto failure = gate_failure_for(policy, disp)) {
      out += "<td class=\"fails\">fails: ";
      out += to_string(*failure);
      out += "</td>";
    } else {
      out += "<td>passes</td>";
    }
    out += "<td>";
    provenance_text(out, d.provenance);
    out += "</td></tr>\n";
  }
  out += "</table>\n";
}

// The layout group `index` runs in beside the layout its contract claims: the same, or how it
// differs (channels-last commands and the reorders around them), or that it was not computed.
void layout_line(std::string& out, const KernelCapsule& c, const RunLayouts& layouts,
                 const GraphLoweringPlan& plan, std::size_t index) {
  const std::string claimed(to_string(c.layout.claim.layout));
  out += "<p class=\"layout\">layout: its contract claims <code>" + claimed + "</code>";
  if (!layouts_known(layouts, plan)) {
    out +=
        "; the layout it runs in is chosen when the plan is compiled, which was not done for "
        "this page";
    if (!layouts.missing_reason.empty()) {
      out += " (";
      put(out, layouts.missing_reason);
      out += ")";
    }
    out += ".</p>\n";
    return;
  }
  const GroupLayout& l = layouts.groups[index];
  if (l.channels_last == 0) {
    out += "; on this machine it runs flat (dense row-major)";
    out += flat_claim(c.layout.claim.layout) ? ", as claimed.</p>\n" : ".</p>\n";
    return;
  }
  out += flat_claim(c.layout.claim.layout) ? " at its boundary, but" : ";";
  out +=
      " on this machine it runs <strong>channels-last</strong> (the channel axis last in "
      "memory)";
  if (l.channels_last < l.commands) {
    out += " in " + std::to_string(l.channels_last) + " of its " + std::to_string(l.commands) +
           " commands (flat in the others)";
  }
  out += ": its operands and results lie channels-last";
  if (l.to_channels_last + l.to_flat == 0) {
    out +=
        ", and no value is reordered for it: what it reads comes from, and what it writes goes "
        "to, commands that run channels-last too";
  } else {
    std::vector<std::string> parts;
    if (l.to_channels_last > 0) {
      parts.push_back(counted(l.to_channels_last, "value") + " it reads " +
                      (l.to_channels_last == 1 ? "is" : "are") +
                      " reordered from flat to channels-last before it");
    }
    if (l.to_flat > 0) {
      parts.push_back(counted(l.to_flat, "value") + " it writes " +
                      (l.to_flat == 1 ? "is" : "are") +
                      " reordered back to flat for a flat reader or a graph output");
    }
    out += "; " + parts[0] + (parts.size() > 1 ? " and " + parts[1] : "") +
           (l.to_channels_last + l.to_flat == 1 ? ", by a reorder command of its own"
                                                : ", each by a reorder command of its own");
  }
  out += ". The graph's inputs and outputs stay flat.</p>\n";
}

void numerical_table(std::string& out, const NumericalPolicy& numerical) {
  // label() spells `round=R,subnormal=S,contract=C,reduce=D`: one row per pair.
  const std::string text = label(numerical);
  out += "<p>numerical policy: <code>";
  put(out, text);
  out += "</code></p>\n<table class=\"numerics\">\n";
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string_view pair = std::string_view(text).substr(start, end - start);
    const std::size_t eq = pair.find('=');
    out += "<tr>";
    element(out, "th", pair.substr(0, eq));
    cell(out, eq == std::string_view::npos ? "" : pair.substr(eq + 1));
    out += "</tr>\n";
    start = end + 1;
  }
  out += "</table>\n";
}

void groups_section(std::string& out, const BackendProfile& profile, const ir::Graph& graph,
                    const GraphEvaluation& evaluation, const ReportHtmlOptions& options) {
  const GraphLoweringPlan& plan = evaluation.lowering;
  // The failure kinds naming each group, one bit per kind.
  std::vector<std::uint8_t> failing(plan.groups.size(), 0);
  for (const GateFailure& f : evaluation.gate_failures) {
    for (std::uint32_t g : f.groups) {
      if (g < failing.size()) failing[g] |= std::uint8_t(1u << static_cast<unsigned>(f.kind));
    }
  }
  std::array<bool, kProviderNames.size()> used{};
  for (const LoweredKernelGroup& g : plan.groups) {
    used[static_cast<std::size_t>(plan.capsule(g).provider)] = true;
  }
  out += "<section id=\"groups\">\n<h2>Groups</h2>\n<p>";
  out += counted(plan.groups.size(), "group") + " in execution order, colored by provider; " +
         (options.expanded ? std::string("each with")
                           : std::string("open one (or write the page with --expanded, "
                                         "expanded=True in Python, for all of them open) for")) +
         " its nodes, capsule, four contracts with their evidence, the layout it runs in, and "
         "numerical policy. A claim that a capsule refines <code>Spec.&lt;op&gt;</code> names "
         "TorchLean's Lean specification of that op.</p>\n";
  if (!layouts_known(options.layouts, plan) && !plan.groups.empty()) {
    out += "<p class=\"note\">Layouts as run: not computed for this page";
    if (!options.layouts.missing_reason.empty()) {
      out += " (";
      put(out, options.layouts.missing_reason);
      out += ")";
    }
    out +=
        ". A layout contract is the capsule's claim; the command buffer may still keep a value "
        "channels-last between commands whose handlers run that layout (nnplan run --trace "
        "records each command's layout).</p>\n";
  }
  out += "<p>providers:";
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (!used[i]) continue;
    out += " ";
    provider_swatch(out, static_cast<Provider>(i));
  }
  out += "</p>\n";
  for (std::size_t i = 0; i < plan.groups.size(); ++i) {
    const LoweredKernelGroup& g = plan.groups[i];
    const KernelCapsule& c = plan.capsule(g);
    const bool trusted_external = g.has_trusted_external(*plan.registry);
    const auto nodes = plan.group_nodes(g);
    const std::string index = std::to_string(i);
    out += "<details class=\"group p-";
    out += to_string(c.provider);
    if (trusted_external) out += " trusted-external";
    out += "\" id=\"group-" + index + "\"";
    if (options.expanded) out += " open";
    out += ">\n<summary>group " + index + ": nodes ";
    put(out, group_node_list(nodes));
    out += " op=";
    out += to_string(g.op);
    out += " capsule=<code>";
    put(out, c.name);
    out += "</code> provider=";
    out += to_string(c.provider);
    out += " ";
    trust_badge(out, c.trust_level);
    out += " grouping=";
    out += to_string(g.grouping);
    if (options.onnx_names) {
      if (const std::string names = node_names(graph, nodes); !names.empty()) {
        out += " onnx=<code>";
        put(out, names);
        out += "</code>";
      }
    }
    if (trusted_external) out += " <span class=\"te\">TRUSTED EXTERNAL</span>";
    if (failing[i] != 0) {
      out += " <span class=\"fails\">fails gate:";
      for (std::size_t k = 0; k < kGateFailureKindNames.size(); ++k) {
        if ((failing[i] & (1u << k)) == 0) continue;
        out += " ";
        out += to_string(static_cast<GateFailureKind>(k));
      }
      out += "</span>";
    }
    out += "</summary>\n<div>\n";
    // Nodes.
    out += "<table class=\"nodes\">\n<tr><th>node</th><th>kind</th><th>shape</th><th>";
    out += options.onnx_names ? "ONNX node" : "name";
    out += "</th></tr>\n";
    for (const PlannedNodeKernel& k : nodes) {
      out += "<tr><td>" + std::to_string(k.node_id) + "</td>";
      cell(out, ir::to_string(k.kind));
      if (k.node_id < graph.nodes.size()) {
        const ir::Node& node = graph.nodes[k.node_id];
        cell(out, ir::to_string(node.shape));
        if (node.source_name.empty()) {
          out += "<td></td>";
        } else {
          code_cell(out, options.onnx_names ? "onnx=" + node.source_name : node.source_name);
        }
      } else {
        out += "<td></td><td></td>";
      }
      out += "</tr>\n";
    }
    out += "</table>\n";
    // Capsule.
    out += "<table class=\"capsule\">\n<tr><th>capsule</th>";
    code_cell(out, c.name);
    out += "</tr>\n<tr><th>module</th>";
    code_cell(out, plan.registry->module_of(g.capsule));
    out += "</tr>\n<tr><th>op</th>";
    std::string op(to_string(c.op));
    if (c.is_fused()) {
      op = "fused";
      for (BackendOp p : c.pattern) {
        op += " ";
        op += to_string(p);
      }
    }
    cell(out, op);
    out += "</tr>\n<tr><th>provider</th><td>";
    provider_swatch(out, c.provider);
    out += "</td></tr>\n<tr><th>device</th>";
    cell(out, to_string(c.device));
    out += "</tr>\n<tr><th>trust</th><td>";
    trust_badge(out, c.trust_level);
    out += "</td></tr>\n<tr><th>vjp</th>";
    cell(out, to_string(c.vjp_mode));
    out += "</tr>\n<tr><th>grouping</th>";
    cell(out, to_string(g.grouping));
    out += "</tr>\n";
    if (!c.notes.empty()) {
      out += "<tr><th>notes</th>";
      cell(out, c.notes);
      out += "</tr>\n";
    }
    out += "</table>\n";
    contracts_table(out, c, profile.config.assurance);
    layout_line(out, c, options.layouts, plan, i);
    numerical_table(out, c.numerical);
    out += "</div>\n</details>\n";
  }
  out += "</section>\n";
}

void picture_section(std::string& out, const PlacementPicture& picture) {
  out += "<section id=\"picture\">\n<h2>Placement picture</h2>\n";
  if (!picture.svg.empty()) {
    if (const auto svg = inline_svg(picture.svg)) {
      out += "<div class=\"picture\">\n" + *svg + "\n</div>\n</section>\n";
      return;
    }
  }
  out += "<p class=\"note\">No placement picture: ";
  if (!picture.svg.empty()) {
    out += "the SVG given is not one Graphviz writes for a plan, so it was left out";
  } else if (picture.missing_reason.empty()) {
    out += "none was rendered";
  } else {
    put(out, picture.missing_reason);
  }
  out +=
      ". <code>nnplan dot MODEL | dot -Tsvg</code> draws it where Graphviz is "
      "installed.</p>\n</section>\n";
}

// ---- a graph that could not be planned ----

// The node ids `ids`, as people list them: "node 2", "nodes 2 and 5", "nodes 2, 5 and 7"; past
// 20, the first 20 and how many more.
std::string node_list(const std::vector<ir::NodeId>& ids) {
  constexpr std::size_t kShown = 20;
  std::string out = ids.size() == 1 ? "node " : "nodes ";
  const std::size_t shown = std::min(ids.size(), kShown);
  for (std::size_t k = 0; k < shown; ++k) {
    if (k != 0) out += k + 1 == shown && ids.size() <= kShown ? " and " : ", ";
    out += std::to_string(ids[k]);
  }
  if (ids.size() > kShown) out += " and " + std::to_string(ids.size() - kShown) + " more";
  return out;
}

// One op that has no admissible capsule: the planner's explanation and the nodes it fails.
struct OpFailure {
  BackendOp op = BackendOp::add;
  Error explanation;
  std::vector<ir::NodeId> nodes;
};

// Where each node of a graph that could not be planned would run: per node, the capsule planning
// chooses for its op (OpDecisions, as plan_graph decides it), nullopt for a node without runtime
// work, or the index of its op's failure.
struct UnplannedGraph {
  struct Node {
    std::optional<BackendOp> op;
    std::optional<CapsuleId> capsule;
    std::optional<std::size_t> failure;
  };
  std::vector<Node> nodes;
  std::vector<OpFailure> failures;  // in the order of each op's first node
  std::vector<CapsuleId> capsules;  // the distinct capsules chosen, in first-use order
};

UnplannedGraph place_nodes(const BackendProfile& profile, const ir::Graph& graph,
                           const Error& error) {
  const Availability availability = profile.availability();
  OpDecisions decisions(profile.config, *profile.registry, &availability);
  std::array<std::optional<std::size_t>, kBackendOpCount> failed_op{};
  std::vector<bool> used(profile.registry->size(), false);
  UnplannedGraph out;
  out.nodes.reserve(graph.nodes.size());
  for (const ir::Node& node : graph.nodes) {
    UnplannedGraph::Node& placed = out.nodes.emplace_back();
    placed.op = backend_op_of(node.kind);
    if (!placed.op) continue;
    const auto op_index = static_cast<std::size_t>(*placed.op);
    if (!failed_op[op_index]) {
      auto chosen = decisions.decide(*placed.op);
      if (chosen) {
        placed.capsule = *chosen;
        if (!used[*chosen]) {
          used[*chosen] = true;
          out.capsules.push_back(*chosen);
        }
        continue;
      }
      failed_op[op_index] = out.failures.size();
      Error explanation = std::move(chosen.error());
      explanation.context.clear();
      out.failures.push_back(
          {.op = *placed.op, .explanation = std::move(explanation), .nodes = {}});
    }
    placed.failure = failed_op[op_index];
    out.failures[*placed.failure].nodes.push_back(node.id);
  }
  // Planning's own error, when it names a node this walk did not find failing (it cannot, unless
  // the profile changed between the two): the error is shown as it is.
  if (out.failures.empty() && error.position && *error.position < graph.nodes.size()) {
    const ir::Node& node = graph.nodes[*error.position];
    Error explanation = error;
    explanation.context.clear();
    out.nodes[node.id].failure = 0;
    out.failures.push_back({.op = out.nodes[node.id].op.value_or(BackendOp::add),
                            .explanation = std::move(explanation),
                            .nodes = {node.id}});
  }
  return out;
}

// The verdict line: planning's message for one failing op, else every failing op and the device.
std::string failure_summary(const BackendProfile& profile, const UnplannedGraph& unplanned) {
  if (unplanned.failures.size() == 1) return unplanned.failures[0].explanation.message;
  std::string ops;
  std::size_t nodes = 0;
  for (std::size_t k = 0; k < unplanned.failures.size(); ++k) {
    if (k != 0) ops += k + 1 == unplanned.failures.size() ? " and " : ", ";
    ops += to_string(unplanned.failures[k].op);
    nodes += unplanned.failures[k].nodes.size();
  }
  return "no admissible backend capsule for ops " + ops + " on device " +
         std::string(to_string(profile.config.device)) + " (" + counted(nodes, "node") + ")";
}

// An error's message, context frames, notes and candidates with every reason.
void error_details(std::string& out, const Error& error) {
  out += "<p class=\"fails\">";
  put(out, error.message);
  out += "</p>\n";
  if (!error.context.empty() || !error.notes.empty()) {
    out += "<ul>\n";
    for (const std::string& line : error.context) {
      element(out, "li", line);
      out += '\n';
    }
    for (const std::string& line : error.notes) {
      element(out, "li", line);
      out += '\n';
    }
    out += "</ul>\n";
  }
  if (error.candidates.empty()) return;
  out +=
      "<table class=\"candidates\">\n<tr><th>candidate capsule</th><th>provider</th>"
      "<th>device</th><th>why it is not admissible</th></tr>\n";
  for (const CandidateReport& c : error.candidates) {
    out += "<tr>";
    code_cell(out, c.capsule);
    cell(out, c.provider);
    cell(out, c.device);
    out += "<td>";
    for (std::size_t i = 0; i < c.reasons.size(); ++i) {
      if (i != 0) out += "<br>";
      out += "<code>";
      put(out, c.reasons[i].code);
      out += "</code>: ";
      put(out, c.reasons[i].detail);
    }
    out += "</td></tr>\n";
  }
  out += "</table>\n";
}

// A node's id, kind, shape and name cells.
void node_cells(std::string& out, const ir::Node& node, const ReportHtmlOptions& options) {
  out += "<td>" + std::to_string(node.id) + "</td>";
  cell(out, ir::to_string(node.kind));
  cell(out, ir::to_string(node.shape));
  if (node.source_name.empty()) {
    out += "<td></td>";
  } else {
    code_cell(out, options.onnx_names ? "onnx=" + node.source_name : node.source_name);
  }
}

void unplaceable_section(std::string& out, const ir::Graph& graph, const UnplannedGraph& unplanned,
                         const ReportHtmlOptions& options) {
  std::vector<ir::NodeId> ids;
  for (std::size_t id = 0; id < unplanned.nodes.size(); ++id) {
    if (unplanned.nodes[id].failure) ids.push_back(static_cast<ir::NodeId>(id));
  }
  out += "<section id=\"planning\">\n<h2>Nodes without an admissible capsule</h2>\n<p>";
  out += node_list(ids) + (ids.size() == 1 ? " has" : " have") +
         " no admissible capsule, so the graph has no plan.</p>\n";
  out += "<table class=\"nodes\">\n<tr><th>node</th><th>kind</th><th>shape</th><th>";
  out += options.onnx_names ? "ONNX node" : "name";
  out += "</th><th>op</th></tr>\n";
  for (ir::NodeId id : ids) {
    out += "<tr>";
    node_cells(out, graph.nodes[id], options);
    cell(out, to_string(unplanned.failures[*unplanned.nodes[id].failure].op));
    out += "</tr>\n";
  }
  out += "</table>\n";
  for (const OpFailure& f : unplanned.failures) {
    out += "<div class=\"failure\" id=\"op-";
    out += to_string(f.op);
    out += "\">\n<h3>op ";
    out += to_string(f.op);
    out += ": " + node_list(f.nodes) + "</h3>\n";
    error_details(out, f.explanation);
    out += "</div>\n";
  }
  out += "</section>\n";
}

void placement_section(std::string& out, const ir::Graph& graph, const Registry& registry,
                       const UnplannedGraph& unplanned, const ReportHtmlOptions& options) {
  out +=
      "<section id=\"placement\">\n<h2>Placement of the other nodes</h2>\n<p>Every other node "
      "with the capsule planning chooses for its op under this profile (the first admissible one "
      "in preference order, as <code>nnplan explain</code> shows). Without a plan nothing is "
      "lowered into groups (a fused lowering may still join a chain into one fused capsule) and "
      "no gate judges the evidence.</p>\n";
  out += "<table class=\"placement\">\n<tr><th>node</th><th>kind</th><th>shape</th><th>";
  out += options.onnx_names ? "ONNX node" : "name";
  out += "</th><th>op</th><th>capsule</th><th>provider</th><th>trust</th></tr>\n";
  for (const ir::Node& node : graph.nodes) {
    const UnplannedGraph::Node& placed = unplanned.nodes[node.id];
    if (placed.failure) continue;
    out += "<tr>";
    node_cells(out, node, options);
    if (!placed.op) {
      out += "<td colspan=\"4\">no runtime work</td></tr>\n";
      continue;
    }
    cell(out, to_string(*placed.op));
    const KernelCapsule& c = registry.capsule(*placed.capsule);
    code_cell(out, c.name);
    out += "<td>";
    provider_swatch(out, c.provider);
    out += "</td><td>";
    trust_badge(out, c.trust_level);
    out += "</td></tr>\n";
  }
  out += "</table>\n</section>\n";
}

// ---- a model the importer does not support ----

// The note that lists the supported operators, after the unsupported nodes.
constexpr std::string_view kSupportedOperators = "supported operators: ";

// One unsupported node of the importer's notes: `node 12 'Conv_3' (Conv): <why>`, the name and
// op type as the importer shows them (escaped, and cut with their length when long).
struct UnsupportedNode {
  std::string_view index;
  std::string name;
  std::string_view op_type;
  std::string_view why;
};

// `node <index> '<name>'[ (<n> bytes)] (<op type>): <why>`, or nullopt for another note. A name
// may hold `' (` itself: each place it could end is tried in turn.
std::optional<UnsupportedNode> parse_unsupported_node(std::string_view note) {
  constexpr std::string_view kNode = "node ";
  if (!note.starts_with(kNode)) return std::nullopt;
  std::size_t at = kNode.size();
  const std::size_t digits = at;
  while (at < note.size() && std::isdigit(static_cast<unsigned char>(note[at])) != 0)
    ++at;
  if (at == digits || note.substr(at, 2) != " '") return std::nullopt;
  const std::string_view index = note.substr(digits, at - digits);
  const std::size_t name_begin = at + 2;
  const auto all_digits = [](std::string_view text) {
    return !text.empty() && std::ranges::all_of(text, [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
  };
  for (std::size_t quote = note.find("' (", name_begin); quote != std::string_view::npos;
       quote = note.find("' (", quote + 1)) {
    std::string name(note.substr(name_begin, quote - name_begin));
    std::size_t rest = quote + 1;
    // A long name is cut and followed by its length: `'nnnn...' (20000000 bytes)`.
    if (const std::size_t bytes = note.find(" bytes)", rest);
        bytes != std::string_view::npos && all_digits(note.substr(rest + 2, bytes - rest - 2))) {
      name += note.substr(rest, bytes + 7 - rest);
      rest = bytes + 7;
    }
    if (note.substr(rest, 2) != " (") continue;
    const std::size_t op_end = note.find("): ", rest + 2);
    if (op_end == std::string_view::npos || op_end == rest + 2) continue;
    const std::string_view op_type = note.substr(rest + 2, op_end - rest - 2);
    if (op_type.find_first_of(" '") != std::string_view::npos) continue;
    return UnsupportedNode{.index = index,
                           .name = std::move(name),
                           .op_type = op_type,
                           .why = note.substr(op_end + 3)};
  }
  return std::nullopt;
}

bool contains_ignoring_case(std::string_view text, std::string_view lower_fragment) {
  const auto it =
      std::search(text.begin(), text.end(), lower_fragment.begin(), lower_fragment.end(),
                  [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return it != text.end();
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  put(out, text);
  return out;
}

std::optional<std::string> inline_svg(std::string_view document) {
  const std::size_t begin = document.find("<svg");
  const std::size_t end = document.rfind("</svg>");
  if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) {
    return std::nullopt;
  }
  const std::string_view svg = document.substr(begin, end + 6 - begin);
  // Graphviz writes text with `<`, `>` and `"` escaped, so these can only be markup.
  for (std::string_view forbidden : {"<script", "<style", "<foreignobject", "<image", "<use",
                                     "<iframe", "href=", "<!doctype", "<?"}) {
    if (contains_ignoring_case(svg, forbidden)) return std::nullopt;
  }
  std::string tag(svg.substr(0, svg.find('>') + 1));
  // Drop `xmlns="..."` and `xmlns:xlink="..."` from the root element, with the space before.
  for (std::size_t at = tag.find("xmlns"); at != std::string::npos; at = tag.find("xmlns")) {
    const std::size_t open = tag.find('"', at);
    const std::size_t close = open == std::string::npos ? open : tag.find('"', open + 1);
    if (close == std::string::npos) return std::nullopt;
    const std::size_t from =
        at > 0 && std::isspace(static_cast<unsigned char>(tag[at - 1])) ? at - 1 : at;
    tag.erase(from, close + 1 - from);
  }
  return tag + std::string(svg.substr(svg.find('>') + 1));
}

std::string report_html(const BackendProfile& profile, const ir::Graph& graph,
                        const GraphEvaluation& evaluation, const ReportHtmlOptions& options) {
  const std::string policy(label(profile.config.assurance));
  const bool accepted = evaluation.accepted();
  const std::string verdict =
      std::string(accepted ? "accepted" : "rejected") + " under assurance " + policy;
  std::string out;
  out.reserve(16384 + evaluation.lowering.groups.size() * 4096);
  open_page(out, options, verdict);
  out += "<p class=\"verdict ";
  out += accepted ? "accepted" : "rejected";
  out += "\" id=\"verdict\">gate: " + verdict + "</p>\n";
  if (evaluation.audit.has_trusted_external()) {
    std::string ops;
    for (BackendOp op : evaluation.audit.trusted_external_ops()) {
      if (!ops.empty()) ops += ", ";
      ops += to_string(op);
    }
    out +=
        "<p class=\"alarm\"><strong>TRUSTED EXTERNAL: the plan crosses a trusted-external "
        "boundary at ";
    put(out, ops);
    out += "</strong> (<a href=\"#boundary\">which groups</a>)</p>\n";
  }
  caveats_section(out, evaluation, options.layouts, options.open_dims);
  profile_section(out, profile);
  boundary_section(out, evaluation, graph, options);
  gate_section(out, profile, evaluation);
  trust_section(out, profile);
  coverage_section(out, profile, evaluation.lowering);
  groups_section(out, profile, graph, evaluation, options);
  picture_section(out, options.picture);
  close_page(out);
  return out;
}

std::string unplanned_report_html(const BackendProfile& profile, const ir::Graph& graph,
                                  const Error& error, const ReportHtmlOptions& options) {
  const std::optional<UnplannedGraph> unplanned =
      profile.registry == nullptr ? std::nullopt
                                  : std::optional(place_nodes(profile, graph, error));
  std::string out;
  open_page(out, options, "no plan");
  out += "<p class=\"verdict rejected\" id=\"verdict\">no plan: ";
  put(out, unplanned && !unplanned->failures.empty() ? failure_summary(profile, *unplanned)
                                                     : error.message);
  out += "</p>\n";
  if (!unplanned || unplanned->failures.empty()) {
    // Nothing to place node by node: the error says why.
    profile_section(out, profile);
    out += "<section id=\"planning\">\n<h2>Planning failed</h2>\n";
    error_details(out, error);
    out +=
        "<p class=\"note\">Without a plan there are no groups, coverage, gate verdict or "
        "placement picture to show.</p>\n</section>\n";
    close_page(out);
    return out;
  }
  std::string caveats;
  open_dims_caveat(caveats, options.open_dims);
  special_value_caveats(caveats, *profile.registry, unplanned->capsules,
                        "NaN and infinity: where the capsules the other nodes would run on "
                        "compute what the reference provider does not (every other value "
                        "within each capsule's stated tolerance).");
  if (!caveats.empty()) {
    out += "<section id=\"caveats\">\n<h2>Caveats</h2>\n" + caveats + "</section>\n";
  }
  profile_section(out, profile);
  unplaceable_section(out, graph, *unplanned, options);
  placement_section(out, graph, *profile.registry, *unplanned, options);
  close_page(out);
  return out;
}

std::string unsupported_model_html(const BackendProfile& profile, const Error& error,
                                   const ReportHtmlOptions& options) {
  std::string out;
  open_page(out, options, "not imported");
  out += "<p class=\"verdict rejected\" id=\"verdict\">not imported: ";
  put(out, error.message);
  out += "</p>\n";
  profile_section(out, profile);
  std::vector<UnsupportedNode> nodes;
  std::vector<std::string_view> others;
  std::string_view supported;
  for (const std::string& note : error.notes) {
    if (auto node = parse_unsupported_node(note)) {
      nodes.push_back(*node);
    } else if (note.starts_with(kSupportedOperators)) {
      supported = note;
    } else {
      others.push_back(note);
    }
  }
  out += "<section id=\"unsupported\">\n<h2>Unsupported nodes</h2>\n<p>";
  if (nodes.empty()) {
    out += "The importer does not support something this model uses:";
  } else {
    out += "The importer reads the whole model and lists every node it does not support; " +
           std::string(nodes.size() == 1 ? "this one stops" : "these stop") + " the import:";
  }
  out += "</p>\n";
  if (!nodes.empty()) {
    out +=
        "<table class=\"unsupported\">\n<tr><th>node</th><th>name</th><th>op type</th>"
        "<th>why</th></tr>\n";
    for (const UnsupportedNode& n : nodes) {
      out += "<tr><td>";
      out += n.index;
      out += "</td>";
      code_cell(out, n.name);
      code_cell(out, n.op_type);
      cell(out, n.why);
      out += "</tr>\n";
    }
    out += "</table>\n";
  }
  if (!others.empty() || !error.context.empty()) {
    out += "<ul>\n";
    for (const std::string& line : error.context) {
      element(out, "li", line);
      out += '\n';
    }
    for (std::string_view line : others) {
      element(out, "li", line);
      out += '\n';
    }
    out += "</ul>\n";
  }
  if (!supported.empty()) {
    out += "<details class=\"supported\"";
    if (options.expanded) out += " open";
    out += ">\n<summary>supported operators</summary>\n<p>";
    put(out, supported.substr(kSupportedOperators.size()));
    out += "</p>\n</details>\n";
  }
  out +=
      "<p class=\"note\">The import made no graph, so no other node of the model has a placement "
      "here: no capsule, groups, coverage, gate verdict or placement picture to show. Once the "
      "model imports, this report shows its plan.</p>\n</section>\n";
  close_page(out);
  return out;
}

}  // namespace nnplan::report
