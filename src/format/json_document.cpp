// The shared strict JSON reader (json_document.hpp): a SAX handler that builds the ordered_json
// tree and checks every rule of the header before it stores a value.
#include "json_document.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <unordered_set>
#include <utility>

#include "message_text.hpp"
#include "nnplan/format/limits.hpp"

namespace nnplan::format::detail {
namespace {

using Json = nlohmann::ordered_json;

// A pointer into the text that also publishes how far the parser has read, so the handler can
// say where an event happened: nlohmann passes positions to parse_error only. The parser reads
// no further than the token it reports, so the last byte read is the token's last byte (for a
// number, the byte after it, which ends the number).
class TrackedIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackedIterator(const char* at, const char** read_to) : at_(at), read_to_(read_to) {}
  reference operator*() const { return *at_; }
  TrackedIterator& operator++() {
    *read_to_ = ++at_;
    return *this;
  }
  TrackedIterator operator++(int) {
    TrackedIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const TrackedIterator& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  const char** read_to_;
};

std::string limit_text(std::size_t bytes) {
  return std::to_string(bytes) + " bytes (" + std::to_string(bytes >> 10) + " KiB)";
}

// Builds the tree bottom-up: each open container collects its members in a buffer of its own and
// becomes a value of its parent when it closes. An ordered_json object is a vector of pairs with
// a const key, which the vector copies (values and all) each time it grows; built in one step
// from the finished buffer, with its size known, it never grows. Buffers are kept per depth and
// reused, so the tree's own nodes are the only allocations.
class DomBuilder {
 public:
  DomBuilder(std::string_view text, std::size_t max_elements, RootMembers members)
      : text_(text), read_to_(text.data()), max_elements_(max_elements), members_(members) {}

  [[nodiscard]] const char** read_to() { return &read_to_; }

