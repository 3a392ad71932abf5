#include "nnplan/text_escape.hpp"

#include <cstdint>

namespace nnplan {

namespace {

constexpr char kHex[] = "0123456789abcdef";

// The code point of the well-formed sequence of `length` bytes at the start of `text`.
std::uint32_t code_point(std::string_view text, std::size_t length) {
  const auto byte = [&text](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  std::uint32_t cp = byte(0) & (length == 2 ? 0x1Fu : length == 3 ? 0x0Fu : 0x07u);
  for (std::size_t i = 1; i < length; ++i)
    cp = (cp << 6) | (byte(i) & 0x3Fu);
  return cp;
}

// Whether a well-formed code point is one escape_controls spells as `\uNNNN`.
bool is_hidden_control(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

// Calls `keep(begin, length)` for each run of bytes kept as they are and `escape(text)` with the
// escape of each byte or sequence that is not, in order.
template <class Keep, class Escape>
void scan(std::string_view text, Keep keep, Escape escape) {
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size();) {
    const char ch = text[i];
    const auto byte = static_cast<unsigned char>(ch);
    if (byte >= 0x20 && byte < 0x7f) {
      ++i;
      continue;
    }
    if (byte >= 0x80) {
      if (const std::size_t n = utf8_sequence_length(text.substr(i)); n != 0) {
        const std::uint32_t cp = code_point(text.substr(i), n);
        if (!is_hidden_control(cp)) {
          i += n;
          continue;
        }
        keep(run, i - run);
        char buffer[6] = {'\\',
                          'u',
                          kHex[(cp >> 12) & 0xF],
                          kHex[(cp >> 8) & 0xF],
                          kHex[(cp >> 4) & 0xF],
                          kHex[cp & 0xF]};
        escape(std::string_view(buffer, sizeof buffer));
        i += n;
        run = i;
        continue;
      }
    }
    keep(run, i - run);
    if (ch == '\n') {
      escape("\\n");
    } else if (ch == '\t') {
      escape("\\t");
    } else if (ch == '\r') {
      escape("\\r");
    } else {
      const char buffer[4] = {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xF]};
      escape(std::string_view(buffer, sizeof buffer));
    }
    ++i;
    run = i;
  }
  keep(run, text.size() - run);
}

}  // namespace

std::size_t utf8_sequence_length(std::string_view text) {
  if (text.empty()) return 0;
  const auto byte = [&text](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  // The second byte's range excludes overlong forms and surrogates (Unicode table 3-7).
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

bool needs_escaping(std::string_view text) {
  bool escaped = false;
  scan(
      text, [](std::size_t, std::size_t) {}, [&escaped](std::string_view) { escaped = true; });
  return escaped;
}

void append_escaped(std::string& out, std::string_view text) {
  scan(
      text, [&](std::size_t begin, std::size_t length) { out.append(text, begin, length); },
      [&out](std::string_view escape) { out += escape; });
}

bool valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t n = byte < 0x80 ? 1 : utf8_sequence_length(text.substr(i));
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string utf8_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t n = byte < 0x80 ? 1 : utf8_sequence_length(text.substr(i));
    if (n != 0) {
      out.append(text, i, n);
      i += n;
      continue;
    }
    out += {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xF]};
    ++i;
  }
  return out;
}

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(out, text);
  return out;
}

std::string shown(std::string_view text) {
  if (text.size() <= kMaxShownBytes) return std::string(text);
  // Cut on a UTF-8 boundary so the message stays valid text.
  std::size_t cut = kMaxShownBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;
  return std::string(text.substr(0, cut)) + "...";
}

}  // namespace nnplan
