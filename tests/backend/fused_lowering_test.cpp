// The fused lowering (SPEC §7) and fused capsules in the registry: which chains become one
// `fused` group, which stay as planned and why, how the chain's nodes move, and what the registry
// refuses in a pattern.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"
#include "graph_plan_fixtures.hpp"
#include "nnplan/backend/acceptance.hpp"
#include "nnplan/backend/builtin_modules.hpp"
#include "nnplan/backend/lowering.hpp"
#include "nnplan/backend/profile.hpp"

namespace nnplan::backend {
namespace {

using fixtures::checked;
using fixtures::GraphBuilder;
using fixtures::shape;
using K = ir::OpKind;

ir::ConvParams conv3x3(std::uint32_t channels) {
  return {.spatial_rank = 2,
          .kernel = {3, 3},
          .stride = {1, 1},
          .padding = {1, 1},
          .dilation = {1, 1},
          .padding_after = {1, 1},
          .groups = 1,
          .channel_axis = 1,
          .in_channels = channels,
          .out_channels = channels,
          .output_padding = {}};
}

struct Lowered {
  GraphLoweringPlan plan;
  std::vector<FusionDecision> decisions;
};

Lowered fuse(const BackendProfile& profile, ir::Graph graph) {
  const ir::CheckedGraph g = checked(std::move(graph));
  auto plan = plan_graph(profile, g);
  EXPECT_TRUE(plan.has_value()) << (plan ? "" : plan.error().message);
  Lowered out;
  out.plan = to_fused_lowering_plan(std::move(*plan), g.graph(), profile.config,
                                    profile.availability(), &out.decisions);
  return out;
}

std::vector<std::string> group_summary(const GraphLoweringPlan& plan) {
  std::vector<std::string> out;
  for (const LoweredKernelGroup& g : plan.groups) {
    std::string s = plan.capsule(g).name + "(" + std::string(to_string(g.grouping)) + ":";
    for (ir::NodeId id : plan.group_node_ids(g))
      s += " " + std::to_string(id);
    out.push_back(s + ")");
  }
  return out;
}

const BackendProfile& fast_cpu() {
  static const BackendProfile p = make_profile(MaintainedProfile::fast_cpu);
  return p;
}

TEST(FastCpuProfile, IsWhatSpec12Says) {
  const BackendProfile& p = fast_cpu();
  EXPECT_EQ(p.name, "fast_cpu");
  EXPECT_EQ(p.config.device, Device::cpu);
  EXPECT_EQ(p.config.preference, BackendPreference::prefer(Provider::onednn));
  EXPECT_EQ(p.config.assurance, AssurancePolicy::checked());
  EXPECT_EQ(p.config.vjp_mode, VjpMode::none);
  EXPECT_EQ(p.target, Target::linux_cpu_onednn());
  EXPECT_EQ(p.target.features, std::vector<BuildFeature>{BuildFeature::onednn});
  EXPECT_EQ(p.lowering, LoweringMode::fused);
  EXPECT_EQ(preset_of(p.target), TargetPreset::linux_cpu_onednn);
  // Built-in modules plus onednn: every module name appears once.
  std::vector<std::string> modules;
  for (const CapsuleModule& m : p.registry->modules())
    modules.push_back(m.name);
  EXPECT_EQ(modules, (std::vector<std::string>{"onednn", "attention", "native-cuda", "reference"}));
  EXPECT_EQ(parse_maintained_profile("fast_cpu").value(), MaintainedProfile::fast_cpu);
  EXPECT_EQ(parse_lowering_mode("fused").value(), LoweringMode::fused);
  EXPECT_EQ(parse_grouping_kind("fused").value(), GroupingKind::fused);
  EXPECT_EQ(parse_provider("onednn").value(), Provider::onednn);
  EXPECT_EQ(parse_build_feature("onednn").value(), BuildFeature::onednn);
  EXPECT_EQ(provider_of(BuildFeature::onednn), Provider::onednn);
}

TEST(OnednnModule, CapsulesAreFuzzedOracleBackedAndForwardOnly) {
  const CapsuleModule m = onednn_module();
  std::size_t fused = 0;
  for (const KernelCapsule& c : m.capsules) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.provider, Provider::onednn);
    EXPECT_EQ(c.device, Device::cpu);
    EXPECT_EQ(c.trust_level, TrustLevel::fuzzed);
    EXPECT_EQ(c.vjp_mode, VjpMode::none);
    EXPECT_TRUE(contracts_aligned(c));
    EXPECT_EQ(c.value.evidence.kind, EvidenceKind::fuzz_oracle);
    EXPECT_EQ(c.value.evidence.name, c.name + ".oracle");
    EXPECT_EQ(c.layout.claim, Claim::layout_compatibility(c.op, Layout::flat_row_major));
    // oneDNN orders and contracts its arithmetic; its copies do none (a chain rooted at a
    // broadcast multiplies; one rooted at a reshape copies).
    const bool copy =
        c.op == BackendOp::reshape ||
        (!c.is_fused() && (c.op == BackendOp::broadcast || c.op == BackendOp::permute ||
                           c.op == BackendOp::slice || c.op == BackendOp::concat));
    EXPECT_EQ(c.numerical.contraction,
              copy ? Contraction::na : Contraction::implementation_defined);
    EXPECT_EQ(c.numerical.rounding,
              copy ? Rounding::scalar_context : Rounding::implementation_defined);
    if (c.is_fused()) {
      ++fused;
      EXPECT_EQ(c.pattern.front(), c.op);
    }
  }
  EXPECT_EQ(fused, 13U);
  const auto names = [&] {
    std::vector<std::string> v;
    for (const KernelCapsule& c : m.capsules) {
      if (c.is_fused()) v.push_back(c.name);
    }
    return v;
  }();
  EXPECT_EQ(names, (std::vector<std::string>{
                       "onednn.conv_relu", "onednn.conv_add_relu", "onednn.conv_clamp",
                       "onednn.conv_hard_swish", "onednn.conv_hard_sigmoid", "onednn.conv_silu",
                       "onednn.linear_relu", "onednn.linear_gelu", "onednn.matmul_add",
                       "onednn.batch_norm_relu", "onednn.sigmoid_mul", "onednn.broadcast_mul",
                       "onednn.reshape_permute_reshape"}));
}

