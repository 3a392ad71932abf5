// Shared pieces of the nnplan command line: exit codes, error printing, and the config flags
// (`--profile --device --prefer --only --assurance --vjp --target --registry`) that every planning
// subcommand takes. The tool holds no planning logic; it turns flags into library calls.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nnplan/backend/profile.hpp"
#include "nnplan/error.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "nnplan/ir/check.hpp"

namespace nnplan::cli {

// DESIGN.md exit codes.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRejected = 1;  // a domain answer: no admissible capsule, gate rejection
inline constexpr int kExitUsage = 2;     // bad flags or unknown names
inline constexpr int kExitBadInput = 3;  // unreadable or malformed input file

// Prints `nnplan: error: <rendered error>` to stderr and returns `exit_code`.
int fail(const Error& error, int exit_code);

// The raw strings of the config flags, as CLI11 fills them.
struct ConfigFlags {
  std::optional<std::string> profile;
  std::optional<std::string> device;
  std::optional<std::string> prefer;
  std::optional<std::string> only;
  std::optional<std::string> assurance;
  std::optional<std::string> vjp;
  std::optional<std::string> target;
  std::vector<std::string> registries;

  // Registers the flags on `command`.
  void add_to(CLI::App& command);
  // The profile these flags describe, or the exit code after printing why not (2 for unknown
  // names and for a `--device` without a maintained profile, 3 for an unreadable or invalid
  // registry file). The base is `--profile`; without it the maintained profile for `--device`
  // (SPEC §9: checked_cpu for cpu, checked_cuda for cuda, any other device an error); without
  // either checked_cpu. The other flags are then applied as overrides (apply_overrides), so a
  // profile they change is named `<base>+overrides`.
  [[nodiscard]] std::expected<backend::BackendProfile, int> resolve() const;
  // resolve() with a `--lowering` value added to the overrides (2 for an unknown mode).
  [[nodiscard]] std::expected<backend::BackendProfile, int> resolve(
      const std::optional<std::string>& lowering) const;
};

// Parses an optional flag value with `parse` into `out`; an unknown name prints the valid ones
// (with the flag as context) and returns false, meaning exit code 2.
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

// Loads `--registry` files in order; on failure prints the error and returns exit code 3.
[[nodiscard]] std::expected<std::vector<backend::CapsuleModule>, int> load_registry_files(
    const std::vector<std::string>& paths);

// The typed overrides the config flags spell (everything but `--profile`), with the `--registry`
// modules loaded; exit code 2 or 3 after printing why not. Used where the base profile does not
// come from `--profile` (verify rebuilds it from an artifact).
[[nodiscard]] std::expected<backend::ProfileOverrides, int> explicit_overrides(
    const ConfigFlags& flags);

// Parses a `--lowering` value; an unknown mode prints the valid ones and returns exit code 2.
[[nodiscard]] std::expected<std::optional<backend::LoweringMode>, int> parse_lowering_flag(
    const std::optional<std::string>& text);

// A graph file loaded for planning (torchlean.ir.v1 or ONNX, then ir::check). `digest` is set
// when it was asked for and the file could be read, `nodes` when it parsed, `graph` when it passed
// the checker; otherwise `error` says why, naming the file and, where there is one, the node and
// field. `onnx` says the graph was imported from ONNX, so its node names are ONNX node names.
struct GraphInput {
  std::string path;
  bool onnx = false;
  std::optional<std::string> digest;
  std::optional<std::size_t> nodes;
  std::optional<ir::CheckedGraph> graph;
  std::optional<Error> error;
};

// `value`, moved to where it lives until the process exits, never destroyed: the graph
// subcommands keep their loaded graph and their plan this way. Tearing them down would touch
// every node once more only to hand back memory that the exit releases anyway (measured: the
// last 1.1 ms of `nnplan plan` on the 100k chain before `main` returned, 0.07 ms after). A global
// keeps them reachable, so LeakSanitizer does not count them as leaks.
namespace detail {
void keep_until_exit(std::shared_ptr<void> value);
}  // namespace detail
template <class T>
std::decay_t<T>& keep_until_exit(T&& value) {
  auto kept = std::make_shared<std::decay_t<T>>(std::forward<T>(value));
  std::decay_t<T>& ref = *kept;
  detail::keep_until_exit(std::move(kept));
  return ref;
}

// Whether a load computes the file's SHA-256 digest: only plan artifacts (and verify, which
// rebuilds one) record it, and hashing a large model is a measurable part of planning it.
enum class Digest : bool { skip, compute };

// Whether `path` holds an ONNX model rather than torchlean.ir.v1 JSON: a `.onnx` extension says
// ONNX and `.json` says JSON; otherwise the content decides (JSON opens with `{` or `[` after
// optional whitespace, anything else is taken for a serialized ModelProto).
[[nodiscard]] bool is_onnx_file(const std::string& path);

// Parses `--input-shape NAME=D,D,...` values (dimensions positive integers, each name once) into
// importer options; prints why not and returns exit code 2.
[[nodiscard]] std::expected<format::OnnxImportOptions, int> parse_input_shapes(
    const std::vector<std::string>& values);

// The GRAPH argument and `--input-shape` flag that every graph subcommand takes.
struct GraphFlags {
  std::string graph;
  std::vector<std::string> input_shapes;

  // Registers the GRAPH positional and `--input-shape` on `command`.
  void add_to(CLI::App& command);
  // Loads the graph. Exit code 2 (printed) when `--input-shape` is malformed or given for a
  // torchlean.ir.v1 file; an unreadable or malformed graph is a GraphInput with `error` set.
  [[nodiscard]] std::expected<GraphInput, int> load(Digest digest) const;
};

// Loads a graph file of either format; `onnx` is passed to the importer.
[[nodiscard]] GraphInput load_graph(const std::string& path, Digest digest,
                                    const format::OnnxImportOptions& onnx = {});

// Writes `text` to `path`; on failure prints why and returns false.
[[nodiscard]] bool write_output_file(const std::string& path, const std::string& text);

void add_targets_command(CLI::App& app, int& exit_code);
void add_profiles_command(CLI::App& app, int& exit_code);
void add_capsules_command(CLI::App& app, int& exit_code);
void add_plan_ops_command(CLI::App& app, int& exit_code);
void add_plan_command(CLI::App& app, int& exit_code);
void add_verify_command(CLI::App& app, int& exit_code);
void add_explain_command(CLI::App& app, int& exit_code);
void add_dot_command(CLI::App& app, int& exit_code);
void add_convert_command(CLI::App& app, int& exit_code);

}  // namespace nnplan::cli
