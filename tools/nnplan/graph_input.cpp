// Pieces shared by the graph subcommands (plan, verify, explain, dot): loading and checking a
// graph file, the `--lowering` flag, typed overrides from the config flags, and output files.
#include <fmt/core.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "cli.hpp"
#include "nnplan/format/ir_json.hpp"
#include "nnplan/format/plan_artifact.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

namespace {

// Parses an optional flag value; an unknown name prints the valid ones (exit 2).
template <class T, class Parse>
bool parse_flag(const std::optional<std::string>& text, std::string_view flag, Parse parse,
                std::optional<T>& out) {
  if (!text) return true;
  auto value = parse(*text);
  if (!value) {
    fail(std::move(value.error()).with_context("in " + std::string(flag)), kExitUsage);
    return false;
  }
  out = *value;
  return true;
}

}  // namespace

std::expected<ProfileOverrides, int> explicit_overrides(const ConfigFlags& flags) {
  ProfileOverrides overrides;
  std::optional<Provider> prefer_provider;
  std::optional<Provider> only_provider;
  if (!parse_flag(flags.device, "--device", parse_device, overrides.device) ||
      !parse_flag(flags.prefer, "--prefer", parse_provider, prefer_provider) ||
      !parse_flag(flags.only, "--only", parse_provider, only_provider) ||
      !parse_flag(flags.assurance, "--assurance", parse_assurance_preset, overrides.assurance) ||
      !parse_flag(flags.vjp, "--vjp", parse_vjp_mode, overrides.vjp_mode) ||
      !parse_flag(flags.target, "--target", parse_target_preset, overrides.target)) {
    return std::unexpected(kExitUsage);
  }
  if (prefer_provider) overrides.preference = BackendPreference::prefer(*prefer_provider);
  if (only_provider) overrides.preference = BackendPreference::only(*only_provider);
  auto modules = load_registry_files(flags.registries);
  if (!modules) return std::unexpected(modules.error());
  overrides.modules = std::move(*modules);
  return overrides;
}

std::expected<std::optional<LoweringMode>, int> parse_lowering_flag(
    const std::optional<std::string>& text) {
  std::optional<LoweringMode> mode;
  if (!parse_flag(text, "--lowering", parse_lowering_mode, mode)) {
    return std::unexpected(kExitUsage);
  }
  return mode;
}

std::expected<BackendProfile, int> resolve_graph_profile(
    const ConfigFlags& flags, const std::optional<std::string>& lowering) {
  auto mode = parse_lowering_flag(lowering);
  if (!mode) return std::unexpected(mode.error());
  auto profile = flags.resolve();
  if (!profile) return std::unexpected(profile.error());
  if (*mode) profile->lowering = **mode;
  return profile;
}

GraphInput load_graph(const std::string& path) {
  GraphInput input{.path = path};
  // The digest is of the bytes as they are on disk; an unreadable file has none.
  auto digest = format::file_digest(path);
  if (!digest) {
    input.error = std::move(digest.error());
    return input;
  }
  input.digest = std::move(*digest);
  auto graph = format::read_ir_file(path);
  if (!graph) {
    input.error = std::move(graph.error());
    return input;
  }
  input.nodes = graph->nodes.size();
  auto checked = ir::check(std::move(*graph));
  if (!checked) {
    // Named like the reader's errors: `<file>: node <id> (<kind>): <what is wrong>`.
    input.error = std::move(checked.error());
    input.error->message = path + ": " + input.error->message;
    return input;
  }
  input.graph = std::move(*checked);
  return input;
}

bool write_output_file(const std::string& path, const std::string& text) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (out) out.flush();
  if (!out) {
    const int err = errno;
    std::string reason = err != 0 ? std::string(std::strerror(err)) : std::string("write failed");
    if (!reason.empty())
      reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
    fail(make_error(ErrorKind::invalid_input, path + ": cannot write output file: " + reason),
         kExitBadInput);
    return false;
  }
  return true;
}

}  // namespace nnplan::cli