TEST(RegistryPatterns, FusedCapsulesAreNeverChosenForOneNode) {
  const Registry& r = *fast_cpu().registry;
  for (CapsuleId id : r.implementing(BackendOp::conv))
    EXPECT_FALSE(r.capsule(id).is_fused());
  EXPECT_EQ(r.fused().size(), 13U);
  const auto chosen = plan_op(fast_cpu().config, r, BackendOp::conv);
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(r.capsule(chosen->capsule).name, "onednn.conv");
  // A reshape alone runs on onednn.reshape, not on the chain rooted at one.
  const auto reshape = plan_op(fast_cpu().config, r, BackendOp::reshape);
  ASSERT_TRUE(reshape.has_value());
  EXPECT_EQ(r.capsule(reshape->capsule).name, "onednn.reshape");
}

TEST(RegistryPatterns, ShortOrMisrootedPatternsAreRefusedWithTheCapsuleNamed) {
  const auto capsules = onednn_module().capsules;
  KernelCapsule c = *std::ranges::find(capsules, "onednn.matmul_add", &KernelCapsule::name);
  c.name = "acme.matmul_add";
  c.pattern = {BackendOp::matmul};
  auto r = Registry::create({CapsuleModule{.name = "acme", .capsules = {c}}});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, ErrorKind::invalid_input);
  EXPECT_EQ(r.error().message,
            "capsule 'acme.matmul_add' of module 'acme': a fused capsule's pattern needs at least "
            "two ops (it lists only matmul); a capsule of one op leaves `pattern` out");
  c.pattern = {BackendOp::add, BackendOp::matmul};
  r = Registry::create({CapsuleModule{.name = "acme", .capsules = {c}, .source = "acme.json"}});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "acme.json: capsule 'acme.matmul_add' of module 'acme': its pattern starts with add "
            "but its op is matmul; a fused capsule's op is the pattern's first (root) op");
}

