// Reader of `torchlean.ir.v1` and `nnplan.ir.v1` graph documents.
//
// The reader is a SAX handler over nlohmann's parser rather than a walk over a parsed tree: a
// graph file can hold millions of nodes, and a JSON tree of them would cost several times the
// file in memory and most of the reading time. The handler builds each ir::Node straight from
// the events. Problems inside a node are recorded (the first one in document order wins) and
// reported when the node's object closes, so the message can name the node's kind and name even
// when the bad field comes before `kind` in the file. Problems outside nodes stop the parse at
// once. nlohmann's SAX parser is iterative, so deep nesting costs memory, not stack.
//
// TorchLean's legacy kinds (ir_json_legacy.cpp) name their own fields; two legacy fields share
// their names with current ones of another type (`stride` and `padding` are integers in conv2d
// and the pool2d kinds, arrays in conv and the pools); when such a field comes before `kind`, its
// value is kept in both readings until the kind decides.
#include "nnplan/format/ir_json.hpp"

#include "nnplan/exception_boundary.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "bounded_file.hpp"
#include "ir_json_raw_node.hpp"
#include "json_document.hpp"
#include "message_text.hpp"
#include "nnplan/format/limits.hpp"

namespace nnplan::format {
namespace {

using namespace ir_json;
using Json = nlohmann::json;

using detail::escape_controls;
using detail::only_whitespace;
using detail::shown;

// ---------------------------------------------------------------------------------------------
// Scalars and numbers.

// A JSON scalar as the reader met it, kept only long enough to check it or quote it.
struct Scalar {
  enum class Kind : std::uint8_t {
    unsigned_integer,
    negative_integer,
    other_number,
    string,
    literal
  };
  Kind kind = Kind::literal;
  std::uint64_t value = 0;    // unsigned_integer
  std::int64_t negative = 0;  // negative_integer
  std::string_view text;      // other_number (the token), string, literal
};

std::string found(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::unsigned_integer:
      return std::to_string(s.value);
    case Scalar::Kind::negative_integer:
      return std::to_string(s.negative);
    case Scalar::Kind::other_number:
    case Scalar::Kind::literal:
      return shown(s.text);
    case Scalar::Kind::string:
      return "\"" + shown(s.text) + "\"";
  }
  return {};
}

constexpr std::uint64_t kMaxU32 = 0xFFFFFFFFu;
constexpr std::uint64_t kMaxU64 = ~std::uint64_t{0};

// The value of `s` when it is an integer in 0..max; otherwise what is wrong with it.
std::expected<std::uint64_t, std::string> to_uint(const Scalar& s, std::uint64_t max) {
  const auto out_of_range = [max](const std::string& text) {
    return std::unexpected(text + " is out of range; the maximum is " + std::to_string(max));
  };
  switch (s.kind) {
    case Scalar::Kind::unsigned_integer:
      if (s.value > max) return out_of_range(std::to_string(s.value));
      return s.value;
    case Scalar::Kind::negative_integer:
      // "-0" arrives as a negative integer with value 0; it is zero.
      if (s.negative == 0) return std::uint64_t{0};
      break;
    case Scalar::Kind::other_number:
      // nlohmann hands over integers past 2^64 as floating-point numbers with their token.
      if (!s.text.empty() && s.text.find_first_not_of("0123456789") == std::string_view::npos) {
        return out_of_range(shown(s.text));
      }
      break;
    case Scalar::Kind::string:
    case Scalar::Kind::literal:
      break;
  }
  return std::unexpected("expected a non-negative integer, found " + found(s));
}

std::optional<bool> to_bool(const Scalar& s) {
  if (s.kind != Scalar::Kind::literal) return std::nullopt;
  if (s.text == "true") return true;
  if (s.text == "false") return false;
  return std::nullopt;
}

// The float32 nearest to the JSON number `s`. Non-integers are converted from their token, so the
// one rounding is decimal to float (through double it could round twice); a number whose
// magnitude is past the float range, or nonzero and below it, is refused rather than made
// infinite or zero.
std::expected<float, std::string> to_float(const Scalar& s, std::string_view expected) {
  switch (s.kind) {
    case Scalar::Kind::unsigned_integer:
      return static_cast<float>(s.value);
    case Scalar::Kind::negative_integer:
      return static_cast<float>(s.negative);
    case Scalar::Kind::other_number: {
      float value = 0.0F;
      const char* const end = s.text.data() + s.text.size();
      const auto result = std::from_chars(s.text.data(), end, value);
      if (result.ec == std::errc::result_out_of_range) {
        return std::unexpected(shown(s.text) +
                               " is out of range for a 32-bit float; magnitudes from 1.4e-45 to "
                               "3.4028235e+38, or 0, are allowed");
      }
      if (result.ec == std::errc{} && result.ptr == end && std::isfinite(value)) return value;
      break;
    }
    case Scalar::Kind::string:
    case Scalar::Kind::literal:
      break;
  }
  return std::unexpected(std::string(expected) + ", found " + found(s));
}

// "conv takes id, kind, parents, shape, spatial_rank, ..., name".
std::string fields_of_kind(std::string_view spelling, std::span<const Field> fields) {
  std::string out(spelling);
  out += " takes id, kind, parents, shape, ";
  for (const Field f : fields) {
    out += name_of(f);
    out += ", ";
  }
  out += "name, dtype";
  return out;
}

std::string op_fields_text(std::string_view spelling, std::span<const Field> fields) {
  if (fields.empty()) return std::string(spelling) + " takes no op fields";
  std::string out(spelling);
  out += " takes ";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i != 0) out += ", ";
    out += name_of(fields[i]);
  }
  return out;
}

