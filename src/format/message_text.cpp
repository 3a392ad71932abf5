#include "message_text.hpp"

#include <utility>

#include "nnplan/format/limits.hpp"

namespace nnplan::format::detail {

std::string shown(std::string_view text) {
  if (text.size() <= kMaxShownBytes) return std::string(text);
  // Cut on a UTF-8 boundary so the message stays valid text.
  std::size_t cut = kMaxShownBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;
  return std::string(text.substr(0, cut)) + "...";
}

namespace {

// `text` escaped and cut as capped_name() does: the shown part and, when cut, the marker after it.
std::pair<std::string, std::string> capped_parts(std::string_view text) {
  if (text.size() <= kMaxQuotedBytes) return {escape_controls(text), std::string()};
  std::size_t cut = kMaxQuotedBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;
  return {escape_controls(text.substr(0, cut)) + "...",
          " (" + std::to_string(text.size()) + " bytes)"};
}

}  // namespace

std::string capped_name(std::string_view text) {
  auto [shown_part, marker] = capped_parts(text);
  return shown_part + marker;
}

std::string quoted_name(std::string_view text) {
  auto [shown_part, marker] = capped_parts(text);
  return "'" + shown_part + "'" + marker;
}

std::string lowercase_first(std::string text) {
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z')
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  return text;
}

bool only_whitespace(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

std::optional<std::string> json_limit_problem(std::string_view text) {
  std::size_t line = 1;
  std::size_t line_start = 0;
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  std::size_t string_start = 0;
  const auto at = [&](std::size_t offset) {
    return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
        const std::size_t length = i - string_start - 1;
        if (length > kMaxStringBytes) {
          // The string cannot hold a raw newline (the parser refuses those), so `line` is its own.
          return "JSON string at " + at(string_start) + " is " + std::to_string(length) +
                 " bytes long; the limit is " + std::to_string(kMaxStringBytes) + " bytes (" +
                 std::to_string(kMaxStringBytes >> 10) + " KiB)";
        }
      } else if (c == '\n') {
        // Invalid JSON; let the parser say so with its own position.
        return std::nullopt;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        string_start = i;
        break;
      case '[':
      case '{':
        if (++depth > kMaxJsonDepth) {
          return "JSON nesting reaches " + std::to_string(depth) + " levels at " + at(i) +
                 "; the limit is " + std::to_string(kMaxJsonDepth) + " levels";
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      case '\n':
        ++line;
        line_start = i + 1;
        break;
      default:
        break;
    }
  }
  if (in_string && text.size() - string_start - 1 > kMaxStringBytes) {
    return "JSON string at " + at(string_start) + " is " +
           std::to_string(text.size() - string_start - 1) +
           " bytes long and unterminated; the limit is " + std::to_string(kMaxStringBytes) +
           " bytes (" + std::to_string(kMaxStringBytes >> 10) + " KiB)";
  }
  return std::nullopt;
}

}  // namespace nnplan::format::detail
