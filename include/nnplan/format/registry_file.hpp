// Registry files, format `nnplan.capsules.v1` (SPEC §4): capsule modules written as JSON data so
// a team can add a provider's capsules without recompiling. Reading is strict: unknown fields,
// repeated keys, missing required fields, wrong types and unknown spellings are errors naming the
// file, module, capsule and field path, e.g.
//   reg.json: module 'acme' capsule 'acme.relu': field contracts.shape.claim.kind: unknown claim
//   kind 'shape'; valid: shape-safety, layout-compatibility, value-refinement, vjp-refinement
// (one line). A module or capsule whose name is unusable is named by its 0-based index
// (`module #0`, `capsule #2`). Optional fields take the defaults of SPEC §2: supports_forward
// true, vjp `none`, numerical fields `unspecified`, notes, summary "" and provenance []. Names of
// modules and capsules, evidence names and reasons, claim specs and the required provenance
// fields must be non-empty. Misaligned contracts are kept (they are never admissible) and
// duplicates are left to Registry::create. Writing produces the canonical form (fixed key order,
// every field spelled out, `build_target` only when set), and read(write(m)) == m for modules
// whose claims, evidence and provenance leave the fields their kind does not use at defaults.
// The result is a module list, each module's `source` set to the reader's source, so that
// Registry::create / with_modules, which apply the duplicate rules, name the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/registry.hpp"
#include "nnplan/error.hpp"

namespace nnplan::format {

inline constexpr std::string_view kCapsulesFormat = "nnplan.capsules.v1";

// Registry files are small hand-written or generated data; a bigger file is a mistake (or a
// device file) and is refused before the reader allocates for it.
inline constexpr std::uintmax_t kMaxRegistryFileBytes = std::uintmax_t{64} << 20;

// Parses a registry document. `source` names the input in messages (a file path or "<memory>").
[[nodiscard]] Expected<std::vector<backend::CapsuleModule>> parse_registry_json(
    std::string_view text, std::string_view source);

// Reads and parses a registry file; an unreadable file, a directory or a file over
// kMaxRegistryFileBytes is an invalid_input error naming the path.
[[nodiscard]] Expected<std::vector<backend::CapsuleModule>> read_registry_file(
    const std::filesystem::path& path);

// Reads and parses registry files in order (the `--registry` files of a command line) into one
// module list, failing as read_registry_file does for the first file that fails. The capsule
// limit, kMaxRegistryCapsules, holds for all the files together: each file's capsules are counted,
// on top of those of the files before it, before any of its modules is converted, and the message
// names the file that crosses the limit, the running total and the limit.
[[nodiscard]] Expected<std::vector<backend::CapsuleModule>> read_registry_files(
    std::span<const std::filesystem::path> paths);

// The canonical `nnplan.capsules.v1` document for `modules`, pretty-printed with two spaces and
// a trailing newline.
[[nodiscard]] std::string write_registry_json(std::span<const backend::CapsuleModule> modules);

}  // namespace nnplan::format
