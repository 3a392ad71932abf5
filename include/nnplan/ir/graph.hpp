// The IR graph (SPEC §6): an op-tagged DAG whose node ids equal their array index and whose
// parents have smaller ids. Each node declares its output shape and carries the parameters of its
// kind. Weights of `const`, `linear`, `conv`, `conv_transpose`, `batch_norm_eval`, `layernorm` and
// `gather` live outside the graph, in payloads keyed by node id (see format/payload_file.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "nnplan/ir/dtype.hpp"
#include "nnplan/ir/op_kind.hpp"
#include "nnplan/ir/shape.hpp"
#include "nnplan/large_memory.hpp"

namespace nnplan::ir {

using NodeId = std::uint32_t;

// A node's parents: up to two held inline (small_vector.hpp); only concat and
// scaled_dot_product_attention take more.
using Parents = SmallVector<NodeId, 2>;

// Parameters by kind; `std::monostate` for kinds without parameters.
struct ConstParams {  // const
  Shape value_shape;
  bool operator==(const ConstParams&) const = default;
};
struct PermuteParams {  // permute
  std::vector<std::uint32_t> perm;
  bool operator==(const PermuteParams&) const = default;
};
struct SeedParams {  // rand_uniform, bernoulli_mask
  std::uint64_t seed = 0;
  bool operator==(const SeedParams&) const = default;
};
struct PoolParams {  // max_pool, avg_pool (and the legacy max_pool2d, avg_pool2d and _pad forms)
  std::uint32_t spatial_rank = 2;
  // One entry per spatial axis: the window, its step, and the padding on both sides.
  std::vector<std::uint32_t> kernel;
  std::vector<std::uint32_t> stride;
  std::vector<std::uint32_t> padding;
  bool operator==(const PoolParams&) const = default;
};
// max_pool_indices: the window over the last spatial_rank axes (padding before and after each,
// dilation), and how the index of an element is counted: `storage_order` 0 row-major, 1 with the
// spatial axes column-major (ONNX's MaxPool attribute; the leading axes row-major either way).
struct MaxPoolIndicesParams {
  std::uint32_t spatial_rank = 2;
  std::vector<std::uint32_t> kernel;
  std::vector<std::uint32_t> stride;
  std::vector<std::uint32_t> padding;
  std::vector<std::uint32_t> padding_after;
  std::vector<std::uint32_t> dilation;
  std::uint32_t storage_order = 0;
  bool operator==(const MaxPoolIndicesParams&) const = default;
};
struct BroadcastParams {  // broadcast_to
  Shape from;
  Shape to;
  bool operator==(const BroadcastParams&) const = default;
};
// reduce_sum, reduce_mean, softmax, log_softmax, layernorm, concat, gather
struct AxisParams {
  std::uint32_t axis = 0;
  bool operator==(const AxisParams&) const = default;
};
struct ConvParams {  // conv, conv_transpose (and the legacy conv2d)
  std::uint32_t spatial_rank = 2;
  // One entry per spatial axis.
  std::vector<std::uint32_t> kernel;
  std::vector<std::uint32_t> stride;
  std::vector<std::uint32_t> padding;        // before each spatial axis
  std::vector<std::uint32_t> dilation;
  std::vector<std::uint32_t> padding_after;  // after each spatial axis
  std::uint32_t groups = 1;
  std::uint32_t channel_axis = 1;
  std::uint32_t in_channels = 1;
  std::uint32_t out_channels = 1;
  // conv_transpose only (one entry per spatial axis); empty for conv.
  std::vector<std::uint32_t> output_padding;
  bool operator==(const ConvParams&) const = default;
};
struct ChannelAxisParams {  // batch_norm_eval (and the legacy batch_norm2d_nchw_eval)
  std::uint32_t channel_axis = 1;
  std::uint32_t channels = 1;
  bool operator==(const ChannelAxisParams&) const = default;
};
struct ReshapeParams {  // reshape
  Shape in;
  Shape out;
  bool operator==(const ReshapeParams&) const = default;
};
struct FlattenParams {  // flatten: the parent's shape (`value_shape`)
  Shape in;
  bool operator==(const FlattenParams&) const = default;
};
struct TransposeParams {  // transpose (and the legacy swap_first_two, transpose3d_last_two)
  std::uint32_t axis1 = 0;
  std::uint32_t axis2 = 1;
  bool operator==(const TransposeParams&) const = default;
};
// hard_masked_softmax: which positions of the last axis each row may attend to. `shape` is the
// mask's shape (its trailing axes match the parent's, leading axes broadcast); `allowed` holds
// one entry per element, row-major.
struct MaskParams {
  Shape shape;
  std::vector<bool> allowed;
  bool operator==(const MaskParams&) const = default;
};
enum class GeluApproximation : std::uint8_t { none, tanh };
struct GeluParams {  // gelu
  GeluApproximation approximate = GeluApproximation::none;
  bool operator==(const GeluParams&) const = default;
};
struct ClampParams {  // clamp: either bound may be absent
  std::optional<float> min;
  std::optional<float> max;
  bool operator==(const ClampParams&) const = default;
};
struct ScaleParams {  // scale: x times `factor`
  float factor = 1.0F;
  bool operator==(const ScaleParams&) const = default;
};
// leaky_relu, elu: the coefficient of the negative side (ONNX's `alpha`).
struct AlphaParams {
  float alpha = 0.0F;
  bool operator==(const AlphaParams&) const = default;
};
// hard_sigmoid: max(0, min(1, alpha * x + beta)) (ONNX's HardSigmoid attributes).
struct HardSigmoidParams {
  float alpha = 0.2F;
  float beta = 0.5F;
  bool operator==(const HardSigmoidParams&) const = default;
};
// top_k: the indices of the `k` largest (or, with `largest` false, smallest) elements along
// `axis`, k being the declared shape's extent there.
struct TopKParams {
  std::uint32_t axis = 0;
  bool largest = true;
  bool operator==(const TopKParams&) const = default;
};
// cum_sum: running sums along `axis`; `exclusive` leaves each element out of its own sum,
// `reverse` sums from the end.
struct CumSumParams {
  std::uint32_t axis = 0;
  bool exclusive = false;
  bool reverse = false;
  bool operator==(const CumSumParams&) const = default;
};
// scatter_elements, scatter_nd: how an update meets the element it lands on (ONNX's `reduction`):
// it replaces it, is added to it, or multiplies it.
enum class ScatterReduction : std::uint8_t { none, add, mul };
// scatter_elements (`axis` the axis its indices index), scatter_nd (no axis: `axis` stays 0).
struct ScatterParams {
  std::uint32_t axis = 0;
  ScatterReduction reduction = ScatterReduction::none;
  bool operator==(const ScatterParams&) const = default;
};
// gather_nd: the number of leading axes data and indices share as a batch (ONNX's `batch_dims`).
struct GatherNdParams {
  std::uint32_t batch_dims = 0;
  bool operator==(const GatherNdParams&) const = default;
};
// rnn, gru, lstm: which way the recurrence runs over the sequence (ONNX's `direction`); a
// bidirectional node runs both and stacks them, forward first.
enum class RecurrentDirection : std::uint8_t { forward, reverse, bidirectional };
// rnn, gru, lstm: the hidden state's width and the direction; `linear_before_reset` (gru only)
// applies the reset gate after the recurrence's product instead of before it.
struct RecurrentParams {
  std::uint64_t hidden_size = 1;
  RecurrentDirection direction = RecurrentDirection::forward;
  bool linear_before_reset = false;
  bool operator==(const RecurrentParams&) const = default;
};
// The number of directions a recurrent node runs.
[[nodiscard]] constexpr std::uint64_t direction_count(RecurrentDirection d) {
  return d == RecurrentDirection::bidirectional ? 2 : 1;
}
// grid_sample, resize, roi_align: ONNX's `mode`, how the value at a point between elements is
// read (grid_sample, resize: the nearest element, or linear (bilinear, trilinear) or cubic
// interpolation of its neighbours; GridSample-16 spells the last two `bilinear` and `bicubic`,
// GridSample-20 and Resize as here) or how a bin's samples combine (roi_align: their average or
// their maximum). ir::check refuses a mode its kind does not take.
enum class SampleMode : std::uint8_t { nearest, linear, cubic, avg, max };
// grid_sample: what a tap outside the image reads (`padding_mode`).
enum class GridSamplePadding : std::uint8_t { zeros, border, reflection };
// grid_sample: `align_corners` maps -1 and 1 to the centers of the corner pixels instead of their
// outer edges.
struct GridSampleParams {
  SampleMode mode = SampleMode::linear;
  GridSamplePadding padding_mode = GridSamplePadding::zeros;
  bool align_corners = false;
  bool operator==(const GridSampleParams&) const = default;
};
// resize, roi_align: how an output index maps to a source coordinate (ONNX's
// `coordinate_transformation_mode`: resize takes the first five, tf_crop_and_resize aside;
// roi_align half_pixel, which shifts the box by half a pixel, and output_half_pixel, which does
// not).
enum class CoordinateTransformation : std::uint8_t {
  half_pixel,
  pytorch_half_pixel,
  align_corners,
  asymmetric,
  tf_half_pixel_for_nn,
  output_half_pixel
};
// resize: which neighbour a `nearest` resize reads at a coordinate between two (ONNX's
// `nearest_mode`).
enum class ResizeNearest : std::uint8_t { round_prefer_floor, round_prefer_ceil, floor, ceil };
// resize: ONNX's Resize attributes. `scales` are the per-axis factors the coordinate formulas
// divide by when the model gave them (the output extent is then floor(input * scale)); empty
// when it gave the output sizes, each axis's factor then being output / input as a real number.
struct ResizeParams {
  SampleMode mode = SampleMode::nearest;
  CoordinateTransformation coordinate_transformation_mode = CoordinateTransformation::half_pixel;
  ResizeNearest nearest_mode = ResizeNearest::round_prefer_floor;
  float cubic_coeff_a = -0.75F;
  bool exclude_outside = false;
  std::vector<float> scales;
  bool operator==(const ResizeParams&) const = default;
};
// roi_align: ONNX's RoiAlign attributes but the output's height and width, which are the declared
// shape's. `sampling_ratio` 0 samples each bin adaptively (ceil of its extent).
struct RoiAlignParams {
  SampleMode mode = SampleMode::avg;
  CoordinateTransformation coordinate_transformation_mode = CoordinateTransformation::half_pixel;
  std::uint64_t sampling_ratio = 0;
  float spatial_scale = 1.0F;
  bool operator==(const RoiAlignParams&) const = default;
};
// The gates of a recurrent kind: rnn 1, gru 3 (z, r, h), lstm 4 (i, o, f, c); 0 for any other.
[[nodiscard]] constexpr std::uint64_t recurrent_gates(OpKind kind) {
  return kind == OpKind::rnn ? 1 : kind == OpKind::gru ? 3 : kind == OpKind::lstm ? 4 : 0;
}
// slice: Python slicing `start:end:step` along `axis`, with non-negative bounds clamped to the
// extent.
struct SliceParams {
  std::uint32_t axis = 0;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t step = 1;
  bool operator==(const SliceParams&) const = default;
};
// scaled_dot_product_attention: `scale` absent means 1/sqrt(E).
struct AttentionParams {
  bool causal = false;
  std::optional<float> scale;
  bool operator==(const AttentionParams&) const = default;
};

using OpParams =
    std::variant<std::monostate, ConstParams, PermuteParams, SeedParams, PoolParams,
                 BroadcastParams, AxisParams, ConvParams, ChannelAxisParams, ReshapeParams,
                 FlattenParams, TransposeParams, MaskParams, GeluParams, ClampParams, ScaleParams,
                 SliceParams, AttentionParams, AlphaParams, TopKParams, CumSumParams, ScatterParams,
                 GatherNdParams, RecurrentParams, GridSampleParams, ResizeParams, RoiAlignParams,
                 MaxPoolIndicesParams, HardSigmoidParams>;

struct Node {
  NodeId id = 0;
  OpKind kind = OpKind::input;
  Parents parents;
  Shape shape;  // the declared output shape
  OpParams params;
  // The declared element type of the output (SPEC §6): float32 unless a node says otherwise;
  // ir::check infers it from the parents, except for `input` and `const`, whose dtype is theirs.
  DType dtype = DType::float32;
  // The name of the node in the model it came from (an ONNX node name); empty when none.
  std::string source_name;

  bool operator==(const Node&) const = default;
};

// The node array: past 2 MiB (about ten thousand nodes) it sits in huge pages
// (large_memory.hpp), so building a large graph does not fault in one 4 KiB page at a time.
using Nodes = std::vector<Node, LargeAllocator<Node>>;

struct Graph {
  NodeId input_id = 0;
  // The graph's outputs, in order: one or more node ids (a node may be listed more than once).
  std::vector<NodeId> output_ids;
  Nodes nodes;

  bool operator==(const Graph&) const = default;
};

// `node 7 (conv)` or `node 7 (conv 'model/conv1')`: how messages name a node.
[[nodiscard]] std::string describe(const Node& node);

}  // namespace nnplan::ir
