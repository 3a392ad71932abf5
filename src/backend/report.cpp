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

namespace nnplan::backend {

std::string kernel_line(const KernelCapsule& c) {
  std::string out = "  ";
  out += to_string(c.op);
  out += ": ";
  out += c.name;
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
    out += label(d.claim);
    out += "; ";
    out += label(d.evidence);
    out += "\n";
  }
  out += "    numerical: ";
  out += label(c.numerical);
  out += "\n";
  return out;
}

std::string profile_summary(const BackendProfile& p) {
  std::string out = "profile=";
  out += p.name;
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
// node list on, ` [<kind>] op=...`, cached with the kind in the key. The last combinations met sit
// in a small direct-mapped cache in front of the map (a report alternates between a few of them;
// BM_GraphReport/chain/100000 1.98 ms without it, 1.69 ms with, medians of 5).
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
    Cached& cached = cache_[key % kCache];
    if (cached.suffix != nullptr && cached.key == key) return *cached.suffix;
    std::string& suffix = suffixes_[key];
    if (suffix.empty()) {
      if (kind) suffix = " [" + std::string(ir::to_string(*kind));
      suffix += "] op=" + std::string(to_string(g.op)) + " capsule=" + plan.capsule(g).name +
                " grouping=" + std::string(to_string(g.grouping));
    }
    cached = Cached{.key = key, .suffix = &suffix};  // map nodes do not move
    return suffix;
  }

 private:
  static constexpr std::size_t kCache = 64;
  struct Cached {
    std::uint64_t key = 0;
    const std::string* suffix = nullptr;
  };
  std::array<Cached, kCache> cache_{};
  std::unordered_map<std::uint64_t, std::string> suffixes_;
};

// group_line's text appended to `out`: no temporaries per node.
// Appends through a raw pointer: `write(p)` writes at most `bound` bytes from p and returns the
// end. A report line is a dozen short pieces; bounds-checked appends of each were most of its
// cost.
template <class Write>
void append_bounded(std::string& out, std::size_t bound, Write write) {
  const std::size_t old = out.size();
  out.resize_and_overwrite(old + bound, [&](char* p, std::size_t) {
    return static_cast<std::size_t>(write(p + old) - p);
  });
}

char* put(char* p, std::string_view text) {
  if (text.empty()) return p;  // an empty view may have no data to point at (memcpy wants one)
  std::memcpy(p, text.data(), text.size());
  return p + text.size();
}

// `v` in decimal at p (at most 20 characters); returns the end. Two digits per step from a table,
// as std::to_chars does, but inline and without its range checks: a report line holds two numbers,
// and std::to_chars was a third of writing one (17.8M of 35M instructions for 10^5 lines).
char* put_number(char* p, std::uint64_t v) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  int digits = 1;
  for (std::uint64_t bound = 10; digits < 20 && v >= bound; bound *= 10)
    ++digits;
  char* end = p + digits;
  char* q = end;
  while (v >= 100) {
    const auto pair = static_cast<std::size_t>(v % 100) * 2;
    v /= 100;
    *--q = kPairs[pair + 1];
    *--q = kPairs[pair];
  }
  if (v >= 10) {
    *--q = kPairs[v * 2 + 1];
    *--q = kPairs[v * 2];
  } else {
    *--q = static_cast<char>('0' + v);
  }
  return end;
}

constexpr std::string_view kGroup = "  group ";
constexpr std::string_view kNodes = ": nodes ";
constexpr std::string_view kOnnx = " onnx=";
constexpr std::size_t kNumber = 20;  // digits of a 64-bit number

// The source name group_line shows for node `id`: empty when there is none.
std::string_view onnx_name(const ir::Graph* onnx_graph, ir::NodeId id) {
  if (onnx_graph == nullptr || id >= onnx_graph->nodes.size()) return {};
  return onnx_graph->nodes[id].source_name;
}

