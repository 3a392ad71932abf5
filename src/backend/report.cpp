#include "nnplan/backend/report.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "nnplan/backend/audit.hpp"
#include "nnplan/text_escape.hpp"

namespace nnplan::backend {

std::string kernel_line(const KernelCapsule& c) {
  std::string out = "  ";
  out += to_string(c.op);
  out += ": ";
  append_escaped(out, c.name);
  out += " provider=";
  out += to_string(c.provider);
  out += " trust=";
  out += to_string(c.trust_level);
  out += " vjp=";
  out += to_string(c.vjp_mode);
  out += " numeric=[";
  out += label(c.numerical);
  out += "]";
  return out;
}

std::string detail_lines(const KernelCapsule& c) {
  std::string out;
  for (std::size_t i = 0; i < kContractFieldNames.size(); ++i) {
    const auto field = static_cast<ContractField>(i);
    const ContractDescriptor& d = c.contract(field);
    out += "    ";
    out += to_string(field);
    out += ": ";
    append_escaped(out, label(d.claim));
    out += "; ";
    append_escaped(out, label(d.evidence));
    out += "\n";
  }
  out += "    numerical: ";
  out += label(c.numerical);
  out += "\n";
  return out;
}

std::string profile_summary(const BackendProfile& p) {
  std::string out = "profile=";
  append_escaped(out, p.name);
  out += " device=";
  out += to_string(p.config.device);
  out += " assurance=";
  out += label(p.config.assurance);
  out += " vjp=";
  out += to_string(p.config.vjp_mode);
  return out;
}

std::string boundary_line(const ExecutionAudit& audit) {
  const std::vector<BackendOp> ops = audit.trusted_external_ops();
  std::string out = "trusted external boundary: ";
  if (ops.empty()) return out + "none";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (i != 0) out += ", ";
    out += to_string(ops[i]);
  }
  return out;
}

std::string boundary_line(const ExecutionPlan& plan) {
  return boundary_line(ExecutionAudit(plan));
}

std::string plan_report(const BackendProfile& profile, const ExecutionPlan& plan) {
  std::string out = profile_summary(profile) + "\n" + boundary_line(plan) + "\n";
  for (std::size_t i = 0; i < plan.kernels.size(); ++i) {
    out += kernel_line(plan.capsule(i));
    out += "\n";
    out += detail_lines(plan.capsule(i));
  }
  return out;
}

namespace {

// The distinct ONNX names of one group, in node order: a group of one node (nearly all) needs no
// search; longer groups search the names seen so far, and move to a hash set past kLinear of
// them. Kept across lines so that a report allocates nothing per line.
class NameDedup {
 public:
  void clear() {
    seen_.clear();
    seen_set_.clear();
  }
  // Whether `name` is new in the current group.
  bool add(std::string_view name) {
    if (seen_set_.empty()) {
      if (std::find(seen_.begin(), seen_.end(), name) != seen_.end()) return false;
      seen_.push_back(name);
      if (seen_.size() > kLinear) seen_set_.insert(seen_.begin(), seen_.end());
      return true;
    }
    return seen_set_.insert(name).second;
  }

 private:
  static constexpr std::size_t kLinear = 32;
  std::vector<std::string_view> seen_;
  std::unordered_set<std::string_view> seen_set_;
};

// The text after a group's kind list, `] op=<op> capsule=<capsule> grouping=<kind>`, which depends
// only on (op, capsule, grouping): built once per combination a report meets, so a line of a
// large report is a few appends. For a group of one node, of(plan, g, kind) is the text from the
// node list on, ` [<kind>] op=...`, cached with the kind in the key.
class GroupSuffixes {
 public:
  const std::string& of(const GraphLoweringPlan& plan, const LoweredKernelGroup& g,
                        std::optional<ir::OpKind> kind = std::nullopt) {
    const std::uint64_t key = ((std::uint64_t{g.capsule} * kGroupingKindNames.size() +
                                static_cast<std::uint64_t>(g.grouping)) *
                                   kBackendOpCount +
                               static_cast<std::uint64_t>(g.op)) *
                                  (ir::kOpKindCount + 1) +
                              (kind ? static_cast<std::uint64_t>(*kind) + 1 : 0);
    std::string& suffix = suffixes_[key];
    if (suffix.empty()) {
      if (kind) suffix = " [" + std::string(ir::to_string(*kind));
      suffix += "] op=" + std::string(to_string(g.op)) + " capsule=";
      append_escaped(suffix, plan.capsule(g).name);
      suffix += " grouping=" + std::string(to_string(g.grouping));
    }
    return suffix;
  }

