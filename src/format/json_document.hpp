// The one strict reader of JSON documents into a nlohmann tree, shared by the DOM readers of
// src/format (registry files, payload indexes, plan artifacts). One pass of nlohmann's SAX parser
// builds the tree and, before anything is stored, refuses what nlohmann itself would accept or
// resolve silently: a key repeated within one object (nlohmann keeps the last), nesting past
// kMaxJsonDepth, strings and keys past kMaxStringBytes, more than kMaxJsonElements elements in
// the document, and content after the document. A NUL byte anywhere is refused by a memchr before
// the pass: nlohmann's lexer takes one for the end of input, so content after it would never be
// read. The graph reader (ir_json_reader.cpp) has its own SAX handler and shares only the NUL check.
#pragma once

#include <cstddef>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "nnplan/format/limits.hpp"

namespace nnplan::format::detail {

// One step of a path into a document: an object key or an array index.
using JsonPathStep = std::variant<std::string, std::size_t>;

// Why a document was refused. `problem` is one line naming the location ("line 3, column 7") and,
// for a limit, the limit; it does not name the source file (the caller prefixes it).
struct JsonDocumentError {
  std::string problem;
  // Set for a repeated key: the path to it (its last step is the key), where its second
  // occurrence starts ("line 3, column 7") and the document as read up to it, so a reader can
  // name the location in its own terms (module, capsule, field).
  std::optional<std::vector<JsonPathStep>> repeated_key;
  std::string location;
  nlohmann::ordered_json partial;
};

// Which members of the root object a reader keeps. The value of a member named in `shallow`, or
// (when `known` is not empty) of one not named in `known`, is read and checked by every rule
// above but not stored: it stands in the tree as an empty array or object (a scalar is kept), and
// its inside does not count toward the element limit, since it takes no memory. A reader passes
// its large members as `shallow` when it needs only a document's envelope, and its valid keys as
// `known` so that an unknown field, which it refuses by name, is never built however large.
struct RootMembers {
  std::span<const std::string_view> shallow;
  std::span<const std::string_view> known;
};

// Parses `text` as one JSON document of at most `max_elements` stored elements. Allocation failure
// throws std::bad_alloc (callers turn it into an internal error at their boundary); nothing else
// throws.
[[nodiscard]] std::expected<nlohmann::ordered_json, JsonDocumentError> parse_json_document(
    std::string_view text, std::size_t max_elements = kMaxJsonElements, RootMembers members = {});

// The problem nlohmann's parser reports for `text`, as one line: "invalid JSON at line 3,
// column 7: syntax error while parsing ..." (the position nlohmann gives, or, for errors that come
// without one such as "number overflow parsing '1e400'", the byte at `offset`), cut to 240 bytes
// (the parser quotes what it read last, which can be a whole unterminated string).
[[nodiscard]] std::string json_syntax_problem(std::string_view what, std::string_view text,
                                              std::size_t offset);

// "line 3, column 7" of the byte at `offset` of `text`.
[[nodiscard]] std::string line_column(std::string_view text, std::size_t offset);

// "a.b[2].c" for `path`, with keys cut short (message_text.hpp's `shown`).
[[nodiscard]] std::string json_path_text(const std::vector<JsonPathStep>& path);

// The problem with the first NUL byte of `text`, if it has one ("NUL byte at line 1, column 9
// (byte 8); JSON text cannot contain NUL").
[[nodiscard]] std::optional<std::string> json_nul_problem(std::string_view text);

}  // namespace nnplan::format::detail
