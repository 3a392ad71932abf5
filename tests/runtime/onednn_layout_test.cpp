// Layouts between onednn commands (SPEC §12; command_buffer.hpp): under fast_cpu a value stays
// channels-last from one onednn command that runs on it to the next, and every change between
// flat and channels-last is a reorder command of its own, placed just before the first command
// that needs it (right after its producer for a graph output), with no guards and the group of
// the channels-last command it serves. Each case lists the commands compile emits, then runs
// the buffer against the same plan compiled all flat (CompileOptions::channels_last false) and
// against checked_cpu (the reference provider).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "nnplan/backend/profile.hpp"
#include "nnplan/format/trace_json.hpp"
#include "nnplan/runtime/executor.hpp"
#include "onednn/onednn_test_support.hpp"
#include "onednn_graph_builders.hpp"
#include "oracle.hpp"
#include "runtime_test_support.hpp"

namespace nnplan::runtime {
namespace {

using backend::MaintainedProfile;
using format::chrome_trace_json;
using ir::OpKind;
using testing::conv;
using testing::onednn_built;
using testing::op;

// One command as the expectations spell it: "reorder <node> flat>channels-last" or
// "<capsule> <node> <layout>".
std::string describe(const CommandBuffer& buffer, const Command& c) {
  const std::string node = std::to_string(c.node->id);
  if (c.reorder) {
    return "reorder " + node + " " + std::string(to_string(c.reorder->from)) + ">" +
           std::string(to_string(c.reorder->to));
  }
  return buffer.capsule(c).name + " " + node + " " + std::string(to_string(c.layout));
}

std::vector<std::string> described(const CommandBuffer& buffer) {
  std::vector<std::string> out;
  for (const Command& c : buffer.commands())
    out.push_back(describe(buffer, c));
  return out;
}

std::vector<Tensor> run(CommandBuffer buffer, const std::vector<NamedTensor>& inputs,
                        ExecutionTrace* trace = nullptr) {
  Executor exec(std::move(buffer));
  auto outputs = exec.run(inputs, trace);
  EXPECT_TRUE(outputs.has_value()) << render(outputs.error());
  return outputs ? std::move(*outputs) : std::vector<Tensor>{};
}

struct Model {
  std::shared_ptr<const ir::CheckedGraph> graph;
  std::shared_ptr<const ir::WeightStore> weights;
};

Model finished(ir::CheckedGraphBuilder b, ir::WeightStore w, ir::NodeId input,
               std::vector<ir::NodeId> outputs) {
  auto checked = std::move(b).finish(input, std::move(outputs));
  EXPECT_TRUE(checked.has_value()) << (checked ? "" : checked.error().message);
  if (!checked) return {};
  return {std::make_shared<const ir::CheckedGraph>(std::move(*checked)),
          std::make_shared<const ir::WeightStore>(std::move(w))};
}

// Compiles `m` under fast_cpu with and without channels-last, checks the commands of the first
// against `expected`, that the second has no reorder and only flat commands, and that both run
// to the reference provider's values; returns the channels-last buffer.
std::optional<CommandBuffer> check_layouts(const Model& m,
                                           const std::vector<std::string>& expected) {
  auto fast =
      testing::planned(backend::make_profile(MaintainedProfile::fast_cpu), m.graph, m.weights);
  auto checked = testing::planned_cpu(m.graph, m.weights);
  if (fast == nullptr || checked == nullptr) return std::nullopt;
  auto channels_last = testing::compiled(fast);
  auto flat = testing::compiled(fast, {.output_names = {}, .settings = {}, .channels_last = false});
  auto reference = testing::compiled(checked);
  if (!channels_last || !flat || !reference) return std::nullopt;
  EXPECT_EQ(described(*channels_last), expected);
  for (const Command& c : flat->commands()) {
    EXPECT_FALSE(c.reorder.has_value()) << describe(*flat, c);
    EXPECT_EQ(c.layout, TensorLayout::flat) << describe(*flat, c);
  }
  for (const Command& c : channels_last->commands()) {
    if (!c.reorder) continue;
    EXPECT_TRUE(c.guards.empty()) << describe(*channels_last, c);
    EXPECT_EQ(c.handler.symbol, "nnplan::runtime::onednn::reorder_forward");
    EXPECT_EQ(channels_last->capsule(c).provider, backend::Provider::onednn);
  }
  std::vector<NamedTensor> inputs;
  for (const IoBinding& in : channels_last->inputs()) {
    inputs.push_back({in.name, testing::seeded_tensor(*in.shape, 11 + in.node_id, -2.0F, 2.0F)});
  }
  const auto got = run(*channels_last, inputs);
  const auto all_flat = run(std::move(*flat), inputs);
  const auto want = run(std::move(*reference), inputs);
  EXPECT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size() && i < want.size() && i < all_flat.size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    onednn::testing::expect_close(got[i], all_flat[i], 1e-5, 1e-6);
    onednn::testing::expect_close(got[i], want[i], 1e-4, 1e-5);
  }
  return channels_last;
}

// Whether this machine's oneDNN runs a plain 3x3 conv channels-last (conv_prefers_channels_last:
// its jit or brgconv kernels on x86 with AVX2 or AVX-512). Without such a kernel every conv stays
// flat and the command lists below do not apply.
bool convs_run_channels_last();

#define SKIP_WITHOUT_CHANNELS_LAST_CONVS()                                                       \
  if (!onednn_built()) GTEST_SKIP() << "this build has no onednn handlers";                      \
  if (!convs_run_channels_last()) {                                                              \
    GTEST_SKIP() << "oneDNN on this CPU has no fast channels-last conv kernel: convs stay flat"; \
  }

ir::NodeId input(ir::CheckedGraphBuilder& b, ir::Shape shape) {
  auto x = b.add(ir::Node{.kind = OpKind::input, .shape = std::move(shape), .source_name = "x"});
  EXPECT_TRUE(x.has_value());
  return x ? *x : 0;
}

bool convs_run_channels_last() {
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  const ir::NodeId x = input(b, ir::Shape{{1, 16, 8, 8}});
  const ir::NodeId c = conv(b, w, x, 16, 16, 3, 1);
  const Model m = finished(std::move(b), std::move(w), x, {c});
  auto fast =
      testing::planned(backend::make_profile(MaintainedProfile::fast_cpu), m.graph, m.weights);
  if (fast == nullptr) return false;
  auto buffer = testing::compiled(fast);
  if (!buffer) return false;
  for (const Command& c2 : buffer->commands()) {
    if (!c2.reorder && buffer->capsule(c2).name == "onednn.conv") {
      return c2.layout == TensorLayout::channels_last;
    }
  }
  return false;
}

TEST(OnednnLayouts, ConvChainStaysChannelsLastWithOneReorderAtEachEnd) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  const ir::NodeId x = input(b, ir::Shape{{1, 32, 12, 12}});  // 0
  const ir::NodeId c1 = conv(b, w, x, 32, 32, 3, 1);          // 1
  const ir::NodeId r1 = op(b, OpKind::relu, {c1});            // 2: conv_relu with 1
  const ir::NodeId c2 = conv(b, w, r1, 32, 32, 1, 1);         // 3
  const ir::NodeId t = op(b, OpKind::tanh, {c2});             // 4: element-wise, follows
  const ir::NodeId s = op(b, OpKind::add, {t, r1});           // 5: both inputs channels-last
  const auto buffer =
      check_layouts(finished(std::move(b), std::move(w), x, {s}),
                    {"reorder 0 flat>channels-last", "onednn.conv_relu 1 channels-last",
                     "onednn.conv 3 channels-last", "onednn.tanh 4 channels-last",
                     "onednn.add 5 channels-last", "reorder 5 channels-last>flat"});
  ASSERT_TRUE(buffer.has_value());
  // The reorders carry the groups of the commands they serve: the conv_relu and the add.
  const auto commands = buffer->commands();
  EXPECT_EQ(commands[0].group, commands[1].group);
  EXPECT_EQ(commands[5].group, commands[4].group);
}

