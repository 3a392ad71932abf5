#include "nnplan/format/evidence_json.hpp"

#include <optional>

#include "json_common.hpp"

namespace nnplan::format {

using detail::Json;
using detail::str;
using runtime::EvidenceItem;
using runtime::HandlerDefinition;
using runtime::HandlerRegistry;
using runtime::is_builtin_capsule;
using runtime::kEvidenceStatusCount;
using runtime::kEvidenceStatusNames;

namespace {

Json text_or_null(const std::string& s) {
  return s.empty() ? Json(nullptr) : Json(s);
}

Json item_json(const EvidenceItem& item) {
  return Json{{"field", str(to_string(item.field))},
              {"kind", str(to_string(item.evidence.kind))},
              {"name", text_or_null(item.evidence.name)},
              {"status", str(to_string(item.status))},
              {"target", text_or_null(item.target)},
              {"file", text_or_null(item.file)},
              {"detail", item.detail}};
}

Json capsule_json(const backend::Registry& registry, const HandlerRegistry& handlers,
                  backend::CapsuleId id) {
  const backend::KernelCapsule& c = registry.capsule(id);
  const HandlerDefinition* handler = handlers.find(c);
  return Json{{"capsule", c.name},
              {"op", str(to_string(c.op))},
              {"provider", str(to_string(c.provider))},
              {"device", str(to_string(c.device))},
              {"module", registry.module_of(id)},
              {"built_in", is_builtin_capsule(registry, id)},
              {"handler", handler == nullptr ? Json(nullptr) : Json(str(handler->symbol))},
              {"evidence", Json::array()}};
}

}  // namespace

std::string evidence_json(std::string_view profile, const format::CapsuleFilter& filter,
                          const backend::Registry& registry, const HandlerRegistry& handlers,
                          std::span<const EvidenceItem> items) {
  const auto spelled = [](const auto& v) { return v ? Json(str(to_string(*v))) : Json(nullptr); };
  Json capsules = Json::array();
  std::optional<backend::CapsuleId> last;
  for (const EvidenceItem& item : items) {
    if (last != item.capsule) {
      capsules.push_back(capsule_json(registry, handlers, item.capsule));
      last = item.capsule;
    }
    capsules.back()["evidence"].push_back(item_json(item));
  }
  const auto counts = evidence_counts(items);
  Json summary{{"capsules", capsules.size()}, {"items", items.size()}};
  for (std::size_t i = 0; i < kEvidenceStatusCount; ++i) {
    summary[str(kEvidenceStatusNames[i])] = counts[i];
  }
  return format::detail::dump(Json{{"format", str(kEvidenceFormat)},
                                   {"profile", str(profile)},
                                   {"filter", Json{{"op", spelled(filter.op)},
                                                   {"provider", spelled(filter.provider)},
                                                   {"device", spelled(filter.device)}}},
                                   {"capsules", std::move(capsules)},
                                   {"summary", std::move(summary)}});
}

}  // namespace nnplan::format
