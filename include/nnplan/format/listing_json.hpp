// Versioned JSON listings for `nnplan targets --json` (`nnplan.targets.v1`),
// `nnplan profiles --json` (`nnplan.profiles.v1`) and a filtered `nnplan capsules --json`
// (`nnplan.capsule-listing.v1`). Keys are written in a fixed order so the same build always prints
// byte-identical output. docs/formats.md lists every field.
#pragma once

#include <span>
#include <string>

#include <optional>
#include <string_view>

#include "nnplan/backend/profile.hpp"
#include "nnplan/backend/registry.hpp"
#include "nnplan/backend/target.hpp"

namespace nnplan::format {

// Every target preset with its declaration and declared availability.
[[nodiscard]] std::string targets_json();
// The given profiles: name, config, target preset (or `custom`), lowering, module names.
[[nodiscard]] std::string profiles_json(std::span<const backend::BackendProfile> profiles);

inline constexpr std::string_view kCapsuleListingFormat = "nnplan.capsule-listing.v1";

// What a filtered capsule listing kept: capsules of this op, provider and device (unset: any).
struct CapsuleFilter {
  std::optional<backend::BackendOp> op;
  std::optional<backend::Provider> provider;
  std::optional<backend::Device> device;

  [[nodiscard]] bool any() const { return op || provider || device; }
  [[nodiscard]] bool keeps(const backend::KernelCapsule& capsule) const;
};

// The capsules of `modules` that `filter` keeps, as an `nnplan.capsule-listing.v1` document:
// the profile's name, the filter and the modules holding a match, each with only its matching
// capsules (written as in nnplan.capsules.v1). Its format differs from a registry file's on
// purpose: a module cut down to the capsules that matched, loaded with --registry, would replace
// the whole module of the same name, so a listing is refused where a registry is expected.
[[nodiscard]] std::string capsule_listing_json(std::string_view profile,
                                               const CapsuleFilter& filter,
                                               std::span<const backend::CapsuleModule> modules);

}  // namespace nnplan::format