// group_line for a group of one node (nearly every group of a large graph), and `end` after it:
// one bounded append for the whole line.
// `rest` is GroupSuffixes::of(plan, g, kind): everything from the node list on.
void append_single_node_line(std::string& out, std::size_t group_index, const PlannedNodeKernel& k,
                             const std::string& rest, std::string_view name, std::string_view end) {
  const std::size_t bound = kGroup.size() + kNumber + kNodes.size() + kNumber + rest.size() +
                            kOnnx.size() + name.size() + end.size();
  append_bounded(out, bound, [&](char* p) {
    p = put(p, kGroup);
    p = put_number(p, group_index);
    p = put(p, kNodes);
    p = put_number(p, k.node_id);
    p = put(p, rest);
    if (!name.empty()) {
      p = put(p, kOnnx);
      p = put(p, name);
    }
    return put(p, end);
  });
}

// group_line's text, then `end`, appended to `out`: no temporaries per node.
void append_group_line(std::string& out, const GraphLoweringPlan& plan, std::size_t group_index,
                       const ir::Graph* onnx_graph, NameDedup& dedup, GroupSuffixes& suffixes,
                       std::string_view end = {}) {
  const LoweredKernelGroup& g = plan.groups[group_index];
  const auto nodes = plan.group_nodes(g);
  if (nodes.size() == 1) {
    append_single_node_line(out, group_index, nodes[0], suffixes.of(plan, g, nodes[0].kind),
                            onnx_name(onnx_graph, nodes[0].node_id), end);
    return;
  }
  const std::string& suffix = suffixes.of(plan, g);
  std::size_t bound = kGroup.size() + kNumber + kNodes.size() + 2 + suffix.size();
  for (const PlannedNodeKernel& k : nodes)
    bound += kNumber + 1 + ir::to_string(k.kind).size() + 1;
  append_bounded(out, bound, [&](char* p) {
    p = put(p, kGroup);
    p = put_number(p, group_index);
    p = put(p, kNodes);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (i != 0) *p++ = ',';
      p = put_number(p, nodes[i].node_id);
    }
    *p++ = ' ';
    *p++ = '[';
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (i != 0) *p++ = ',';
      p = put(p, ir::to_string(nodes[i].kind));
    }
    return put(p, suffix);
  });
  // One ONNX node may become several IR nodes (Div is inv and mul_elem); name it once.
  dedup.clear();
  bool named = false;
  for (const PlannedNodeKernel& k : nodes) {
    const std::string_view name = onnx_name(onnx_graph, k.node_id);
    if (name.empty() || !dedup.add(name)) continue;
    append_bounded(out, kOnnx.size() + name.size(), [&](char* p) {
      p = named ? put(p, ",") : put(p, kOnnx);
      return put(p, name);
    });
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
  // A line reads its nodes' source names from the graph's node array, one cache line per node
  // far apart: fetched a few groups ahead, those misses overlap with the formatting.
  constexpr std::size_t kAhead = 16;
  for (std::size_t i = 0; i < plan.groups.size(); ++i) {
    if (onnx_graph != nullptr && i + kAhead < plan.groups.size()) {
      const ir::NodeId ahead = plan.nodes[plan.groups[i + kAhead].first].node_id;
      if (ahead < onnx_graph->nodes.size()) {
        __builtin_prefetch(&onnx_graph->nodes[ahead].source_name);
      }
    }
    append_group_line(out, plan, i, onnx_graph, dedup, suffixes, "\n");
    if (out.size() >= kReportChunkBytes) {
      sink(out);
      out.clear();
    }
  }
  out += "audit (one entry per distinct capsule):\n";
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
  const std::string policy(label(profile.config.assurance));
  if (evaluation.accepted()) {
    out += "gate: accepted under assurance " + policy + "\n";
  } else {
    out += "gate: rejected under assurance " + policy + "\n";
    for (const std::string& note :
         gate_error(profile.config.assurance, evaluation.gate_failures).notes) {
      out += "  " + note + "\n";
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