// A value read both ways gets one reorder per layout: x feeds the conv (channels-last) and the
// relu (flat, since x is a graph input), so the add of their values runs flat and the conv's
// value is reordered to flat for it, while the second conv reads it channels-last.
TEST(OnednnLayouts, ValueReadInBothLayoutsIsReorderedOncePerLayout) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  const ir::NodeId x = input(b, ir::Shape{{2, 16, 9, 7}});  // 0
  const ir::NodeId c = conv(b, w, x, 16, 16, 3, 1);         // 1
  const ir::NodeId r = op(b, OpKind::relu, {x});            // 2: reads x flat
  const ir::NodeId s = op(b, OpKind::add, {c, r});          // 3
  const ir::NodeId c2 = conv(b, w, c, 16, 16, 1, 1);        // 4: reads c channels-last
  const ir::NodeId s2 = op(b, OpKind::add, {s, c2});        // 5
  EXPECT_TRUE(check_layouts(finished(std::move(b), std::move(w), x, {s2}),
                            {"reorder 0 flat>channels-last", "onednn.conv 1 channels-last",
                             "onednn.relu 2 flat", "reorder 1 channels-last>flat",
                             "onednn.add 3 flat", "onednn.conv 4 channels-last",
                             "reorder 4 channels-last>flat", "onednn.add 5 flat"})
                  .has_value());
}

