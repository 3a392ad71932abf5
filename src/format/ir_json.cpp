// Reader and writer of `torchlean.ir.v1` graph documents.
//
// The reader is a SAX handler over nlohmann's parser rather than a walk over a parsed tree: a
// graph file can hold millions of nodes, and a JSON tree of them would cost several times the
// file in memory and most of the reading time. The handler builds each ir::Node straight from
// the events. Problems inside a node are recorded (the first one wins) and reported when the
// node's object closes, so the message can name the node's kind and name even when the bad
// field comes before `kind` in the file. Problems outside nodes stop the parse at once.
// nlohmann's SAX parser is iterative, so deep nesting costs memory, not stack.
#include "nnplan/format/ir_json.hpp"
#include "nnplan/exception_boundary.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "bounded_file.hpp"
#include "json_document.hpp"
#include "message_text.hpp"
#include "nnplan/format/limits.hpp"
#include "nnplan/ir/op_table.hpp"

namespace nnplan::format {
namespace {

using ir::Dim;
using ir::Node;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;
using Json = nlohmann::json;

using detail::escape_controls;
using detail::only_whitespace;
using detail::shown;

// ---------------------------------------------------------------------------------------------
// The fields of a node and of the document.

enum class Field : std::uint8_t {
  id,
  kind,
  parents,
  shape,
  value_shape,
  perm,
  seed,
  kh,
  kw,
  stride,
  padding,
  from_shape,
  to_shape,
  axis,
  in_c,
  out_c,
  channels,
  in_shape,
  out_shape,
  name,
};
constexpr std::array<std::string_view, 20> kFieldNames = {
    "id",  "kind", "parents",  "shape",    "value_shape", "perm",     "seed",
    "kH",  "kW",   "stride",   "padding",  "from_shape",  "to_shape", "axis",
    "inC", "outC", "channels", "in_shape", "out_shape",   "name"};
constexpr std::size_t kFieldCount = kFieldNames.size();

// The op fields, in the order SPEC §6 lists them.
constexpr std::array<Field, 15> kOpFields = {
    Field::value_shape, Field::perm,    Field::seed,       Field::kh,       Field::kw,
    Field::stride,      Field::padding, Field::from_shape, Field::to_shape, Field::axis,
    Field::in_c,        Field::out_c,   Field::channels,   Field::in_shape, Field::out_shape};

constexpr std::string_view name_of(Field f) {
  return kFieldNames[static_cast<std::size_t>(f)];
}
constexpr std::uint32_t bit(Field f) {
  return std::uint32_t{1} << static_cast<unsigned>(f);
}

constexpr std::optional<Field> find_field(std::string_view key) {
  for (std::size_t i = 0; i < kFieldCount; ++i) {
    if (kFieldNames[i] == key) return static_cast<Field>(i);
  }
  return std::nullopt;
}

enum class ValueType : std::uint8_t { u32, u64, u32_list, u64_list, string };

ValueType type_of(Field f) {
  switch (f) {
    case Field::id:
    case Field::kh:
    case Field::kw:
    case Field::stride:
    case Field::padding:
    case Field::axis:
    case Field::in_c:
    case Field::out_c:
    case Field::channels:
      return ValueType::u32;
    case Field::seed:
      return ValueType::u64;
    case Field::parents:
    case Field::perm:
      return ValueType::u32_list;
    case Field::shape:
    case Field::value_shape:
    case Field::from_shape:
    case Field::to_shape:
    case Field::in_shape:
    case Field::out_shape:
      return ValueType::u64_list;
    case Field::kind:
    case Field::name:
      return ValueType::string;
  }
  return ValueType::string;
}

// The op fields of each kind: the fields column of the op-kind table (ir/op_kinds.def), in the
// order the writer uses, resolved to Field at compile time. A name that is not an op field does
// not compile.
struct KindFields {
  std::array<Field, kOpFields.size()> fields{};
  std::size_t count = 0;
};
constexpr auto kKindFields = [] {
  std::array<KindFields, ir::kOpKindCount> out{};
  for (std::size_t k = 0; k < ir::kOpKindCount; ++k) {
    for (const std::string_view name : ir::kOpKindTable[k].fields) {
      const std::optional<Field> f = find_field(name);
      if (!f || std::find(kOpFields.begin(), kOpFields.end(), *f) == kOpFields.end()) {
        throw "a kind's field is not an op field of torchlean.ir.v1";
      }
      out[k].fields[out[k].count++] = *f;
    }
  }
  return out;
}();

std::span<const Field> op_fields(OpKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  if (index >= kKindFields.size()) return {};
  return {kKindFields[index].fields.data(), kKindFields[index].count};
}

// The op field of each member of an OpParams alternative: `each(f)` calls f(field, member
// pointer) once per member. The reader fills the members from these fields and the writer emits
// them in the kind's field order; a kind's fields are members of its alternative (checked
// below), and a member whose field the kind lacks (max_pool2d's padding) keeps its default.
template <class P>
struct ParamsFields;
template <>
struct ParamsFields<std::monostate> {
  static constexpr void each(auto&& /*f*/) {}
};
template <>
struct ParamsFields<ir::ConstParams> {
  static constexpr void each(auto&& f) { f(Field::value_shape, &ir::ConstParams::value_shape); }
};
template <>
struct ParamsFields<ir::PermuteParams> {
  static constexpr void each(auto&& f) { f(Field::perm, &ir::PermuteParams::perm); }
};
template <>
struct ParamsFields<ir::SeedParams> {
  static constexpr void each(auto&& f) { f(Field::seed, &ir::SeedParams::seed); }
};
template <>
struct ParamsFields<ir::PoolParams> {
  static constexpr void each(auto&& f) {
    f(Field::kh, &ir::PoolParams::kh);
    f(Field::kw, &ir::PoolParams::kw);
    f(Field::stride, &ir::PoolParams::stride);
    f(Field::padding, &ir::PoolParams::padding);
  }
};
template <>
struct ParamsFields<ir::BroadcastParams> {
  static constexpr void each(auto&& f) {
    f(Field::from_shape, &ir::BroadcastParams::from);
    f(Field::to_shape, &ir::BroadcastParams::to);
  }
};
template <>
struct ParamsFields<ir::AxisParams> {
  static constexpr void each(auto&& f) { f(Field::axis, &ir::AxisParams::axis); }
};
template <>
struct ParamsFields<ir::Conv2dParams> {
  static constexpr void each(auto&& f) {
    f(Field::in_c, &ir::Conv2dParams::in_channels);
    f(Field::out_c, &ir::Conv2dParams::out_channels);
    f(Field::kh, &ir::Conv2dParams::kh);
    f(Field::kw, &ir::Conv2dParams::kw);
    f(Field::stride, &ir::Conv2dParams::stride);
    f(Field::padding, &ir::Conv2dParams::padding);
  }
};
template <>
struct ParamsFields<ir::ChannelsParams> {
  static constexpr void each(auto&& f) { f(Field::channels, &ir::ChannelsParams::channels); }
};
template <>
struct ParamsFields<ir::ReshapeParams> {
  static constexpr void each(auto&& f) {
    f(Field::in_shape, &ir::ReshapeParams::in);
    f(Field::out_shape, &ir::ReshapeParams::out);
  }
};
template <>
struct ParamsFields<ir::FlattenParams> {
  static constexpr void each(auto&& f) { f(Field::in_shape, &ir::FlattenParams::in); }
};

// The fields each OpParams alternative binds, as bit sets, by alternative index.
template <std::size_t... I>
constexpr std::array<std::uint32_t, sizeof...(I)> bound_fields(std::index_sequence<I...>) {
  const auto bits = [](auto tag) {
    std::uint32_t out = 0;
    ParamsFields<typename decltype(tag)::type>::each([&out](Field f, auto) { out |= bit(f); });
    return out;
  };
  return {bits(std::type_identity<std::variant_alternative_t<I, ir::OpParams>>{})...};
}
constexpr auto kBoundFields =
    bound_fields(std::make_index_sequence<std::variant_size_v<ir::OpParams>>{});
static_assert(
    [] {
      for (std::size_t k = 0; k < ir::kOpKindCount; ++k) {
        std::uint32_t wanted = 0;
        for (std::size_t i = 0; i < kKindFields[k].count; ++i)
          wanted |= bit(kKindFields[k].fields[i]);
        if ((wanted & ~kBoundFields[ir::kOpKindTable[k].params]) != 0) return false;
      }
      return true;
    }(),
    "every field of a kind is a member of the kind's OpParams alternative");

std::string_view kind_name(OpKind kind) {
  return ir::to_string(kind);
}

// "conv2d takes id, kind, parents, shape, inC, outC, kH, kW, stride, padding, name".
std::string fields_of_kind(OpKind kind) {
  std::string out(kind_name(kind));
  out += " takes id, kind, parents, shape, ";
  for (const Field f : op_fields(kind)) {
    out += name_of(f);
    out += ", ";
  }
  out += "name";
  return out;
}

std::string op_fields_text(OpKind kind) {
  const auto fields = op_fields(kind);
  if (fields.empty()) return std::string(kind_name(kind)) + " takes no op fields";
  std::string out(kind_name(kind));
  out += " takes ";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i != 0) out += ", ";
    out += name_of(fields[i]);
  }
  return out;
}

