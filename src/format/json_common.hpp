// Private helpers shared by the JSON writers of src/format: capsule, profile and error objects
// in one fixed key order.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "nnplan/backend/capsule.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/error.hpp"
#include "nnplan/text_escape.hpp"

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
// Rewrites every string of `json`, object keys included, that is not well-formed UTF-8 with its
// stray bytes as `\xNN` (nnplan::utf8_escaped), so that dumping it gives valid UTF-8 JSON and
// cannot fail: a node name or path from an input may hold any bytes.
template <class J>
void escape_invalid_utf8(J& json) {
  if (json.is_string()) {
    auto& text = json.template get_ref<typename J::string_t&>();
    if (!valid_utf8(text)) text = utf8_escaped(text);
    return;
  }
  if (json.is_array()) {
    for (auto& element : json)
      escape_invalid_utf8(element);
    return;
  }
  if (!json.is_object()) return;
  bool bad_key = false;
  for (auto it = json.begin(); it != json.end(); ++it) {
    escape_invalid_utf8(it.value());
    bad_key = bad_key || !valid_utf8(it.key());
  }
  if (!bad_key) return;
  J fixed = J::object();
  for (auto it = json.begin(); it != json.end(); ++it)
    fixed[utf8_escaped(it.key())] = std::move(it.value());
  json = std::move(fixed);
}

// Two-space indented dump with a trailing newline, strings escaped as escape_invalid_utf8 does.
std::string dump(Json json);

}  // namespace nnplan::format::detail
