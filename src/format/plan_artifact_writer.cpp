// The writer of `nnplan.plan.v1` artifacts (plan_artifact.hpp). The arrays that grow with the
// graph (groups, audit rows, the groups and node ids of gate failures) are written element by
// element through JsonTextWriter, so writing a plan of a million nodes holds no JSON tree; the
// pieces bounded by the registry (profile, audit kernels, obligations, candidates) are small trees
// written whole. The bytes are those of the tree the format describes, dumped with a two-space
// indent.
#include "json_text_writer.hpp"
#include "nnplan/backend/audit.hpp"
#include "nnplan/backend/gate.hpp"
#include "nnplan/backend/op_mapping.hpp"
#include "nnplan/format/plan_artifact.hpp"
#include "nnplan/ir/op_kind.hpp"

namespace nnplan::format {

using namespace nnplan::backend;
using detail::Json;
using detail::JsonTextWriter;
using detail::str;

namespace {

Json evidence_object(const Evidence& e) {
  return Json{{"kind", str(to_string(e.kind))}, {"name", e.name}, {"label", label(e)}};
}

Json contract_object(const ContractDescriptor& d) {
  Json provenance = Json::array();
  for (const Provenance& p : d.provenance)
    provenance.push_back(detail::provenance_json(p));
  return Json{{"claim", label(d.claim)},
              {"evidence", evidence_object(d.evidence)},
              {"disposition", str(to_string(disposition(d.evidence.kind)))},
              {"summary", d.summary},
              {"provenance", std::move(provenance)}};
}

// Every field of the kernel audit (SPEC §8) with the four contracts spelled out.
Json audit_kernel_object(const KernelCapsule& capsule) {
  const KernelAudit a = audit_kernel(capsule);
  Json contracts = Json::object();
  contracts["shape"] = contract_object(a.shape);
  contracts["layout"] = contract_object(a.layout);
  contracts["value"] = contract_object(a.value);
  contracts["vjp"] = contract_object(a.vjp);
  return Json{{"op", str(to_string(a.op))},
              {"capsule", a.capsule},
              {"provider", str(to_string(a.provider))},
              {"device", str(to_string(a.device))},
              {"trust", str(to_string(a.trust))},
              {"vjp", str(to_string(a.vjp_mode))},
              {"contracts", std::move(contracts)},
              {"numerical", Json{{"label", label(a.numerical)},
                                 {"rounding", str(to_string(a.numerical.rounding))},
                                 {"subnormals", str(to_string(a.numerical.subnormals))},
                                 {"contraction", str(to_string(a.numerical.contraction))},
                                 {"reduction", str(to_string(a.numerical.reduction))}}}};
}

template <class Range>
void number_array(JsonTextWriter& w, const Range& values) {
  w.begin_array();
  for (const auto v : values)
    w.number(v);
  w.end_array();
}

void gate_failures_array(JsonTextWriter& w, const std::vector<GateFailure>& failures) {
  w.begin_array();
  for (const GateFailure& f : failures) {
    Json obligations = Json::array();
    for (const ObligationReport& o : f.obligations) {
      obligations.push_back(Json{{"op", str(to_string(o.op))},
                                 {"capsule", o.capsule},
                                 {"field", str(to_string(o.field))},
                                 {"claim", o.claim},
                                 {"evidence", label(o.evidence)},
                                 {"disposition", str(to_string(o.disposition))}});
    }
    w.begin_object();
    w.key("kind");
    w.string(to_string(f.kind));
    w.key("groups");
    number_array(w, f.groups);
    w.key("node_ids");
    number_array(w, f.node_ids);
    w.key("obligations");
    w.value(obligations);
    w.end_object();
  }
  w.end_array();
}

// `onnx_graph`, when given, is the planned graph imported from ONNX: its node names are listed.
void groups_array(JsonTextWriter& w, const GraphLoweringPlan& plan, const ir::Graph* onnx_graph) {
  w.begin_array();
  for (const LoweredKernelGroup& g : plan.groups) {
    const auto nodes = plan.group_nodes(g);
    w.begin_object();
    w.key("node_ids");
    w.begin_array();
    for (const PlannedNodeKernel& k : nodes)
      w.number(k.node_id);
    w.end_array();
    w.key("kinds");
    w.begin_array();
    for (const PlannedNodeKernel& k : nodes)
      w.string(ir::to_string(k.kind));
    w.end_array();
    if (onnx_graph != nullptr) {
      w.key("onnx_names");
      w.begin_array();
      for (const PlannedNodeKernel& k : nodes) {
        w.string(k.node_id < onnx_graph->nodes.size()
                     ? std::string_view(onnx_graph->nodes[k.node_id].source_name)
                     : std::string_view());
      }
      w.end_array();
    }
    const KernelCapsule& c = plan.capsule(g);
    w.key("op");
    w.string(to_string(g.op));
    w.key("capsule");
    w.string(c.name);
    w.key("provider");
    w.string(to_string(c.provider));
    w.key("device");
    w.string(to_string(c.device));
    w.key("trust");
    w.string(to_string(c.trust_level));
    w.key("grouping");
    w.string(to_string(g.grouping));
    w.end_object();
  }
  w.end_array();
}

// `kernels` holds one entry per distinct capsule; `rows` one per group (audit row), the index of
// its capsule's entry in `kernels`.
void audit_object(JsonTextWriter& w, const ExecutionAudit& audit) {
  std::vector<std::uint32_t> entry_of(
      audit.distinct_capsules().empty() ? 0 : audit.registry().size(), 0);
  w.begin_object();
  w.key("kernels");
  w.begin_array();
  std::uint32_t entries = 0;
  for (CapsuleId id : audit.distinct_capsules()) {
    entry_of[id] = entries++;
    w.value(audit_kernel_object(audit.registry().capsule(id)));
  }
  w.end_array();
  w.key("rows");
  w.begin_array();
  for (std::size_t i = 0; i < audit.size(); ++i)
    w.number(entry_of[audit.capsule_id(i)]);
  w.end_array();
  w.key("trusted_external_ops");
  w.begin_array();
  for (BackendOp op : audit.trusted_external_ops())
    w.string(to_string(op));
  w.end_array();
  w.end_object();
}

// The message, its context frames and notes on one line, separated by "; ".
std::string one_line(const Error& e) {
  std::string out = e.message;
  for (const std::string& frame : e.context)
    out += "; " + frame;
  for (const std::string& note : e.notes)
    out += "; " + note;
  return out;
}

Json candidates_array(const Error& e) {
  Json out = Json::array();
  for (const CandidateReport& c : e.candidates) {
    Json reasons = Json::array();
    for (const ReasonReport& r : c.reasons) {
      reasons.push_back(Json{{"code", r.code}, {"detail", r.detail}});
    }
    out.push_back(Json{{"capsule", c.capsule}, {"reasons", std::move(reasons)}});
  }
  return out;
}

// The error object: {kind, node_id, op, message, candidates}.
Json error_object(std::string_view kind, std::optional<std::size_t> node_id,
                  std::optional<BackendOp> op, const Error& e) {
  return Json{{"kind", str(kind)},
              {"node_id", node_id ? Json(*node_id) : Json(nullptr)},
              {"op", op ? Json(str(to_string(*op))) : Json(nullptr)},
              {"message", one_line(e)},
              {"candidates", candidates_array(e)}};
}

// The keys up to `accepted`, then `gate_failures`, `groups` and `audit` from `body` (empty when
// null), then `error` (null when null).
void write_artifact(JsonTextWriter& w, const BackendProfile& profile,
                    std::optional<std::string_view> digest, std::optional<std::size_t> nodes,
                    const GraphEvaluation* body, const ir::Graph* onnx_graph, const Json* error,
                    std::span<const SymbolicDim> symbolic_dims = {}) {
  w.begin_object();
  w.key("format");
  w.string(kPlanFormat);
  w.key("profile");
  w.value(detail::profile_object(profile));
  w.key("graph");
  w.begin_object();
  w.key("digest");
  if (digest) {
    w.string(*digest);
  } else {
    w.null();
  }
  w.key("nodes");
  if (nodes) {
    w.number(*nodes);
  } else {
    w.null();
  }
  if (!symbolic_dims.empty()) {
    w.key("symbolic_dims");
    Json dims = Json::array();
    for (const SymbolicDim& d : symbolic_dims) {
      dims.push_back({{"input", d.input},
                      {"axis", d.axis},
                      {"name", d.name},
                      {"size", d.size},
                      {"fixed", d.fixed}});
    }
    w.value(dims);
  }
  w.end_object();
  w.key("accepted");
  w.boolean(body != nullptr && body->accepted());
  if (body != nullptr) {
    w.key("gate_failures");
    gate_failures_array(w, body->gate_failures);
    w.key("groups");
    groups_array(w, body->lowering, onnx_graph);
    w.key("audit");
    audit_object(w, body->audit);
  } else {
    w.key("gate_failures");
    w.begin_array();
    w.end_array();
    w.key("groups");
    w.begin_array();
    w.end_array();
    w.key("audit");
    w.begin_object();
    for (const std::string_view list : {"kernels", "rows", "trusted_external_ops"}) {
      w.key(list);
      w.begin_array();
      w.end_array();
    }
    w.end_object();
  }
  w.key("error");
  if (error != nullptr) {
    w.value(*error);
  } else {
    w.null();
  }
  w.end_object();
  w.finish();
}

// The artifact of a checked graph: `evaluation` when planning succeeded, else `error`.
void graph_artifact(JsonTextWriter& w, const BackendProfile& profile, std::string_view digest,
                    const ir::Graph& graph, const GraphEvaluation* evaluation, const Error* error,
                    bool onnx_names, std::span<const SymbolicDim> symbolic_dims) {
  if (evaluation != nullptr) {
    write_artifact(w, profile, digest, graph.nodes.size(), evaluation,
                   onnx_names ? &graph : nullptr, nullptr, symbolic_dims);
    return;
  }
  std::optional<std::size_t> node_id;
  std::optional<BackendOp> op;
  if (error->position && *error->position < graph.nodes.size()) {
    node_id = *error->position;
    op = backend::backend_op_of(graph.nodes[*error->position].kind);
  }
  const Json error_json = error_object("no-admissible-capsule", node_id, op, *error);
  write_artifact(w, profile, digest, graph.nodes.size(), nullptr, nullptr, &error_json,
                 symbolic_dims);
}

}  // namespace

std::string plan_artifact_json(const BackendProfile& profile, std::string_view digest,
                               const ir::Graph& graph, const Expected<GraphEvaluation>& evaluation,
                               bool onnx_names, std::span<const SymbolicDim> symbolic_dims) {
  JsonTextWriter w;
  graph_artifact(w, profile, digest, graph, evaluation ? &*evaluation : nullptr,
                 evaluation ? nullptr : &evaluation.error(), onnx_names, symbolic_dims);
  return std::move(w.text());
}

std::string plan_artifact_json(const BackendProfile& profile, std::string_view digest,
                               const ir::Graph& graph, const Expected<PlannedModel>& model,
                               bool onnx_names, std::span<const SymbolicDim> symbolic_dims) {
  JsonTextWriter w;
  graph_artifact(w, profile, digest, graph, model ? &model->evaluation() : nullptr,
                 model ? nullptr : &model.error(), onnx_names, symbolic_dims);
  return std::move(w.text());
}

void write_plan_artifact(const BackendProfile& profile, std::string_view digest,
                         const ir::Graph& graph, const Expected<PlannedModel>& model,
                         bool onnx_names, std::span<const SymbolicDim> symbolic_dims,
                         const std::function<void(std::string_view)>& sink) {
  JsonTextWriter w(sink);
  graph_artifact(w, profile, digest, graph, model ? &model->evaluation() : nullptr,
                 model ? nullptr : &model.error(), onnx_names, symbolic_dims);
}

std::string malformed_graph_artifact_json(const BackendProfile& profile,
                                          std::optional<std::string> digest,
                                          std::optional<std::size_t> nodes, const Error& error) {
  // A valid model that uses something nnplan does not support is not malformed.
  const Json error_json =
      error_object(error.kind == ErrorKind::unsupported ? "unsupported" : "malformed-graph",
                   error.position, std::nullopt, error);
  JsonTextWriter w;
  write_artifact(w, profile, digest ? std::optional<std::string_view>(*digest) : std::nullopt,
                 nodes, nullptr, nullptr, &error_json);
  return std::move(w.text());
}

}  // namespace nnplan::format
