// Versioned JSON listings for `nnplan targets --json` (`nnplan.targets.v1`) and
// `nnplan profiles --json` (`nnplan.profiles.v1`). Keys are written in a fixed order so the same
// build always prints byte-identical output.
#pragma once

#include <span>
#include <string>

#include "nnplan/backend/profile.hpp"
#include "nnplan/backend/target.hpp"

namespace nnplan::format {

// Every target preset with its declaration and declared availability.
[[nodiscard]] std::string targets_json();
// The given profiles: name, config, target preset (or `custom`), lowering, module names.
[[nodiscard]] std::string profiles_json(std::span<const backend::BackendProfile> profiles);

}  // namespace nnplan::format
