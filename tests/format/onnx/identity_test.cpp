// Identity and Dropout (onnx/operators/identity.cpp): removed, unless Dropout trains or its mask
// is used.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

TEST(OnnxImport, IdentityAndDropoutAreRemoved) {
  Model m(13);
  m.input("x", {2, 3}).output("y");
  m.node("Identity", {"x"}, {"i"}, "id");
  m.node("Dropout", {"i"}, {"d"}, "drop");
  m.node("Relu", {"d"}, {"y"}, "relu");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [2,3] 'x'", "1 relu [0] -> [2,3] 'relu'"}));
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{1u}));
}

TEST(OnnxImport, IdentityOfSharedWeightFoldsIntoLinear) {
  Model m;
  m.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(6));
  m.node("Identity", {"w"}, {"w2"}, "share");
  m.node("MatMul", {"x", "w2"}, {"y"}, "mm");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'x'", "1 linear [0] -> [2,2] 'mm'"}));
}

TEST(OnnxImport, DropoutTrainingOrMaskIsRejected) {
  Model m(13);
  m.input("x", {2, 3}).output("m");
  m.node("Dropout", {"x"}, {"y", "m"}, "drop");
  EXPECT_EQ(unsupported_of(m),
            "node 0 'drop' (Dropout): output 1 mask ('m') is used; only the "
            "first output is supported");
  Model t(13);
  t.input("x", {2, 3}).input("train", {}, onnx::TensorProto_DataType_BOOL).output("y");
  t.node("Dropout", {"x", "", "train"}, {"y"}, "drop");
  EXPECT_EQ(unsupported_of(t),
            "node 0 'drop' (Dropout): input training_mode 'train' is not a "
            "constant false; only inference is supported");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
