// Graphviz pictures of graph plans (`nnplan dot`): every IR node drawn with its id, kind, name
// and shape; edges parent → child; one `cluster_<i>` per lowered group, labelled with its capsule,
// op, provider, trust and grouping kind; planned nodes filled with their provider's color (one
// fixed palette entry per provider); trusted-external groups drawn with a bold red border and the
// label suffix `TRUSTED EXTERNAL`; nodes without runtime work (input, const, detach) drawn plainly
// outside every cluster. The output is deterministic: same graph and plan, same bytes.
#pragma once

#include <string>
#include <string_view>

#include "nnplan/backend/acceptance.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/ir/graph.hpp"

namespace nnplan::report {

// The fill color of planned nodes of `provider` (`#rrggbb`).
[[nodiscard]] std::string_view provider_color(backend::Provider provider);

// The DOT document for `graph` planned as `evaluation` under `profile`, with a trailing newline.
// The graph label carries the profile summary, the lowering mode and the gate verdict. With
// `onnx_names` (set it only for a graph imported from ONNX) node labels show a node's name as
// `onnx=<name>` instead of `'<name>'`.
[[nodiscard]] std::string plan_dot(const backend::BackendProfile& profile, const ir::Graph& graph,
                                   const backend::GraphEvaluation& evaluation,
                                   bool onnx_names = false);

}  // namespace nnplan::report
