// The read-ahead node reader (src/format/onnx_node_reader.hpp): with and without its worker
// thread it serves every node's names and attributes as protobuf parses them, and value numbers
// as a plain map from names to the latest definition gives them, in order, across batch
// boundaries and ring wrap-arounds; a node whose bytes are corrupt is null at exactly its index;
// and a reader dropped while its worker is batches ahead stops without hanging.
#include "format/onnx_node_reader.hpp"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "protobuf_wire.hpp"

namespace nnplan::format::detail {
namespace {

using format::wire::delimited_field;
using format::wire::to_bytes;

constexpr int kBatch = OnnxNodeReader::kBatchNodes;

// Node i of the test graphs: varied names, op types, input and output counts, and an attribute
// on every seventh node.
onnx::NodeProto test_node(int i) {
  onnx::NodeProto n;
  if (i % 5 != 0)
    n.set_name("node/" + std::to_string(i) + std::string(static_cast<std::size_t>(i % 23), 'x'));
  n.set_op_type(i % 3 == 0 ? "Relu" : "Add");
  if (i % 11 == 0) n.set_domain("ai.onnx");
  for (int k = 0; k <= i % 3; ++k)
    n.add_input(k == 1 && i % 4 == 0 ? std::string() : "t" + std::to_string(i - k));
  n.add_output("t" + std::to_string(i + 1));
  if (i % 13 == 0) n.add_output("mask" + std::to_string(i));
  if (i % 29 == 0) n.add_output("t" + std::to_string(i));  // defines its own input's name again
  if (i % 31 == 0) n.add_output("");                       // an absent optional output
  if (i % 7 == 0) {
    onnx::AttributeProto& a = *n.add_attribute();
    a.set_name("axis");
    a.set_type(onnx::AttributeProto_AttributeType_INT);
    a.set_i(i);
  }
  return n;
}

// A model of `count` test nodes whose node `corrupt` (if any) has bytes that are no NodeProto: a
// field claims more bytes than the node holds. The graph's framing stays valid.
std::vector<std::byte> model_bytes(int count, std::optional<int> corrupt = std::nullopt) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  m.mutable_graph()->set_name("g");
  std::string graph;
  for (int i = 0; i < count; ++i) {
    std::string node = corrupt == i ? std::string(
                                          "\x0a\x7f"
                                          "ab",
                                          4)
                                    : test_node(i).SerializeAsString();
    // Now and then an empty unknown group (field 1000), which the reader's scan leaves to
    // protobuf's parse: both ways of reading a node are exercised.
    if (corrupt != i && i % 19 == 3) node += "\xC3\x3E\xC4\x3E";
    graph += delimited_field(onnx::GraphProto::kNodeFieldNumber, node);
  }
  return to_bytes(m.SerializeAsString() +
                  delimited_field(onnx::ModelProto::kGraphFieldNumber, graph));
}

std::vector<std::string> names(std::span<const std::string_view> views) {
  return {views.begin(), views.end()};
}

// Reads every node of `bytes` with a reader (threaded or not) and checks it against node i.
void expect_nodes_read_as_parsed(const std::vector<std::byte>& bytes, int count, bool threaded,
                                 std::optional<int> corrupt = std::nullopt) {
  onnx::ModelProto model;
  const std::optional<OnnxNodes> nodes = split_onnx_model(bytes, model, 1 << 26);
  ASSERT_TRUE(nodes.has_value());
  ASSERT_EQ(nodes->size(), count);
  // Values defined before the nodes: "t0" (what node 0 reads) and a name no node uses.
  OnnxNodeReader reader(*nodes, threaded, {"t0", "w"});
  ASSERT_EQ(reader.threaded(), threaded && count >= OnnxNodeReader::kThreadedMinNodes);
  // The numbering the reader must give: a map from each name to its latest definition.
  std::unordered_map<std::string, std::uint32_t> latest = {{"t0", 0}, {"w", 1}};
  std::uint32_t next_value = 2;
  const auto value_of = [&](const std::string& name) {
    const auto it = latest.find(name);
    return name.empty() || it == latest.end() ? kNoValue : it->second;
  };
  for (int i = 0; i < count; ++i) {
    const OnnxNodeView* view = reader.next(i);
    if (corrupt == i) {
      EXPECT_EQ(view, nullptr) << i;
      continue;  // its outputs are never numbered: the import stops at a corrupt node
    }
    ASSERT_NE(view, nullptr) << i;
    const onnx::NodeProto want = test_node(i);
    EXPECT_EQ(view->name, want.name()) << i;
    EXPECT_EQ(view->op_type, want.op_type()) << i;
    EXPECT_EQ(view->domain, want.domain()) << i;
    EXPECT_EQ(names(view->inputs),
              std::vector<std::string>(want.input().begin(), want.input().end()))
        << i;
    EXPECT_EQ(names(view->outputs),
              std::vector<std::string>(want.output().begin(), want.output().end()))
        << i;
    ASSERT_EQ(view->input_values.size(), view->inputs.size()) << i;
    for (int k = 0; k < want.input_size(); ++k)
      EXPECT_EQ(view->input_values[static_cast<std::size_t>(k)], value_of(want.input(k))) << i;
    ASSERT_EQ(view->output_values.size(), view->outputs.size()) << i;
    for (int k = 0; k < want.output_size(); ++k) {
      const std::string& out = want.output(k);
      const std::uint32_t expected = out.empty() ? kNoValue : next_value++;
      if (!out.empty()) latest[out] = expected;
      EXPECT_EQ(view->output_values[static_cast<std::size_t>(k)], expected) << i;
    }
    ASSERT_NE(view->proto, nullptr) << i;
    ASSERT_EQ(view->proto->attribute_size(), want.attribute_size()) << i;
    for (int a = 0; a < want.attribute_size(); ++a) {
      EXPECT_EQ(view->proto->attribute(a).SerializeAsString(),
                want.attribute(a).SerializeAsString())
          << i;
    }
  }
  const std::string last_output = "t" + std::to_string(count);
  EXPECT_EQ(reader.value_after_last_node(last_output), value_of(last_output));
  EXPECT_EQ(reader.value_after_last_node("w"), 1u);
  EXPECT_EQ(reader.value_after_last_node("never-defined"), kNoValue);
}

TEST(OnnxNodeReader, ThreadedReadServesEveryNodeAsParsedAcrossBatchesAndRingWraps) {
  // Several times the ring, ending inside a batch.
  const int count =
      std::max(OnnxNodeReader::kThreadedMinNodes, (OnnxNodeReader::kBatches * 3 + 1) * kBatch) + 17;
  expect_nodes_read_as_parsed(model_bytes(count), count, true);
}

TEST(OnnxNodeReader, InlineReadServesTheSameNodes) {
  const int count = OnnxNodeReader::kThreadedMinNodes + 5;
  expect_nodes_read_as_parsed(model_bytes(count), count, false);
  expect_nodes_read_as_parsed(model_bytes(100), 100, true);  // too small for a thread
}

TEST(OnnxNodeReader, CorruptNodeIsNullAtItsIndexOnly) {
  const int count = OnnxNodeReader::kThreadedMinNodes + 3 * kBatch;
  for (const int corrupt : {0, kBatch - 1, kBatch, 5 * kBatch + 77, count - 1}) {
    SCOPED_TRACE(corrupt);
    const std::vector<std::byte> bytes = model_bytes(count, corrupt);
    expect_nodes_read_as_parsed(bytes, count, true, corrupt);
    expect_nodes_read_as_parsed(bytes, count, false, corrupt);
  }
}

TEST(OnnxNodeReader, ParsedGraphNodesAreServedFromTheGraph) {
  onnx::GraphProto graph;
  for (int i = 0; i < OnnxNodeReader::kThreadedMinNodes + 1; ++i)
    *graph.add_node() = test_node(i);
  const OnnxNodes nodes(graph);
  OnnxNodeReader reader(nodes, true);
  EXPECT_FALSE(reader.threaded());
  for (int i = 0; i < nodes.size(); ++i) {
    const OnnxNodeView* view = reader.next(i);
    ASSERT_NE(view, nullptr);
    EXPECT_EQ(view->proto, &graph.node(i));
    EXPECT_EQ(view->op_type, graph.node(i).op_type());
  }
}

// A reader that stops for longer than the busy-wait limit lets its worker fall asleep (the ring
// is full by then); handing batches back must wake it, and every node still arrives.
TEST(OnnxNodeReader, SlowReaderWakesASleepingWorker) {
  // Three rings' worth, whatever the threshold: the worker fills the ring during each pause and
  // then has to wait for room, past the busy-wait limit, so it sleeps.
  const int count =
      std::max(OnnxNodeReader::kThreadedMinNodes, 3 * OnnxNodeReader::kBatches * kBatch) + 5;
  const std::vector<std::byte> bytes = model_bytes(count);
  onnx::ModelProto model;
  const std::optional<OnnxNodes> nodes = split_onnx_model(bytes, model, 1 << 26);
  ASSERT_TRUE(nodes.has_value());
  OnnxNodeReader reader(*nodes, true);
  ASSERT_TRUE(reader.threaded());
  for (int i = 0; i < count; ++i) {
    if (i == 1 || i == 9 * kBatch + 1) std::this_thread::sleep_for(std::chrono::milliseconds(60));
    const OnnxNodeView* view = reader.next(i);
    ASSERT_NE(view, nullptr) << i;
    ASSERT_EQ(view->outputs.front(), test_node(i).output(0)) << i;
  }
}

// A thread started before the reader runs its worker; one the reader does not need (too few
// nodes) or that is never handed to a reader ends when destroyed, idle or asleep.
TEST(OnnxNodeReader, RunsItsWorkerOnAThreadStartedEarlier) {
  const int count = OnnxNodeReader::kThreadedMinNodes + kBatch + 3;
  const std::vector<std::byte> bytes = model_bytes(count);
  onnx::ModelProto model;
  const std::optional<OnnxNodes> nodes = split_onnx_model(bytes, model, 1 << 26);
  ASSERT_TRUE(nodes.has_value());
  {
    ReaderThread thread;
    ASSERT_TRUE(thread.available());
    OnnxNodeReader reader(*nodes, true, {}, &thread);
    EXPECT_TRUE(reader.threaded());
    EXPECT_FALSE(thread.available());  // taken
    for (int i = 0; i < count; ++i) {
      const OnnxNodeView* view = reader.next(i);
      ASSERT_NE(view, nullptr) << i;
      ASSERT_EQ(view->outputs.front(), test_node(i).output(0)) << i;
    }
  }
  {
    ReaderThread unused;  // destroyed while waiting busily
  }
  {
    ReaderThread asleep;
    std::this_thread::sleep_for(std::chrono::milliseconds(60));  // past the busy-wait limit
  }
  const std::vector<std::byte> few = model_bytes(100);
  onnx::ModelProto small_model;
  const std::optional<OnnxNodes> small = split_onnx_model(few, small_model, 1 << 26);
  ASSERT_TRUE(small.has_value());
  ReaderThread idle;
  OnnxNodeReader inline_reader(*small, true, {}, &idle);
  EXPECT_FALSE(inline_reader.threaded());
  EXPECT_TRUE(idle.available());  // not taken; ends with the test
  ASSERT_NE(inline_reader.next(0), nullptr);
}

TEST(OnnxNodeReader, ReaderDroppedEarlyStopsItsWorker) {
  const int count =
      std::max(OnnxNodeReader::kThreadedMinNodes, OnnxNodeReader::kBatches * 4 * kBatch);
  const std::vector<std::byte> bytes = model_bytes(count);
  onnx::ModelProto model;
  const std::optional<OnnxNodes> nodes = split_onnx_model(bytes, model, 1 << 26);
  ASSERT_TRUE(nodes.has_value());
  for (const int read : {0, 1, kBatch + 1, 3 * kBatch}) {
    OnnxNodeReader reader(*nodes, true);
    ASSERT_TRUE(reader.threaded());
    for (int i = 0; i < read; ++i)
      ASSERT_NE(reader.next(i), nullptr);
  }  // each destructor must return: a hang fails the test by its timeout
}

}  // namespace
}  // namespace nnplan::format::detail
