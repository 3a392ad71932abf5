// The fields of a `torchlean.ir.v1` / `nnplan.ir.v1` node, shared by the reader
// (ir_json_reader.cpp), the legacy vocabulary (ir_json_legacy.cpp) and the writer
// (ir_json_writer.cpp): each field's name and value type, the op fields of each kind (the fields
// column of ir/op_kinds.def, resolved at compile time), and which member of each OpParams
// alternative a field reads and writes. Private to src/format.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "nnplan/ir/op_table.hpp"

namespace nnplan::format::ir_json {

using ir::Dim;
using ir::Node;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

// ---------------------------------------------------------------------------------------------
// The fields of a node.

// The common fields first: the reader looks keys up in this order.
enum class Field : std::uint8_t {
  id,
  kind,
  parents,
  shape,
  name,
  dtype,
  // The op fields of the current kinds.
  value_shape,
  perm,
  seed,
  spatial_rank,
  kernel,
  stride,
  padding,
  dilation,
  padding_after,
  groups,
  channel_axis,
  in_channels,
  out_channels,
  output_padding,
  channels,
  from_shape,
  to_shape,
  axis,
  in_shape,
  out_shape,
  axis1,
  axis2,
  mask,
  approximate,
  min,
  max,
  factor,
  start,
  end,
  step,
  causal,
  scale,
  alpha,
  beta,
  largest,
  exclusive,
  reverse,
  reduction,
  batch_dims,
  hidden_size,
  direction,
  linear_before_reset,
  mode,
  padding_mode,
  align_corners,
  coordinate_transformation_mode,
  nearest_mode,
  cubic_coeff_a,
  exclude_outside,
  scales,
  sampling_ratio,
  spatial_scale,
  storage_order,
  // The op fields only TorchLean's legacy kinds take.
  in_c,
  out_c,
  kh,
  kw,
};

// What a field's value must be.
enum class ValueType : std::uint8_t {
  u32,
  u64,
  u32_list,  // parents (up to kMaxNodeParents entries) and rank-sized lists (up to kMaxRank)
  dims,      // a shape: up to kMaxRank entries, each at most kMaxDim
  string,    // kind, name, dtype
  boolean,
  float32,
  nullable_float32,
  gelu_approximation,         // "none" or "tanh"
  scatter_reduction,          // "none", "add" or "mul"
  recurrent_direction,        // "forward", "reverse" or "bidirectional"
  sample_mode,                // "nearest", "linear", "cubic", "avg" or "max"
  grid_sample_padding,        // "zeros", "border" or "reflection"
  coordinate_transformation,  // "half_pixel", ..., "output_half_pixel"
  resize_nearest,             // "round_prefer_floor", "round_prefer_ceil", "floor" or "ceil"
  float32_list,               // numbers, up to kMaxRank of them
  mask,                       // {"shape": [...], "allowed": [bool...]}
};

struct FieldInfo {
  std::string_view name;
  ValueType type = ValueType::u32;
  // The index of the field's storage among the RawNode lists of its type (u32_list, dims).
  std::uint8_t slot = 0;
};

// By Field. `stride` and `padding` are arrays here; legacy kinds read them as u32 (type_for).
inline constexpr auto kFields = std::to_array<FieldInfo>({
    {"id", ValueType::u32},
    {"kind", ValueType::string},
    {"parents", ValueType::u32_list, 0},
    {"shape", ValueType::dims, 0},
    {"name", ValueType::string},
    {"dtype", ValueType::string},
    {"value_shape", ValueType::dims, 1},
    {"perm", ValueType::u32_list, 1},
    {"seed", ValueType::u64},
    {"spatial_rank", ValueType::u32},
    {"kernel", ValueType::u32_list, 2},
    {"stride", ValueType::u32_list, 3},
    {"padding", ValueType::u32_list, 4},
    {"dilation", ValueType::u32_list, 5},
    {"padding_after", ValueType::u32_list, 6},
    {"groups", ValueType::u32},
    {"channel_axis", ValueType::u32},
    {"in_channels", ValueType::u32},
    {"out_channels", ValueType::u32},
    {"output_padding", ValueType::u32_list, 7},
    {"channels", ValueType::u32},
    {"from_shape", ValueType::dims, 2},
    {"to_shape", ValueType::dims, 3},
    {"axis", ValueType::u32},
    {"in_shape", ValueType::dims, 4},
    {"out_shape", ValueType::dims, 5},
    {"axis1", ValueType::u32},
    {"axis2", ValueType::u32},
    {"mask", ValueType::mask},
    {"approximate", ValueType::gelu_approximation},
    {"min", ValueType::nullable_float32},
    {"max", ValueType::nullable_float32},
    {"factor", ValueType::float32},
    {"start", ValueType::u64},
    {"end", ValueType::u64},
    {"step", ValueType::u64},
    {"causal", ValueType::boolean},
    {"scale", ValueType::nullable_float32},
    {"alpha", ValueType::float32},
    {"beta", ValueType::float32},
    {"largest", ValueType::boolean},
    {"exclusive", ValueType::boolean},
    {"reverse", ValueType::boolean},
    {"reduction", ValueType::scatter_reduction},
    {"batch_dims", ValueType::u32},
    {"hidden_size", ValueType::u64},
    {"direction", ValueType::recurrent_direction},
    {"linear_before_reset", ValueType::boolean},
    {"mode", ValueType::sample_mode},
    {"padding_mode", ValueType::grid_sample_padding},
    {"align_corners", ValueType::boolean},
    {"coordinate_transformation_mode", ValueType::coordinate_transformation},
    {"nearest_mode", ValueType::resize_nearest},
    {"cubic_coeff_a", ValueType::float32},
    {"exclude_outside", ValueType::boolean},
    {"scales", ValueType::float32_list},
    {"sampling_ratio", ValueType::u64},
    {"spatial_scale", ValueType::float32},
    {"storage_order", ValueType::u32},
    {"inC", ValueType::u32},
    {"outC", ValueType::u32},
    {"kH", ValueType::u32},
    {"kW", ValueType::u32},
});
inline constexpr std::size_t kFieldCount = kFields.size();
static_assert(kFieldCount == static_cast<std::size_t>(Field::kw) + 1);
static_assert(kFieldCount <= 64, "RawNode::seen is a 64-bit set");
inline constexpr std::size_t kU32Lists = 8;
inline constexpr std::size_t kDimLists = 6;

inline constexpr Field kFirstOpField = Field::value_shape;

constexpr std::string_view name_of(Field f) {
  return kFields[static_cast<std::size_t>(f)].name;
}
constexpr std::uint64_t bit(Field f) {
  return std::uint64_t{1} << static_cast<unsigned>(f);
}
// Every op field, current and legacy.
inline constexpr std::uint64_t kOpFieldBits =
    ~std::uint64_t{0} << static_cast<unsigned>(kFirstOpField) &
    (kFieldCount == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << kFieldCount) - 1);

