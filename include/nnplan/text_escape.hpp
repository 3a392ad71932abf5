// Escaping of text that came from an input (node names, ONNX op types, capsule, module and
// evidence names, file paths, command-line words) before it reaches a terminal or a line-oriented
// text output. Shared by every layer: the backend's report lines, the formats' messages and DOT
// labels, and the command line all route input-derived strings through escape_controls, so a
// name can neither start a new line that looks like a verdict nor send terminal escape sequences.
// JSON outputs need none of this: the JSON writer escapes control characters itself.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nnplan {

// The length of the well-formed UTF-8 sequence at the start of `text`, or 0 when it is not one
// (including when `text` starts with an ASCII byte or is empty).
[[nodiscard]] std::size_t utf8_sequence_length(std::string_view text);

// User values quoted in messages are cut to this many bytes, so that one bad field cannot turn a
// one-line message into a megabyte.
inline constexpr std::size_t kMaxShownBytes = 64;

// `text` cut to kMaxShownBytes on a UTF-8 boundary, with "..." appended when cut.
[[nodiscard]] std::string shown(std::string_view text);

// Whether escape_controls(text) differs from `text`.
[[nodiscard]] bool needs_escaping(std::string_view text);

// `text` as one line of inert text: newline, tab and carriage return become `\n`, `\t`, `\r`;
// other C0 control characters, DEL and bytes that are not well-formed UTF-8 become `\xNN`; the
// C1 controls (U+0080..U+009F, which some terminals read as escape sequences) and the Unicode
// bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069, which reorder what a
// terminal shows) become `\uNNNN`. Everything else, UTF-8 letters included, is kept.
[[nodiscard]] std::string escape_controls(std::string_view text);

// Whether `text` is well-formed UTF-8 throughout.
[[nodiscard]] bool valid_utf8(std::string_view text);

// `text` with each byte that is not part of well-formed UTF-8 written as the four characters
// `\xNN`, everything else kept: the form a string from an input takes in a JSON output, which
// must be valid UTF-8 (the JSON writer escapes the control characters itself).
[[nodiscard]] std::string utf8_escaped(std::string_view text);

// Appends escape_controls(text) to `out`; appends `text` as it is, without a copy, when it needs
// no escaping (the common case, so report lines stay a few appends).
void append_escaped(std::string& out, std::string_view text);

}  // namespace nnplan
