// A valid model with unsupported parts (onnx/unsupported_summary.cpp): the import goes on past
// each unsupported node, skips and counts the nodes that depend on one, and ends in one
// `unsupported` Error listing every such node and the supported operators once; a malformed
// node still stops it at once. Also the weights that are graph inputs (export_params=False).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "format/onnx/import_context.hpp"
#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

constexpr std::size_t kMaxListed = onnx_import::kMaxListedUnsupported;

std::string supported_operators_line() {
  std::string out = "supported operators: ";
  bool first = true;
  for (const std::string_view op : supported_onnx_ops()) {
    out += (first ? "" : ", ") + std::string(op);
    first = false;
  }
  return out +
         "; and, evaluated at import when their inputs are constants, ConstantOfShape, Range, "
         "Shape and Size";
}

// x -> relu -> a; a -> Det (unsupported) -> b -> Tanh (depends) -> c;
// a -> Gemm transB=2 (unsupported) -> d; Add(c, d) (depends) -> y; a -> Mish (unsupported) -> e.
Model three_unsupported() {
  Model m;
  m.input("x", {1, 4}).output("y").init("w", {4, 4}, iota(16));
  m.node("Relu", {"x"}, {"a"}, "relu");
  m.node("Det", {"a"}, {"b"}, "det");
  m.node("Tanh", {"b"}, {"c"}, "tanh");
  attr_i(m.node("Gemm", {"a", "w"}, {"d"}, "fc"), "transB", 2);
  m.node("Add", {"c", "d"}, {"y"}, "add");
  m.node("Mish", {"a"}, {"e"});
  return m;
}

TEST(OnnxUnsupportedNodes, EveryUnsupportedNodeIsListedInOneError) {
  const Error e = unsupported_error(three_unsupported());
  EXPECT_EQ(e.message, "m.onnx: nnplan does not support 3 nodes of this model (opset 17)");
  EXPECT_EQ(e.notes,
            (std::vector<std::string>{
                "node 1 'det' (Det): operator Det is not supported",
                "node 3 'fc' (Gemm): attribute transB = 2 is not supported; supported: 0, 1",
                "node 5 'Mish_5' (Mish): operator Mish is not supported",
                "2 nodes depend on them and were not imported",
                supported_operators_line(),
            }));
  // Rendered, each node is a line of its own.
  const std::string text = render(e);
  EXPECT_NE(text.find("\n  node 3 'fc' (Gemm): attribute transB = 2 is not supported; "
                      "supported: 0, 1\n"),
            std::string::npos)
      << text;
}

TEST(OnnxUnsupportedNodes, TheSupportedOperatorsAreSaidOnce) {
  const std::string text = render(unsupported_error(three_unsupported()));
  const auto first = text.find("Abs, ");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find("Abs, ", first + 1), std::string::npos) << text;
}

TEST(OnnxUnsupportedNodes, TheSameErrorWithoutPayloads) {
  OnnxImportOptions shapes_only;
  shapes_only.keep_payloads = false;
  EXPECT_EQ(unsupported_error(three_unsupported(), shapes_only),
            unsupported_error(three_unsupported()));
}

// A node after an unsupported one whose own operator nnplan does not have (or whose domain it
// does not take) is listed too: that needs no input shape. The supported ones are counted.
TEST(OnnxUnsupportedNodes, DependentsAreCountedTransitivelyAndUnsupportedOnesListed) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Det", {"x"}, {"a"}, "det");
  m.node("Relu", {"a"}, {"b"}, "r1");
  m.node("Shape", {"b"}, {"s"}, "shape");  // folds when its input is known: counted
  m.node("Relu", {"b"}, {"c"}, "r2");
  m.node("Mish", {"c"}, {"d"}, "second");
  m.node("Relu", {"d"}, {"y"}, "r3");
  auto* custom = &m.node("Relu", {"d"}, {"z"}, "custom");
  custom->set_domain("com.example");
  const Error e = unsupported_error(m);
  EXPECT_EQ(e.message, "m.onnx: nnplan does not support 3 nodes of this model (opset 17)");
  ASSERT_EQ(e.notes.size(), 5u) << render(e);
  EXPECT_EQ(e.notes[0], "node 0 'det' (Det): operator Det is not supported");
  EXPECT_EQ(e.notes[1], "node 4 'second' (Mish): operator Mish is not supported");
  EXPECT_EQ(e.notes[2],
            "node 6 'custom' (Relu): domain 'com.example' is not supported; supported: the "
            "default ONNX domain");
  EXPECT_EQ(e.notes[3], "4 nodes depend on them and were not imported");
}