constexpr std::optional<Field> find_field(std::string_view key) {
  for (std::size_t i = 0; i < kFieldCount; ++i) {
    if (kFields[i].name == key) return static_cast<Field>(i);
  }
  return std::nullopt;
}

// The op fields of each current kind: the fields column of the op-kind table (ir/op_kinds.def),
// in the order the writer uses, resolved to Field at compile time. A name that is not an op field
// does not compile.
struct KindFields {
  std::array<Field, kFieldCount> fields{};
  std::size_t count = 0;
  std::uint64_t bits = 0;
};
inline constexpr auto kKindFields = [] {
  std::array<KindFields, ir::kOpKindCount> out{};
  for (std::size_t k = 0; k < ir::kOpKindCount; ++k) {
    for (const std::string_view name : ir::kOpKindTable[k].fields) {
      const std::optional<Field> f = find_field(name);
      if (!f || (bit(*f) & kOpFieldBits) == 0) {
        throw "a kind's field is not an op field of the graph format";
      }
      out[k].fields[out[k].count++] = *f;
      out[k].bits |= bit(*f);
    }
  }
  return out;
}();

inline std::span<const Field> op_fields(OpKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  if (index >= kKindFields.size()) return {};
  return {kKindFields[index].fields.data(), kKindFields[index].count};
}

