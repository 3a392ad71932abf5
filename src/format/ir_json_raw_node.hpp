// A node as the graph reader has read it so far (RawNode), and TorchLean's legacy kinds, which the
// reader reads into the current kinds (ir_json_legacy.cpp). Private to src/format.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir_json_fields.hpp"
#include "nnplan/ir/graph.hpp"

namespace nnplan::format::ir_json {

// A node as read so far.

// The first problem found inside the current node, reported when the node closes.
struct Problem {
  enum class Kind : std::uint8_t { value, unknown_field, repeated_field };
  Kind kind = Kind::value;
  std::uint32_t ordinal = 0;  // which of the node's keys it belongs to (document order)
  std::string field;          // "kernel", "parents[2]", "mask.shape", or the unknown / repeated key
  std::string text;           // what is wrong with the value
};

// `stride` or `padding` read before the node's `kind`: integers in the legacy kinds, arrays in
// the current ones. The value is kept both ways and the kind picks the reading when the node
// closes.
struct Undecided {
  std::uint32_t ordinal = 0;
  std::optional<Problem> as_integer;  // the problem when the kind wants an integer
  std::optional<Problem> as_list;     // the problem when the kind wants an array
};

struct LegacyKind;

struct RawNode {
  std::uint64_t seen = 0;
  std::uint32_t keys = 0;  // keys read so far: the ordinal of the next one
  std::optional<NodeId> id;
  std::optional<OpKind> kind;
  const LegacyKind* legacy = nullptr;  // set when `kind` is a legacy spelling
  bool extension = false;              // `kind` is an nnplan extension
  std::optional<std::string> name;
  ir::DType dtype = ir::DType::float32;
  std::array<std::vector<std::uint32_t>, kU32Lists> u32_lists;  // by FieldInfo::slot
  std::array<std::vector<Dim>, kDimLists> dim_lists;            // by FieldInfo::slot
  std::vector<float> float_list;  // the one float32_list field (resize's `scales`)
  // Scalar fields by Field: integers and booleans in `scalars`, numbers in `floats`, and the
  // nullable numbers given as null in `nulls`. Only fields in `seen` are read.
  std::array<std::uint64_t, kFieldCount> scalars{};
  std::array<float, kFieldCount> floats{};
  std::uint64_t nulls = 0;
  // hard_masked_softmax's mask.
  std::vector<Dim> mask_shape;
  std::vector<bool> mask_allowed;
  std::array<std::optional<Undecided>, 2> undecided;  // stride, padding
  std::optional<Problem> problem;

  [[nodiscard]] bool has(Field f) const { return (seen & bit(f)) != 0; }
  std::vector<std::uint32_t>& u32s(Field f) {
    return u32_lists[kFields[static_cast<std::size_t>(f)].slot];
  }
  std::vector<Dim>& dims(Field f) { return dim_lists[kFields[static_cast<std::size_t>(f)].slot]; }
  [[nodiscard]] std::uint32_t u32(Field f) const {
    return static_cast<std::uint32_t>(scalars[static_cast<std::size_t>(f)]);
  }

  // Moves the value read for field `f` into a parameter member of the field's type.
  void take(Field f, std::uint32_t& to) const { to = u32(f); }
  void take(Field f, std::uint64_t& to) const { to = scalars[static_cast<std::size_t>(f)]; }
  void take(Field f, bool& to) const { to = scalars[static_cast<std::size_t>(f)] != 0; }
  void take(Field f, float& to) const { to = floats[static_cast<std::size_t>(f)]; }
  void take(Field f, std::optional<float>& to) const {
    if ((nulls & bit(f)) != 0) {
      to.reset();
    } else {
      to = floats[static_cast<std::size_t>(f)];
    }
  }
  void take(Field f, ir::GeluApproximation& to) const {
    to = static_cast<ir::GeluApproximation>(scalars[static_cast<std::size_t>(f)]);
  }
  void take(Field f, ir::ScatterReduction& to) const {
    to = static_cast<ir::ScatterReduction>(scalars[static_cast<std::size_t>(f)]);
  }
  void take(Field f, ir::RecurrentDirection& to) const {
    to = static_cast<ir::RecurrentDirection>(scalars[static_cast<std::size_t>(f)]);
  }
  void take(Field f, ir::SampleMode& to) const {
    to = static_cast<ir::SampleMode>(scalars[static_cast<std::size_t>(f)]);
  }
  void take(Field f, ir::GridSamplePadding& to) const {
    to = static_cast<ir::GridSamplePadding>(scalars[static_cast<std::size_t>(f)]);
  }
  void take(Field f, ir::CoordinateTransformation& to) const {
    to = static_cast<ir::CoordinateTransformation>(scalars[static_cast<std::size_t>(f)]);
  }
  void take(Field f, ir::ResizeNearest& to) const {
    to = static_cast<ir::ResizeNearest>(scalars[static_cast<std::size_t>(f)]);
  }
  void take(Field /*scales*/, std::vector<float>& to) { to = std::move(float_list); }
  // The reused buffers keep their capacity for the next node: shapes are held inline up to rank
  // 4, so most nodes allocate nothing for them.
  void take(Field f, Shape& to) { to = Shape{ir::Dims(dims(f))}; }
  void take(Field f, std::vector<std::uint32_t>& to) { to = std::move(u32s(f)); }
  void take(Field /*mask*/, ir::MaskParams& to) {
    to.shape = Shape{ir::Dims(mask_shape)};
    to.allowed = std::move(mask_allowed);
  }

  // Ready for the next node. The lists keep no elements.
  void reset() {
    seen = 0;
    keys = 0;
    id.reset();
    kind.reset();
    legacy = nullptr;
    extension = false;
    name.reset();
    dtype = ir::DType::float32;
    for (auto& list : u32_lists)
      list.clear();
    for (auto& list : dim_lists)
      list.clear();
    float_list.clear();
    nulls = 0;
    mask_shape.clear();
    mask_allowed.clear();
    undecided[0].reset();
    undecided[1].reset();
    problem.reset();
  }
};

// TorchLean's legacy kinds.

using LegacyConvert = ir::OpParams (*)(RawNode& raw, const ir::Graph& so_far);

struct LegacyKind {
  std::string_view spelling;
  OpKind kind;                    // the current kind it reads as
  std::span<const Field> fields;  // its op fields, in the order the legacy writers used
  LegacyConvert convert;
};

inline constexpr auto kLegacyConvFields = std::to_array<Field>(
    {Field::in_c, Field::out_c, Field::kh, Field::kw, Field::stride, Field::padding});
inline constexpr auto kLegacyPoolFields =
    std::to_array<Field>({Field::kh, Field::kw, Field::stride});
inline constexpr auto kLegacyPaddedPoolFields =
    std::to_array<Field>({Field::kh, Field::kw, Field::stride, Field::padding});
inline constexpr auto kLegacyChannelsFields = std::to_array<Field>({Field::channels});
inline constexpr std::array<Field, 0> kLegacyNoFields{};
// flatten before `value_shape`: the same kind, its shape in `in_shape`.
inline constexpr auto kLegacyFlattenFields = std::to_array<Field>({Field::in_shape});

// The legacy kind spelled `spelling`, or null.
[[nodiscard]] const LegacyKind* find_legacy_kind(std::string_view spelling);
// "conv2d, max_pool2d, ...": every legacy spelling, for messages.
[[nodiscard]] std::string legacy_kind_names();

}  // namespace nnplan::format::ir_json
