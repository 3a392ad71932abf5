// The `nnplan.evidence.v1` document of `nnplan capsules --evidence --json`: each listed capsule's
// four evidence items and where they resolve (evidence.hpp), then counts per status. It lives in
// the runtime layer because the format layer cannot see the handlers; it is written with the
// format layer's JSON helpers, in a fixed key order, and docs/formats.md lists every field.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "nnplan/format/listing_json.hpp"
#include "nnplan/runtime/evidence.hpp"

namespace nnplan::runtime {

inline constexpr std::string_view kEvidenceFormat = "nnplan.evidence.v1";

// `items` (rows of resolve_evidence over `registry`, a capsule's four rows together, only those of
// the capsules `filter` kept) as an nnplan.evidence.v1 document for profile `profile`, with a
// trailing newline. `handlers` names each capsule's handler.
[[nodiscard]] std::string evidence_json(std::string_view profile,
                                        const format::CapsuleFilter& filter,
                                        const backend::Registry& registry,
                                        const HandlerRegistry& handlers,
                                        std::span<const EvidenceItem> items);

}  // namespace nnplan::runtime
