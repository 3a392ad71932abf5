// The `nnplan.probe.v1` document of `nnplan probe --json`: a HostProbe (probe.hpp) and a target's
// declaration checked against it (runtime/probe.hpp, the layer below), written in a fixed key
// order; docs/formats.md lists every field.
#pragma once

#include <string>
#include <string_view>

#include "nnplan/runtime/probe.hpp"

namespace nnplan::format {

inline constexpr std::string_view kProbeFormat = "nnplan.probe.v1";

// The probe and `check` (check_target of the same probe) as an nnplan.probe.v1 document, with a
// trailing newline.
[[nodiscard]] std::string probe_json(const runtime::HostProbe& probe,
                                     const runtime::TargetCheck& check);

}  // namespace nnplan::format
