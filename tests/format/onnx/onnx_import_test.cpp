// The import as a whole (src/format/onnx_import.cpp): broken bytes, the graph in pieces, corrupt
// nodes named by position, large graphs, file errors, unsupported operators, and a few models of
// ONNX's own node-test corpus.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <span>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

TEST(OnnxImport, UnnamedNodesGetGeneratedNames) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"a"});
  m.node("Tanh", {"a"}, {"y"});
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2] 'x'", "1 relu [0] -> [2] 'Relu_0'",
                                         "2 tanh [1] -> [2] 'Tanh_1'"}));
}

// ---- broken files and model-level rejections ----

TEST(OnnxImport, EmptyTruncatedAndCorruptBytes) {
  Model m;
  m.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(6));
  m.node("MatMul", {"x", "w"}, {"y"}, "mm");
  const std::vector<std::byte> good = m.bytes();
  const auto run = [](std::span<const std::byte> b) {
    Expected<ImportedModel> r = import_onnx(b, "bad.onnx");
    EXPECT_FALSE(r.has_value());
    return r ? std::string() : r.error().message;
  };
  EXPECT_EQ(run({}), "bad.onnx: not a valid ONNX model: the input is empty");
  // Every truncation fails cleanly, with a parse error or a named missing part.
  for (std::size_t n = 1; n < good.size(); ++n) {
    Expected<ImportedModel> r = import_onnx(std::span(good).first(n), "bad.onnx");
    ASSERT_FALSE(r.has_value()) << n;
    EXPECT_EQ(r.error().kind, ErrorKind::invalid_input);
    EXPECT_EQ(r.error().message.rfind("bad.onnx: ", 0), 0u) << r.error().message;
  }
  EXPECT_EQ(run(std::span(good).first(good.size() - 3)).find("bad.onnx: not a valid ONNX model"),
            0u);
  std::vector<std::byte> corrupt(64, std::byte{0xFF});
  EXPECT_EQ(run(corrupt),
            "bad.onnx: not a valid ONNX model: the protobuf bytes are truncated or corrupt (64 "
            "bytes)");
  const std::string text = "{\"format\": \"torchlean.ir.v1\"}";
  std::vector<std::byte> json(text.size());
  std::memcpy(json.data(), text.data(), text.size());
  EXPECT_EQ(run(json).find("bad.onnx: not a valid ONNX model"), 0u);
}

// The bytes of `m` with its graph field's payload replaced by `graph_payload` (serialized
// GraphProto fields, in any order), after the model's other fields.
std::string with_graph_payload(const onnx::ModelProto& m, const std::string& graph_payload) {
  onnx::ModelProto rest = m;
  rest.clear_graph();
  return rest.SerializeAsString() +
         delimited_field(onnx::ModelProto::kGraphFieldNumber, graph_payload);
}

// The importer reads a graph's nodes one by one from the serialized bytes (onnx/model_split.hpp).
// Protobuf defines a message as the concatenation of its fields, so the same model may come with
// its graph in several pieces, nodes interleaved with other graph fields: each form imports
// exactly as the one ModelProto that protobuf parses from the bytes.
TEST(OnnxImport, GraphInPiecesImportsAsTheParsedModel) {
  Model head;  // ir_version, opset, producer; the graph's input and output
  head.input("x", {2, 3}).output("z");
  onnx::GraphProto part1;
  auto* relu = part1.add_node();
  relu->set_op_type("Relu");
  relu->set_name("r");
  relu->add_input("x");
  relu->add_output("y");
  onnx::GraphProto part2;
  fill_tensor(*part2.add_initializer(), "b", {3}, {1, 2, 3}, true);
  onnx::GraphProto part3;
  auto* add = part3.add_node();
  add->set_op_type("Add");
  add->set_name("a");
  add->add_input("y");
  add->add_input("b");
  add->add_output("z");
  // One graph field whose payload interleaves node, initializer, node; then the same model with
  // the graph split over two graph fields, the second one after the model's other fields.
  const std::string graph_head = head.proto().graph().SerializeAsString();
  onnx::ModelProto rest = head.proto();
  rest.clear_graph();
  const int graph_field = onnx::ModelProto::kGraphFieldNumber;
  const std::string interleaved =
      with_graph_payload(head.proto(), graph_head + part1.SerializeAsString() +
                                           part2.SerializeAsString() + part3.SerializeAsString());
  const std::string two_graphs =
      delimited_field(graph_field, part1.SerializeAsString() + graph_head) +
      rest.SerializeAsString() +
      delimited_field(graph_field, part2.SerializeAsString() + part3.SerializeAsString());
  const Lines expected = {"0 input -> [2,3] 'x'", "1 relu [0] -> [2,3] 'r'", "2 const -> [3] 'b'",
                          "3 broadcast_to([3]->[2,3]) [2] -> [2,3] 'a'",
                          "4 add [1,3] -> [2,3] 'a'"};
  for (const std::string* bytes : {&interleaved, &two_graphs}) {
    onnx::ModelProto parsed;
    ASSERT_TRUE(parsed.ParseFromString(*bytes));
    ASSERT_EQ(parsed.graph().node_size(), 2);
    Expected<ImportedModel> r = import_onnx(to_bytes(*bytes), "m.onnx");
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_EQ(lines(r->graph()), expected);
    EXPECT_EQ(r->producer, "test");
    EXPECT_EQ(r->opset, 17);
  }
}

