// The reference provider's registration: every row of every family table (reference_handlers.hpp)
// under its capsule identity, `reference.<op>` on provider reference, device cpu.
#pragma once

#include <string>

#include "nnplan/backend/vocabulary.hpp"
#include "nnplan/runtime/handler_registry.hpp"

namespace nnplan::runtime::reference {

// The capsule name the built-in reference module gives `op` (backend/builtin_modules.cpp).
[[nodiscard]] std::string reference_capsule_name(backend::BackendOp op);

// Adds every reference handler to `registry`. A clash is a bug in the tables: it aborts.
void register_reference_handlers(HandlerRegistry& registry);

}  // namespace nnplan::runtime::reference
