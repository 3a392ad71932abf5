#include "nnplan/backend/execution_config.hpp"

namespace nnplan::backend {

std::string to_string(const BackendPreference& preference) {
  switch (preference.kind) {
    case BackendPreference::Kind::automatic:
      return "auto";
    case BackendPreference::Kind::prefer:
      return "prefer " + std::string(to_string(preference.provider));
    case BackendPreference::Kind::only:
      return "only " + std::string(to_string(preference.provider));
  }
  return "auto";
}

Expected<BackendPreference> parse_backend_preference(std::string_view text) {
  if (text == "auto") return BackendPreference::automatic();
  for (const auto& [prefix, kind] :
       {std::pair{std::string_view("prefer "), BackendPreference::Kind::prefer},
        std::pair{std::string_view("only "), BackendPreference::Kind::only}}) {
    if (text.starts_with(prefix)) {
      auto provider = parse_provider(text.substr(prefix.size()));
      if (!provider) return std::unexpected(provider.error());
      return BackendPreference{.kind = kind, .provider = *provider};
    }
  }
  return std::unexpected(make_error(ErrorKind::invalid_input,
                                    "unknown backend preference '" + std::string(text) +
                                        "'; valid: auto, prefer <provider>, only <provider>"));
}

}  // namespace nnplan::backend