// A graph output computed channels-last is reordered into its place at once, and still read
// channels-last by the next conv; the last conv's output likewise.
TEST(OnednnLayouts, GraphOutputComputedChannelsLastIsReorderedIntoPlace) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  const ir::NodeId x = input(b, ir::Shape{{1, 24, 10, 10}});  // 0
  const ir::NodeId c1 = conv(b, w, x, 24, 24, 3, 1);          // 1
  const ir::NodeId r1 = op(b, OpKind::relu, {c1});            // 2: an output
  const ir::NodeId c2 = conv(b, w, r1, 24, 8, 3, 2);          // 3: an output
  const auto buffer =
      check_layouts(finished(std::move(b), std::move(w), x, {r1, c2}),
                    {"reorder 0 flat>channels-last", "onednn.conv_relu 1 channels-last",
                     "reorder 2 channels-last>flat", "onednn.conv 3 channels-last",
                     "reorder 3 channels-last>flat"});
  ASSERT_TRUE(buffer.has_value());
  // Both outputs are written by their reorders in place: nothing is copied after the run.
  for (const auto& source : buffer->output_sources())
    EXPECT_FALSE(source.has_value());
}

// Pooling and batch norm follow the conv channels-last; a flatten (onednn.reshape) reads
// flat, so the pool's value is reordered before it.
TEST(OnednnLayouts, CnnExampleRunsChannelsLastUpToTheFlatten) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  auto loaded = testing::load(testing::example_path("cnn.json"));
  ASSERT_TRUE(loaded.has_value());
  const auto buffer =
      check_layouts({loaded->graph, loaded->payloads},
                    {"reorder 0 flat>channels-last", "onednn.conv 1 channels-last",
                     "onednn.batch_norm_relu 2 channels-last", "onednn.max_pool 4 channels-last",
                     "reorder 4 channels-last>flat", "onednn.reshape 5 flat",
                     "onednn.linear 6 flat", "onednn.softmax 7 flat"});
  ASSERT_TRUE(buffer.has_value());
  // The trace names each reorder after its value and gives both layouts; kernel commands give
  // theirs.
  ExecutionTrace trace;
  std::vector<NamedTensor> inputs = {
      {buffer->inputs()[0].name, testing::seeded_tensor(*buffer->inputs()[0].shape, 3)}};
  Executor exec{CommandBuffer{*buffer}};
  ASSERT_TRUE(exec.run(inputs, &trace).has_value());
  const auto doc = nlohmann::json::parse(
      chrome_trace_json(exec.buffer(), trace, {.graph_path = "cnn.json", .graph_digest = {}}));
  std::vector<std::string> names;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    names.push_back(e["name"].get<std::string>());
    if (e["args"].contains("reorder")) {
      EXPECT_FALSE(e["args"].contains("capsule")) << e.dump();
      EXPECT_EQ(e["args"]["handler"], "nnplan::runtime::onednn::reorder_forward");
    } else {
      EXPECT_TRUE(e["args"].contains("layout")) << e.dump();
    }
  }
  EXPECT_EQ(names.front(), "reorder image");
  EXPECT_EQ(names[4], "reorder pool1");
  EXPECT_EQ(doc["traceEvents"][2]["args"]["reorder"],
            nlohmann::json({{"from", "flat"}, {"to", "channels-last"}}));
  EXPECT_EQ(doc["traceEvents"][3]["args"]["layout"], "channels-last");
}

