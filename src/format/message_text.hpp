// Private helpers for the text of error messages, shared by the readers of src/format (graph
// JSON, payload files, registry files, plan artifacts, ONNX import and the bounded file reader).
// Messages are one line of valid UTF-8 (error.hpp); user values quoted in them are cut short.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nnplan::format::detail {

// User values quoted in messages are cut to this many bytes, so that one bad field cannot turn a
// one-line message into a megabyte. Every valid spelling is far shorter.
inline constexpr std::size_t kMaxShownBytes = 64;

// `text` cut to kMaxShownBytes on a UTF-8 boundary, with "..." appended when cut.
std::string shown(std::string_view text);

// The length of the well-formed UTF-8 sequence at the start of `text`, or 0 when it is not one
// (including when `text` starts with an ASCII byte or is empty).
std::size_t utf8_sequence_length(std::string_view text);

// `text` as one line of valid text: newline, tab and carriage return become `\n`, `\t`, `\r`;
// other control characters and bytes that are not well-formed UTF-8 become `\xNN`.
std::string escape_controls(std::string_view text);

// "No such file or directory" reads as "no such file or directory" inside a message.
std::string lowercase_first(std::string text);

// True when `text` holds nothing but JSON whitespace (an empty document).
bool only_whitespace(std::string_view text);

}  // namespace nnplan::format::detail