 private:
  std::unordered_map<std::uint64_t, std::string> suffixes_;
};

// The source name group_line shows for node `id`: empty when there is none.
std::string_view onnx_name(const ir::Graph* onnx_graph, ir::NodeId id) {
  if (onnx_graph == nullptr || id >= onnx_graph->nodes.size()) return {};
  return onnx_graph->nodes[id].source_name;
}

// group_line's text, then `end`, appended to `out`.
void append_group_line(std::string& out, const GraphLoweringPlan& plan, std::size_t group_index,
                       const ir::Graph* onnx_graph, NameDedup& dedup, GroupSuffixes& suffixes,
                       std::string_view end = {}) {
  const LoweredKernelGroup& g = plan.groups[group_index];
  const auto nodes = plan.group_nodes(g);
  out += "  group ";
  out += std::to_string(group_index);
  out += ": nodes ";
  if (nodes.size() == 1) {
    out += std::to_string(nodes[0].node_id);
    out += suffixes.of(plan, g, nodes[0].kind);
    if (const std::string_view name = onnx_name(onnx_graph, nodes[0].node_id); !name.empty()) {
      out += " onnx=";
      append_escaped(out, name);
    }
    out += end;
    return;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i != 0) out += ',';
    out += std::to_string(nodes[i].node_id);
  }
  out += " [";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i != 0) out += ',';
    out += ir::to_string(nodes[i].kind);
  }
  out += suffixes.of(plan, g);
  // One ONNX node may become several IR nodes (Div is inv and mul_elem); name it once.
  dedup.clear();
  bool named = false;
  for (const PlannedNodeKernel& k : nodes) {
    const std::string_view name = onnx_name(onnx_graph, k.node_id);
    if (name.empty() || !dedup.add(name)) continue;
    out += named ? "," : " onnx=";
    append_escaped(out, name);
    named = true;
  }
  out += end;
}

}  // namespace

std::string group_line(const GraphLoweringPlan& plan, std::size_t group_index,
                       const ir::Graph* onnx_graph) {
  std::string out;
  NameDedup dedup;
  GroupSuffixes suffixes;
  append_group_line(out, plan, group_index, onnx_graph, dedup, suffixes);
  return out;
}

