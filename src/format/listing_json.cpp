#include "nnplan/format/listing_json.hpp"

#include "json_common.hpp"

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

}  // namespace nnplan::format
