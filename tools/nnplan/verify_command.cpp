// `nnplan verify GRAPH PLAN.json`: re-plan GRAPH under the profile PLAN.json records and compare
// the fresh artifact with the recorded one (SPEC §8: exported audits must be re-checkable).
// The profile is rebuilt from the record: the maintained profile of that name (without a
// `+overrides` suffix), then its device,
// preference, assurance, vjp mode, target and lowering; `--registry` files supply the extra
// modules as when planning. Config flags given on the command line override the recorded
// fields; an explicit `--profile` starts over from that profile and ignores the record.
// The fresh artifact's bytes are compared with the recorded bytes as they are written, without
// holding the fresh document; a regular PLAN file is read again for that, so its text need not
// stay in memory while the graph is planned. Only when the bytes differ are both documents held
// and diffed. Exit 0 when the documents are equal, 1 listing the differences (the graph digest
// first, at most kMaxShownDifferences of them, after a note naming the recorded registry modules
// that are not loaded, or else the recorded capsules the registry lacks), 3 when the artifact or
// the graph is unreadable or malformed, 4 when the graph uses something nnplan does not support.
// Every line printed holds input-derived text (paths, names and values from the artifact) and goes
// out through escape_controls, so an artifact cannot print a line of its own (a fake `verified:`)
// or a terminal escape sequence.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <istream>
#include <span>
#include <spanstream>
#include <string_view>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "nnplan/backend/planned_model.hpp"
#include "nnplan/format/plan_artifact.hpp"
#include "nnplan/text_escape.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

namespace {

// Difference lines kept from the diff (all are counted), of which the first kMaxShownDifferences
// are printed before `... and N more differences`.
constexpr std::size_t kKeptDifferences = 1000;
// Difference lines printed before `... and N more differences`.
constexpr std::size_t kMaxShownDifferences = 20;

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

// Whether writing the artifact of `run` reproduces the bytes `recorded` holds, to its end.
bool same_bytes(std::istream& recorded, const PlannedGraph& run) {
  bool same = true;
  std::string buffer;
  format::write_plan_artifact(
      run.profile, *run.graph.digest, run.graph.graph->graph(), run.model, run.graph.onnx(),
      run.graph.symbolic_dims, [&](std::string_view piece) {
        if (!same) return;
        buffer.resize(piece.size());
        recorded.read(buffer.data(), static_cast<std::streamsize>(piece.size()));
        same = static_cast<std::size_t>(recorded.gcount()) == piece.size() && buffer == piece;
      });
  return same && recorded.peek() == std::istream::traits_type::eof();
}

// Names listed in a note before `and N more`.
constexpr std::size_t kMaxListedNames = 5;

// `names` quoted with control characters escaped, comma-separated, the first kMaxListedNames of
// them.
std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kMaxListedNames; ++i)
    out += fmt::format("{}{:?}", i == 0 ? "" : ", ", names[i]);
  if (names.size() > kMaxListedNames)
    out += fmt::format(" and {} more", names.size() - kMaxListedNames);
  return out;
}

// Why re-planning cannot reproduce the artifact's capsules, when the registry is the reason: the
// recorded modules that `profile` lacks or, when it has them all, the capsules of `recorded` that
// its registry lacks. Empty when neither.
std::string registry_note(const format::RecordedProfile& profile_record, std::string_view recorded,
                          const BackendProfile& profile) {
  std::unordered_set<std::string_view> modules;
  for (const CapsuleModule& m : profile.registry->modules())
    modules.insert(m.name);
  std::vector<std::string> missing;
  for (const std::string& name : profile_record.modules) {
    if (!modules.contains(name)) missing.push_back(name);
  }
  constexpr std::string_view kFix = "; pass --registry FILE that was used with plan";
  if (!missing.empty()) {
    return fmt::format(
        "note: the artifact was planned with registry modules that are not loaded now: {}{}",
        quoted_list(missing), kFix);
  }
  std::unordered_set<std::string_view> capsules;
  for (const KernelCapsule& c : profile.registry->capsules())
    capsules.insert(c.name);
  for (std::string& name : format::recorded_capsules(recorded)) {
    if (!capsules.contains(name)) missing.push_back(std::move(name));
  }
  if (!missing.empty()) {
    return fmt::format("note: the artifact names capsules that the loaded registry lacks: {}{}",
                       quoted_list(missing), kFix);
  }
  return {};
}

