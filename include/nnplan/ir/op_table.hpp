// The op-kind table (SPEC §6): one row of traits per IR op kind, built from op_kinds.def, so
// every layer asks the table instead of switching over kinds. A row gives the kind's spelling,
// arity, OpParams alternative, the JSON fields of its parameters (format/ir_json), the payloads
// it takes (format/payload_file) and the rule that infers its shape (ir/check). The backend op
// of each kind is read from the same rows by backend/op_mapping.cpp, so the ir layer depends on
// nothing but the standard library.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <variant>

#include "nnplan/ir/graph.hpp"
#include "nnplan/ir/op_kind.hpp"

namespace nnplan::ir {

// How a kind's output dtype follows from its parents' (SPEC §6; ir/check.cpp's dtype rule).
enum class DTypeRule : std::uint8_t {
  declared,    // the node's own declaration (input, const; cast, whose parent may be any dtype)
  as_parent,   // parent 0's dtype, whatever it is (reshape, flatten)
  float32,     // float32 parents make float32
  indices,     // float32 parents make int64 indices (argmax, argmin)
  comparison,  // parents of one dtype, any, make bool (equal, less, ...)
  logical,     // bool parents make bool (and, or, xor, not)
  select,      // a bool condition and two values of one dtype make that dtype (where)
  arithmetic,  // parents of one dtype, float32 or int64, make that dtype (fmod, cum_sum); int64
               // only (mod)
  scatter,     // data of any dtype, int64 indices, updates of the data's dtype make the data's
  indexed,     // data of any dtype and int64 indices make the data's dtype (gather_elements,
               // gather_nd, gather by value); one float32 parent makes float32 (gather by payload)
  batch_indexed,  // float32 values and a last parent of int64 batch indices make float32
                  // (roi_align)
};

// The shape-inference families: each infers a node's output shape from its parents, parameters
// and (where said) its declared shape. ir/check.cpp holds one function per family.
enum class ShapeRule : std::uint8_t {
  declared,            // the declared shape (input, rand_uniform)
  const_value,         // the value_shape parameter
  keep_probability,    // a scalar parent; the declared shape
  same_as_parent,      // element-wise unary: the parent's shape
  elementwise_binary,  // two parents of one shape (broadcasting is explicit): that shape
  scalar_epsilon,      // safe_log: x and a scalar epsilon; the shape of x
  paired_to_scalar,    // two parents of one shape: a scalar (a loss)
  conv,                // a window over the spatial axes after channel_axis: in to out channels
  conv_transpose,      // the transposed window: each spatial axis grows
  pool,                // a window over the last spatial_rank axes, symmetric padding
  broadcast,           // from one shape to a larger one
  reduce_axis,         // the parent's shape without `axis`
  reduce_all,          // a scalar
  matmul,              // torch.matmul: batch axes broadcast, rank-1 operands promoted
  linear,              // the parent's shape with the declared last dimension
  batch_norm,          // the parent's shape, channel_axis of extent `channels`
  along_axis,          // the parent's shape, `axis` in range (softmax, log_softmax, layernorm)
  masked_softmax,      // the parent's shape; the mask broadcasts to it
  reshape,             // in_shape to out_shape, same element count
  flatten,             // value_shape to one dimension
  concat,              // the parents joined along `axis`
  permute,             // the dimensions reordered by `perm`
  transpose,           // axis1 and axis2 swapped
  slice,               // `axis` cut to start:end:step
  gather,              // the declared shape: `axis` replaced by the indices' shape
  attention,           // q (..., L, E), k (..., S, E), v (..., S, Ev) to (..., L, Ev)
  broadcast_operands,  // every parent's shape broadcast together as numpy does (equal, where)
  gather_elements,     // the indices' shape: data and indices of one rank, `axis` below it, each
                       // other axis of the indices at most the data's
  scatter_elements,    // the data's shape: indices of its rank (each axis but `axis` at most the
                       // data's), updates of the indices' shape
  scatter_nd,          // the data's shape: indices (..., k), k at most the data's rank, updates of
                       // the indices' leading shape then the data's from axis k
  gather_nd,           // indices (..., k) over the data after batch_dims shared leading axes: the
                       // indices' leading shape, then the data's from axis batch_dims + k
  top_k,               // the declared shape: the parent's with `axis` cut to k (at most its extent)
  recurrent,           // X [seq, batch, input] to Y [seq, directions, batch, hidden]; initial
                       // states [directions, batch, hidden]
  grid_sample,         // X [N, C, H, W] and grid [N, H_out, W_out, 2] to [N, C, H_out, W_out]
  max_unpool,          // the declared shape: X's rank, N and C; the indices of X's shape
  resize,              // the declared shape: the parent's rank; floor(input * scale) on each
                       // axis when `scales` are given; no empty axis made larger
  roi_align,           // the declared shape: X [N, C, H, W], rois [R, 4] and batch indices [R]
                       // to [R, C, output_height, output_width]
  max_pool_indices,    // a dilated window over the last spatial_rank axes, padding before and
                       // after
};

// Whether the rule reads the node's own declared shape (the builder then infers into another
// buffer and keeps the declared shape in the node while it does).
[[nodiscard]] constexpr bool reads_declared_shape(ShapeRule rule) {
  return rule == ShapeRule::declared || rule == ShapeRule::keep_probability ||
         rule == ShapeRule::linear || rule == ShapeRule::gather || rule == ShapeRule::top_k ||
         rule == ShapeRule::max_unpool || rule == ShapeRule::resize || rule == ShapeRule::roi_align;
}

// How the shape of a payload tensor follows from its node (format/payload_file.cpp).
enum class PayloadShape : std::uint8_t {
  none,                   // an attribute: a number, no shape
  value_shape,            // const: the value_shape parameter
  linear_weight,          // [out, in]: out the declared last dimension, in the parent's last
  linear_bias,            // [out]
  conv_weight,            // [outC, inC/groups, kernel...]
  conv_transpose_weight,  // [inC, outC/groups, kernel...]
  conv_bias,              // [outC]
  channels,               // [channels]
  normalized,             // layernorm: the parent's shape from `axis` on
  gather_indices,         // gather (int64): the declared shape's axes from `axis` that replace it
  recurrent_weight,       // rnn, gru, lstm: [directions, gates * hidden, input]
  recurrent_recurrence,   // [directions, gates * hidden, hidden]
  recurrent_bias,         // [directions, 2 * gates * hidden]
};

// One payload a node of some kind takes from a payload file.
struct PayloadSlot {
  std::string_view name;
  bool attribute = false;  // a number in `attributes` rather than a tensor
  bool int64 = false;      // an int64 tensor rather than float32
  bool required = true;
  PayloadShape shape = PayloadShape::none;  // none exactly for attributes
  // The parent that may stand in for the payload (SPEC §6, weights as values): a node with that
  // parent takes the tensor from it and must have no payload in the slot; 0 when none may.
  std::size_t value_parent = 0;
};

// Whether a node with `parents` parents takes `slot` from its value parent instead of a payload.
[[nodiscard]] constexpr bool given_as_value(const PayloadSlot& slot, std::size_t parents) {
  return slot.value_parent != 0 && parents > slot.value_parent;
}

// Whether a node of `kind` with `parents` parents takes any payload slot from a value parent.
[[nodiscard]] constexpr bool takes_weights_as_values(std::span<const PayloadSlot> slots,
                                                     std::size_t parents) {
  for (const PayloadSlot& slot : slots) {
    if (given_as_value(slot, parents)) return true;
  }
  return false;
}

// The index of T among the OpParams alternatives, computed from the variant so the two cannot
// drift; the variant's size when T is not an alternative.
template <class T, class Variant>
struct AlternativeIndex;
template <class T, class... Ts>
struct AlternativeIndex<T, std::variant<Ts...>> {
  static constexpr std::size_t value = [] {
    constexpr std::array<bool, sizeof...(Ts)> matches = {std::is_same_v<T, Ts>...};
    for (std::size_t i = 0; i < matches.size(); ++i) {
      if (matches[i]) return i;
    }
    return matches.size();
  }();
};
template <class T>
inline constexpr std::size_t kParamsIndex = AlternativeIndex<T, OpParams>::value;

// The columns op_kinds.def names: parameter fields in the order the writer emits them (SPEC §6's
// signatures) and payload slots in canonical order.
namespace op_columns {
inline constexpr std::array<std::string_view, 0> kNoFields{};
inline constexpr auto kConstFields = std::to_array<std::string_view>({"value_shape"});
inline constexpr auto kPermuteFields = std::to_array<std::string_view>({"perm"});
inline constexpr auto kSeedFields = std::to_array<std::string_view>({"seed"});
inline constexpr auto kPoolFields =
    std::to_array<std::string_view>({"spatial_rank", "kernel", "stride", "padding"});
inline constexpr auto kBroadcastFields =
    std::to_array<std::string_view>({"from_shape", "to_shape"});
inline constexpr auto kAxisFields = std::to_array<std::string_view>({"axis"});
inline constexpr auto kConvFields = std::to_array<std::string_view>(
    {"spatial_rank", "kernel", "stride", "padding", "dilation", "padding_after", "groups",
     "channel_axis", "in_channels", "out_channels"});
inline constexpr auto kConvTransposeFields = std::to_array<std::string_view>(
    {"spatial_rank", "kernel", "stride", "padding", "dilation", "padding_after", "groups",
     "channel_axis", "in_channels", "out_channels", "output_padding"});
inline constexpr auto kChannelAxisFields =
    std::to_array<std::string_view>({"channel_axis", "channels"});
inline constexpr auto kReshapeFields = std::to_array<std::string_view>({"in_shape", "out_shape"});
inline constexpr auto kFlattenFields = std::to_array<std::string_view>({"value_shape"});
inline constexpr auto kTransposeFields = std::to_array<std::string_view>({"axis1", "axis2"});
inline constexpr auto kMaskFields = std::to_array<std::string_view>({"mask"});
inline constexpr auto kGeluFields = std::to_array<std::string_view>({"approximate"});
inline constexpr auto kClampFields = std::to_array<std::string_view>({"min", "max"});
inline constexpr auto kScaleFields = std::to_array<std::string_view>({"factor"});
inline constexpr auto kSliceFields =
    std::to_array<std::string_view>({"axis", "start", "end", "step"});
inline constexpr auto kAttentionFields = std::to_array<std::string_view>({"causal", "scale"});
inline constexpr auto kAlphaFields = std::to_array<std::string_view>({"alpha"});
inline constexpr auto kHardSigmoidFields = std::to_array<std::string_view>({"alpha", "beta"});
inline constexpr auto kTopKFields = std::to_array<std::string_view>({"axis", "largest"});
inline constexpr auto kScatterElementsFields =
    std::to_array<std::string_view>({"axis", "reduction"});
inline constexpr auto kScatterNdFields = std::to_array<std::string_view>({"reduction"});
inline constexpr auto kGatherNdFields = std::to_array<std::string_view>({"batch_dims"});
inline constexpr auto kCumSumFields =
    std::to_array<std::string_view>({"axis", "exclusive", "reverse"});

inline constexpr auto kRecurrentFields =
    std::to_array<std::string_view>({"hidden_size", "direction"});
inline constexpr auto kGruFields =
    std::to_array<std::string_view>({"hidden_size", "direction", "linear_before_reset"});

inline constexpr auto kGridSampleFields =
    std::to_array<std::string_view>({"mode", "padding_mode", "align_corners"});

inline constexpr auto kMaxPoolIndicesFields = std::to_array<std::string_view>(
    {"spatial_rank", "kernel", "stride", "padding", "padding_after", "dilation", "storage_order"});

inline constexpr auto kRoiAlignFields = std::to_array<std::string_view>(
    {"mode", "coordinate_transformation_mode", "sampling_ratio", "spatial_scale"});

inline constexpr auto kResizeFields =
    std::to_array<std::string_view>({"mode", "coordinate_transformation_mode", "nearest_mode",
                                     "cubic_coeff_a", "exclude_outside", "scales"});

inline constexpr std::array<PayloadSlot, 0> kNoPayloads{};
inline constexpr auto kConstPayloads = std::to_array<PayloadSlot>({
    {.name = "value", .shape = PayloadShape::value_shape},
});
inline constexpr auto kLinearPayloads = std::to_array<PayloadSlot>({
    {.name = "weight", .shape = PayloadShape::linear_weight},
    {.name = "bias", .required = false, .shape = PayloadShape::linear_bias},
});
// A conv's weight and bias may be its parents 1 and 2 instead (SPEC §6, weights as values).
inline constexpr auto kConvPayloads = std::to_array<PayloadSlot>({
    {.name = "weight", .shape = PayloadShape::conv_weight, .value_parent = 1},
    {.name = "bias", .required = false, .shape = PayloadShape::conv_bias, .value_parent = 2},
});
inline constexpr auto kConvTransposePayloads = std::to_array<PayloadSlot>({
    {.name = "weight", .shape = PayloadShape::conv_transpose_weight, .value_parent = 1},
    {.name = "bias", .required = false, .shape = PayloadShape::conv_bias, .value_parent = 2},
});
inline constexpr auto kLayerNormPayloads = std::to_array<PayloadSlot>({
    {.name = "gamma", .required = false, .shape = PayloadShape::normalized},
    {.name = "beta", .required = false, .shape = PayloadShape::normalized},
    {.name = "epsilon", .attribute = true, .required = false},
});
inline constexpr auto kGatherPayloads = std::to_array<PayloadSlot>({
    {.name = "indices", .int64 = true, .shape = PayloadShape::gather_indices, .value_parent = 1},
});
// The statistics may be parents 1 to 4 instead (weights as values); epsilon stays an attribute.
inline constexpr auto kBatchNormPayloads = std::to_array<PayloadSlot>({
    {.name = "scale", .shape = PayloadShape::channels, .value_parent = 1},
    {.name = "bias", .shape = PayloadShape::channels, .value_parent = 2},
    {.name = "mean", .shape = PayloadShape::channels, .value_parent = 3},
    {.name = "var", .shape = PayloadShape::channels, .value_parent = 4},
    {.name = "epsilon", .attribute = true},
});
inline constexpr auto kRecurrentPayloads = std::to_array<PayloadSlot>({
    {.name = "weight", .shape = PayloadShape::recurrent_weight},
    {.name = "recurrence", .shape = PayloadShape::recurrent_recurrence},
    {.name = "bias", .required = false, .shape = PayloadShape::recurrent_bias},
});
}  // namespace op_columns

// Where a kind comes from: TorchLean's current vocabulary, or nnplan's extensions (a graph that
// uses one is written as nnplan.ir.v1).
enum class KindOrigin : std::uint8_t { torchlean, nnplan };

// Everything known about one op kind.
struct OpKindTraits {
  OpKind kind = OpKind::input;
  std::string_view spelling;
  KindOrigin origin = KindOrigin::torchlean;
  Arity arity;
  std::size_t params = 0;                    // the OpParams alternative (an index)
  std::span<const std::string_view> fields;  // JSON fields of the parameters, in written order
  std::span<const PayloadSlot> payloads;     // payloads taken from a payload file
  ShapeRule shape_rule = ShapeRule::declared;
  DTypeRule dtype_rule = DTypeRule::float32;
};

// One row per kind, in enumerator order.
inline constexpr auto kOpKindTable = std::to_array<OpKindTraits>({
#define NNPLAN_OP_KIND(enumerator, spelling_, origin_, min, max, Params, fields_, payloads_, rule, \
                       dtype_rule_, backend)                                                       \
  {.kind = OpKind::enumerator,                                                                     \
   .spelling = spelling_,                                                                          \
   .origin = KindOrigin::origin_,                                                                  \
   .arity = {min, max},                                                                            \
   .params = kParamsIndex<Params>,                                                                 \
   .fields = op_columns::fields_,                                                                  \
   .payloads = op_columns::payloads_,                                                              \
   .shape_rule = ShapeRule::rule,                                                                  \
   .dtype_rule = DTypeRule::dtype_rule_},
#include "nnplan/ir/op_kinds.def"
});
static_assert(kOpKindTable.size() == kOpKindCount);
static_assert([] {
  for (std::size_t i = 0; i < kOpKindTable.size(); ++i) {
    const OpKindTraits& row = kOpKindTable[i];
    if (static_cast<std::size_t>(row.kind) != i || row.spelling != kOpKindNames[i]) return false;
    if (row.params >= std::variant_size_v<OpParams> || row.arity.min > row.arity.max) return false;
  }
  return true;
}());

// The row of a value outside the enum (a cast, never a parse): spelled "<invalid>", no parents,
// no parameters, fields or payloads. check() rejects such a node before it reads any column.
inline constexpr OpKindTraits kInvalidOpKindTraits = {.spelling = kInvalidEnumName};

// The row of `kind`; kInvalidOpKindTraits for a value outside the enum.
[[nodiscard]] constexpr const OpKindTraits& op_traits(OpKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  return index < kOpKindTable.size() ? kOpKindTable[index] : kInvalidOpKindTraits;
}

}  // namespace nnplan::ir
