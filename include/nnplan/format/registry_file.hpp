// Registry files, format `nnplan.capsules.v1` (SPEC §4): capsule modules written as JSON data so
// a team can add a provider's capsules without recompiling. Reading is strict: unknown fields,
// missing required fields, wrong types and unknown spellings are errors naming the file, module,
// capsule and field path. Writing produces the canonical form (fixed key order, every field
// spelled out), and read(write(m)) == m. The result is a module list; Registry::create /
// with_modules then apply the duplicate rules.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/registry.hpp"
#include "nnplan/error.hpp"

namespace nnplan::format {

inline constexpr std::string_view kCapsulesFormat = "nnplan.capsules.v1";

// Parses a registry document. `source` names the input in messages (a file path or "<memory>").
[[nodiscard]] Expected<std::vector<backend::CapsuleModule>> parse_registry_json(
    std::string_view text, std::string_view source);

// Reads and parses a registry file; an unreadable file is an invalid_input error naming the path.
[[nodiscard]] Expected<std::vector<backend::CapsuleModule>> read_registry_file(
    const std::filesystem::path& path);

// The canonical `nnplan.capsules.v1` document for `modules`, pretty-printed with two spaces and
// a trailing newline.
[[nodiscard]] std::string write_registry_json(std::span<const backend::CapsuleModule> modules);

}  // namespace nnplan::format