// The parameters of alternative P, read from the fields of a node as read so far.
template <class P>
ir::OpParams read_params(RawNode& raw) {
  P params{};
  ParamsFields<P>::each([&](Field f, auto member) {
    if (raw.has(f)) raw.take(f, member(params));
  });
  return params;
}

// One reader per OpParams alternative, by alternative index.
template <std::size_t... I>
constexpr std::array<ir::OpParams (*)(RawNode&), sizeof...(I)> params_readers(
    std::index_sequence<I...>) {
  return {&read_params<std::variant_alternative_t<I, ir::OpParams>>...};
}

// ---------------------------------------------------------------------------------------------
// The SAX handler.

class GraphHandler {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  GraphHandler(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  bool null() { return scalar(Scalar{.kind = Scalar::Kind::literal, .text = "null"}); }
  bool boolean(bool v) {
    return scalar(Scalar{.kind = Scalar::Kind::literal, .text = v ? "true" : "false"});
  }
  bool number_integer(number_integer_t v) {
    return scalar(Scalar{.kind = Scalar::Kind::negative_integer, .negative = v});
  }
  bool number_unsigned(number_unsigned_t v) {
    return scalar(Scalar{.kind = Scalar::Kind::unsigned_integer, .value = v});
  }
  bool number_float(number_float_t /*value*/, const string_t& token) {
    return scalar(Scalar{.kind = Scalar::Kind::other_number, .text = token});
  }
  bool string(string_t& v) { return scalar(Scalar{.kind = Scalar::Kind::string, .text = v}); }
  bool binary(binary_t& /*v*/) {
    // Text JSON has no binary values.
    return fail_root("", "unexpected binary value");
  }
  bool start_object(std::size_t /*elements*/) { return enter() && compound(true); }
  bool start_array(std::size_t /*elements*/) { return enter() && compound(false); }
  bool key(string_t& k);
  bool end_object();
  bool end_array();
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex);

  // After a successful parse: the graph, or the missing top-level field.
  Expected<ir::Graph> finish();
  [[nodiscard]] std::optional<Error>& error() { return error_; }

 private:
  enum class State : std::uint8_t {
    top,
    root,
    root_value,
    root_list,  // output_ids
    nodes,
    node,
    node_value,
    list,        // an array-valued node field
    mask,        // inside a node's mask object, between its keys
    mask_value,  // a value of the mask object
    mask_list,   // the mask's shape or allowed array
    done,
  };
  enum class MaskField : std::uint8_t { none, shape, allowed };

  bool scalar(const Scalar& s);
  // Counts one more level of nesting; false past kMaxJsonDepth.
  bool enter();
  [[nodiscard]] bool in_node() const {
    return skip_depth_ > 0 || state_ == State::node || state_ == State::node_value ||
           state_ == State::list || state_ == State::mask || state_ == State::mask_value ||
           state_ == State::mask_list;
  }
  bool compound(bool object);
  bool root_scalar(const Scalar& s);
  bool root_list_scalar(const Scalar& s);
  void node_scalar(const Scalar& s);
  void kind_scalar(const Scalar& s);
  void list_scalar(const Scalar& s);
  void mask_list_scalar(const Scalar& s);
  void end_mask();
  // The type field `f` has in the current node: legacy kinds take stride and padding as
  // integers; nullopt when that is undecided (no kind yet).
  [[nodiscard]] std::optional<ValueType> type_for(Field f) const;
  // stride or padding before the kind: the undecided entry, by field.
  std::optional<Undecided>& undecided(Field f) {
    return raw_.undecided[f == Field::stride ? 0 : 1];
  }
  void note(Problem problem) {
    if (!raw_.problem) raw_.problem = std::move(problem);
  }
  void note_value(std::string field, std::string text) {
    note(Problem{.kind = Problem::Kind::value,
                 .ordinal = raw_.keys - 1,
                 .field = std::move(field),
                 .text = std::move(text)});
  }
  // A problem inside the array of the current field: noted, or kept as the array reading of an
  // undecided field.
  void note_in_list(std::string field, std::string text) {
    if (list_undecided_ != nullptr) {
      if (!list_undecided_->as_list) {
        list_undecided_->as_list = Problem{.ordinal = list_undecided_->ordinal,
                                           .field = std::move(field),
                                           .text = std::move(text)};
      }
      return;
    }
    note_value(std::move(field), std::move(text));
  }
  // Starts skipping a compound value; `skip_depth_` counts the open containers.
  bool skip() {
    skip_depth_ = 1;
    return true;
  }
  // A value of the current context is complete.
  void value_done();
  bool finish_node();
  [[nodiscard]] std::string describe_node() const;
  [[nodiscard]] std::span<const Field> node_fields() const;
  [[nodiscard]] std::string_view node_spelling() const;
  [[nodiscard]] std::string extension_problem() const;
  [[nodiscard]] std::string dtype_problem() const;
  bool fail_root(std::string_view field, std::string problem);
  bool fail_node(std::string problem);
  // An element of `nodes` that is not an object.
  bool fail_not_object(const std::string& found) {
    fail_root(
        "", "node " + std::to_string(graph_.nodes.size()) + ": expected an object, found " + found);
    error_->position = graph_.nodes.size();
    return false;
  }