// A squeeze-excite block as EfficientNet's ONNX export writes it: a global average pool of the
// conv's value, sigmoid, the importer's broadcast back to the conv's shape, and the mul: all
// channels-last on onednn (the fused broadcast, mul reads the pooled [1,C,1,1] value as oneDNN's
// broadcast operand), so only the graph's ends reorder.
TEST(OnednnLayouts, SqueezeExciteStaysChannelsLast) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  const ir::NodeId x = input(b, ir::Shape{{1, 16, 7, 9}});  // 0
  const ir::NodeId c = conv(b, w, x, 16, 16, 3, 1);         // 1
  auto pool = b.add(ir::Node{
      .kind = OpKind::avg_pool,
      .parents = {c},
      .params = ir::PoolParams{
          .spatial_rank = 2, .kernel = {7, 9}, .stride = {1, 1}, .padding = {0, 0}}});  // 2
  ASSERT_TRUE(pool.has_value()) << pool.error().message;
  const ir::NodeId s = op(b, OpKind::sigmoid, {*pool});  // 3
  auto wide = b.add(ir::Node{.kind = OpKind::broadcast_to,
                             .parents = {s},
                             .params = ir::BroadcastParams{.from = ir::Shape{{1, 16, 1, 1}},
                                                           .to = ir::Shape{{1, 16, 7, 9}}}});  // 4
  ASSERT_TRUE(wide.has_value()) << wide.error().message;
  const ir::NodeId m = op(b, OpKind::mul_elem, {c, *wide});  // 5
  EXPECT_TRUE(
      check_layouts(finished(std::move(b), std::move(w), x, {m}),
                    {"reorder 0 flat>channels-last", "onednn.conv 1 channels-last",
                     "onednn.avg_pool 2 channels-last", "onednn.sigmoid 3 channels-last",
                     "onednn.broadcast_mul 4 channels-last", "reorder 5 channels-last>flat"})
          .has_value());
}

