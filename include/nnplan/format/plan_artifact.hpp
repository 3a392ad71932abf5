// The graph plan artifact `nnplan.plan.v1` (SPEC §8–§10): what `nnplan plan --json` writes and
// `nnplan verify` re-checks. It records the profile a graph was planned under, the digest of the
// graph file's bytes, the lowered groups, the full audit (one entry per distinct capsule, every
// contract with its evidence and provenance) and the gate verdict, or the planning error.
// Exported audits are data only: re-planning the same graph under the same profile reproduces the
// same document byte for byte, which is what `verify` checks.
//
// Layout (keys always present, always in this order; field by field in docs/plan_artifact.md):
//   format         "nnplan.plan.v1"
//   profile        {name, device, preference, assurance, vjp, target, lowering, modules}
//   graph          {digest: "sha256:<hex>" | null (unreadable file), nodes: count | null}
//   accepted       true only when planning succeeded and the gate passed
//   gate_failures  [{kind, groups, node_ids, obligations: [{op, capsule, field, claim, evidence,
//                  disposition}]}]: the indices of the failing groups and their source node ids
//   groups         [{node_ids, kinds, op, capsule, provider, device, trust, grouping}]; a graph
//                  imported from ONNX adds onnx_names after kinds: each node's ONNX node name,
//                  parallel to node_ids ("" for a node without one)
//   audit          {kernels: [...], rows: [entry, ...], trusted_external_ops: [op, ...]}: one
//                  kernel entry per distinct capsule, one row per group (its entry's index)
//   error          null, or {kind, node_id, op, message, candidates: [{capsule, reasons:
//                  [{code, detail}]}]} with kind `no-admissible-capsule`, `malformed-graph`
//                  or `unsupported`
// When planning fails (error non-null) `gate_failures` and `groups` are empty arrays and `audit`
// holds three empty arrays, so every artifact has the same shape and tools need no presence checks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/acceptance.hpp"
#include "nnplan/backend/planned_model.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/error.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "nnplan/ir/graph.hpp"

namespace nnplan::format {

inline constexpr std::string_view kPlanFormat = "nnplan.plan.v1";

// Artifacts past this size are refused before the reader allocates for them.
inline constexpr std::uintmax_t kMaxPlanFileBytes = std::uintmax_t{1} << 30;

// `sha256:<64 lowercase hex digits>` of `bytes` (OpenSSL's SHA-256).
[[nodiscard]] std::string sha256_digest(std::string_view bytes);

// The digest of a file's bytes, read in chunks; an unreadable path is an invalid_input error
// naming it.
[[nodiscard]] Expected<std::string> file_digest(const std::filesystem::path& path);

// The artifact for a graph that passed ir::check: an accepted or gate-rejected plan, or, when
// `evaluation` holds an error, the no-admissible-capsule failure (its node and op are taken from
// the node the error's position names). `digest` is the graph file's sha256_digest. With
// `onnx_names` (set it only for a graph imported from ONNX) groups carry `onnx_names`. An ONNX
// model's open input dimensions (LoadedGraph::symbolic_dims), when there are any, are recorded
// as `graph.symbolic_dims`.
[[nodiscard]] std::string plan_artifact_json(const backend::BackendProfile& profile,
                                             std::string_view digest, const ir::Graph& graph,
                                             const Expected<backend::GraphEvaluation>& evaluation,
                                             bool onnx_names = false,
                                             std::span<const SymbolicDim> symbolic_dims = {});

// The same for a planned model (backend::plan_model), or its planning error; `profile` and
// `graph` are the ones it was planned from (the model's own when it holds a value).
[[nodiscard]] std::string plan_artifact_json(const backend::BackendProfile& profile,
                                             std::string_view digest, const ir::Graph& graph,
                                             const Expected<backend::PlannedModel>& model,
                                             bool onnx_names = false,
                                             std::span<const SymbolicDim> symbolic_dims = {});

// The bytes plan_artifact_json returns for a planned model, handed to `sink` in pieces of about
// 64 KiB as they are written, so the caller need not hold the whole document (`verify` compares
// them with the recorded bytes as they come).
void write_plan_artifact(const backend::BackendProfile& profile, std::string_view digest,
                         const ir::Graph& graph, const Expected<backend::PlannedModel>& model,
                         bool onnx_names, std::span<const SymbolicDim> symbolic_dims,
                         const std::function<void(std::string_view)>& sink);

// The artifact for a graph file that could not be read, parsed or checked: error kind
// `malformed-graph`, or `unsupported` for an ErrorKind::unsupported error (a valid ONNX model
// that uses something nnplan does not support yet), `op` null, `node_id` the node the error names
// (null when none). `digest` and `nodes` are null when unknown.
[[nodiscard]] std::string malformed_graph_artifact_json(const backend::BackendProfile& profile,
                                                        std::optional<std::string> digest,
                                                        std::optional<std::size_t> nodes,
                                                        const Error& error);

// The profile an artifact records, parsed. `assurance` and `target` are nullopt when the
// artifact records `custom` (a policy or target that is not a named preset).
struct RecordedProfile {
  std::string name;
  backend::Device device = backend::Device::cpu;
  backend::BackendPreference preference;
  std::optional<backend::AssurancePreset> assurance;
  backend::VjpMode vjp_mode = backend::VjpMode::torchlean_tape;
  std::optional<backend::TargetPreset> target;
  backend::LoweringMode lowering = backend::LoweringMode::coalesced;
  std::vector<std::string> modules;