  std::string_view text_;
  std::string_view source_;
  State state_ = State::top;
  std::size_t skip_depth_ = 0;
  std::size_t depth_ = 0;  // open arrays and objects
  std::uint32_t root_seen_ = 0;
  RootField root_field_ = RootField::format;
  std::optional<DocumentFormat> format_;
  // The first node of an extension kind or a dtype other than float32 read before `format`:
  // reported if the format turns out to be torchlean.ir.v1.
  std::optional<Error> pending_extension_;
  std::optional<Field> field_;  // the node field being read; nullopt while skipping its value
  Undecided* list_undecided_ = nullptr;  // the undecided field whose array is being read
  MaskField mask_field_ = MaskField::none;
  std::uint8_t mask_seen_ = 0;  // bits: 1 shape, 2 allowed
  std::size_t list_index_ = 0;
  RawNode raw_;
  ir::Graph graph_;
  std::optional<Error> error_;
};

bool GraphHandler::fail_root(std::string_view field, std::string problem) {
  std::string message(source_);
  message += ": ";
  if (!field.empty()) {
    message += "field ";
    message += field;
    message += ": ";
  }
  message += problem;
  error_ = make_error(ErrorKind::invalid_input, escape_controls(message));
  return false;
}

bool GraphHandler::fail_node(std::string problem) {
  std::string message(source_);
  message += ": ";
  message += describe_node();
  message += ": ";
  message += problem;
  error_ = make_error(ErrorKind::invalid_input, escape_controls(message));
  error_->position = graph_.nodes.size();
  return false;
}

std::string_view GraphHandler::node_spelling() const {
  return raw_.legacy != nullptr ? raw_.legacy->spelling : kind_name(*raw_.kind);
}

// The op fields of the node's kind as written: a legacy kind's own, flatten's legacy in_shape
// when it has that and no value_shape, else the op-kind table's.
std::span<const Field> GraphHandler::node_fields() const {
  if (raw_.legacy != nullptr) return raw_.legacy->fields;
  if (*raw_.kind == OpKind::flatten && raw_.has(Field::in_shape) && !raw_.has(Field::value_shape)) {
    return kLegacyFlattenFields;
  }
  return op_fields(*raw_.kind);
}

std::string GraphHandler::extension_problem() const {
  return std::string(node_spelling()) + " is an nnplan extension kind; it needs " + "format '" +
         std::string(kNnplanIrFormat) + "', and this document's format is '" +
         std::string(kIrFormat) + "'";
}

std::string GraphHandler::dtype_problem() const {
  return std::string(ir::to_string(raw_.dtype)) + " values need format '" +
         std::string(kNnplanIrFormat) + "', and this document's format is '" +
         std::string(kIrFormat) + "'";
}

// `node 3`, `node 3 (conv2d 'conv1')`, `node 3 (id 7, relu)`: the index in `nodes`, then what
// is known of the node (a legacy kind as the file spells it).
std::string GraphHandler::describe_node() const {
  const std::size_t index = graph_.nodes.size();
  std::string out = "node " + std::to_string(index);
  std::string inner;
  if (raw_.id && *raw_.id != index) inner = "id " + std::to_string(*raw_.id);
  if (raw_.kind) {
    if (!inner.empty()) inner += ", ";
    inner += node_spelling();
  }
  if (raw_.name) {
    if (!inner.empty()) inner += ' ';
    inner += "'" + shown(*raw_.name) + "'";
  }
  if (!inner.empty()) out += " (" + inner + ")";
  return out;
}

std::optional<ValueType> GraphHandler::type_for(Field f) const {
  if (f == Field::stride || f == Field::padding) {
    if (raw_.legacy != nullptr) return ValueType::u32;
    if (!raw_.kind) return std::nullopt;
  }
  return kFields[static_cast<std::size_t>(f)].type;
}

void GraphHandler::value_done() {
  switch (state_) {
    case State::root_value:
      state_ = State::root;
      break;
    case State::node_value:
      state_ = State::node;
      break;
    case State::mask_value:
      state_ = State::mask;
      break;
    case State::list:
    case State::mask_list:
    case State::root_list:
      ++list_index_;
      break;
    case State::top:
    case State::root:
    case State::nodes:
    case State::node:
    case State::mask:
    case State::done:
      break;
  }
}

bool GraphHandler::enter() {
  if (++depth_ <= kMaxJsonDepth) return true;
  const std::string problem = "JSON nesting reaches " + std::to_string(depth_) +
                              " levels; the limit is " + std::to_string(kMaxJsonDepth) + " levels";
  if (!in_node()) return fail_root("", problem);
  // The node's first problem wins, as it does when the node closes (an unknown field "x" whose
  // value nests too deep is reported as the unknown field).
  if (raw_.problem) return finish_node();
  return fail_node(problem);
}

bool GraphHandler::scalar(const Scalar& s) {
  if (skip_depth_ > 0) return true;
  if (s.kind == Scalar::Kind::string && s.text.size() > kMaxStringBytes) {
    const std::string problem = "string of " + std::to_string(s.text.size()) +
                                " bytes; the limit is " + std::to_string(kMaxStringBytes) +
                                " bytes (" + std::to_string(kMaxStringBytes >> 10) + " KiB)";
    if (state_ == State::node_value && field_) {
      note_value(std::string(name_of(*field_)), problem);
      value_done();
      return true;
    }
    if (state_ == State::root_value) {
      return fail_root(kRootFieldNames[static_cast<std::size_t>(root_field_)], problem);
    }
  }
  switch (state_) {
    case State::top:
      return fail_root("", "expected a JSON object with fields " + std::string(kRootFieldsText) +
                               ", found " + found(s));
    case State::root_value:
      return root_scalar(s);
    case State::root_list:
      if (!root_list_scalar(s)) return false;
      value_done();
      return true;
    case State::nodes:
      return fail_not_object(found(s));
    case State::node_value:
      node_scalar(s);
      value_done();
      return true;
    case State::list:
      list_scalar(s);
      value_done();
      return true;
    case State::mask_value:
      if (mask_field_ != MaskField::none) {
        note_value(mask_field_ == MaskField::shape ? "mask.shape" : "mask.allowed",
                   "expected an array, found " + found(s));
      }
      value_done();
      return true;
    case State::mask_list:
      mask_list_scalar(s);
      value_done();
      return true;
    case State::root:
    case State::node:
    case State::mask:
    case State::done:
      break;
  }
  // The parser only delivers values where the grammar allows one.
  error_ = make_error(ErrorKind::internal, std::string(source_) + ": unexpected JSON value");
  return false;
}