TEST(OnnxUnsupportedNodes, OneDependentIsSaidInTheSingular) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Det", {"x"}, {"a"}, "det");
  m.node("Relu", {"a"}, {"y"}, "relu");
  const Error e = unsupported_error(m);
  ASSERT_EQ(e.notes.size(), 3u) << render(e);
  EXPECT_EQ(e.notes[1], "1 node depends on them and was not imported");
}

TEST(OnnxUnsupportedNodes, NoDependentsIsSaid) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Det", {"x"}, {"y"}, "det");
  const Error e = unsupported_error(m);
  ASSERT_EQ(e.notes.size(), 3u) << render(e);
  EXPECT_EQ(e.notes[1], "no other node depends on them");
}

TEST(OnnxUnsupportedNodes, DataTypesAndAttributeValuesAreListedWithTheRest) {
  Model m;
  m.input("x", {1, 4}).input("i", {4}, onnx::TensorProto_DataType_INT64).output("y");
  m.node("Add", {"x", "i"}, {"a"}, "add_int");
  attr_i(m.node("Gemm", {"x", "x"}, {"b"}, "fc"), "transA", 2);
  m.node("Relu", {"x"}, {"y"}, "relu");
  const Error e = unsupported_error(m);
  ASSERT_EQ(e.notes.size(), 4u) << render(e);
  EXPECT_EQ(e.notes[0],
            "node 0 'add_int' (Add): its input (input node 'i') has dtype int64; nnplan runs Add "
            "on float32 values only");
  EXPECT_EQ(e.notes[1],
            "node 1 'fc' (Gemm): attribute transA = 2 is not supported; supported: 0, 1");
}

TEST(OnnxUnsupportedNodes, AnInvalidAttributeValueStopsAtOnce) {
  Model m;
  m.input("x", {1, 4}).output("y");
  m.node("Det", {"x"}, {"a"}, "det");
  attr_i(m.node("Softmax", {"x"}, {"b"}, "sm"), "axis", 5);
  m.node("Relu", {"x"}, {"y"}, "relu");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'sm' (Softmax, opset 17): axis 5 is out of range for rank 2");
}

TEST(OnnxUnsupportedNodes, AnUnconsumedInputOfAnotherTypeIsListedToo) {
  Model m;
  m.input("x", {2}).input("i", {2}, onnx::TensorProto_DataType_UINT8).output("y");
  m.node("Det", {"x"}, {"y"}, "det");
  const Error e = unsupported_error(m);
  ASSERT_EQ(e.notes.size(), 4u) << render(e);
  EXPECT_EQ(e.notes[1],
            "input 'i' has data type uint8; only float32, int64 and bool tensors are supported");
}

TEST(OnnxUnsupportedNodes, AMalformedNodeAfterAnUnsupportedOneStopsAtOnce) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Det", {"x"}, {"a"}, "det");
  m.node("Relu", {"nowhere"}, {"y"}, "relu");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'relu' (Relu, opset 17): input 'nowhere' is not produced by any earlier "
            "node, graph input or initializer");
}

TEST(OnnxUnsupportedNodes, AMalformedNodeBeforeAnUnsupportedOneStopsAtOnce) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"a"}, "relu");
  m.node("Tanh", {"x"}, {"a"}, "again");  // `a` has two producers
  m.node("Det", {"a"}, {"y"}, "det");
  EXPECT_NE(error_of(m).find("node 'again' (Tanh, opset 17): output 'a' is already the output of "
                             "graph node 0"),
            std::string::npos);
}

