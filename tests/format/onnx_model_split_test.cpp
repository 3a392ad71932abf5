// The split ONNX reader (src/format/onnx_model_split.hpp): every field but the graph's nodes
// parsed as protobuf parses it, the nodes kept as byte ranges that parse to the same NodeProtos,
// nodes past the kept limit counted but not kept, and framing it does not take left to the full
// parse.
#include "format/onnx_model_split.hpp"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <string>
#include <vector>

namespace nnplan::format::detail {
namespace {

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

std::vector<std::byte> bytes_of(const std::string& s) {
  std::vector<std::byte> out(s.size());
  if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());
  return out;
}

TEST(OnnxModelSplit, EveryFieldButTheNodesParsedAndEachNodeFromItsBytes) {
  const onnx::ModelProto original = five_relus();
  const std::vector<std::byte> bytes = bytes_of(original.SerializeAsString());
  onnx::ModelProto model;
  const std::optional<OnnxNodes> nodes = split_onnx_model(bytes, model, 100);
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

TEST(OnnxModelSplit, NodesPastTheLimitAreCountedNotKept) {
  const std::vector<std::byte> bytes = bytes_of(five_relus().SerializeAsString());
  onnx::ModelProto model;
  const std::optional<OnnxNodes> nodes = split_onnx_model(bytes, model, 2);
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
  const std::vector<std::byte> truncated = bytes_of(whole.substr(0, whole.size() - 3));
  onnx::ModelProto model;
  EXPECT_FALSE(split_onnx_model(truncated, model, 100).has_value());
  // A field number 0 tag is not a field at all.
  const std::vector<std::byte> zero_tag = bytes_of(whole + std::string("\x00\x01", 2));
  onnx::ModelProto other;
  EXPECT_FALSE(split_onnx_model(zero_tag, other, 100).has_value());
}

TEST(OnnxModelSplit, ParsedGraphNodesAreServedAsTheyAre) {
  const onnx::ModelProto original = five_relus();
  const OnnxNodes nodes(original.graph());
  EXPECT_EQ(nodes.size(), 5);
  onnx::NodeProto scratch;
  EXPECT_EQ(nodes.at(3, scratch), &original.graph().node(3));
}

}  // namespace
}  // namespace nnplan::format::detail
