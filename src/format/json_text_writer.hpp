// Private streaming writer of pretty-printed JSON text, shared by the writers of src/format whose
// documents grow with the graph (the plan artifact). It writes, element by element, the bytes that
// detail::dump (json_common.hpp) prints for the same tree, so a document written here is
// byte-identical to one built as a tree and dumped, without holding the tree: two-space indent,
// `"key": value`, empty containers as `{}` and `[]`, strings escaped as nlohmann escapes them,
// bytes that are not UTF-8 written as the text `\xNN` (utf8_escaped).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "json_common.hpp"

namespace nnplan::format::detail {

class JsonTextWriter {
 public:
  // Receives the text written so far, in pieces of about kChunkBytes.
  using Sink = std::function<void(std::string_view)>;
  static constexpr std::size_t kChunkBytes = std::size_t{1} << 16;

  // Without a sink the whole text accumulates and text() returns it; with one, the text goes to
  // `sink` in chunks and finish() hands over the last piece.
  JsonTextWriter() = default;
  explicit JsonTextWriter(Sink sink) : sink_(std::move(sink)) {}

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  // The key of the next member of the innermost object; its value follows.
  void key(std::string_view name);

  void string(std::string_view text);
  void number(std::uint64_t value);
  void boolean(bool value);
  void null();
  // A whole tree, as nlohmann would print it at this depth.
  void value(const Json& tree);

  // Ends the document with a newline (nnplan artifacts end with one) and passes the rest to the
  // sink, if any.
  void finish();
  // The text written without a sink.
  [[nodiscard]] std::string& text() { return out_; }

 private:
  // Separator and indent before a value: nothing after a key or at the root, else a newline.
  void before_value();
  void newline_and_indent();
  void end_container(char close);
  void flush_if_full();

  Sink sink_;
  std::string out_;
  // One entry per open container: whether it has an element yet.
  std::vector<bool> has_element_;
  bool after_key_ = false;
};

}  // namespace nnplan::format::detail
