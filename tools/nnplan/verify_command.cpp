// `nnplan verify GRAPH PLAN.json`: re-plan GRAPH under the profile PLAN.json records and compare
// the fresh artifact with the recorded one (SPEC §8: exported audits must be re-checkable).
// The profile is rebuilt from the record: the maintained profile of that name (without a
// `+overrides` suffix), then its device,
// preference, assurance, vjp mode, target and lowering; `--registry` files supply the extra
// modules as when planning. Config flags given on the command line override the recorded
// fields; an explicit `--profile` starts over from that profile and ignores the record. Exit 0
// when the documents are equal, 1 listing every difference (the graph digest first), 3 when
// the artifact or the graph is unreadable or malformed.
#include <fmt/core.h>

#include <algorithm>

#include "cli.hpp"
#include "nnplan/backend/planned_model.hpp"
#include "nnplan/format/plan_artifact.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

namespace {

Error artifact_error(const std::string& path, std::string problem) {
  return make_error(ErrorKind::invalid_input, path + ": " + std::move(problem));
}

// The recorded profile with the explicit flags laid over it, or the exit code.
std::expected<BackendProfile, int> rebuild_profile(const format::PlanArtifact& artifact,
                                                   const std::string& plan_path,
                                                   const ConfigFlags& flags,
                                                   const std::optional<std::string>& lowering) {
  const format::RecordedProfile& recorded = artifact.profile;
  auto base = profile_by_name(base_profile_name(recorded.name));
  if (!base) {
    return std::unexpected(
        fail(std::move(base.error())
                 .with_context("in the profile recorded by " + plan_path + "; pass --profile"),
             kExitBadInput));
  }
  auto explicit_flags = explicit_overrides(flags);
  if (!explicit_flags) return std::unexpected(explicit_flags.error());
  auto explicit_lowering = parse_lowering_flag(lowering);
  if (!explicit_lowering) return std::unexpected(explicit_lowering.error());

  ProfileOverrides overrides = std::move(*explicit_flags);
  if (!overrides.device) overrides.device = recorded.device;
  if (!overrides.preference) overrides.preference = recorded.preference;
  if (!overrides.vjp_mode) overrides.vjp_mode = recorded.vjp_mode;
  if (!overrides.assurance) {
    if (!recorded.assurance) {
      return std::unexpected(
          fail(artifact_error(plan_path,
                              "the recorded assurance policy is custom and cannot be rebuilt; pass "
                              "--assurance verified, checked or external"),
               kExitBadInput));
    }
    overrides.assurance = recorded.assurance;
  }
  if (!overrides.target) {
    if (!recorded.target) {
      return std::unexpected(
          fail(artifact_error(plan_path,
                              "the recorded target is custom and cannot be rebuilt; pass --target"),
               kExitBadInput));
    }
    overrides.target = recorded.target;
  }
  overrides.lowering = explicit_lowering->value_or(recorded.lowering);
  auto profile = apply_overrides(std::move(*base), std::move(overrides));
  if (!profile) {
    return std::unexpected(fail(
        std::move(profile.error()).with_context("while adding --registry modules"), kExitBadInput));
  }
  return std::move(*profile);
}

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "verify", "Re-plan a graph under an artifact's recorded profile and compare the results");
  cmd->footer(
      "Example: nnplan verify examples/mlp.json mlp.plan.json\n"
      "         nnplan verify model.json model.plan.json --registry acme.json\n"
      "Flags given here override the recorded profile's fields; --profile starts over from that\n"
      "profile. Exit codes: 0 the artifact matches, 1 it differs (every difference is listed),\n"
      "2 usage error, 3 unreadable or malformed graph or artifact.");
  struct Flags {
    ConfigFlags config;
    GraphFlags graph;
    std::string plan;
    std::optional<std::string> lowering;
  };
  auto flags = std::make_shared<Flags>();
  flags->graph.add_to(*cmd);
  cmd->add_option("PLAN", flags->plan, "Plan artifact (nnplan.plan.v1) to check")->required();
  flags->config.add_to(*cmd);
  // Without --profile, verify starts from the recorded profile, not from checked_cpu.
  cmd->get_option("--profile")
      ->description("Maintained profile to start from instead of the recorded one")
      ->default_str("");
  cmd->add_option("--lowering", flags->lowering,
                  "Lowering mode replacing the recorded one: singleton or coalesced");
  cmd->callback([flags, &exit_code] {
    auto artifact = format::read_plan_artifact(flags->plan);
    if (!artifact) {
      exit_code = fail(artifact.error(), kExitBadInput);
      return;
    }
    std::expected<BackendProfile, int> profile =
        flags->config.profile
            ? flags->config.resolve(flags->lowering)
            : rebuild_profile(*artifact, flags->plan, flags->config, flags->lowering);
    if (!profile) {
      exit_code = profile.error();
      return;
    }
    auto run = plan_graph_input(std::move(*profile), flags->graph, Digest::compute);
    if (!run) {
      exit_code = run.error();
      return;
    }
    const std::string fresh = format::plan_artifact_json(
        run->profile, *run->graph.digest, run->graph.graph->graph(), run->model, run->graph.onnx());
    std::vector<std::string> differences = format::diff_artifacts(artifact->document, fresh);
    if (differences.empty()) {
      fmt::print("verified: {} matches {} under profile {}\n", flags->plan, flags->graph.graph,
                 run->profile.name);
      if (!artifact->accepted) {
        fmt::print(
            "note: the artifact records a plan its gate rejected or could not plan; verify checks "
            "that it is reproducible, not that it is accepted\n");
      }
      exit_code = kExitOk;
      return;
    }
    // The graph's identity is the first thing to know; the rest follows in document order.
    std::stable_partition(differences.begin(), differences.end(),
                          [](const std::string& d) { return d.starts_with("graph.digest:"); });
    fmt::print("mismatch: {} does not match {} under profile {} ({} difference{})\n", flags->plan,
               flags->graph.graph, run->profile.name, differences.size(),
               differences.size() == 1 ? "" : "s");
    for (const std::string& d : differences)
      fmt::print("{}\n", d);
    exit_code = kExitRejected;
  });
}

}  // namespace nnplan::cli
