// TorchLean's legacy kinds (conv2d, max_pool2d, ...): each one's op fields and how they become
// the parameters of the current kind it stands for. The reader (ir_json_reader.cpp) reads a
// legacy node's fields into a RawNode and calls its `convert`; the writer never writes one.
#include <string>

#include "ir_json_raw_node.hpp"

namespace nnplan::format::ir_json {
namespace {

// conv2d: a 2-D window with equal strides and symmetric padding. Legacy conv2d took (C,H,W) or
// (N,C,H,W): the channel axis is third from last when the parent's shape is known, else 1.
ir::OpParams legacy_conv2d(RawNode& raw, const ir::Graph& so_far) {
  const std::uint32_t s = raw.u32(Field::stride);
  const std::uint32_t p = raw.u32(Field::padding);
  std::uint32_t channel_axis = 1;
  const auto& parents = raw.u32s(Field::parents);
  if (!parents.empty() && parents[0] < so_far.nodes.size()) {
    const std::size_t rank = so_far.nodes[parents[0]].shape.rank();
    if (rank >= 3) channel_axis = static_cast<std::uint32_t>(rank - 3);
  }
  return ir::ConvParams{.spatial_rank = 2,
                        .kernel = {raw.u32(Field::kh), raw.u32(Field::kw)},
                        .stride = {s, s},
                        .padding = {p, p},
                        .dilation = {1, 1},
                        .padding_after = {p, p},
                        .groups = 1,
                        .channel_axis = channel_axis,
                        .in_channels = raw.u32(Field::in_c),
                        .out_channels = raw.u32(Field::out_c)};
}
// max_pool2d, avg_pool2d (padding 0) and their _pad forms: a 2-D window over the last two axes.
ir::OpParams legacy_pool2d(RawNode& raw, const ir::Graph& /*so_far*/) {
  const std::uint32_t s = raw.u32(Field::stride);
  const std::uint32_t p = raw.has(Field::padding) ? raw.u32(Field::padding) : 0;
  return ir::PoolParams{.spatial_rank = 2,
                        .kernel = {raw.u32(Field::kh), raw.u32(Field::kw)},
                        .stride = {s, s},
                        .padding = {p, p}};
}
ir::OpParams legacy_batch_norm(RawNode& raw, const ir::Graph& /*so_far*/) {
  return ir::ChannelAxisParams{.channel_axis = 1, .channels = raw.u32(Field::channels)};
}
ir::OpParams legacy_swap_first_two(RawNode& /*raw*/, const ir::Graph& /*so_far*/) {
  return ir::TransposeParams{.axis1 = 0, .axis2 = 1};
}
ir::OpParams legacy_transpose_last_two(RawNode& /*raw*/, const ir::Graph& /*so_far*/) {
  return ir::TransposeParams{.axis1 = 1, .axis2 = 2};
}

constexpr auto kLegacyKinds = std::to_array<LegacyKind>({
    {"conv2d", OpKind::conv, kLegacyConvFields, &legacy_conv2d},
    {"max_pool2d", OpKind::max_pool, kLegacyPoolFields, &legacy_pool2d},
    {"max_pool2d_pad", OpKind::max_pool, kLegacyPaddedPoolFields, &legacy_pool2d},
    {"avg_pool2d", OpKind::avg_pool, kLegacyPoolFields, &legacy_pool2d},
    {"avg_pool2d_pad", OpKind::avg_pool, kLegacyPaddedPoolFields, &legacy_pool2d},
    {"batch_norm2d_nchw_eval", OpKind::batch_norm_eval, kLegacyChannelsFields, &legacy_batch_norm},
    {"swap_first_two", OpKind::transpose, kLegacyNoFields, &legacy_swap_first_two},
    {"transpose3d_last_two", OpKind::transpose, kLegacyNoFields, &legacy_transpose_last_two},
});
static_assert([] {
  for (const LegacyKind& legacy : kLegacyKinds) {
    for (const std::string_view current : ir::kOpKindNames) {
      if (legacy.spelling == current) return false;
    }
  }
  return true;
}());

}  // namespace

const LegacyKind* find_legacy_kind(std::string_view spelling) {
  for (const LegacyKind& legacy : kLegacyKinds) {
    if (legacy.spelling == spelling) return &legacy;
  }
  return nullptr;
}

std::string legacy_kind_names() {
  std::string out;
  for (const LegacyKind& legacy : kLegacyKinds) {
    if (!out.empty()) out += ", ";
    out += legacy.spelling;
  }
  return out;
}

}  // namespace nnplan::format::ir_json
