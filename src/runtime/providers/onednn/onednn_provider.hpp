// The onednn provider's registration and probe (SPEC §11, §12): every handler of the per-family
// tables bound to its capsule record of backend::onednn_module(), and what the probe reports about
// the linked oneDNN library (its version and the CPU ISA it dispatches to). Built only with
// NNPLAN_ONEDNN (NNPLAN_HAVE_ONEDNN defined).
#pragma once

#include "nnplan/runtime/handler_registry.hpp"
#include "nnplan/runtime/probe.hpp"

namespace nnplan::runtime::onednn {

// Adds every onednn handler to `registry`; aborts on a table that does not match its records.
void register_onednn_handlers(HandlerRegistry& registry);

// The probe's finding for provider onednn: confirmed when the library creates its CPU engine.
[[nodiscard]] ProviderFinding probe_onednn();

}  // namespace nnplan::runtime::onednn
