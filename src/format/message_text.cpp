#include "message_text.hpp"

#include <utility>

namespace nnplan::format::detail {

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

std::string or_list(std::span<const std::string> choices) {
  std::string out;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (i != 0) out += i + 1 == choices.size() ? " or " : ", ";
    out += choices[i];
  }
  return out;
}

bool only_whitespace(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace nnplan::format::detail
