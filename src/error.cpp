#include "nnplan/error.hpp"

#include "nnplan/text_escape.hpp"

namespace nnplan {

Error& Error::with_context(std::string frame) & {
  context.push_back(std::move(frame));
  return *this;
}

Error&& Error::with_context(std::string frame) && {
  context.push_back(std::move(frame));
  return std::move(*this);
}

Error invalid_input_in(std::string_view source, std::string_view message) {
  std::string full;
  if (!source.empty()) {
    full += source;
    full += ": ";
  }
  full += message;
  return make_error(ErrorKind::invalid_input, escape_controls(full));
}

Error make_error(ErrorKind kind, std::string message) {
  return Error{.kind = kind, .message = std::move(message)};
}

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::invalid_input:
      return "invalid-input";
    case ErrorKind::not_found:
      return "not-found";
    case ErrorKind::rejected_by_policy:
      return "rejected-by-policy";
    case ErrorKind::unavailable:
      return "unavailable";
    case ErrorKind::already_exists:
      return "already-exists";
    case ErrorKind::unsupported:
      return "unsupported";
    case ErrorKind::resource_exhausted:
      return "resource-exhausted";
    case ErrorKind::unprobed_provider:
      return "unprobed-provider";
    case ErrorKind::unprobed_device:
      return "unprobed-device";
    case ErrorKind::unbound_capsule:
      return "unbound-capsule";
    case ErrorKind::guard_failed:
      return "guard-failed";
    case ErrorKind::bad_input:
      return "bad-input";
    case ErrorKind::internal:
      return "internal";
  }
  return "internal";
}

// Every piece may hold a name from an input; each is escaped (nnplan/text_escape.hpp), so the
// only line breaks are the ones rendering adds.
std::string render(const Error& error) {
  std::string out;
  append_escaped(out, error.message);
  for (const std::string& frame : error.context) {
    out += "\n  ";
    append_escaped(out, frame);
  }
  for (const std::string& note : error.notes) {
    out += "\n  ";
    append_escaped(out, note);
  }
  for (const CandidateReport& candidate : error.candidates) {
    out += "\n  candidate ";
    append_escaped(out, candidate.capsule);
    out += " (provider=";
    append_escaped(out, candidate.provider);
    out += " device=";
    append_escaped(out, candidate.device);
    out += "):";
    for (const ReasonReport& reason : candidate.reasons) {
      out += "\n    ";
      append_escaped(out, reason.code);
      if (!reason.detail.empty()) {
        out += ": ";
        append_escaped(out, reason.detail);
      }
    }
  }
  return out;
}

}  // namespace nnplan
