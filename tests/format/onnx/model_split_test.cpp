// The split ONNX reader (src/format/onnx/model_split.hpp): every field but the graph's nodes
// parsed as protobuf parses it, the nodes kept as byte ranges that parse to the same NodeProtos,
// nodes past the kept limit counted but not kept, and framing it does not take left to the full
// parse.
#include "format/onnx/model_split.hpp"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <string>
#include <vector>

#include "../protobuf_wire.hpp"

namespace nnplan::format::onnx_import {
namespace {

using format::wire::delimited_field;
using format::wire::to_bytes;
using format::wire::varint_field;

onnx::ModelProto five_relus() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("split-test");
  m.add_opset_import()->set_version(17);
  onnx::GraphProto& g = *m.mutable_graph();
  g.set_name("g");
  g.add_input()->set_name("x");
  g.add_output()->set_name("t4");
  onnx::TensorProto& w = *g.add_initializer();
  w.set_name("w");
  w.add_dims(1);
  w.add_float_data(2.0F);
  for (int i = 0; i < 5; ++i) {
    onnx::NodeProto& n = *g.add_node();
    n.set_op_type("Relu");
    n.set_name("r" + std::to_string(i));
    n.add_input(i == 0 ? "x" : "t" + std::to_string(i - 1));
    n.add_output("t" + std::to_string(i));
  }
  return m;
}

TEST(OnnxModelSplit, EveryFieldButTheNodesParsedAndEachNodeFromItsBytes) {
  const onnx::ModelProto original = five_relus();
  const std::vector<std::byte> bytes = to_bytes(original.SerializeAsString());
  onnx::ModelProto model;
  const SplitModel parts = split_onnx_model(bytes, model, 100);
  const std::optional<OnnxNodes>& nodes = parts.nodes;
  ASSERT_TRUE(nodes.has_value());
  onnx::ModelProto without_nodes = original;
  without_nodes.mutable_graph()->clear_node();
  EXPECT_EQ(model.SerializeAsString(), without_nodes.SerializeAsString());
  ASSERT_EQ(nodes->size(), 5);
  onnx::NodeProto scratch;
  for (int i = 0; i < 5; ++i) {
    const onnx::NodeProto* node = nodes->at(i, scratch);
    ASSERT_NE(node, nullptr) << i;
    EXPECT_EQ(node->SerializeAsString(), original.graph().node(i).SerializeAsString()) << i;
  }
}

// Raw bytes of `n` floats 1, 2, ..., n.
std::string raw_floats(int n) {
  std::string out;
  for (int i = 1; i <= n; ++i) {
    const float f = static_cast<float>(i);
    out.append(reinterpret_cast<const char*>(&f), sizeof f);
  }
  return out;
}

std::string as_string(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

TEST(OnnxModelSplit, InitializerRawDataStaysInTheFileBytes) {
  onnx::ModelProto original = five_relus();  // initializer 0 holds float_data
  onnx::TensorProto& a = *original.mutable_graph()->add_initializer();
  a.set_name("a");
  a.set_data_type(onnx::TensorProto_DataType_FLOAT);
  a.add_dims(3);
  a.set_raw_data(raw_floats(3));
  onnx::TensorProto& b = *original.mutable_graph()->add_initializer();
  b.set_name("b");
  b.set_data_type(onnx::TensorProto_DataType_FLOAT);
  b.add_dims(2);
  b.set_raw_data(raw_floats(2));
  // Tensor b with a second raw_data field after its first: protobuf keeps the last one.
  const std::string bytes_string =
      original.SerializeAsString() +
      delimited_field(onnx::ModelProto::kGraphFieldNumber,
                      delimited_field(onnx::GraphProto::kInitializerFieldNumber,
                                      b.SerializeAsString() +
                                          delimited_field(onnx::TensorProto::kRawDataFieldNumber,
                                                          raw_floats(4).substr(8))));
  onnx::ModelProto full;
  ASSERT_TRUE(full.ParseFromString(bytes_string));
  const std::vector<std::byte> bytes = to_bytes(bytes_string);
  onnx::ModelProto model;
  const SplitModel parts = split_onnx_model(bytes, model, 100);
  const std::optional<OnnxNodes>& nodes = parts.nodes;
  ASSERT_TRUE(nodes.has_value());
  ASSERT_EQ(model.graph().initializer_size(), 4);
  ASSERT_EQ(full.graph().initializer_size(), 4);
  for (int k = 0; k < 4; ++k) {
    onnx::TensorProto want = full.graph().initializer(k);
    const std::optional<std::span<const std::byte>> raw = nodes->initializer_raw_data(k);
    EXPECT_EQ(raw.has_value(), want.has_raw_data()) << k;
    if (raw) {
      EXPECT_EQ(as_string(*raw), want.raw_data()) << k;
    }
    EXPECT_FALSE(model.graph().initializer(k).has_raw_data()) << k;
    want.clear_raw_data();
    EXPECT_EQ(model.graph().initializer(k).SerializeAsString(), want.SerializeAsString()) << k;
  }
  EXPECT_EQ(as_string(*nodes->initializer_raw_data(3)), raw_floats(4).substr(8));
  EXPECT_FALSE(nodes->initializer_raw_data(4).has_value());
  EXPECT_FALSE(nodes->initializer_raw_data(-1).has_value());
  onnx::ModelProto without = full;
  without.mutable_graph()->clear_node();
  for (auto& t : *without.mutable_graph()->mutable_initializer())
    t.clear_raw_data();
  EXPECT_EQ(model.SerializeAsString(), without.SerializeAsString());
}

TEST(OnnxModelSplit, RawDataOfAnotherWireTypeIsRefused) {
  onnx::ModelProto m = five_relus();
  m.mutable_graph()->clear_initializer();
  const std::string tensor = wire::varint_field(onnx::TensorProto::kRawDataFieldNumber, 7);
  const std::string bytes_string =
      m.SerializeAsString() +
      delimited_field(onnx::ModelProto::kGraphFieldNumber,
                      delimited_field(onnx::GraphProto::kInitializerFieldNumber, tensor));
  const std::vector<std::byte> bytes = to_bytes(bytes_string);
  onnx::ModelProto model;
  const SplitModel parts = split_onnx_model(bytes, model, 100);
  EXPECT_FALSE(parts.nodes.has_value());
  EXPECT_EQ(parts.refusal,
            "field graph.initializer[0].raw_data (number 9) has wire type varint (0); the ONNX "
            "schema gives it length-delimited (2)");
}

// Fields the importer does not read are checked and dropped, not built: a model with them splits
// into the same message as one without.
TEST(OnnxModelSplit, FieldsTheImporterDoesNotReadAreDropped) {
  const onnx::ModelProto plain = five_relus();
  onnx::ModelProto rich = plain;
  rich.set_doc_string("a model");
  rich.set_domain("test.domain");
  rich.set_model_version(3);
  for (int i = 0; i < 3; ++i) {
    onnx::StringStringEntryProto& e = *rich.add_metadata_props();
    e.set_key("k" + std::to_string(i));
    e.set_value("v");
  }
  rich.add_training_info()->mutable_algorithm()->set_name("train");
  rich.mutable_graph()->set_doc_string("a graph");
  rich.mutable_graph()->add_value_info()->set_name("t0");
  rich.mutable_graph()->add_quantization_annotation()->set_tensor_name("t1");
  // An unknown field at each level.
  const std::string bytes_string =
      rich.SerializeAsString() + wire::varint_field(1000, 5) +
      delimited_field(onnx::ModelProto::kGraphFieldNumber, wire::varint_field(999, 1));
  const std::vector<std::byte> bytes = to_bytes(bytes_string);
  onnx::ModelProto model;
  const SplitModel parts = split_onnx_model(bytes, model, 100);
  ASSERT_TRUE(parts.nodes.has_value()) << parts.refusal;
  onnx::ModelProto want = plain;
  want.mutable_graph()->clear_node();
  EXPECT_EQ(model.SerializeAsString(), want.SerializeAsString());
  EXPECT_EQ(parts.nodes->size(), 5);
}

TEST(OnnxModelSplit, NodesPastTheLimitAreCountedNotKept) {
  const std::vector<std::byte> bytes = to_bytes(five_relus().SerializeAsString());
  onnx::ModelProto model;
  const SplitModel parts = split_onnx_model(bytes, model, 2);
  const std::optional<OnnxNodes>& nodes = parts.nodes;
  ASSERT_TRUE(nodes.has_value());
  EXPECT_EQ(nodes->size(), 5);  // what the importer compares with its node limit
  onnx::NodeProto scratch;
  ASSERT_NE(nodes->at(1, scratch), nullptr);
  EXPECT_EQ(nodes->at(1, scratch)->name(), "r1");
  EXPECT_EQ(nodes->at(2, scratch), nullptr);
}

TEST(OnnxModelSplit, BrokenFramingIsLeftToTheFullParse) {
  const std::string whole = five_relus().SerializeAsString();
  // Cut inside the graph field: its length now runs past the end.
  const std::vector<std::byte> truncated = to_bytes(whole.substr(0, whole.size() - 3));
  onnx::ModelProto model;
  EXPECT_FALSE(split_onnx_model(truncated, model, 100).nodes.has_value());
  // A field number 0 tag is not a field at all.
  const std::vector<std::byte> zero_tag = to_bytes(whole + std::string("\x00\x01", 2));
  onnx::ModelProto other;
  EXPECT_FALSE(split_onnx_model(zero_tag, other, 100).nodes.has_value());
}

// An unknown field 1000 as groups nested `depth` deep (start-group tags, then end-group tags).
std::string nested_groups(int depth) {
  std::string out;
  for (int i = 0; i < depth; ++i)
    out += "\xC3\x3E";  // tag (1000 << 3) | start-group, as a varint
  for (int i = 0; i < depth; ++i)
    out += "\xC4\x3E";  // (1000 << 3) | end-group
  return out;
}

// five_relus with unknown groups nested `depth` deep at the model's top level, in its graph, in
// its first node or in its initializer.
enum class Where { model, graph, node, initializer };
std::string with_nesting(Where where, int depth) {
  const onnx::ModelProto m = five_relus();
  onnx::ModelProto rest = m;
  rest.clear_graph();
  onnx::GraphProto graph = m.graph();
  onnx::NodeProto first = graph.node(0);
  graph.mutable_node()->DeleteSubrange(0, 1);
  onnx::TensorProto weight = graph.initializer(0);
  graph.clear_initializer();
  const std::string groups = nested_groups(depth);
  const std::string node = first.SerializeAsString() + (where == Where::node ? groups : "");
  const std::string tensor =
      weight.SerializeAsString() + (where == Where::initializer ? groups : "");
  const std::string graph_bytes =
      delimited_field(onnx::GraphProto::kNodeFieldNumber, node) +
      delimited_field(onnx::GraphProto::kInitializerFieldNumber, tensor) +
      graph.SerializeAsString() + (where == Where::graph ? groups : "");
  return rest.SerializeAsString() +
         delimited_field(onnx::ModelProto::kGraphFieldNumber, graph_bytes) +
         (where == Where::model ? groups : "");
}

// Each piece is read with the nesting budget the full parse has left at its depth: around the
// limit, the split accepts exactly the models protobuf's full parse accepts.
TEST(OnnxModelSplit, NestingLimitIsTheFullParsesAtEveryDepth) {
  for (const Where where : {Where::model, Where::graph, Where::node, Where::initializer}) {
    bool some_accepted = false;
    bool some_rejected = false;
    for (int depth = 90; depth <= 105; ++depth) {
      const std::string bytes = with_nesting(where, depth);
      onnx::ModelProto full;
      const bool full_ok = full.ParseFromString(bytes);
      onnx::ModelProto model;
      const std::vector<std::byte> raw = to_bytes(bytes);
      const SplitModel parts = split_onnx_model(raw, model, 100);
      const std::optional<OnnxNodes>& nodes = parts.nodes;
      bool split_ok = nodes.has_value();
      onnx::NodeProto scratch;
      for (int i = 0; split_ok && i < nodes->size(); ++i)
        split_ok = nodes->at(i, scratch) != nullptr;
      EXPECT_EQ(split_ok, full_ok) << "where " << static_cast<int>(where) << ", depth " << depth;
      some_accepted = some_accepted || full_ok;
      some_rejected = some_rejected || !full_ok;
    }
    EXPECT_TRUE(some_accepted && some_rejected) << "the limit lies outside 90..105";
  }
}

TEST(OnnxModelSplit, ParsedGraphNodesAreServedAsTheyAre) {
  const onnx::ModelProto original = five_relus();
  const OnnxNodes nodes(original.graph());
  EXPECT_EQ(nodes.size(), 5);
  onnx::NodeProto scratch;
  EXPECT_EQ(nodes.at(3, scratch), &original.graph().node(3));
}

}  // namespace
}  // namespace nnplan::format::onnx_import