namespace {

// "1 group", "3 groups".
std::string counted(std::size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

// Groups and nodes per capsule of a plan: one pass over the groups, counting by capsule id, from
// which every coverage line is summed (a registry has hundreds of capsules, a plan up to millions
// of groups).
struct CapsuleCounts {
  std::vector<std::size_t> groups;
  std::vector<std::size_t> nodes;

  explicit CapsuleCounts(const GraphLoweringPlan& plan)
      : groups(plan.registry != nullptr ? plan.registry->size() : 0), nodes(groups.size()) {
    for (const LoweredKernelGroup& g : plan.groups) {
      ++groups[g.capsule];
      nodes[g.capsule] += g.count;
    }
  }
};

// Groups and nodes per value of `key` (a provider or a trust level), in enum order.
template <std::size_t N, class Key>
std::string coverage_lines(const GraphLoweringPlan& plan, const CapsuleCounts& counts,
                           std::string_view title, const std::array<std::string_view, N>& names,
                           Key key) {
  std::array<std::size_t, N> groups{};
  std::array<std::size_t, N> nodes{};
  for (std::size_t id = 0; id < counts.groups.size(); ++id) {
    if (counts.groups[id] == 0) continue;
    const auto k =
        static_cast<std::size_t>(key(plan.registry->capsule(static_cast<CapsuleId>(id))));
    groups[k] += counts.groups[id];
    nodes[k] += counts.nodes[id];
  }
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (groups[i] == 0) continue;
    out += "  " + std::string(title) + " " + std::string(names[i]) + ": " +
           counted(groups[i], "group") + ", " + counted(nodes[i], "node") + "\n";
  }
  return out;
}

// "caveats:" and one line per distinct capsule whose value claim differs from the reference
// provider on NaN or infinity, saying how; nothing when none does.
template <class Ids>
std::string caveat_lines(const GraphLoweringPlan& plan, const Ids& capsules) {
  std::string out;
  for (CapsuleId id : capsules) {
    const KernelCapsule& c = plan.registry->capsule(id);
    const std::string_view caveat = special_value_caveat(c.value);
    if (caveat.empty()) continue;
    if (out.empty())
      out = "caveats (NaN and infinity: how these capsules differ from the reference provider):\n";
    out += "  ";
    append_escaped(out, c.name);
    out += ": ";
    append_escaped(out, caveat);
    out += "\n";
  }
  return out;
}

}  // namespace

void write_graph_report(const BackendProfile& profile, const GraphEvaluation& evaluation,
                        const ir::Graph* onnx_graph,
                        const std::function<void(std::string_view)>& sink) {
  const GraphLoweringPlan& plan = evaluation.lowering;
  std::string out = profile_summary(profile) + "\n" + boundary_line(evaluation.audit) + "\n";
  out += "lowering=" + std::string(to_string(profile.lowering)) + ": " +
         counted(plan.nodes.size(), "planned node") + " in " +
         counted(plan.groups.size(), "group") + "\n";
  // The group lines go out in pieces of about kReportChunkBytes: a report of a million groups is
  // never held whole, and the buffer is allocated once.
  out.reserve(kReportChunkBytes + 4096);
  NameDedup dedup;
  GroupSuffixes suffixes;
  for (std::size_t i = 0; i < plan.groups.size(); ++i) {
    append_group_line(out, plan, i, onnx_graph, dedup, suffixes, "\n");
    if (out.size() >= kReportChunkBytes) {
      sink(out);
      out.clear();
    }
  }
  out += "audit (one entry per distinct capsule; Spec.<op> is TorchLean's Lean specification of the op):\n";
  for (CapsuleId id : evaluation.audit.distinct_capsules()) {
    const KernelCapsule& c = plan.registry->capsule(id);
    out += kernel_line(c) + "\n" + detail_lines(c);
  }
  out += "coverage:\n";
  const CapsuleCounts counts(plan);
  out += coverage_lines(plan, counts, "provider", kProviderNames,
                        [](const KernelCapsule& c) { return c.provider; });
  out += coverage_lines(plan, counts, "trust", kTrustLevelNames,
                        [](const KernelCapsule& c) { return c.trust_level; });
  out += caveat_lines(plan, evaluation.audit.distinct_capsules());
  const std::string policy(label(profile.config.assurance));
  if (evaluation.accepted()) {
    out += "gate: accepted under assurance " + policy + "\n";
  } else {
    out += "gate: rejected under assurance " + policy + "\n";
    for (const std::string& note :
         gate_error(profile.config.assurance, evaluation.gate_failures).notes) {
      out += "  ";
      append_escaped(out, note);
      out += "\n";
    }
  }
  sink(out);
}

std::string graph_report(const BackendProfile& profile, const GraphEvaluation& evaluation,
                         const ir::Graph* onnx_graph) {
  std::string report;
  // About 100 bytes per group line; one reservation instead of doubling through megabytes.
  report.reserve(evaluation.lowering.groups.size() * 112 + 4096);
  write_graph_report(profile, evaluation, onnx_graph,
                     [&report](std::string_view piece) { report += piece; });
  return report;
}

}  // namespace nnplan::backend
