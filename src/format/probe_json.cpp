#include "nnplan/format/probe_json.hpp"

#include "json_common.hpp"

namespace nnplan::format {

using detail::Json;
using detail::str;
// The probe's types, all of them written here.
using namespace runtime;  // NOLINT(google-build-using-namespace)

namespace {

// {"found": true, fields...} or {"found": false, "error": message}.
template <class T, class Fields>
Json part(const Expected<T>& value, Fields fields) {
  if (!value) return Json{{"found", false}, {"error", value.error().message}};
  Json out{{"found", true}};
  fields(*value, out);
  return out;
}

Json platform_json(const Expected<PlatformProbe>& platform) {
  return part(platform, [](const PlatformProbe& p, Json& out) {
    out["os"] = str(to_string(p.os));
    out["arch"] = str(to_string(p.arch));
    out["system"] = p.system;
    out["release"] = p.release;
    out["machine"] = p.machine;
  });
}

Json cpu_json(const Expected<CpuProbe>& cpu) {
  return part(cpu, [](const CpuProbe& c, Json& out) {
    out["model"] = c.model;
    out["packages"] = c.packages;
    out["cores"] = c.cores;
    out["logical_processors"] = c.logical_processors;
    Json features = Json::object();
    for (std::size_t i = 0; i < kCpuFeatureCount; ++i) {
      const auto f = static_cast<CpuFeature>(i);
      features[str(to_string(f))] = c.features.has(f);
    }
    out["features"] = std::move(features);
  });
}

Json cuda_json(const Expected<CudaDriverProbe>& cuda) {
  return part(cuda, [](const CudaDriverProbe& c, Json& out) {
    out["library"] = c.library;
    out["driver_version"] = driver_version_text(c.driver_version);
    Json devices = Json::array();
    for (const CudaDevice& d : c.devices) {
      devices.push_back(Json{{"ordinal", d.ordinal},
                             {"name", d.name},
                             {"compute_capability", std::to_string(d.compute_major) + "." +
                                                        std::to_string(d.compute_minor)}});
    }
    out["devices"] = std::move(devices);
  });
}

Json cublas_json(const Expected<CublasProbe>& cublas) {
  return part(cublas, [](const CublasProbe& c, Json& out) {
    out["library"] = c.library;
    out["version"] = c.version ? Json(*c.version) : Json(nullptr);
  });
}

template <class Range, class Name>
Json names(const Range& items, Name name) {
  Json out = Json::array();
  for (const auto& item : items)
    out.push_back(str(name(item)));
  return out;
}

Json target_json(const TargetCheck& check) {
  const auto preset = backend::preset_of(check.target);
  const auto spelled = [](auto v) { return to_string(v); };
  Json devices = Json::array();
  for (const DeclaredDeviceCheck& d : check.devices) {
    devices.push_back(Json{
        {"device", str(to_string(d.device))}, {"confirmed", d.confirmed}, {"finding", d.finding}});
  }
  Json providers = Json::array();
  for (const DeclaredProviderCheck& p : check.providers) {
    providers.push_back(Json{{"provider", str(to_string(p.provider))},
                             {"confirmed", p.confirmed},
                             {"finding", p.finding}});
  }
  return Json{{"name", preset ? str(to_string(*preset)) : std::string("custom")},
              {"os", str(to_string(check.target.os))},
              {"arch", str(to_string(check.target.arch))},
              {"accelerator", str(to_string(check.target.accelerator))},
              {"features", names(check.target.features, spelled)},
              {"os_matches", check.os_matches},
              {"arch_matches", check.arch_matches},
              {"devices", std::move(devices)},
              {"providers", std::move(providers)},
              {"all_confirmed", check.all_confirmed()}};
}

}  // namespace

std::string probe_json(const HostProbe& probe, const TargetCheck& check) {
  Json devices = Json::array();
  for (const DeviceFinding& d : probe.devices) {
    devices.push_back(Json{{"device", str(to_string(d.device))},
                           {"confirmed", d.confirmed},
                           {"evidence", d.evidence}});
  }
  Json providers = Json::array();
  for (const ProviderFinding& p : probe.providers) {
    providers.push_back(Json{{"provider", p.name},
                             {"confirmed", p.confirmed},
                             {"version", p.version.empty() ? Json(nullptr) : Json(p.version)},
                             {"evidence", p.evidence}});
  }
  const backend::Availability available = probed_availability(probe);
  const auto spelled = [](auto v) { return to_string(v); };
  return format::detail::dump(
      Json{{"format", str(kProbeFormat)},
           {"platform", platform_json(probe.platform)},
           {"cpu", cpu_json(probe.cpu)},
           {"cuda", cuda_json(probe.cuda)},
           {"cublas", cublas_json(probe.cublas)},
           {"devices", std::move(devices)},
           {"providers", std::move(providers)},
           {"availability", Json{{"devices", names(available.devices, spelled)},
                                 {"providers", names(available.providers, spelled)}}},
           {"target", target_json(check)}});
}

}  // namespace nnplan::format
