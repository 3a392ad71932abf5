// chrome_trace_json (format/trace_json.hpp), parsed back: metadata events, one complete event per
// command run with its capsule, handler, provider, device, op, kind, group, node ids and node
// names (ONNX node names for an ONNX model), and otherData naming the format, profile and graph
// digest.
#include "nnplan/format/trace_json.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../ir/graph_fixtures.hpp"
#include "runtime_test_support.hpp"

namespace nnplan::runtime {
namespace {

using format::chrome_trace_json;
using nlohmann::json;
using testing::compiled;
using testing::example_path;
using testing::planned_cpu;
using testing::seeded_tensor;

struct TracedRun {
  std::optional<format::LoadedGraph> loaded;
  std::optional<Executor> exec;
  ExecutionTrace trace;
  json doc;
};

// Loads `path` with its digest, runs it `runs` times on seeded inputs with a trace, and parses
// the trace's JSON.
void traced_run(const std::string& path, int runs, TracedRun& out) {
  auto loaded = format::read_graph_file(path, {.digest = true, .keep_weights = true});
  ASSERT_TRUE(loaded.has_value()) << render(loaded.error().error);
  out.loaded = std::move(*loaded);
  auto buffer = compiled(planned_cpu(out.loaded->graph, out.loaded->payloads),
                         {.output_names = out.loaded->output_names});
  ASSERT_TRUE(buffer.has_value());
  out.exec.emplace(std::move(*buffer));
  std::vector<NamedTensor> inputs;
  std::uint64_t seed = 1;
  for (const IoBinding& b : out.exec->buffer().inputs()) {
    inputs.push_back({b.name, seeded_tensor(*b.shape, seed++)});
  }
  for (int r = 0; r < runs; ++r) {
    auto outputs = out.exec->run(inputs, &out.trace);
    ASSERT_TRUE(outputs.has_value()) << render(outputs.error());
  }
  const std::string text = chrome_trace_json(
      out.exec->buffer(), out.trace, {.graph_path = path, .graph_digest = out.loaded->digest});
  EXPECT_EQ(text.back(), '\n');
  out.doc = json::parse(text);
}

void expect_metadata_events(const json& events, const std::string& path) {
  ASSERT_GE(events.size(), 2U);
  EXPECT_EQ(events[0], json({{"name", "process_name"},
                             {"ph", "M"},
                             {"pid", 1},
                             {"tid", 1},
                             {"args", {{"name", "nnplan run " + path}}}}));
  EXPECT_EQ(events[1], json({{"name", "thread_name"},
                             {"ph", "M"},
                             {"pid", 1},
                             {"tid", 1},
                             {"args", {{"name", "executor (calling thread)"}}}}));
}

// Checks each complete event against its command. Node names are under `node_names` whatever the
// graph's format (a torchlean.ir.v1 graph's names, an ONNX model's node names).
void expect_command_events(const TracedRun& run, int runs) {
  const CommandBuffer& buffer = run.exec->buffer();
  const json& events = run.doc.at("traceEvents");
  const auto commands = buffer.commands();
  ASSERT_EQ(events.size(), 2 + commands.size() * runs);
  double previous_ts = -1.0;
  for (std::size_t k = 0; k < commands.size() * runs; ++k) {
    SCOPED_TRACE("event " + std::to_string(k));
    const json& e = events[2 + k];
    const Command& c = commands[k % commands.size()];
    const backend::KernelCapsule& capsule = buffer.capsule(c);
    const std::string kind(ir::to_string(c.node->kind));
    EXPECT_EQ(e.at("ph"), "X");
    EXPECT_EQ(e.at("name"), c.node->source_name.empty() ? kind : c.node->source_name);
    EXPECT_EQ(e.at("cat"), "reference");
    EXPECT_EQ(e.at("pid"), 1);
    EXPECT_EQ(e.at("tid"), 1);
    ASSERT_TRUE(e.at("ts").is_number());
    ASSERT_TRUE(e.at("dur").is_number());
    EXPECT_GE(e.at("ts").get<double>(), previous_ts);
    EXPECT_GE(e.at("dur").get<double>(), 0.0);
    previous_ts = e.at("ts").get<double>();
    const CommandTiming& t = run.trace.events[k];
    EXPECT_DOUBLE_EQ(e.at("ts").get<double>(), static_cast<double>(t.start_ns) / 1000.0);
    EXPECT_DOUBLE_EQ(e.at("dur").get<double>(), static_cast<double>(t.duration_ns) / 1000.0);

    const json& args = e.at("args");
    EXPECT_EQ(args.at("capsule"), capsule.name);
    EXPECT_EQ(args.at("handler"), std::string(c.handler.symbol));
    EXPECT_EQ(args.at("provider"), "reference");
    EXPECT_EQ(args.at("device"), "cpu");
    EXPECT_EQ(args.at("op"), std::string(backend::to_string(capsule.op)));
    EXPECT_EQ(args.at("kind"), kind);
    EXPECT_EQ(args.at("group"), c.group);
    EXPECT_EQ(args.at("command"), k % commands.size());
    EXPECT_EQ(args.at("run"), k / commands.size());
    EXPECT_EQ(args.at("node_ids"), json::array({c.node->id}));
    const json names =
        c.node->source_name.empty() ? json::array() : json::array({c.node->source_name});
    EXPECT_EQ(args.at("node_names"), names);
    EXPECT_FALSE(args.contains("onnx_node_names"));
  }
}

TEST(TraceJson, MlpTraceNamesEveryCommandRun) {
  const std::string path = example_path("mlp.json");
  TracedRun run;
  traced_run(path, 2, run);
  if (HasFatalFailure()) return;
  const json& events = run.doc.at("traceEvents");
  expect_metadata_events(events, path);
  expect_command_events(run, 2);
  // The MLP's commands, by name and handler.
  std::vector<std::string> names;
  for (std::size_t k = 2; k < 6; ++k) names.push_back(events[k].at("name"));
  EXPECT_EQ(names, (std::vector<std::string>{"fc1", "relu1", "fc2", "probs"}));
  EXPECT_EQ(events[2].at("args").at("handler"), "nnplan::runtime::reference::linear_forward");
  EXPECT_EQ(events[2].at("args").at("capsule"), "reference.linear");
  EXPECT_EQ(events[2].at("args").at("node_names"), json::array({"fc1"}));

  const json& other = run.doc.at("otherData");
  EXPECT_EQ(other.at("format"), "nnplan.trace.v1");
  EXPECT_EQ(other.at("profile"), "checked_cpu");
  EXPECT_EQ(other.at("graph"), path);
  ASSERT_TRUE(run.loaded->digest.has_value());
  EXPECT_EQ(other.at("graph_digest"), *run.loaded->digest);
  EXPECT_EQ(other.at("graph_digest").get<std::string>().rfind("sha256:", 0), 0U);
  EXPECT_EQ(other.at("commands"), 4);
  EXPECT_EQ(other.at("peak_arena_bytes"), 192);
  EXPECT_EQ(other.at("no_reuse_bytes"), 320);
  EXPECT_EQ(run.doc.at("displayTimeUnit"), "ms");
}

TEST(TraceJson, WithoutDigestTheDigestIsNull) {
  auto loaded = testing::load(example_path("mlp.json"));
  ASSERT_TRUE(loaded.has_value());
  auto buffer = compiled(planned_cpu(loaded->graph, loaded->payloads));
  ASSERT_TRUE(buffer.has_value());
  const json doc = json::parse(chrome_trace_json(*buffer, {}, {.graph_path = "g.json"}));
  EXPECT_EQ(doc.at("traceEvents").size(), 2U);
  EXPECT_TRUE(doc.at("otherData").at("graph_digest").is_null());
}

TEST(TraceJson, UnnamedNodesHaveNoNodeNames) {
  // A graph built in memory: its nodes carry no names, so events are named by kind and list none.
  using ir::fixtures::shape;
  ir::fixtures::GraphBuilder b;
  const ir::NodeId x = b.input(shape({2, 2}));
  const ir::NodeId t = b.add(ir::OpKind::tanh, {x}, shape({2, 2}));
  b.add(ir::OpKind::relu, {t}, shape({2, 2}), {}, "act");
  auto buffer = compiled(planned_cpu(testing::checked_graph(std::move(b).build())));
  ASSERT_TRUE(buffer.has_value());
  Executor exec(std::move(*buffer));
  ExecutionTrace trace;
  ASSERT_TRUE(
      exec.run(std::vector<NamedTensor>{{"input", seeded_tensor(shape({2, 2}), 1)}}, &trace));
  const json doc = json::parse(chrome_trace_json(exec.buffer(), trace, {.graph_path = "mem"}));
  const json& events = doc.at("traceEvents");
  ASSERT_EQ(events.size(), 4U);
  EXPECT_EQ(events[2].at("name"), "tanh");
  EXPECT_EQ(events[2].at("args").at("node_names"), json::array());
  EXPECT_EQ(events[2].at("args").at("node_ids"), json::array({1}));
  EXPECT_EQ(events[3].at("name"), "act");
  EXPECT_EQ(events[3].at("args").at("node_names"), json::array({"act"}));
  EXPECT_EQ(events[3].at("args").at("node_ids"), json::array({2}));
}

TEST(TraceJson, OnnxTraceCarriesOnnxNodeNames) {
  const std::string path = std::string(NNPLAN_ONNX_CONFORMANCE_DIR) + "/test_relu/model.onnx";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no ONNX conformance corpus at " << path;
  TracedRun run;
  traced_run(path, 1, run);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(run.loaded->onnx());
  expect_metadata_events(run.doc.at("traceEvents"), path);
  expect_command_events(run, 1);
  const json& relu = run.doc.at("traceEvents")[2];
  EXPECT_EQ(relu.at("args").at("capsule"), "reference.relu");
  EXPECT_EQ(relu.at("args").at("kind"), "relu");
  EXPECT_EQ(run.doc.at("otherData").at("format"), "nnplan.trace.v1");
  EXPECT_EQ(run.doc.at("otherData").at("profile"), "checked_cpu");
  EXPECT_EQ(run.doc.at("otherData").at("graph_digest"), *run.loaded->digest);
}

}  // namespace
}  // namespace nnplan::runtime

