// Errors as values. Every fallible public function returns std::expected<T, nnplan::Error>.
// An Error carries a canonical kind, a one-line message, the context frames added on the way up
// ("at op list position 3", "in file x.json") and, for planning failures, a per-candidate
// explanation of why each capsule that implements the op was rejected.
#pragma once

#include <cstddef>
#include <expected>
#include <optional>
#include <string>
#include <vector>

namespace nnplan {

enum class ErrorKind {
  // The caller's input is malformed: bad file, bad field, unknown name, broken graph.
  invalid_input,
  // A name the caller asked for does not exist (profile, capsule, node).
  not_found,
  // The input is well formed but a policy says no: no admissible capsule, gate failure.
  rejected_by_policy,
  // Something the plan needs is not present on this machine or build.
  unavailable,
  // A name the caller tried to register is taken already (a duplicate module or capsule).
  already_exists,
  // The input is valid but uses something nnplan does not handle yet (an ONNX operator, attribute
  // value or data type); the command line exits 4 for it.
  unsupported,
  // The process ran out of memory or another resource while doing the work.
  resource_exhausted,
  // Execution (SPEC §11). A plan's group needs a provider or device the probe of this machine did
  // not confirm; the command line exits 1 for these, before anything runs.
  unprobed_provider,
  unprobed_device,
  // A planned capsule has no handler of its identity in this build, or claims a runtime guard
  // this build does not register (compile time).
  unbound_capsule,
  // A runtime guard refused a launch: the operands are not what the kernel handles.
  guard_failed,
  // The inputs given to a run do not match the model's (name, dtype, shape) or cannot be read;
  // the command line exits 3.
  bad_input,
  // A broken internal invariant; always a bug in nnplan.
  internal,
};

// One reason a candidate capsule was rejected: a stable code (SPEC §10) and the specifics.
struct ReasonReport {
  std::string code;
  std::string detail;
  bool operator==(const ReasonReport&) const = default;
};

// One capsule that implements the requested op, and every reason it was not chosen.
struct CandidateReport {
  std::string capsule;
  std::string provider;
  std::string device;
  std::vector<ReasonReport> reasons;
  bool operator==(const CandidateReport&) const = default;
};

struct Error {
  ErrorKind kind = ErrorKind::internal;
  // First line; never contains a newline.
  std::string message;
  // Context frames, innermost first ("at op 3 of 5 (fft_fno)").
  std::vector<std::string> context;
  // Further facts about the failure ("no capsule in the registry implements fft_fno").
  std::vector<std::string> notes;
  // Filled by planning failures: every capsule of the registry that implements the op.
  std::vector<CandidateReport> candidates;
  // The op list position (plan_ops) or node id (graphs) the error refers to, when there is one.
  std::optional<std::size_t> position;

  bool operator==(const Error&) const = default;

  // Adds an outer context frame and returns *this, for `return std::unexpected(e.with(...))`.
  Error& with_context(std::string frame) &;
  Error&& with_context(std::string frame) &&;
};

[[nodiscard]] Error make_error(ErrorKind kind, std::string message);

// The invalid_input error "<source>: <message>" (just `message` when `source` is empty), escaped
// to one line (nnplan/text_escape.hpp): what a reader says about a file or buffer it was given.
[[nodiscard]] Error invalid_input_in(std::string_view source, std::string_view message);

// Stable spelling of an error kind (`invalid-input`, `not-found`, ...).
[[nodiscard]] const char* to_string(ErrorKind kind);

// Multi-line rendering for people: the message, context frames, notes, then each candidate
// with one line per rejection reason. Control characters in any piece are escaped
// (nnplan/text_escape.hpp), so a name from an input cannot add a line of its own.
[[nodiscard]] std::string render(const Error& error);

template <class T>
using Expected = std::expected<T, Error>;

}  // namespace nnplan
