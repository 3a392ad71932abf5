// Private helpers for the text of error messages, shared by the readers of src/format (graph
// JSON, payload files, registry files, plan artifacts, ONNX import and the bounded file reader).
// Messages are one line of valid UTF-8 (error.hpp); user values quoted in them are cut short.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "nnplan/text_escape.hpp"

namespace nnplan::format::detail {

// The one escaping and cutting helpers of every layer (nnplan/text_escape.hpp), under the names
// the readers use: shown(text) cuts a quoted value to kMaxShownBytes.
using nnplan::escape_controls;
using nnplan::kMaxShownBytes;
using nnplan::shown;
using nnplan::utf8_sequence_length;

// Names a file chose (ONNX node, tensor and operator names), which may be megabytes long or hold
// control characters, as a message shows them: escaped as escape_controls does and, past
// kMaxQuotedBytes, cut on a UTF-8 boundary with the full length after it. `capped_name`: `relu_1`,
// `nnnn... (20000000 bytes)`; `quoted_name` the same in single quotes: `'relu_1'`,
// `'nnnn...' (20000000 bytes)`.
inline constexpr std::size_t kMaxQuotedBytes = 80;
std::string capped_name(std::string_view text);
std::string quoted_name(std::string_view text);

// "No such file or directory" reads as "no such file or directory" inside a message.
std::string lowercase_first(std::string text);

// The choices of a message as people write them: "a", "a or b", "a, b or c".
std::string or_list(std::span<const std::string> choices);

// True when `text` holds nothing but JSON whitespace (an empty document).
bool only_whitespace(std::string_view text);

}  // namespace nnplan::format::detail