// The op field of each member of an OpParams alternative: `each(f)` calls f(field, accessor)
// once per member, where accessor(params) is the member (hard_masked_softmax's one field is the
// whole MaskParams). The reader fills the members from these fields and the writer emits them in
// the kind's field order; a kind's fields are members of its alternative (checked below), and a
// member whose field the kind lacks (conv's output_padding) keeps its default.
template <class P>
struct ParamsFields;
template <>
struct ParamsFields<std::monostate> {
  static constexpr void each(auto&& /*f*/) {}
};
template <>
struct ParamsFields<ir::ConstParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::value_shape, [](auto& p) -> auto& { return p.value_shape; });
  }
};
template <>
struct ParamsFields<ir::PermuteParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::perm, [](auto& p) -> auto& { return p.perm; });
  }
};
template <>
struct ParamsFields<ir::SeedParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::seed, [](auto& p) -> auto& { return p.seed; });
  }
};
template <>
struct ParamsFields<ir::PoolParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::spatial_rank, [](auto& p) -> auto& { return p.spatial_rank; });
    f(
        Field::kernel, [](auto& p) -> auto& { return p.kernel; });
    f(
        Field::stride, [](auto& p) -> auto& { return p.stride; });
    f(
        Field::padding, [](auto& p) -> auto& { return p.padding; });
  }
};
template <>
struct ParamsFields<ir::BroadcastParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::from_shape, [](auto& p) -> auto& { return p.from; });
    f(
        Field::to_shape, [](auto& p) -> auto& { return p.to; });
  }
};
template <>
struct ParamsFields<ir::AxisParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::axis, [](auto& p) -> auto& { return p.axis; });
  }
};
template <>
struct ParamsFields<ir::ConvParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::spatial_rank, [](auto& p) -> auto& { return p.spatial_rank; });
    f(
        Field::kernel, [](auto& p) -> auto& { return p.kernel; });
    f(
        Field::stride, [](auto& p) -> auto& { return p.stride; });
    f(
        Field::padding, [](auto& p) -> auto& { return p.padding; });
    f(
        Field::dilation, [](auto& p) -> auto& { return p.dilation; });
    f(
        Field::padding_after, [](auto& p) -> auto& { return p.padding_after; });
    f(
        Field::groups, [](auto& p) -> auto& { return p.groups; });
    f(
        Field::channel_axis, [](auto& p) -> auto& { return p.channel_axis; });
    f(
        Field::in_channels, [](auto& p) -> auto& { return p.in_channels; });
    f(
        Field::out_channels, [](auto& p) -> auto& { return p.out_channels; });
    f(
        Field::output_padding, [](auto& p) -> auto& { return p.output_padding; });
  }
};
template <>
struct ParamsFields<ir::ChannelAxisParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::channel_axis, [](auto& p) -> auto& { return p.channel_axis; });
    f(
        Field::channels, [](auto& p) -> auto& { return p.channels; });
  }
};
template <>
struct ParamsFields<ir::ReshapeParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::in_shape, [](auto& p) -> auto& { return p.in; });
    f(
        Field::out_shape, [](auto& p) -> auto& { return p.out; });
  }
};
template <>
struct ParamsFields<ir::FlattenParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::value_shape, [](auto& p) -> auto& { return p.in; });
  }
};
template <>
struct ParamsFields<ir::TransposeParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::axis1, [](auto& p) -> auto& { return p.axis1; });
    f(
        Field::axis2, [](auto& p) -> auto& { return p.axis2; });
  }
};
template <>
struct ParamsFields<ir::MaskParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::mask, [](auto& p) -> auto& { return p; });
  }
};
template <>
struct ParamsFields<ir::GeluParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::approximate, [](auto& p) -> auto& { return p.approximate; });
  }
};
template <>
struct ParamsFields<ir::ClampParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::min, [](auto& p) -> auto& { return p.min; });
    f(
        Field::max, [](auto& p) -> auto& { return p.max; });
  }
};
template <>
struct ParamsFields<ir::ScaleParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::factor, [](auto& p) -> auto& { return p.factor; });
  }
};
template <>
struct ParamsFields<ir::SliceParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::axis, [](auto& p) -> auto& { return p.axis; });
    f(
        Field::start, [](auto& p) -> auto& { return p.start; });
    f(
        Field::end, [](auto& p) -> auto& { return p.end; });
    f(
        Field::step, [](auto& p) -> auto& { return p.step; });
  }
};
template <>
struct ParamsFields<ir::AttentionParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::causal, [](auto& p) -> auto& { return p.causal; });
    f(
        Field::scale, [](auto& p) -> auto& { return p.scale; });
  }
};

template <>
struct ParamsFields<ir::AlphaParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::alpha, [](auto& p) -> auto& { return p.alpha; });
  }
};