// A pool over only the first spatial axis leaves [N, C, 1, W]: its channels-last layout differs
// from flat, and the broadcast back to [N, C, H, W] reads it through channels-last strides.
TEST(OnednnLayouts, BroadcastReadsAChannelsLastInputThroughItsStrides) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  const ir::NodeId x = input(b, ir::Shape{{2, 16, 7, 9}});  // 0
  const ir::NodeId c = conv(b, w, x, 16, 16, 3, 1);         // 1
  auto pool = b.add(ir::Node{.kind = OpKind::max_pool,
                             .parents = {c},
                             .params = ir::PoolParams{.spatial_rank = 2,
                                                      .kernel = {7, 1},
                                                      .stride = {1, 1},
                                                      .padding = {0, 0}}});  // 2: [2,16,1,9]
  ASSERT_TRUE(pool.has_value()) << pool.error().message;
  auto wide = b.add(ir::Node{.kind = OpKind::broadcast_to,
                             .parents = {*pool},
                             .params = ir::BroadcastParams{.from = ir::Shape{{2, 16, 1, 9}},
                                                           .to = ir::Shape{{2, 16, 7, 9}}}});  // 3
  ASSERT_TRUE(wide.has_value()) << wide.error().message;
  const ir::NodeId m = op(b, OpKind::sub, {c, *wide});  // 4
  EXPECT_TRUE(check_layouts(finished(std::move(b), std::move(w), x, {m}),
                            {"reorder 0 flat>channels-last", "onednn.conv 1 channels-last",
                             "onednn.max_pool 2 channels-last", "onednn.broadcast 3 channels-last",
                             "onednn.sub 4 channels-last", "reorder 4 channels-last>flat"})
                  .has_value());
}

// A graph output listed only through a detach of a channels-last value is reordered after the
// last command and copied to its place; listed again directly (twice), it is reordered into the
// first direct listing's place right after its producer and copied to the others.
TEST(OnednnLayouts, OutputsThroughDetachAndListedTwiceGetTheirFlatValues) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  for (bool direct : {false, true}) {
    SCOPED_TRACE(direct ? "listed through a detach and twice directly" : "only through a detach");
    ir::CheckedGraphBuilder b;
    ir::WeightStore w;
    const ir::NodeId x = input(b, ir::Shape{{1, 16, 6, 6}});  // 0
    const ir::NodeId c = conv(b, w, x, 16, 16, 3, 1);         // 1
    const ir::NodeId r = op(b, OpKind::relu, {c});            // 2
    const ir::NodeId d = op(b, OpKind::detach, {r});          // 3
    const std::vector<ir::NodeId> outputs =
        direct ? std::vector<ir::NodeId>{d, r, r} : std::vector<ir::NodeId>{d};
    const auto buffer =
        check_layouts(finished(std::move(b), std::move(w), x, outputs),
                      {"reorder 0 flat>channels-last", "onednn.conv_relu 1 channels-last",
                       "reorder 2 channels-last>flat"});
    ASSERT_TRUE(buffer.has_value());
    const auto sources = buffer->output_sources();
    ASSERT_EQ(sources.size(), outputs.size());
    // The detach's listing is always a copy; the first direct listing is written in place.
    EXPECT_TRUE(sources[0].has_value());
    if (direct) {
      EXPECT_FALSE(sources[1].has_value());
      EXPECT_TRUE(sources[2].has_value());
    }
  }
}

