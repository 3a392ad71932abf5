// Shared pieces of the nnplan command line: exit codes, error printing, and the config flags
// (`--profile --device --prefer --only --assurance --vjp --target --registry`) that every planning
// subcommand takes. The tool holds no planning logic; it turns flags into library calls.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/planned_model.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/error.hpp"
#include "nnplan/format/graph_file.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "nnplan/ir/check.hpp"

namespace nnplan::cli {

// DESIGN.md exit codes.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRejected = 1;  // a domain answer: no admissible capsule, gate rejection
inline constexpr int kExitUsage = 2;     // bad flags or unknown names
inline constexpr int kExitBadInput = 3;  // unreadable or malformed input file
// a valid model that uses something nnplan does not support yet (ErrorKind::unsupported)
inline constexpr int kExitUnsupported = 4;

// The exit code for an input file that could not be used: 4 when it is valid but uses something
// nnplan does not support yet, 2 when a name the flags gave is not in it (an --input-shape for an
// input the model lacks), else 3.
[[nodiscard]] constexpr int input_exit_code(const Error& error) {
  return error.kind == ErrorKind::unsupported ? kExitUnsupported
         : error.kind == ErrorKind::not_found ? kExitUsage
                                              : kExitBadInput;
}

// Prints `nnplan: error: <rendered error>` to stderr and returns `exit_code`.
int fail(const Error& error, int exit_code);

// An argument as a message shows it: control characters escaped (nnplan/text_escape.hpp) and cut
// to its first 80 bytes, with its length said when cut, so one huge argument cannot turn a
// one-line message into megabytes.
[[nodiscard]] std::string shown_argument(std::string_view text);

// Why a numeric argument is not a number nnplan can take.
enum class UnsignedProblem : bool { not_a_number, out_of_range };

// A decimal integer argument (`--node 3`, a dimension of `--input-shape`): digits only, no sign;
// out_of_range past 2^64 - 1.
[[nodiscard]] std::expected<std::uint64_t, UnsignedProblem> parse_unsigned(std::string_view text);

// Prints the one-line `nnplan: error:` message for arguments CLI11 refused (an unknown subcommand
// or option with the closest valid spelling, a missing value) and returns exit code 2. `args` are
// the arguments after the program name.
int report_parse_error(const CLI::App& app, const CLI::ParseError& error,
                       const std::vector<std::string>& args);

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

// Whether a graph subcommand records the graph file's SHA-256 digest: only plan artifacts (and
// verify, which rebuilds one) do.
enum class Digest : bool { skip, compute };

// Parses `--input-shape NAME=D,D,...` values (dimensions positive integers, each name once) into
// importer options; prints why not and returns exit code 2.
[[nodiscard]] std::expected<format::OnnxImportOptions, int> parse_input_shapes(
    const std::vector<std::string>& values);

// The GRAPH argument and `--input-shape` flag that every graph subcommand takes.
struct GraphFlags {
  std::string graph;
  std::vector<std::string> input_shapes;
  // Whether the graph's weights are read and kept (nnplan run); planning never needs them.
  bool keep_weights = false;

  // Registers the GRAPH positional and `--input-shape` on `command`.
  void add_to(CLI::App& command);
};

// A graph subcommand's profile and its graph file, read and checked.
struct GraphInput {
  backend::BackendProfile profile;
  format::LoadedGraph graph;
};

// GraphInput planned: the model, or the error saying which node has no admissible capsule.
struct PlannedGraph {
  backend::BackendProfile profile;
  format::LoadedGraph graph;
  Expected<backend::PlannedModel> model;
};

// Called with the profile and the failure when the graph file cannot be loaded, after the
// prologue printed the error and before it returns exit code 3 (plan writes its malformed-graph
// artifact).
using OnBadGraph =
    std::function<void(const backend::BackendProfile&, const format::GraphFileFailure&)>;

// The prologue of every graph subcommand: reads GRAPH (format::read_graph_file) for `profile`.
// Exit code 2 (printed) when `--input-shape` is malformed or given for a torchlean.ir.v1 file,
// 3 (printed, then `on_bad_graph`) when the file is unreadable or malformed.
[[nodiscard]] std::expected<GraphInput, int> read_graph_input(backend::BackendProfile profile,
                                                              const GraphFlags& flags,
                                                              Digest digest,
                                                              const OnBadGraph& on_bad_graph = {});
// read_graph_input under the profile `config` and `lowering` describe (exit code 2 or 3 first,
// as ConfigFlags::resolve).
[[nodiscard]] std::expected<GraphInput, int> read_graph_input(
    const ConfigFlags& config, const std::optional<std::string>& lowering, const GraphFlags& flags,
    Digest digest, const OnBadGraph& on_bad_graph = {});
// One line for a person about the dimensions `graph` leaves open and planned at 1 (those no
// --input-shape fixed): which, and how to plan others; empty when there are none.
[[nodiscard]] std::string open_dims_note(const format::LoadedGraph& graph);
// read_graph_input, then backend::plan_model.
[[nodiscard]] std::expected<PlannedGraph, int> plan_graph_input(
    backend::BackendProfile profile, const GraphFlags& flags, Digest digest,
    const OnBadGraph& on_bad_graph = {});
[[nodiscard]] std::expected<PlannedGraph, int> plan_graph_input(
    const ConfigFlags& config, const std::optional<std::string>& lowering, const GraphFlags& flags,
    Digest digest, const OnBadGraph& on_bad_graph = {});

// The files a graph subcommand reads or owns: GRAPH, the payload file beside it (GRAPH with the
// extension `.payloads`) and every `--registry` file. An output flag is
// checked against them (check_output_flag) and written never onto one of them.
[[nodiscard]] std::vector<std::filesystem::path> command_inputs(const GraphFlags& graph,
                                                                const ConfigFlags& config);

// `inputs` and the files the loaded `graph` keeps its weights in (an ONNX model's external data,
// known once it is read): an output flag is checked against these too before anything is written.
[[nodiscard]] std::vector<std::filesystem::path> with_weight_files(
    std::vector<std::filesystem::path> inputs, const format::LoadedGraph& graph);

// Refuses an `-o` path that is one of `inputs` (format::check_output_path): prints
// `-o PATH: the output would overwrite the input PATH; choose another output path` and returns
// false, meaning exit code 2. Called before the command reads or writes anything.
[[nodiscard]] bool check_output_flag(const std::string& path,
                                     std::span<const std::filesystem::path> inputs);

// Writes `text` to `path` through format::write_file_atomically (a temporary renamed into place,
// never onto one of `inputs`); on failure prints why and returns false, meaning exit code 3.
[[nodiscard]] bool write_output_file(const std::string& path, const std::string& text,
                                     std::span<const std::filesystem::path> inputs = {});

void add_targets_command(CLI::App& app, int& exit_code);
void add_profiles_command(CLI::App& app, int& exit_code);
void add_capsules_command(CLI::App& app, int& exit_code);
void add_plan_ops_command(CLI::App& app, int& exit_code);
void add_plan_command(CLI::App& app, int& exit_code);
void add_verify_command(CLI::App& app, int& exit_code);
void add_explain_command(CLI::App& app, int& exit_code);
void add_dot_command(CLI::App& app, int& exit_code);
void add_report_command(CLI::App& app, int& exit_code);
void add_convert_command(CLI::App& app, int& exit_code);
void add_probe_command(CLI::App& app, int& exit_code);
void add_run_command(CLI::App& app, int& exit_code);

}  // namespace nnplan::cli