template <>
struct ParamsFields<ir::HardSigmoidParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::alpha, [](auto& p) -> auto& { return p.alpha; });
    f(
        Field::beta, [](auto& p) -> auto& { return p.beta; });
  }
};

template <>
struct ParamsFields<ir::TopKParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::axis, [](auto& p) -> auto& { return p.axis; });
    f(
        Field::largest, [](auto& p) -> auto& { return p.largest; });
  }
};

template <>
struct ParamsFields<ir::CumSumParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::axis, [](auto& p) -> auto& { return p.axis; });
    f(
        Field::exclusive, [](auto& p) -> auto& { return p.exclusive; });
    f(
        Field::reverse, [](auto& p) -> auto& { return p.reverse; });
  }
};

template <>
struct ParamsFields<ir::ScatterParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::axis, [](auto& p) -> auto& { return p.axis; });
    f(
        Field::reduction, [](auto& p) -> auto& { return p.reduction; });
  }
};

template <>
struct ParamsFields<ir::GatherNdParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::batch_dims, [](auto& p) -> auto& { return p.batch_dims; });
  }
};

template <>
struct ParamsFields<ir::RecurrentParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::hidden_size, [](auto& p) -> auto& { return p.hidden_size; });
    f(
        Field::direction, [](auto& p) -> auto& { return p.direction; });
    f(
        Field::linear_before_reset, [](auto& p) -> auto& { return p.linear_before_reset; });
  }
};

template <>
struct ParamsFields<ir::GridSampleParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::mode, [](auto& p) -> auto& { return p.mode; });
    f(
        Field::padding_mode, [](auto& p) -> auto& { return p.padding_mode; });
    f(
        Field::align_corners, [](auto& p) -> auto& { return p.align_corners; });
  }
};

template <>
struct ParamsFields<ir::MaxPoolIndicesParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::spatial_rank, [](auto& p) -> auto& { return p.spatial_rank; });
    f(
        Field::kernel, [](auto& p) -> auto& { return p.kernel; });
    f(
        Field::stride, [](auto& p) -> auto& { return p.stride; });
    f(
        Field::padding, [](auto& p) -> auto& { return p.padding; });
    f(
        Field::padding_after, [](auto& p) -> auto& { return p.padding_after; });
    f(
        Field::dilation, [](auto& p) -> auto& { return p.dilation; });
    f(
        Field::storage_order, [](auto& p) -> auto& { return p.storage_order; });
  }
};

template <>
struct ParamsFields<ir::RoiAlignParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::mode, [](auto& p) -> auto& { return p.mode; });
    f(
        Field::coordinate_transformation_mode,
        [](auto& p) -> auto& { return p.coordinate_transformation_mode; });
    f(
        Field::sampling_ratio, [](auto& p) -> auto& { return p.sampling_ratio; });
    f(
        Field::spatial_scale, [](auto& p) -> auto& { return p.spatial_scale; });
  }
};

template <>
struct ParamsFields<ir::ResizeParams> {
  static constexpr void each(auto&& f) {
    f(
        Field::mode, [](auto& p) -> auto& { return p.mode; });
    f(
        Field::coordinate_transformation_mode,
        [](auto& p) -> auto& { return p.coordinate_transformation_mode; });
    f(
        Field::nearest_mode, [](auto& p) -> auto& { return p.nearest_mode; });
    f(
        Field::cubic_coeff_a, [](auto& p) -> auto& { return p.cubic_coeff_a; });
    f(
        Field::exclude_outside, [](auto& p) -> auto& { return p.exclude_outside; });
    f(
        Field::scales, [](auto& p) -> auto& { return p.scales; });
  }
};

