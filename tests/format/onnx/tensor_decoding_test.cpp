// Tensor decoding (onnx/tensor_decoding.cpp): data types, element counts, external data, and
// weights left undecoded unless a payload needs them.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

TEST(OnnxImport, DtypeRejectionsNameTheTensor) {
  Model in;
  in.input("x", {2}, onnx::TensorProto_DataType_UINT8).output("x");
  EXPECT_EQ(unsupported_of(in),
            "m.onnx: input 'x' has data type uint8; only float32, int64 and bool tensors are "
            "supported");
  Model init;
  init.input("x", {2}).output("y");
  auto* t = init.g().add_initializer();
  t->set_name("d");
  t->set_data_type(onnx::TensorProto_DataType_DOUBLE);
  t->add_dims(2);
  t->add_double_data(1.0);
  t->add_double_data(2.0);
  init.node("Add", {"x", "d"}, {"y"}, "add");
  EXPECT_EQ(unsupported_of(init),
            "node 0 'add' (Add): tensor 'd' has data type float64; only float32, int64 "
            "and bool tensors are supported");
}

TEST(OnnxImport, TensorDataIsChecked) {
  Model count;
  count.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(5));
  count.node("MatMul", {"x", "w"}, {"y"}, "mm");
  EXPECT_EQ(error_of(count),
            "m.onnx: tensor 'w': raw_data holds 20 bytes, dims [3,2] of float32 need 24");
  Model ext;
  ext.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(6));
  auto* w = ext.g().mutable_initializer(0);
  w->clear_raw_data();
  w->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto* e = w->add_external_data();
  e->set_key("location");
  e->set_value("weights.bin");
  // Read from the model's directory (external_data_test.cpp); from bytes there is none.
  EXPECT_EQ(error_of(ext),
            "m.onnx: tensor 'w' keeps its data in external file 'weights.bin', and this import "
            "has no model directory to read it from: import the model from its file, or set "
            "OnnxImportOptions::external_data_dir to its directory");
}

// ---- weights: left in the file's bytes, decoded only for payloads ----

// A model with every kind of weight use: conv weight and bias, batch norm parameters, Gemm with
// transB 0 and 1 and a row bias, MatMul by a constant, a constant broadcast into an Add, and a
// non-identity LayerNorm scale (its values decide the graph: it is the layernorm's gamma).
Model weighted_model() {
  Model m(17);
  m.input("x", {1, 2, 4, 4}).output("y");
  m.init("w", {3, 2, 3, 3}, iota(54)).init("b", {3}, {0.5f, 1.5f, 2.5f});
  m.init("s", {3}, {1, 2, 3}).init("bb", {3}, {0, 1, 0}).init("mu", {3}, {0, 0, 1});
  m.init("var", {3}, {1, 1, 2});
  attr_ints(m.node("Conv", {"x", "w", "b"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  m.node("BatchNormalization", {"c", "s", "bb", "mu", "var"}, {"n"}, "bn");
  m.node("GlobalAveragePool", {"n"}, {"p"}, "gap");
  m.node("Flatten", {"p"}, {"f"}, "flat");
  m.init("g1", {3, 4}, iota(12)).init("gb", {4}, {1, 2, 3, 4});
  m.node("Gemm", {"f", "g1", "gb"}, {"h"}, "gemm");
  m.init("g2", {5, 4}, iota(20, -3.0f));
  attr_i(m.node("Gemm", {"h", "g2"}, {"k"}, "gemm_t"), "transB", 1);
  m.init("mm", {5, 2}, iota(10)).init("two", {}, {2.0f});
  m.node("MatMul", {"k", "mm"}, {"l"}, "mm");
  m.node("Add", {"l", "two"}, {"z"}, "add");
  m.init("ln_g", {2}, {1, 3});
  attr_i(m.node("LayerNormalization", {"z", "ln_g"}, {"y"}, "ln"), "axis", 1);
  return m;
}

TEST(OnnxImport, WithoutPayloadsTheGraphIsTheSameAndNoWeightIsKept) {
  const ImportedModel full = ok(weighted_model());
  OnnxImportOptions shapes_only;
  shapes_only.keep_payloads = false;
  const ImportedModel planned = ok(weighted_model(), shapes_only);
  EXPECT_EQ(lines(planned.graph()), lines(full.graph()));
  // The LayerNorm scale is not all ones: the layernorm node, the last, carries it as gamma.
  EXPECT_EQ(lines(full.graph()).size(), 12u);
  EXPECT_EQ(full.graph().nodes.back().kind, ir::OpKind::layernorm);
  EXPECT_EQ(tensor_of(full, 11, "gamma").to_vector<float>(), (std::vector<float>{1, 3}));
  EXPECT_EQ(planned.graph().output_ids, full.graph().output_ids);
  EXPECT_TRUE(planned.payloads.tensors.empty());
  EXPECT_TRUE(planned.payloads.attributes.empty());
  // The full import decoded every weight from the file's bytes.
  EXPECT_EQ(tensor_of(full, 1, "weight").to_vector<float>(), iota(54));
  EXPECT_EQ(tensor_of(full, 1, "bias").to_vector<float>(), (std::vector<float>{0.5f, 1.5f, 2.5f}));
  EXPECT_EQ(tensor_of(full, 2, "var").to_vector<float>(), (std::vector<float>{1, 1, 2}));
  EXPECT_EQ(full.payloads.tensors.size(), 12u);  // conv 2, bn 4, gemm 2 + 1, mm 1, const 1, gamma
  EXPECT_TRUE(ir::check_weights(full.graph(), full.payloads).has_value());
}

TEST(OnnxImport, WithoutPayloadsWeightsAreStillChecked) {
  OnnxImportOptions shapes_only;
  shapes_only.keep_payloads = false;
  Model count;
  count.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(5));
  count.node("MatMul", {"x", "w"}, {"y"}, "mm");
  EXPECT_EQ(error_of(count, shapes_only),
            "m.onnx: tensor 'w': raw_data holds 20 bytes, dims [3,2] of float32 need 24");
  Model dtype;
  dtype.input("x", {3}).output("y").init_i64("w", {1, 2, 3});
  dtype.node("Add", {"x", "w"}, {"y"}, "add");
  EXPECT_EQ(unsupported_of(dtype, shapes_only), unsupported_of(dtype));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