TEST(FusedLowering, ConvReluBecomesOneFusedGroup) {
  GraphBuilder b;
  const auto x = b.input(shape({1, 4, 8, 8}));
  const auto c = b.add(K::conv, {x}, shape({1, 4, 8, 8}), conv3x3(4));
  b.add(K::relu, {c}, shape({1, 4, 8, 8}));
  const Lowered l = fuse(fast_cpu(), std::move(b).build());
  EXPECT_EQ(group_summary(l.plan), std::vector<std::string>{"onednn.conv_relu(fused: 1 2)"});
  ASSERT_EQ(l.plan.groups.size(), 1U);
  EXPECT_EQ(l.plan.groups[0].op, BackendOp::conv);
  // Each node keeps its own planned capsule; the group names the fused one, and so does the
  // audit row.
  EXPECT_EQ(l.plan.registry->capsule(l.plan.nodes[0].capsule).name, "onednn.conv");
  EXPECT_EQ(l.plan.registry->capsule(l.plan.nodes[1].capsule).name, "onednn.relu");
  EXPECT_EQ(l.plan.capsule_names(), std::vector<std::string>{"onednn.conv_relu"});
  // The longer conv pattern is tried first and refused; conv, relu is taken.
  ASSERT_EQ(l.decisions.size(), 2U);
  EXPECT_FALSE(l.decisions[0].taken);
  EXPECT_EQ(l.decisions[0].reason,
            "the only consumer of node 1 (conv) is node 2 (relu), whose op is relu; the pattern "
            "needs add there");
  EXPECT_TRUE(l.decisions[1].taken);
  EXPECT_EQ(l.decisions[1].chain, (std::vector<ir::NodeId>{1, 2}));
  EXPECT_EQ(l.decisions[1].reason, "");
}

TEST(FusedLowering, ASecondConsumerKeepsTheChainAsPlanned) {
  GraphBuilder b;
  const auto x = b.input(shape({1, 4, 8, 8}));
  const auto c = b.add(K::conv, {x}, shape({1, 4, 8, 8}), conv3x3(4));
  const auto r = b.add(K::relu, {c}, shape({1, 4, 8, 8}));
  b.add(K::add, {r, c}, shape({1, 4, 8, 8}));  // conv's value is read twice
  const Lowered l = fuse(fast_cpu(), std::move(b).build());
  EXPECT_EQ(group_summary(l.plan),
            (std::vector<std::string>{"onednn.conv(singleton: 1)", "onednn.relu(singleton: 2)",
                                      "onednn.add(singleton: 3)"}));
  // The conv patterns were tried from node 1 and refused for the same reason, longest first.
  ASSERT_EQ(l.decisions.size(), 6U);
  EXPECT_EQ(l.plan.registry->capsule(l.decisions[0].capsule).name, "onednn.conv_add_relu");
  for (const FusionDecision& d : l.decisions) {
    EXPECT_FALSE(d.taken);
    EXPECT_EQ(d.reason,
              "node 1 (conv)'s value has 2 uses (node 2 (relu), node 3 (add)); a fused chain "
              "needs its only consumer to be the next node");
  }
}

// SiLU written out as mul(x, sigmoid(x)) (a torchlean.ir.v1 graph; the ONNX importer makes it one
// silu node). The mul's other operand is the sigmoid's own input, not a chain intermediate, so
// sigmoid, mul fuses.
TEST(FusedLowering, SiluFusesIntoSigmoidMul) {
  GraphBuilder b;
  const auto x = b.input(shape({1, 4, 8, 8}));
  const auto c = b.add(K::conv, {x}, shape({1, 4, 8, 8}), conv3x3(4));
  const auto s = b.add(K::sigmoid, {c}, shape({1, 4, 8, 8}));
  b.add(K::mul_elem, {c, s}, shape({1, 4, 8, 8}));
  const Lowered l = fuse(fast_cpu(), std::move(b).build());
  EXPECT_EQ(group_summary(l.plan), (std::vector<std::string>{"onednn.conv(singleton: 1)",
                                                             "onednn.sigmoid_mul(fused: 2 3)"}));
  // The conv's value has two readers, the sigmoid and the mul: no conv chain holds it.
  ASSERT_FALSE(l.decisions.empty());
  EXPECT_EQ(l.decisions.front().reason,
            "node 1 (conv)'s value has 2 uses (node 2 (sigmoid), node 3 (mul_elem)); a fused "
            "chain needs its only consumer to be the next node");
  EXPECT_TRUE(l.decisions.back().taken);
}

