#include "nnplan/backend/assurance_policy.hpp"

namespace nnplan::backend {

std::string_view label(const AssurancePolicy& policy) {
  for (std::size_t i = 0; i < kAssurancePresetNames.size(); ++i) {
    const auto preset = static_cast<AssurancePreset>(i);
    if (policy == policy_of(preset)) return to_string(preset);
  }
  return "custom";
}

}  // namespace nnplan::backend
