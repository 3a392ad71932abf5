// The `nnplan.evidence.v1` document of `nnplan capsules --evidence --json`: each listed capsule's
// four evidence items and where they resolve (runtime/evidence.hpp), then counts per status. The
// format layer sits above the runtime, whose handlers and evidence rows it writes, in a fixed key
// order; docs/formats.md lists every field.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "nnplan/format/listing_json.hpp"
#include "nnplan/runtime/evidence.hpp"

namespace nnplan::format {

inline constexpr std::string_view kEvidenceFormat = "nnplan.evidence.v1";

// `items` (rows of resolve_evidence over `registry`, a capsule's four rows together, only those of
// the capsules `filter` kept) as an nnplan.evidence.v1 document for profile `profile`, with a
// trailing newline. `handlers` names each capsule's handler.
[[nodiscard]] std::string evidence_json(std::string_view profile, const CapsuleFilter& filter,
                                        const backend::Registry& registry,
                                        const runtime::HandlerRegistry& handlers,
                                        std::span<const runtime::EvidenceItem> items);

}  // namespace nnplan::format