// EfficientNet's convolution then SiLU, as the ONNX importer writes it: one silu node, the conv's
// only consumer, so the conv takes it as a post-op.
TEST(FusedLowering, ConvThenSiluIsOneConvSiluCommand) {
  GraphBuilder b;
  const auto x = b.input(shape({1, 4, 8, 8}));
  const auto c = b.add(K::conv, {x}, shape({1, 4, 8, 8}), conv3x3(4));
  b.add(K::silu, {c}, shape({1, 4, 8, 8}));
  const Lowered l = fuse(fast_cpu(), std::move(b).build());
  EXPECT_EQ(group_summary(l.plan), std::vector<std::string>{"onednn.conv_silu(fused: 1 2)"});
  EXPECT_EQ(l.plan.capsule_names(), std::vector<std::string>{"onednn.conv_silu"});
}

// Squeeze-excite's channel scale: sigmoid of the pooled [1,C,1,1] value, broadcast back, mul.
// The sigmoid's only consumer is the broadcast, so sigmoid, mul is refused and broadcast, mul
// taken; a second reader of the broadcast keeps it as planned.
TEST(FusedLowering, SqueezeExciteFusesBroadcastMulUnlessTheBroadcastIsReadTwice) {
  for (bool second_reader : {false, true}) {
    SCOPED_TRACE(second_reader);
    GraphBuilder b;
    const auto x = b.input(shape({1, 4, 8, 8}));
    const auto g = b.input(shape({1, 4, 1, 1}));
    const auto s = b.add(K::sigmoid, {g}, shape({1, 4, 1, 1}));
    const auto wide =
        b.add(K::broadcast_to, {s}, shape({1, 4, 8, 8}),
              ir::BroadcastParams{.from = shape({1, 4, 1, 1}), .to = shape({1, 4, 8, 8})});
    const auto m = b.add(K::mul_elem, {x, wide}, shape({1, 4, 8, 8}));
    if (second_reader) b.add(K::add, {m, wide}, shape({1, 4, 8, 8}));
    const Lowered l = fuse(fast_cpu(), std::move(b).build());
    if (second_reader) {
      EXPECT_EQ(group_summary(l.plan),
                (std::vector<std::string>{"onednn.sigmoid(singleton: 2)",
                                          "onednn.broadcast(singleton: 3)",
                                          "onednn.mul(singleton: 4)", "onednn.add(singleton: 5)"}));
    } else {
      EXPECT_EQ(group_summary(l.plan),
                (std::vector<std::string>{"onednn.sigmoid(singleton: 2)",
                                          "onednn.broadcast_mul(fused: 3 4)"}));
    }
    ASSERT_FALSE(l.decisions.empty());
    EXPECT_EQ(l.decisions.front().reason,
              "the only consumer of node 2 (sigmoid) is node 3 (broadcast_to), whose op is "
              "broadcast; the pattern needs mul there");
  }
}

TEST(FusedLowering, AGraphOutputIsNeverFusedAway) {
  GraphBuilder b;
  const auto x = b.input(shape({1, 4, 8, 8}));
  const auto c = b.add(K::conv, {x}, shape({1, 4, 8, 8}), conv3x3(4));
  const auto r = b.add(K::relu, {c}, shape({1, 4, 8, 8}));
  b.graph().output_ids = {c, r};
  const Lowered l = fuse(fast_cpu(), std::move(b).build());
  EXPECT_EQ(l.plan.groups.size(), 2U);
  ASSERT_FALSE(l.decisions.empty());
  EXPECT_EQ(l.decisions.back().reason,
            "node 1 (conv) is a graph output, so its value must be kept");
}

