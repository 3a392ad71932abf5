// `nnplan plan-ops`: plan a list of backend ops under a profile and print the plan report,
// or the explanation of the first op that has no admissible capsule (exit 1).
#include <fmt/core.h>

#include "cli.hpp"
#include "nnplan/backend/report.hpp"
#include "nnplan/format/op_plan_json.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

void add_plan_ops_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("plan-ops", "Plan a list of backend ops under a profile");
  cmd->footer(
      "Example: nnplan plan-ops --profile checked_cuda matmul relu scaled_dot_product_attention\n"
      "         nnplan plan-ops --profile libtorch_forward_cuda --json "
      "scaled_dot_product_attention\n"
      "The report (or, on exit 1, the explanation) goes to stdout; usage and input errors to "
      "stderr.");
  struct Flags {
    ConfigFlags config;
    std::vector<std::string> ops;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  flags->config.add_to(*cmd);
  cmd->add_flag("--json", flags->json, "Print the nnplan.ops-plan.v1 artifact");
  cmd->add_option("OP", flags->ops,
                  "Backend ops to plan, in order (an unknown op lists every valid one)")
      ->required();
  cmd->callback([flags, &exit_code] {
    auto profile = flags->config.resolve();
    if (!profile) {
      exit_code = profile.error();
      return;
    }
    std::vector<BackendOp> ops;
    ops.reserve(flags->ops.size());
    for (std::size_t i = 0; i < flags->ops.size(); ++i) {
      auto op = parse_backend_op(flags->ops[i]);
      if (!op) {
        exit_code =
            fail(std::move(op.error()).with_context("in OP argument " + std::to_string(i + 1)),
                 kExitUsage);
        return;
      }
      ops.push_back(*op);
    }
    auto plan = plan_ops(*profile, ops);
    if (flags->json) {
      fmt::print("{}", format::op_plan_json(*profile, ops, plan));
    } else if (plan) {
      fmt::print("{}", plan_report(*profile, *plan));
    } else {
      fmt::print("{}\n{}\n", profile_summary(*profile), render(plan.error()));
    }
    exit_code = plan ? kExitOk : kExitRejected;
  });
}

}  // namespace nnplan::cli
