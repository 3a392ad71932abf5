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
// no further than the token it reports, so the last byte read is the token's last byte.
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

// "line 3, column 7" of the byte at `offset`.
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

std::string limit_text(std::size_t bytes) {
  return std::to_string(bytes) + " bytes (" + std::to_string(bytes >> 10) + " KiB)";
}

class DomBuilder {
 public:
  DomBuilder(std::string_view text, std::size_t max_elements)
      : text_(text), read_to_(text.data()), max_elements_(max_elements) {}

  [[nodiscard]] const char** read_to() { return &read_to_; }

  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(Json::number_integer_t value) { return add(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return add(value); }
  bool number_float(Json::number_float_t value, const Json::string_t& /*text*/) {
    return add(value);
  }
  bool string(Json::string_t& value) {
    if (value.size() > kMaxStringBytes) return string_too_long(value.size());
    return add(std::move(value));
  }
  bool binary(Json::binary_t& /*value*/) {
    // The JSON lexer never produces binary values.
    return fail("binary value in a JSON document");
  }
  bool start_object(std::size_t /*elements*/) { return open(Json::object()); }
  bool start_array(std::size_t /*elements*/) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(Json::string_t& key) {
    if (key.size() > kMaxStringBytes) return string_too_long(key.size());
    Frame& top = stack_.back();
    if (!top.keys.insert(key).second) {
      std::vector<JsonPathStep> path = open_path();
      path.emplace_back(key);
      std::string where = line_column(text_, string_start());
      fail("field " + json_path_text(path) + " appears more than once (at " + where + ")");
      error_->repeated_key = std::move(path);
      error_->location = std::move(where);
      return false;
    }
    top.key = std::move(key);
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) {
    // nlohmann's position counts the byte it stopped at.
    const std::size_t offset = position == 0 ? 0 : position - 1;
    if (done_) {
      return fail("content after the end of the JSON document at " + line_column(text_, offset));
    }
    std::string_view what = ex.what();
    if (const auto close = what.find("] "); close != std::string_view::npos) {
      what.remove_prefix(close + 2);
    }
    constexpr std::string_view kAt = "parse error at ";
    std::string problem;
    if (what.starts_with(kAt)) {
      what.remove_prefix(kAt.size());
      problem = "invalid JSON at " + std::string(what);
    } else {
      // "number overflow parsing '1e400'" comes without a position.
      problem = "invalid JSON at " + line_column(text_, offset) + ": " + std::string(what);
    }
    // The parser quotes what it read last, which can be a whole unterminated string.
    constexpr std::size_t kMaxProblemBytes = 240;
    if (problem.size() > kMaxProblemBytes) {
      problem = shown(std::string_view(problem).substr(0, kMaxProblemBytes)) + "...";
    }
    return fail(std::move(problem));
  }

  [[nodiscard]] std::optional<JsonDocumentError>& error() { return error_; }
  [[nodiscard]] Json& root() { return root_; }

 private:
  struct Frame {
    Json* value = nullptr;
    // Keys seen so far in this object: one hash lookup per key keeps detection linear.
    std::unordered_set<std::string> keys;
    std::string key;  // the key whose value is being read
  };

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

  // The path to the innermost open container.
  [[nodiscard]] std::vector<JsonPathStep> open_path() const {
    std::vector<JsonPathStep> path;
    for (std::size_t i = 0; i + 1 < stack_.size(); ++i) {
      const Frame& f = stack_[i];
      if (f.value->is_object()) {
        path.emplace_back(f.key);
      } else {
        path.emplace_back(f.value->size() - 1);
      }
    }
    return path;
  }

  // Stores `value` where the parser is (the root, the current key of an object or the end of an
  // array) and returns where it went, or nullptr past the element limit. Keys are known to be
  // unique, so values go straight to the end of an object's storage: ordered_json's own insert
  // searches the object linearly.
  template <class V>
  Json* store(V&& value) {
    if (++elements_ > max_elements_) {
      fail("JSON document holds more than " + std::to_string(max_elements_) + " elements (at " +
           line_column(text_, last_read()) + "); the limit is " + std::to_string(max_elements_) +
           " elements (values of any type) per document");
      return nullptr;
    }
    if (stack_.empty()) {
      root_ = Json(std::forward<V>(value));
      return &root_;
    }
    Json& top = *stack_.back().value;
    if (top.is_object()) {
      auto& object = top.get_ref<Json::object_t&>();
      object.emplace_back(stack_.back().key, Json(std::forward<V>(value)));
      return &object.back().second;
    }
    auto& array = top.get_ref<Json::array_t&>();
    array.emplace_back(std::forward<V>(value));
    return &array.back();
  }

  template <class V>
  bool add(V&& value) {
    if (store(std::forward<V>(value)) == nullptr) return false;
    if (stack_.empty()) done_ = true;
    return true;
  }

  bool open(Json container) {
    if (stack_.size() >= kMaxJsonDepth) {
      return fail("JSON nesting reaches " + std::to_string(stack_.size() + 1) + " levels at " +
                  line_column(text_, last_read()) + "; the limit is " +
                  std::to_string(kMaxJsonDepth) + " levels");
    }
    Json* at = store(std::move(container));
    if (at == nullptr) return false;
    stack_.push_back(Frame{.value = at});
    return true;
  }

  bool close() {
    stack_.pop_back();
    if (stack_.empty()) done_ = true;
    return true;
  }

  std::string_view text_;
  const char* read_to_;
  Json root_;
  std::vector<Frame> stack_;
  std::size_t max_elements_;
  std::size_t elements_ = 0;
  bool done_ = false;  // the root value is complete
  std::optional<JsonDocumentError> error_;
};

}  // namespace

std::expected<Json, JsonDocumentError> parse_json_document(std::string_view text,
                                                           std::size_t max_elements) {
  if (auto nul = json_nul_problem(text)) {
    return std::unexpected(JsonDocumentError{.problem = std::move(*nul)});
  }
  DomBuilder builder(text, max_elements);
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
