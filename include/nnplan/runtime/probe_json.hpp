// The `nnplan.probe.v1` document of `nnplan probe --json`: a HostProbe (probe.hpp) and a target's
// declaration checked against it. It lives in the runtime layer because the format layer cannot
// see the probe; it is written with the format layer's JSON helpers, in a fixed key order, and
// docs/formats.md lists every field.
#pragma once

#include <string>
#include <string_view>

#include "nnplan/runtime/probe.hpp"

namespace nnplan::runtime {

inline constexpr std::string_view kProbeFormat = "nnplan.probe.v1";

// The probe and `check` (check_target of the same probe) as an nnplan.probe.v1 document, with a
// trailing newline.
[[nodiscard]] std::string probe_json(const HostProbe& probe, const TargetCheck& check);

}  // namespace nnplan::runtime