  bool null() { return add(Json(nullptr)); }
  bool boolean(bool value) { return add(Json(value)); }
  bool number_integer(Json::number_integer_t value) { return add(Json(value)); }
  bool number_unsigned(Json::number_unsigned_t value) { return add(Json(value)); }
  bool number_float(Json::number_float_t value, const Json::string_t& /*text*/) {
    return add(Json(value));
  }
  bool string(Json::string_t& value) {
    if (value.size() > kMaxStringBytes) return string_too_long(value.size());
    return add(Json(std::move(value)));
  }
  bool binary(Json::binary_t& /*value*/) {
    // The JSON lexer never produces binary values.
    return fail("binary value in a JSON document");
  }
  bool start_object(std::size_t /*elements*/) { return open(/*object=*/true); }
  bool start_array(std::size_t /*elements*/) { return open(/*object=*/false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(Json::string_t& key) {
    if (key.size() > kMaxStringBytes) return string_too_long(key.size());
    Frame& top = frames_[depth_ - 1];
    if (holds_key(top, key)) {
      std::vector<JsonPathStep> path = open_path();
      path.emplace_back(key);
      std::string where = line_column(text_, string_start());
      fail("field " + json_path_text(path) + " appears more than once (at " + where + ")");
      error_->repeated_key = std::move(path);
      error_->location = std::move(where);
      // The enclosing objects as read so far, for the caller's message.
      while (depth_ > 0)
        close();
      return false;
    }
    // The value replaces the null when it comes.
    top.members.emplace_back(std::move(key), nullptr);
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) {
    // nlohmann's position counts the byte it stopped at.
    const std::size_t offset = position == 0 ? 0 : position - 1;
    if (done_) {
      return fail("content after the end of the JSON document at " + line_column(text_, offset));
    }
    std::string problem = json_syntax_problem(ex.what(), text_, offset);
    return fail(std::move(problem));
  }

  [[nodiscard]] std::optional<JsonDocumentError>& error() { return error_; }
  [[nodiscard]] Json& root() { return root_; }

 private:
  struct Frame {
    bool object = false;
    std::vector<std::pair<std::string, Json>> members;  // an object's
    std::vector<Json> elements;                         // an array's
    // Keys of a large object, for a hash lookup per key. A small object (most of them) is
    // searched directly: a set per object would cost more allocations than the tree itself.
    std::unordered_set<std::string> keys;
    // Elements of an array inside a shallow member: counted for paths, not stored.
    std::size_t skipped = 0;
  };

  static constexpr std::size_t kLinearKeySearch = 16;

  // True when the object of `frame` already holds `key`; linear over all keys overall.
  static bool holds_key(Frame& frame, const std::string& key) {
    if (frame.members.size() < kLinearKeySearch) {
      for (const auto& member : frame.members) {
        if (member.first == key) return true;
      }
      return false;
    }
    if (frame.keys.empty()) {
      for (const auto& member : frame.members)
        frame.keys.insert(member.first);
    }
    return !frame.keys.insert(key).second;
  }

  bool fail(std::string problem) {
    if (!error_) error_ = JsonDocumentError{.problem = std::move(problem)};
    return false;
  }

  // The offset of the byte the parser read last.
  [[nodiscard]] std::size_t last_read() const {
    const auto read = static_cast<std::size_t>(read_to_ - text_.data());
    return read == 0 ? 0 : read - 1;
  }

  // The opening quote of the string token the parser has just read. Inside a string every quote
  // is escaped, i.e. preceded by an odd run of backslashes; the opening quote is not.
  [[nodiscard]] std::size_t string_start() const {
    std::size_t at = last_read();
    while (at > 0) {
      const auto quote = text_.rfind('"', at - 1);
      if (quote == std::string_view::npos) return 0;
      std::size_t backslashes = 0;
      while (quote > backslashes && text_[quote - backslashes - 1] == '\\')
        ++backslashes;
      if (backslashes % 2 == 0) return quote;
      at = quote;
    }
    return 0;
  }

  bool string_too_long(std::size_t bytes) {
    return fail("JSON string at " + line_column(text_, string_start()) + " is " +
                std::to_string(bytes) + " bytes long; the limit is " + limit_text(kMaxStringBytes));
  }

  // The path to the innermost open container: through each enclosing object's last key, and
  // each enclosing array's next index (the open child joins it when it closes).
  [[nodiscard]] std::vector<JsonPathStep> open_path() const {
    std::vector<JsonPathStep> path;
    for (std::size_t i = 0; i + 1 < depth_; ++i) {
      const Frame& f = frames_[i];
      if (f.object) {
        path.emplace_back(f.members.back().first);
      } else {
        path.emplace_back(f.elements.size() + f.skipped);
      }
    }
    return path;
  }

  // Counts one more element; false past the limit.
  bool count() {
    if (++elements_ <= max_elements_) return true;
    return fail("JSON document holds more than " + std::to_string(max_elements_) +
                " elements (at " + line_column(text_, last_read()) + "); the limit is " +
                std::to_string(max_elements_) + " elements (values of any type) per document");
  }

  // Puts a finished value where the parser is: the root, the slot of the key just read, or the
  // end of an array.
  void place(Json value) {
    if (shallow_depth_ != 0 && depth_ >= shallow_depth_) {
      // Inside a shallow member: the value is dropped; an array counts it for paths.
      Frame& top = frames_[depth_ - 1];
      if (!top.object) ++top.skipped;
      return;
    }
    if (depth_ == 0) {
      root_ = std::move(value);
      done_ = true;
      return;
    }
    Frame& top = frames_[depth_ - 1];
    if (top.object) {
      top.members.back().second = std::move(value);
    } else {
      top.elements.push_back(std::move(value));
    }
  }

  bool add(Json value) {
    if (!inside_shallow() && !count()) return false;
    place(std::move(value));
    return true;
  }

  // Whether the parser is inside the value of a shallow member (or opening one).
  [[nodiscard]] bool inside_shallow() const { return shallow_depth_ != 0; }

  // Whether a container opening now is the value of a shallow member of the root object.
  [[nodiscard]] bool opens_shallow_member() const {
    if (depth_ != 1 || !frames_[0].object || frames_[0].members.empty()) return false;
    const std::string& key = frames_[0].members.back().first;
    const auto named = [&key](std::span<const std::string_view> keys) {
      return std::find(keys.begin(), keys.end(), key) != keys.end();
    };
    return named(members_.shallow) || (!members_.known.empty() && !named(members_.known));
  }

  bool open(bool object) {
    if (depth_ >= kMaxJsonDepth) {
      return fail("JSON nesting reaches " + std::to_string(depth_ + 1) + " levels at " +
                  line_column(text_, last_read()) + "; the limit is " +
                  std::to_string(kMaxJsonDepth) + " levels");
    }
    if (!inside_shallow()) {
      if (opens_shallow_member()) {
        // The member's own container stays in the tree, empty.
        shallow_depth_ = depth_ + 1;
        if (!count()) return false;
      } else if (!count()) {
        return false;
      }
    }
    if (frames_.size() == depth_) frames_.emplace_back();
    Frame& frame = frames_[depth_++];
    frame.object = object;
    frame.members.clear();
    frame.elements.clear();
    frame.keys.clear();
    frame.skipped = 0;
    return true;
  }

  bool close() {
    if (shallow_depth_ != 0 && depth_ >= shallow_depth_) {
      Frame& frame = frames_[--depth_];
      if (depth_ + 1 > shallow_depth_) {
        place(Json());  // a container inside the shallow member: dropped
        return true;
      }
      // The shallow member itself: an empty container of its kind.
      shallow_depth_ = 0;
      place(frame.object ? Json(Json::object_t()) : Json(Json::array_t()));
      return true;
    }
    Frame& frame = frames_[--depth_];
    Json value;
    if (frame.object) {
      Json::object_t object;
      object.reserve(frame.members.size());
      for (auto& [key, member] : frame.members)
        object.emplace_back(std::move(key), std::move(member));
      value = Json(std::move(object));
    } else {
      // The buffer's storage goes to the tree; the next array at this depth starts afresh.
      value = Json(Json::array_t(std::move(frame.elements)));
    }
    place(std::move(value));
    return true;
  }

  std::string_view text_;
  const char* read_to_;
  std::size_t max_elements_;
  RootMembers members_;
  // The depth of a shallow member's container while the parser is inside it, else 0.
  std::size_t shallow_depth_ = 0;
  Json root_;
  std::vector<Frame> frames_;  // frames_[0, depth_) are open
  std::size_t depth_ = 0;
  std::size_t elements_ = 0;
  bool done_ = false;  // the root value is complete
  std::optional<JsonDocumentError> error_;
};

}  // namespace

std::expected<Json, JsonDocumentError> parse_json_document(std::string_view text,
                                                           std::size_t max_elements,
                                                           RootMembers members) {
  if (auto nul = json_nul_problem(text)) {
    return std::unexpected(JsonDocumentError{.problem = std::move(*nul)});
  }
  DomBuilder builder(text, max_elements, members);
  const bool ok = Json::sax_parse(TrackedIterator(text.data(), builder.read_to()),
                                  TrackedIterator(text.data() + text.size(), builder.read_to()),
                                  &builder, nlohmann::detail::input_format_t::json,
                                  /*strict=*/true, /*ignore_comments=*/false);
  if (auto& error = builder.error()) {
    if (error->repeated_key) error->partial = std::move(builder.root());
    return std::unexpected(std::move(*error));
  }
  if (!ok) return std::unexpected(JsonDocumentError{.problem = "JSON parse stopped"});
  return std::move(builder.root());
}

std::string line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

std::string json_syntax_problem(std::string_view what, std::string_view text, std::size_t offset) {
  if (const auto close = what.find("] "); close != std::string_view::npos) {
    what.remove_prefix(close + 2);
  }
  constexpr std::string_view kAt = "parse error at ";
  std::string problem;
  if (what.starts_with(kAt)) {
    what.remove_prefix(kAt.size());
    problem = "invalid JSON at " + std::string(what);
  } else {
    problem = "invalid JSON at " + line_column(text, offset) + ": " + std::string(what);
  }
  constexpr std::size_t kMaxProblemBytes = 240;
  if (problem.size() > kMaxProblemBytes) {
    problem = shown(std::string_view(problem).substr(0, kMaxProblemBytes)) + "...";
  }
  return problem;
}

std::string json_path_text(const std::vector<JsonPathStep>& path) {
  std::string out;
  for (const JsonPathStep& step : path) {
    if (const auto* key = std::get_if<std::string>(&step)) {
      if (!out.empty()) out += '.';
      out += shown(*key);
    } else {
      out += '[' + std::to_string(std::get<std::size_t>(step)) + ']';
    }
  }
  return out;
}

std::optional<std::string> json_nul_problem(std::string_view text) {
  // nlohmann's lexer ends the input at a NUL byte whatever the input adapter, so whatever follows
  // one would never be read: a tampered document could hide after it.
  if (text.empty()) return std::nullopt;
  const void* nul = std::memchr(text.data(), '\0', text.size());
  if (nul == nullptr) return std::nullopt;
  const auto offset = static_cast<std::size_t>(static_cast<const char*>(nul) - text.data());
  return "NUL byte at " + line_column(text, offset) + " (byte " + std::to_string(offset) +
         "); JSON text cannot contain NUL";
}

}  // namespace nnplan::format::detail