// "expected a non-negative integer": what a field's value must be, for messages.
std::string expectation(Field f) {
  switch (type_of(f)) {
    case ValueType::u32:
    case ValueType::u64:
      return "expected a non-negative integer";
    case ValueType::u32_list:
    case ValueType::u64_list:
      return "expected an array";
    case ValueType::string:
      break;
  }
  return f == Field::name ? "expected a non-empty string" : "expected a string";
}

enum class RootField : std::uint8_t { format, input_id, output_id, nodes };
constexpr std::array<std::string_view, 4> kRootFieldNames = {"format", "input_id", "output_id",
                                                             "nodes"};

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

// The parameters of alternative P, read from the fields of a node as read so far (`Raw` is the
// handler's RawNode).
template <class Raw, class P>
ir::OpParams read_params(Raw& raw) {
  P params{};
  ParamsFields<P>::each([&](Field f, auto member) { raw.take(f, params.*member); });
  return params;
}

// One reader per OpParams alternative, by alternative index.
template <class Raw, std::size_t... I>
constexpr std::array<ir::OpParams (*)(Raw&), sizeof...(I)> params_readers(
    std::index_sequence<I...>) {
  return {&read_params<Raw, std::variant_alternative_t<I, ir::OpParams>>...};
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
  enum class State : std::uint8_t { top, root, root_value, nodes, node, node_value, list, done };

  // The first problem found inside the current node, reported when the node closes.
  struct Problem {
    enum class Kind : std::uint8_t { value, unknown_field, repeated_field };
    Kind kind = Kind::value;
    std::string field;  // "kH", "parents[2]", or the unknown / repeated key
    std::string text;   // what is wrong with the value
  };

  // A node as read so far.
  struct RawNode {
    std::uint32_t seen = 0;
    std::optional<NodeId> id;
    std::optional<OpKind> kind;
    std::optional<std::string> name;
    std::vector<NodeId> parents;
    std::vector<std::uint32_t> perm;
    std::vector<Dim> shape, value_shape, from_shape, to_shape, in_shape, out_shape;
    std::array<std::uint64_t, kFieldCount> scalars{};  // u32 and u64 fields, by Field
    std::optional<Problem> problem;

    // Moves the value read for field `f` into a parameter member of the field's type.
    void take(Field f, std::uint32_t& to) const {
      to = static_cast<std::uint32_t>(scalars[static_cast<std::size_t>(f)]);
    }
    void take(Field f, std::uint64_t& to) const { to = scalars[static_cast<std::size_t>(f)]; }
    void take(Field f, Shape& to) { to = Shape{std::move(dims(f))}; }
    void take(Field /*perm*/, std::vector<std::uint32_t>& to) { to = std::move(perm); }

    // The storage of a u64-list field.
    std::vector<Dim>& dims(Field f) {
      switch (f) {
        case Field::value_shape:
          return value_shape;
        case Field::from_shape:
          return from_shape;
        case Field::to_shape:
          return to_shape;
        case Field::in_shape:
          return in_shape;
        case Field::out_shape:
          return out_shape;
        case Field::shape:
        case Field::id:
        case Field::kind:
        case Field::parents:
        case Field::perm:
        case Field::seed:
        case Field::kh:
        case Field::kw:
        case Field::stride:
        case Field::padding:
        case Field::axis:
        case Field::in_c:
        case Field::out_c:
        case Field::channels:
        case Field::name:
          break;
      }
      return shape;
    }

    // Ready for the next node. Vectors keep no elements: the last node took them.
    void reset() {
      seen = 0;
      id.reset();
      kind.reset();
      name.reset();
      parents.clear();
      perm.clear();
      for (Field f : {Field::shape, Field::value_shape, Field::from_shape, Field::to_shape,
                      Field::in_shape, Field::out_shape})
        dims(f).clear();
      scalars.fill(0);  // fields a kind does not take (padding of max_pool2d) read as 0
      problem.reset();
    }
  };

  bool scalar(const Scalar& s);
  // Counts one more level of nesting; false past kMaxJsonDepth.
  bool enter();
  bool in_node() const {
    return skip_depth_ > 0 || state_ == State::node || state_ == State::node_value ||
           state_ == State::list;
  }
  bool compound(bool object);
  bool root_scalar(const Scalar& s);
  bool node_scalar(const Scalar& s);
  bool list_scalar(const Scalar& s);
  void note(Problem problem) {
    if (!raw_.problem) raw_.problem = std::move(problem);
  }
  void note_value(std::string field, std::string text) {
    note(Problem{.kind = Problem::Kind::value, .field = std::move(field), .text = std::move(text)});
  }
  // Starts skipping a compound value; `skip_depth_` counts the open containers.
  bool skip() {
    skip_depth_ = 1;
    return true;
  }
  // A value of the current context is complete.
  void value_done();
  bool finish_node();
  std::string describe_node() const;
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
  std::optional<Field> field_;  // the node field being read; nullopt while skipping its value
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

// `node 3`, `node 3 (conv2d 'conv1')`, `node 3 (id 7, relu)`: the index in `nodes`, then what
// is known of the node.
std::string GraphHandler::describe_node() const {
  const std::size_t index = graph_.nodes.size();
  std::string out = "node " + std::to_string(index);
  std::string inner;
  if (raw_.id && *raw_.id != index) inner = "id " + std::to_string(*raw_.id);
  if (raw_.kind) {
    if (!inner.empty()) inner += ", ";
    inner += kind_name(*raw_.kind);
  }
  if (raw_.name) {
    if (!inner.empty()) inner += ' ';
    inner += "'" + shown(*raw_.name) + "'";
  }
  if (!inner.empty()) out += " (" + inner + ")";
  return out;
}

void GraphHandler::value_done() {
  switch (state_) {
    case State::root_value:
      state_ = State::root;
      break;
    case State::node_value:
      state_ = State::node;
      break;
    case State::list:
      ++list_index_;
      break;
    case State::top:
    case State::root:
    case State::nodes:
    case State::node:
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
      return fail_root("",
                       "expected a JSON object with fields format, input_id, output_id and nodes, "
                       "found " +
                           found(s));
    case State::root_value:
      return root_scalar(s);
    case State::nodes:
      return fail_not_object(found(s));
    case State::node_value:
      if (!node_scalar(s)) return false;
      value_done();
      return true;
    case State::list:
      if (!list_scalar(s)) return false;
      value_done();
      return true;
    case State::root:
    case State::node:
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
      return fail_root("",
                       "expected a JSON object with fields format, input_id, output_id and nodes, "
                       "found an array");
    case State::root_value:
      if (root_field_ == RootField::nodes) {
        if (object) return fail_root("nodes", "expected an array, found an object");
        state_ = State::nodes;
        return true;
      }
      return fail_root(
          kRootFieldNames[static_cast<std::size_t>(root_field_)],
          std::string(root_field_ == RootField::format ? "expected a string"
                                                       : "expected a non-negative integer") +
              ", found " + what);
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
      const ValueType type = type_of(*field_);
      if (!object && (type == ValueType::u32_list || type == ValueType::u64_list)) {
        if (type == ValueType::u64_list) raw_.dims(*field_).clear();
        state_ = State::list;
        list_index_ = 0;
        return true;
      }
      note_value(std::string(name_of(*field_)), expectation(*field_) + ", found " + what);
      return skip();
    }
    case State::list:
      note_value(std::string(name_of(*field_)) + "[" + std::to_string(list_index_) + "]",
                 std::string("expected a non-negative integer, found ") + what);
      return skip();
    case State::root:
    case State::node:
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
      root_seen_ |= b;
      root_field_ = static_cast<RootField>(i);
      state_ = State::root_value;
      return true;
    }
    return fail_root(shown(k), "unknown field; valid: format, input_id, output_id, nodes");
  }
  // state_ == State::node: the grammar allows keys only inside objects, and the handler skips
  // every object but the root and the nodes.
  state_ = State::node_value;
  field_ = find_field(k);
  if (!field_) {
    note(Problem{.kind = Problem::Kind::unknown_field, .field = shown(k)});
    return true;
  }
  if ((raw_.seen & bit(*field_)) != 0) {
    note(Problem{.kind = Problem::Kind::repeated_field, .field = std::string(k)});
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
  if (state_ == State::list) {
    state_ = State::node;
    return true;
  }
  // The nodes array.
  state_ = State::root;
  return true;
}