// A known field of the wrong wire type (here a `node` field with the varint wire type), which
// protobuf would keep as an unknown field so that the node silently disappears, is refused naming
// the field and both wire types.
TEST(OnnxImport, KnownFieldOfTheWrongWireTypeIsRefused) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"}, "r");
  const std::string odd_node = varint_field(onnx::GraphProto::kNodeFieldNumber, 5);
  const std::string bytes =
      with_graph_payload(m.proto(), m.proto().graph().SerializeAsString() + odd_node);
  onnx::ModelProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));  // protobuf alone accepts it
  Expected<ImportedModel> r = import_onnx(to_bytes(bytes), "m.onnx");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, ErrorKind::invalid_input);
  EXPECT_EQ(r.error().message,
            "m.onnx: not a valid ONNX model: field graph.node (number 1) has wire type varint (0); "
            "the ONNX schema gives it length-delimited (2)");
}

// Framing intact but a node's own bytes broken: the error names the node's position.
TEST(OnnxImport, CorruptNodeBytesNameTheNode) {
  Model m;
  m.input("x", {2}).output("z");
  m.node("Relu", {"x"}, {"y"}, "r");
  const std::string broken_node(6, '\xFF');  // a tag whose varint never ends
  const std::string bytes = with_graph_payload(
      m.proto(), m.proto().graph().SerializeAsString() +
                     delimited_field(onnx::GraphProto::kNodeFieldNumber, broken_node));
  Expected<ImportedModel> r = import_onnx(to_bytes(bytes), "bad.onnx");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "bad.onnx: not a valid ONNX model: the protobuf bytes of graph node 1 (0-based) are "
            "truncated or corrupt");
}

// The same problem is reported with or without payloads: moving a weight into its payload indexes
// every node's inputs, which must not report the corrupt node early (found by fuzz_onnx's
// differential check). The import goes on past the unsupported Celu and stops at the corrupt node
// after it: a malformed model is reported as such, whatever else it uses.
TEST(OnnxImport, ACorruptNodeAfterAnUnsupportedOneIsReportedWithOrWithoutPayloads) {
  Model m;
  m.input("x", {2, 3}).output("z").init("w", {3, 2}, iota(6));
  m.node("MatMul", {"x", "w"}, {"y"}, "mm");
  m.node("Celu", {"y"}, {"z"}, "celu");
  const std::string broken_node(6, '\xFF');
  const std::string bytes = with_graph_payload(
      m.proto(), m.proto().graph().SerializeAsString() +
                     delimited_field(onnx::GraphProto::kNodeFieldNumber, broken_node));
  OnnxImportOptions shapes_only;
  shapes_only.keep_payloads = false;
  for (const OnnxImportOptions& options : {OnnxImportOptions{}, shapes_only}) {
    Expected<ImportedModel> r = import_onnx(to_bytes(bytes), "bad.onnx", options);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().kind, ErrorKind::invalid_input);
    EXPECT_EQ(r.error().message,
              "bad.onnx: not a valid ONNX model: the protobuf bytes of graph node 2 (0-based) are "
              "truncated or corrupt");
  }
}