// The C++ type of a member a field of type T binds.
template <ValueType T>
struct MemberOf;
template <>
struct MemberOf<ValueType::u32> {
  using type = std::uint32_t;
};
template <>
struct MemberOf<ValueType::u64> {
  using type = std::uint64_t;
};
template <>
struct MemberOf<ValueType::u32_list> {
  using type = std::vector<std::uint32_t>;
};
template <>
struct MemberOf<ValueType::dims> {
  using type = Shape;
};
template <>
struct MemberOf<ValueType::boolean> {
  using type = bool;
};
template <>
struct MemberOf<ValueType::float32> {
  using type = float;
};
template <>
struct MemberOf<ValueType::nullable_float32> {
  using type = std::optional<float>;
};
template <>
struct MemberOf<ValueType::gelu_approximation> {
  using type = ir::GeluApproximation;
};
template <>
struct MemberOf<ValueType::scatter_reduction> {
  using type = ir::ScatterReduction;
};
template <>
struct MemberOf<ValueType::recurrent_direction> {
  using type = ir::RecurrentDirection;
};
template <>
struct MemberOf<ValueType::sample_mode> {
  using type = ir::SampleMode;
};
template <>
struct MemberOf<ValueType::coordinate_transformation> {
  using type = ir::CoordinateTransformation;
};
template <>
struct MemberOf<ValueType::resize_nearest> {
  using type = ir::ResizeNearest;
};
template <>
struct MemberOf<ValueType::float32_list> {
  using type = std::vector<float>;
};
template <>
struct MemberOf<ValueType::grid_sample_padding> {
  using type = ir::GridSamplePadding;
};
template <>
struct MemberOf<ValueType::mask> {
  using type = ir::MaskParams;
};

// Whether member type M fits a field of type `type`.
template <class M>
constexpr bool member_fits(ValueType type) {
  switch (type) {
    case ValueType::u32:
      return std::is_same_v<M, MemberOf<ValueType::u32>::type>;
    case ValueType::u64:
      return std::is_same_v<M, MemberOf<ValueType::u64>::type>;
    case ValueType::u32_list:
      return std::is_same_v<M, MemberOf<ValueType::u32_list>::type>;
    case ValueType::dims:
      return std::is_same_v<M, MemberOf<ValueType::dims>::type>;
    case ValueType::boolean:
      return std::is_same_v<M, MemberOf<ValueType::boolean>::type>;
    case ValueType::float32:
      return std::is_same_v<M, MemberOf<ValueType::float32>::type>;
    case ValueType::nullable_float32:
      return std::is_same_v<M, MemberOf<ValueType::nullable_float32>::type>;
    case ValueType::gelu_approximation:
      return std::is_same_v<M, MemberOf<ValueType::gelu_approximation>::type>;
    case ValueType::scatter_reduction:
      return std::is_same_v<M, MemberOf<ValueType::scatter_reduction>::type>;
    case ValueType::recurrent_direction:
      return std::is_same_v<M, MemberOf<ValueType::recurrent_direction>::type>;
    case ValueType::sample_mode:
      return std::is_same_v<M, MemberOf<ValueType::sample_mode>::type>;
    case ValueType::coordinate_transformation:
      return std::is_same_v<M, MemberOf<ValueType::coordinate_transformation>::type>;
    case ValueType::resize_nearest:
      return std::is_same_v<M, MemberOf<ValueType::resize_nearest>::type>;
    case ValueType::float32_list:
      return std::is_same_v<M, MemberOf<ValueType::float32_list>::type>;
    case ValueType::grid_sample_padding:
      return std::is_same_v<M, MemberOf<ValueType::grid_sample_padding>::type>;
    case ValueType::mask:
      return std::is_same_v<M, MemberOf<ValueType::mask>::type>;
    case ValueType::string:
      break;
  }
  return false;
}

// The fields each OpParams alternative binds, as bit sets, by alternative index; and whether
// every member's type fits its field's.
struct Bound {
  std::uint64_t bits = 0;
  bool types_fit = true;
};
template <std::size_t... I>
inline constexpr std::array<Bound, sizeof...(I)> bound_fields(std::index_sequence<I...>) {
  const auto bound = [](auto tag) {
    using P = typename decltype(tag)::type;
    Bound out;
    ParamsFields<P>::each([&out](Field f, auto member) {
      using M = std::remove_cvref_t<decltype(member(std::declval<P&>()))>;
      out.bits |= bit(f);
      out.types_fit = out.types_fit && member_fits<M>(kFields[static_cast<std::size_t>(f)].type);
    });
    return out;
  };
  return {bound(std::type_identity<std::variant_alternative_t<I, ir::OpParams>>{})...};
}
inline constexpr auto kBoundFields =
    bound_fields(std::make_index_sequence<std::variant_size_v<ir::OpParams>>{});
static_assert(
    [] {
      for (std::size_t k = 0; k < ir::kOpKindCount; ++k) {
        if ((kKindFields[k].bits & ~kBoundFields[ir::kOpKindTable[k].params].bits) != 0)
          return false;
      }
      for (const Bound& b : kBoundFields) {
        if (!b.types_fit) return false;
      }
      return true;
    }(),
    "every field of a kind is a member of the kind's OpParams alternative, of the field's type");

