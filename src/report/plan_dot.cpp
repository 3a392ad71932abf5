#include "nnplan/report/plan_dot.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "nnplan/backend/report.hpp"
#include "nnplan/text_escape.hpp"

namespace nnplan::report {

using namespace nnplan::backend;

namespace {

// One pastel per provider, in kProviderNames order, distinct enough to tell providers apart.
constexpr std::array<std::string_view, kProviderNames.size()> kProviderColors = {
    "#a6cee3",  // reference
    "#b2df8a",  // torchlean
    "#fdbf6f",  // native-cuda
    "#fb9a99",  // libtorch
    "#cab2d6",  // aten
    "#ffff99",  // mps
    "#8dd3c7",  // webgpu
    "#fccde5",  // cublas
    "#bebada",  // cudnn
    "#80b1d3",  // cufft
    "#d9d9d9",  // xla
    "#bc80bd",  // neuron
    "#ccebc5",  // custom-chip
    "#ffed6f",  // external
    "#66c2a5",  // onednn
};
// Every provider has its color: a provider added to the vocabulary must be added here too.
static_assert(std::ranges::none_of(kProviderColors,
                                   [](std::string_view color) { return color.empty(); }));

// A DOT double-quoted string body: control characters escaped as in every text output
// (nnplan/text_escape.hpp), then quotes and backslashes escaped for DOT, so a name shows as
// its escaped text and can neither end the string nor break the label into lines.
std::string escape(std::string_view text) {
  const std::string inert = escape_controls(text);
  std::string out;
  out.reserve(inert.size());
  for (char c : inert) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string node_label(const ir::Node& node, bool onnx_names) {
  std::string label = std::to_string(node.id) + ": " + std::string(ir::to_string(node.kind));
  if (!node.source_name.empty()) {
    label += onnx_names ? " onnx=" + node.source_name : " '" + node.source_name + "'";
  }
  return escape(label) + "\\n" + escape(ir::to_string(node.shape));
}

}  // namespace

std::string_view provider_color(Provider provider) {
  return kProviderColors[static_cast<std::size_t>(provider)];
}

std::string plan_dot(const BackendProfile& profile, const ir::Graph& graph,
                     const GraphEvaluation& evaluation, bool onnx_names) {
  const GraphLoweringPlan& plan = evaluation.lowering;
  const std::string verdict = std::string(evaluation.accepted() ? "accepted" : "rejected") +
                              " under assurance " + std::string(label(profile.config.assurance));
  std::string out = "digraph nnplan_plan {\n";
  out += "  graph [rankdir=TB, fontname=\"Helvetica\", labelloc=t, label=\"" +
         escape(profile_summary(profile)) +
         "\\nlowering=" + std::string(to_string(profile.lowering)) + ", " +
         std::to_string(plan.groups.size()) + (plan.groups.size() == 1 ? " group" : " groups") +
         "; gate: " + escape(verdict) + "\"];\n";
  out += "  node [shape=box, style=\"rounded\", fontname=\"Helvetica\"];\n";
  out += "  edge [color=\"#555555\"];\n";

  std::vector<bool> planned(graph.nodes.size(), false);
  for (std::size_t i = 0; i < plan.groups.size(); ++i) {
    const LoweredKernelGroup& g = plan.groups[i];
    const KernelCapsule& c = plan.capsule(g);
    const bool trusted_external = g.has_trusted_external(*plan.registry);
    std::string title = "group " + std::to_string(i) + ": " + c.name;
    if (trusted_external) title += " TRUSTED EXTERNAL";
    out += "  subgraph cluster_" + std::to_string(i) + " {\n";
    out += "    label=\"" + escape(title) + "\\nop=" + std::string(to_string(g.op)) +
           " provider=" + std::string(to_string(c.provider)) +
           " trust=" + std::string(to_string(c.trust_level)) +
           " grouping=" + std::string(to_string(g.grouping)) + "\";\n";
    if (trusted_external) {
      out += "    style=\"rounded,bold\"; color=\"red\"; fontcolor=\"red\"; penwidth=3;\n";
    } else {
      out += "    style=\"rounded\"; color=\"#777777\";\n";
    }
    for (const PlannedNodeKernel& k : plan.group_nodes(g)) {
      if (k.node_id < planned.size()) planned[k.node_id] = true;
      out += "    n" + std::to_string(k.node_id) + " [label=\"" +
             node_label(graph.nodes[k.node_id], onnx_names) +
             "\", style=\"rounded,filled\", fillcolor=\"" +
             std::string(provider_color(c.provider)) + "\"];\n";
    }
    out += "  }\n";
  }
  // The checked graph's ids equal indices, so `planned` is indexed by id.
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    if (planned[i]) continue;
    out += "  n" + std::to_string(graph.nodes[i].id) + " [label=\"" +
           node_label(graph.nodes[i], onnx_names) + "\"];\n";
  }
  for (const ir::Node& node : graph.nodes) {
    for (ir::NodeId parent : node.parents) {
      out += "  n" + std::to_string(parent) + " -> n" + std::to_string(node.id) + ";\n";
    }
  }
  out += "}\n";
  return out;
}

}  // namespace nnplan::report
