// `nnplan explain GRAPH --node N`: why node N runs where it runs. Prints the node, its backend op
// and every capsule of the profile's registry implementing that op, in registry order: the one
// planning chooses, the admissible ones it passes over, and the rejected ones with every reason
// (SPEC §10 codes, availability misses included). Exit 0 when a capsule is chosen or the node
// has no runtime work, 1 when no capsule is admissible, 2 when N is not a node of the graph.
// Then, for every fused capsule whose pattern holds the op, whether the node's chain was fused
// and, if not, why (the fused lowering's own decision, or the capsule's rejection reasons).
#include <fmt/core.h>

#include <algorithm>
#include <optional>

#include "cli.hpp"
#include "nnplan/backend/admissibility.hpp"
#include "nnplan/backend/graph_plan.hpp"
#include "nnplan/backend/lowering.hpp"
#include "nnplan/backend/op_mapping.hpp"
#include "nnplan/backend/planner.hpp"
#include "nnplan/backend/report.hpp"
#include "nnplan/ir/op_kind.hpp"
#include "nnplan/text_escape.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

namespace {

std::string parents_of(const ir::Node& node) {
  if (node.parents.empty()) return "none";
  std::string out;
  for (ir::NodeId p : node.parents) {
    if (!out.empty()) out += ",";
    out += std::to_string(p);
  }
  return out;
}

// How planning picks among the admissible capsules (SPEC §2, "Choosing").
std::string choice_rule(const BackendPreference& preference) {
  switch (preference.kind) {
    case BackendPreference::Kind::prefer:
      return "planning takes the first admissible one of provider " +
             std::string(to_string(preference.provider)) + ", else the first admissible one";
    case BackendPreference::Kind::automatic:
    case BackendPreference::Kind::only:
      break;
  }
  return "planning takes the first admissible one";
}

std::string pattern_text(const KernelCapsule& c) {
  std::string text;
  for (BackendOp op : c.pattern) text += (text.empty() ? "" : ", ") + std::string(to_string(op));
  return text;
}

// The fusion part of explain: every fused capsule whose pattern holds `op`, and what the fused
// lowering decided about the chains through `node`.
std::string explain_fusion(const BackendProfile& profile, const ir::CheckedGraph& checked,
                           const ir::Node& node, BackendOp op) {
  const Registry& registry = *profile.registry;
  std::vector<CapsuleId> relevant;
  for (CapsuleId id : registry.fused()) {
    const auto& pattern = registry.capsule(id).pattern;
    if (std::ranges::find(pattern, op) != pattern.end()) relevant.push_back(id);
  }
  if (relevant.empty()) return {};
  std::string out = "fused capsules whose pattern holds " + std::string(to_string(op)) + ":\n";
  if (profile.lowering != LoweringMode::fused) {
    for (CapsuleId id : relevant) {
      out += "  " + escape_controls(registry.capsule(id).name) + " [" +
             pattern_text(registry.capsule(id)) + "]\n";
    }
    out += "fusion: not tried: lowering " + std::string(to_string(profile.lowering)) +
           " never fuses (--lowering fused, or --profile fast_cpu, does)\n";
    return out;
  }
  auto plan = plan_graph(profile, checked);
  std::vector<FusionDecision> decisions;
  std::optional<GraphLoweringPlan> lowering;
  if (plan) {
    lowering = to_fused_lowering_plan(std::move(*plan), checked.graph(), profile.config,
                                      profile.availability(), &decisions);
  }
  const Availability availability = profile.availability();
  // Capsules no chain through the node reached (their root op is elsewhere) are left out.
  for (CapsuleId id : relevant) {
    const KernelCapsule& c = registry.capsule(id);
    const std::string head = "  " + escape_controls(c.name) + " [" + pattern_text(c) + "]:";
    const auto reasons = rejection_reasons(profile.config, c, &availability);
    if (!reasons.empty()) {
      out += head + " not admissible\n";
      for (const Rejection& r : reasons) {
        out += "    " + std::string(to_string(r.reason));
        if (!r.detail.empty()) out += ": " + escape_controls(r.detail);
        out += "\n";
      }
      continue;
    }
    if (!plan) {
      out += head + " not tried: the graph does not plan (" +
             escape_controls(plan.error().message) + ")\n";
      continue;
    }
    std::string verdicts;
    for (const FusionDecision& d : decisions) {
      if (d.capsule != id || std::ranges::find(d.chain, node.id) == d.chain.end()) continue;
      std::string nodes;
      for (ir::NodeId n : d.chain) nodes += (nodes.empty() ? "" : ", ") + std::to_string(n);
      verdicts += "    from node " + std::to_string(d.root) + " (nodes " + nodes + "): " +
                  (d.taken ? std::string("taken") : "not taken: " + escape_controls(d.reason)) +
                  "\n";
    }
    if (!verdicts.empty()) out += head + "\n" + verdicts;
  }
  if (lowering) {
    for (std::size_t g = 0; g < lowering->groups.size(); ++g) {
      const LoweredKernelGroup& group = lowering->groups[g];
      if (group.grouping != GroupingKind::fused) continue;
      const auto ids = lowering->group_node_ids(group);
      if (std::ranges::find(ids, node.id) == ids.end()) continue;
      std::string nodes;
      for (ir::NodeId n : ids) nodes += (nodes.empty() ? "" : ", ") + std::to_string(n);
      return out + "fusion: node " + std::to_string(node.id) + " runs in fused group " +
             std::to_string(g) + " (" + escape_controls(lowering->capsule(group).name) +
             ", nodes " + nodes + ")\n";
    }
  }
  return out + "fusion: node " + std::to_string(node.id) + " is not fused\n";
}

}  // namespace