bool GraphHandler::root_scalar(const Scalar& s) {
  const std::string_view field = kRootFieldNames[static_cast<std::size_t>(root_field_)];
  state_ = State::root;
  switch (root_field_) {
    case RootField::format:
      if (s.kind != Scalar::Kind::string) {
        return fail_root(field, "expected a string, found " + found(s));
      }
      if (s.text != kIrFormat) {
        return fail_root(
            field, "expected '" + std::string(kIrFormat) + "', found '" + shown(s.text) + "'");
      }
      return true;
    case RootField::input_id:
    case RootField::output_id: {
      const auto value = to_uint(s, kMaxU32);
      if (!value) return fail_root(field, value.error());
      (root_field_ == RootField::input_id ? graph_.input_id : graph_.output_id) =
          static_cast<NodeId>(*value);
      return true;
    }
    case RootField::nodes:
      return fail_root(field, "expected an array, found " + found(s));
  }
  return true;
}

bool GraphHandler::node_scalar(const Scalar& s) {
  if (!field_) return true;  // an unknown or repeated field, already noted
  const Field f = *field_;
  const auto index = static_cast<std::size_t>(f);
  switch (type_of(f)) {
    case ValueType::u32:
    case ValueType::u64: {
      const auto value = to_uint(s, type_of(f) == ValueType::u32 ? kMaxU32 : kMaxU64);
      if (!value) {
        note_value(std::string(name_of(f)), value.error());
        return true;
      }
      if (f == Field::id) raw_.id = static_cast<NodeId>(*value);
      raw_.scalars[index] = *value;
      return true;
    }
    case ValueType::u32_list:
    case ValueType::u64_list:
      note_value(std::string(name_of(f)), expectation(f) + ", found " + found(s));
      return true;
    case ValueType::string:
      break;
  }
  if (s.kind != Scalar::Kind::string || (f == Field::name && s.text.empty())) {
    note_value(std::string(name_of(f)), expectation(f) + ", found " + found(s));
    return true;
  }
  if (f == Field::name) {
    raw_.name = std::string(s.text);
    return true;
  }
  const auto kind = ir::parse_op_kind(s.text);
  if (!kind) {
    note_value("kind",
               "unknown op kind '" + shown(s.text) + "'; valid: " + join_names(ir::kOpKindNames));
    return true;
  }
  raw_.kind = *kind;
  return true;
}