bool GraphHandler::compound(bool object) {
  if (skip_depth_ > 0) {
    ++skip_depth_;
    return true;
  }
  const char* const what = object ? "an object" : "an array";
  switch (state_) {
    case State::top:
      if (object) {
        state_ = State::root;
        return true;
      }
      return fail_root("", "expected a JSON object with fields " + std::string(kRootFieldsText) +
                               ", found an array");
    case State::root_value:
      if (root_field_ == RootField::nodes) {
        if (object) return fail_root("nodes", "expected an array, found an object");
        state_ = State::nodes;
        return true;
      }
      if (root_field_ == RootField::output_ids) {
        if (object) return fail_root("output_ids", "expected an array, found an object");
        state_ = State::root_list;
        list_index_ = 0;
        return true;
      }
      return fail_root(
          kRootFieldNames[static_cast<std::size_t>(root_field_)],
          std::string(root_field_ == RootField::format ? "expected a string"
                                                       : "expected a non-negative integer") +
              ", found " + what);
    case State::root_list:
      return fail_root("output_ids[" + std::to_string(list_index_) + "]",
                       std::string("expected a non-negative integer, found ") + what);
    case State::nodes:
      if (!object) {
        return fail_not_object("an array");
      }
      if (graph_.nodes.size() >= kMaxGraphNodes) {
        fail_root("nodes", "node " + std::to_string(graph_.nodes.size()) +
                               " is past the limit of " + std::to_string(kMaxGraphNodes) +
                               " nodes (2^26)");
        error_->position = graph_.nodes.size();
        return false;
      }
      raw_.reset();
      state_ = State::node;
      return true;
    case State::node_value: {
      if (!field_) return skip();  // an unknown or repeated field, already noted
      const Field f = *field_;
      const std::optional<ValueType> type = type_for(f);
      if (!type) {
        // stride or padding before the kind.
        std::optional<Undecided>& u = undecided(f);
        u = Undecided{.ordinal = raw_.keys - 1};
        u->as_integer =
            Problem{.ordinal = u->ordinal,
                    .field = std::string(name_of(f)),
                    .text = std::string("expected a non-negative integer, found ") + what};
        if (object) {
          u->as_list = Problem{.ordinal = u->ordinal,
                               .field = std::string(name_of(f)),
                               .text = "expected an array, found an object"};
          return skip();
        }
        raw_.u32s(f).clear();
        list_undecided_ = &*u;
        state_ = State::list;
        list_index_ = 0;
        return true;
      }
      if (!object && (*type == ValueType::u32_list || *type == ValueType::dims ||
                      *type == ValueType::float32_list)) {
        list_undecided_ = nullptr;
        state_ = State::list;
        list_index_ = 0;
        return true;
      }
      if (object && *type == ValueType::mask) {
        mask_seen_ = 0;
        mask_field_ = MaskField::none;
        state_ = State::mask;
        return true;
      }
      note_value(std::string(name_of(f)), expectation(*type, f) + ", found " + what);
      return skip();
    }
    case State::list:
      note_in_list(
          std::string(name_of(*field_)) + "[" + std::to_string(list_index_) + "]",
          std::string(kFields[static_cast<std::size_t>(*field_)].type == ValueType::float32_list
                          ? "expected a number, found "
                          : "expected a non-negative integer, found ") +
              what);
      return skip();
    case State::mask_value:
      if (mask_field_ == MaskField::none) return skip();  // an unknown or repeated key
      if (object) {
        note_value(mask_field_ == MaskField::shape ? "mask.shape" : "mask.allowed",
                   "expected an array, found an object");
        return skip();
      }
      state_ = State::mask_list;
      list_index_ = 0;
      return true;
    case State::mask_list:
      note_value(
          std::string(mask_field_ == MaskField::shape ? "mask.shape" : "mask.allowed") + "[" +
              std::to_string(list_index_) + "]",
          std::string(mask_field_ == MaskField::shape ? "expected a non-negative integer, found "
                                                      : "expected true or false, found ") +
              what);
      return skip();
    case State::root:
    case State::node:
    case State::mask:
    case State::done:
      break;
  }
  error_ = make_error(ErrorKind::internal, std::string(source_) + ": unexpected JSON value");
  return false;
}