// A ShuffleNet unit: two branches concatenated along the channels, the channel shuffle (reshape,
// transpose, reshape: one onednn.reshape_permute_reshape command) and the split into halves
// (slices) all run channels-last between the convolutions, with no reorder among them; the
// same chain over a shape that is no channel shuffle (the groups split off another axis) runs
// flat.
TEST(OnednnLayouts, ChannelShuffleAndSplitStayChannelsLast) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  for (const bool shuffle : {true, false}) {
    SCOPED_TRACE(shuffle ? "a channel shuffle" : "another permutation");
    ir::CheckedGraphBuilder b;
    ir::WeightStore w;
    const ir::NodeId x = input(b, ir::Shape{{1, 8, 6, 6}});  // 0
    const ir::NodeId left = conv(b, w, x, 8, 8, 3, 1);       // 1
    const ir::NodeId right = conv(b, w, x, 8, 8, 1, 1);      // 2
    auto joined = b.add(ir::Node{.kind = OpKind::concat,
                                 .parents = {left, right},
                                 .params = ir::AxisParams{.axis = 1}});  // 3
    ASSERT_TRUE(joined.has_value()) << joined.error().message;
    const ir::Shape split = shuffle ? ir::Shape{{1, 2, 8, 6, 6}} : ir::Shape{{1, 16, 2, 3, 6}};
    auto grouped = b.add(
        ir::Node{.kind = OpKind::reshape,
                 .parents = {*joined},
                 .params = ir::ReshapeParams{.in = ir::Shape{{1, 16, 6, 6}}, .out = split}});  // 4
    ASSERT_TRUE(grouped.has_value()) << grouped.error().message;
    auto swapped = b.add(ir::Node{.kind = OpKind::transpose,
                                  .parents = {*grouped},
                                  .params = ir::TransposeParams{.axis1 = shuffle ? 1U : 2U,
                                                                .axis2 = shuffle ? 2U : 3U}});  // 5
    ASSERT_TRUE(swapped.has_value()) << swapped.error().message;
    ir::Shape permuted = split;
    std::swap(permuted.dims[shuffle ? 1 : 2], permuted.dims[shuffle ? 2 : 3]);
    auto merged = b.add(ir::Node{
        .kind = OpKind::reshape,
        .parents = {*swapped},
        .params = ir::ReshapeParams{.in = permuted, .out = ir::Shape{{1, 16, 6, 6}}}});  // 6
    ASSERT_TRUE(merged.has_value()) << merged.error().message;
    std::vector<ir::NodeId> halves;
    for (const std::uint64_t start : {0U, 8U}) {
      auto half = b.add(ir::Node{
          .kind = OpKind::slice,
          .parents = {*merged},
          .params = ir::SliceParams{.axis = 1, .start = start, .end = start + 8, .step = 1}});
      ASSERT_TRUE(half.has_value()) << half.error().message;
      halves.push_back(*half);  // 7, 8
    }
    const ir::NodeId next = conv(b, w, halves[1], 8, 8, 3, 1);  // 9
    auto out = b.add(ir::Node{.kind = OpKind::concat,
                              .parents = {halves[0], next},
                              .params = ir::AxisParams{.axis = 1}});  // 10
    ASSERT_TRUE(out.has_value()) << out.error().message;
    const std::vector<std::string> expected =
        shuffle ? std::vector<std::string>{"reorder 0 flat>channels-last",
                                           "onednn.conv 1 channels-last",
                                           "onednn.conv 2 channels-last",
                                           "onednn.concat 3 channels-last",
                                           "onednn.reshape_permute_reshape 4 channels-last",
                                           "onednn.slice 7 channels-last",
                                           "onednn.slice 8 channels-last",
                                           "onednn.conv 9 channels-last",
                                           "onednn.concat 10 channels-last",
                                           "reorder 10 channels-last>flat"}
                : std::vector<std::string>{
                      "reorder 0 flat>channels-last", "onednn.conv 1 channels-last",
                      "onednn.conv 2 channels-last",  "onednn.concat 3 channels-last",
                      "reorder 3 channels-last>flat", "onednn.reshape_permute_reshape 4 flat",
                      "onednn.slice 7 flat",          "onednn.slice 8 flat",
                      "reorder 8 flat>channels-last", "onednn.conv 9 channels-last",
                      "reorder 9 channels-last>flat", "onednn.concat 10 flat"};
    EXPECT_TRUE(
        check_layouts(finished(std::move(b), std::move(w), x, {*out}), expected).has_value());
  }
}

// An element-wise command that could run in place on a channels-last value may not when that
// value is still read afterwards (here by its reorder to flat for a reshape): the values stay
// right, which check_layouts compares against the reference provider.
TEST(OnednnLayouts, InPlaceNeverOverwritesAValueAReorderStillReads) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  const ir::NodeId x = input(b, ir::Shape{{1, 16, 5, 5}});  // 0
  const ir::NodeId c = conv(b, w, x, 16, 16, 3, 1);         // 1
  const ir::NodeId r = op(b, OpKind::relu, {c});            // 2: its own command (c has 2 uses)
  auto flat = b.add(ir::Node{.kind = OpKind::reshape,
                             .parents = {c},
                             .params = ir::ReshapeParams{.in = ir::Shape{{1, 16, 5, 5}},
                                                         .out = ir::Shape{{16, 25}}}});  // 3
  ASSERT_TRUE(flat.has_value()) << flat.error().message;
  EXPECT_TRUE(check_layouts(finished(std::move(b), std::move(w), x, {r, *flat}),
                            {"reorder 0 flat>channels-last", "onednn.conv 1 channels-last",
                             "onednn.relu 2 channels-last", "reorder 2 channels-last>flat",
                             "reorder 1 channels-last>flat", "onednn.reshape 3 flat"})
                  .has_value());
}

