// A minimal nnplan.capsules.v1 document shared by the registry-file tests: the SPEC example with
// every optional field left out (one module `acme`, one checked external `acme.relu` capsule).
#pragma once

#include <string_view>

namespace nnplan::format::fixtures {

inline constexpr std::string_view kMinimalRegistry = R"json({"format": "nnplan.capsules.v1",
 "modules": [{"name": "acme", "capsules": [{
   "name": "acme.relu", "op": "relu", "provider": "external", "device": "external",
   "trust": "checked",
   "contracts": {
     "shape":  {"claim": {"kind": "shape-safety", "op": "relu"},
                "evidence": {"kind": "runtime-guard", "name": "g"}},
     "layout": {"claim": {"kind": "layout-compatibility", "op": "relu", "layout": "flat-row-major"},
                "evidence": {"kind": "runtime-guard", "name": "g"}},
     "value":  {"claim": {"kind": "value-refinement", "op": "relu", "spec": "Spec.relu"},
                "evidence": {"kind": "test-suite", "name": "t"}},
     "vjp":    {"claim": {"kind": "vjp-refinement", "op": "relu", "spec": "Spec.relu",
                          "mode": "none"},
                "evidence": {"kind": "not-provided"}}}}]}]}
)json";

}  // namespace nnplan::format::fixtures