bool GraphHandler::list_scalar(const Scalar& s) {
  const Field f = *field_;
  const bool wide = type_of(f) == ValueType::u64_list;
  const std::size_t max_entries = f == Field::parents ? kMaxNodeParents : kMaxRank;
  if (list_index_ >= max_entries) {
    // Nothing past the limit is stored, so a huge list costs no memory.
    note_value(std::string(name_of(f)),
               "more than " + std::to_string(max_entries) + " entries; the limit is " +
                   std::to_string(max_entries) +
                   (f == Field::parents ? " parents per node" : " (the maximum rank)"));
    return true;
  }
  const auto value = to_uint(s, wide ? kMaxU64 : kMaxU32);
  if (!value) {
    note_value(std::string(name_of(f)) + "[" + std::to_string(list_index_) + "]", value.error());
    return true;
  }
  if (wide && *value > kMaxDim) {
    note_value(std::string(name_of(f)) + "[" + std::to_string(list_index_) + "]",
               std::to_string(*value) + " exceeds the dimension limit of " +
                   std::to_string(kMaxDim) + " (2^48)");
    return true;
  }
  if (wide) {
    raw_.dims(f).push_back(*value);
  } else if (f == Field::parents) {
    raw_.parents.push_back(static_cast<NodeId>(*value));
  } else {
    raw_.perm.push_back(static_cast<std::uint32_t>(*value));
  }
  return true;
}