void add_explain_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "explain", "Show every capsule for one graph node's op: chosen or rejected, and why");
  cmd->footer(
      "Example: nnplan explain examples/cnn.json --node 1\n"
      "         nnplan explain examples/mlp.json --node 2 --profile checked_cuda\n"
      "Exit codes: 0 a capsule is chosen (or the node has no runtime work), 1 none is "
      "admissible,\n2 usage error or node out of range, 3 unreadable or malformed graph, 4 a "
      "valid model\nthat uses something nnplan does not support.");
  struct Flags {
    ConfigFlags config;
    GraphFlags graph;
    std::string node;
  };
  auto flags = std::make_shared<Flags>();
  flags->graph.add_to(*cmd);
  cmd->add_option("--node", flags->node, "Id of the node to explain")->required();
  flags->config.add_to(*cmd);
  cmd->callback([flags, &exit_code] {
    // The id is checked as text: CLI11 would clamp 99999999999999999999999 to the int64 maximum.
    const auto id = parse_unsigned(flags->node);
    if (!id && id.error() == UnsignedProblem::not_a_number) {
      exit_code = fail(make_error(ErrorKind::invalid_input,
                                  "--node '" + shown_argument(flags->node) +
                                      "' is not a node id; expected a non-negative integer"),
                       kExitUsage);
      return;
    }
    auto input = read_graph_input(flags->config, std::nullopt, flags->graph, Digest::skip);
    if (!input) {
      exit_code = input.error();
      return;
    }
    const BackendProfile* profile = &input->profile;
    const ir::Graph& graph = input->graph.graph->graph();
    if (!id || *id >= graph.nodes.size()) {
      const std::string valid = graph.nodes.empty()
                                    ? std::string("the graph has no nodes")
                                    : "valid: 0.." + std::to_string(graph.nodes.size() - 1);
      exit_code = fail(make_error(ErrorKind::not_found,
                                  "--node " + shown_argument(flags->node) +
                                      " is out of range: node " + shown_argument(flags->node) +
                                      " is not in graph " + flags->graph.graph + "; " + valid),
                       kExitUsage);
      return;
    }
    const ir::Node& node = graph.nodes[static_cast<std::size_t>(*id)];
    std::string out = profile_summary(*profile) + "\n";
    out += escape_controls(ir::describe(node)) + ": shape " + ir::to_string(node.shape) +
           ", parents " + parents_of(node);
    if (input->graph.onnx() && !node.source_name.empty()) {
      out += ", onnx=" + escape_controls(node.source_name);
    }
    out += "\n";
    if (const auto folded = input->graph.folded_sources.find(node.id);
        folded != input->graph.folded_sources.end()) {
      // The shape arithmetic (or constant math) the importer evaluated for this node.
      out += "folded at import: ";
      for (std::size_t i = 0; i < folded->second.size(); ++i)
        out += (i == 0 ? "" : ", ") + escape_controls(folded->second[i]);
      out += "\n";
    }
    const auto op = backend::backend_op_of(node.kind);
    if (!op) {
      out += "backend op: none (no runtime work; nothing to plan)\n";
      fmt::print("{}", out);
      exit_code = kExitOk;
      return;
    }
    out += "backend op: " + std::string(to_string(*op)) + "\n";
    const Availability availability = profile->availability();
    const auto chosen = plan_op(profile->config, *profile->registry, *op, &availability);
    const auto implementing = profile->registry->implementing(*op);
    if (implementing.empty()) {
      out += "no capsule in the registry implements " + std::string(to_string(*op)) + "\n";
    } else {
      out += "capsules implementing " + std::string(to_string(*op)) + ", in registry order (" +
             choice_rule(profile->config.preference) + "):\n";
    }
    for (CapsuleId id : implementing) {
      const KernelCapsule& c = profile->registry->capsule(id);
      const auto reasons = rejection_reasons(profile->config, c, &availability);
      std::string verdict;
      if (chosen && chosen->capsule == id) {
        verdict = "chosen";
      } else if (reasons.empty() && chosen) {
        verdict = "admissible, not chosen: " +
                  escape_controls(profile->registry->capsule(chosen->capsule).name) +
                  " comes first";
      } else {
        verdict = "rejected";
      }
      out += fmt::format("  {} (module {}, provider={} device={} trust={} vjp={}): {}\n",
                         escape_controls(c.name), escape_controls(profile->registry->module_of(id)),
                         to_string(c.provider), to_string(c.device), to_string(c.trust_level),
                         to_string(c.vjp_mode), verdict);
      for (const Rejection& r : reasons) {
        out += "    " + std::string(to_string(r.reason));
        if (!r.detail.empty()) out += ": " + escape_controls(r.detail);
        out += "\n";
      }
    }
    if (chosen) {
      out += "chosen: " + escape_controls(profile->registry->capsule(chosen->capsule).name) + "\n";
    } else {
      out += "chosen: none (" + escape_controls(chosen.error().message) + ")\n";
    }
    out += explain_fusion(*profile, *input->graph.graph, node, *op);
    fmt::print("{}", out);
    exit_code = chosen ? kExitOk : kExitRejected;
  });
}

}  // namespace nnplan::cli
