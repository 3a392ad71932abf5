// The `nnplan.ops-plan.v1` artifact written by `nnplan plan-ops --json`: the profile, the
// requested ops, and either the planned kernels with their full audit fields or the planning
// error with every candidate's rejection reasons (error kind `no-admissible-capsule`, as in a
// plan artifact; docs/formats.md lists every field). Keys are in a fixed order; same inputs give
// byte-identical output.
#pragma once

#include <span>
#include <string>

#include "nnplan/backend/planner.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/error.hpp"

namespace nnplan::format {

inline constexpr std::string_view kOpsPlanFormat = "nnplan.ops-plan.v1";

[[nodiscard]] std::string op_plan_json(const backend::BackendProfile& profile,
                                       std::span<const backend::BackendOp> ops,
                                       const Expected<backend::ExecutionPlan>& result);

}  // namespace nnplan::format