bool GraphHandler::key(string_t& k) {
  if (skip_depth_ > 0) return true;
  if (state_ == State::root) {
    for (std::size_t i = 0; i < kRootFieldNames.size(); ++i) {
      if (kRootFieldNames[i] != k) continue;
      const std::uint32_t b = std::uint32_t{1} << i;
      if ((root_seen_ & b) != 0) return fail_root(k, "repeated field");
      const auto field = static_cast<RootField>(i);
      if (field == RootField::output_ids || field == RootField::output_id) {
        constexpr std::uint32_t kEither =
            (std::uint32_t{1} << static_cast<unsigned>(RootField::output_ids)) |
            (std::uint32_t{1} << static_cast<unsigned>(RootField::output_id));
        if ((root_seen_ & kEither) != 0) {
          error_ = make_error(ErrorKind::invalid_input,
                              escape_controls(std::string(source_) +
                                              ": fields output_ids and output_id: both are given; "
                                              "a graph gives one of them (output_id is the legacy "
                                              "form of a single output)"));
          return false;
        }
      }
      root_seen_ |= b;
      root_field_ = field;
      state_ = State::root_value;
      return true;
    }
    return fail_root(shown(k),
                     "unknown field; valid: format, input_id, output_ids (or the legacy "
                     "output_id), nodes");
  }
  if (state_ == State::mask) {
    state_ = State::mask_value;
    const MaskField f = k == "shape"     ? MaskField::shape
                        : k == "allowed" ? MaskField::allowed
                                         : MaskField::none;
    mask_field_ = MaskField::none;
    if (f == MaskField::none) {
      note_value("mask." + shown(k), "unknown field; mask takes shape, allowed");
      return true;
    }
    const auto b = static_cast<std::uint8_t>(f == MaskField::shape ? 1 : 2);
    if ((mask_seen_ & b) != 0) {
      note_value("mask." + std::string(k), "repeated field");
      return true;
    }
    mask_seen_ |= b;
    mask_field_ = f;
    return true;
  }
  // state_ == State::node: the grammar allows keys only inside objects, and the handler skips
  // every object but the root, the nodes and their masks.
  state_ = State::node_value;
  ++raw_.keys;
  field_ = find_field(k);
  if (!field_) {
    note(
        Problem{.kind = Problem::Kind::unknown_field, .ordinal = raw_.keys - 1, .field = shown(k)});
    return true;
  }
  if (raw_.has(*field_)) {
    note(Problem{
        .kind = Problem::Kind::repeated_field, .ordinal = raw_.keys - 1, .field = std::string(k)});
    field_.reset();
    return true;
  }
  raw_.seen |= bit(*field_);
  return true;
}

bool GraphHandler::end_object() {
  --depth_;
  if (skip_depth_ > 0) {
    if (--skip_depth_ == 0) value_done();
    return true;
  }
  if (state_ == State::node) {
    if (!finish_node()) return false;
    state_ = State::nodes;
    return true;
  }
  if (state_ == State::mask) {
    end_mask();
    state_ = State::node;
    return true;
  }
  // The root object.
  state_ = State::done;
  return true;
}

bool GraphHandler::end_array() {
  --depth_;
  if (skip_depth_ > 0) {
    if (--skip_depth_ == 0) value_done();
    return true;
  }
  switch (state_) {
    case State::list:
      list_undecided_ = nullptr;
      state_ = State::node;
      return true;
    case State::mask_list:
      state_ = State::mask;
      return true;
    case State::root_list:
      if (graph_.output_ids.empty()) {
        return fail_root("output_ids", "empty array; a graph has at least one output");
      }
      state_ = State::root;
      return true;
    case State::nodes:
      state_ = State::root;
      return true;
    case State::top:
    case State::root:
    case State::root_value:
    case State::node:
    case State::node_value:
    case State::mask:
    case State::mask_value:
    case State::done:
      break;
  }
  error_ = make_error(ErrorKind::internal, std::string(source_) + ": unexpected end of array");
  return false;
}

bool GraphHandler::root_scalar(const Scalar& s) {
  const std::string_view field = kRootFieldNames[static_cast<std::size_t>(root_field_)];
  state_ = State::root;
  switch (root_field_) {
    case RootField::format:
      if (s.kind != Scalar::Kind::string) {
        return fail_root(field, "expected a string, found " + found(s));
      }
      if (s.text == kIrFormat) {
        format_ = DocumentFormat::torchlean;
        if (pending_extension_) {
          error_ = std::move(pending_extension_);
          return false;
        }
        return true;
      }
      if (s.text == kNnplanIrFormat) {
        format_ = DocumentFormat::nnplan;
        pending_extension_.reset();
        return true;
      }
      return fail_root(field, "expected '" + std::string(kIrFormat) + "' or '" +
                                  std::string(kNnplanIrFormat) + "', found '" + shown(s.text) +
                                  "'");
    case RootField::input_id:
    case RootField::output_id: {
      const auto value = to_uint(s, kMaxU32);
      if (!value) return fail_root(field, value.error());
      if (root_field_ == RootField::input_id) {
        graph_.input_id = static_cast<NodeId>(*value);
      } else {
        graph_.output_ids.assign(1, static_cast<NodeId>(*value));
      }
      return true;
    }
    case RootField::output_ids:
    case RootField::nodes:
      return fail_root(field, "expected an array, found " + found(s));
  }
  return true;
}

bool GraphHandler::root_list_scalar(const Scalar& s) {
  if (list_index_ >= kMaxGraphNodes) {
    return fail_root("output_ids", "more than " + std::to_string(kMaxGraphNodes) +
                                       " entries; the limit is the node limit, " +
                                       std::to_string(kMaxGraphNodes) + " (2^26)");
  }
  const auto value = to_uint(s, kMaxU32);
  if (!value) return fail_root("output_ids[" + std::to_string(list_index_) + "]", value.error());
  graph_.output_ids.push_back(static_cast<NodeId>(*value));
  return true;
}

void GraphHandler::kind_scalar(const Scalar& s) {
  // A plain scan rather than ir::parse_op_kind, which builds an error message for every legacy
  // spelling.
  const auto* const current = std::find(ir::kOpKindNames.begin(), ir::kOpKindNames.end(), s.text);
  if (current != ir::kOpKindNames.end()) {
    const auto kind =
        std::optional<OpKind>(static_cast<OpKind>(current - ir::kOpKindNames.begin()));
    raw_.kind = *kind;
    raw_.extension = ir::op_traits(*kind).origin == ir::KindOrigin::nnplan;
    if (raw_.extension && format_ == DocumentFormat::torchlean) {
      note_value("kind", extension_problem());
    }
    return;
  }
  if (const LegacyKind* legacy = find_legacy_kind(s.text)) {
    raw_.kind = legacy->kind;
    raw_.legacy = legacy;
    return;
  }
  note_value("kind", "unknown op kind '" + shown(s.text) + "'; valid: " +
                         join_names(ir::kOpKindNames) + "; legacy: " + legacy_kind_names());
}

