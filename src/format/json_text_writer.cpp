#include "json_text_writer.hpp"

#include "nnplan/text_escape.hpp"

#include <charconv>

namespace nnplan::format::detail {

namespace {

// Bytes nlohmann prints as they are, whatever its settings: printable ASCII other than the quote
// and the backslash. Anything else (escapes, UTF-8 validation and replacement) is left to it.
bool plain(std::string_view text) {
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte > 0x7E || c == '"' || c == '\\') return false;
  }
  return true;
}

void append_quoted(std::string& out, std::string_view text) {
  if (plain(text)) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  out += Json(valid_utf8(text) ? std::string(text) : utf8_escaped(text)).dump(-1, ' ', false);
}

}  // namespace

void JsonTextWriter::newline_and_indent() {
  out_ += '\n';
  out_.append(2 * has_element_.size(), ' ');
}

void JsonTextWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (has_element_.empty()) return;
  if (has_element_.back()) out_ += ',';
  has_element_.back() = true;
  newline_and_indent();
}

void JsonTextWriter::begin_object() {
  before_value();
  out_ += '{';
  has_element_.push_back(false);
}

void JsonTextWriter::begin_array() {
  before_value();
  out_ += '[';
  has_element_.push_back(false);
}

void JsonTextWriter::end_container(char close) {
  const bool had_element = has_element_.back();
  has_element_.pop_back();
  if (had_element) newline_and_indent();
  out_ += close;
  flush_if_full();
}

void JsonTextWriter::end_object() {
  end_container('}');
}

void JsonTextWriter::end_array() {
  end_container(']');
}

void JsonTextWriter::key(std::string_view name) {
  before_value();
  append_quoted(out_, name);
  out_ += ": ";
  after_key_ = true;
}

void JsonTextWriter::string(std::string_view text) {
  before_value();
  append_quoted(out_, text);
  flush_if_full();
}

void JsonTextWriter::number(std::uint64_t value) {
  before_value();
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out_.append(digits, end);
  flush_if_full();
}

void JsonTextWriter::boolean(bool value) {
  before_value();
  out_ += value ? "true" : "false";
}

void JsonTextWriter::null() {
  before_value();
  out_ += "null";
}

void JsonTextWriter::value(const Json& tree) {
  if (tree.is_object()) {
    begin_object();
    for (const auto& [name, member] : tree.items()) {
      key(name);
      value(member);
    }
    end_object();
  } else if (tree.is_array()) {
    begin_array();
    for (const Json& element : tree)
      value(element);
    end_array();
  } else if (tree.is_string()) {
    string(tree.get_ref<const std::string&>());
  } else {
    // Numbers, booleans and null print the same compact and indented.
    before_value();
    out_ += tree.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}

void JsonTextWriter::finish() {
  out_ += '\n';
  if (sink_) {
    sink_(out_);
    out_.clear();
  }
}

void JsonTextWriter::flush_if_full() {
  if (sink_ && out_.size() >= kChunkBytes) {
    sink_(out_);
    out_.clear();
  }
}

}  // namespace nnplan::format::detail