bool GraphHandler::finish_node() {
  if (raw_.problem) {
    const Problem& p = *raw_.problem;
    switch (p.kind) {
      case Problem::Kind::value:
        return fail_node("field " + p.field + ": " + p.text);
      case Problem::Kind::unknown_field:
        return fail_node("field " + p.field + ": unknown field; " +
                         (raw_.kind ? fields_of_kind(*raw_.kind)
                                    : std::string("valid: id, kind, parents, shape, name and the "
                                                  "op fields of the node's kind")));
      case Problem::Kind::repeated_field:
        return fail_node("field " + p.field + ": repeated field");
    }
  }
  for (const Field f : {Field::id, Field::kind, Field::parents, Field::shape}) {
    if ((raw_.seen & bit(f)) == 0) {
      return fail_node("field " + std::string(name_of(f)) + ": required field is missing");
    }
  }
  const OpKind kind = *raw_.kind;
  const auto wanted = op_fields(kind);
  std::uint32_t wanted_bits = 0;
  for (const Field f : wanted)
    wanted_bits |= bit(f);
  for (const Field f : kOpFields) {
    if ((raw_.seen & bit(f)) != 0 && (wanted_bits & bit(f)) == 0) {
      return fail_node("field " + std::string(name_of(f)) + ": not a field of " +
                       std::string(kind_name(kind)) + "; " + op_fields_text(kind));
    }
  }
  for (const Field f : wanted) {
    if ((raw_.seen & bit(f)) == 0) {
      return fail_node("field " + std::string(name_of(f)) + ": required field is missing; " +
                       op_fields_text(kind));
    }
  }

  for (const Field f : {Field::shape, Field::value_shape, Field::from_shape, Field::to_shape,
                        Field::in_shape, Field::out_shape}) {
    const std::vector<Dim>& dims = raw_.dims(f);
    std::optional<Dim> count = 1;
    for (const Dim d : dims) {
      if (count) count = ir::checked_mul(*count, d);
    }
    if (!count || *count > kMaxTensorElements) {
      return fail_node("field " + std::string(name_of(f)) + ": " + ir::to_string(Shape{dims}) +
                       " has " + (count ? std::to_string(*count) : std::string("more than 2^64")) +
                       " elements; the limit is " + std::to_string(kMaxTensorElements) +
                       " (2^48) per tensor");
    }
  }
  const auto shape = [this](Field f) { return Shape{std::move(raw_.dims(f))}; };
  static constexpr auto kReaders =
      params_readers<RawNode>(std::make_index_sequence<std::variant_size_v<ir::OpParams>>{});
  ir::OpParams params = kReaders[ir::op_traits(kind).params](raw_);
  graph_.nodes.push_back(Node{.id = *raw_.id,
                              .kind = kind,
                              .parents = std::move(raw_.parents),
                              .shape = shape(Field::shape),
                              .params = std::move(params),
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
  for (std::size_t i = 0; i < kRootFieldNames.size(); ++i) {
    if ((root_seen_ & (std::uint32_t{1} << i)) == 0) {
      fail_root(kRootFieldNames[i], "required field is missing");
      return std::unexpected(std::move(*error_));
    }
  }
  return std::move(graph_);
}

// ---------------------------------------------------------------------------------------------
// The writer.

void append_uint(std::string& out, std::uint64_t value) {
  std::array<char, 24> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), result.ptr);
}