void GraphHandler::node_scalar(const Scalar& s) {
  if (!field_) return;  // an unknown or repeated field, already noted
  const Field f = *field_;
  const auto index = static_cast<std::size_t>(f);
  const std::optional<ValueType> type = type_for(f);
  if (!type) {
    // stride or padding before the kind: both readings.
    std::optional<Undecided>& u = undecided(f);
    u = Undecided{.ordinal = raw_.keys - 1};
    const auto value = to_uint(s, kMaxU32);
    if (value) {
      raw_.scalars[index] = *value;
    } else {
      u->as_integer =
          Problem{.ordinal = u->ordinal, .field = std::string(name_of(f)), .text = value.error()};
    }
    u->as_list = Problem{.ordinal = u->ordinal,
                         .field = std::string(name_of(f)),
                         .text = "expected an array, found " + found(s)};
    return;
  }
  const auto bad = [&] {
    note_value(std::string(name_of(f)), expectation(*type, f) + ", found " + found(s));
  };
  switch (*type) {
    case ValueType::u32:
    case ValueType::u64: {
      const auto value = to_uint(s, *type == ValueType::u32 ? kMaxU32 : kMaxU64);
      if (!value) {
        note_value(std::string(name_of(f)), value.error());
        return;
      }
      if (f == Field::id) raw_.id = static_cast<NodeId>(*value);
      raw_.scalars[index] = *value;
      return;
    }
    case ValueType::boolean: {
      const std::optional<bool> value = to_bool(s);
      if (!value) return bad();
      raw_.scalars[index] = *value ? 1 : 0;
      return;
    }
    case ValueType::float32:
    case ValueType::nullable_float32: {
      if (*type == ValueType::nullable_float32 && s.kind == Scalar::Kind::literal &&
          s.text == "null") {
        raw_.nulls |= bit(f);
        return;
      }
      const auto value = to_float(s, expectation(*type, f));
      if (!value) {
        note_value(std::string(name_of(f)), value.error());
        return;
      }
      raw_.floats[index] = *value;
      return;
    }
    case ValueType::gelu_approximation:
    case ValueType::scatter_reduction:
    case ValueType::recurrent_direction:
    case ValueType::sample_mode:
    case ValueType::grid_sample_padding:
    case ValueType::coordinate_transformation:
    case ValueType::resize_nearest: {
      if (s.kind != Scalar::Kind::string) return bad();
      const std::span<const std::string_view> names = enum_spellings(*type);
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == s.text) {
          raw_.scalars[index] = i;
          return;
        }
      }
      // grid_sample's modes as nnplan wrote them before resize shared the field (GridSample-16's
      // names; nnplan writes a node's kind before its fields): still read, written as `linear`
      // and `cubic`.
      if (*type == ValueType::sample_mode && raw_.kind == OpKind::grid_sample &&
          (s.text == "bilinear" || s.text == "bicubic")) {
        raw_.scalars[index] = static_cast<std::uint64_t>(
            s.text == "bilinear" ? ir::SampleMode::linear : ir::SampleMode::cubic);
        return;
      }
      note_value(std::string(name_of(f)),
                 expectation(*type, f) + ", found '" + shown(s.text) + "'");
      return;
    }
    case ValueType::u32_list:
    case ValueType::dims:
    case ValueType::float32_list:
    case ValueType::mask:
      return bad();
    case ValueType::string:
      break;
  }
  if (s.kind != Scalar::Kind::string || (f == Field::name && s.text.empty())) return bad();
  if (f == Field::name) {
    raw_.name = std::string(s.text);
    return;
  }
  if (f == Field::dtype) {
    for (std::size_t i = 0; i < ir::kDTypeNames.size(); ++i) {
      if (ir::kDTypeNames[i] == s.text) {
        raw_.dtype = static_cast<ir::DType>(i);
        if (raw_.dtype != ir::DType::float32 && format_ == DocumentFormat::torchlean) {
          note_value("dtype", dtype_problem());
        }
        return;
      }
    }
    note_value("dtype", expectation(ValueType::string, f) + ", found '" + shown(s.text) + "'");
    return;
  }
  kind_scalar(s);
}

void GraphHandler::list_scalar(const Scalar& s) {
  const Field f = *field_;
  const ValueType type = kFields[static_cast<std::size_t>(f)].type;
  const bool dims = type == ValueType::dims;
  const std::size_t max_entries = f == Field::parents ? kMaxNodeParents : kMaxRank;
  if (list_index_ >= max_entries) {
    // Nothing past the limit is stored, so a huge list costs no memory.
    note_in_list(std::string(name_of(f)),
                 "more than " + std::to_string(max_entries) + " entries; the limit is " +
                     std::to_string(max_entries) +
                     (f == Field::parents ? " parents per node" : " (the maximum rank)"));
    return;
  }
  if (type == ValueType::float32_list) {
    const auto number = to_float(s, "expected a number");
    if (!number) {
      note_in_list(std::string(name_of(f)) + "[" + std::to_string(list_index_) + "]",
                   number.error());
      return;
    }
    raw_.float_list.push_back(*number);
    return;
  }
  const auto value = to_uint(s, dims ? kMaxU64 : kMaxU32);
  if (!value) {
    note_in_list(std::string(name_of(f)) + "[" + std::to_string(list_index_) + "]", value.error());
    return;
  }
  if (dims && *value > kMaxDim) {
    note_in_list(std::string(name_of(f)) + "[" + std::to_string(list_index_) + "]",
                 std::to_string(*value) + " exceeds the dimension limit of " +
                     std::to_string(kMaxDim) + " (2^48)");
    return;
  }
  if (dims) {
    raw_.dims(f).push_back(*value);
  } else {
    raw_.u32s(f).push_back(static_cast<std::uint32_t>(*value));
  }
}