  bool operator==(const RecordedProfile&) const = default;
};

// A parsed artifact: the fields `verify` needs typed, and the document text for diffing.
struct PlanArtifact {
  RecordedProfile profile;
  std::optional<std::string> digest;
  std::optional<std::size_t> nodes;
  bool accepted = false;
  std::string document;  // the text as read (empty when read with KeepDocument::no)

  bool operator==(const PlanArtifact&) const = default;
};

// Whether a parsed artifact keeps its text (PlanArtifact::document). A caller that can read the
// file again when it needs the text (verify, for a regular file) passes `no`, so that reading an
// artifact never holds more than the mapped file and its small envelope.
enum class KeepDocument : std::uint8_t { yes, no };

// Parses an artifact. Strict on the envelope: the document must be a JSON object whose `format`
// is `nnplan.plan.v1`, with exactly the top-level keys above, a well-typed `profile` (known
// spellings) and `graph`, a boolean `accepted`, arrays `gate_failures` and `groups`, an `audit`
// object and an `error` that is null or an object. Anything else is an invalid_input error naming
// `source` and the field, e.g. `plan.json: not an nnplan.plan.v1 artifact: format is
// 'torchlean.ir.v1'`. The whole text is checked by the strict JSON reader (no repeated key at any
// depth, no NUL byte, nothing after the document, the nesting and string limits), but only the
// envelope is kept in memory: `gate_failures`, `groups` and `audit` are read without being stored,
// and their inside is left to diff_artifacts.
[[nodiscard]] Expected<PlanArtifact> parse_plan_artifact(std::string_view text,
                                                         std::string_view source,
                                                         KeepDocument keep = KeepDocument::yes);

// Reads and parses an artifact file; unreadable or oversized files are errors naming the path.
[[nodiscard]] Expected<PlanArtifact> read_plan_artifact(const std::filesystem::path& path,
                                                        KeepDocument keep = KeepDocument::yes);

// The `capsule` of every entry of the artifact's `audit.kernels`, in order: the capsules its plan
// was made of. Text that is not JSON yields the names before the point where it breaks.
[[nodiscard]] std::vector<std::string> recorded_capsules(std::string_view artifact_json);

// Every difference between two JSON documents, recursively over objects and arrays, in the
// expected document's key order (keys only in `actual` follow). One line each:
//   groups[0].capsule: artifact has "lab.relu", re-planning gives "reference.relu"
//   gate_failures[2]: artifact has {"kind":"test-evidence","groups":[0,1],"node_ids":[1,3,4],
//     "obligations":[{"op":"... (412 bytes), re-planning gives nothing
//   groups[3]: artifact has nothing, re-planning gives {...}
// Arrays are aligned, not compared by position: equal elements (by their compact JSON) are
// matched as a longest common subsequence, so one inserted or removed element is one line at its
// own index (the artifact's for a removed one, the re-planned document's for an inserted one).
// Unmatched elements between two matched ones are paired in order and compared field by field;
// the rest are reported whole. An array whose unmatched middle (after equal first and last
// elements) is too large to align (its two lengths multiply to more than 2^22) is compared by
// position, after `<path>: artifact has N entries, re-planning gives M entries (too
// many to align; compared by position)` when the lengths differ. Values and odd keys are compact
// JSON cut to 80 bytes, with the full length: `"xxx... (102 bytes)`. Key order alone is not a
// difference. Text that is not JSON compares as a single difference at `$`. Empty means the
// documents are equal.
[[nodiscard]] std::vector<std::string> diff_artifacts(std::string_view expected_json,
                                                      std::string_view actual_json);

// The same, keeping only the first `max_lines` lines but counting every difference (`total`), so
// that documents differing everywhere cost no more than `max_lines` lines. The artifact
// (`expected_json`) is parsed to at most about twice the elements of the re-planned document
// (`actual_json`); past that the one difference says so.
struct ArtifactDiff {
  std::vector<std::string> lines;
  std::size_t total = 0;
};
[[nodiscard]] ArtifactDiff diff_artifacts(std::string_view expected_json,
                                          std::string_view actual_json, std::size_t max_lines);

}  // namespace nnplan::format