// conv_transpose is never channels-last: its neighbours reorder around it.
TEST(OnednnLayouts, ConvTransposeStaysFlat) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  const ir::NodeId x = input(b, ir::Shape{{1, 16, 6, 6}});  // 0
  const ir::NodeId c = conv(b, w, x, 16, 16, 3, 1);         // 1
  auto up = b.add(ir::Node{.kind = OpKind::conv_transpose,
                           .parents = {c},
                           .params = ir::ConvParams{.spatial_rank = 2,
                                                    .kernel = {2, 2},
                                                    .stride = {2, 2},
                                                    .padding = {0, 0},
                                                    .dilation = {1, 1},
                                                    .padding_after = {0, 0},
                                                    .groups = 1,
                                                    .in_channels = 16,
                                                    .out_channels = 8,
                                                    .output_padding = {0, 0}}});
  ASSERT_TRUE(up.has_value()) << up.error().message;
  Tensor weight = testing::seeded_tensor(ir::Shape{{16, 8, 2, 2}}, 5, -0.2F, 0.2F);
  w.tensors[{*up, "weight"}] =
      ir::WeightTensor::adopt<float>(weight.shape, std::move(weight.floats()));
  EXPECT_TRUE(check_layouts(finished(std::move(b), std::move(w), x, {*up}),
                            {"reorder 0 flat>channels-last", "onednn.conv 1 channels-last",
                             "reorder 1 channels-last>flat", "onednn.conv_transpose 2 flat"})
                  .has_value());
}

// DenseNet's concat of a block's features: every input comes from a channels-last command, so
// the concat runs channels-last on oneDNN and its readers take it as it is, with no reorder.
TEST(OnednnLayouts, ConcatOfChannelsLastValuesStaysChannelsLast) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  const ir::NodeId x = input(b, ir::Shape{{1, 16, 8, 8}});  // 0
  const ir::NodeId c1 = conv(b, w, x, 16, 16, 3, 1);        // 1
  const ir::NodeId c2 = conv(b, w, c1, 16, 8, 3, 1);        // 2
  auto cat = b.add(
      ir::Node{.kind = OpKind::concat, .parents = {c1, c2}, .params = ir::AxisParams{.axis = 1}});
  ASSERT_TRUE(cat.has_value()) << cat.error().message;  // 3
  const ir::NodeId r = op(b, OpKind::relu, {*cat});     // 4
  const ir::NodeId c3 = conv(b, w, r, 24, 16, 1, 1);    // 5
  EXPECT_TRUE(check_layouts(finished(std::move(b), std::move(w), x, {c3}),
                            {"reorder 0 flat>channels-last", "onednn.conv 1 channels-last",
                             "onednn.conv 2 channels-last", "onednn.concat 3 channels-last",
                             "onednn.relu 4 channels-last", "onednn.conv 5 channels-last",
                             "reorder 5 channels-last>flat"})
                  .has_value());
}