void GraphHandler::mask_list_scalar(const Scalar& s) {
  if (mask_field_ == MaskField::shape) {
    if (list_index_ >= kMaxRank) {
      note_value("mask.shape", "more than " + std::to_string(kMaxRank) + " entries; the limit is " +
                                   std::to_string(kMaxRank) + " (the maximum rank)");
      return;
    }
    const auto value = to_uint(s, kMaxU64);
    const std::string at = "mask.shape[" + std::to_string(list_index_) + "]";
    if (!value) {
      note_value(at, value.error());
      return;
    }
    if (*value > kMaxDim) {
      note_value(at, std::to_string(*value) + " exceeds the dimension limit of " +
                         std::to_string(kMaxDim) + " (2^48)");
      return;
    }
    raw_.mask_shape.push_back(*value);
    return;
  }
  // allowed: one entry per element. Entries are stored as they come, so what the list costs is
  // bounded by the file, never by a count the file claims.
  if (list_index_ >= kMaxTensorElements) {
    note_value("mask.allowed", "more than " + std::to_string(kMaxTensorElements) +
                                   " entries; the limit is " + std::to_string(kMaxTensorElements) +
                                   " (2^48) per tensor");
    return;
  }
  const std::optional<bool> value = to_bool(s);
  if (!value) {
    note_value("mask.allowed[" + std::to_string(list_index_) + "]",
               "expected true or false, found " + found(s));
    return;
  }
  if (!raw_.problem) raw_.mask_allowed.push_back(*value);
}

// The mask object closed: both fields given, allowed holding one entry per element of shape.
void GraphHandler::end_mask() {
  for (const auto& [b, name] : {std::pair<std::uint8_t, const char*>{1, "mask.shape"},
                                std::pair<std::uint8_t, const char*>{2, "mask.allowed"}}) {
    if ((mask_seen_ & b) == 0) {
      note_value(name, "required field is missing; mask takes shape, allowed");
      return;
    }
  }
  if (raw_.problem) return;
  const Shape shape{ir::Dims(raw_.mask_shape)};
  const std::optional<Dim> count = ir::element_count(shape);
  if (!count || *count > kMaxTensorElements) {
    note_value("mask.shape", ir::to_string(shape) + " has " +
                                 (count ? std::to_string(*count) : std::string("more than 2^64")) +
                                 " elements; the limit is " + std::to_string(kMaxTensorElements) +
                                 " (2^48) per tensor");
    return;
  }
  if (raw_.mask_allowed.size() != *count) {
    note_value("mask.allowed", std::to_string(raw_.mask_allowed.size()) + " entries, expected " +
                                   std::to_string(*count) + " (one per element of mask.shape " +
                                   ir::to_string(shape) + ")");
  }
}

