// Fusion keeps the values (SPEC §7, §12): a model planned under fast_cpu with its `fused`
// lowering and the same model under fast_cpu with `coalesced` lowering (every node its own
// onednn command) give the same outputs within kTolerance, and both agree with the reference
// provider (checked_cpu) within it; on examples/cnn.json and on generated ResNet-like blocks
// (an identity shortcut, and a strided block whose shortcut is a 1x1 conv), whose fused plans
// must hold the conv_relu and conv_add_relu groups. Skipped in a build without the onednn
// handlers. The ONNX corpus under fast_cpu is in onnx_conformance_run_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nnplan/backend/profile.hpp"
#include "nnplan/runtime/executor.hpp"
#include "onednn_graph_builders.hpp"
#include "oracle.hpp"
#include "runtime_test_support.hpp"

namespace nnplan::runtime {
namespace {

using backend::MaintainedProfile;
using ir::OpKind;
using testing::conv;
using testing::onednn_built;
using testing::op;
using testing::seeded_tensor;

// Fused and separate oneDNN primitives round the same sums in different orders (post-ops act
// on the accumulator), so values agree to rounding, measured against each output's scale.
constexpr oracles::Tolerance kTolerance{.abs = 1e-5, .rel = 1e-4, .norm = 1e-5};

backend::BackendProfile coalesced_fast_cpu() {
  auto p = backend::apply_overrides(backend::make_profile(MaintainedProfile::fast_cpu),
                                    {.lowering = backend::LoweringMode::coalesced});
  EXPECT_TRUE(p.has_value());
  return p ? *p : backend::make_profile(MaintainedProfile::fast_cpu);
}

std::vector<std::string> fused_capsules(const backend::PlannedModel& model) {
  std::vector<std::string> names;
  for (const backend::LoweredKernelGroup& g : model.lowering().groups) {
    if (g.grouping == backend::GroupingKind::fused) {
      names.push_back(model.lowering().capsule(g).name);
    }
  }
  return names;
}

std::size_t onednn_groups(const backend::PlannedModel& model) {
  return static_cast<std::size_t>(
      std::ranges::count_if(model.lowering().groups, [&](const backend::LoweredKernelGroup& g) {
        return model.lowering().capsule(g).provider == backend::Provider::onednn;
      }));
}

std::vector<Tensor> run(const std::shared_ptr<const backend::PlannedModel>& model,
                        const std::vector<NamedTensor>& inputs) {
  auto buffer = testing::compiled(model);
  if (!buffer) return {};
  Executor exec(std::move(*buffer));
  auto outputs = exec.run(inputs);
  EXPECT_TRUE(outputs.has_value()) << render(outputs.error());
  return outputs ? std::move(*outputs) : std::vector<Tensor>{};
}

void expect_close(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                  const std::string& what) {
  ASSERT_FALSE(want.empty()) << what;
  const oracles::Comparison cmp = oracles::compare(got, want, kTolerance);
  EXPECT_TRUE(cmp.passed) << what << ": " << cmp.problem << " output " << cmp.output << " element "
                          << cmp.element << ": " << cmp.got << " vs " << cmp.want << " (error "
                          << cmp.error << ", allowed " << cmp.allowed << ")";
}

// Runs `graph` fused, coalesced and under the reference on the same seeded inputs; returns the
// fused plan's fused capsule names.
std::vector<std::string> check_fusion_keeps_values(std::shared_ptr<const ir::CheckedGraph> graph,
                                                   std::shared_ptr<const ir::WeightStore> weights) {
  auto fused = testing::planned(backend::make_profile(MaintainedProfile::fast_cpu), graph, weights);
  auto separate = testing::planned(coalesced_fast_cpu(), graph, weights);
  auto reference = testing::planned_cpu(graph, weights);
  if (!fused || !separate || !reference) return {};
  EXPECT_TRUE(fused_capsules(*separate).empty());
  EXPECT_GT(onednn_groups(*separate), 0U) << "the unfused plan runs no onednn capsule";
  for (std::uint64_t seed : {1U, 2U, 3U}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::vector<NamedTensor> inputs;
    for (const ir::Node& n : graph->graph().nodes) {
      if (n.kind != OpKind::input) continue;
      inputs.push_back({n.source_name.empty() ? "input" : n.source_name,
                        seeded_tensor(n.shape, seed + n.id * 100, -2.0F, 2.0F)});
    }
    const std::vector<Tensor> a = run(fused, inputs);
    const std::vector<Tensor> b = run(separate, inputs);
    const std::vector<Tensor> r = run(reference, inputs);
    expect_close(a, b, "fused vs coalesced");
    expect_close(a, r, "fused vs reference");
    expect_close(b, r, "coalesced vs reference");
  }
  return fused_capsules(*fused);
}

TEST(OnednnConformance, CnnExampleFusedAndUnfusedAgree) {
  if (!onednn_built()) GTEST_SKIP() << "this build has no onednn handlers";
  auto loaded = testing::load(testing::example_path("cnn.json"));
  ASSERT_TRUE(loaded.has_value());
  // conv, batch_norm, relu: the batch norm sits between conv and relu, so the conv runs alone
  // and the batch norm takes the relu.
  EXPECT_EQ(check_fusion_keeps_values(loaded->graph, loaded->payloads),
            std::vector<std::string>{"onednn.batch_norm_relu"});
}

// x [1,16,12,12] -> conv3x3 -> relu -> conv3x3 -> add(x) -> relu, then (downsampling) conv3x3
// stride 2 -> relu -> conv3x3 -> add(conv1x1 stride 2 of the block's input) -> relu.
TEST(OnednnConformance, ResNetBlocksFusedAndUnfusedAgree) {
  if (!onednn_built()) GTEST_SKIP() << "this build has no onednn handlers";
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  auto x = b.add(
      ir::Node{.kind = OpKind::input, .shape = ir::Shape{{1, 16, 12, 12}}, .source_name = "x"});
  ASSERT_TRUE(x.has_value());
  const ir::NodeId c1 = conv(b, w, *x, 16, 16, 3, 1);
  const ir::NodeId r1 = op(b, OpKind::relu, {c1});
  const ir::NodeId c2 = conv(b, w, r1, 16, 16, 3, 1);
  const ir::NodeId s1 = op(b, OpKind::add, {c2, *x});
  const ir::NodeId block1 = op(b, OpKind::relu, {s1});
  const ir::NodeId c3 = conv(b, w, block1, 16, 32, 3, 2);
  const ir::NodeId r3 = op(b, OpKind::relu, {c3});
  const ir::NodeId shortcut = conv(b, w, block1, 16, 32, 1, 2);
  const ir::NodeId c4 = conv(b, w, r3, 32, 32, 3, 1);
  const ir::NodeId s2 = op(b, OpKind::add, {shortcut, c4});
  const ir::NodeId block2 = op(b, OpKind::relu, {s2});
  auto checked = std::move(b).finish(*x, {block2});
  ASSERT_TRUE(checked.has_value()) << checked.error().message;
  std::vector<std::string> fused =
      check_fusion_keeps_values(std::make_shared<const ir::CheckedGraph>(std::move(*checked)),
                                std::make_shared<const ir::WeightStore>(std::move(w)));
  std::ranges::sort(fused);
  // c1+r1, c3+r3: conv_relu; c2+s1+relu, and one conv of the second add with it: conv_add_relu.
  EXPECT_EQ(fused, (std::vector<std::string>{"onednn.conv_add_relu", "onednn.conv_add_relu",
                                             "onednn.conv_relu", "onednn.conv_relu"}));
}

// An EfficientNet MBConv block as its ONNX export writes it: x [1,8,10,10] -> conv1x1 to 16 ->
// SiLU (mul(v, sigmoid(v))) -> conv3x3 -> SiLU -> squeeze-excite (global average pool, conv1x1
// to 4, SiLU, conv1x1 to 16, sigmoid, broadcast back, mul) -> conv1x1 to 8 -> add(x).
TEST(OnednnConformance, MbConvBlockFusedAndUnfusedAgree) {
  if (!onednn_built()) GTEST_SKIP() << "this build has no onednn handlers";
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  auto x = b.add(
      ir::Node{.kind = OpKind::input, .shape = ir::Shape{{1, 8, 10, 10}}, .source_name = "x"});
  ASSERT_TRUE(x.has_value());
  const auto silu = [&](ir::NodeId v) {
    return op(b, OpKind::mul_elem, {v, op(b, OpKind::sigmoid, {v})});
  };
  const ir::NodeId expanded = silu(conv(b, w, *x, 8, 16, 1, 1));
  const ir::NodeId mixed = silu(conv(b, w, expanded, 16, 16, 3, 1));
  auto pooled = b.add(
      ir::Node{.kind = OpKind::avg_pool,
               .parents = {mixed},
               .params = ir::PoolParams{
                   .spatial_rank = 2, .kernel = {10, 10}, .stride = {1, 1}, .padding = {0, 0}}});
  ASSERT_TRUE(pooled.has_value()) << pooled.error().message;
  const ir::NodeId squeezed = silu(conv(b, w, *pooled, 16, 4, 1, 1));
  const ir::NodeId gate = op(b, OpKind::sigmoid, {conv(b, w, squeezed, 4, 16, 1, 1)});
  auto wide = b.add(ir::Node{.kind = OpKind::broadcast_to,
                             .parents = {gate},
                             .params = ir::BroadcastParams{.from = ir::Shape{{1, 16, 1, 1}},
                                                           .to = ir::Shape{{1, 16, 10, 10}}}});
  ASSERT_TRUE(wide.has_value()) << wide.error().message;
  const ir::NodeId scaled = op(b, OpKind::mul_elem, {mixed, *wide});
  const ir::NodeId out = op(b, OpKind::add, {conv(b, w, scaled, 16, 8, 1, 1), *x});
  auto checked = std::move(b).finish(*x, {out});
  ASSERT_TRUE(checked.has_value()) << checked.error().message;
  std::vector<std::string> fused =
      check_fusion_keeps_values(std::make_shared<const ir::CheckedGraph>(std::move(*checked)),
                                std::make_shared<const ir::WeightStore>(std::move(w)));
  std::ranges::sort(fused);
  EXPECT_EQ(fused, (std::vector<std::string>{"onednn.broadcast_mul", "onednn.sigmoid_mul",
                                             "onednn.sigmoid_mul", "onednn.sigmoid_mul"}));
}

// x [1,8,6,6] -> v = conv3x3(x); conv1x1(mul(`other`(x, v), sigmoid(v))), where `other` builds
// the gate's other operand. Checks that the gate fuses into onednn.sigmoid_mul and agrees with the
// unfused plan and the reference, and that its command's output takes input 0's buffer over (v
// dies there, and the mul's value is an arena value of its size); returns that command's inputs.
std::vector<ValueSlot> check_gate_in_place(
    const std::function<ir::NodeId(ir::CheckedGraphBuilder&, ir::WeightStore&, ir::NodeId,
                                   ir::NodeId)>& other) {
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  auto x =
      b.add(ir::Node{.kind = OpKind::input, .shape = ir::Shape{{1, 8, 6, 6}}, .source_name = "x"});
  EXPECT_TRUE(x.has_value());
  if (!x) return {};
  const ir::NodeId v = conv(b, w, *x, 8, 8, 3, 1);
  const ir::NodeId operand = other(b, w, *x, v);
  const ir::NodeId gated = op(b, OpKind::mul_elem, {operand, op(b, OpKind::sigmoid, {v})});
  const ir::NodeId out = conv(b, w, gated, 8, 8, 1, 1);
  auto checked = std::move(b).finish(*x, {out});
  EXPECT_TRUE(checked.has_value()) << (checked ? "" : checked.error().message);
  if (!checked) return {};
  auto graph = std::make_shared<const ir::CheckedGraph>(std::move(*checked));
  auto weights = std::make_shared<const ir::WeightStore>(std::move(w));
  EXPECT_EQ(check_fusion_keeps_values(graph, weights),
            std::vector<std::string>{"onednn.sigmoid_mul"});
  auto buffer = testing::compiled(
      testing::planned(backend::make_profile(MaintainedProfile::fast_cpu), graph, weights));
  EXPECT_TRUE(buffer.has_value());
  if (!buffer) return {};
  const auto gate = std::ranges::find_if(buffer->commands(), [&](const Command& c) {
    return buffer->capsule(c).name == "onednn.sigmoid_mul";
  });
  EXPECT_NE(gate, buffer->commands().end());
  if (gate == buffer->commands().end()) return {};
  EXPECT_EQ(gate->output.home, ValueHome::arena);
  EXPECT_EQ(gate->inputs[0].home, ValueHome::arena);
  EXPECT_EQ(gate->output.index, gate->inputs[0].index) << "not in place";
  return gate->inputs;
}

// A sigmoid gate of another value (a GLU): the logistic runs in place over v, then the mul
// multiplies the output by conv1x1(x).
TEST(OnednnConformance, SigmoidGateFusedAndUnfusedAgree) {
  if (!onednn_built()) GTEST_SKIP() << "this build has no onednn handlers";
  const auto inputs =
      check_gate_in_place([](ir::CheckedGraphBuilder& b, ir::WeightStore& w, ir::NodeId x,
                             ir::NodeId) { return conv(b, w, x, 8, 8, 1, 1); });
  ASSERT_EQ(inputs.size(), 2U);
  EXPECT_NE(inputs[0].index, inputs[1].index);
}

// mul(detach(v), sigmoid(v)): the gate's other operand is another node, but the detach reads v's
// buffer, so the command's two inputs are one buffer, which its output takes over. The logistic
// would overwrite v before the mul reads it again; the launch runs v's swish instead, which reads
// each element once.
TEST(OnednnConformance, GateOfADetachedSelfRunsInPlaceAsItsSwish) {
  if (!onednn_built()) GTEST_SKIP() << "this build has no onednn handlers";
  const auto inputs =
      check_gate_in_place([](ir::CheckedGraphBuilder& b, ir::WeightStore&, ir::NodeId,
                             ir::NodeId v) { return op(b, OpKind::detach, {v}); });
  ASSERT_EQ(inputs.size(), 2U);
  EXPECT_EQ(inputs[0].index, inputs[1].index);
}

}  // namespace
}  // namespace nnplan::runtime