TEST(OnnxUnsupportedNodes, ADependentNodeIsStillHeldToTheCheckerRules) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Det", {"x"}, {"a"}, "det");
  auto& sm = m.node("Softmax", {"a"}, {"y"}, "sm");
  attr_i(sm, "axis", 0);
  attr_i(sm, "axis", 0);
  EXPECT_NE(error_of(m).find("node 'sm' (Softmax, opset 17): attribute 'axis' appears 2 times"),
            std::string::npos);
}

TEST(OnnxUnsupportedNodes, TheListIsCappedAndTheRestCounted) {
  Model m;
  m.input("x", {2}).output("y0");
  const std::size_t n = kMaxListed + 5;
  for (std::size_t i = 0; i < n; ++i)
    m.node("Det", {"x"}, {"y" + std::to_string(i)}, "det" + std::to_string(i));
  const Error e = unsupported_error(m);
  EXPECT_EQ(e.message, "m.onnx: nnplan does not support " + std::to_string(n) +
                           " nodes of this model (opset 17)");
  ASSERT_EQ(e.notes.size(), kMaxListed + 3);
  EXPECT_EQ(e.notes[kMaxListed - 1], "node 999 'det999' (Det): operator Det is not supported");
  EXPECT_EQ(e.notes[kMaxListed], "... and 5 more");
}

// ---- weights that are graph inputs: a model exported with export_params=False ----

TEST(OnnxUnsupportedNodes, EveryLayerWithoutItsParametersIsListed) {
  // Conv, ConvTranspose, BatchNormalization, LayerNormalization, MatMul and Gemm take their
  // parameters as graph inputs; RNN, GRU and LSTM do not: each such node is listed.
  Model m(17);
  m.input("x", {3, 1, 2}).input("rnn1.W", {1, 2, 2}).input("rnn2.W", {1, 2, 2}).output("y");
  m.init("R", {1, 2, 2}, iota(4));
  m.node("RNN", {"x", "rnn1.W", "R"}, {"h"}, "/rnn1/RNN");
  m.node("Squeeze", {"h"}, {"s"}, "sq");
  m.node("RNN", {"x", "rnn2.W", "R"}, {"y"}, "/rnn2/RNN");
  const Error e = unsupported_error(m);
  ASSERT_GE(e.notes.size(), 2u) << render(e);
  EXPECT_NE(e.notes[0].find("node 0 '/rnn1/RNN' (RNN): W 'rnn1.W' is a graph input, not an "
                            "initializer: the model was exported without its parameters"),
            std::string::npos)
      << e.notes[0];
  EXPECT_NE(e.notes[1].find("'/rnn2/RNN' (RNN): W 'rnn2.W' is a graph input, not an initializer"),
            std::string::npos)
      << e.notes[1];
}

// BatchNormalization's statistics and LayerNormalization's Scale as graph inputs import.
TEST(OnnxUnsupportedNodes, NormalizationParametersThatAreGraphInputsImport) {
  Model m(17);
  m.input("x", {1, 2, 4, 4}).output("y");
  for (const char* p : {"bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"})
    m.input(p, {2});
  m.input("ln.weight", {4});
  m.node("BatchNormalization", {"x", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"},
         {"b"}, "/bn/BatchNormalization");
  m.node("LayerNormalization", {"b", "ln.weight"}, {"y"}, "/ln/LayerNormalization");
  const ImportedModel r = ok(m);
  bool batch_norm_with_values = false;
  for (const ir::Node& n : r.graph().nodes)
    batch_norm_with_values |= n.kind == OpKind::batch_norm_eval && n.parents.size() == 5;
  EXPECT_TRUE(batch_norm_with_values) << lines(r.graph()).back();
}

// MatMul and Gemm take a second operand that is a graph input as a plain tensor (`matmul`): two
// inputs multiplied is a model of its own, not one missing its parameters.
TEST(OnnxUnsupportedNodes, AMatMulOfTwoGraphInputsStillImports) {
  Model m;
  m.input("a", {2, 3}).input("b", {3, 4}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"}, "mm");
  const ImportedModel r = ok(m);
  EXPECT_EQ(r.graph().nodes.back().kind, OpKind::matmul);
}

}  // namespace
}  // namespace nnplan::format::onnx_test
