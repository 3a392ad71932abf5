#include "json_common.hpp"

namespace nnplan::format::detail {

using namespace nnplan::backend;

Json profile_object(const BackendProfile& p) {
  Json modules = Json::array();
  for (const CapsuleModule& m : p.registry->modules())
    modules.push_back(m.name);
  const auto preset = preset_of(p.target);
  return Json{{"name", p.name},
              {"device", str(to_string(p.config.device))},
              {"preference", to_string(p.config.preference)},
              {"assurance", str(label(p.config.assurance))},
              {"vjp", str(to_string(p.config.vjp_mode))},
              {"target", preset ? str(to_string(*preset)) : std::string("custom")},
              {"lowering", str(to_string(p.lowering))},
              {"modules", std::move(modules)}};
}

Json kernel_object(const KernelCapsule& c) {
  Json contracts = Json::object();
  for (std::size_t i = 0; i < kContractFieldNames.size(); ++i) {
    const auto field = static_cast<ContractField>(i);
    const ContractDescriptor& d = c.contract(field);
    contracts[str(to_string(field))] =
        Json{{"claim", label(d.claim)},
             {"evidence", label(d.evidence)},
             {"disposition", str(to_string(disposition(d.evidence.kind)))}};
  }
  return Json{{"op", str(to_string(c.op))},
              {"capsule", c.name},
              {"provider", str(to_string(c.provider))},
              {"device", str(to_string(c.device))},
              {"trust", str(to_string(c.trust_level))},
              {"vjp", str(to_string(c.vjp_mode))},
              {"numerical", label(c.numerical)},
              {"contracts", std::move(contracts)}};
}

Json error_object(const Error& e) {
  Json candidates = Json::array();
  for (const CandidateReport& c : e.candidates) {
    Json reasons = Json::array();
    for (const ReasonReport& r : c.reasons) {
      reasons.push_back(Json{{"code", r.code}, {"detail", r.detail}});
    }
    candidates.push_back(Json{{"capsule", c.capsule},
                              {"provider", c.provider},
                              {"device", c.device},
                              {"reasons", std::move(reasons)}});
  }
  Json out{{"kind", to_string(e.kind)}, {"message", e.message}};
  out["position"] = e.position ? Json(*e.position) : Json(nullptr);
  out["context"] = e.context;
  out["notes"] = e.notes;
  out["candidates"] = std::move(candidates);
  return out;
}

std::string dump(Json json) {
  escape_invalid_utf8(json);
  return json.dump(2) + "\n";
}

Json provenance_json(const Provenance& p) {
  Json out = Json::object();
  out["kind"] = str(to_string(p.kind));
  switch (p.kind) {
    case ProvenanceKind::source_file:
      out["path"] = p.path;
      break;
    case ProvenanceKind::native_symbol:
      out["path"] = p.path;
      out["symbol"] = p.symbol;
      if (!p.build_target.empty()) out["build_target"] = p.build_target;
      break;
    case ProvenanceKind::note:
      out["text"] = p.text;
      break;
  }
  return out;
}

}  // namespace nnplan::format::detail
