#include "nnplan/format/op_plan_json.hpp"

#include "json_common.hpp"
#include "nnplan/backend/audit.hpp"

namespace nnplan::format {

using namespace nnplan::backend;
using detail::Json;
using detail::str;

std::string op_plan_json(const BackendProfile& profile, std::span<const BackendOp> ops,
                         const Expected<ExecutionPlan>& result) {
  Json op_names = Json::array();
  for (BackendOp op : ops)
    op_names.push_back(str(to_string(op)));
  Json out{{"format", str(kOpsPlanFormat)},
           {"profile", detail::profile_object(profile)},
           {"ops", std::move(op_names)},
           {"planned", result.has_value()}};
  if (!result) {
    // Spelled as a plan artifact spells the same failure (kind `no-admissible-capsule`, the op
    // named in `op`), with the op list position where the artifact has a node id.
    const Error& e = result.error();
    Json error = detail::error_object(e);
    Json op = nullptr;
    if (e.position && *e.position < ops.size()) op = str(to_string(ops[*e.position]));
    Json aligned{{"kind", e.kind == ErrorKind::rejected_by_policy ? Json("no-admissible-capsule")
                                                                  : error["kind"]},
                 {"position", error["position"]},
                 {"op", std::move(op)}};
    for (const char* key : {"message", "context", "notes", "candidates"})
      aligned[key] = std::move(error[key]);
    out["error"] = std::move(aligned);
    return detail::dump(out);
  }
  Json kernels = Json::array();
  for (std::size_t i = 0; i < result->kernels.size(); ++i) {
    kernels.push_back(detail::kernel_object(result->capsule(i)));
  }
  Json trusted_external = Json::array();
  for (BackendOp op : ExecutionAudit(*result).trusted_external_ops()) {
    trusted_external.push_back(str(to_string(op)));
  }
  out["kernels"] = std::move(kernels);
  out["trusted_external_ops"] = std::move(trusted_external);
  return detail::dump(out);
}

}  // namespace nnplan::format