// A chain of `n` Relu nodes x -> t0 -> ... -> y.
Model relu_chain(int n) {
  Model m;
  m.input("x", {2}).output("y");
  for (int i = 0; i < n; ++i) {
    m.node("Relu", {i == 0 ? "x" : "t" + std::to_string(i - 1)},
           {i == n - 1 ? "y" : "t" + std::to_string(i)}, "r" + std::to_string(i));
  }
  return m;
}

TEST(OnnxImport, LargeGraphImportsEveryNodeInOrder) {
  const Model m = relu_chain(20000);
  const ImportedModel r = ok(m);
  ASSERT_EQ(r.graph().nodes.size(), 20001u);
  for (std::size_t i = 1; i < r.graph().nodes.size(); ++i) {
    const ir::Node& node = r.graph().nodes[i];
    ASSERT_EQ(node.kind, OpKind::relu) << i;
    ASSERT_EQ(node.source_name, "r" + std::to_string(i - 1));
    ASSERT_EQ(node.parents, ir::Parents{static_cast<ir::NodeId>(i - 1)});
  }
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{20000u}));
}

// A failure in the middle of a large graph names the node; a corrupt node there is named by its
// position.
TEST(OnnxImport, LargeGraphFailuresNameTheNode) {
  Model unsupported = relu_chain(20000);
  unsupported.g().mutable_node(7000)->set_op_type("Celu");
  const Error e = unsupported_error(unsupported);
  EXPECT_EQ(e.message, "m.onnx: nnplan does not support 1 node of this model (opset 17)");
  ASSERT_EQ(e.notes.size(), 3u) << render(e);
  EXPECT_EQ(e.notes[0], "node 7000 'r7000' (Celu): operator Celu is not supported");
  EXPECT_EQ(e.notes[1], "12999 nodes depend on them and were not imported");

  Model head = relu_chain(20000);
  onnx::GraphProto nodes;
  nodes.mutable_node()->Swap(head.g().mutable_node());
  std::string graph = head.proto().graph().SerializeAsString();
  for (int i = 0; i < nodes.node_size(); ++i) {
    const std::string node =
        i == 12345 ? std::string(6, '\xFF') : nodes.node(i).SerializeAsString();
    graph += delimited_field(onnx::GraphProto::kNodeFieldNumber, node);
  }
  const std::string bytes = with_graph_payload(head.proto(), graph);
  Expected<ImportedModel> r = import_onnx(to_bytes(bytes), "bad.onnx");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "bad.onnx: not a valid ONNX model: the protobuf bytes of graph node 12345 (0-based) "
            "are truncated or corrupt");
}

TEST(OnnxImport, FileErrors) {
  Expected<ImportedModel> missing = import_onnx_file("/nonexistent/m.onnx");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message,
            "/nonexistent/m.onnx: cannot read ONNX model: no such file or directory");
  Expected<ImportedModel> dir = import_onnx_file(std::filesystem::temp_directory_path());
  ASSERT_FALSE(dir.has_value());
  EXPECT_NE(dir.error().message.find("cannot read ONNX model: is a directory"), std::string::npos);
}

TEST(OnnxImport, UnsupportedOperatorListsSupported) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Det", {"x"}, {"y"}, "det1");
  EXPECT_EQ(unsupported_of(m), "node 0 'det1' (Det): operator Det is not supported");
  EXPECT_EQ(
      unsupported_error(m).notes.back(),
      "supported operators: Abs, Acos, Acosh, Add, And, ArgMax, ArgMin, Asin, Asinh, Atan, "
      "Atanh, AveragePool, BatchNormalization, Cast, CastLike, Ceil, Clip, Concat, Constant, "
      "Conv, ConvTranspose, Cos, Cosh, CumSum, DepthToSpace, Div, Dropout, Einsum, Elu, Equal, "
      "Erf, "
      "Exp, "
      "Expand, Flatten, Floor, GRU, Gather, GatherElements, GatherND, Gelu, Gemm, "
      "GlobalAveragePool, "
      "GlobalMaxPool, "
      "Greater, GreaterOrEqual, GridSample, HardSigmoid, HardSwish, Hardmax, Identity, "
      "InstanceNormalization, IsInf, IsNaN, LRN, LSTM, "
      "LayerNormalization, LeakyRelu, Less, LessOrEqual, Log, LogSoftmax, MatMul, Max, "
      "MaxPool, MaxUnpool, Mean, MeanVarianceNormalization, Min, Mod, Mul, Neg, "
      "NegativeLogLikelihoodLoss, "
      "Not, "
      "OneHot, Or, PRelu, Pad, Pow, "
      "RNN, Reciprocal, ReduceL1, "
      "ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceMax, ReduceMean, ReduceMin, "
      "ReduceProd, ReduceSum, ReduceSumSquare, Relu, Reshape, Resize, RoiAlign, Round, Scatter, "
      "ScatterElements, ScatterND, Selu, Shrink, "
      "Sigmoid, "
      "Sign, Sin, Sinh, Slice, Softmax, SoftmaxCrossEntropyLoss, Softplus, Softsign, "
      "SpaceToDepth, Split, Sqrt, "
      "Squeeze, Sub, Sum, Tan, Tanh, ThresholdedRelu, Tile, TopK, Transpose, Trilu, Unsqueeze, "
      "Upsample, Where, Xor; and, evaluated at import when their inputs are constants, "
      "ConstantOfShape, Range, Shape and Size");
}