template <class T>
void append_list(std::string& out, std::span<const T> values) {
  out += '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i != 0) out += ", ";
    append_uint(out, values[i]);
  }
  out += ']';
}

void append_key(std::string& out, std::string_view key) {
  out += ", \"";
  out += key;
  out += "\": ";
}

void append_value(std::string& out, std::uint32_t value) {
  append_uint(out, value);
}
void append_value(std::string& out, std::uint64_t value) {
  append_uint(out, value);
}
void append_value(std::string& out, const Shape& value) {
  append_list<ir::Dim>(out, value.dims);
}
void append_value(std::string& out, const std::vector<std::uint32_t>& value) {
  append_list<std::uint32_t>(out, value);
}

// The op fields of `node`, in its kind's order, from its parameters as alternative P; the
// alternative's defaults when the variant holds another one (the writer stays total on graphs
// built by hand).
template <class P>
void append_params(std::string& out, const Node& node, std::span<const Field> fields) {
  const P defaults{};
  const P* held = std::get_if<P>(&node.params);
  const P& params = held != nullptr ? *held : defaults;
  for (const Field f : fields) {
    ParamsFields<P>::each([&](Field member_field, auto member) {
      if (member_field != f) return;
      append_key(out, name_of(f));
      append_value(out, params.*member);
    });
  }
}

