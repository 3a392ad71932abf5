#include "nnplan/format/listing_json.hpp"

#include "json_common.hpp"
#include "nnplan/format/registry_file.hpp"

namespace nnplan::format {

using namespace nnplan::backend;
using detail::Json;
using detail::str;

std::string targets_json() {
  Json targets = Json::array();
  for (std::size_t i = 0; i < kTargetPresetNames.size(); ++i) {
    const auto preset = static_cast<TargetPreset>(i);
    const Target t = target_of(preset);
    Json features = Json::array();
    for (BuildFeature f : t.features)
      features.push_back(str(to_string(f)));
    Json devs = Json::array();
    for (Device d : devices(t))
      devs.push_back(str(to_string(d)));
    Json provs = Json::array();
    for (Provider p : providers(t))
      provs.push_back(str(to_string(p)));
    targets.push_back(Json{{"name", str(to_string(preset))},
                           {"os", str(to_string(t.os))},
                           {"arch", str(to_string(t.arch))},
                           {"accelerator", str(to_string(t.accelerator))},
                           {"features", std::move(features)},
                           {"devices", std::move(devs)},
                           {"providers", std::move(provs)}});
  }
  return detail::dump(Json{{"format", "nnplan.targets.v1"}, {"targets", std::move(targets)}});
}

std::string profiles_json(std::span<const BackendProfile> profiles) {
  Json list = Json::array();
  for (const BackendProfile& p : profiles)
    list.push_back(detail::profile_object(p));
  return detail::dump(Json{{"format", "nnplan.profiles.v1"}, {"profiles", std::move(list)}});
}

bool CapsuleFilter::keeps(const KernelCapsule& c) const {
  return (!op || c.op == *op) && (!provider || c.provider == *provider) &&
         (!device || c.device == *device);
}

std::string capsule_listing_json(std::string_view profile, const CapsuleFilter& filter,
                                 std::span<const CapsuleModule> modules) {
  std::vector<CapsuleModule> kept;
  for (const CapsuleModule& m : modules) {
    CapsuleModule cut{.name = m.name, .capsules = {}};
    for (const KernelCapsule& c : m.capsules) {
      if (filter.keeps(c)) cut.capsules.push_back(c);
    }
    if (!cut.capsules.empty()) kept.push_back(std::move(cut));
  }
  // The module objects are the registry writer's own, so a capsule is spelled one way in both
  // documents; a listing is a few kilobytes, and reading them back costs nothing that matters.
  Json registry = Json::parse(write_registry_json(kept));
  const auto spelled = [](const auto& value) {
    return value ? Json(str(to_string(*value))) : Json(nullptr);
  };
  return detail::dump(Json{{"format", str(kCapsuleListingFormat)},
                           {"profile", str(profile)},
                           {"filter", Json{{"op", spelled(filter.op)},
                                           {"provider", spelled(filter.provider)},
                                           {"device", spelled(filter.device)}}},
                           {"modules", std::move(registry["modules"])}});
}

}  // namespace nnplan::format
