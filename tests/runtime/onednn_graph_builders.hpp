// Builders of small onednn test graphs (tests/runtime/onednn_*): a conv with seeded weights and
// bias, and a node of any kind over given parents, appended to an ir::CheckedGraphBuilder; and
// whether this build has the onednn handlers at all.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "nnplan/format/payload_file.hpp"
#include "nnplan/ir/check.hpp"
#include "oracle.hpp"
#include "runtime_test_support.hpp"

namespace nnplan::runtime::testing {

// Whether the build registered the onednn handlers (NNPLAN_ONEDNN).
inline bool onednn_built() {
  return oracles::provider_built(builtin_handlers(), backend::Provider::onednn);
}

// A conv of `in` to `out_c` channels with a 3x3 (pad 1) or 1x1 kernel and a seeded weight and bias.
inline ir::NodeId conv(ir::CheckedGraphBuilder& b, ir::WeightStore& w, ir::NodeId x,
                       std::uint32_t in_c, std::uint32_t out_c, std::uint32_t k,
                       std::uint32_t stride) {
  const std::uint32_t pad = k / 2;
  auto id = b.add(ir::Node{.kind = ir::OpKind::conv,
                           .parents = {x},
                           .params = ir::ConvParams{.spatial_rank = 2,
                                                    .kernel = {k, k},
                                                    .stride = {stride, stride},
                                                    .padding = {pad, pad},
                                                    .dilation = {1, 1},
                                                    .padding_after = {pad, pad},
                                                    .groups = 1,
                                                    .in_channels = in_c,
                                                    .out_channels = out_c}});
  EXPECT_TRUE(id.has_value()) << (id ? "" : id.error().message);
  if (!id) return 0;
  // He-like scale keeps activations near unit size through the block.
  const float scale = 1.0F / static_cast<float>(k * std::max(1U, in_c / 4));
  Tensor weight = seeded_tensor(ir::Shape{{out_c, in_c, k, k}}, *id * 7 + 1, -scale, scale);
  w.tensors[{*id, "weight"}] =
      ir::WeightTensor::adopt<float>(weight.shape, std::move(weight.floats()));
  Tensor bias = seeded_tensor(ir::Shape{{out_c}}, *id * 7 + 2, -0.1F, 0.1F);
  w.tensors[{*id, "bias"}] = ir::WeightTensor::adopt<float>(bias.shape, std::move(bias.floats()));
  return *id;
}

inline ir::NodeId op(ir::CheckedGraphBuilder& b, ir::OpKind kind, std::vector<ir::NodeId> parents) {
  ir::Parents ps;
  for (ir::NodeId p : parents)
    ps.push_back(p);
  auto id = b.add(ir::Node{.kind = kind, .parents = std::move(ps)});
  EXPECT_TRUE(id.has_value()) << (id ? "" : id.error().message);
  return id ? *id : 0;
}
}  // namespace nnplan::runtime::testing