// A concat with a graph input among its inputs runs flat: the conv's value is reordered for it.
TEST(OnednnLayouts, ConcatWithAFlatInputRunsFlat) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  const ir::NodeId x = input(b, ir::Shape{{1, 8, 6, 6}});  // 0
  const ir::NodeId c = conv(b, w, x, 8, 8, 3, 1);          // 1
  auto cat = b.add(
      ir::Node{.kind = OpKind::concat, .parents = {x, c}, .params = ir::AxisParams{.axis = 1}});
  ASSERT_TRUE(cat.has_value()) << cat.error().message;  // 2
  EXPECT_TRUE(check_layouts(finished(std::move(b), std::move(w), x, {*cat}),
                            {"reorder 0 flat>channels-last", "onednn.conv 1 channels-last",
                             "reorder 1 channels-last>flat", "onednn.concat 2 flat"})
                  .has_value());
}

// A const all of whose elements are equal reads the same in every layout: concatenated to a
// channels-last value (ceil_mode MaxPool's -inf overhang, as the ONNX importer writes it), it
// keeps the concat channels-last and is read as it is, with no reorder of its own. A const whose
// elements differ sends the concat flat.
ir::NodeId padded_pool(ir::CheckedGraphBuilder& b, ir::WeightStore& w, ir::NodeId value,
                       float first, float rest) {
  const ir::Shape block{{1, 8, 1, 6}};
  auto pad =
      b.add(ir::Node{.kind = OpKind::const_, .shape = block, .params = ir::ConstParams{block}});
  EXPECT_TRUE(pad.has_value());
  std::vector<float> values(element_count_of(block), rest);
  values[0] = first;
  w.tensors[{*pad, "value"}] = ir::WeightTensor::adopt<float>(block, std::move(values));
  auto cat = b.add(ir::Node{
      .kind = OpKind::concat, .parents = {value, *pad}, .params = ir::AxisParams{.axis = 2}});
  EXPECT_TRUE(cat.has_value());
  auto pool = b.add(
      ir::Node{.kind = OpKind::max_pool,
               .parents = {*cat},
               .params = ir::PoolParams{
                   .spatial_rank = 2, .kernel = {2, 2}, .stride = {2, 2}, .padding = {0, 0}}});
  EXPECT_TRUE(pool.has_value());
  return pool ? *pool : 0;
}

TEST(OnednnLayouts, ConcatWithAUniformConstStaysChannelsLast) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  const ir::NodeId x = input(b, ir::Shape{{1, 8, 5, 6}});        // 0
  const ir::NodeId c = conv(b, w, x, 8, 8, 3, 1);                // 1
  const ir::NodeId pool = padded_pool(b, w, c, -0.25F, -0.25F);  // 2 const, 3, 4
  const ir::NodeId after = conv(b, w, pool, 8, 8, 1, 1);         // 5
  EXPECT_TRUE(check_layouts(finished(std::move(b), std::move(w), x, {after}),
                            {"reorder 0 flat>channels-last", "onednn.conv 1 channels-last",
                             "onednn.concat 3 channels-last", "onednn.max_pool 4 channels-last",
                             "onednn.conv 5 channels-last", "reorder 5 channels-last>flat"})
                  .has_value());
}

TEST(OnednnLayouts, ConcatWithAConstOfDifferingElementsRunsFlat) {
  SKIP_WITHOUT_CHANNELS_LAST_CONVS();
  ir::CheckedGraphBuilder b;
  ir::WeightStore w;
  const ir::NodeId x = input(b, ir::Shape{{1, 8, 5, 6}});
  const ir::NodeId c = conv(b, w, x, 8, 8, 3, 1);
  const ir::NodeId pool = padded_pool(b, w, c, 0.5F, -0.25F);
  const ir::NodeId after = conv(b, w, pool, 8, 8, 1, 1);
  EXPECT_TRUE(check_layouts(finished(std::move(b), std::move(w), x, {after}),
                            {"reorder 0 flat>channels-last", "onednn.conv 1 channels-last",
                             "reorder 1 channels-last>flat", "onednn.concat 3 flat",
                             "onednn.max_pool 4 flat", "reorder 4 flat>channels-last",
                             "onednn.conv 5 channels-last", "reorder 5 channels-last>flat"})
                  .has_value());
}

}  // namespace
}  // namespace nnplan::runtime