namespace nnplan::runtime {
namespace {

using format::chrome_trace_json;
using nlohmann::json;
using testing::example_path;

// The trace of one fast_cpu run of the graph file `path` (its weights beside it), or null after a
// failed expectation.
json fast_cpu_trace(const std::string& path) {
  auto loaded = format::read_graph_file(path, {.digest = false, .keep_weights = true});
  EXPECT_TRUE(loaded.has_value()) << (loaded ? "" : render(loaded.error().error));
  if (!loaded) return nullptr;
  auto buffer =
      testing::compiled(testing::planned(backend::make_profile(backend::MaintainedProfile::fast_cpu),
                                         loaded->graph, loaded->payloads));
  EXPECT_TRUE(buffer.has_value());
  if (!buffer) return nullptr;
  Executor exec(std::move(*buffer));
  std::vector<NamedTensor> inputs;
  for (const IoBinding& b : exec.buffer().inputs()) {
    inputs.push_back({b.name, testing::seeded_tensor(*b.shape, 3)});
  }
  ExecutionTrace trace;
  const bool ran = exec.run(inputs, &trace).has_value();
  EXPECT_TRUE(ran);
  if (!ran) return nullptr;
  return json::parse(chrome_trace_json(exec.buffer(), trace, {.graph_path = "mlp.json"}));
}

// A fused command (examples/mlp.json under fast_cpu: linear 'fc1' and relu 'relu1' as
// onednn.linear_relu) is one event named after its chain, listing both nodes, their kinds and
// names in step, the grouping and the capsule's pattern.
TEST(TraceJson, AFusedCommandListsEveryNodeOfItsChain) {
  const json doc = fast_cpu_trace(example_path("mlp.json"));
  ASSERT_FALSE(doc.is_null());
  const json& fused = doc.at("traceEvents").at(2);
  EXPECT_EQ(fused.at("name"), "fc1+relu1");
  const json& args = fused.at("args");
  EXPECT_EQ(args.at("capsule"), "onednn.linear_relu");
  EXPECT_EQ(args.at("grouping"), "fused");
  EXPECT_EQ(args.at("node_ids"), json::array({1, 2}));
  EXPECT_EQ(args.at("kinds"), json::array({"linear", "relu"}));
  EXPECT_EQ(args.at("node_names"), json::array({"fc1", "relu1"}));
  EXPECT_EQ(args.at("pattern"), json::array({"linear", "relu"}));
  // The next command is a plain one: no pattern.
  EXPECT_FALSE(doc.at("traceEvents").at(3).at("args").contains("pattern"));
}

// A chain whose nodes repeat a name (an ONNX node the importer made two nodes of) names its event
// with it once; node_names still lists one name per node.
TEST(TraceJson, AFusedEventGivesARepeatedNameOnce) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "repeated_name";
  std::filesystem::create_directories(dir);
  std::ifstream in(example_path("mlp.json"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = text.find("\"relu1\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 7, "\"fc1\"");
  std::ofstream(dir / "mlp.json") << text;
  std::filesystem::copy_file(example_path("mlp.payloads"), dir / "mlp.payloads",
                             std::filesystem::copy_options::overwrite_existing);
  const json doc = fast_cpu_trace((dir / "mlp.json").string());
  ASSERT_FALSE(doc.is_null());
  const json& fused = doc.at("traceEvents").at(2);
  EXPECT_EQ(fused.at("name"), "fc1");
  EXPECT_EQ(fused.at("args").at("node_names"), json::array({"fc1", "fc1"}));
}

}  // namespace
}  // namespace nnplan::runtime