TEST(OnnxImport, SupportedOpsAreSorted) {
  const auto ops = supported_onnx_ops();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  EXPECT_TRUE(std::adjacent_find(ops.begin(), ops.end()) == ops.end());
}

// ---- a few models of ONNX's own node-test corpus ----

struct CorpusCase {
  std::string test;
  std::string expected;  // the first node lines joined by '|', or "error: <fragment>"
};

class OnnxCorpus : public ::testing::TestWithParam<CorpusCase> {};

TEST_P(OnnxCorpus, Imports) {
  const std::filesystem::path path =
      std::filesystem::path(NNPLAN_ONNX_CONFORMANCE_DIR) / GetParam().test / "model.onnx";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  Expected<ImportedModel> r = import_onnx_file(path);
  const std::string& want = GetParam().expected;
  if (want.starts_with("error: ")) {
    ASSERT_FALSE(r.has_value());
    EXPECT_NE(render(r.error()).find(want.substr(7)), std::string::npos) << render(r.error());
    return;
  }
  ASSERT_TRUE(r.has_value()) << r.error().message;
  std::string got;
  for (const std::string& l : lines(r->graph()))
    got += (got.empty() ? "" : "|") + l;
  EXPECT_EQ(got, want);
}
INSTANTIATE_TEST_SUITE_P(
    Corpus, OnnxCorpus,
    ::testing::Values(
        CorpusCase{"test_relu", "0 input -> [3,4,5] 'x'|1 relu [0] -> [3,4,5] 'Relu_0'"},
        CorpusCase{"test_add",
                   "0 input -> [3,4,5] 'x'|1 input -> [3,4,5] 'y'|2 add [0,1] -> [3,4,5] 'Add_0'"},
        CorpusCase{"test_matmul_2d",
                   "0 input -> [3,4] 'a'|1 input -> [4,3] 'b'|2 matmul [0,1] -> [3,3] 'MatMul_0'"},
        CorpusCase{"test_maxpool_2d_pads",
                   "0 input -> [1,3,28,28] 'x'|1 max_pool(k=3x3,s=1x1,p=2x2) [0] -> [1,3,30,30] "
                   "'MaxPool_0'"},
        CorpusCase{"test_conv_with_strides_no_padding",
                   "0 input -> [1,1,7,5] 'x'|1 input -> [1,1,3,3] 'W'|2 "
                   "conv(1->1,k=3x3,s=2x2,p=0x0,pa=0x0,d=1x1,g=1,axis=1) [0,1] -> [1,1,3,2] "
                   "'Conv_0'"},
        CorpusCase{"test_add_uint8", "error: input 'x' has data type uint8"}),
    [](const auto& info) { return info.param.test; });

}  // namespace
}  // namespace nnplan::format::onnx_test

namespace nnplan::format::onnx_test {
namespace {

// A name defined again (not SSA) is refused at the node that redefines it, naming the first
// producer: before, the last definition silently won while the first node was still planned.
TEST(OnnxImport, ANameDefinedAgainIsRefused) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"h"}, "r");
  m.node("Add", {"h", "h"}, {"h"}, "a");
  m.node("Tanh", {"h"}, {"y"}, "t");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'a' (Add, opset 17): output 'h' is already the output of graph node 0 "
            "('r', Relu); every value has exactly one producer in ONNX (SSA form): rename one of "
            "them");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