bool GraphHandler::finish_node() {
  // The first problem in document order: one noted while reading, or the reading of stride or
  // padding that the kind chose.
  const Problem* first = raw_.problem ? &*raw_.problem : nullptr;
  if (raw_.kind) {
    for (const std::optional<Undecided>& u : raw_.undecided) {
      if (!u) continue;
      const std::optional<Problem>& p = raw_.legacy != nullptr ? u->as_integer : u->as_list;
      if (p && (first == nullptr || p->ordinal < first->ordinal)) first = &*p;
    }
  }
  if (first != nullptr) {
    const Problem& p = *first;
    switch (p.kind) {
      case Problem::Kind::value:
        return fail_node("field " + p.field + ": " + p.text);
      case Problem::Kind::unknown_field:
        return fail_node("field " + p.field + ": unknown field; " +
                         (raw_.kind ? fields_of_kind(node_spelling(), node_fields())
                                    : std::string("valid: id, kind, parents, shape, name, dtype "
                                                  "and the op fields of the node's kind")));
      case Problem::Kind::repeated_field:
        return fail_node("field " + p.field + ": repeated field");
    }
  }
  for (const Field f : {Field::id, Field::kind, Field::parents, Field::shape}) {
    if (!raw_.has(f)) {
      return fail_node("field " + std::string(name_of(f)) + ": required field is missing");
    }
  }
  const std::span<const Field> wanted = node_fields();
  std::uint64_t wanted_bits = 0;
  for (const Field f : wanted)
    wanted_bits |= bit(f);
  if (const std::uint64_t foreign = raw_.seen & kOpFieldBits & ~wanted_bits; foreign != 0) {
    const auto f = static_cast<Field>(std::countr_zero(foreign));
    return fail_node("field " + std::string(name_of(f)) + ": not a field of " +
                     std::string(node_spelling()) + "; " + op_fields_text(node_spelling(), wanted));
  }
  if ((wanted_bits & ~raw_.seen) != 0) {
    for (const Field f : wanted) {
      if (!raw_.has(f)) {
        return fail_node("field " + std::string(name_of(f)) + ": required field is missing; " +
                         op_fields_text(node_spelling(), wanted));
      }
    }
  }

  for (const Field f : {Field::shape, Field::value_shape, Field::from_shape, Field::to_shape,
                        Field::in_shape, Field::out_shape}) {
    if (!raw_.has(f)) continue;
    const std::vector<Dim>& dims = raw_.dims(f);
    std::optional<Dim> count = 1;
    for (const Dim d : dims) {
      if (count) count = ir::checked_mul(*count, d);
    }
    if (!count || *count > kMaxTensorElements) {
      return fail_node(
          "field " + std::string(name_of(f)) + ": " + ir::to_string(Shape{ir::Dims(dims)}) +
          " has " + (count ? std::to_string(*count) : std::string("more than 2^64")) +
          " elements; the limit is " + std::to_string(kMaxTensorElements) + " (2^48) per tensor");
    }
  }
  if (raw_.extension && !format_ && !pending_extension_) {
    fail_node("field kind: " + extension_problem());
    pending_extension_ = std::move(error_);
    error_.reset();
  }
  if (raw_.dtype != ir::DType::float32 && !format_ && !pending_extension_) {
    fail_node("field dtype: " + dtype_problem());
    pending_extension_ = std::move(error_);
    error_.reset();
  }
  if (ir::takes_weights_as_values(ir::op_traits(*raw_.kind).payloads,
                                  raw_.u32s(Field::parents).size())) {
    const std::string problem = "field parents: " + std::string(node_spelling()) +
                                " with its weights as parents (weights as values) needs format '" +
                                std::string(kNnplanIrFormat) +
                                "', and this document's format is '" + std::string(kIrFormat) + "'";
    if (format_ == DocumentFormat::torchlean) return fail_node(problem);
    if (!format_ && !pending_extension_) {
      fail_node(problem);
      pending_extension_ = std::move(error_);
      error_.reset();
    }
  }

  const OpKind kind = *raw_.kind;
  ir::OpParams params;
  if (raw_.legacy != nullptr) {
    params = raw_.legacy->convert(raw_, graph_);
  } else if (wanted.data() == kLegacyFlattenFields.data()) {
    params = ir::FlattenParams{.in = Shape{ir::Dims(raw_.dims(Field::in_shape))}};
  } else {
    static constexpr auto kReaders =
        params_readers(std::make_index_sequence<std::variant_size_v<ir::OpParams>>{});
    params = kReaders[ir::op_traits(kind).params](raw_);
  }
  const std::vector<NodeId>& parents = raw_.u32s(Field::parents);
  graph_.nodes.push_back(Node{.id = *raw_.id,
                              .kind = kind,
                              .parents = ir::Parents(parents.begin(), parents.end()),
                              .shape = Shape{ir::Dims(raw_.dims(Field::shape))},
                              .params = std::move(params),
                              .dtype = raw_.dtype,
                              .source_name = raw_.name ? std::move(*raw_.name) : std::string()});
  return true;
}

// nlohmann reports "parse error at line 3, column 7: syntax error while parsing ..." for syntax
// errors and "number overflow parsing '1e400'" (no position) for numbers past double range.
bool GraphHandler::parse_error(std::size_t position, const std::string& /*last_token*/,
                               const nlohmann::detail::exception& ex) {
  // nlohmann's position counts the byte it stopped at.
  std::string problem =
      detail::json_syntax_problem(ex.what(), text_, position == 0 ? 0 : position - 1);
  return fail_root("", std::move(problem));
}

Expected<ir::Graph> GraphHandler::finish() {
  const auto missing = [this](std::string_view field, std::string_view text) {
    fail_root(field, std::string(text));
    return std::unexpected(std::move(*error_));
  };
  const auto has = [this](RootField f) {
    return (root_seen_ & (std::uint32_t{1} << static_cast<unsigned>(f))) != 0;
  };
  if (!has(RootField::format)) return missing("format", "required field is missing");
  if (!has(RootField::input_id)) return missing("input_id", "required field is missing");
  if (!has(RootField::output_ids) && !has(RootField::output_id)) {
    return missing("output_ids",
                   "required field is missing (or the legacy output_id, a single output)");
  }
  if (!has(RootField::nodes)) return missing("nodes", "required field is missing");
  return std::move(graph_);
}

}  // namespace

Expected<ir::Graph> parse_ir_json(std::string_view text, std::string_view source) {
  if (only_whitespace(text)) {
    return std::unexpected(
        make_error(ErrorKind::invalid_input,
                   escape_controls(std::string(source) +
                                   ": empty document; expected a JSON object with fields " +
                                   std::string(kRootFieldsText))));
  }
  if (auto nul = detail::json_nul_problem(text)) {
    return std::unexpected(
        make_error(ErrorKind::invalid_input, escape_controls(std::string(source) + ": " + *nul)));
  }
  try {
    GraphHandler handler(text, source);
    const bool ok = Json::sax_parse(text.begin(), text.end(), &handler,
                                    nlohmann::detail::input_format_t::json, /*strict=*/true,
                                    /*ignore_comments=*/false);
    if (handler.error()) return std::unexpected(std::move(*handler.error()));
    if (!ok) {
      return std::unexpected(make_error(
          ErrorKind::internal, escape_controls(std::string(source) + ": JSON parse stopped")));
    }
    return handler.finish();
  } catch (const std::exception& e) {
    // Allocation failure on a huge document, or a bug: never an exception across the API.
    return std::unexpected(
        error_from_exception("reading graph " + escape_controls(std::string(source)), e));
  }
}

Expected<ir::Graph> read_ir_file(const std::filesystem::path& path) {
  auto text = detail::read_bounded_file(path, "graph file", kMaxIrFileBytes,
                                        detail::StreamCheck::json_text);
  if (!text) return std::unexpected(std::move(text.error()));
  return parse_ir_json(text->text(), path.string());
}

}  // namespace nnplan::format