// When the artifact records open input dimensions at sizes re-planning did not give them: the
// --input-shape flags that plan those sizes. Empty when the sizes agree or none are recorded.
std::string input_shape_note(std::string_view recorded, const format::LoadedGraph& graph) {
  const auto doc = nlohmann::json::parse(recorded, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.contains("graph") || !doc["graph"].is_object()) return {};
  const auto dims = doc["graph"].find("symbolic_dims");
  if (dims == doc["graph"].end() || !dims->is_array()) return {};
  std::string flags;
  for (const ir::Node& n : graph.graph->graph().nodes) {
    if (n.kind != ir::OpKind::input) continue;
    ir::Shape shape = n.shape;
    bool changed = false;
    for (const auto& d : *dims) {
      if (!d.is_object() || d.value("input", "") != n.source_name) continue;
      const auto axis = d.value("axis", std::size_t{0});
      const auto size = d.value("size", ir::Dim{0});
      if (axis < shape.rank() && size > 0 && shape.dims[axis] != size) {
        shape.dims[axis] = size;
        changed = true;
      }
    }
    if (!changed) continue;
    std::string listed;
    for (const ir::Dim d : shape.dims)
      listed += (listed.empty() ? "" : ",") + std::to_string(d);
    flags += (flags.empty() ? "" : " ") + ("--input-shape " + n.source_name + "=" + listed);
  }
  if (flags.empty()) return {};
  return "note: the artifact was planned for other sizes of the model's open dimensions; pass " +
         flags + " as when it was planned";
}

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "verify", "Re-plan a graph under an artifact's recorded profile and compare the results");
  cmd->footer(
      "Example: nnplan verify examples/mlp.json mlp.plan.json\n"
      "         nnplan verify model.json model.plan.json --registry acme.json\n"
      "Flags given here override the recorded profile's fields; --profile starts over from that\n"
      "profile. Exit codes: 0 the artifact matches, 1 it differs (the first 20 differences are\n"
      "listed, with the count of the rest), 2 usage error, 3 unreadable or malformed graph or\n"
      "artifact, 4 a valid model that uses something nnplan does not support.");
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
                  "Lowering mode replacing the recorded one: singleton, coalesced or fused");
  cmd->callback([flags, &exit_code] {
    // A regular file can be read again: its text is let go once the envelope is read, and held
    // again only to diff. A pipe can be read once only, so its text is kept.
    std::error_code ec;
    const bool reread = std::filesystem::is_regular_file(flags->plan, ec);
    auto artifact = format::read_plan_artifact(
        flags->plan, reread ? format::KeepDocument::no : format::KeepDocument::yes);
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
    std::string recorded = reread ? std::string() : std::move(artifact->document);
    std::string().swap(artifact->document);
    auto run = plan_graph_input(std::move(*profile), flags->graph, Digest::compute);
    if (!run) {
      exit_code = run.error();
      return;
    }
    bool same = false;
    if (reread) {
      std::ifstream file(flags->plan, std::ios::binary);
      same = file && same_bytes(file, *run);
    } else {
      std::ispanstream text(std::span<const char>(recorded.data(), recorded.size()));
      same = same_bytes(text, *run);
    }
    format::ArtifactDiff diff;
    if (!same) {
      if (reread) {
        auto again = format::read_plan_artifact(flags->plan);
        if (!again) {
          exit_code = fail(again.error(), kExitBadInput);
          return;
        }
        recorded = std::move(again->document);
      }
      const std::string fresh =
          format::plan_artifact_json(run->profile, *run->graph.digest, run->graph.graph->graph(),
                                     run->model, run->graph.onnx(), run->graph.symbolic_dims);
      // More lines than are shown are kept so the digest line can be put first.
      diff = format::diff_artifacts(recorded, fresh, kKeptDifferences);
    }
    std::vector<std::string>& differences = diff.lines;
    if (diff.total == 0) {
      fmt::print("verified: {} matches {} under profile {}\n", escape_controls(flags->plan),
                 escape_controls(flags->graph.graph), escape_controls(run->profile.name));
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
    fmt::print("mismatch: {} does not match {} under profile {} ({} difference{})\n",
               escape_controls(flags->plan), escape_controls(flags->graph.graph),
               escape_controls(run->profile.name), diff.total, diff.total == 1 ? "" : "s");
    // A registry left out or changed at verify time changes every group planned from it: say so
    // before the differences it causes.
    if (const std::string note = registry_note(artifact->profile, recorded, run->profile);
        !note.empty()) {
      fmt::print("{}\n", escape_controls(note));
    }
    if (const std::string note = input_shape_note(recorded, run->graph); !note.empty()) {
      fmt::print("{}\n", escape_controls(note));
    }
    const std::size_t shown = std::min(differences.size(), kMaxShownDifferences);
    for (std::size_t i = 0; i < shown; ++i)
      fmt::print("{}\n", escape_controls(differences[i]));
    if (shown < diff.total) {
      const std::size_t more = diff.total - shown;
      fmt::print("... and {} more difference{}\n", more, more == 1 ? "" : "s");
    }
    exit_code = kExitRejected;
  });
}

}  // namespace nnplan::cli
