// Private helpers shared by the JSON writers of src/format: capsule, profile and error objects
// in one fixed key order.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "nnplan/backend/capsule.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/error.hpp"

namespace nnplan::format::detail {

using Json = nlohmann::ordered_json;

inline std::string str(std::string_view s) {
  return std::string(s);
}

// {"name","device","preference","assurance","vjp","target","lowering","modules"}.
Json profile_object(const backend::BackendProfile& profile);
// The audit fields of one selected capsule: op, capsule, provider, device, trust, vjp,
// numerical label and the four contracts with claim and evidence labels and dispositions.
Json kernel_object(const backend::KernelCapsule& capsule);
// {"kind","message","position","context","notes","candidates":[{"capsule","provider","device",
// "reasons":[{"code","detail"}]}]}.
Json error_object(const Error& error);
// {"kind", then "path" (source-file), "path","symbol"[,"build_target"] (native-symbol) or "text"
// (note)}: the one spelling of a provenance entry, in registry files and plan artifacts alike.
Json provenance_json(const backend::Provenance& provenance);
// Two-space indented dump with a trailing newline.
std::string dump(const Json& json);

}  // namespace nnplan::format::detail