template <std::size_t... I>
constexpr std::array<void (*)(std::string&, const Node&, std::span<const Field>), sizeof...(I)>
params_writers(std::index_sequence<I...>) {
  return {&append_params<std::variant_alternative_t<I, ir::OpParams>>...};
}

void append_op_fields(std::string& out, const Node& node) {
  static constexpr auto kWriters =
      params_writers(std::make_index_sequence<std::variant_size_v<ir::OpParams>>{});
  kWriters[ir::op_traits(node.kind).params](out, node, op_fields(node.kind));
}

}  // namespace

Expected<ir::Graph> parse_ir_json(std::string_view text, std::string_view source) {
  if (only_whitespace(text)) {
    return std::unexpected(make_error(
        ErrorKind::invalid_input,
        escape_controls(std::string(source) +
                        ": empty document; expected a JSON object with fields format, input_id, "
                        "output_id and nodes")));
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

std::string write_ir_json(const ir::Graph& graph) {
  std::string out;
  out.reserve(96 + graph.nodes.size() * 80);
  out += "{\n  \"format\": \"";
  out += kIrFormat;
  out += "\",\n  \"input_id\": ";
  append_uint(out, graph.input_id);
  out += ",\n  \"output_id\": ";
  append_uint(out, graph.output_id);
  out += ",\n  \"nodes\": [";
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    out += i == 0 ? "\n    {\"id\": " : ",\n    {\"id\": ";
    append_uint(out, node.id);
    out += ", \"kind\": \"";
    out += kind_name(node.kind);
    out += '"';
    append_key(out, "parents");
    append_list<ir::NodeId>(out, node.parents);
    append_key(out, "shape");
    append_list<ir::Dim>(out, node.shape.dims);
    append_op_fields(out, node);
    if (!node.source_name.empty()) {
      append_key(out, "name");
      // nlohmann escapes the string; invalid UTF-8 becomes U+FFFD instead of an exception.
      out += Json(node.source_name).dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    out += '}';
  }
  out += graph.nodes.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace nnplan::format