TEST(FusedLowering, TheResidualChainMovesToItsLastNode) {
  // conv -> (another conv in between) -> add(residual) -> relu: the first conv's chain runs at
  // the add's place, after the conv it does not depend on.
  GraphBuilder b;
  const auto x = b.input(shape({1, 4, 8, 8}));
  const auto c1 = b.add(K::conv, {x}, shape({1, 4, 8, 8}), conv3x3(4));
  const auto c2 = b.add(K::conv, {x}, shape({1, 4, 8, 8}), conv3x3(4));
  const auto a = b.add(K::add, {c1, c2}, shape({1, 4, 8, 8}));
  b.add(K::relu, {a}, shape({1, 4, 8, 8}));
  const Lowered l = fuse(fast_cpu(), std::move(b).build());
  EXPECT_EQ(group_summary(l.plan), (std::vector<std::string>{
                                       "onednn.conv(singleton: 2)",
                                       "onednn.conv_add_relu(fused: 1 3 4)",
                                   }));
  EXPECT_EQ(l.plan.node_ids(), (std::vector<ir::NodeId>{2, 1, 3, 4}));
}

TEST(FusedLowering, AnotherProvidersNodeBreaksTheChain) {
  // sin has no onednn capsule, so it is planned on the reference provider: linear -> relu fuses,
  // a chain through sin does not, and the reason names the capsule it was planned on.
  GraphBuilder b;
  const auto x = b.input(shape({2, 8}));
  const auto mm = b.add(K::matmul, {x, b.input(shape({8, 8}))}, shape({2, 8}));
  const auto s = b.add(K::sin, {mm}, shape({2, 8}));
  b.add(K::add, {s, x}, shape({2, 8}));
  const Lowered l = fuse(fast_cpu(), std::move(b).build());
  for (const LoweredKernelGroup& g : l.plan.groups)
    EXPECT_NE(g.grouping, GroupingKind::fused);
  ASSERT_EQ(l.decisions.size(), 1U);
  EXPECT_EQ(l.decisions[0].reason,
            "the only consumer of node 2 (matmul) is node 3 (sin), whose op is sin; the pattern "
            "needs add there");
}

TEST(FusedLowering, ANonAdmissibleFusedCapsuleIsNeverUsed) {
  // Under `only reference` no onednn capsule is admissible: nothing is fused or even tried.
  auto profile =
      apply_overrides(fast_cpu(), {.preference = BackendPreference::only(Provider::reference)});
  ASSERT_TRUE(profile.has_value());
  GraphBuilder b;
  const auto x = b.input(shape({1, 4, 8, 8}));
  const auto c = b.add(K::conv, {x}, shape({1, 4, 8, 8}), conv3x3(4));
  b.add(K::relu, {c}, shape({1, 4, 8, 8}));
  const Lowered l = fuse(*profile, std::move(b).build());
  EXPECT_EQ(group_summary(l.plan), (std::vector<std::string>{"reference.conv(singleton: 1)",
                                                             "reference.relu(singleton: 2)"}));
  EXPECT_TRUE(l.decisions.empty());
}

TEST(FusedLowering, ProfileLowerAndEvaluateUseIt) {
  GraphBuilder b;
  const auto x = b.input(shape({2, 8}));
  const auto mm = b.add(K::matmul, {x, b.input(shape({8, 8}))}, shape({2, 8}));
  b.add(K::add, {mm, x}, shape({2, 8}));
  const ir::CheckedGraph g = checked(std::move(b).build());
  auto evaluation = evaluate_graph(fast_cpu(), g);
  ASSERT_TRUE(evaluation.has_value());
  EXPECT_EQ(group_summary(evaluation->lowering),
            std::vector<std::string>{"onednn.matmul_add(fused: 2 3)"});
  EXPECT_TRUE(evaluation->accepted());
  // Coalesced lowering of the same plan never fuses.
  BackendProfile coalesced = fast_cpu();
  coalesced.lowering = LoweringMode::coalesced;
  auto plain = evaluate_graph(coalesced, g);
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->lowering.groups.size(), 2U);
}

}  // namespace
}  // namespace nnplan::backend