inline std::string_view kind_name(OpKind kind) {
  return ir::to_string(kind);
}

// gelu's `approximate`, by GeluApproximation.
inline constexpr auto kGeluApproximationNames = std::to_array<std::string_view>({"none", "tanh"});
// scatter_elements' and scatter_nd's `reduction`, by ScatterReduction.
inline constexpr auto kScatterReductionNames =
    std::to_array<std::string_view>({"none", "add", "mul"});
// rnn's, gru's and lstm's `direction`, by RecurrentDirection.
inline constexpr auto kRecurrentDirectionNames =
    std::to_array<std::string_view>({"forward", "reverse", "bidirectional"});
// grid_sample's, resize's and roi_align's `mode`, by SampleMode.
inline constexpr auto kSampleModeNames =
    std::to_array<std::string_view>({"nearest", "linear", "cubic", "avg", "max"});
// grid_sample's `padding_mode`, by GridSamplePadding.
inline constexpr auto kGridSamplePaddingNames =
    std::to_array<std::string_view>({"zeros", "border", "reflection"});
// resize's `coordinate_transformation_mode` and `nearest_mode`, by CoordinateTransformation and
// ResizeNearest.
inline constexpr auto kCoordinateTransformationNames =
    std::to_array<std::string_view>({"half_pixel", "pytorch_half_pixel", "align_corners",
                                     "asymmetric", "tf_half_pixel_for_nn", "output_half_pixel"});
inline constexpr auto kResizeNearestNames =
    std::to_array<std::string_view>({"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});

// The spellings of a field whose value is one of a few strings, by enumerator; empty for a type
// that is not such an enum. The reader, the writer and the messages all read this one table.
inline std::span<const std::string_view> enum_spellings(ValueType type) {
  switch (type) {
    case ValueType::gelu_approximation:
      return kGeluApproximationNames;
    case ValueType::scatter_reduction:
      return kScatterReductionNames;
    case ValueType::recurrent_direction:
      return kRecurrentDirectionNames;
    case ValueType::sample_mode:
      return kSampleModeNames;
    case ValueType::grid_sample_padding:
      return kGridSamplePaddingNames;
    case ValueType::coordinate_transformation:
      return kCoordinateTransformationNames;
    case ValueType::resize_nearest:
      return kResizeNearestNames;
    default:
      return {};
  }
}

// "expected a non-negative integer": what a field's value must be, for messages.
inline std::string expectation(ValueType type, Field f) {
  if (const std::span<const std::string_view> names = enum_spellings(type); !names.empty()) {
    std::string out = "expected ";
    for (std::size_t i = 0; i < names.size(); ++i) {
      out += i == 0 ? "" : i + 1 == names.size() ? " or " : ", ";
      out += "'" + std::string(names[i]) + "'";
    }
    return out;
  }
  switch (type) {
    case ValueType::u32:
    case ValueType::u64:
      return "expected a non-negative integer";
    case ValueType::u32_list:
    case ValueType::dims:
    case ValueType::float32_list:
      return "expected an array";
    case ValueType::boolean:
      return "expected true or false";
    case ValueType::float32:
      return "expected a number";
    case ValueType::nullable_float32:
      return "expected a number or null";
    case ValueType::gelu_approximation:
    case ValueType::scatter_reduction:
    case ValueType::recurrent_direction:
    case ValueType::sample_mode:
    case ValueType::grid_sample_padding:
    case ValueType::coordinate_transformation:
    case ValueType::resize_nearest:
      break;  // enum_spellings
    case ValueType::mask:
      return "expected an object {\"shape\": [...], \"allowed\": [...]}";
    case ValueType::string:
      break;
  }
  if (f == Field::dtype) return "expected 'float32', 'int64' or 'bool'";
  return f == Field::name ? "expected a non-empty string" : "expected a string";
}

// ---------------------------------------------------------------------------------------------
// The document's top level.

enum class RootField : std::uint8_t { format, input_id, output_ids, output_id, nodes };
inline constexpr std::array<std::string_view, 5> kRootFieldNames = {
    "format", "input_id", "output_ids", "output_id", "nodes"};
inline constexpr std::string_view kRootFieldsText = "format, input_id, output_ids and nodes";

enum class DocumentFormat : std::uint8_t { torchlean, nnplan };

}  // namespace nnplan::format::ir_json
